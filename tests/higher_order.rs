//! Higher-order functions: a generic function that takes a closure (an integrator, an
//! optimiser) differentiated with respect to its float arguments and to the variables the
//! closure captures, by running it on dual numbers.

use revad::forward::{derivative, gradient};
use revad::{Dual, Float};

/// The trapezoidal rule with `n` panels: ordinary generic Rust, no attribute.
fn integrate<T: Float, F: Fn(T) -> T>(f: F, a: T, b: T, n: usize) -> T {
    let h = (b - a) / T::from_i32(n as i32);
    let mut sum = (f(a) + f(b)) * T::HALF;
    for k in 1..n {
        sum += f(a + h * T::from_i32(k as i32));
    }
    sum * h
}

/// Gradient descent on any objective given as a closure, generic over the float type: an
/// outer derivative can differentiate through the whole optimisation.
fn descend<T: Float>(objective_grad: impl Fn(T) -> T, x0: T, rate: T, steps: usize) -> T {
    let mut x = x0;
    for _ in 0..steps {
        x -= rate * objective_grad(x);
    }
    x
}

#[test]
fn derivative_with_respect_to_a_captured_variable() {
    // I(c) = ∫₀¹ sin(c x) dx; dI/dc = ∫₀¹ x cos(c x) dx, against the same rule on f64.
    let c0 = 1.3;
    let (value, d) = derivative(
        |c: Dual<f64>| {
            integrate(
                |x| (c * x).sin(),
                Dual::constant(0.0),
                Dual::constant(1.0),
                200,
            )
        },
        c0,
    );
    assert_eq!(value, integrate(|x: f64| (c0 * x).sin(), 0.0, 1.0, 200));
    let expected = integrate(|x: f64| x * (c0 * x).cos(), 0.0, 1.0, 200);
    assert!((d - expected).abs() < 1e-13, "{d} {expected}");
}

#[test]
fn gradient_with_respect_to_the_bounds_and_a_capture() {
    // I(a, b, c) = ∫ₐᵇ c x² dx: ∂/∂a = -c a², ∂/∂b = c b², ∂/∂c = (b³ - a³) / 3, exact for
    // the trapezoidal rule up to its O(h²) error, so compared with the rule's own values.
    let p = [0.5, 2.0, 3.0];
    let (_, g) = gradient(
        |p: &[Dual<f64>]| integrate(|x| p[2] * x * x, p[0], p[1], 1000),
        &p,
    );
    let h = 1e-6;
    let i = |a: f64, b: f64, c: f64| integrate(|x| c * x * x, a, b, 1000);
    let fd = [
        (i(p[0] + h, p[1], p[2]) - i(p[0] - h, p[1], p[2])) / (2.0 * h),
        (i(p[0], p[1] + h, p[2]) - i(p[0], p[1] - h, p[2])) / (2.0 * h),
        (i(p[0], p[1], p[2] + h) - i(p[0], p[1], p[2] - h)) / (2.0 * h),
    ];
    for k in 0..3 {
        assert!(
            (g[k] - fd[k]).abs() < 1e-6 * (1.0 + fd[k].abs()),
            "{g:?} {fd:?}"
        );
    }
}

#[test]
fn derivative_through_an_optimiser_taking_the_objective() {
    // argmin_x (x - t)² + x⁴/4 by gradient descent, as a function of t; its derivative by
    // forward mode through 200 steps, the objective's gradient itself by forward mode
    // (nested, with `t` captured).
    let solve = |t: Dual<f64>| {
        let grad = |x: Dual<f64>| {
            derivative(
                |y: Dual<Dual<f64>>| {
                    let t = Dual::constant(t);
                    (y - t) * (y - t) + y.powi(4) * Dual::constant(Dual::constant(0.25))
                },
                x,
            )
            .1
        };
        descend(grad, Dual::constant(0.0), Dual::constant(0.1), 200)
    };
    let t0 = 0.8;
    let (x, dx_dt) = derivative(solve, t0);
    // At the optimum 2(x - t) + x³ = 0, so dx/dt = 2 / (2 + 3x²).
    assert!((2.0 * (x - t0) + x.powi(3)).abs() < 1e-12);
    assert!((dx_dt - 2.0 / (2.0 + 3.0 * x * x)).abs() < 1e-10, "{dx_dt}");
}
