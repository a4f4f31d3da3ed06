//! A crate that depends on `revad` as `autodiff` and differentiates with it: a loop, a struct
//! with a method, a generic function and a forward-mode function, through every kind of
//! generated item. It names nothing `revad`; the generated code must not either. The tests in
//! `tests/` check the derivatives against closed forms.

use autodiff::{forward, reverse, Float};

/// `x` after `n` steps of `x ← x·a + sin x`.
#[reverse]
pub fn recurrence(x0: f64, a: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        x = x * a + x.sin();
    }
    x
}

/// A point mass.
#[derive(Clone, Debug, PartialEq, autodiff::Adjoint)]
pub struct Body {
    /// Position.
    pub pos: [f64; 2],
    /// Velocity.
    pub vel: [f64; 2],
    /// Mass.
    pub mass: f64,
}

impl Body {
    /// Kinetic plus potential energy in a field of strength `g`.
    #[reverse]
    pub fn energy(&self, g: f64) -> f64 {
        let v2 = self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1];
        0.5 * self.mass * v2 + self.mass * g * self.pos[1]
    }
}

/// `Σ wᵢ xᵢ²` in the caller's float type.
#[reverse]
pub fn weighted<T: Float>(w: &[T], x: &[T]) -> T {
    let mut s = T::ZERO;
    for i in 0..w.len() {
        s += w[i] * x[i] * x[i];
    }
    s
}

/// `x·y + sin x`, differentiated in forward mode and in reverse mode.
#[forward]
#[reverse]
pub fn product(x: f64, y: f64) -> f64 {
    x * y + x.sin()
}

/// `|x| · (x² + LN 2)` over `num_traits::Float` (through the library's re-export): the
/// generated code names `::revad::Float`, `::revad::num_traits::ToPrimitive` and
/// `::revad::num_traits::FloatConst`, under the dependency's name.
#[reverse]
pub fn num_generic<T: autodiff::num_traits::Float + autodiff::num_traits::FloatConst>(x: T) -> T {
    if x.abs() > T::zero() && x.to_f64() > Some(0.0) {
        x * (x.powi(2) + T::LN_2())
    } else {
        -x * (x * x + T::LN_2())
    }
}
