//! Calls between annotated functions under the default features, where the macro emits no
//! continuation-passing companion (`NAME::cps`, for `#[reverse(cps)]` callers, which need the
//! feature `cps`): every calling convention of the tape backend still goes through the split
//! companions. Each gradient is checked against its closed form.

use approx::assert_relative_eq;
use revad::{derivative, reverse};

/// `x³ + x y`, a scalar callee.
#[reverse]
fn cubic(x: f64, y: f64) -> f64 {
    x * x * x + x * y
}

/// A callee over a slice, in a loop.
#[reverse]
fn sum_sq(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s += x * x;
    }
    s
}

/// A recursive callee: `xⁿ`.
#[reverse]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

/// `ln(1 + eˣ)` with a hand-written pullback.
#[derivative(vjp = softplus_pullback)]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

fn softplus_pullback(x: f64, _out: f64, seed: f64) -> f64 {
    seed / (1.0 + (-x).exp())
}

/// A function taking a function.
#[reverse]
fn apply(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    f(x) * x
}

/// A model with a trait method and a default method.
#[reverse]
trait Model {
    #[reverse]
    fn eval(&self, x: f64) -> f64;

    #[reverse]
    fn loss(&self, x: f64, y: f64) -> f64 {
        let e = self.eval(x) - y;
        e * e
    }
}

#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
struct Linear {
    w: f64,
    b: f64,
}

#[reverse]
impl Model for Linear {
    #[reverse]
    fn eval(&self, x: f64) -> f64 {
        self.w * x + self.b
    }
}

/// A generic caller of the trait's methods.
#[reverse]
fn fit<M: Model>(m: &M, x: f64, y: f64) -> f64 {
    m.loss(x, y)
}

/// Every convention at once: a scalar call, a slice call in a loop's neighbourhood, a
/// recursion, a custom rule and a closure passed to a function.
#[reverse]
fn caller(x: f64, y: f64, xs: &[f64]) -> f64 {
    let a = cubic(x, y);
    let b = sum_sq(xs) * y;
    let c = power(x, 3);
    let d = softplus(y);
    let e = apply(|t| t * y, x);
    a + b + c + d + e
}

#[test]
fn every_calling_convention_without_the_cps_feature() {
    let (x, y, xs) = (0.7, -1.3, [0.5, -2.0, 1.5]);
    let (value, (dx, dy, dxs)) = caller_grad(x, y, &xs);
    assert_eq!(value.to_bits(), caller(x, y, &xs).to_bits());
    let s: f64 = xs.iter().map(|v| v * v).sum();
    let sigmoid = 1.0 / (1.0 + (-y).exp());
    // ∂/∂x: 3x² + y (cubic) + 3x² (power) + 2 x y (apply: x·y·x).
    assert_relative_eq!(
        dx,
        3.0 * x * x + y + 3.0 * x * x + 2.0 * x * y,
        epsilon = 1e-12
    );
    // ∂/∂y: x (cubic) + s (sum_sq·y) + σ(y) (softplus) + x² (apply).
    assert_relative_eq!(dy, x + s + sigmoid + x * x, epsilon = 1e-12);
    for (d, v) in dxs.iter().zip(&xs) {
        assert_relative_eq!(*d, 2.0 * v * y, epsilon = 1e-12);
    }
}

#[test]
fn trait_methods_through_a_generic_caller() {
    let m = Linear { w: 1.5, b: -0.25 };
    let (x, y) = (2.0, 1.0);
    let (value, (dm, dx, dy)) = fit_grad(&m, x, y);
    let e = m.w * x + m.b - y;
    assert_eq!(value.to_bits(), fit(&m, x, y).to_bits());
    assert_relative_eq!(dm.w, 2.0 * e * x, epsilon = 1e-12);
    assert_relative_eq!(dm.b, 2.0 * e, epsilon = 1e-12);
    assert_relative_eq!(dx, 2.0 * e * m.w, epsilon = 1e-12);
    assert_relative_eq!(dy, -2.0 * e, epsilon = 1e-12);
}
