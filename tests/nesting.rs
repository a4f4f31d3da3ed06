//! Nested derivatives: a derivative taken inside a function that is itself differentiated,
//! in the four combinations of forward and reverse mode, with the inner function depending
//! on the outer variable (Pearlmutter & Siskind, "Lambda the Ultimate Backpropagator").
//!
//! The inner function takes the outer variable as a parameter that its `wrt` leaves out,
//! and `#[reverse(hessian)]` makes its `_grad` and `_jvp` differentiable: an outer
//! `#[reverse]` or `#[revad::forward]` function calls them like any annotated function.

use revad::{forward, reverse};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

/// The inner function of Siskind & Pearlmutter's perturbation-confusion test: x + y.
#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
fn shift(x: f64, y: f64) -> f64 {
    x + y
}

// x · (d/dy (x + y)) in each combination (outer mode, inner mode).

#[reverse]
fn confusion_rr(x: f64) -> f64 {
    let (_, d) = shift_grad(x, 1.0);
    x * d
}

#[forward]
fn confusion_fr(x: f64) -> f64 {
    let (_, d) = shift_grad(x, 1.0);
    x * d
}

#[reverse]
fn confusion_rf(x: f64) -> f64 {
    let (_, d) = shift_jvp(x, 1.0, 1.0);
    x * d
}

#[forward]
fn confusion_ff(x: f64) -> f64 {
    let (_, d) = shift_jvp(x, 1.0, 1.0);
    x * d
}

/// d/dx [x · (d/dy (x + y))] is 1 at any x, not 2: no perturbation confusion.
#[test]
fn no_perturbation_confusion_in_any_combination() {
    for x in [-2.0, 0.0, 0.5, 3.0] {
        assert_eq!(confusion_rr_grad(x), (x, 1.0));
        assert_eq!(confusion_fr_jvp(x, 1.0), (x, 1.0));
        assert_eq!(confusion_rf_grad(x), (x, 1.0));
        assert_eq!(confusion_ff_jvp(x, 1.0), (x, 1.0));
    }
}

/// A nonlinear inner function: h(x, y) = x y² + sin(x y).
#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
fn h(x: f64, y: f64) -> f64 {
    x * y * y + (x * y).sin()
}

// f(x) = x² · ∂h/∂y(x, y0) with y0 = 0.7, so ∂h/∂y = 2 x y0 + x cos(x y0).

#[reverse]
fn f_rr(x: f64) -> f64 {
    let (_, d) = h_grad(x, 0.7);
    x * x * d
}

#[forward]
fn f_fr(x: f64) -> f64 {
    let (_, d) = h_grad(x, 0.7);
    x * x * d
}

#[reverse]
fn f_rf(x: f64) -> f64 {
    let (_, d) = h_jvp(x, 0.7, 1.0);
    x * x * d
}

#[forward]
fn f_ff(x: f64) -> f64 {
    let (_, d) = h_jvp(x, 0.7, 1.0);
    x * x * d
}

#[test]
fn second_order_mixed_partials_in_every_combination() {
    let y0: f64 = 0.7;
    for x in [-1.3, 0.4, 2.0_f64] {
        // d/dx [x² (2 x y0 + x cos(x y0))] = 6 x² y0 + 3 x² cos(x y0) - x³ y0 sin(x y0).
        let expected =
            6.0 * x * x * y0 + 3.0 * x * x * (x * y0).cos() - x * x * x * y0 * (x * y0).sin();
        let value = x * x * (2.0 * x * y0 + x * (x * y0).cos());
        let (v, d) = f_rr_grad(x);
        assert!(close(v, value) && close(d, expected), "rr {d} {expected}");
        let (v, d) = f_fr_jvp(x, 1.0);
        assert!(close(v, value) && close(d, expected), "fr {d} {expected}");
        let (v, d) = f_rf_grad(x);
        assert!(close(v, value) && close(d, expected), "rf {d} {expected}");
        let (v, d) = f_ff_jvp(x, 1.0);
        assert!(close(v, value) && close(d, expected), "ff {d} {expected}");
    }
}
