//! `#[revad::derivative(vjp = .., jvp = ..)]`: hand-written forward rules, used by forward-mode
//! callers, and custom rules under second derivatives and nesting.

use revad::{derivative, forward, reverse, Float};

/// log(1 + eˣ), computed stably, with both rules.
#[derivative(vjp = softplus_pullback, jvp = softplus_tangent)]
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn softplus_pullback(x: f64, _out: f64, seed: f64) -> f64 {
    seed * logistic(x)
}

/// The forward rule: the parameters, the output, then the tangents of the float parameters.
fn softplus_tangent(x: f64, _out: f64, dx: f64) -> f64 {
    logistic(x) * dx
}

#[forward]
#[reverse]
fn loss(x: f64, y: f64) -> f64 {
    softplus(2.0 * x) * y
}

#[test]
fn forward_callers_use_the_rule() {
    let (v, d) = softplus_jvp(0.3, 2.0);
    assert_eq!(v, softplus(0.3));
    assert_eq!(d, logistic(0.3) * 2.0);
    let (x, y) = (0.25, 3.0);
    let (_, dx) = loss_jvp(x, y, 1.0, 0.0);
    let (_, dy) = loss_jvp(x, y, 0.0, 1.0);
    assert!((dx - 2.0 * y * logistic(2.0 * x)).abs() < 1e-15);
    assert_eq!(dy, softplus(2.0 * x));
    let (_, (gx, gy)) = loss_grad(x, y);
    assert_eq!((dx, dy), (gx, gy));
}

/// A rule written for every float type runs on dual numbers: second derivatives and nested
/// derivatives go through it.
#[derivative(vjp = cube_pullback, jvp = cube_tangent)]
fn cube<T: Float>(x: T) -> T {
    x * x * x
}

fn cube_pullback<T: Float>(x: T, _out: T, seed: T) -> T {
    seed * T::from_f64(3.0) * x * x
}

fn cube_tangent<T: Float>(x: T, _out: T, dx: T) -> T {
    T::from_f64(3.0) * x * x * dx
}

#[reverse(hessian)]
fn uses_cube(x: f64, y: f64) -> f64 {
    cube(x * y) + y
}

#[test]
fn hessian_through_a_custom_rule() {
    let (x, y) = (0.7, -1.2);
    let (v, (gx, gy), h) = uses_cube_hessian(x, y);
    assert_eq!(v, uses_cube(x, y));
    assert!((gx - 3.0 * x * x * y * y * y).abs() < 1e-12);
    assert!((gy - (3.0 * x * x * x * y * y + 1.0)).abs() < 1e-12);
    let expected = [
        [6.0 * x * y.powi(3), 9.0 * x * x * y * y],
        [9.0 * x * x * y * y, 6.0 * x.powi(3) * y],
    ];
    for i in 0..2 {
        for j in 0..2 {
            assert!((h[i][j] - expected[i][j]).abs() < 1e-12, "{h:?}");
        }
    }
}

#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
fn inner(x: f64, y: f64) -> f64 {
    cube(x + y)
}

/// x · ∂/∂y (x + y)³ at y = 1, differentiated in x in reverse and forward mode over both
/// inner modes: d/dx [3 x (x + 1)²] = 3 (x + 1)² + 6 x (x + 1).
#[reverse]
fn outer_rr(x: f64) -> f64 {
    let (_, d) = inner_grad(x, 1.0);
    x * d
}

#[forward]
fn outer_ff(x: f64) -> f64 {
    let (_, d) = inner_jvp(x, 1.0, 1.0);
    x * d
}

#[test]
fn nested_derivatives_through_a_custom_rule() {
    for x in [-0.5, 0.0, 2.0] {
        let expected = 3.0 * (x + 1.0) * (x + 1.0) + 6.0 * x * (x + 1.0);
        assert!((outer_rr_grad(x).1 - expected).abs() < 1e-12);
        assert!((outer_ff_jvp(x, 1.0).1 - expected).abs() < 1e-12);
    }
}
