//! Generic functions over `revad::Float`: one body, instantiated at `f32` and at `f64`, each
//! gradient compared with a closed form (or, where the closed form is long, with central
//! finite differences of the primal in `f64`).

use revad::{reverse, Float};

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

// ---- scalars, slices, a loop, intrinsics as methods, `T::from_f64` ---------------------------

/// The example of the issue: Horner's scheme, then `sin`, halved.
#[reverse]
#[allow(
    clippy::needless_range_loop,
    reason = "the example of the issue, as written"
)]
fn poly<T: Float>(x: T, w: &[T]) -> T {
    let mut acc = T::ZERO;
    for i in 0..w.len() {
        acc = acc * x + w[i];
    }
    acc.sin() * T::from_f64(0.5)
}

/// `poly` and its gradient in closed form, in `f64`.
fn poly_by_hand(x: f64, w: &[f64]) -> (f64, (f64, Vec<f64>)) {
    let n = w.len();
    let p: f64 = (0..n).map(|i| w[i] * x.powi((n - 1 - i) as i32)).sum();
    let dp_dx: f64 = (0..n.saturating_sub(1))
        .map(|i| w[i] * (n - 1 - i) as f64 * x.powi((n - 2 - i) as i32))
        .sum();
    let outer = 0.5 * p.cos();
    let dw = (0..n).map(|i| outer * x.powi((n - 1 - i) as i32)).collect();
    (0.5 * p.sin(), (outer * dp_dx, dw))
}

#[test]
fn horner_loop_over_a_slice_at_both_precisions() {
    let w = [1.0, -2.0, 0.5, 3.0];
    let (v, (dx, dw)) = poly_grad(0.3_f64, &w);
    let (ev, (edx, edw)) = poly_by_hand(0.3, &w);
    close64(v, ev, 1e-15);
    close64(dx, edx, 1e-14);
    for (a, b) in dw.iter().zip(&edw) {
        close64(*a, *b, 1e-14);
    }
    assert_eq!(v, poly(0.3_f64, &w));

    let w32 = w.map(|a| a as f32);
    let (v, (dx, dw)) = poly_grad(0.3_f32, &w32);
    let (ev, (edx, edw)) = poly_by_hand(f64::from(0.3_f32), &w32.map(f64::from));
    close32(v, ev);
    close32(dx, edx);
    for (a, b) in dw.iter().zip(&edw) {
        close32(*a, *b);
    }
    assert_eq!(v, poly(0.3_f32, &w32));
}

#[test]
fn the_issue_example() {
    let (v, (dx, dw)) = poly_grad(0.3_f64, &[1.0, 2.0]);
    close64(v, 0.5 * 2.3_f64.sin(), 1e-15);
    close64(dx, 0.5 * 2.3_f64.cos(), 1e-15);
    close64(dw[0], 0.5 * 2.3_f64.cos() * 0.3, 1e-15);
    close64(dw[1], 0.5 * 2.3_f64.cos(), 1e-15);
    let (v, (dx, dw)) = poly_grad(0.3_f32, &[1.0, 2.0]);
    let x = f64::from(0.3_f32);
    close32(v, 0.5 * (x + 2.0).sin());
    close32(dx, 0.5 * (x + 2.0).cos());
    close32(dw[0], 0.5 * (x + 2.0).cos() * x);
    close32(dw[1], 0.5 * (x + 2.0).cos());
}

/// Every kind of intrinsic as a method: one argument, two, `powi`, `mul_add`, and
/// `T::from_i32` constants.
#[reverse]
fn intrinsics<T: Float>(x: T, y: T) -> T {
    let a = x.exp() * y.cos() + x.powi(3) / T::from_i32(3);
    let b = x.hypot(y) + x.atan2(y) + y.max(x) - x.min(y);
    let c = x.mul_add(y, T::ONE).ln() + (x * y).tanh() + y.sqrt().recip();
    a * T::from_f64(0.25) + b - c
}

fn intrinsics_f64(v: &[f64]) -> f64 {
    let (x, y) = (v[0], v[1]);
    let a = x.exp() * y.cos() + x.powi(3) / 3.0;
    let b = x.hypot(y) + x.atan2(y) + y.max(x) - x.min(y);
    let c = x.mul_add(y, 1.0).ln() + (x * y).tanh() + y.sqrt().recip();
    a * 0.25 + b - c
}

#[test]
fn intrinsics_as_methods() {
    let (x, y) = (0.7, 1.9);
    // Closed form: y > x, so max is y and min is x.
    let h = x.hypot(y);
    let (m, t) = (x * y + 1.0, (x * y).tanh());
    let dx = 0.25 * (x.exp() * y.cos() + x * x) + x / h + y / (x * x + y * y)
        - 1.0
        - (y / m + y * (1.0 - t * t));
    let dy = 0.25 * (-x.exp() * y.sin()) + y / h - x / (x * x + y * y) + 1.0
        - (x / m + x * (1.0 - t * t) - 0.5 * y.powf(-1.5));
    let (v, (gx, gy)) = intrinsics_grad(x, y);
    close64(v, intrinsics_f64(&[x, y]), 1e-15);
    close64(gx, dx, 1e-13);
    close64(gy, dy, 1e-13);
    close64(gx, fd(intrinsics_f64, &[x, y], 0), 1e-7);

    let (v, (gx, gy)) = intrinsics_grad(x as f32, y as f32);
    let (x, y) = (f64::from(x as f32), f64::from(y as f32));
    close32(v, intrinsics_f64(&[x, y]));
    close32(gx, fd(intrinsics_f64, &[x, y], 0));
    close32(gy, fd(intrinsics_f64, &[x, y], 1));
}

// ---- branches and `while` ------------------------------------------------------------------

/// A branch on the value, and a `while` loop that halves until below one.
#[reverse]
fn piecewise<T: Float>(x: T, a: T) -> T {
    let mut y = if x > T::ZERO { x * a } else { -x * x };
    let mut steps = 0;
    while y > T::ONE {
        y *= T::from_f64(0.5);
        steps += 1;
    }
    y + T::from_i32(steps) * a
}

#[test]
fn branch_and_while_at_both_precisions() {
    // x > 0: y = x a = 6, halved three times: 0.75; the result 0.75 + 3 a.
    let (v, (dx, da)) = piecewise_grad(3.0_f64, 2.0);
    close64(v, 0.75 + 6.0, 1e-15);
    close64(dx, 2.0 / 8.0, 1e-15);
    close64(da, 3.0 / 8.0 + 3.0, 1e-15);
    // x < 0: y = -x², no halving.
    let (v, (dx, da)) = piecewise_grad(-0.5_f64, 2.0);
    close64(v, -0.25, 1e-15);
    close64(dx, 1.0, 1e-15);
    close64(da, 0.0, 1e-15);
    let (v, (dx, da)) = piecewise_grad(3.0_f32, 2.0);
    close32(v, 6.75);
    close32(dx, 0.25);
    close32(da, 3.375);
}

// ---- `where` clause, other bounds, a `&mut [T]` output, `Vec<T>` -----------------------------

/// `y = M x` into an out-parameter, with the bound in a `where` clause beside another bound.
#[reverse]
fn matvec<T>(m: &[T], x: &[T], y: &mut [T])
where
    T: Float + core::fmt::Display,
{
    for i in 0..y.len() {
        let mut acc = T::ZERO;
        for j in 0..x.len() {
            acc += m[i * x.len() + j] * x[j];
        }
        y[i] = acc;
    }
}

#[test]
fn mut_slice_output_at_both_precisions() {
    let (m, x) = ([1.0, 2.0, 3.0, 4.0], [1.0, -1.0]);
    let mut y = vec![0.0_f64; 2];
    let ((), (dm, dx, dy)) = matvec_vjp(&m, &x, &mut y, vec![1.0, 0.5]);
    assert_eq!(y, [-1.0, -1.0]);
    // dM = ȳ xᵀ, dx = Mᵀ ȳ, dy (on entry) = 0.
    assert_eq!(dm, [1.0, -1.0, 0.5, -0.5]);
    assert_eq!(dx, [1.0 + 1.5, 2.0 + 2.0]);
    assert_eq!(dy, [0.0, 0.0]);

    let (m, x) = (m.map(|a| a as f32), x.map(|a| a as f32));
    let mut y = vec![0.0_f32; 2];
    let ((), (dm, dx, dy)) = matvec_vjp(&m, &x, &mut y, vec![1.0, 0.5]);
    assert_eq!(y, [-1.0, -1.0]);
    assert_eq!(dm, [1.0, -1.0, 0.5, -0.5]);
    assert_eq!(dx, [2.5, 4.0]);
    assert_eq!(dy, [0.0, 0.0]);
}

/// A `Vec<T>` by value and a `&T`: the weighted sum, scaled.
#[reverse]
fn weighted<T: Float>(v: Vec<T>, s: &T) -> T {
    let mut total = T::ZERO;
    for (i, &vi) in v.iter().enumerate() {
        total += vi * T::from_i32(i as i32 + 1);
    }
    total * *s
}

#[test]
fn vec_and_reference_parameters() {
    let (v, (dv, ds)) = weighted_grad(vec![1.0_f64, 2.0, 3.0], &2.0);
    assert_eq!(v, 28.0);
    assert_eq!(dv, [2.0, 4.0, 6.0]);
    assert_eq!(ds, 14.0);
    let (v, (dv, ds)) = weighted_grad(vec![1.0_f32, 2.0, 3.0], &2.0);
    assert_eq!(v, 28.0);
    assert_eq!(dv, [2.0, 4.0, 6.0]);
    assert_eq!(ds, 14.0);
}

// ---- array return through `_vjp` -------------------------------------------------------------

/// The rotation of `(x, y)` by `angle`: `[T; 2]`, with an array parameter too.
#[reverse]
fn rotate<T: Float>(p: [T; 2], angle: T) -> [T; 2] {
    let (s, c) = (angle.sin(), angle.cos());
    [c * p[0] - s * p[1], s * p[0] + c * p[1]]
}

#[test]
fn array_return_through_vjp() {
    let (p, a) = ([1.0, 2.0], 0.3_f64);
    let (s, c) = (a.sin(), a.cos());
    let seed = [0.5, -1.5];
    let (v, (dp, da)) = rotate_vjp(p, a, seed);
    assert_eq!(v, rotate(p, a));
    // J = [[c, -s], [s, c]] in p, and [-s x - c y, c x - s y] in the angle.
    close64(dp[0], c * seed[0] + s * seed[1], 1e-15);
    close64(dp[1], -s * seed[0] + c * seed[1], 1e-15);
    close64(
        da,
        (-s * p[0] - c * p[1]) * seed[0] + (c * p[0] - s * p[1]) * seed[1],
        1e-15,
    );
    let (v, (dp, da)) = rotate_vjp([1.0_f32, 2.0], 0.3_f32, [0.5, -1.5]);
    let a32 = f64::from(0.3_f32);
    let (s, c) = (a32.sin(), a32.cos());
    close32(v[0], c - 2.0 * s);
    close32(dp[0], c * 0.5 - s * 1.5);
    close32(dp[1], -s * 0.5 - c * 1.5);
    close32(da, (-s - 2.0 * c) * 0.5 - (c - 2.0 * s) * 1.5);
}

// ---- calls: generic from concrete, generic from generic, recursion ---------------------------

/// A generic caller of `poly`, inferring `T`, and one naming it.
#[reverse]
fn poly_twice<T: Float>(x: T, w: &[T]) -> T {
    let a = poly(x, w);
    let b = poly::<T>(a, w);
    a + b
}

/// A concrete caller of the generic `poly` and `rotate`.
#[reverse]
fn poly_f64(x: f64, y: f64) -> f64 {
    let w = [y, 2.0, -1.0];
    let r = rotate([x, y], 0.5);
    poly(x, &w) * r[0] + poly::<f64>(y, &w)
}

#[test]
fn generic_callee_from_a_generic_caller() {
    let w = [1.0, 2.0, -0.5];
    let (v, (dx, dw)) = poly_twice_grad(0.4_f64, &w);
    let (a, (da_dx, da_dw)) = poly_by_hand(0.4, &w);
    let (b, (db_da, db_dw)) = poly_by_hand(a, &w);
    close64(v, a + b, 1e-15);
    close64(dx, da_dx * (1.0 + db_da), 1e-14);
    for i in 0..3 {
        close64(dw[i], da_dw[i] * (1.0 + db_da) + db_dw[i], 1e-14);
    }
    let w32 = w.map(|a| a as f32);
    let (_, (dx, dw)) = poly_twice_grad(0.4_f32, &w32);
    let (a, (da_dx, da_dw)) = poly_by_hand(f64::from(0.4_f32), &w32.map(f64::from));
    let (_, (db_da, db_dw)) = poly_by_hand(a, &w32.map(f64::from));
    close32(dx, da_dx * (1.0 + db_da));
    close32(dw[2], da_dw[2] * (1.0 + db_da) + db_dw[2]);
}

#[test]
fn generic_callee_from_a_concrete_caller() {
    let f = |v: &[f64]| {
        let (x, y) = (v[0], v[1]);
        let w = [y, 2.0, -1.0];
        let (s, c) = (0.5_f64.sin(), 0.5_f64.cos());
        poly_by_hand(x, &w).0 * (c * x - s * y) + poly_by_hand(y, &w).0
    };
    let (x, y) = (0.8, -0.3);
    let (v, (dx, dy)) = poly_f64_grad(x, y);
    close64(v, f(&[x, y]), 1e-14);
    close64(dx, fd(f, &[x, y], 0), 1e-8);
    close64(dy, fd(f, &[x, y], 1), 1e-8);
}

/// `x^n` by recursion, generic.
#[reverse]
fn power<T: Float>(x: T, n: usize) -> T {
    if n == 0 {
        T::ONE
    } else {
        x * power(x, n - 1)
    }
}

#[test]
fn generic_recursion() {
    let (v, dx) = power_grad(1.5_f64, 5);
    assert_eq!(v, 1.5_f64.powi(5));
    close64(dx, 5.0 * 1.5_f64.powi(4), 1e-15);
    let (v, dx) = power_grad(1.5_f32, 5);
    assert_eq!(v, 1.5_f32.powi(5));
    close32(dx, 5.0 * 1.5_f64.powi(4));
}

// ---- `wrt`, tuples, closures, iterators -----------------------------------------------------

/// A tuple result through `_vjp`, a closure over an active value, an iterator sum, and `wrt`.
#[reverse(wrt(x))]
fn stats<T: Float>(x: &[T], scale: T) -> (T, T) {
    let sq = |t: T| t * t * scale;
    let mean = x.iter().copied().sum::<T>() / T::from_i32(x.len() as i32);
    let mut spread = T::ZERO;
    for &xi in x {
        spread += sq(xi - mean);
    }
    (mean, spread)
}

#[test]
fn tuple_result_closure_and_iterator_sum() {
    let x = [1.0, 2.0, 4.0];
    let (mean, spread) = stats(&x, 2.0_f64);
    let ((m, s), dx) = stats_vjp(&x, 2.0_f64, (1.0, 0.5));
    assert_eq!((m, s), (mean, spread));
    // d mean / dx_i = 1/3; d spread / dx_i = 2 scale (x_i - mean) (the sum of deviations is 0).
    let mean = 7.0 / 3.0;
    for i in 0..3 {
        close64(dx[i], 1.0 / 3.0 + 0.5 * 4.0 * (x[i] - mean), 1e-14);
    }
    let x32 = x.map(|a| a as f32);
    let (_, dx) = stats_vjp(&x32, 2.0_f32, (1.0, 0.5));
    for i in 0..3 {
        close32(dx[i], 1.0 / 3.0 + 0.5 * 4.0 * (x[i] - mean));
    }
}

// ---- a generic hand-written pullback --------------------------------------------------------

/// `ln(1 + e^x)`, with a pullback that is deliberately 10 times too large: the gradient of a
/// caller shows that it was used.
#[revad::derivative(vjp = softplus_pullback)]
fn softplus<T: Float>(x: T) -> T {
    (T::ONE + x.exp()).ln()
}

fn softplus_pullback<T: Float>(x: T, _out: T, seed: T) -> T {
    T::from_i32(10) * seed / (T::ONE + (-x).exp())
}

#[reverse]
fn uses_softplus<T: Float>(x: T) -> T {
    softplus(x * x)
}

#[test]
fn generic_custom_derivative() {
    let sigmoid = |t: f64| 1.0 / (1.0 + (-t).exp());
    let (v, dx) = uses_softplus_grad(0.6_f64);
    close64(v, (1.0 + 0.36_f64.exp()).ln(), 1e-15);
    close64(dx, 10.0 * sigmoid(0.36) * 1.2, 1e-14);
    let (_, dx) = uses_softplus_grad(0.6_f32);
    let x = f64::from(0.6_f32);
    close32(dx, 10.0 * sigmoid(x * x) * 2.0 * x);
}

// ---- a CPS caller ---------------------------------------------------------------------------

/// A `#[reverse(cps)]` function calling the generic `poly` (through its CPS companion).
#[reverse(cps)]
fn cps_caller(x: f64) -> f64 {
    let w = [2.0, -1.0, 0.5];
    poly(x, &w) * x
}

#[test]
fn generic_callee_from_a_cps_caller() {
    let w = [2.0, -1.0, 0.5];
    let (p, (dp, _)) = poly_by_hand(0.7, &w);
    let (v, dx) = cps_caller_grad(0.7);
    close64(v, p * 0.7, 1e-15);
    close64(dx, dp * 0.7 + p, 1e-14);
}

// ---- `&mut T` in and out, a `Vec<T>` result -------------------------------------------------

/// Adds `x²` into the accumulator `acc` (an input and an output) and returns the prefix
/// products of `w` scaled by the old accumulator.
#[reverse]
fn accumulate<T: Float>(x: T, w: &[T], acc: &mut T) -> Vec<T> {
    let old = *acc;
    *acc = old + x * x;
    let mut out = vec![T::ZERO; w.len()];
    let mut p = old;
    for i in 0..w.len() {
        p *= w[i];
        out[i] = p;
    }
    out
}

#[test]
fn mut_scalar_and_vec_result() {
    let w = [2.0, 3.0];
    let mut acc = 1.5_f64;
    // Seeds: (1, 1) on the result, 0.5 on the accumulator's value on return.
    let (out, (dx, dw, dacc)) = accumulate_vjp(0.4, &w, &mut acc, vec![1.0, 1.0], 0.5);
    assert_eq!(out, [3.0, 9.0]);
    assert_eq!(acc, 1.5 + 0.4 * 0.4);
    // out = (a w0, a w0 w1): d/da = w0 + w0 w1 (+ 0.5 through acc), d/dw0 = a + a w1,
    // d/dw1 = a w0; d/dx = 0.5 * 2x.
    close64(dx, 0.5 * 0.8, 1e-15);
    close64(dw[0], 1.5 + 1.5 * 3.0, 1e-15);
    close64(dw[1], 1.5 * 2.0, 1e-15);
    close64(dacc, 2.0 + 6.0 + 0.5, 1e-15);

    let mut acc = 1.5_f32;
    let (out, (dx, dw, dacc)) = accumulate_vjp(0.5_f32, &[2.0, 3.0], &mut acc, vec![1.0, 1.0], 0.5);
    assert_eq!(out, [3.0, 9.0]);
    assert_eq!(acc, 1.75);
    assert_eq!((dx, dw, dacc), (0.5, vec![6.0, 3.0], 8.5));
}

// ---- an array result of a generic callee, kept for the reverse sweep --------------------------

#[reverse]
fn pair<T: Float>(x: T) -> [T; 2] {
    [x * x, x.exp()]
}

/// In a loop, the callee's array result is popped by the reverse sweep as `[T; 2]` (its type
/// named through `ReturnsAt<T>`); a lifetime and a `where` clause on the other callee.
#[reverse]
fn use_pair<T: Float>(x: T, n: usize) -> T {
    let mut acc = T::ZERO;
    for _ in 0..n {
        let p = pair(x);
        acc += p[0] * p[1];
    }
    let v = vec![x, x];
    acc + dot(&v, &v)
}

#[reverse]
fn dot<'a, T>(a: &'a [T], b: &'a [T]) -> T
where
    T: Float,
{
    let mut s = T::ZERO;
    for (ai, bi) in a.iter().zip(b) {
        s += *ai * *bi;
    }
    s
}

#[test]
fn array_result_of_a_generic_callee_in_a_loop() {
    // n x² eˣ + 2 x²: derivative n (2x + x²) eˣ + 4x.
    let x = 0.5_f64;
    let (v, dx) = use_pair_grad(x, 3);
    close64(v, 3.0 * x * x * x.exp() + 2.0 * x * x, 1e-15);
    close64(dx, 3.0 * (2.0 * x + x * x) * x.exp() + 4.0 * x, 1e-15);
    let (_, dx) = use_pair_grad(0.5_f32, 3);
    close32(dx, 3.0 * (2.0 * x + x * x) * x.exp() + 4.0 * x);
}

/// A rotation as a 2-D array literal of computed entries, over a float type parameter.
#[reverse]
fn rotation_generic<T: Float>(t: T, y: T) -> T {
    let (c, s) = (t.cos(), t.sin());
    let r = [[c, -s], [s, c]];
    r[0][0] * y + r[1][0] + r[0][1] * y
}

/// A nested `vec!` matrix over a float type parameter (kept on the value stack: `Float` is
/// `Send + 'static`).
#[reverse]
fn nested_vec_generic<T: Float>(x: &[T]) -> T {
    let mut m = vec![vec![T::ZERO; x.len()]; x.len()];
    m[0][0] = x[0];
    m[1][0] = x[1] * x[0];
    m[0][0] * x[0] + m[1][0]
}

#[test]
fn nested_containers_over_a_type_parameter() {
    let (t, y) = (0.5f64, 2.0f64);
    // c y + s - s y: d/dt = -s y + c - c y, d/dy = c - s.
    let (v, (dt, dy)) = rotation_generic_grad(t, y);
    assert_eq!(v.to_bits(), rotation_generic(t, y).to_bits());
    let (c, s) = (t.cos(), t.sin());
    assert!((dt - (-s * y + c - c * y)).abs() < 1e-15);
    assert!((dy - (c - s)).abs() < 1e-15);
    let (_, (dt32, _)) = rotation_generic_grad(t as f32, y as f32);
    assert!((f64::from(dt32) - dt).abs() < 1e-6);
    // x0^2 + x1 x0.
    let (v, g) = nested_vec_generic_grad(&[0.5f64, 2.0]);
    assert_eq!(v, nested_vec_generic(&[0.5f64, 2.0]));
    assert_eq!(g, vec![3.0, 0.5]);
}

/// `a × b` over a float type parameter.
#[reverse]
fn cross_generic<T: Float>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `|v|` over a float type parameter.
#[reverse]
fn norm_generic<T: Float>(v: [T; 3]) -> T {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// An array result passed on whole without its type, over a float type parameter.
#[reverse]
fn norm_of_cross_generic<T: Float>(x: T, y: T) -> T {
    let a = [x, y, T::ONE];
    let b = [y, T::ONE, x];
    let c = cross_generic(a, b);
    norm_generic(c)
}

#[test]
fn results_passed_on_whole_over_a_type_parameter() {
    let (x, y) = (0.7f64, 1.3f64);
    // c = (y x - 1, y - x^2, x - y^2), f = |c|.
    let c = [y * x - 1.0, y - x * x, x - y * y];
    let n = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
    let dx = (c[0] * y - 2.0 * x * c[1] + c[2]) / n;
    let dy = (c[0] * x + c[1] - 2.0 * y * c[2]) / n;
    let (v, (gx, gy)) = norm_of_cross_generic_grad(x, y);
    assert_eq!(v.to_bits(), norm_of_cross_generic(x, y).to_bits());
    assert!(
        (gx - dx).abs() < 1e-14 && (gy - dy).abs() < 1e-14,
        "{gx} {gy} vs {dx} {dy}"
    );
    let (_, (gx32, _)) = norm_of_cross_generic_grad(x as f32, y as f32);
    assert!((f64::from(gx32) - dx).abs() < 1e-5);
}
