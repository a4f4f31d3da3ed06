//! Functions generic over an array length (`fn f<const N: usize>(x: [f64; N])`), alone and
//! with a float type parameter: their gradients at several lengths against closed forms, calls
//! between them, an array result through `_vjp`, the jvp of `#[forward]`, a method of a struct
//! generic over its length, and the function passed as a value.

use revad::num_traits::Float;
use revad::{forward, reverse};

/// `|a - b| <= tol * max(|b|, 1)`.
fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
}

fn close_all(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(b) {
        close(*a, *b);
    }
}

/// The Euclidean norm, over a length the caller's array gives.
#[reverse]
#[forward]
#[allow(
    clippy::needless_range_loop,
    reason = "the length parameter as the bound, as such code is written"
)]
fn norm<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i];
    }
    s.sqrt()
}

#[test]
fn a_length_parameter_at_three_lengths() {
    let (v, g) = norm_grad([3.0, 4.0]);
    close(v, 5.0);
    close_all(&g, &[0.6, 0.8]);
    let x = [1.0, -2.0, 2.0, 4.0, 0.5];
    let r = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let (v, g) = norm_grad(x);
    close(v, r);
    close_all(&g, &x.map(|v| v / r));
    let (v, g) = norm_grad([-7.0]);
    close(v, 7.0);
    close_all(&g, &[-1.0]);
    // The jvp along e1 is the first partial.
    let (v, t) = norm_jvp(x, [1.0, 0.0, 0.0, 0.0, 0.0]);
    close(v, r);
    close(t, x[0] / r);
}

/// A second array of the same length, by reference, and a call of `norm` at that length.
#[reverse]
fn dot_plus_norm<const N: usize>(a: [f64; N], b: &[f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += a[i] * b[i];
    }
    s * norm(a)
}

#[test]
fn a_caller_passes_its_length_on() {
    let a = [1.0, 2.0, 2.0];
    let b = [0.5, -1.0, 3.0];
    let (v, (ga, gb)) = dot_plus_norm_grad(a, &b);
    // s = 4.5, |a| = 3: d/da = b |a| + s a / |a|, d/db = a |a|.
    close(v, 13.5);
    close_all(&ga, &[0.5 * 3.0 + 1.5, -3.0 + 3.0, 9.0 + 3.0]);
    close_all(&gb, &[3.0, 6.0, 6.0]);
}

/// A float type parameter and a length: the mean square.
#[reverse]
fn mean_square<T: Float, const N: usize>(x: [T; N]) -> T {
    let mut s = T::zero();
    for v in x.iter() {
        s = s + *v * *v;
    }
    s / T::from(N).unwrap()
}

#[test]
fn a_float_type_and_a_length() {
    let (v, g) = mean_square_grad([1.0_f64, 2.0, 3.0, 4.0]);
    close(v, 7.5);
    close_all(&g, &[0.5, 1.0, 1.5, 2.0]);
    let (v, g) = mean_square_grad([2.0_f32, -1.0]);
    assert_eq!(v, 2.5);
    assert_eq!(g, [2.0, -1.0]);
}

/// An array of the parameter's length built in the body, and returned.
#[reverse]
fn affine<const N: usize>(x: [f64; N], k: f64) -> [f64; N] {
    let mut y = [0.0; N];
    for i in 0..N {
        y[i] = x[i] * k + N as f64;
    }
    y
}

#[test]
fn an_array_result_of_the_length() {
    let (y, (gx, gk)) = affine_vjp([1.0, 2.0, -1.0], 3.0, [1.0, 0.5, 2.0]);
    assert_eq!(y, [6.0, 9.0, 0.0]);
    // ∂/∂x_i = k seed_i; ∂/∂k = Σ x_i seed_i.
    close_all(&gx, &[3.0, 1.5, 6.0]);
    close(gk, 1.0 + 1.0 - 2.0);
}

/// A caller of `affine` that keeps its result for the reverse sweep, with its type written (the
/// macro cannot name the type of a const-generic function's result: `tests/ui/
/// const-generic-call-result.rs`); and one inside a loop.
#[reverse]
fn calls_affine(x: [f64; 3], k: f64) -> f64 {
    let y: [f64; 3] = affine(x, k);
    let mut s = 0.0;
    for _ in 0..2 {
        let z: [f64; 3] = affine(y, k);
        s += z[0] * z[1] + z[2];
    }
    y[0] * y[2] + s
}

#[test]
fn a_caller_keeps_a_const_generic_result_typed() {
    let (x, k) = ([1.0, 2.0, -1.0], 0.5);
    let (value, (gx, gk)) = calls_affine_grad(x, k);
    assert_eq!(value, calls_affine(x, k));
    let f = |x: [f64; 3], k: f64| calls_affine(x, k);
    let h = 1e-6;
    for i in 0..3 {
        let (mut a, mut b) = (x, x);
        a[i] += h;
        b[i] -= h;
        let fd = (f(a, k) - f(b, k)) / (2.0 * h);
        assert!(
            (fd - gx[i]).abs() <= 1e-6 * gx[i].abs().max(1.0),
            "{fd} vs {}",
            gx[i]
        );
    }
    let fd = (f(x, k + h) - f(x, k - h)) / (2.0 * h);
    assert!((fd - gk).abs() <= 1e-6 * gk.abs().max(1.0), "{fd} vs {gk}");
}

/// A polynomial whose degree is its type's length parameter.
#[derive(revad::Adjoint)]
struct Poly<const N: usize> {
    c: [f64; N],
}

#[reverse]
impl<const N: usize> Poly<N> {
    /// Horner's scheme, highest coefficient first.
    #[reverse]
    fn eval(&self, x: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..N {
            s = s * x + self.c[i];
        }
        s
    }
}

#[test]
fn a_method_of_a_type_generic_over_its_length() {
    let p = Poly { c: [1.0, 2.0, 3.0] };
    let (v, (gp, gx)) = p.eval_grad(2.0);
    close(v, 11.0);
    close_all(&gp.c, &[4.0, 2.0, 1.0]);
    close(gx, 2.0 * 2.0 + 2.0);
    let q = Poly { c: [0.5; 5] };
    let (_, (gq, gx)) = q.eval_grad(-1.5);
    close_all(&gq.c, &[5.0625, -3.375, 2.25, -1.5, 1.0]);
    // p' = 0.5 (4 x³ + 3 x² + 2 x + 1).
    close(gx, 0.5 * (4.0 * -3.375 + 3.0 * 2.25 + 2.0 * -1.5 + 1.0));
}

fn apply<F: Fn([f64; 2]) -> f64>(f: F, x: [f64; 2]) -> f64 {
    f(x)
}

#[test]
fn the_function_as_a_value() {
    close(apply(norm, [6.0, 8.0]), 10.0);
}
