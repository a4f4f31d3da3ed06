//! Every float intrinsic in `ad::rules::INTRINSICS`, and the `%` operator: a `#[reverse]`
//! function in method form (`x.sin()`) and one in path form (`f64::sin(x)`) for each, whose
//! gradient is checked against the closed-form derivative written out here by hand and against
//! finite differences; the conventions at non-differentiable points against values obtained
//! from JAX in float64; a few intrinsics in `f32`; and a check that this file covers exactly
//! the runtime's table.
//!
//! The expected derivatives never come from `ad::rules::d_*`: that would compare the code
//! with itself.

use std::collections::BTreeSet;
use std::f64::consts::LN_2;

use ad::check;
use ad::reverse;
use approx::assert_relative_eq;

/// Relative tolerance of closed-form comparisons in `f64`.
const REL: f64 = 1e-12;

type F1 = fn(f64) -> f64;
type G1 = fn(f64) -> (f64, f64);
type F2 = fn(f64, f64) -> f64;
type G2 = fn(f64, f64) -> (f64, (f64, f64));

/// Checks both call forms of a one-argument intrinsic at each point: the value is the
/// primal's, the derivative is `closed_form(x)`, and finite differences agree.
fn check_unary(forms: [(F1, G1); 2], closed_form: impl Fn(f64) -> f64, points: &[f64]) {
    assert!(points.len() >= 4, "at least four points per intrinsic");
    for (f, grad) in forms {
        for &x in points {
            let (v, d) = grad(x);
            assert_eq!(v, f(x), "value at x = {x}");
            assert_relative_eq!(d, closed_form(x), max_relative = REL);
            check::gradient(|p| f(p[0]), &[x], &[d]).unwrap();
        }
    }
}

/// Checks both call forms of a two-argument intrinsic at each point: both partials against
/// `closed_form(a, b)` and against finite differences.
fn check_binary(
    forms: [(F2, G2); 2],
    closed_form: impl Fn(f64, f64) -> (f64, f64),
    points: &[(f64, f64)],
) {
    assert!(points.len() >= 4, "at least four points per intrinsic");
    for (f, grad) in forms {
        for &(a, b) in points {
            let (v, (da, db)) = grad(a, b);
            assert_eq!(v, f(a, b), "value at ({a}, {b})");
            let (ea, eb) = closed_form(a, b);
            assert_relative_eq!(da, ea, max_relative = REL);
            assert_relative_eq!(db, eb, max_relative = REL);
            check::gradient(|p| f(p[0], p[1]), &[a, b], &[da, db]).unwrap();
        }
    }
}

// ---- trigonometric ---------------------------------------------------------------------------

#[reverse]
fn sin_method(x: f64) -> f64 {
    x.sin()
}

#[reverse]
fn sin_path(x: f64) -> f64 {
    f64::sin(x)
}

#[test]
fn sin_derivative_is_cos() {
    check_unary(
        [(sin_method, sin_method_grad), (sin_path, sin_path_grad)],
        |x| x.cos(),
        &[-2.5, -0.7, 0.0, 0.4, 1.3, 3.0],
    );
}

#[reverse]
fn cos_method(x: f64) -> f64 {
    x.cos()
}

#[reverse]
fn cos_path(x: f64) -> f64 {
    f64::cos(x)
}

#[test]
fn cos_derivative_is_minus_sin() {
    check_unary(
        [(cos_method, cos_method_grad), (cos_path, cos_path_grad)],
        |x| -x.sin(),
        &[-2.5, -0.7, 0.0, 0.4, 1.3, 3.0],
    );
}

#[reverse]
fn tan_method(x: f64) -> f64 {
    x.tan()
}

#[reverse]
fn tan_path(x: f64) -> f64 {
    f64::tan(x)
}

#[test]
fn tan_derivative_is_one_over_cos_squared() {
    check_unary(
        [(tan_method, tan_method_grad), (tan_path, tan_path_grad)],
        |x| 1.0 / (x.cos() * x.cos()),
        &[-1.2, -0.4, 0.0, 0.3, 1.0, 2.0],
    );
}

#[reverse]
fn asin_method(x: f64) -> f64 {
    x.asin()
}

#[reverse]
fn asin_path(x: f64) -> f64 {
    f64::asin(x)
}

#[test]
fn asin_derivative_is_one_over_sqrt_one_minus_x_squared() {
    check_unary(
        [(asin_method, asin_method_grad), (asin_path, asin_path_grad)],
        |x| 1.0 / (1.0 - x * x).sqrt(),
        &[-0.9, -0.3, 0.0, 0.2, 0.7, 0.95],
    );
}

#[reverse]
fn acos_method(x: f64) -> f64 {
    x.acos()
}

#[reverse]
fn acos_path(x: f64) -> f64 {
    f64::acos(x)
}

#[test]
fn acos_derivative_is_minus_one_over_sqrt_one_minus_x_squared() {
    check_unary(
        [(acos_method, acos_method_grad), (acos_path, acos_path_grad)],
        |x| -1.0 / (1.0 - x * x).sqrt(),
        &[-0.9, -0.3, 0.0, 0.2, 0.7, 0.95],
    );
}

#[reverse]
fn atan_method(x: f64) -> f64 {
    x.atan()
}

#[reverse]
fn atan_path(x: f64) -> f64 {
    f64::atan(x)
}

#[test]
fn atan_derivative_is_one_over_one_plus_x_squared() {
    check_unary(
        [(atan_method, atan_method_grad), (atan_path, atan_path_grad)],
        |x| 1.0 / (1.0 + x * x),
        &[-10.0, -1.5, -0.2, 0.0, 0.6, 4.0],
    );
}

#[reverse]
fn atan2_method(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

#[reverse]
fn atan2_path(y: f64, x: f64) -> f64 {
    f64::atan2(y, x)
}

#[test]
fn atan2_partials_in_all_four_quadrants() {
    // ∂/∂y atan2(y, x) = x / (x² + y²), ∂/∂x = -y / (x² + y²). The points avoid the branch
    // cut on the negative x axis.
    check_binary(
        [
            (atan2_method, atan2_method_grad),
            (atan2_path, atan2_path_grad),
        ],
        |y, x| (x / (x * x + y * y), -y / (x * x + y * y)),
        &[
            (1.0, 2.0),
            (-1.5, 0.5),
            (0.7, -1.2),
            (-0.3, -0.8),
            (2.0, 0.0),
            (0.0, 3.0),
        ],
    );
}

// ---- hyperbolic ------------------------------------------------------------------------------

#[reverse]
fn sinh_method(x: f64) -> f64 {
    x.sinh()
}

#[reverse]
fn sinh_path(x: f64) -> f64 {
    f64::sinh(x)
}

#[test]
fn sinh_derivative_is_cosh() {
    check_unary(
        [(sinh_method, sinh_method_grad), (sinh_path, sinh_path_grad)],
        |x| (x.exp() + (-x).exp()) / 2.0,
        &[-3.0, -0.8, 0.0, 0.5, 2.2],
    );
}

#[reverse]
fn cosh_method(x: f64) -> f64 {
    x.cosh()
}

#[reverse]
fn cosh_path(x: f64) -> f64 {
    f64::cosh(x)
}

#[test]
fn cosh_derivative_is_sinh() {
    check_unary(
        [(cosh_method, cosh_method_grad), (cosh_path, cosh_path_grad)],
        |x| (x.exp() - (-x).exp()) / 2.0,
        &[-3.0, -0.8, 0.5, 2.2],
    );
}

#[reverse]
fn tanh_method(x: f64) -> f64 {
    x.tanh()
}

#[reverse]
fn tanh_path(x: f64) -> f64 {
    f64::tanh(x)
}

#[test]
fn tanh_derivative_is_one_over_cosh_squared() {
    check_unary(
        [(tanh_method, tanh_method_grad), (tanh_path, tanh_path_grad)],
        |x| 1.0 / (x.cosh() * x.cosh()),
        &[-2.5, -0.6, 0.0, 0.3, 1.7],
    );
}

#[reverse]
fn asinh_method(x: f64) -> f64 {
    x.asinh()
}

#[reverse]
fn asinh_path(x: f64) -> f64 {
    f64::asinh(x)
}

#[test]
fn asinh_derivative_is_one_over_sqrt_x_squared_plus_one() {
    check_unary(
        [
            (asinh_method, asinh_method_grad),
            (asinh_path, asinh_path_grad),
        ],
        |x| 1.0 / (x * x + 1.0).sqrt(),
        &[-20.0, -1.3, 0.0, 0.4, 3.0],
    );
}

#[reverse]
fn acosh_method(x: f64) -> f64 {
    x.acosh()
}

#[reverse]
fn acosh_path(x: f64) -> f64 {
    f64::acosh(x)
}

#[test]
fn acosh_derivative_is_one_over_sqrt_x_squared_minus_one() {
    // The domain is x ≥ 1: no negative points.
    check_unary(
        [
            (acosh_method, acosh_method_grad),
            (acosh_path, acosh_path_grad),
        ],
        |x| 1.0 / (x * x - 1.0).sqrt(),
        &[1.2, 2.0, 5.0, 30.0],
    );
}

#[reverse]
fn atanh_method(x: f64) -> f64 {
    x.atanh()
}

#[reverse]
fn atanh_path(x: f64) -> f64 {
    f64::atanh(x)
}

#[test]
fn atanh_derivative_is_one_over_one_minus_x_squared() {
    check_unary(
        [
            (atanh_method, atanh_method_grad),
            (atanh_path, atanh_path_grad),
        ],
        |x| 1.0 / (1.0 - x * x),
        &[-0.9, -0.4, 0.0, 0.25, 0.8],
    );
}

// ---- exponentials and logarithms -------------------------------------------------------------

#[reverse]
fn exp_method(x: f64) -> f64 {
    x.exp()
}

#[reverse]
fn exp_path(x: f64) -> f64 {
    f64::exp(x)
}

#[test]
fn exp_derivative_is_exp() {
    check_unary(
        [(exp_method, exp_method_grad), (exp_path, exp_path_grad)],
        |x| x.exp(),
        &[-3.0, -0.5, 0.0, 0.7, 2.5],
    );
}

#[reverse]
fn exp2_method(x: f64) -> f64 {
    x.exp2()
}

#[reverse]
fn exp2_path(x: f64) -> f64 {
    f64::exp2(x)
}

#[test]
fn exp2_derivative_is_two_to_the_x_times_ln_2() {
    check_unary(
        [(exp2_method, exp2_method_grad), (exp2_path, exp2_path_grad)],
        |x| 2f64.powf(x) * 2f64.ln(),
        &[-3.5, -1.0, 0.0, 0.3, 4.0],
    );
}

#[reverse]
fn exp_m1_method(x: f64) -> f64 {
    x.exp_m1()
}

#[reverse]
fn exp_m1_path(x: f64) -> f64 {
    f64::exp_m1(x)
}

#[test]
fn exp_m1_derivative_is_exp() {
    check_unary(
        [
            (exp_m1_method, exp_m1_method_grad),
            (exp_m1_path, exp_m1_path_grad),
        ],
        |x| x.exp(),
        &[-3.0, -0.2, -1e-9, 0.0, 1e-7, 1.5],
    );
}

#[reverse]
fn ln_method(x: f64) -> f64 {
    x.ln()
}

#[reverse]
fn ln_path(x: f64) -> f64 {
    f64::ln(x)
}

#[test]
fn ln_derivative_is_one_over_x() {
    // The domain is x > 0: no negative points.
    check_unary(
        [(ln_method, ln_method_grad), (ln_path, ln_path_grad)],
        |x| 1.0 / x,
        &[0.25, 1.0, 2.7, 40.0, 1e6],
    );
}

#[reverse]
fn ln_1p_method(x: f64) -> f64 {
    x.ln_1p()
}

#[reverse]
fn ln_1p_path(x: f64) -> f64 {
    f64::ln_1p(x)
}

#[test]
fn ln_1p_derivative_is_one_over_one_plus_x() {
    check_unary(
        [
            (ln_1p_method, ln_1p_method_grad),
            (ln_1p_path, ln_1p_path_grad),
        ],
        |x| 1.0 / (1.0 + x),
        &[-0.5, -0.1, -1e-8, 0.0, 0.3, 4.0],
    );
}

#[reverse]
fn log_method(x: f64, base: f64) -> f64 {
    x.log(base)
}

#[reverse]
fn log_path(x: f64, base: f64) -> f64 {
    f64::log(x, base)
}

#[test]
fn log_with_base_partials_in_value_and_base() {
    // log_b x = ln x / ln b: ∂/∂x = 1 / (x ln b), ∂/∂b = -ln x / (b ln² b).
    check_binary(
        [(log_method, log_method_grad), (log_path, log_path_grad)],
        |x, b| (1.0 / (x * b.ln()), -x.ln() / (b * b.ln() * b.ln())),
        &[(2.5, 10.0), (0.3, 2.0), (7.0, 0.5), (1.5, 3.0), (0.8, 0.2)],
    );
}

#[reverse]
fn log2_method(x: f64) -> f64 {
    x.log2()
}

#[reverse]
fn log2_path(x: f64) -> f64 {
    f64::log2(x)
}

#[test]
fn log2_derivative_is_one_over_x_ln_2() {
    check_unary(
        [(log2_method, log2_method_grad), (log2_path, log2_path_grad)],
        |x| 1.0 / (x * 2f64.ln()),
        &[0.25, 1.0, 3.0, 64.0],
    );
}

#[reverse]
fn log10_method(x: f64) -> f64 {
    x.log10()
}

#[reverse]
fn log10_path(x: f64) -> f64 {
    f64::log10(x)
}

#[test]
fn log10_derivative_is_one_over_x_ln_10() {
    check_unary(
        [
            (log10_method, log10_method_grad),
            (log10_path, log10_path_grad),
        ],
        |x| 1.0 / (x * 10f64.ln()),
        &[0.25, 1.0, 3.0, 1000.0],
    );
}

// ---- roots and powers ------------------------------------------------------------------------

#[reverse]
fn sqrt_method(x: f64) -> f64 {
    x.sqrt()
}

#[reverse]
fn sqrt_path(x: f64) -> f64 {
    f64::sqrt(x)
}

#[test]
fn sqrt_derivative_is_one_over_two_sqrt_x() {
    // The domain is x ≥ 0: no negative points.
    check_unary(
        [(sqrt_method, sqrt_method_grad), (sqrt_path, sqrt_path_grad)],
        |x| 0.5 * x.powf(-0.5),
        &[0.3, 1.0, 2.0, 9.0, 1e4],
    );
}

#[reverse]
fn cbrt_method(x: f64) -> f64 {
    x.cbrt()
}

#[reverse]
fn cbrt_path(x: f64) -> f64 {
    f64::cbrt(x)
}

#[test]
fn cbrt_derivative_is_one_third_of_x_to_the_minus_two_thirds() {
    // d/dx ∛x = |x|^(-2/3) / 3 on both sides of 0.
    check_unary(
        [(cbrt_method, cbrt_method_grad), (cbrt_path, cbrt_path_grad)],
        |x| x.abs().powf(-2.0 / 3.0) / 3.0,
        &[-27.0, -0.7, 0.5, 8.0, 100.0],
    );
}

#[reverse]
fn powi_method(x: f64, k: i32) -> f64 {
    x.powi(k)
}

#[reverse]
fn powi_path(x: f64, k: i32) -> f64 {
    f64::powi(x, k)
}

#[reverse]
fn powi_literal_exponents(x: f64) -> f64 {
    x.powi(3) + f64::powi(x, -2) + x.powi(0) + x.powi(1)
}

#[test]
fn powi_derivative_is_k_x_to_the_k_minus_one() {
    type Form = (fn(f64, i32) -> f64, fn(f64, i32) -> (f64, f64));
    let forms: [Form; 2] = [(powi_method, powi_method_grad), (powi_path, powi_path_grad)];
    for (f, grad) in forms {
        for k in [-3, -2, -1, 0, 1, 2, 3, 6] {
            for x in [-2.5, -0.6, 0.4, 1.0, 1.7] {
                let (v, d) = grad(x, k);
                assert_eq!(v, f(x, k), "value of {x}^{k}");
                // The closed form with the exponent as a float: k x^(k-1), and 0 for k = 0.
                let expected = if k == 0 {
                    0.0
                } else {
                    f64::from(k) * x.abs().powf(f64::from(k - 1)) * x.signum().powi(k - 1)
                };
                assert_relative_eq!(d, expected, max_relative = REL);
                check::gradient(|p| f(p[0], k), &[x], &[d]).unwrap();
            }
        }
    }
    for x in [-1.5, -0.5, 0.5, 2.0] {
        let (v, d) = powi_literal_exponents_grad(x);
        assert_eq!(v, powi_literal_exponents(x));
        assert_relative_eq!(d, 3.0 * x * x - 2.0 / (x * x * x) + 1.0, max_relative = REL);
        check::gradient(|p| powi_literal_exponents(p[0]), &[x], &[d]).unwrap();
    }
}

#[reverse]
fn powf_method(x: f64, y: f64) -> f64 {
    x.powf(y)
}

#[reverse]
fn powf_path(x: f64, y: f64) -> f64 {
    f64::powf(x, y)
}

#[reverse]
fn powf_constant_base(y: f64) -> f64 {
    f64::powf(3.0, y)
}

#[test]
fn powf_partials_in_base_and_exponent() {
    // ∂/∂x xʸ = y xʸ⁻¹, ∂/∂y xʸ = xʸ ln x, for x > 0.
    check_binary(
        [(powf_method, powf_method_grad), (powf_path, powf_path_grad)],
        |x, y| (y * x.powf(y - 1.0), x.powf(y) * x.ln()),
        &[(2.0, 3.0), (0.5, -1.5), (3.7, 0.3), (1.2, -2.0), (0.8, 0.0)],
    );
    // A negative base with an integer exponent: ∂/∂x is defined (and ∂/∂y is NaN).
    for (x, y) in [(-2.0, 3.0), (-0.5, -2.0), (-1.5, 4.0), (-3.0, 1.0)] {
        let (v, (dx, dy)) = powf_method_grad(x, y);
        assert_eq!(v, powf_method(x, y));
        let n = y as i32;
        assert_relative_eq!(dx, y * x.powi(n - 1), max_relative = REL);
        assert!(dy.is_nan(), "∂/∂y of {x}^{y} is {dy}, expected NaN");
        check::gradient(|p| powf_method(p[0], y), &[x], &[dx]).unwrap();
    }
    // A constant receiver in path form: only the exponent is active.
    for y in [-2.0, -0.3, 0.5, 1.8] {
        let (v, dy) = powf_constant_base_grad(y);
        assert_eq!(v, powf_constant_base(y));
        assert_relative_eq!(dy, 3f64.powf(y) * 3f64.ln(), max_relative = REL);
        check::gradient(|p| powf_constant_base(p[0]), &[y], &[dy]).unwrap();
    }
}

#[reverse]
fn hypot_method(x: f64, y: f64) -> f64 {
    x.hypot(y)
}

#[reverse]
fn hypot_path(x: f64, y: f64) -> f64 {
    f64::hypot(x, y)
}

#[test]
fn hypot_partials_are_the_unit_vector() {
    check_binary(
        [
            (hypot_method, hypot_method_grad),
            (hypot_path, hypot_path_grad),
        ],
        |x, y| {
            let r = (x * x + y * y).sqrt();
            (x / r, y / r)
        },
        &[
            (3.0, 4.0),
            (-1.5, 2.0),
            (0.2, -0.7),
            (-5.0, -1.0),
            (2.0, 0.0),
        ],
    );
}

#[reverse]
fn recip_method(x: f64) -> f64 {
    x.recip()
}

#[reverse]
fn recip_path(x: f64) -> f64 {
    f64::recip(x)
}

#[test]
fn recip_derivative_is_minus_one_over_x_squared() {
    check_unary(
        [
            (recip_method, recip_method_grad),
            (recip_path, recip_path_grad),
        ],
        |x| -1.0 / (x * x),
        &[-2.5, -0.4, 0.5, 3.0, 1e3],
    );
}

// ---- abs, max, min, mul_add -----------------------------------------------------------------

#[reverse]
fn abs_method(x: f64) -> f64 {
    x.abs()
}

#[reverse]
fn abs_path(x: f64) -> f64 {
    f64::abs(x)
}

#[test]
fn abs_derivative_is_the_sign_away_from_zero() {
    check_unary(
        [(abs_method, abs_method_grad), (abs_path, abs_path_grad)],
        |x| if x > 0.0 { 1.0 } else { -1.0 },
        &[-3.0, -0.25, 0.1, 2.0],
    );
}

#[reverse]
fn max_method(a: f64, b: f64) -> f64 {
    a.max(b)
}

#[reverse]
fn max_path(a: f64, b: f64) -> f64 {
    f64::max(a, b)
}

#[reverse]
fn relu(x: f64) -> f64 {
    x.max(0.0) + f64::max(-1.0, x)
}

#[test]
fn max_adjoint_goes_to_the_larger_argument() {
    check_binary(
        [(max_method, max_method_grad), (max_path, max_path_grad)],
        |a, b| if a > b { (1.0, 0.0) } else { (0.0, 1.0) },
        &[
            (1.0, 2.0),
            (3.0, -1.0),
            (-2.5, -0.5),
            (0.7, 0.2),
            (-4.0, 1.0),
        ],
    );
    // A constant on either side.
    for (x, expected) in [(-3.0, 0.0), (-0.5, 1.0), (0.5, 2.0), (4.0, 2.0)] {
        let (v, d) = relu_grad(x);
        assert_eq!(v, relu(x));
        assert_eq!(d, expected, "relu'({x})");
        check::gradient(|p| relu(p[0]), &[x], &[d]).unwrap();
    }
}

#[reverse]
fn min_method(a: f64, b: f64) -> f64 {
    a.min(b)
}

#[reverse]
fn min_path(a: f64, b: f64) -> f64 {
    f64::min(a, b)
}

#[test]
fn min_adjoint_goes_to_the_smaller_argument() {
    check_binary(
        [(min_method, min_method_grad), (min_path, min_path_grad)],
        |a, b| if a < b { (1.0, 0.0) } else { (0.0, 1.0) },
        &[
            (1.0, 2.0),
            (3.0, -1.0),
            (-2.5, -0.5),
            (0.7, 0.2),
            (-4.0, 1.0),
        ],
    );
}

#[reverse]
fn mul_add_method(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

#[reverse]
fn mul_add_path(a: f64, b: f64, c: f64) -> f64 {
    f64::mul_add(a, b, c)
}

#[test]
fn mul_add_partials_are_b_a_and_one() {
    type Form = (
        fn(f64, f64, f64) -> f64,
        fn(f64, f64, f64) -> (f64, (f64, f64, f64)),
    );
    let forms: [Form; 2] = [
        (mul_add_method, mul_add_method_grad),
        (mul_add_path, mul_add_path_grad),
    ];
    for (f, grad) in forms {
        for (a, b, c) in [
            (2.0, 3.0, 4.0),
            (-1.5, 0.5, -2.0),
            (0.3, -4.0, 1.0),
            (-2.0, -0.25, 0.0),
            (0.0, 7.0, -3.0),
        ] {
            let (v, (da, db, dc)) = grad(a, b, c);
            assert_eq!(v, f(a, b, c));
            assert_relative_eq!(da, b, max_relative = REL);
            assert_relative_eq!(db, a, max_relative = REL);
            assert_relative_eq!(dc, 1.0, max_relative = REL);
            check::gradient(|p| f(p[0], p[1], p[2]), &[a, b, c], &[da, db, dc]).unwrap();
        }
    }
}

// ---- piecewise constant ----------------------------------------------------------------------

#[reverse]
fn signum_method(x: f64) -> f64 {
    x.signum()
}

#[reverse]
fn signum_path(x: f64) -> f64 {
    f64::signum(x)
}

#[reverse]
fn floor_method(x: f64) -> f64 {
    x.floor()
}

#[reverse]
fn floor_path(x: f64) -> f64 {
    f64::floor(x)
}

#[reverse]
fn ceil_method(x: f64) -> f64 {
    x.ceil()
}

#[reverse]
fn ceil_path(x: f64) -> f64 {
    f64::ceil(x)
}

#[reverse]
fn round_method(x: f64) -> f64 {
    x.round()
}

#[reverse]
fn round_path(x: f64) -> f64 {
    f64::round(x)
}

#[reverse]
fn trunc_method(x: f64) -> f64 {
    x.trunc()
}

#[reverse]
fn trunc_path(x: f64) -> f64 {
    f64::trunc(x)
}

#[test]
fn signum_derivative_is_zero_away_from_zero() {
    check_unary(
        [
            (signum_method, signum_method_grad),
            (signum_path, signum_path_grad),
        ],
        |_| 0.0,
        &[-3.0, -0.5, 0.5, 2.0],
    );
}

/// Points at least 0.2 from every integer and half-integer, where `floor`, `ceil`, `round`
/// and `trunc` are all locally constant (the finite-difference stencil reaches `2e-3 |x|`).
const STEP_POINTS: &[f64] = &[-2.7, -1.3, -0.3, 0.2, 1.7, 3.2, 41.3];

#[test]
fn floor_derivative_is_zero_away_from_integers() {
    check_unary(
        [
            (floor_method, floor_method_grad),
            (floor_path, floor_path_grad),
        ],
        |_| 0.0,
        STEP_POINTS,
    );
}

#[test]
fn ceil_derivative_is_zero_away_from_integers() {
    check_unary(
        [(ceil_method, ceil_method_grad), (ceil_path, ceil_path_grad)],
        |_| 0.0,
        STEP_POINTS,
    );
}

#[test]
fn round_derivative_is_zero_away_from_half_integers() {
    check_unary(
        [
            (round_method, round_method_grad),
            (round_path, round_path_grad),
        ],
        |_| 0.0,
        STEP_POINTS,
    );
}

#[test]
fn trunc_derivative_is_zero_away_from_integers() {
    check_unary(
        [
            (trunc_method, trunc_method_grad),
            (trunc_path, trunc_path_grad),
        ],
        |_| 0.0,
        STEP_POINTS,
    );
}

#[reverse]
fn step_then_smooth(x: f64) -> f64 {
    x.floor() * x + x.round().sin() + x.signum() * x * x
}

#[test]
fn piecewise_constant_factors_are_treated_as_constants() {
    // d/dx (⌊x⌋ x + sin(round x) + sgn(x) x²) = ⌊x⌋ + 2 sgn(x) x away from the jumps.
    for x in [-2.7, -0.3, 0.2, 1.7, 3.2] {
        let (v, d) = step_then_smooth_grad(x);
        assert_eq!(v, step_then_smooth(x));
        assert_relative_eq!(d, x.floor() + 2.0 * x.signum() * x, max_relative = REL);
        check::gradient(|p| step_then_smooth(p[0]), &[x], &[d]).unwrap();
    }
}

// ---- the remainder operator ------------------------------------------------------------------

#[reverse]
fn rem_operator(a: f64, b: f64) -> f64 {
    a % b
}

#[reverse]
fn rem_assign(a: f64, b: f64) -> f64 {
    let mut r = a;
    r %= b;
    r
}

#[reverse]
fn rem_constant_divisor(a: f64) -> f64 {
    a % 2.0 + 5.5 % a
}

#[test]
fn rem_partials_are_one_and_minus_trunc_of_the_quotient() {
    // a % b = a - b trunc(a / b): ∂/∂a = 1, ∂/∂b = -trunc(a / b), away from the jumps where
    // a / b is an integer.
    check_binary(
        [
            (rem_operator, rem_operator_grad),
            (rem_assign, rem_assign_grad),
        ],
        |a, b| (1.0, -(a / b).trunc()),
        &[
            (7.5, 2.0),
            (-7.5, 2.0),
            (5.3, -1.7),
            (-0.8, 3.0),
            (-9.1, -2.5),
            (0.7, 0.3),
        ],
    );
    // 5.5 % a has ∂/∂a = -trunc(5.5 / a).
    for a in [-3.3, -0.7, 1.3, 2.6, 4.1] {
        let (v, d) = rem_constant_divisor_grad(a);
        assert_eq!(v, rem_constant_divisor(a));
        assert_relative_eq!(d, 1.0 - (5.5 / a).trunc(), max_relative = REL);
        check::gradient(|p| rem_constant_divisor(p[0]), &[a], &[d]).unwrap();
    }
}

// ---- one variable in several argument positions ---------------------------------------------

#[reverse]
fn x_to_the_x(x: f64) -> f64 {
    x.powf(x)
}

#[reverse]
fn same_argument_twice(x: f64) -> f64 {
    x.max(x) + f64::min(x, x) + x.hypot(x) + x.atan2(x) + x % x + x.mul_add(x, x)
}

#[test]
fn partials_of_one_variable_in_several_positions_add_up() {
    for x in [0.3, 1.0, 2.5, 4.0] {
        let (v, d) = x_to_the_x_grad(x);
        assert_eq!(v, x_to_the_x(x));
        assert_relative_eq!(d, x.powf(x) * (x.ln() + 1.0), max_relative = REL);
        check::gradient(|p| x_to_the_x(p[0]), &[x], &[d]).unwrap();
    }
    // max(x, x) + min(x, x) + hypot(x, x) + atan2(x, x) + x % x + (x x + x)
    //   = 2x + √2 |x| + const + 0 + x² + x, so the derivative is 3 + √2 sgn(x) + 2x.
    for x in [-2.5, -0.7, 0.4, 3.0] {
        let (v, d) = same_argument_twice_grad(x);
        assert_eq!(v, same_argument_twice(x));
        let expected = 3.0 + std::f64::consts::SQRT_2 * x.signum() + 2.0 * x;
        assert_relative_eq!(d, expected, max_relative = REL);
        check::gradient(|p| same_argument_twice(p[0]), &[x], &[d]).unwrap();
    }
}

// ---- seeds -----------------------------------------------------------------------------------

#[test]
fn vjp_scales_each_partial_by_the_seed() {
    for seed in [0.5, -2.0, 0.0] {
        let (v, d) = tan_method_vjp(0.3, seed);
        assert_eq!(v, 0.3f64.tan());
        assert_relative_eq!(d, seed / (0.3f64.cos() * 0.3f64.cos()), max_relative = REL);
        let (v, (dy, dx)) = atan2_path_vjp(0.7, -1.2, seed);
        assert_eq!(v, 0.7f64.atan2(-1.2));
        let r2 = 0.7 * 0.7 + 1.2 * 1.2;
        assert_relative_eq!(dy, seed * -1.2 / r2, max_relative = REL);
        assert_relative_eq!(dx, seed * -0.7 / r2, max_relative = REL);
        let (_, (da, db, dc)) = mul_add_method_vjp(2.0, 3.0, 4.0, seed);
        assert_eq!((da, db, dc), (3.0 * seed, 2.0 * seed, seed));
    }
}

// ---- conventions at non-differentiable points ------------------------------------------------

/// Every expected value below was obtained by running JAX 0.10.2 in float64
/// (`jax.config.update('jax_enable_x64', True)`, `import jax.numpy as jnp`,
/// `from jax import lax`); the expression run is quoted next to each value.
#[test]
fn conventions_match_jax() {
    // jax.grad(jnp.abs)(0.0) => 1.0
    assert_eq!(abs_method_grad(0.0).1, 1.0);
    assert_eq!(abs_path_grad(0.0).1, 1.0);

    // jax.grad(jnp.maximum, argnums=(0, 1))(1.5, 1.5) => (0.5, 0.5)
    assert_eq!(max_method_grad(1.5, 1.5).1, (0.5, 0.5));
    assert_eq!(max_path_grad(1.5, 1.5).1, (0.5, 0.5));
    // jax.grad(jnp.maximum, argnums=(0, 1))(-2.0, -2.0) => (0.5, 0.5)
    assert_eq!(max_method_grad(-2.0, -2.0).1, (0.5, 0.5));
    // jax.grad(jnp.minimum, argnums=(0, 1))(1.5, 1.5) => (0.5, 0.5)
    assert_eq!(min_method_grad(1.5, 1.5).1, (0.5, 0.5));
    assert_eq!(min_path_grad(1.5, 1.5).1, (0.5, 0.5));
    // jax.grad(jnp.minimum, argnums=(0, 1))(0.0, 0.0) => (0.5, 0.5)
    assert_eq!(min_method_grad(0.0, 0.0).1, (0.5, 0.5));

    // jax.grad(jnp.sqrt)(0.0) => inf
    assert_eq!(sqrt_method_grad(0.0).1, f64::INFINITY);
    assert_eq!(sqrt_path_grad(0.0).1, f64::INFINITY);

    // jax.grad(jnp.cbrt)(0.0) => inf
    assert_eq!(cbrt_method_grad(0.0).1, f64::INFINITY);
    assert_eq!(cbrt_path_grad(0.0).1, f64::INFINITY);

    // jax.grad(jnp.log)(0.0) => inf
    assert_eq!(ln_method_grad(0.0).1, f64::INFINITY);
    assert_eq!(ln_path_grad(0.0).1, f64::INFINITY);
    // jax.grad(jnp.log2)(0.0) => inf
    assert_eq!(log2_method_grad(0.0).1, f64::INFINITY);
    // jax.grad(jnp.log10)(0.0) => inf
    assert_eq!(log10_method_grad(0.0).1, f64::INFINITY);
    // jax.grad(lambda x: jnp.log(x) / jnp.log(3.0))(0.0) => inf
    assert_eq!(log_method_grad(0.0, 3.0).1 .0, f64::INFINITY);

    // jax.grad(jnp.power, argnums=(0, 1))(0.0, 0.0) => (nan, 0.0): the partial in the
    // exponent here; the partial in the base is checked by `powf_at_zero_base_matches_jax`.
    assert_eq!(powf_method_grad(0.0, 0.0).1 .1, 0.0);
    assert_eq!(powf_path_grad(0.0, 0.0).1 .1, 0.0);
    // jax.grad(jnp.power, argnums=(0, 1))(0.0, 2.0) => (0.0, 0.0)
    assert_eq!(powf_method_grad(0.0, 2.0).1, (0.0, 0.0));
    assert_eq!(powf_path_grad(0.0, 2.0).1, (0.0, 0.0));
    // jax.grad(jnp.power, argnums=(0, 1))(2.0, 0.0) => (0.0, 0.6931471805599453), and
    // 0.6931471805599453 is exactly `LN_2` (the literal would trip clippy::approx_constant).
    assert_eq!(powf_method_grad(2.0, 0.0).1, (0.0, LN_2));
    assert_eq!(powf_path_grad(2.0, 0.0).1, (0.0, LN_2));

    // jax.grad(lambda x: lax.integer_pow(x, 0))(0.0) => 0.0
    assert_eq!(powi_method_grad(0.0, 0).1, 0.0);
    assert_eq!(powi_path_grad(0.0, 0).1, 0.0);

    // jax.grad(jnp.hypot, argnums=(0, 1))(0.0, 0.0) => (0.5, 0.5)
    assert_eq!(hypot_method_grad(0.0, 0.0).1, (0.5, 0.5));
    assert_eq!(hypot_path_grad(0.0, 0.0).1, (0.5, 0.5));

    // jax.grad(jnp.arctan2, argnums=(0, 1))(0.0, 0.0) => (nan, nan)
    for (dy, dx) in [atan2_method_grad(0.0, 0.0).1, atan2_path_grad(0.0, 0.0).1] {
        assert!(
            dy.is_nan(),
            "∂/∂y atan2 at the origin is {dy}, JAX gives nan"
        );
        assert!(
            dx.is_nan(),
            "∂/∂x atan2 at the origin is {dx}, JAX gives nan"
        );
    }

    // jax.grad(jnp.sign)(0.0) => 0.0
    assert_eq!(signum_method_grad(0.0).1, 0.0);
    // jax.grad(jnp.floor)(2.0) => 0.0
    assert_eq!(floor_method_grad(2.0).1, 0.0);
    // jax.grad(jnp.ceil)(2.0) => 0.0
    assert_eq!(ceil_method_grad(2.0).1, 0.0);
    // jax.grad(jnp.round)(2.5) => 0.0
    assert_eq!(round_method_grad(2.5).1, 0.0);
    // jax.grad(jnp.trunc)(-3.0) => 0.0
    assert_eq!(trunc_method_grad(-3.0).1, 0.0);

    // jax.grad(jnp.fmod, argnums=(0, 1))(6.0, 2.0) => (1.0, -3.0)
    assert_eq!(rem_operator_grad(6.0, 2.0).1, (1.0, -3.0));
}

/// `powf` where the base is 0, against JAX (same setup as `conventions_match_jax`).
///
/// JAX differentiates `x ** y` (float `y`) as `y * x ** (y - 1)` in the base, with no special
/// case, so at `(0, 0)` it is `0 * inf = nan`; and as `log(where(x == 0, 1, x)) * x ** y` in
/// the exponent, which is `0 * inf = nan` at `x = 0, y < 0`.
#[test]
fn powf_at_zero_base_matches_jax() {
    // jax.grad(jnp.power, argnums=(0, 1))(0.0, 0.0) => (nan, 0.0)
    let (dx, dy) = powf_method_grad(0.0, 0.0).1;
    assert!(dx.is_nan(), "∂/∂x of x^y at (0, 0) is {dx}, JAX gives nan");
    assert_eq!(dy, 0.0);
    // jax.grad(jnp.power, argnums=(0, 1))(0.0, -1.0) => (-inf, nan)
    let (dx, dy) = powf_method_grad(0.0, -1.0).1;
    assert_eq!(dx, f64::NEG_INFINITY);
    assert!(dy.is_nan(), "∂/∂y of x^y at (0, -1) is {dy}, JAX gives nan");
}

// ---- f32 -------------------------------------------------------------------------------------

#[reverse]
fn mix_f32(x: f32, y: f32) -> f32 {
    x.sin() * y.exp() + f32::sqrt(y) + x.tanh() + x.powi(3) + f32::atan2(y, x) + x.hypot(y)
}

#[reverse]
fn unary_f32(x: f32) -> f32 {
    x.ln() + f32::cbrt(x) + x.recip() + x.powf(1.5) + f32::max(x, 1.0) + x.abs()
}

#[test]
fn f32_intrinsics_match_their_closed_forms() {
    const REL32: f32 = 1e-5;
    for (x, y) in [(0.3f32, 1.2f32), (-1.1, 0.4), (2.0, 2.5), (-0.5, 0.9)] {
        let (v, (dx, dy)): (f32, (f32, f32)) = mix_f32_grad(x, y);
        assert_eq!(v, mix_f32(x, y));
        let r2 = x * x + y * y;
        let r = r2.sqrt();
        let ex = x.cos() * y.exp() + 1.0 / (x.cosh() * x.cosh()) + 3.0 * x * x - y / r2 + x / r;
        let ey = x.sin() * y.exp() + 0.5 / y.sqrt() + x / r2 + y / r;
        assert_relative_eq!(dx, ex, max_relative = REL32);
        assert_relative_eq!(dy, ey, max_relative = REL32);
    }
    for x in [0.4f32, 0.9, 1.6, 3.0] {
        let (v, d): (f32, f32) = unary_f32_grad(x);
        assert_eq!(v, unary_f32(x));
        let max_part = if x > 1.0 { 1.0 } else { 0.0 };
        let expected =
            1.0 / x + x.powf(-2.0 / 3.0) / 3.0 - 1.0 / (x * x) + 1.5 * x.sqrt() + max_part + 1.0;
        assert_relative_eq!(d, expected, max_relative = REL32);
    }
}

// ---- the table -------------------------------------------------------------------------------

/// The intrinsics this file tests, with their number of float arguments (the tests above are
/// the evidence; this list is what `macro_and_runtime_tables_agree` compares with the
/// runtime). Adding an intrinsic to the runtime without adding a test here fails that test.
const TESTED: &[(&str, usize)] = &[
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("atan2", 2),
    ("sinh", 1),
    ("cosh", 1),
    ("tanh", 1),
    ("asinh", 1),
    ("acosh", 1),
    ("atanh", 1),
    ("exp", 1),
    ("exp2", 1),
    ("exp_m1", 1),
    ("ln", 1),
    ("ln_1p", 1),
    ("log", 2),
    ("log2", 1),
    ("log10", 1),
    ("sqrt", 1),
    ("cbrt", 1),
    ("powi", 1),
    ("powf", 2),
    ("abs", 1),
    ("hypot", 2),
    ("max", 2),
    ("min", 2),
    ("mul_add", 3),
    ("recip", 1),
    ("signum", 1),
    ("floor", 1),
    ("ceil", 1),
    ("round", 1),
    ("trunc", 1),
];

#[test]
fn macro_and_runtime_tables_agree() {
    // Every name above compiled through `#[reverse]` in both call forms (so the macro's table
    // knows it) and is checked against its closed form (so the runtime's rule is right).
    let runtime: BTreeSet<(&str, usize)> = ad::rules::INTRINSICS
        .iter()
        .map(|i| (i.name, i.arity))
        .collect();
    let tested: BTreeSet<(&str, usize)> = TESTED.iter().copied().collect();
    assert_eq!(
        runtime.len(),
        ad::rules::INTRINSICS.len(),
        "duplicate in INTRINSICS"
    );
    assert_eq!(tested.len(), TESTED.len(), "duplicate in TESTED");
    let untested: Vec<_> = runtime.difference(&tested).collect();
    let unknown: Vec<_> = tested.difference(&runtime).collect();
    assert!(
        untested.is_empty() && unknown.is_empty(),
        "in the runtime but not tested here: {untested:?}; tested here but not in the runtime: {unknown:?}"
    );
}
