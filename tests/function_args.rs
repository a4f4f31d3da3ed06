//! Annotated higher-order functions: a function argument (`F: Fn(f64) -> f64`, `impl Fn`,
//! `&F`) called in the body, and closures passed by annotated callers, differentiated with
//! respect to the float arguments and to the variables the closures capture, in reverse and
//! forward mode. References: central finite differences of the primal, closed forms, and the
//! same programs written generically and run on `revad::Dual` (the dual-number oracle).

use revad::forward::gradient as dual_gradient;
use revad::{Dual, Float};

/// The midpoint rule with `n` panels.
#[revad::reverse]
#[revad::forward]
fn integrate<F: Fn(f64) -> f64>(f: F, a: f64, b: f64) -> f64 {
    let n = 16;
    let h = (b - a) / n as f64;
    let mut s = 0.0;
    for i in 0..n {
        s += f(a + (i as f64 + 0.5) * h);
    }
    s * h
}

/// The same rule, generic: the oracle runs it on dual numbers.
fn integrate_generic<T: Float>(f: impl Fn(T) -> T, a: T, b: T) -> T {
    let n = 16;
    let h = (b - a) / T::from_i32(n);
    let mut s = T::ZERO;
    for i in 0..n {
        s += f(a + (T::from_i32(i) + T::HALF) * h);
    }
    s * h
}

#[revad::reverse]
#[revad::forward]
fn moment(c: f64, b: f64) -> f64 {
    integrate(|x| c * x * x + (c * x).sin(), 0.0, b) * c
}

fn moment_generic<T: Float>(c: T, b: T) -> T {
    integrate_generic(|x: T| c * x * x + (c * x).sin(), T::ZERO, b) * c
}

/// Central differences of `f` at `p`.
fn fd(f: impl Fn(&[f64]) -> f64, p: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..p.len())
        .map(|i| {
            let (mut up, mut down) = (p.to_vec(), p.to_vec());
            up[i] += h;
            down[i] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn assert_close(ours: &[f64], reference: &[f64], tol: f64) {
    assert_eq!(ours.len(), reference.len());
    for (k, (a, b)) in ours.iter().zip(reference).enumerate() {
        assert!(
            close(*a, *b, tol),
            "component {k}: {a} vs {b} ({ours:?} vs {reference:?})"
        );
    }
}

#[test]
fn gradient_with_respect_to_a_capture_and_a_bound() {
    for &(c, b) in &[(2.0, 1.5), (-0.7, 0.3), (1.1, -2.0)] {
        let (value, (dc, db)) = moment_grad(c, b);
        // The primal bit for bit, the gradient against the dual oracle and FD.
        assert_eq!(value.to_bits(), moment(c, b).to_bits());
        let (oracle_value, oracle) =
            dual_gradient(|p: &[Dual<f64>]| moment_generic(p[0], p[1]), &[c, b]);
        assert_eq!(value, oracle_value);
        assert_close(&[dc, db], &oracle, 1e-13);
        assert_close(&[dc, db], &fd(|p| moment(p[0], p[1]), &[c, b]), 1e-7);
    }
}

#[test]
fn forward_mode_agrees() {
    let (c, b) = (0.9, 1.7);
    let (_, (dc, db)) = moment_grad(c, b);
    for &(tc, tb) in &[(1.0, 0.0), (0.0, 1.0), (0.3, -1.2)] {
        let (value, tangent) = moment_jvp(c, b, tc, tb);
        assert_eq!(value.to_bits(), moment(c, b).to_bits());
        assert!(close(tangent, dc * tc + db * tb, 1e-13), "{tangent}");
    }
}

/// The callee's own derivatives with respect to its bounds, through an annotated function
/// as the argument.
#[revad::reverse]
#[revad::forward]
fn cube(x: f64) -> f64 {
    x * x * x
}

#[revad::reverse]
#[revad::forward]
#[allow(
    clippy::redundant_closure,
    reason = "the closure is what this test passes"
)]
fn area(a: f64, b: f64) -> f64 {
    integrate(|x| cube(x), a, b)
}

#[test]
fn closure_calling_an_annotated_function() {
    // The midpoint rule on x³: ∂/∂b of the rule, against the oracle; close to b³.
    let (a, b) = (0.25, 1.25);
    let (_, (da, db)) = area_grad(a, b);
    let (_, oracle) = dual_gradient(
        |p: &[Dual<f64>]| integrate_generic(|x| x * x * x, p[0], p[1]),
        &[a, b],
    );
    assert_close(&[da, db], &oracle, 1e-13);
    assert!(close(db, b * b * b, 1e-2) && close(da, -a * a * a, 1e-2));
    let (_, t) = area_jvp(a, b, 0.0, 1.0);
    assert!(close(t, db, 1e-13));
}

/// Two arguments, a captured array and a captured integer.
#[revad::reverse]
#[revad::forward]
fn fold_pairs<F: Fn(f64, f64) -> f64>(f: F, xs: &[f64]) -> f64 {
    let mut acc = 0.0;
    for i in 1..xs.len() {
        acc += f(xs[i - 1], xs[i]);
    }
    acc
}

#[revad::reverse]
#[revad::forward]
fn weighted_pairs(w: &[f64], xs: &[f64], k: usize) -> f64 {
    let scale = k as f64;
    fold_pairs(
        |a, b| w[0] * a * b + w[1] * (a - b) * (a - b) + w[k] * scale,
        xs,
    )
}

fn weighted_pairs_generic<T: Float>(w: &[T], xs: &[T], k: usize) -> T {
    let scale = T::from_i32(k as i32);
    let mut acc = T::ZERO;
    for i in 1..xs.len() {
        let (a, b) = (xs[i - 1], xs[i]);
        acc += w[0] * a * b + w[1] * (a - b) * (a - b) + w[k] * scale;
    }
    acc
}

#[test]
fn captured_array_and_integer() {
    let w = [0.5, -1.5, 2.0];
    let xs = [0.3, 1.2, -0.4, 2.2];
    let (value, (dw, dxs)) = weighted_pairs_grad(&w, &xs, 2);
    assert_eq!(value.to_bits(), weighted_pairs(&w, &xs, 2).to_bits());
    let mut p = w.to_vec();
    p.extend_from_slice(&xs);
    let (_, oracle) = dual_gradient(
        |p: &[Dual<f64>]| weighted_pairs_generic(&p[..3], &p[3..], 2),
        &p,
    );
    let mut ours = dw.to_vec();
    ours.extend_from_slice(&dxs);
    assert_close(&ours, &oracle, 1e-13);
    // Forward mode: one tangent direction through both arrays.
    let tw = [0.1, 0.2, -0.3];
    let tx = [1.0, -1.0, 0.5, 0.25];
    let (_, t) = weighted_pairs_jvp(&w, &xs, 2, &tw, &tx);
    let expected: f64 = dw
        .iter()
        .zip(&tw)
        .chain(dxs.iter().zip(&tx))
        .map(|(g, t)| g * t)
        .sum();
    assert!(close(t, expected, 1e-13), "{t} {expected}");
}

/// `impl Fn`, `&F` and a function argument passed on to another higher-order function.
#[revad::reverse]
#[revad::forward]
fn apply(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    f(x)
}

#[revad::reverse]
#[revad::forward]
fn apply_twice<F: Fn(f64) -> f64>(f: &F, x: f64) -> f64 {
    let y = apply(f, x);
    apply(f, y) + f(x)
}

#[revad::reverse]
#[revad::forward]
fn iterate_map(r: f64, x: f64) -> f64 {
    let logistic = |x: f64| r * x * (1.0 - x);
    apply_twice(&logistic, x)
}

#[test]
fn function_arguments_passed_on() {
    let primal = |r: f64, x: f64| {
        let f = |x: f64| r * x * (1.0 - x);
        f(f(x)) + f(x)
    };
    let (r, x) = (3.2, 0.3);
    let (value, (dr, dx)) = iterate_map_grad(r, x);
    assert_eq!(value.to_bits(), primal(r, x).to_bits());
    assert_close(&[dr, dx], &fd(|p| primal(p[0], p[1]), &[r, x]), 1e-7);
    let (_, t) = iterate_map_jvp(r, x, 0.5, -2.0);
    assert!(close(t, 0.5 * dr - 2.0 * dx, 1e-13));
}

/// A double integral: a closure that passes a closure capturing its own argument.
#[revad::reverse]
#[revad::forward]
fn double_integral(c: f64) -> f64 {
    integrate(|x| integrate(|y| (c * x * y).exp(), 0.0, 1.0), 0.0, 1.0)
}

#[test]
fn nested_closures() {
    let c = 0.8;
    let (value, dc) = double_integral_grad(c);
    let (oracle_value, oracle) = revad::forward::derivative(
        |c: Dual<f64>| {
            integrate_generic(
                |x| {
                    integrate_generic(
                        |y| (c * x * y).exp(),
                        Dual::constant(0.0),
                        Dual::constant(1.0),
                    )
                },
                Dual::constant(0.0),
                Dual::constant(1.0),
            )
        },
        c,
    );
    assert_eq!(value, oracle_value);
    assert!(close(dc, oracle, 1e-13), "{dc} {oracle}");
    let (_, t) = double_integral_jvp(c, 1.0);
    assert!(close(t, dc, 1e-13));
}

/// A generic caller, in `f32`, and a closure bound by `let` and passed to two calls.
#[revad::reverse]
fn scaled_areas<T: Float>(s: T) -> T {
    let g = |x: T| s * x;
    integrate_t(g, T::ZERO, T::ONE) + integrate_t(g, T::ONE, s)
}

#[revad::reverse]
fn integrate_t<T: Float, F: Fn(T) -> T>(f: F, a: T, b: T) -> T {
    let h = (b - a) / T::from_i32(4);
    let mut s = T::ZERO;
    for i in 0..4 {
        s += f(a + (T::from_i32(i) + T::HALF) * h);
    }
    s * h
}

#[test]
fn generic_caller_and_a_closure_passed_twice() {
    // ∫₀¹ s x dx + ∫₁ˢ s x dx = s/2 + s (s² - 1)/2 (the midpoint rule is exact on lines):
    // d/ds = 1/2 + (3 s² - 1)/2.
    for &s in &[0.5_f64, 2.0, 3.5] {
        let (value, d) = scaled_areas_grad(s);
        assert!(close(value, s / 2.0 + s * (s * s - 1.0) / 2.0, 1e-14));
        assert!(close(d, 0.5 + (3.0 * s * s - 1.0) / 2.0, 1e-14), "{d}");
        let (value32, d32) = scaled_areas_grad(s as f32);
        assert!((value32 as f64 - value).abs() < 1e-4 * (1.0 + value.abs()));
        assert!((d32 as f64 - d).abs() < 1e-4 * (1.0 + d.abs()));
    }
}

/// The callee with the closure argument inside a loop of the caller, whose captured
/// variable changes every iteration.
#[revad::reverse]
fn accumulate(c: f64) -> f64 {
    let mut k = c;
    let mut total = 0.0;
    for _ in 0..3 {
        total += integrate(|x| k * x, 0.0, 1.0);
        k = k * k;
    }
    total
}

#[test]
fn captured_variable_overwritten_in_a_loop() {
    // ∫₀¹ k x dx = k/2 for k = c, c², c⁴: d/dc = (1 + 2c + 4c³)/2.
    let c = 1.3;
    let (value, d) = accumulate_grad(c);
    assert!(close(value, (c + c * c + c.powi(4)) / 2.0, 1e-14));
    assert!(
        close(d, (1.0 + 2.0 * c + 4.0 * c.powi(3)) / 2.0, 1e-14),
        "{d}"
    );
}

/// A function argument with no float in its bound is inactive: called as written.
#[revad::reverse]
fn gather<G: Fn(usize) -> usize>(index: G, w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[index(i)] * w[i];
    }
    s
}

#[test]
fn inactive_function_argument() {
    let w = [1.0, 2.0, 3.0];
    let (value, dw) = gather_grad(|i| (i + 1) % 3, &w);
    // s = w1 w0 + w2 w1 + w0 w2.
    assert_eq!(value, 2.0 + 6.0 + 3.0);
    assert_eq!(dw, vec![2.0 + 3.0, 1.0 + 3.0, 2.0 + 1.0]);
}

/// Calls of a function argument at constant points, and passing it on with constant
/// arguments: the derivatives with respect to its captured variables still flow.
#[revad::reverse]
#[revad::forward]
fn endpoints<F: Fn(f64) -> f64>(f: F) -> f64 {
    f(0.5) + apply(&f, 2.0) * f(1.0)
}

#[revad::reverse]
#[revad::forward]
fn endpoints_of(c: f64) -> f64 {
    endpoints(|x| c * c * x)
}

#[test]
fn constant_arguments_of_a_function_argument() {
    // c²/2 + 2c² · c² = c²/2 + 2c⁴: d/dc = c + 8c³.
    let c = 1.25;
    let (value, d) = endpoints_of_grad(c);
    assert!(close(value, c * c / 2.0 + 2.0 * c.powi(4), 1e-15));
    assert!(close(d, c + 8.0 * c.powi(3), 1e-14), "{d}");
    let (_, t) = endpoints_of_jvp(c, 1.0);
    assert!(close(t, d, 1e-14), "{t}");
}

/// An annotated function passed by name, to both modes.
#[revad::reverse]
#[revad::forward]
fn area_by_name(a: f64, b: f64) -> f64 {
    let xs = [a, b, a * b];
    integrate(cube, a, b) + fold_pairs(hypot_like, &xs)
}

#[revad::reverse]
#[revad::forward]
fn hypot_like(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

#[test]
fn annotated_functions_passed_by_name() {
    let primal = |a: f64, b: f64| {
        integrate_generic(|x: f64| x * x * x, a, b)
            + (a * a + b * b).sqrt()
            + (b * b + (a * b) * (a * b)).sqrt()
    };
    let (a, b) = (0.4, 1.3);
    let (value, (da, db)) = area_by_name_grad(a, b);
    assert!(close(value, primal(a, b), 1e-14));
    assert_close(&[da, db], &fd(|p| primal(p[0], p[1]), &[a, b]), 1e-7);
    let (_, t) = area_by_name_jvp(a, b, 1.0, 2.0);
    assert!(close(t, da + 2.0 * db, 1e-13));
}

/// Forward mode alone: a forward-only higher-order function and caller.
#[revad::forward]
fn sum_at<F: Fn(f64) -> f64>(f: F, xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s += f(x);
    }
    s
}

#[revad::forward]
fn scaled_exp_sum(k: f64, xs: &[f64]) -> f64 {
    sum_at(|x| (k * x).exp(), xs)
}

#[test]
fn forward_only_caller_and_callee() {
    let xs = [0.1, -0.4, 0.7];
    let k = 0.9;
    let (value, t) = scaled_exp_sum_jvp(k, &xs, 1.0, &[0.0; 3]);
    let expected: f64 = xs.iter().map(|x| (k * x).exp()).sum();
    let dk: f64 = xs.iter().map(|x| x * (k * x).exp()).sum();
    assert!(close(value, expected, 1e-15));
    assert!(close(t, dk, 1e-14), "{t} {dk}");
    let (_, tx) = scaled_exp_sum_jvp(k, &xs, 0.0, &[1.0, 0.0, 0.0]);
    assert!(close(tx, k * (k * xs[0]).exp(), 1e-14));
}

/// A recursive higher-order function passing its function argument on: one type throughout.
#[revad::reverse]
#[revad::forward]
fn compose_n<F: Fn(f64) -> f64>(f: F, x: f64, n: usize) -> f64 {
    if n == 0 {
        x
    } else {
        let y = f(x);
        compose_n(f, y, n - 1)
    }
}

#[revad::reverse]
#[revad::forward]
fn damped(r: f64, x: f64) -> f64 {
    compose_n(|v| r * v.sin(), x, 4)
}

#[test]
fn recursive_higher_order_function() {
    let primal = |r: f64, x: f64| (0..4).fold(x, |v, _| r * v.sin());
    let (r, x) = (0.9, 1.2);
    let (value, (dr, dx)) = damped_grad(r, x);
    assert_eq!(value.to_bits(), primal(r, x).to_bits());
    assert_close(&[dr, dx], &fd(|p| primal(p[0], p[1]), &[r, x]), 1e-7);
    let (_, t) = damped_jvp(r, x, 1.0, 1.0);
    assert!(close(t, dr + dx, 1e-13));
}

/// `&dyn Fn(..)` and `fn(..)` parameters: given type parameters of their own, so they take
/// closures and annotated functions from annotated callers like `F: Fn(..)` does; the primal
/// still takes trait objects and function pointers.
#[revad::reverse]
#[revad::forward]
fn trapezoid(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    (f(a) + f(b)) * (b - a) / 2.0
}

#[revad::reverse]
#[revad::forward]
fn twice_fn(g: fn(f64) -> f64, x: f64) -> f64 {
    g(g(x))
}

#[revad::reverse]
#[revad::forward]
fn trapezoid_user(c: f64, b: f64) -> f64 {
    trapezoid(&|x| c * x * x, 0.5, b) + twice_fn(cube, c)
}

#[test]
fn dyn_fn_and_fn_pointer_parameters() {
    let primal = |c: f64, b: f64| (c * 0.25 + c * b * b) * (b - 0.5) / 2.0 + c.powi(9);
    let (c, b) = (0.8, 1.5);
    let (value, (dc, db)) = trapezoid_user_grad(c, b);
    assert!(close(value, primal(c, b), 1e-14));
    assert_close(&[dc, db], &fd(|p| primal(p[0], p[1]), &[c, b]), 1e-7);
    let (_, t) = trapezoid_user_jvp(c, b, 1.0, -1.0);
    assert!(close(t, dc - db, 1e-13));
    // The primal still takes a trait object and a function pointer.
    let square: &dyn Fn(f64) -> f64 = &|x| x * x;
    assert_eq!(trapezoid(square, 0.0, 2.0), 4.0);
    let half: fn(f64) -> f64 = |x| x / 2.0;
    assert_eq!(twice_fn(half, 8.0), 2.0);
}

/// Newton's method taking the function and its derivative as closures: the root's
/// derivative with respect to a captured parameter (the implicit function theorem's).
#[revad::reverse]
#[revad::forward]
fn newton<F: Fn(f64) -> f64, G: Fn(f64) -> f64>(f: F, df: G, x0: f64) -> f64 {
    let mut x = x0;
    for _ in 0..30 {
        x = x - f(x) / df(x);
    }
    x
}

#[revad::reverse]
#[revad::forward]
fn cube_root(a: f64) -> f64 {
    newton(|x| x * x * x - a, |x| 3.0 * x * x, 1.0)
}

#[test]
fn newton_root_derivative() {
    for &a in &[0.5, 5.0, 27.0] {
        let (r, d) = cube_root_grad(a);
        assert!(close(r, a.cbrt(), 1e-15));
        // d∛a/da = 1 / (3 a^(2/3)).
        assert!(close(d, 1.0 / (3.0 * a.cbrt().powi(2)), 1e-13), "{a}: {d}");
        assert!(close(cube_root_jvp(a, 1.0).1, d, 1e-13));
    }
}

/// A loop index of the caller captured (its integer type inferred) in each iteration.
#[revad::reverse]
fn map_sum<F: Fn(f64) -> f64>(f: F, xs: &[f64]) -> f64 {
    xs.iter().map(|&x| f(x)).sum()
}

#[revad::reverse]
fn loop_index_capture(c: f64, xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for k in 0..3 {
        total += map_sum(|x| x * (k as f64) * c, xs);
    }
    total
}

#[test]
fn captured_loop_index() {
    // Σ_k Σ_i x_i k c = 3 c Σ x_i: d/dc = 3 Σ x_i, d/dx_i = 3 c.
    let xs = [1.0, 2.0, 3.0];
    let (value, (dc, dxs)) = loop_index_capture_grad(2.0, &xs);
    assert_eq!(value, 36.0);
    assert_eq!(dc, 18.0);
    assert_eq!(dxs, vec![6.0; 3]);
}

/// `fn(f32) -> f32` parameters take annotated `f32` functions by name, as `fn(f64) -> f64`
/// ones take `f64` functions, in both modes.
#[revad::reverse]
#[revad::forward]
fn square32(x: f32) -> f32 {
    x * x
}

#[revad::reverse]
#[revad::forward]
fn twice32(g: fn(f32) -> f32, x: f32) -> f32 {
    g(g(x)) + x
}

#[revad::reverse]
#[revad::forward]
fn fourth32(x: f32) -> f32 {
    twice32(square32, x)
}

#[test]
fn fn_pointer_parameter_of_f32() {
    let x = 1.5f32;
    let (value, d) = fourth32_grad(x);
    assert_eq!(value.to_bits(), (x * x * (x * x) + x).to_bits());
    // d/dx (x⁴ + x) = 4x³ + 1
    assert!((d - (4.0 * x * x * x + 1.0)).abs() < 1e-5);
    let (_, t) = fourth32_jvp(x, 2.0);
    assert!((t - 2.0 * d).abs() < 1e-5);
    // The primal still takes any function pointer.
    let half: fn(f32) -> f32 = |x| x / 2.0;
    assert_eq!(twice32(half, 8.0), 10.0);
}

/// A closure with an early `return`, passed to a function: lifted into a function of its own,
/// which returns early as annotated functions do.
#[revad::reverse]
fn moment_with_return(c: f64, b: f64) -> f64 {
    integrate(
        |x| {
            if x > 0.5 {
                return c * x;
            }
            c * x * x
        },
        0.0,
        b,
    ) * c
}

#[test]
fn closures_with_returns_passed_to_functions() {
    for p in [[0.8, 1.3], [1.7, 0.4]] {
        let f = |p: &[f64]| moment_with_return(p[0], p[1]);
        let (v, (dc, db)) = moment_with_return_grad(p[0], p[1]);
        assert_eq!(v.to_bits(), f(&p).to_bits());
        let want = fd(f, &p);
        assert!(close(dc, want[0], 1e-6), "{dc} against {}", want[0]);
        assert!(close(db, want[1], 1e-6), "{db} against {}", want[1]);
    }
}

#[revad::reverse]
fn applied_to_two(f: impl Fn(f64, f64) -> f64, a: f64, b: f64) -> f64 {
    f(a, b) * 2.0
}

/// A closure that ignores an argument (`|_, b| ..`), passed to an annotated function.
#[revad::reverse]
fn ignoring_the_first(x: f64, y: f64) -> f64 {
    applied_to_two(|_, b| b * x, y, x * y)
}

#[test]
fn closures_ignoring_arguments_passed_to_functions() {
    // 2 x² y
    assert_eq!(ignoring_the_first_grad(2.0, 3.0), (24.0, (24.0, 8.0)));
}

/// A rate held in a struct parameter: a closure passed to a function captures floats, so the
/// field is bound first, with its type (`let k: f64 = p.k;`; without it the `let` names the
/// part, which the lifted closure cannot take: `tests/ui/closure-capture-struct-param.rs`).
#[derive(Clone, revad::Adjoint)]
pub struct Decay {
    /// The rate.
    pub k: f64,
}

#[revad::reverse]
fn decayed(p: &Decay, c: f64) -> f64 {
    let k: f64 = p.k;
    integrate(|x| c * (-k * x).exp(), 0.0, 1.0)
}

#[test]
fn a_struct_field_bound_first_is_captured() {
    let p = Decay { k: 0.7 };
    let (value, (dp, dc)) = decayed_grad(&p, 2.0);
    assert_eq!(value, decayed(&p, 2.0));
    let h = 1e-6;
    let fd_k =
        (decayed(&Decay { k: 0.7 + h }, 2.0) - decayed(&Decay { k: 0.7 - h }, 2.0)) / (2.0 * h);
    let fd_c = (decayed(&p, 2.0 + h) - decayed(&p, 2.0 - h)) / (2.0 * h);
    assert!(close(dp.k, fd_k, 1e-6), "{} vs {fd_k}", dp.k);
    assert!(close(dc, fd_c, 1e-6), "{dc} vs {fd_c}");
}

/// A function argument of two floats.
#[revad::reverse]
fn apply_pair<F: Fn(f64, f64) -> f64>(f: F, x: f64, y: f64) -> f64 {
    f(x, y) + x
}

/// Intrinsics passed by their paths (`f64::sin`, `f64::hypot`): closures that call them.
#[revad::reverse]
fn intrinsics_by_path(x: f64, y: f64) -> f64 {
    integrate(f64::sin, 0.0, x) + apply_pair(f64::hypot, x, y)
}

#[test]
fn an_intrinsic_passed_by_its_path() {
    let (x, y) = (0.3, 0.4);
    let (value, (dx, dy)) = intrinsics_by_path_grad(x, y);
    assert_eq!(value, intrinsics_by_path(x, y));
    let h = 1e-6;
    let fd_x = (intrinsics_by_path(x + h, y) - intrinsics_by_path(x - h, y)) / (2.0 * h);
    assert!(close(dx, fd_x, 1e-6), "{dx} vs {fd_x}");
    assert!(close(dy, y / x.hypot(y), 1e-12), "{dy}");
}
