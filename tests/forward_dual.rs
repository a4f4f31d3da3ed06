//! Forward mode: the dual numbers `revad::Dual` and `revad::DualVec`, and `revad::forward`.
//!
//! Every intrinsic of `revad::rules::INTRINSICS` (the table is iterated, so a new row fails here
//! until it has a closed form) through `Dual<f64>`, against the closed-form derivative written
//! out by hand and against central finite differences of the `f64` function; second
//! derivatives through `Dual<Dual<f64>>` against closed forms; `DualVec` against `Dual` bit for
//! bit; a generic function on `f64`, `Dual<f64>` and `Dual<Dual<f64>>`; the functions of
//! `revad::forward`; perturbation confusion under nesting; comparisons; and the runtime traits
//! (`Record`, `Adjoint`, `Accumulate`, `InOut`) on dual numbers.
//!
//! The expected derivatives never come from `revad::rules::d_*`: that would compare the code
//! with itself.

use approx::assert_relative_eq;
use revad::rules::INTRINSICS;
use revad::{check, forward, Accumulate, Adjoint, Dual, DualVec, Float, ValueStack};

/// The exponent of `powi` in the table-driven tests.
const K: i32 = 3;

/// Intrinsic `name` of the rule table applied to `a` (as many arguments as its arity), on any
/// float type.
fn eval<T: Float>(name: &str, a: &[T]) -> T {
    match name {
        "sin" => a[0].sin(),
        "cos" => a[0].cos(),
        "tan" => a[0].tan(),
        "asin" => a[0].asin(),
        "acos" => a[0].acos(),
        "atan" => a[0].atan(),
        "atan2" => a[0].atan2(a[1]),
        "sinh" => a[0].sinh(),
        "cosh" => a[0].cosh(),
        "tanh" => a[0].tanh(),
        "asinh" => a[0].asinh(),
        "acosh" => a[0].acosh(),
        "atanh" => a[0].atanh(),
        "exp" => a[0].exp(),
        "exp2" => a[0].exp2(),
        "exp_m1" => a[0].exp_m1(),
        "ln" => a[0].ln(),
        "ln_1p" => a[0].ln_1p(),
        "log" => a[0].log(a[1]),
        "log2" => a[0].log2(),
        "log10" => a[0].log10(),
        "sqrt" => a[0].sqrt(),
        "cbrt" => a[0].cbrt(),
        "powi" => a[0].powi(K),
        "powf" => a[0].powf(a[1]),
        "abs" => a[0].abs(),
        "hypot" => a[0].hypot(a[1]),
        "max" => a[0].max(a[1]),
        "min" => a[0].min(a[1]),
        "mul_add" => a[0].mul_add(a[1], a[2]),
        "clamp" => a[0].clamp(a[1], a[2]),
        "recip" => a[0].recip(),
        "to_radians" => a[0].to_radians(),
        "to_degrees" => a[0].to_degrees(),
        "signum" => a[0].signum(),
        "floor" => a[0].floor(),
        "ceil" => a[0].ceil(),
        "round" => a[0].round(),
        "trunc" => a[0].trunc(),
        "fract" => a[0].fract(),
        "copysign" => a[0].copysign(a[1]),
        "rem_euclid" => a[0].rem_euclid(a[1]),
        other => panic!("`{other}` is in the rule table but not in `eval` of this test"),
    }
}

/// The partial derivatives of intrinsic `name` at `a`, one per float argument, written out
/// by hand.
fn closed_form(name: &str, a: &[f64]) -> Vec<f64> {
    let x = a[0];
    match name {
        "sin" => vec![x.cos()],
        "cos" => vec![-x.sin()],
        "tan" => vec![1.0 / (x.cos() * x.cos())],
        "asin" => vec![1.0 / (1.0 - x * x).sqrt()],
        "acos" => vec![-1.0 / (1.0 - x * x).sqrt()],
        "atan" => vec![1.0 / (1.0 + x * x)],
        "atan2" => {
            let (y, x) = (a[0], a[1]);
            vec![x / (x * x + y * y), -y / (x * x + y * y)]
        }
        "sinh" => vec![x.cosh()],
        "cosh" => vec![x.sinh()],
        "tanh" => vec![1.0 / (x.cosh() * x.cosh())],
        "asinh" => vec![1.0 / (x * x + 1.0).sqrt()],
        "acosh" => vec![1.0 / (x * x - 1.0).sqrt()],
        "atanh" => vec![1.0 / (1.0 - x * x)],
        "exp" => vec![x.exp()],
        "exp2" => vec![x.exp2() * std::f64::consts::LN_2],
        "exp_m1" => vec![x.exp()],
        "ln" => vec![1.0 / x],
        "ln_1p" => vec![1.0 / (1.0 + x)],
        "log" => {
            let b = a[1];
            vec![1.0 / (x * b.ln()), -x.ln() / (b * b.ln().powi(2))]
        }
        "log2" => vec![1.0 / (x * std::f64::consts::LN_2)],
        "log10" => vec![1.0 / (x * std::f64::consts::LN_10)],
        "sqrt" => vec![0.5 / x.sqrt()],
        "cbrt" => vec![1.0 / (3.0 * x.powf(2.0 / 3.0))],
        "powi" => vec![f64::from(K) * x.powi(K - 1)],
        "powf" => {
            let y = a[1];
            vec![y * x.powf(y - 1.0), x.powf(y) * x.ln()]
        }
        "abs" => vec![x.signum()],
        "hypot" => {
            let r = (a[0] * a[0] + a[1] * a[1]).sqrt();
            vec![a[0] / r, a[1] / r]
        }
        "max" => vec![
            f64::from(u8::from(a[0] > a[1])),
            f64::from(u8::from(a[1] > a[0])),
        ],
        "min" => vec![
            f64::from(u8::from(a[0] < a[1])),
            f64::from(u8::from(a[1] < a[0])),
        ],
        "mul_add" => vec![a[1], a[0], 1.0],
        // The value is x strictly inside [lo, hi], the bound it is clamped to outside.
        "clamp" => {
            let (lo, hi) = (a[1], a[2]);
            if x < lo {
                vec![0.0, 1.0, 0.0]
            } else if x > hi {
                vec![0.0, 0.0, 1.0]
            } else {
                vec![1.0, 0.0, 0.0]
            }
        }
        "recip" => vec![-1.0 / (x * x)],
        "to_radians" => vec![std::f64::consts::PI / 180.0],
        "to_degrees" => vec![180.0 / std::f64::consts::PI],
        "signum" | "floor" | "ceil" | "round" | "trunc" => vec![0.0],
        // x - trunc(x): the slope of x.
        "fract" => vec![1.0],
        // |x| with the sign of y: ±x, the sign flipped where the signs differ.
        "copysign" => vec![x.signum() * a[1].signum(), 0.0],
        // a - q b for the integer q = (a - r) / b: the partials of that affine function.
        "rem_euclid" => {
            let q = ((x - x.rem_euclid(a[1])) / a[1]).round();
            vec![1.0, -q]
        }
        other => panic!("add a closed-form derivative of `{other}` to this test"),
    }
}

/// Points inside the domain of intrinsic `name`, away from its non-differentiable points.
fn points(name: &str, arity: usize) -> Vec<Vec<f64>> {
    match (name, arity) {
        ("asin" | "acos" | "atanh", _) => vec![vec![-0.7], vec![-0.2], vec![0.3], vec![0.9]],
        ("acosh", _) => vec![vec![1.2], vec![2.0], vec![7.5], vec![100.0]],
        ("ln" | "log2" | "log10" | "sqrt" | "cbrt", _) => {
            vec![vec![0.25], vec![0.7], vec![3.0], vec![250.0]]
        }
        ("ln_1p", _) => vec![vec![-0.5], vec![0.0], vec![0.7], vec![40.0]],
        ("tan", _) => vec![vec![-1.2], vec![-0.3], vec![0.4], vec![1.1]],
        ("log", _) => vec![
            vec![0.5, 2.0],
            vec![3.0, 10.0],
            vec![7.0, 0.5],
            vec![2.5, 1.5],
        ],
        ("powf", _) => vec![
            vec![0.5, 2.5],
            vec![3.0, -1.5],
            vec![1.7, 0.3],
            vec![2.0, 3.0],
        ],
        // Inside, below and above the bounds `lo < hi`.
        ("clamp", _) => vec![
            vec![0.3, -1.0, 1.0],
            vec![-2.0, -1.0, 1.5],
            vec![2.5, -0.5, 1.0],
            vec![0.1, 0.0, 0.25],
        ],
        // Away from the jumps, where a / b is an integer.
        ("rem_euclid", _) => vec![
            vec![7.5, 2.0],
            vec![-7.5, 2.0],
            vec![5.3, -1.7],
            vec![-0.8, 3.0],
            vec![-9.1, -2.5],
        ],
        ("floor" | "ceil" | "round" | "trunc" | "signum" | "fract", _) => {
            vec![vec![-2.3], vec![-0.6], vec![0.3], vec![4.7]]
        }
        (_, 1) => vec![vec![-1.7], vec![-0.4], vec![0.3], vec![1.9]],
        (_, 2) => vec![
            vec![0.3, 1.7],
            vec![-1.2, 0.4],
            vec![2.5, -0.8],
            vec![-0.5, -2.0],
        ],
        (_, 3) => vec![
            vec![0.3, 1.7, -0.4],
            vec![-1.2, 0.4, 2.0],
            vec![2.5, -0.8, 0.1],
        ],
        _ => panic!("no points for `{name}` of arity {arity}"),
    }
}

/// Every intrinsic of the rule table through `Dual<f64>`, with the tangent seeded in each
/// argument in turn: the value is the `f64` function's, bit for bit, and the tangent is the
/// closed-form partial and agrees with finite differences.
#[test]
fn every_intrinsic_against_closed_form_and_finite_differences() {
    assert!(INTRINSICS.len() >= 36, "the table shrank");
    for row in INTRINSICS {
        for a in points(row.name, row.arity) {
            assert_eq!(a.len(), row.arity, "{}", row.name);
            let value = eval(row.name, &a);
            let expected = closed_form(row.name, &a);
            let numeric = check::finite_difference(|p| eval(row.name, p), &a);
            for p in 0..row.arity {
                let duals: Vec<Dual<f64>> = a
                    .iter()
                    .enumerate()
                    .map(|(q, &v)| Dual::new(v, if q == p { 1.0 } else { 0.0 }))
                    .collect();
                let y = eval(row.name, &duals);
                let what = format!("{} at {a:?}, ∂/∂a[{p}]", row.name);
                assert_eq!(y.re.to_bits(), value.to_bits(), "value of {what}");
                assert_relative_eq!(y.eps, expected[p], max_relative = 1e-12, epsilon = 1e-300);
                assert!(
                    (y.eps - numeric[p]).abs() <= 1e-7 * y.eps.abs().max(1.0),
                    "{what}: dual {} against finite difference {}",
                    y.eps,
                    numeric[p]
                );
            }
        }
    }
}

/// `powi` at other exponents, and `%` (not an intrinsic method, an operator).
#[test]
fn powi_exponents_and_remainder() {
    for k in [-3, -1, 0, 1, 2, 5] {
        for x in [-1.5_f64, 0.4, 2.0] {
            let y = Dual::variable(x).powi(k);
            assert_eq!(y.re, x.powi(k));
            let expected = if k == 0 {
                0.0
            } else {
                f64::from(k) * x.powi(k - 1)
            };
            assert_relative_eq!(y.eps, expected, max_relative = 1e-14);
        }
    }
    // a % b = a - trunc(a/b) b: ∂/∂a = 1, ∂/∂b = -trunc(a/b).
    for (a, b) in [(7.5_f64, 2.0), (-7.5, 2.0), (5.0, -1.5), (0.3, 4.0)] {
        let da = (Dual::variable(a) % Dual::constant(b)).eps;
        let db = (Dual::constant(a) % Dual::variable(b)).eps;
        assert_eq!((da, db), (1.0, -(a / b).trunc()));
        let numeric = check::finite_difference(|p| p[0] % p[1], &[a, b]);
        assert_relative_eq!(db, numeric[1], max_relative = 1e-8, epsilon = 1e-10);
    }
}

/// At the non-differentiable points, the tangents follow the conventions of `revad::rules`
/// (JAX's, in float64): written out here, not read from the rules.
#[test]
fn conventions_at_non_differentiable_points() {
    let (a, b) = (Dual::new(2.0_f64, 3.0), Dual::new(2.0, 5.0));
    assert_eq!(a.max(b).eps, 0.5 * 3.0 + 0.5 * 5.0);
    assert_eq!(a.min(b).eps, 0.5 * 3.0 + 0.5 * 5.0);
    // clamp(x, lo, hi) = min(max(x, lo), hi) (JAX's `clip`): at x = lo < hi the tangents of
    // x and lo are split; with lo = hi = x the max's half is halved again by the min's tie.
    let hi = Dual::new(4.0_f64, 7.0);
    assert_eq!(a.clamp(b, hi).eps, 0.5 * 3.0 + 0.5 * 5.0);
    assert_eq!(
        a.clamp(b, Dual::new(2.0, 7.0)).eps,
        0.25 * 3.0 + 0.25 * 5.0 + 0.5 * 7.0
    );
    assert_eq!(Dual::variable(0.0_f64).abs().eps, 1.0);
    assert_eq!(Dual::variable(0.0_f64).sqrt().eps, f64::INFINITY);
    let h = Dual::new(0.0_f64, 1.0).hypot(Dual::new(0.0, 1.0));
    assert_eq!((h.re, h.eps), (0.0, 1.0));
    assert!(Dual::variable(0.0_f64)
        .atan2(Dual::constant(0.0))
        .eps
        .is_nan());
    // The steps have zero tangents, even for an infinite input tangent.
    assert_eq!(Dual::new(2.5_f64, f64::INFINITY).floor().eps, 0.0);
    // A constant exponent contributes nothing where its partial (xʸ ln x) is NaN.
    let y = Dual::variable(-2.0_f64).powf(Dual::constant(3.0));
    assert_eq!((y.re, y.eps), (-8.0, 12.0));
}

/// Second derivatives through `Dual<Dual<f64>>` against closed forms.
#[test]
fn second_derivatives_of_nested_duals() {
    /// `(f, f′, f″)` at `x` by seeding both tangents.
    fn second<F: Fn(Dual<Dual<f64>>) -> Dual<Dual<f64>>>(f: F, x: f64) -> [f64; 4] {
        let y = f(Dual::new(Dual::variable(x), Dual::constant(1.0)));
        [y.re.re, y.re.eps, y.eps.re, y.eps.eps]
    }
    for x in [-1.3_f64, 0.2, 0.9, 2.4] {
        let [v, d1, d1b, d2] = second(|x| x.sin(), x);
        assert_eq!(v, x.sin());
        assert_relative_eq!(d1, x.cos(), max_relative = 1e-15);
        assert_eq!(d1.to_bits(), d1b.to_bits());
        assert_relative_eq!(d2, -x.sin(), max_relative = 1e-14);

        let [v, d1, _, d2] = second(|x| x.exp() * x * x, x);
        assert_relative_eq!(v, x.exp() * x * x, max_relative = 1e-15);
        assert_relative_eq!(d1, x.exp() * (x * x + 2.0 * x), max_relative = 1e-14);
        assert_relative_eq!(d2, x.exp() * (x * x + 4.0 * x + 2.0), max_relative = 1e-14);

        let [_, d1, _, d2] = second(|x| x.tanh(), x);
        let s2 = 1.0 / (x.cosh() * x.cosh());
        assert_relative_eq!(d1, s2, max_relative = 1e-14);
        assert_relative_eq!(d2, -2.0 * x.tanh() * s2, max_relative = 1e-13);
    }
    // x^y: every second partial.
    for (x, y) in [(0.7_f64, 2.5_f64), (2.0, -1.5), (3.5, 0.4)] {
        let (v, g, h) = forward::hessian(|p| p[0].powf(p[1]), &[x, y]);
        let z = x.powf(y);
        assert_relative_eq!(v, z, max_relative = 1e-15);
        assert_relative_eq!(g[0], y * x.powf(y - 1.0), max_relative = 1e-14);
        assert_relative_eq!(g[1], z * x.ln(), max_relative = 1e-14);
        assert_relative_eq!(
            h[0][0],
            y * (y - 1.0) * x.powf(y - 2.0),
            max_relative = 1e-13
        );
        let mixed = x.powf(y - 1.0) * (1.0 + y * x.ln());
        assert_relative_eq!(h[0][1], mixed, max_relative = 1e-13);
        assert_eq!(h[0][1].to_bits(), h[1][0].to_bits());
        assert_relative_eq!(h[1][1], z * x.ln() * x.ln(), max_relative = 1e-13);
    }
}

/// A function of three inputs using many intrinsics, generic over the float type.
fn mixed<T: Float>(p: &[T]) -> T {
    let (x, y, z) = (p[0], p[1], p[2]);
    (x * y).sin() + z.exp() / x + x.powf(y) + y.hypot(z) * x.max(z)
        - x.mul_add(y, z).atan2(T::from_f64(1.5)) % T::from_f64(0.7)
        + (y * z).tanh().sqrt()
        + x.ln().powi(3)
        + [x, y, z].iter().sum::<T>() * [x, y, z].into_iter().product::<T>()
}

/// One `DualVec<f64, 3>` pass gives, bit for bit, the three partials of three `Dual` passes.
#[test]
fn dual_vec_gradient_equals_three_dual_passes_bit_for_bit() {
    for at in [[0.7_f64, 1.3, 0.4], [2.1, 0.6, 1.9], [1.1, 2.2, 0.05]] {
        let vec: Vec<DualVec<f64, 3>> = (0..3).map(|k| DualVec::variable(at[k], k)).collect();
        let y = mixed(&vec);
        let (value, grad) = forward::gradient(mixed, &at);
        assert_eq!(y.re.to_bits(), value.to_bits());
        assert_eq!(value.to_bits(), mixed(&at).to_bits());
        for (k, (e, g)) in y.eps.iter().zip(&grad).enumerate() {
            assert_eq!(e.to_bits(), g.to_bits(), "∂/∂x[{k}] at {at:?}");
        }
        check::gradient(mixed, &at, &grad).unwrap();
    }
}

/// Horner's scheme then `sin`, halved: the example of generic functions.
fn poly<T: Float>(x: T, w: &[T]) -> T {
    let mut acc = T::ZERO;
    for &wi in w {
        acc = acc * x + wi;
    }
    acc.sin() * T::from_f64(0.5)
}

/// One generic body on `f64`, `Dual<f64>` and `Dual<Dual<f64>>`: the same value bit for bit,
/// and the first and second derivatives of `0.5 sin p(x)` in closed form.
#[test]
fn generic_function_on_f64_dual_and_nested_dual() {
    let w = [1.5_f64, -2.0, 0.5, 3.0];
    let wd: Vec<Dual<f64>> = w.iter().map(|&w| Dual::constant(w)).collect();
    let wdd: Vec<Dual<Dual<f64>>> = wd.iter().map(|&w| Dual::constant(w)).collect();
    for x in [-1.1_f64, 0.3, 0.8, 1.6] {
        // p(x) = 1.5x³ - 2x² + 0.5x + 3.
        let p = ((1.5 * x - 2.0) * x + 0.5) * x + 3.0;
        let dp = 4.5 * x * x - 4.0 * x + 0.5;
        let ddp = 9.0 * x - 4.0;
        let value = poly(x, &w);
        assert_eq!(value, 0.5 * p.sin());

        let d = poly(Dual::variable(x), &wd);
        assert_eq!(d.re.to_bits(), value.to_bits());
        assert_relative_eq!(d.eps, 0.5 * p.cos() * dp, max_relative = 1e-13);

        let dd = poly(Dual::new(Dual::variable(x), Dual::constant(1.0)), &wdd);
        assert_eq!(dd.re.re.to_bits(), value.to_bits());
        assert_eq!(dd.re.eps.to_bits(), d.eps.to_bits());
        let second = 0.5 * (-p.sin() * dp * dp + p.cos() * ddp);
        assert_relative_eq!(dd.eps.eps, second, max_relative = 1e-12);
    }
    // The weights can be differentiated too: ∂/∂w₀ = 0.5 cos p(x) x³.
    let x = 0.8_f64;
    let (_, g) = forward::gradient(|p| poly(Dual::constant(x), p), &w);
    let p = ((1.5 * x - 2.0) * x + 0.5) * x + 3.0;
    assert_relative_eq!(g[0], 0.5 * p.cos() * x.powi(3), max_relative = 1e-13);
    assert_relative_eq!(g[3], 0.5 * p.cos(), max_relative = 1e-13);
}

/// `forward::hessian` of `2x² + 3xy + 4y²` at (3, 4), exactly.
#[test]
fn hessian_of_a_quadratic() {
    fn f<T: Float>(p: &[T]) -> T {
        let (two, three, four) = (T::from_f64(2.0), T::from_f64(3.0), T::from_f64(4.0));
        two * p[0] * p[0] + three * p[0] * p[1] + four * p[1] * p[1]
    }
    let (v, g, h) = forward::hessian(f, &[3.0, 4.0]);
    assert_eq!(v, 18.0 + 36.0 + 64.0);
    assert_eq!(g, [4.0 * 3.0 + 3.0 * 4.0, 3.0 * 3.0 + 8.0 * 4.0]);
    assert_eq!(h, [[4.0, 3.0], [3.0, 8.0]]);
}

/// `derivative`, `jvp`, `gradient` and `jacobian` against closed forms, and the empty input.
#[test]
fn forward_functions_against_closed_forms() {
    let (y, d) = forward::derivative(|x| x.exp() * x.cos(), 0.6_f64);
    assert_eq!(y, 0.6_f64.exp() * 0.6_f64.cos());
    assert_relative_eq!(
        d,
        0.6_f64.exp() * (0.6_f64.cos() - 0.6_f64.sin()),
        max_relative = 1e-15
    );

    // f(x, y, z) = x y z: ∇f = (yz, xz, xy).
    let f = |p: &[Dual<f64>]| p[0] * p[1] * p[2];
    let (y, d) = forward::jvp(f, &[2.0, 3.0, 5.0], &[1.0, -2.0, 0.5]);
    assert_eq!((y, d), (30.0, 15.0 - 2.0 * 10.0 + 0.5 * 6.0));
    let (_, g) = forward::gradient(f, &[2.0, 3.0, 5.0]);
    assert_eq!(g, [15.0, 10.0, 6.0]);

    // (r, θ) ↦ (r cos θ, r sin θ): J = [[cos θ, -r sin θ], [sin θ, r cos θ]].
    let polar = |p: &[Dual<f64>]| vec![p[0] * p[1].cos(), p[0] * p[1].sin()];
    let (r, t) = (2.0_f64, 0.7_f64);
    let (values, jac) = forward::jacobian(polar, &[r, t]);
    assert_eq!(values, [r * t.cos(), r * t.sin()]);
    assert_eq!(jac.len(), 2);
    for (row, expected) in jac
        .iter()
        .zip([[t.cos(), -r * t.sin()], [t.sin(), r * t.cos()]])
    {
        for (a, e) in row.iter().zip(expected) {
            assert_relative_eq!(*a, e, max_relative = 1e-15);
        }
    }

    // No inputs: the value, and empty derivatives.
    let seven = |_: &[Dual<f64>]| Dual::constant(7.0);
    assert_eq!(forward::gradient(seven, &[]), (7.0, vec![]));
    let (v, g, h) = forward::hessian(|_| Dual::constant(Dual::constant(7.0)), &[]);
    assert_eq!((v, g.len(), h.len()), (7.0, 0, 0));
    let (values, jac) = forward::jacobian(|_| vec![Dual::constant(1.0); 2], &[]);
    assert_eq!((values, jac), (vec![1.0, 1.0], vec![Vec::<f64>::new(); 2]));
}

/// Siskind and Pearlmutter's perturbation confusion: d/dx [ x · (d/dy (x + y))|_{y=1} ] at
/// x = 1 is 1 (a single perturbation ε for both x and y would give 2). Each nesting level
/// is its own type, so the inner tangent cannot leak into the outer one.
#[test]
fn no_perturbation_confusion_under_nesting() {
    let (_, d) = forward::derivative(
        |x: Dual<f64>| {
            let (_, inner) = forward::derivative(|y| Dual::constant(x) + y, Dual::constant(1.0));
            x * inner
        },
        1.0,
    );
    assert_eq!(d, 1.0);

    // d/dx [ x · d/dy (x y) ] = d/dx x² = 2x: the inner derivative carries x's tangent.
    let (v, d) = forward::derivative(
        |x: Dual<f64>| {
            let (_, inner) = forward::derivative(|y| Dual::constant(x) * y, Dual::constant(2.0));
            x * inner
        },
        3.0,
    );
    assert_eq!((v, d), (9.0, 6.0));
}

/// Comparisons read the values only, so branches follow the primal computation.
#[test]
fn comparisons_and_branches_follow_the_value() {
    let (a, b) = (Dual::new(1.0_f64, 100.0), Dual::new(2.0_f64, -100.0));
    assert!(a < b);
    assert!(b > a);
    assert!(a <= b);
    assert_eq!(Dual::new(1.0_f64, 5.0), Dual::new(1.0, -5.0));
    assert_eq!(
        Dual::new(f64::NAN, 0.0).partial_cmp(&Dual::new(1.0, 0.0)),
        None
    );
    assert!(DualVec::new(1.0_f64, [9.0]) < DualVec::new(1.5, [-9.0]));

    fn branchy<T: Float>(x: T) -> T {
        if x > T::ONE {
            x * x
        } else {
            -x
        }
    }
    assert_eq!(forward::derivative(branchy, 3.0_f64), (9.0, 6.0));
    assert_eq!(forward::derivative(branchy, 0.5_f64), (-0.5, -1.0));
    // A tangent large enough to cross the branch if it were compared changes nothing.
    assert_eq!(branchy(Dual::new(0.5_f64, 1e9)).eps, -1e9);
}

/// `Sum` and `Product` over dual numbers, by value and by reference.
#[test]
fn sums_and_products() {
    let xs = [
        Dual::new(2.0_f64, 1.0),
        Dual::new(3.0, 0.0),
        Dual::new(5.0, 2.0),
    ];
    let s: Dual<f64> = xs.iter().sum();
    assert_eq!((s.re, s.eps), (10.0, 3.0));
    let s: Dual<f64> = xs.into_iter().sum();
    assert_eq!((s.re, s.eps), (10.0, 3.0));
    // (abc)′ = a′bc + ab′c + abc′ = 15 + 0 + 12.
    let p: Dual<f64> = xs.into_iter().product();
    assert_eq!((p.re, p.eps), (30.0, 27.0));
}

/// Dual numbers through the value stack: pushed as the value then the tangents, popped back
/// whole, each component bit for bit, interleaved with other types.
#[test]
fn value_stack_round_trip() {
    let a = Dual::new(1.25_f64, -0.0);
    let b = DualVec::new(2.5_f64, [3.0, f64::INFINITY, -4.0]);
    let c = Dual::new(Dual::new(5.0_f64, 6.0), Dual::new(7.0, 8.0));
    let mut stack = ValueStack::new();
    stack.push(a);
    stack.push(9_usize);
    stack.push(b);
    stack.push(10.0_f64);
    stack.push(c);
    stack.push_slice(&[a, Dual::new(11.0, 12.0)]);
    assert_eq!(
        stack.bytes(),
        (2 + 4 + 1 + 4 + 4) * 8 + std::mem::size_of::<usize>() * 2
    );

    let slice: Vec<Dual<f64>> = stack.pop_vec();
    assert_eq!(
        slice.iter().map(|d| (d.re, d.eps)).collect::<Vec<_>>(),
        [(1.25, -0.0), (11.0, 12.0)]
    );
    let c2: Dual<Dual<f64>> = stack.pop();
    assert_eq!(
        [c2.re.re, c2.re.eps, c2.eps.re, c2.eps.eps],
        [5.0, 6.0, 7.0, 8.0]
    );
    assert_eq!(stack.pop::<f64>(), 10.0);
    let b2: DualVec<f64, 3> = stack.pop();
    assert_eq!(b2.re, 2.5);
    assert_eq!(b2.eps.map(f64::to_bits), b.eps.map(f64::to_bits));
    assert_eq!(stack.pop::<usize>(), 9);
    let a2: Dual<f64> = stack.pop();
    assert_eq!(
        (a2.re.to_bits(), a2.eps.to_bits()),
        (1.25_f64.to_bits(), (-0.0_f64).to_bits())
    );
    assert!(stack.is_empty());
}

/// The adjoint of a dual number is a dual number: zeros in every component, and adding adds
/// values and tangents.
#[test]
fn adjoint_and_accumulate_of_dual_numbers() {
    let x = Dual::new(Dual::new(1.0_f64, 2.0), Dual::new(3.0, 4.0));
    let zero = x.zero_adjoint();
    assert_eq!(
        [zero.re.re, zero.re.eps, zero.eps.re, zero.eps.eps],
        [0.0; 4]
    );

    let mut acc = Dual::new(1.0_f64, 2.0);
    <Dual<f64> as Adjoint>::accumulate(&mut acc, &Dual::new(0.5, -3.0));
    assert_eq!((acc.re, acc.eps), (1.5, -1.0));
    Accumulate::accumulate(&mut acc, &Dual::new(1.0, 1.0));
    assert_eq!((acc.re, acc.eps), (2.5, 0.0));

    // In containers: the adjoint of a `Vec` of dual numbers is one of the same length.
    let v = vec![DualVec::new(1.0_f64, [1.0, 2.0]); 3];
    let mut adj = v.zero_adjoint();
    assert_eq!(adj.len(), 3);
    assert!(adj.iter().all(|a| a.re == 0.0 && a.eps == [0.0, 0.0]));
    adj.accumulate(&v);
    adj.accumulate(&v);
    assert!(adj.iter().all(|a| a.re == 2.0 && a.eps == [2.0, 4.0]));
}

/// `f32` dual numbers: the same derivative as in `f64`, to `f32` precision.
#[test]
fn dual_f32() {
    let (y, d) = forward::derivative(|x| x.sin() * x.exp(), 0.4_f32);
    assert_relative_eq!(y, 0.4_f32.sin() * 0.4_f32.exp(), max_relative = 1e-6);
    let expected = 0.4_f64.exp() * (0.4_f64.sin() + 0.4_f64.cos());
    assert_relative_eq!(f64::from(d), expected, max_relative = 1e-6);
}

/// `#[reverse]` code of a generic function run on dual numbers: forward over reverse, whose
/// tangent of the gradient is a Hessian-vector product.
#[revad::reverse]
fn rosenbrock<T: Float>(x: T, y: T) -> T {
    let a = T::ONE - x;
    let b = y - x * x;
    a * a + T::from_f64(100.0) * b * b
}

/// The gradient of `rosenbrock` on `Dual<f64>` seeded along `v` gives `H v`, against the
/// closed-form Hessian `[[2 - 400(y - 3x²), -400x], [-400x, 200]]`.
#[test]
fn forward_over_reverse_hessian_vector_product() {
    let (x, y, v) = (0.5_f64, 1.5_f64, [1.0, -2.0]);
    let (value, (gx, gy)) = rosenbrock_grad(Dual::new(x, v[0]), Dual::new(y, v[1]));
    assert_eq!(value.re, rosenbrock(x, y));
    assert_eq!((gx.re, gy.re), rosenbrock_grad(x, y).1);
    let h = [
        [2.0 - 400.0 * (y - 3.0 * x * x), -400.0 * x],
        [-400.0 * x, 200.0],
    ];
    assert_relative_eq!(
        gx.eps,
        h[0][0] * v[0] + h[0][1] * v[1],
        max_relative = 1e-14
    );
    assert_relative_eq!(
        gy.eps,
        h[1][0] * v[0] + h[1][1] * v[1],
        max_relative = 1e-14
    );
}
