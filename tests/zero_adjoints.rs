//! A zero adjoint contributes zero, even through a partial that is infinite or NaN there.
//!
//! `x.max(e.cbrt())` at `e = 0`, where the `max` takes `x`: the output does not depend on `e`
//! near that point, so `∂/∂e = 0`. The plain chain rule multiplies the zero adjoint of
//! `e.cbrt()` by `cbrt'(0) = ∞` and gives NaN (as JAX does); `revad` multiplies through the
//! partials that can be infinite with `rules::times_partial`, which gives 0. The expected
//! values are closed forms; where the derivative really is infinite (a non-zero adjoint
//! through `sqrt` at 0), it stays infinite.
#![allow(
    clippy::float_cmp,
    clippy::needless_range_loop,
    reason = "the closed forms here are exact; the loop is written as users write it"
)]

use revad::{forward, reverse, Dual, Float, Lanes};

/// The forms of the issue: a root or a logarithm at the edge of its domain, behind a `max`, a
/// `min` and a branch.
#[reverse]
#[forward]
fn behind_max(x1: f64, e: f64) -> f64 {
    x1.max(e.cbrt())
}

#[reverse]
#[forward]
fn behind_min(x: f64, e: f64) -> f64 {
    x.min(e.sqrt() + 5.0)
}

#[reverse]
#[forward]
fn behind_branch(x: f64, e: f64) -> f64 {
    let l = e.ln();
    if e > 0.0 {
        l
    } else {
        x * x
    }
}

/// Every intrinsic whose partial is infinite or NaN at a finite argument, at that argument,
/// each behind a `max` that takes `x`.
#[reverse]
#[forward]
fn each_pole(x: f64, e: f64) -> f64 {
    let a = x.max(e.sqrt()) + x.max(e.cbrt()) + x.max(e.ln()) + x.max(e.log2());
    let b = x.max(e.log10()) + x.max((e - 1.0).ln_1p()) + x.max((e + 1.0).asin());
    let c = x.max((e + 1.0).acos()) + x.max((e + 1.0).acosh()) + x.max((e - 1.0).atanh());
    let d = x.max(e.powf(0.5)) + x.min(e.powi(-1)) + x.max(e.recip()).min(9.0);
    let f = x.max(e.hypot(e)) + x.max(e.atan2(e)) + x.max(e.log(2.0));
    a + b + c + d + f
}

#[reverse(cps)]
fn behind_max_cps(x1: f64, e: f64) -> f64 {
    x1.max(e.cbrt())
}

/// In a loop, where the zero adjoints come from the `min` of some iterations only.
#[reverse]
fn clipped_roots(w: &[f64], cap: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i].sqrt().min(cap);
    }
    s
}

#[reverse]
fn generic_behind_max<T: Float>(x: T, e: T) -> T {
    x.max(e.sqrt())
}

#[test]
fn zero_adjoint_through_an_infinite_partial_is_zero() {
    let (v, (gx, ge)) = behind_max_grad(1.0, 0.0);
    assert_eq!((v, gx, ge), (1.0, 1.0, 0.0));
    let (v, (gx, ge)) = behind_min_grad(1.0, 0.0);
    assert_eq!((v, gx, ge), (1.0, 1.0, 0.0));
    let (v, (gx, ge)) = behind_branch_grad(3.0, 0.0);
    assert_eq!((v, gx, ge), (9.0, 6.0, 0.0));
    let (v, (gx, ge)) = behind_max_cps_grad(1.0, 0.0);
    assert_eq!((v, gx, ge), (1.0, 1.0, 0.0));
    let (v, (gx, ge)) = generic_behind_max_grad(1.0_f32, 0.0);
    assert_eq!((v, gx, ge), (1.0, 1.0, 0.0));
}

#[test]
fn every_intrinsic_with_a_pole() {
    // Each term is `max(x, g(e))` with `g(0)` below `x = 2` (or NaN, which `max` skips), or
    // `min(x, g(e))` with `g(0) = ∞` for `powi(-1)`; the `recip` term is `max(x, ∞)` capped by
    // `min(9)`. So the value is 15·2 + 9 and only `x` has a derivative, 1 per term but the
    // capped one.
    let (v, (gx, ge)) = each_pole_grad(2.0, 0.0);
    assert_eq!(v, each_pole(2.0, 0.0));
    assert_eq!((v, gx, ge), (15.0 * 2.0 + 9.0, 15.0, 0.0));
    let (_, t) = each_pole_jvp(2.0, 0.0, 1.0, 0.0);
    assert_eq!(t, 15.0);
}

/// Forward mode: a zero tangent (a direction that does not move `e`) through an infinite
/// partial contributes zero. (Along a direction that moves `e`, the tangent of `e.cbrt()` is
/// infinite, as it should be, and the `max` that drops it multiplies it by its partial 0:
/// forward mode gives NaN there, as JAX's `jvp` does; `NAME_grad` gives the 0.)
#[test]
fn forward_mode_zero_tangent_through_an_infinite_partial_is_zero() {
    assert_eq!(behind_max_jvp(1.0, 0.0, 1.0, 0.0), (1.0, 1.0));
    assert_eq!(behind_min_jvp(1.0, 0.0, 1.0, 0.0), (1.0, 1.0));
    assert_eq!(behind_branch_jvp(3.0, 0.0, 1.0, 0.0), (9.0, 6.0));
}

#[forward(vector)]
fn lanes_behind_max(x: f64, e: f64) -> f64 {
    x.max(e.sqrt())
}

#[test]
fn vector_forward_mode_lane_by_lane() {
    // Two directions that move `x` only: `e`'s zero tangent in each lane contributes zero.
    let (v, d) = lanes_behind_max_jvp_vec(1.0, 0.0, Lanes([1.0, -2.0]), Lanes([0.0, 0.0]));
    assert_eq!((v, d.0), (1.0, [1.0, -2.0]));
}

#[test]
fn loop_with_some_clipped_iterations() {
    // sqrt(0) = 0 < cap: that term passes through `min` with the infinite partial of `sqrt`
    // at 0 and a non-zero adjoint, so its derivative is infinite, honestly; sqrt(16) = 4 is
    // clipped by `cap = 3`: zero adjoint, derivative 0; sqrt(4) = 2: 1/(2·2).
    let (v, g) = clipped_roots_grad(&[4.0, 16.0], 3.0);
    assert_eq!(v, 2.0 + 3.0);
    assert_eq!((g.0, g.1), (vec![0.25, 0.0], 1.0));
    let (_, g) = clipped_roots_grad(&[0.0, 16.0], 3.0);
    assert_eq!(g.0[0], f64::INFINITY);
    assert_eq!(g.0[1], 0.0);
}

#[test]
fn a_non_zero_adjoint_keeps_the_infinite_derivative() {
    #[reverse]
    fn root(e: f64) -> f64 {
        e.sqrt()
    }
    assert_eq!(root_grad(0.0), (0.0, f64::INFINITY));
}

#[test]
fn dual_numbers_follow_the_same_convention() {
    // A constant (zero tangent) through `sqrt` at 0 contributes zero ..
    let y = Dual::variable(1.0_f64).max(Dual::constant(0.0).sqrt());
    assert_eq!((y.re, y.eps), (1.0, 1.0));
    let y = Dual::variable(2.0_f64) * Dual::constant(0.0).ln().max(Dual::constant(-1.0));
    assert_eq!((y.re, y.eps), (-2.0, -1.0));
    // .. a variable keeps its infinite derivative.
    let y = Dual::variable(0.0_f64).sqrt();
    assert_eq!((y.re, y.eps), (0.0, f64::INFINITY));
    let y = Dual::constant(0.0_f64).hypot(Dual::constant(0.0));
    assert_eq!((y.re, y.eps), (0.0, 0.0));
}

/// A loop whose reverse is fused with its forward and runs with its accumulator's adjoint 1,
/// what it added multiplied by that adjoint once known (`s.sqrt()`, `s.ln()`, `1 / s` after
/// it): where no iteration adds (the branch never taken, the filter keeps nothing), the
/// adjoint is infinite at `s = 0` and the loop's contribution is zero, as each iteration's
/// reverse would give; where the adjoint is zero (`k = 0`), an infinite partial in the loop
/// contributes zero too.
#[reverse]
fn root_of_a_branch_in_a_loop(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in xs {
        if *v > 0.0 {
            s += v * v;
        }
    }
    s.sqrt()
}

#[reverse(cps)]
fn root_of_a_branch_in_a_loop_cps(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in xs {
        if *v > 0.0 {
            s += v * v;
        }
    }
    s.sqrt()
}

#[reverse]
fn log_of_an_untaken_sum(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..2 {
        if x > 0.0 {
            s += y;
        }
    }
    s.ln()
}

#[reverse]
fn reciprocal_of_an_empty_filter(xs: &[f64], t: f64) -> f64 {
    let s: f64 = xs.iter().filter(|v| **v > t).map(|v| v * 2.0).sum();
    1.0 / s
}

#[reverse]
fn roots_scaled_by_zero(xs: &[f64], k: f64) -> f64 {
    let mut s = 0.0;
    for v in xs {
        s += v.sqrt();
    }
    k * s
}

#[test]
fn fused_loops_that_add_nothing_contribute_zero() {
    assert_eq!(
        root_of_a_branch_in_a_loop_grad(&[-1.0, -2.0]),
        (0.0, vec![0.0, 0.0])
    );
    assert_eq!(
        root_of_a_branch_in_a_loop_cps_grad(&[-1.0, -2.0]),
        (0.0, vec![0.0, 0.0])
    );
    assert_eq!(
        root_of_a_branch_in_a_loop_grad(&[3.0, -2.0]),
        (3.0, vec![1.0, 0.0])
    );
    assert_eq!(
        log_of_an_untaken_sum_grad(-1.0, 2.0),
        (f64::NEG_INFINITY, (0.0, 0.0))
    );
    // (An empty sum is -0.0, as `Sum` for floats starts.)
    assert_eq!(
        reciprocal_of_an_empty_filter_grad(&[1.0, 2.0], 5.0),
        (f64::NEG_INFINITY, (vec![0.0, 0.0], 0.0))
    );
    // sqrt'(0) = ∞ times the adjoint 0 of `s`: 0; `∂/∂k = s`.
    let (v, (dx, dk)) = roots_scaled_by_zero_grad(&[0.0, 4.0], 0.0);
    assert_eq!((v, dx, dk), (0.0, vec![0.0, 0.0], 2.0));
    // A non-zero adjoint keeps the infinite derivative.
    let (_, (dx, _)) = roots_scaled_by_zero_grad(&[0.0, 4.0], 1.0);
    assert_eq!(dx, vec![f64::INFINITY, 0.25]);
}

/// `x⁰ = 1` for every `x`: its derivative is 0 at `x = 0` too, where `y xʸ⁻¹` is `0 · ∞`
/// (JAX's convention; `powi(0)` was already 0).
#[reverse]
#[forward]
fn zero_power(x: f64) -> f64 {
    x.powf(0.0)
}

/// The exponent as a variable: `∂/∂x xʸ` at `y = 0` is 0 at every `x`.
#[reverse]
fn power(x: f64, y: f64) -> f64 {
    x.powf(y)
}

/// A polynomial written with `powf` of the loop index, as users write it: `c₀ + c₁x + c₂x²`,
/// whose derivative at 0 is `c₁`.
#[reverse]
fn powf_polynomial(x: f64, c: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..c.len() {
        s += c[i] * x.powf(i as f64);
    }
    s
}

/// `x¹` and `x⁰` under the Hessian: second derivatives 0 at `x = 0` (`x^(1 - 1)` in the
/// dual numbers is a constant power 0).
#[reverse(hessian)]
fn linear_power(x: f64, y: f64) -> f64 {
    x.powf(1.0) + y.powf(0.0) * 3.0
}

#[test]
fn a_zero_exponent_has_a_zero_derivative_at_zero() {
    assert_eq!(zero_power_grad(0.0), (1.0, 0.0));
    assert_eq!(zero_power_grad(2.5), (1.0, 0.0));
    assert_eq!(zero_power_jvp(0.0, 1.0), (1.0, 0.0));
    assert_eq!(power_grad(0.0, 0.0), (1.0, (0.0, 0.0)));
    assert_eq!(power_grad(3.0, 0.0), (1.0, (0.0, 3f64.ln())));
    // Elsewhere the rule is `y xʸ⁻¹` as before.
    assert_eq!(power_grad(0.0, 2.0).1 .0, 0.0);
    assert_eq!(power_grad(0.0, 1.0).1 .0, 1.0);
    assert_eq!(power_grad(2.0, 3.0).1 .0, 12.0);
    let c = [1.0, 2.0, 3.0];
    let (value, (dx, dc)) = powf_polynomial_grad(0.0, &c);
    assert_eq!((value, dx, dc), (1.0, 2.0, vec![1.0, 0.0, 0.0]));
    let (value, (dx, dc)) = powf_polynomial_grad(0.5, &c);
    assert_eq!(value, 1.0 + 2.0 * 0.5 + 3.0 * 0.25);
    assert_eq!((dx, dc), (2.0 + 6.0 * 0.5, vec![1.0, 0.5, 0.25]));
    let (value, g, h) = linear_power_hessian(0.0, 0.0);
    assert_eq!((value, g), (3.0, (1.0, 0.0)));
    assert_eq!(h, vec![vec![0.0, 0.0], vec![0.0, 0.0]]);
    let (_, g, h) = linear_power_hessian(2.0, 5.0);
    assert_eq!((g, h), ((1.0, 0.0), vec![vec![0.0, 0.0], vec![0.0, 0.0]]));
}

/// The exponent's own tangent keeps the mixed second derivative of `xʸ` at `y = 0`:
/// `∂²/∂x∂y xʸ = xʸ⁻¹ (1 + y ln x)`, `1 / x` there.
#[reverse(hessian)]
fn mixed_power(x: f64, y: f64) -> f64 {
    x.powf(y)
}

#[test]
fn a_varying_zero_exponent_keeps_the_mixed_derivative() {
    let (value, g, h) = mixed_power_hessian(2.0, 0.0);
    assert_eq!((value, g), (1.0, (0.0, 2f64.ln())));
    assert_eq!(h[0][1], 0.5);
    assert_eq!(h[1][0], 0.5);
    assert_eq!(h[0][0], 0.0);
    assert_eq!(h[1][1], 2f64.ln() * 2f64.ln());
}
