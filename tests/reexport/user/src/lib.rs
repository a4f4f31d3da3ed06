//! A crate that reaches `revad` only through `revad_reexporter::math::diff` and says so with
//! `crate = ..` on each attribute: a loop, a struct with a method and a forward-mode function.
//! The tests in `tests/` check the derivatives against closed forms.

use revad_reexporter::math::diff;

/// `x` after `n` steps of `x ← x·a + sin x`.
#[diff::reverse(crate = revad_reexporter::math::diff)]
pub fn recurrence(x0: f64, a: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        x = x * a + x.sin();
    }
    x
}

/// A point mass.
#[derive(Clone, Debug, PartialEq, diff::Adjoint)]
#[adjoint(crate = revad_reexporter::math::diff)]
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
    #[diff::reverse(crate = revad_reexporter::math::diff)]
    pub fn energy(&self, g: f64) -> f64 {
        let v2 = self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1];
        0.5 * self.mass * v2 + self.mass * g * self.pos[1]
    }
}

/// `x·y + sin x`, differentiated in forward mode and in reverse mode, with a closure that
/// the reverse mode lifts into a function of its own (which gets the crate path too).
#[diff::forward(crate = revad_reexporter::math::diff)]
#[diff::reverse(crate = revad_reexporter::math::diff)]
pub fn product(x: f64, y: f64) -> f64 {
    x * y + x.sin()
}

/// Applies `f` twice.
#[diff::reverse(crate = revad_reexporter::math::diff)]
pub fn twice<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(f(x))
}

/// `twice` of a closure that captures `a`.
#[diff::reverse(crate = revad_reexporter::math::diff)]
pub fn scaled_twice(a: f64, x: f64) -> f64 {
    twice(|t| a * t.sin(), x)
}
