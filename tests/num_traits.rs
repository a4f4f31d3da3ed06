//! Generic code written for `num-traits`, as libraries write it: functions bounded by
//! `num_traits::Float`, `num_traits::real::Real` or std's arithmetic operators, differentiated
//! by `#[reverse]` and `#[forward]` where they are instantiated at `f64` and `f32`; and the
//! same kind of code, unannotated, run on the dual numbers `Dual` and `DualVec`. Every
//! derivative is compared with a closed form or with central finite differences of the primal
//! in `f64`.
#![allow(
    clippy::needless_range_loop,
    reason = "the forms under test are written as users write them"
)]

use std::ops::{Add, Div, Mul, Neg, Sub};

use num_traits::{Float, FloatConst};
use revad::{forward, reverse, Dual, DualVec};

/// `|a - b| <= tol * max(|b|, 1)`.
fn close64(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol * b.abs().max(1.0), "{a} vs {b}");
}

/// For `f32` results: against an `f64` reference.
fn close32(a: f32, b: f64) {
    close64(f64::from(a), b, 2e-5);
}

/// The central finite difference of `f` at `x` along coordinate `i`.
fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6 * x[i].abs().max(1.0);
    let (mut up, mut down) = (x.to_vec(), x.to_vec());
    up[i] += h;
    down[i] -= h;
    (f(&up) - f(&down)) / (2.0 * h)
}

// ---- `T: num_traits::Float` under `#[reverse]` and `#[forward]` ----------------------------

/// Constants as `num-traits` writes them (`T::from(2.0).unwrap()`, `T::one()`, `T::zero()`),
/// intrinsics as methods.
#[reverse]
#[forward]
fn mixed<T: Float>(x: T, y: T) -> T {
    let two = T::from(2.0).unwrap();
    let a = x.sin() * y + x.powi(2) / two;
    a * T::one() + y.exp() - T::zero() + (x * y).sqrt().ln()
}

/// `mixed` in `f64`, and its gradient in closed form.
fn mixed_by_hand(x: f64, y: f64) -> (f64, f64, f64) {
    let v = x.sin() * y + x * x / 2.0 + y.exp() + (x * y).sqrt().ln();
    // d/dx ln √(xy) = 1 / (2x).
    (v, x.cos() * y + x + 0.5 / x, x.sin() + y.exp() + 0.5 / y)
}

#[test]
fn num_traits_float_in_reverse_and_forward_mode_at_both_precisions() {
    let (x, y) = (0.3, 0.7);
    let (ev, edx, edy) = mixed_by_hand(x, y);
    let (v, (dx, dy)) = mixed_grad(x, y);
    assert_eq!(v.to_bits(), mixed(x, y).to_bits());
    close64(v, ev, 1e-15);
    close64(dx, edx, 1e-14);
    close64(dy, edy, 1e-14);
    let (v, d) = mixed_jvp(x, y, 1.0, 0.0);
    assert_eq!(v.to_bits(), mixed(x, y).to_bits());
    close64(d, edx, 1e-14);
    let (_, d) = mixed_jvp(x, y, 0.6, -0.8);
    close64(d, 0.6 * edx - 0.8 * edy, 1e-14);

    let (x32, y32) = (0.3_f32, 0.7_f32);
    let (ev, edx, edy) = mixed_by_hand(f64::from(x32), f64::from(y32));
    let (v, (dx, dy)) = mixed_grad(x32, y32);
    assert_eq!(v.to_bits(), mixed(x32, y32).to_bits());
    close32(v, ev);
    close32(dx, edx);
    close32(dy, edy);
    let (_, d) = mixed_jvp(x32, y32, 0.0, 1.0);
    close32(d, edy);
}

/// A loop over a slice (Horner's scheme), `mul_add`, a branch on the value, and constants of
/// `num-traits` without arguments (`T::epsilon()`), bounded in a `where` clause by the full
/// path.
#[reverse]
#[forward]
fn horner<T>(x: T, w: &[T]) -> T
where
    T: num_traits::Float,
{
    let mut acc = T::zero();
    for i in 0..w.len() {
        acc = acc.mul_add(x, w[i]);
    }
    if acc > T::zero() {
        acc.abs().max(T::epsilon()).sqrt()
    } else {
        -acc * acc
    }
}

fn horner_f64(p: &[f64]) -> f64 {
    let (x, w) = (p[0], &p[1..]);
    let mut acc = 0.0;
    for c in w {
        acc = acc.mul_add(x, *c);
    }
    if acc > 0.0 {
        acc.abs().max(f64::EPSILON).sqrt()
    } else {
        -acc * acc
    }
}

#[test]
fn a_loop_and_a_branch_over_num_traits_float() {
    // Both branches: the polynomial is positive at 0.5 and negative at -2.
    for x in [0.5_f64, -2.0] {
        let w = [1.0, -0.5, 0.25, 2.0];
        let (v, (dx, dw)) = horner_grad(x, &w);
        assert_eq!(v.to_bits(), horner(x, &w).to_bits());
        let p: Vec<f64> = std::iter::once(x).chain(w).collect();
        close64(dx, fd(horner_f64, &p, 0), 1e-7);
        for i in 0..w.len() {
            close64(dw[i], fd(horner_f64, &p, i + 1), 1e-7);
        }
        let (_, d) = horner_jvp(x, &w, 1.0, &[0.0; 4]);
        close64(d, dx, 1e-14);

        let w32 = w.map(|a| a as f32);
        let (v, (dx32, _)) = horner_grad(x as f32, &w32);
        assert_eq!(v.to_bits(), horner(x as f32, &w32).to_bits());
        close32(dx32, dx);
    }
}

/// `num_traits::real::Real`, and `FloatConst` beside it (`T::PI()`).
#[reverse]
fn wave<T: num_traits::real::Real + FloatConst>(x: T, k: T) -> T {
    (T::PI() * k * x).sin() / (T::one() + x * x)
}

#[test]
fn real_and_float_const_bounds() {
    use std::f64::consts::PI;
    let (x, k) = (0.4_f64, 1.5);
    let q = 1.0 + x * x;
    let (v, (dx, dk)) = wave_grad(x, k);
    assert_eq!(v.to_bits(), wave(x, k).to_bits());
    close64(
        dx,
        PI * k * (PI * k * x).cos() / q - (PI * k * x).sin() * 2.0 * x / (q * q),
        1e-14,
    );
    close64(dk, PI * x * (PI * k * x).cos() / q, 1e-14);
    let (_, (dx32, dk32)) = wave_grad(x as f32, k as f32);
    close32(dx32, dx);
    close32(dk32, dk);
}

/// A call of another annotated function over `num_traits::Float`.
#[reverse]
fn twice<T: Float>(x: T, y: T) -> T {
    let a = mixed(x, y);
    mixed::<T>(a, y) * T::from(3).unwrap()
}

/// Constants through the trait by its qualified path (`<T as One>::one()`), and a value whose
/// type the macro cannot tell (`T::from(k).unwrap()` of an integer) in forward mode.
#[reverse]
#[forward]
fn scaled<T: Float + FloatConst>(x: T, k: usize) -> T {
    let one = <T as num_traits::One>::one();
    let pi = <T as FloatConst>::PI();
    let c = T::from(k).unwrap();
    (x * c + one).ln() * pi
}

#[test]
fn qualified_constants_and_integer_conversions() {
    use std::f64::consts::PI;
    let (x, k) = (0.3_f64, 4);
    let expected = PI * 4.0 / (x * 4.0 + 1.0);
    let (v, dx) = scaled_grad(x, k);
    assert_eq!(v.to_bits(), scaled(x, k).to_bits());
    close64(dx, expected, 1e-14);
    let (v, d) = scaled_jvp(x, k, 1.0);
    assert_eq!(v.to_bits(), scaled(x, k).to_bits());
    close64(d, expected, 1e-14);
    let (_, d32) = scaled_jvp(x as f32, k, 1.0);
    close32(d32, expected);
}

/// Conditions the macro keeps as written, with methods that `num_traits::Float` and the
/// library's `Float` both have (`abs`, `sqrt`, `sin_cos`), `to_f64` of `ToPrimitive`, and a
/// closure.
#[reverse]
#[forward]
fn guarded<T: Float>(x: T, y: T, w: &[T]) -> T {
    if x.abs() < y.sqrt() && x.to_f64().unwrap() > 0.1 && x.sin_cos().0 > T::zero()
        || w.iter().all(|v| v.is_nan())
    {
        x * y * w[0]
    } else {
        x - y
    }
}

#[test]
fn conditions_with_methods_of_both_float_traits() {
    // The first branch at (0.3, 0.7), the second at (2, 0.7) (|x| > √y) and at (0.05, 0.7)
    // (x ≤ 0.1).
    let w = [1.5];
    let (v, (dx, dy, dw)) = guarded_grad(0.3_f64, 0.7, &w);
    assert_eq!(v.to_bits(), guarded(0.3_f64, 0.7, &w).to_bits());
    assert_eq!((dx, dy, dw[0]), (0.7 * 1.5, 0.3 * 1.5, 0.3 * 0.7));
    for x in [2.0_f64, 0.05] {
        let (v, (dx, dy, dw)) = guarded_grad(x, 0.7, &w);
        assert_eq!(v.to_bits(), guarded(x, 0.7, &w).to_bits());
        assert_eq!((dx, dy, dw[0]), (1.0, -1.0, 0.0));
    }
    let (_, d) = guarded_jvp(0.3_f32, 0.7, &[1.5], 0.0, 1.0, &[0.0]);
    assert_eq!(d, 0.3 * 1.5);
}

/// `FromPrimitive`'s conversions beside `Float` (`T::from_f64(0.5).unwrap()`, whose name
/// the library's `Float` has too).
#[reverse]
fn halves<T: Float + num_traits::FromPrimitive>(x: T, k: i32) -> T {
    let half = T::from_f64(0.5).unwrap();
    x.powi(k) * half + T::from_i32(k).expect("small") * x
}

#[test]
fn from_primitive_constants() {
    let (x, k) = (1.3_f64, 3);
    let (v, dx) = halves_grad(x, k);
    assert_eq!(v.to_bits(), halves(x, k).to_bits());
    close64(dx, 1.5 * x * x + 3.0, 1e-15);
    let (_, dx32) = halves_grad(1.3_f32, 3);
    close32(dx32, 1.5 * f64::from(1.3_f32).powi(2) + 3.0);
}

/// `x.to_f64()` of `ToPrimitive` (an `Option`) in a condition, where the bound names
/// `num_traits` (a bare `Float` may be the library's, whose `to_f64` returns `f64`), and
/// `FloatConst`'s `T::LN_2()`, whose name the library's `Float` has too.
#[reverse]
fn options<T: num_traits::Float + FloatConst>(x: T) -> T {
    if x.to_f64() > Some(1.0) && x.to_f64().unwrap() < 5.0 {
        x * x * T::LN_2()
    } else {
        x * T::LN_10()
    }
}

#[test]
fn to_primitive_and_float_const_names() {
    use std::f64::consts::{LN_10, LN_2};
    let (v, dx) = options_grad(2.0_f64);
    assert_eq!(v.to_bits(), options(2.0_f64).to_bits());
    close64(dx, 4.0 * LN_2, 1e-15);
    let (v, dx) = options_grad(0.5_f64);
    assert_eq!(v.to_bits(), options(0.5_f64).to_bits());
    close64(dx, LN_10, 1e-15);
    let (_, dx) = options_grad(2.0_f32);
    close32(dx, 4.0 * LN_2);
}

/// A closure and an iterator fold over `num_traits::Float` values.
#[reverse]
fn folded<T: Float>(x: T, w: &[T]) -> T {
    let g = |v: T| v.sin() * T::one() + v;
    let s = w.iter().fold(T::zero(), |acc, v| acc + *v * x);
    g(x) * s
}

#[test]
fn closures_and_folds_over_num_traits_float() {
    let (x, w) = (0.5_f64, [1.0, 2.0]);
    let g = x.sin() + x;
    let (v, (dx, dw)) = folded_grad(x, &w);
    assert_eq!(v.to_bits(), folded(x, &w).to_bits());
    close64(dx, (x.cos() + 1.0) * 3.0 * x + g * 3.0, 1e-15);
    close64(dw[0], g * x, 1e-15);
    close64(dw[1], g * x, 1e-15);
}

#[test]
fn calls_between_num_traits_generics() {
    let (x, y) = (0.3_f64, 0.7);
    let f = |p: &[f64]| 3.0 * mixed(mixed(p[0], p[1]), p[1]);
    let (v, (dx, dy)) = twice_grad(x, y);
    assert_eq!(v.to_bits(), twice(x, y).to_bits());
    // The chain rule through the closed form of `mixed`.
    let (a, adx, ady) = mixed_by_hand(x, y);
    let (_, bda, bdy) = mixed_by_hand(a, y);
    close64(dx, 3.0 * bda * adx, 1e-13);
    close64(dy, 3.0 * (bda * ady + bdy), 1e-13);
    close64(dx, fd(f, &[x, y], 0), 1e-7);
    let (_, (dx32, _)) = twice_grad(x as f32, y as f32);
    close32(dx32, dx);
}

// ---- std's operator traits ------------------------------------------------------------------

/// Arithmetic only: what `T: Copy + Add<Output = T> + Mul<Output = T>` allows.
#[reverse]
#[forward]
fn dot3<T: Copy + Add<Output = T> + Mul<Output = T>>(a: [T; 3], b: [T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Every operator, bounded in a `where` clause.
#[reverse]
#[forward]
fn rational<T>(x: T, y: T) -> T
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Div<Output = T>,
    T: Neg<Output = T>,
{
    let num = x * x - y;
    -(num / (x + y * y)) + x
}

#[test]
fn std_operator_bounds_at_both_precisions() {
    let (a, b) = ([1.0_f64, -2.0, 0.5], [0.3, 0.7, -1.1]);
    let (v, (da, db)) = dot3_grad(a, b);
    assert_eq!(v.to_bits(), dot3(a, b).to_bits());
    assert_eq!((da, db), (b, a));
    let (_, d) = dot3_jvp(a, b, [1.0, 0.0, 0.0], [0.0; 3]);
    assert_eq!(d, b[0]);
    let (v, (da, _)) = dot3_grad(a.map(|c| c as f32), b.map(|c| c as f32));
    assert_eq!(v, dot3(a.map(|c| c as f32), b.map(|c| c as f32)));
    assert_eq!(da, b.map(|c| c as f32));
    // The function itself keeps its bounds: it still runs on integers.
    assert_eq!(dot3([1, 2, 3], [4, 5, 6]), 32);

    let (x, y) = (0.8_f64, 1.3);
    let q = x + y * y;
    let n = x * x - y;
    let (v, (dx, dy)) = rational_grad(x, y);
    assert_eq!(v.to_bits(), rational(x, y).to_bits());
    close64(dx, -(2.0 * x * q - n) / (q * q) + 1.0, 1e-14);
    close64(dy, -(-q - n * 2.0 * y) / (q * q), 1e-14);
    let (_, d) = rational_jvp(x, y, 0.0, 1.0);
    close64(d, dy, 1e-14);
    let (_, (dx32, dy32)) = rational_grad(x as f32, y as f32);
    close32(dx32, dx);
    close32(dy32, dy);
}

// ---- unannotated generic code on `Dual` and `DualVec` ---------------------------------------

/// A library function as written for `num-traits`, with no annotation.
fn logistic<T: Float + FloatConst>(x: T, k: T) -> T {
    let half = T::from(0.5).unwrap();
    let s = T::one() / (T::one() + (-k * x).exp());
    s * x.cos().powi(2) + half * (T::PI() * x).sin() + x.atan2(k) + x.hypot(k).cbrt()
}

fn logistic_f64(p: &[f64]) -> f64 {
    logistic(p[0], p[1])
}

#[test]
fn num_traits_code_runs_on_dual_numbers() {
    use std::f64::consts::PI;
    let (x, k) = (0.6, 1.7);
    // Closed form of ∂/∂x.
    let s = 1.0 / (1.0 + (-k * x).exp());
    let h = x.hypot(k);
    let dx = k * s * (1.0 - s) * x.cos().powi(2) - s * 2.0 * x.cos() * x.sin()
        + 0.5 * PI * (PI * x).cos()
        + k / (x * x + k * k)
        + x / h / (3.0 * h.cbrt() * h.cbrt());
    let y = logistic(Dual::variable(x), Dual::constant(k));
    assert_eq!(y.re.to_bits(), logistic(x, k).to_bits());
    close64(y.eps, dx, 1e-14);
    // Both partials in one pass.
    let y = logistic(DualVec::<f64, 2>::variable(x, 0), DualVec::variable(k, 1));
    assert_eq!(y.re.to_bits(), logistic(x, k).to_bits());
    close64(y.eps[0], dx, 1e-14);
    close64(y.eps[1], fd(logistic_f64, &[x, k], 1), 1e-7);
    // In `f32`.
    let y = logistic(Dual::variable(x as f32), Dual::constant(k as f32));
    close32(y.eps, dx);
    // Through the library's forward mode too.
    let (v, d) = revad::forward::derivative(|x| logistic(x, Dual::constant(k)), x);
    assert_eq!(v.to_bits(), logistic(x, k).to_bits());
    close64(d, dx, 1e-14);
}

#[test]
fn second_derivatives_of_num_traits_code_by_nesting() {
    // f = x³ eˣ: f'' = (6x + 6x² + x³) eˣ.
    fn f<T: Float>(x: T) -> T {
        x.powi(3) * x.exp()
    }
    let x = 0.7_f64;
    let d = Dual::new(Dual::variable(x), Dual::constant(1.0));
    let y = f(d);
    assert_eq!(y.re.re, f(x));
    close64(y.re.eps, (3.0 * x * x + x.powi(3)) * x.exp(), 1e-14);
    close64(
        y.eps.eps,
        (6.0 * x + 6.0 * x * x + x.powi(3)) * x.exp(),
        1e-14,
    );
}

/// Every intrinsic gives the same value and tangent through `num_traits::Float` as through
/// the library's `Float`.
#[test]
fn num_traits_methods_agree_with_the_library_float() {
    type D = Dual<f64>;
    let (x, y, z) = (
        Dual::new(0.4, 1.3),
        Dual::new(0.9, -0.7),
        Dual::new(-0.2, 0.5),
    );
    let pairs: Vec<(&str, D, D)> = vec![
        ("sin", Float::sin(x), revad::Float::sin(x)),
        ("tan", Float::tan(x), revad::Float::tan(x)),
        ("acos", Float::acos(x), revad::Float::acos(x)),
        ("atanh", Float::atanh(x), revad::Float::atanh(x)),
        ("exp_m1", Float::exp_m1(x), revad::Float::exp_m1(x)),
        ("ln_1p", Float::ln_1p(x), revad::Float::ln_1p(x)),
        ("log", Float::log(x, y), revad::Float::log(x, y)),
        ("powf", Float::powf(x, y), revad::Float::powf(x, y)),
        ("powi", Float::powi(x, 3), revad::Float::powi(x, 3)),
        ("max", Float::max(x, y), revad::Float::max(x, y)),
        (
            "mul_add",
            Float::mul_add(x, y, z),
            revad::Float::mul_add(x, y, z),
        ),
        ("clamp", Float::clamp(x, z, y), revad::Float::clamp(x, z, y)),
        ("recip", Float::recip(x), revad::Float::recip(x)),
        (
            "to_degrees",
            Float::to_degrees(x),
            revad::Float::to_degrees(x),
        ),
        ("floor", Float::floor(x), revad::Float::floor(x)),
        ("sin_cos.0", Float::sin_cos(x).0, revad::Float::sin_cos(x).0),
        ("sin_cos.1", Float::sin_cos(x).1, revad::Float::sin_cos(x).1),
    ];
    for (name, a, b) in pairs {
        assert_eq!(
            (a.re.to_bits(), a.eps.to_bits()),
            (b.re.to_bits(), b.eps.to_bits()),
            "{name}"
        );
    }
    // And the tangents are the derivatives: d/dx tan x = 1 + tan² x.
    close64(
        Float::tan(x).eps,
        1.3 * (1.0 + 0.4_f64.tan().powi(2)),
        1e-15,
    );
}

/// The methods of `num_traits::Float` that are not intrinsics of the rule table, and the
/// conversions: their tangents as documented.
#[test]
fn the_other_methods_of_num_traits_float() {
    let x = Dual::new(2.75_f64, 1.5);
    // `fract` is `x - trunc(x)`: the tangent of `x`.
    assert_eq!((x.fract().re, x.fract().eps), (0.75, 1.5));
    // `abs_sub` is `x - y` where `x > y`, else zero.
    let y = Dual::new(1.0, 0.25);
    let d = Float::abs_sub(x, y);
    assert_eq!((d.re, d.eps), (1.75, 1.25));
    let d = Float::abs_sub(y, x);
    assert_eq!((d.re, d.eps), (0.0, 0.0));
    // `copysign` is `±x`.
    let c = x.copysign(Dual::constant(-1.0));
    assert_eq!((c.re, c.eps), (-2.75, -1.5));
    let c = x.copysign(Dual::constant(1.0));
    assert_eq!((c.re, c.eps), (2.75, 1.5));
    // Constants and conversions are constants; predicates read the value.
    let e: Dual<f64> = Float::epsilon();
    assert_eq!((e.re, e.eps), (f64::EPSILON, 0.0));
    let p: Dual<f64> = FloatConst::PI();
    assert_eq!((p.re, p.eps), (std::f64::consts::PI, 0.0));
    let t: Dual<f64> = num_traits::NumCast::from(3_i32).unwrap();
    assert_eq!((t.re, t.eps), (3.0, 0.0));
    assert_eq!(num_traits::ToPrimitive::to_f64(&x), Some(2.75));
    assert!(num_traits::Zero::is_zero(&Dual::new(0.0_f64, 1.0)));
    assert!(!x.is_nan() && x.is_finite() && x.is_sign_positive());
    let v: DualVec<f32, 3> = num_traits::Num::from_str_radix("1.5", 10).unwrap();
    assert_eq!((v.re, v.eps), (1.5, [0.0; 3]));
}

/// Every float type of the library implements `num_traits::Float` and `FloatConst`, at any
/// nesting depth: one bound serves both.
#[test]
fn every_library_float_is_a_num_traits_float() {
    fn both<T: revad::Float + Float + FloatConst>() {}
    both::<f64>();
    both::<f32>();
    both::<Dual<f64>>();
    both::<DualVec<f32, 4>>();
    both::<Dual<Dual<f64>>>();
    both::<DualVec<Dual<f64>, 2>>();
}

// ---- second order ---------------------------------------------------------------------------

/// `#[reverse(hessian)]` over `num_traits::Float`: forward over reverse on `Dual<f64>`, which
/// implements `num_traits::Float`.
#[reverse(hessian)]
fn curved<T: Float>(x: T, y: T) -> T {
    let two = T::from(2.0).unwrap();
    if x.abs() > T::zero() {
        x.sin() * y * y / two + T::one()
    } else {
        x
    }
}

#[test]
fn hessian_of_num_traits_code() {
    let (x, y) = (0.3_f64, 0.7);
    let (v, (dx, dy), h) = curved_hessian(x, y);
    assert_eq!(v.to_bits(), curved(x, y).to_bits());
    close64(dx, x.cos() * y * y / 2.0, 1e-15);
    close64(dy, x.sin() * y, 1e-15);
    close64(h[0][0], -x.sin() * y * y / 2.0, 1e-15);
    close64(h[0][1], x.cos() * y, 1e-15);
    close64(h[1][0], x.cos() * y, 1e-15);
    close64(h[1][1], x.sin(), 1e-15);
}

/// The float trait's methods called by path (`Float::powi(x, 2)`, `num_traits::Float::sin`,
/// `<T as Float>::cos`), as generic code calls them to avoid method ambiguity.
#[reverse]
#[forward]
fn by_trait_path<T: Float>(x: T, y: T) -> T {
    Float::powi(x, 2) * num_traits::Float::sin(y) + <T as Float>::cos(x * y) + Float::hypot(x, y)
}

/// The same at a concrete type, with `<f64 as Float>::..`, and `sin_cos` by path.
#[reverse]
fn by_trait_path_f64(x: f64, y: f64) -> f64 {
    let (s, c) = Float::sin_cos(y);
    let (s2, _) = f64::sin_cos(x);
    <f64 as Float>::exp(x) * Float::atan2(y, x) + s * c + s2
}

#[test]
fn float_trait_methods_by_path() {
    let (x, y) = (0.7f64, 1.3f64);
    let r = x.hypot(y);
    let dx = 2.0 * x * y.sin() - y * (x * y).sin() + x / r;
    let dy = x * x * y.cos() - x * (x * y).sin() + y / r;
    let (v, (gx, gy)) = by_trait_path_grad(x, y);
    assert_eq!(v.to_bits(), by_trait_path(x, y).to_bits());
    close64(gx, dx, 1e-14);
    close64(gy, dy, 1e-14);
    let (_, t) = by_trait_path_jvp(x, y, 1.0, 0.0);
    close64(t, dx, 1e-14);
    let (_, (gx32, gy32)) = by_trait_path_grad(x as f32, y as f32);
    close32(gx32, dx);
    close32(gy32, dy);
    let (v, (gx, gy)) = by_trait_path_f64_grad(x, y);
    assert_eq!(v.to_bits(), by_trait_path_f64(x, y).to_bits());
    // e^x atan2(y, x) + sin y cos y + sin x: d/dx = e^x (atan2 - y / r^2) + cos x,
    // d/dy = e^x x / r^2 + cos 2y.
    close64(gx, x.exp() * (y.atan2(x) - y / (r * r)) + x.cos(), 1e-14);
    close64(gy, x.exp() * x / (r * r) + (2.0 * y).cos(), 1e-14);
}
