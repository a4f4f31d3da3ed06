//! Programs in the style of other reverse-mode AD tools' test suites (Enzyme's integration
//! tests and Rust's `std::autodiff` tests, ADOL-C/Tapenade/CoDiPack examples, Stan math),
//! written as a Rust user would write them. Each gradient is compared with a closed form
//! derived by hand or with `revad::check::finite_difference`, and each primal returned by
//! `_grad`/`_vjp` with the plain function's, bit for bit.
#![allow(
    clippy::needless_range_loop,
    clippy::let_and_return,
    reason = "the programs are written as ported, index loops and all"
)]

use revad::{reverse, Float};
use std::f64::consts::PI;

/// `|a - b| <= tol * max(|b|, 1)`.
fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol * b.abs().max(1.0), "{a} vs {b}");
}

/// Every partial of `g` against central finite differences of `f` at `x` (relative 1e-6).
fn assert_fd(f: impl Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    let numeric = revad::check::finite_difference(f, x);
    assert_eq!(numeric.len(), g.len());
    for (i, (a, b)) in g.iter().zip(&numeric).enumerate() {
        assert!(
            (a - b).abs() <= 1e-6 * b.abs().max(1.0),
            "partial {i}: {a} (ad) vs {b} (fd)"
        );
    }
}

/// The same value, bit for bit.
fn same(a: f64, b: f64) {
    assert_eq!(a.to_bits(), b.to_bits(), "{a} vs {b}");
}

// ---- std::autodiff style: parameters by reference ---------------------------------------------

#[reverse]
fn square_ref(x: &f64) -> f64 {
    x * x
}

#[reverse]
fn square_deref(x: &f32) -> f32 {
    *x * *x
}

#[test]
fn square_through_a_reference() {
    let (v, dx) = square_ref_grad(&3.0);
    same(v, square_ref(&3.0));
    assert_eq!(dx, 6.0);
    let (v, dx) = square_deref_grad(&7.0);
    assert_eq!(v.to_bits(), square_deref(&7.0).to_bits());
    assert_eq!(dx, 14.0);
}

// ---- loops with early exit ----------------------------------------------------------------------

/// Enzyme's `sumtil`: a sum that stops after index `n`.
#[reverse]
fn sum_until(x: &[f64], n: usize) -> f64 {
    let mut ret = 0.0;
    for i in 0..x.len() {
        ret += x[i];
        if i == n {
            break;
        }
    }
    ret
}

#[test]
fn for_with_break_sums_a_prefix() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let (v, dx) = sum_until_grad(&x, 2);
    same(v, sum_until(&x, 2));
    assert_eq!(v, 6.0);
    assert_eq!(dx, vec![1.0, 1.0, 1.0, 0.0, 0.0]);
    let (_, dx) = sum_until_grad(&x, 10);
    assert_eq!(dx, vec![1.0; 5]);
}

/// A Taylor series for `cos` summed until the terms are negligible (Enzyme's `mycos`).
#[reverse]
fn taylor_cos(x: f64) -> f64 {
    let mut sum = 0.0;
    let mut term = 1.0;
    let mut k = 0;
    while term.abs() > 1e-16 {
        sum += term;
        let a = (2 * k + 1) as f64;
        let b = (2 * k + 2) as f64;
        term = -term * x * x / (a * b);
        k += 1;
    }
    sum
}

#[test]
fn while_loop_with_a_data_dependent_trip_count() {
    for x in [0.3, 1.2, -2.5] {
        let (v, dx) = taylor_cos_grad(x);
        same(v, taylor_cos(x));
        close(v, x.cos(), 1e-14);
        close(dx, -x.sin(), 1e-13);
    }
}

/// Newton's iteration for `sqrt(a)`, `loop` with `break` on convergence.
#[reverse]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a.max(1.0);
    let mut i = 0;
    loop {
        let next = 0.5 * (x + a / x);
        i += 1;
        if (next - x).abs() <= 1e-15 * x || i >= 100 {
            x = next;
            break;
        }
        x = next;
    }
    x
}

#[test]
fn loop_break_newton_iteration() {
    for a in [2.0, 10.0, 0.25] {
        let (v, da) = newton_sqrt_grad(a);
        same(v, newton_sqrt(a));
        close(v, a.sqrt(), 1e-15);
        close(da, 0.5 / a.sqrt(), 1e-12);
    }
}

/// `for` over a slice with `continue`: the sum of the squares of the positive entries.
#[reverse]
fn positive_squares(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        if v < 0.0 {
            continue;
        }
        s += v * v;
    }
    s
}

#[test]
fn for_with_continue_skips_entries() {
    let x = [1.5, -2.0, 3.0, -0.5];
    let (v, dx) = positive_squares_grad(&x);
    same(v, positive_squares(&x));
    assert_eq!(v, 1.5 * 1.5 + 9.0);
    assert_eq!(dx, vec![3.0, 0.0, 6.0, 0.0]);
}

/// Linear search: the first entry above a threshold, scaled; an early `return` from a loop.
#[reverse]
fn first_above(x: &[f64], t: f64) -> f64 {
    for i in 0..x.len() {
        if x[i] > t {
            return x[i] * t;
        }
    }
    t
}

#[test]
fn early_return_from_inside_a_loop() {
    let x = [0.5, 1.0, 3.0, 4.0];
    let (v, (dx, dt)) = first_above_grad(&x, 2.0);
    same(v, first_above(&x, 2.0));
    assert_eq!(v, 6.0);
    assert_eq!(dx, vec![0.0, 0.0, 2.0, 0.0]);
    assert_eq!(dt, 3.0);
    let (v, (dx, dt)) = first_above_grad(&x, 5.0);
    assert_eq!(v, 5.0);
    assert_eq!(dx, vec![0.0; 4]);
    assert_eq!(dt, 1.0);
}

// ---- nested loops -----------------------------------------------------------------------------

/// `trace(A A)` for a row-major `n × n` matrix: the gradient is `2 Aᵀ`.
#[reverse]
fn trace_of_square(a: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += a[i * n + j] * a[j * n + i];
        }
    }
    s
}

#[test]
fn nested_loops_over_a_flat_matrix() {
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
    let (v, da) = trace_of_square_grad(&a, 3);
    same(v, trace_of_square(&a, 3));
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(da[i * 3 + j], 2.0 * a[j * 3 + i]);
        }
    }
}

/// A triangular double loop over a `Vec<f64>`: `Σ_{i<j} x_i x_j`.
#[reverse]
fn pair_products(x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in (i + 1)..x.len() {
            s += x[i] * x[j];
        }
    }
    s
}

#[test]
fn triangular_loop_over_a_vec() {
    let x = vec![1.0, 2.0, 3.0, 4.0];
    let (v, dx) = pair_products_grad(x.clone());
    same(v, pair_products(x.clone()));
    let total: f64 = x.iter().sum();
    for i in 0..4 {
        assert_eq!(dx[i], total - x[i]);
    }
}

/// The cross product of two arrays, then its squared norm.
#[reverse]
fn cross_norm2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let c = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let mut s = 0.0;
    for k in 0..3 {
        s += c[k] * c[k];
    }
    s
}

#[test]
fn fixed_size_arrays_cross_product() {
    let a = [1.0, -2.0, 0.5];
    let b = [0.3, 4.0, -1.0];
    let (v, (da, db)) = cross_norm2_grad(a, b);
    same(v, cross_norm2(a, b));
    let f = |z: &[f64]| cross_norm2([z[0], z[1], z[2]], [z[3], z[4], z[5]]);
    let g: Vec<f64> = da.iter().chain(&db).copied().collect();
    assert_fd(f, &[a[0], a[1], a[2], b[0], b[1], b[2]], &g);
}

/// Forward substitution `L y = b` for a lower triangular `L` (row-major), written into `y`.
#[reverse]
fn forward_solve(l: &[f64], b: &[f64], y: &mut [f64]) {
    let n = b.len();
    for i in 0..n {
        let mut acc = b[i];
        for j in 0..i {
            acc -= l[i * n + j] * y[j];
        }
        y[i] = acc / l[i * n + i];
    }
}

#[test]
fn forward_substitution_into_an_out_buffer() {
    let l = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, -1.0, 0.5, 4.0];
    let b = [1.0, 2.0, 3.0];
    let seed = vec![0.3, -0.7, 1.1];
    let mut y = vec![0.0; 3];
    let ((), (dl, db, dy)) = forward_solve_vjp(&l, &b, &mut y, seed.clone());
    let mut y2 = vec![0.0; 3];
    forward_solve(&l, &b, &mut y2);
    assert_eq!(y, y2);
    assert_eq!(dy, vec![0.0; 3]);
    let f = |z: &[f64]| {
        let mut y = vec![0.0; 3];
        forward_solve(&z[..9], &z[9..], &mut y);
        y.iter().zip(&seed).map(|(a, b)| a * b).sum()
    };
    let at: Vec<f64> = l.iter().chain(&b).copied().collect();
    let g: Vec<f64> = dl.iter().chain(&db).copied().collect();
    assert_fd(f, &at, &g);
}

// ---- &mut buffers and in-place updates --------------------------------------------------------

/// In-place prefix sums.
#[reverse]
fn cumsum(x: &mut [f64]) {
    for i in 1..x.len() {
        x[i] += x[i - 1];
    }
}

#[test]
fn in_place_prefix_sums() {
    let mut x = vec![1.0, 2.0, 3.0, 4.0];
    let ((), dx) = cumsum_vjp(&mut x, vec![1.0, 0.0, 2.0, 1.0]);
    assert_eq!(x, vec![1.0, 3.0, 6.0, 10.0]);
    // ∂(Σ s_k y_k)/∂x_i = Σ_{k≥i} s_k
    assert_eq!(dx, vec![4.0, 3.0, 3.0, 1.0]);
}

/// A numerically stable softmax written in place (Stan's `softmax`).
#[reverse]
fn softmax_in_place(x: &mut [f64]) {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut total = 0.0;
    for i in 0..x.len() {
        x[i] = (x[i] - m).exp();
        total += x[i];
    }
    for i in 0..x.len() {
        x[i] /= total;
    }
}

#[test]
fn softmax_in_place_closed_form() {
    let x0 = [0.5, -1.0, 2.0];
    let seed = vec![1.0, 2.0, -0.5];
    let mut x = x0.to_vec();
    let ((), dx) = softmax_in_place_vjp(&mut x, seed.clone());
    let mut y = x0.to_vec();
    softmax_in_place(&mut y);
    assert_eq!(x, y);
    // J = diag(p) - p pᵀ, so dx = p ∘ (s - p·s)
    let ps: f64 = y.iter().zip(&seed).map(|(a, b)| a * b).sum();
    for i in 0..3 {
        close(dx[i], y[i] * (seed[i] - ps), 1e-14);
    }
}

/// Enzyme's `readwriteread`: helpers reading and writing through references.
#[reverse]
fn read_square(x: &f64) -> f64 {
    *x * *x
}

#[reverse]
fn write_scaled(x: &mut f64, p: f64) {
    *x *= p;
}

#[reverse]
fn read_write_read(x: f64) -> f64 {
    let mut y = x;
    let p = read_square(&y);
    write_scaled(&mut y, p);
    y
}

#[test]
fn read_write_read_through_helpers() {
    let (v, dx) = read_write_read_grad(2.0);
    same(v, read_write_read(2.0));
    assert_eq!(v, 8.0);
    assert_eq!(dx, 12.0);
}

/// An explicit Euler integration of `y' = -k y` (Enzyme's `integrateexp`), the state in `&mut`.
#[reverse]
fn euler_decay(y: &mut f64, k: f64, dt: f64, steps: usize) {
    for _ in 0..steps {
        *y -= dt * k * *y;
    }
}

#[test]
fn euler_steps_through_a_mut_scalar() {
    let (k, dt, n) = (0.7, 0.01, 50);
    let mut y = 2.0;
    let ((), (dy0, dk, ddt)) = euler_decay_vjp(&mut y, k, dt, n, 1.0);
    let r: f64 = 1.0 - dt * k;
    close(y, 2.0 * r.powi(50), 1e-14);
    close(dy0, r.powi(50), 1e-13);
    close(dk, 2.0 * 50.0 * r.powi(49) * -dt, 1e-12);
    close(ddt, 2.0 * 50.0 * r.powi(49) * -k, 1e-12);
}

// ---- growing containers -----------------------------------------------------------------------

/// Powers of `x` pushed onto a `Vec`, then summed: `Σ_{k<n} x^k`.
#[reverse]
fn geometric(x: f64, n: usize) -> f64 {
    let mut v = Vec::new();
    v.push(1.0);
    for i in 1..n {
        let last = v[i - 1];
        v.push(last * x);
    }
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i];
    }
    s
}

#[test]
fn vec_push_growth() {
    let (v, dx) = geometric_grad(0.5, 6);
    same(v, geometric(0.5, 6));
    let expect: f64 = (1..6).map(|k| k as f64 * 0.5_f64.powi(k - 1)).sum();
    close(dx, expect, 1e-15);
}

/// Running maxima collected into a new vector, returned.
#[reverse]
fn running_max(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    let mut m = x[0];
    for i in 0..x.len() {
        m = m.max(x[i]);
        out.push(m);
    }
    out
}

#[test]
fn returned_vec_built_by_push() {
    let x = [1.0, 3.0, 2.0, 5.0, 4.0];
    let (v, dx) = running_max_vjp(&x, vec![1.0, 1.0, 1.0, 1.0, 1.0]);
    assert_eq!(v, running_max(&x));
    assert_eq!(v, vec![1.0, 3.0, 3.0, 5.0, 5.0]);
    assert_eq!(dx, vec![1.0, 2.0, 0.0, 2.0, 0.0]);
}

// ---- structs and methods ----------------------------------------------------------------------

/// A linear spring.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Spring {
    /// Stiffness.
    pub k: f64,
    /// Rest length.
    pub rest: f64,
}

impl Spring {
    /// The force at extension `x`.
    #[reverse]
    pub fn force(&self, x: f64) -> f64 {
        -self.k * (x - self.rest)
    }

    /// The stored energy, through `force`.
    #[reverse]
    pub fn energy(&self, x: f64) -> f64 {
        -0.5 * self.force(x) * (x - self.rest)
    }
}

#[test]
fn methods_calling_methods() {
    let s = Spring { k: 3.0, rest: 1.0 };
    let (v, (ds, dx)) = s.energy_grad(2.5);
    same(v, s.energy(2.5));
    assert_eq!(v, 0.5 * 3.0 * 1.5 * 1.5);
    assert_eq!(ds.k, 0.5 * 1.5 * 1.5);
    assert_eq!(ds.rest, -3.0 * 1.5);
    assert_eq!(dx, 3.0 * 1.5);
}

/// A polynomial with its coefficients in a `Vec` field, evaluated by Horner's scheme.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Poly {
    /// Coefficients, constant term first.
    pub c: Vec<f64>,
}

impl Poly {
    /// `Σ c_k x^k`.
    #[reverse]
    pub fn eval(&self, x: f64) -> f64 {
        let mut acc = 0.0;
        for k in (0..self.c.len()).rev() {
            acc = acc * x + self.c[k];
        }
        acc
    }
}

#[test]
fn horner_method_on_a_vec_field() {
    let p = Poly {
        c: vec![1.0, -2.0, 0.5, 3.0],
    };
    let x = 0.7;
    let (v, (dp, dx)) = p.eval_grad(x);
    same(v, p.eval(x));
    for k in 0..4 {
        close(dp.c[k], x.powi(k as i32), 1e-15);
    }
    close(dx, -2.0 + 2.0 * 0.5 * x + 3.0 * 3.0 * x * x, 1e-14);
}

// ---- generic functions ------------------------------------------------------------------------

/// The extended Rosenbrock function over a generic float.
#[reverse]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let mut s = T::ZERO;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::ONE - x[i];
        s += T::from_f64(100.0) * a * a + b * b;
    }
    s
}

#[test]
fn generic_rosenbrock_at_both_precisions() {
    let x = [-1.2, 1.0, 0.5, 2.0];
    let (v, dx) = rosenbrock_grad(&x[..]);
    same(v, rosenbrock(&x[..]));
    assert_fd(rosenbrock::<f64>, &x, &dx);
    let x32 = x.map(|a| a as f32);
    let (v, dx32) = rosenbrock_grad(&x32[..]);
    assert_eq!(v.to_bits(), rosenbrock(&x32[..]).to_bits());
    for i in 0..4 {
        close(f64::from(dx32[i]), dx[i], 1e-5);
    }
}

// ---- calls and recursion ------------------------------------------------------------------------

#[reverse]
fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Logistic regression's negative log-likelihood of one sample.
#[reverse]
fn logistic_loss(w: &[f64], x: &[f64], y: f64) -> f64 {
    let mut z = 0.0;
    for i in 0..w.len() {
        z += w[i] * x[i];
    }
    let p = sigmoid(z);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

#[test]
fn logistic_regression_through_a_call() {
    let w = [0.5, -0.3, 0.8];
    let x = [1.0, 2.0, -0.5];
    let (v, (dw, dx, dy)) = logistic_loss_grad(&w, &x, 1.0);
    same(v, logistic_loss(&w, &x, 1.0));
    let z: f64 = w.iter().zip(&x).map(|(a, b)| a * b).sum();
    let p = 1.0 / (1.0 + (-z).exp());
    for i in 0..3 {
        close(dw[i], (p - 1.0) * x[i], 1e-14);
        close(dx[i], (p - 1.0) * w[i], 1e-14);
    }
    close(dy, -(p.ln() - (1.0 - p).ln()), 1e-14);
}

/// `x^n` by recursion.
#[reverse]
fn pow_rec(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * pow_rec(x, n - 1)
    }
}

/// A binary recursion tree: two recursive calls per level.
#[reverse]
fn tree(x: f64, depth: u32) -> f64 {
    if depth == 0 {
        return x;
    }
    tree(x.sin(), depth - 1) + tree(0.5 * x, depth - 1)
}

#[test]
fn recursion_linear_and_binary() {
    let (v, dx) = pow_rec_grad(1.3, 7);
    same(v, pow_rec(1.3, 7));
    close(dx, 7.0 * 1.3_f64.powi(6), 1e-14);
    let (v, dx) = tree_grad(0.8, 4);
    same(v, tree(0.8, 4));
    assert_fd(|z| tree(z[0], 4), &[0.8], &[dx]);
}

// ---- iterator chains ----------------------------------------------------------------------------

#[reverse]
fn dot_zip(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y.iter()).map(|(a, b)| a * b).sum()
}

/// Speelpenning's product (ADOL-C's classic example), as a `fold`.
#[reverse]
fn speelpenning(x: &[f64]) -> f64 {
    x.iter().fold(1.0, |acc, v| acc * v)
}

#[reverse]
fn product_of(x: &[f64]) -> f64 {
    x.iter().product()
}

#[reverse]
fn weighted_by_index(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, v)| (i as f64 + 1.0) * v * v)
        .sum::<f64>()
}

#[test]
fn iterator_chains() {
    let x = [1.5, -2.0, 0.5, 3.0];
    let y = [0.2, 0.4, -1.0, 2.0];
    let (v, (dx, dy)) = dot_zip_grad(&x, &y);
    same(v, dot_zip(&x, &y));
    assert_eq!(dx, y.to_vec());
    assert_eq!(dy, x.to_vec());

    let (v, dx) = speelpenning_grad(&x);
    same(v, speelpenning(&x));
    let (v2, dx2) = product_of_grad(&x);
    same(v2, product_of(&x));
    for i in 0..4 {
        let others: f64 = (0..4).filter(|&j| j != i).map(|j| x[j]).product();
        close(dx[i], others, 1e-15);
        close(dx2[i], others, 1e-15);
    }

    let (v, dx) = weighted_by_index_grad(&x);
    same(v, weighted_by_index(&x));
    for i in 0..4 {
        assert_eq!(dx[i], 2.0 * (i as f64 + 1.0) * x[i]);
    }
}

/// `iter().copied()` and a path to an intrinsic passed to `map`.
#[reverse]
fn sum_exp(x: &[f64]) -> f64 {
    x.iter().copied().map(f64::exp).sum()
}

/// Stan's `log_sum_exp`, the maximum found with a `fold` over `f64::max`.
#[reverse]
fn log_sum_exp(x: &[f64]) -> f64 {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
    m + s.ln()
}

#[test]
fn copied_and_fold_with_max() {
    let x = [0.5, 2.0, -1.0];
    let (v, dx) = sum_exp_grad(&x);
    same(v, sum_exp(&x));
    for i in 0..3 {
        assert_eq!(dx[i], x[i].exp());
    }
    let (v, dx) = log_sum_exp_grad(&x);
    same(v, log_sum_exp(&x));
    let total: f64 = x.iter().map(|a| a.exp()).sum();
    for i in 0..3 {
        close(dx[i], x[i].exp() / total, 1e-14);
    }
}

/// The Euclidean norm as a one-liner.
#[reverse]
fn norm2(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[test]
fn turbofish_sum_then_sqrt() {
    let x = [3.0, 4.0, 12.0];
    let (v, dx) = norm2_grad(&x);
    same(v, norm2(&x));
    assert_eq!(v, 13.0);
    for i in 0..3 {
        close(dx[i], x[i] / 13.0, 1e-15);
    }
}

/// `for (i, v) in ..enumerate()` and `for (a, b) in ..zip(..)` statements.
#[reverse]
fn enumerate_zip_loops(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate() {
        s += (i as f64) * v;
    }
    for (a, b) in x.iter().zip(y) {
        s += a * b * b;
    }
    s
}

#[test]
fn for_statements_over_iterator_adaptors() {
    let x = [1.0, 2.0, 3.0];
    let y = [0.5, -1.0, 2.0];
    let (v, (dx, dy)) = enumerate_zip_loops_grad(&x, &y);
    same(v, enumerate_zip_loops(&x, &y));
    for i in 0..3 {
        assert_eq!(dx[i], i as f64 + y[i] * y[i]);
        assert_eq!(dy[i], 2.0 * x[i] * y[i]);
    }
}

// ---- match, early return, intrinsics ---------------------------------------------------------

#[reverse]
fn piecewise(x: f64, k: u8) -> f64 {
    match k {
        0 => x.sin(),
        1 | 2 => x * x,
        _ => x.exp(),
    }
}

#[reverse]
fn safe_log(x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    x.ln()
}

#[test]
fn match_and_early_return() {
    let x = 0.7;
    assert_eq!(piecewise_grad(x, 0), (piecewise(x, 0), x.cos()));
    assert_eq!(piecewise_grad(x, 2), (piecewise(x, 2), 2.0 * x));
    assert_eq!(piecewise_grad(x, 9), (piecewise(x, 9), x.exp()));
    assert_eq!(safe_log_grad(-1.0), (0.0, 0.0));
    let (v, dx) = safe_log_grad(2.0);
    same(v, safe_log(2.0));
    assert_eq!(dx, 0.5);
}

/// Many intrinsics in one expression.
#[reverse]
fn intrinsic_soup(x: f64, y: f64) -> f64 {
    let a = x.powi(3) + y.powf(1.5);
    let b = (x * y).exp() - (1.0 + y * y).ln() + x.hypot(y).sqrt();
    let c = y.atan2(x) + x.max(y) * x.min(0.5 * y) + (x - y).abs();
    let d = x.mul_add(y, 2.0) + (0.3 * x).tanh();
    a + b + c + d
}

#[test]
fn intrinsics_against_finite_differences() {
    for (x, y) in [(0.8, 1.7), (1.9, 0.4), (-0.6, 2.2)] {
        let (v, (dx, dy)) = intrinsic_soup_grad(x, y);
        same(v, intrinsic_soup(x, y));
        assert_fd(|z| intrinsic_soup(z[0], z[1]), &[x, y], &[dx, dy]);
    }
}

/// f32 end to end: a damped oscillator sample.
#[reverse]
fn damped(t: f32, omega: f32, zeta: f32) -> f32 {
    (-zeta * t).exp() * (omega * t).cos()
}

#[test]
fn f32_function() {
    let (t, w, z) = (0.7_f32, 3.0_f32, 0.4_f32);
    let (v, (dt, dw, dz)) = damped_grad(t, w, z);
    assert_eq!(v.to_bits(), damped(t, w, z).to_bits());
    let (t, w, z) = (f64::from(t), f64::from(w), f64::from(z));
    let e = (-z * t).exp();
    close(
        f64::from(dt),
        e * (-z * (w * t).cos() - w * (w * t).sin()),
        1e-5,
    );
    close(f64::from(dw), -e * t * (w * t).sin(), 1e-5);
    close(f64::from(dz), -t * e * (w * t).cos(), 1e-5);
}

/// Cartesian to polar, a tuple result.
#[reverse]
fn to_polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

#[test]
fn tuple_result_with_vjp() {
    let (x, y) = (3.0, 4.0);
    let ((r, th), (dx, dy)) = to_polar_vjp(x, y, (1.0, 0.0));
    assert_eq!((r, th), to_polar(x, y));
    close(dx, 0.6, 1e-15);
    close(dy, 0.8, 1e-15);
    let (_, (dx, dy)) = to_polar_vjp(x, y, (0.0, 1.0));
    close(dx, -y / 25.0, 1e-15);
    close(dy, x / 25.0, 1e-15);
}

// ---- views: sub-slices, swap --------------------------------------------------

/// The sum over the interior of a slice, through a sub-slice.
#[reverse]
fn interior_sum(x: &[f64]) -> f64 {
    let inner = &x[1..x.len() - 1];
    let mut s = 0.0;
    for v in inner {
        s += v * v;
    }
    s
}

#[test]
fn sub_slice_view() {
    let x = [1.0, 2.0, 3.0, 4.0];
    let (v, dx) = interior_sum_grad(&x);
    same(v, interior_sum(&x));
    assert_eq!(dx, vec![0.0, 4.0, 6.0, 0.0]);
}

/// Bubble sort on a copy (Enzyme's sort tests), then a position-weighted sum.
#[reverse]
fn sorted_weighted(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let n = v.len();
    for i in 0..n {
        for j in 0..n - 1 - i {
            if v[j] > v[j + 1] {
                v.swap(j, j + 1);
            }
        }
    }
    let mut s = 0.0;
    for i in 0..n {
        s += (i as f64 + 1.0) * v[i];
    }
    s
}

#[test]
fn bubble_sort_with_swap() {
    let x = [3.0, 1.0, 4.0, 1.5, -2.0];
    let (v, dx) = sorted_weighted_grad(&x);
    same(v, sorted_weighted(&x));
    // ranks: -2 → 1, 1 → 2, 1.5 → 3, 3 → 4, 4 → 5
    assert_eq!(dx, vec![4.0, 2.0, 5.0, 3.0, 1.0]);
}

/// Insertion sort with a `while` whose condition reads the data.
#[reverse]
fn insertion_sorted_top(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for i in 1..v.len() {
        let key = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > key {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = key;
    }
    v[v.len() - 1] * 2.0 + v[0]
}

#[test]
fn insertion_sort_while_reads_the_data() {
    let x = [3.0, 1.0, 4.0, 1.5];
    let (v, dx) = insertion_sorted_top_grad(&x);
    same(v, insertion_sorted_top(&x));
    assert_eq!(v, 9.0);
    assert_eq!(dx, vec![0.0, 1.0, 2.0, 0.0]);
}

// ---- constants, shadowing, casts, integer state -----------------------------------------------

const TWO: f64 = 2.0;

/// A normal density (Stan's `normal_lpdf`, not on the log scale), with `PI` and a `const`.
#[reverse]
fn normal_pdf(x: f64, mu: f64, sigma: f64) -> f64 {
    let z = (x - mu) / sigma;
    (-z * z / TWO).exp() / (sigma * (2.0 * PI).sqrt())
}

#[test]
fn consts_and_std_constants() {
    let (x, mu, s) = (0.4, -0.2, 1.3);
    let (v, (dx, dmu, ds)) = normal_pdf_grad(x, mu, s);
    same(v, normal_pdf(x, mu, s));
    let z = (x - mu) / s;
    close(dx, -v * z / s, 1e-14);
    close(dmu, v * z / s, 1e-14);
    close(ds, v * (z * z - 1.0) / s, 1e-14);
}

/// Shadowing a parameter several times.
#[reverse]
fn shadowed(x: f64) -> f64 {
    let x = x * 2.0;
    let x = x.sin();
    let x = x * x;
    x
}

#[test]
fn shadowing_a_parameter() {
    let (v, dx) = shadowed_grad(0.3);
    same(v, shadowed(0.3));
    close(dx, 2.0 * 0.6_f64.sin() * 0.6_f64.cos() * 2.0, 1e-15);
}

/// Integer state driving the arithmetic: every third step doubles.
#[reverse]
fn counted(x: f64, n: usize) -> f64 {
    let mut k = 0usize;
    let mut s = 0.0;
    let mut p = x;
    while k < n {
        if k % 3 == 2 {
            p *= 2.0;
        }
        s += p * (k as f64);
        k += 1;
    }
    s + (n as f64) * x
}

#[test]
fn integer_counters_and_casts() {
    let (v, dx) = counted_grad(1.5, 7);
    same(v, counted(1.5, 7));
    // p_k = x·2^{⌊(k+1)/3⌋}
    let expect: f64 = (0..7)
        .map(|k: i32| 2f64.powi((k + 1) / 3) * k as f64)
        .sum::<f64>()
        + 7.0;
    assert_eq!(dx, expect);
}

/// The mean and the variance of a sample (Stan), returned as a tuple.
#[reverse]
fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let mut ss = 0.0;
    for v in x {
        ss += (v - mean) * (v - mean);
    }
    (mean, ss / (n - 1.0))
}

#[test]
fn sample_mean_and_variance() {
    let x = [1.0, 2.0, 4.0, 7.0];
    let ((m, var), dx) = mean_var_vjp(&x, (0.0, 1.0));
    assert_eq!((m, var), mean_var(&x));
    for i in 0..4 {
        close(dx[i], 2.0 * (x[i] - m) / 3.0, 1e-15);
    }
    let (_, dx) = mean_var_vjp(&x, (1.0, 0.0));
    assert_eq!(dx, vec![0.25; 4]);
}

/// A local closure called twice.
#[reverse]
fn local_closure(x: f64, y: f64) -> f64 {
    let sq = |v: f64| v * v;
    sq(x) + sq(x - y)
}

#[test]
fn closure_defined_and_called_locally() {
    let (v, (dx, dy)) = local_closure_grad(2.0, 0.5);
    same(v, local_closure(2.0, 0.5));
    assert_eq!(dx, 4.0 + 3.0);
    assert_eq!(dy, -3.0);
}

/// Simpson's rule for `∫_0^a sin(k t) dt` (Enzyme's integration examples).
#[reverse]
fn simpson_sin(a: f64, k: f64, n: usize) -> f64 {
    let h = a / (n as f64);
    let mut s = (k * 0.0).sin() + (k * a).sin();
    for i in 1..n {
        let t = h * (i as f64);
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        s += w * (k * t).sin();
    }
    s * h / 3.0
}

#[test]
fn simpson_quadrature() {
    let (a, k) = (1.2, 1.7);
    let (v, (da, dk)) = simpson_sin_grad(a, k, 64);
    same(v, simpson_sin(a, k, 64));
    close(v, (1.0 - (k * a).cos()) / k, 1e-8);
    close(da, (k * a).sin(), 1e-7);
    assert_fd(|z| simpson_sin(z[0], z[1], 64), &[a, k], &[da, dk]);
}

// ---- more control flow ------------------------------------------------------------------------

/// Reverse and stepped ranges.
#[reverse]
fn alternating_tail(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev() {
        s = s * 0.5 + x[i];
    }
    for i in (0..x.len()).step_by(2) {
        s += x[i] * x[i];
    }
    s
}

#[test]
fn rev_and_step_by_ranges() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let (v, dx) = alternating_tail_grad(&x);
    same(v, alternating_tail(&x));
    for i in 0..5 {
        let horner = 0.5_f64.powi(i as i32);
        let sq = if i % 2 == 0 { 2.0 * x[i] } else { 0.0 };
        assert_eq!(dx[i], horner + sq);
    }
}

/// A `match` on integer ranges inside a loop.
#[reverse]
fn banded(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let w = match i {
            0 => 1.0,
            1..=2 => x[i],
            _ => x[i].sin(),
        };
        s += w * x[i];
    }
    s
}

#[test]
fn match_on_integer_ranges_in_a_loop() {
    let x = [0.5, 1.5, -2.0, 0.7];
    let (v, dx) = banded_grad(&x);
    same(v, banded(&x));
    assert_fd(banded, &x, &dx);
}

/// Mutual recursion between two annotated functions.
#[reverse]
fn ping(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        pong(x * 1.5, n - 1)
    }
}

#[reverse]
fn pong(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        ping(x.sin(), n - 1)
    }
}

#[test]
fn mutual_recursion() {
    let (v, dx) = ping_grad(0.4, 5);
    same(v, ping(0.4, 5));
    assert_fd(|z| ping(z[0], 5), &[0.4], &[dx]);
}

// ---- in place, aliasing ------------------------------------------------------------------------

/// Gauss–Seidel sweeps for a diagonally dominant system, in place: each update reads entries
/// already updated in the same sweep (and `y[i]` itself, when `j == i` is skipped).
#[reverse]
fn gauss_seidel(a: &[f64], b: &[f64], y: &mut [f64], sweeps: usize) {
    let n = b.len();
    for _ in 0..sweeps {
        for i in 0..n {
            let mut r = b[i];
            for j in 0..n {
                if j != i {
                    r -= a[i * n + j] * y[j];
                }
            }
            y[i] = r / a[i * n + i];
        }
    }
}

#[test]
fn gauss_seidel_in_place() {
    let a = [4.0, 1.0, 0.5, 1.0, 5.0, -1.0, 0.5, -1.0, 3.0];
    let b = [1.0, 2.0, -1.0];
    let y0 = [0.1, 0.2, 0.3];
    let seed = vec![1.0, -2.0, 0.5];
    let mut y = y0.to_vec();
    let ((), (da, db, dy0)) = gauss_seidel_vjp(&a, &b, &mut y, 4, seed.clone());
    let mut y2 = y0.to_vec();
    gauss_seidel(&a, &b, &mut y2, 4);
    assert_eq!(y, y2);
    let f = |z: &[f64]| {
        let mut y = z[12..].to_vec();
        gauss_seidel(&z[..9], &z[9..12], &mut y, 4);
        y.iter().zip(&seed).map(|(p, q)| p * q).sum()
    };
    let at: Vec<f64> = a.iter().chain(&b).chain(&y0).copied().collect();
    let g: Vec<f64> = da.iter().chain(&db).chain(&dy0).copied().collect();
    assert_fd(f, &at, &g);
}

/// `x[i] *= x[j]` where `i == j` happens: a read and a write of the same element.
#[reverse]
fn self_products(x: &mut [f64], idx: &[usize]) {
    for k in 0..idx.len() {
        let i = idx[k];
        let j = idx[(k + 1) % idx.len()];
        x[i] *= x[j];
    }
}

#[test]
fn aliased_compound_assignment() {
    let x0 = [1.5, -0.5, 2.0];
    let idx = [0, 0, 2, 1, 1];
    let seed = vec![0.3, 1.0, -0.7];
    let mut x = x0.to_vec();
    let ((), dx) = self_products_vjp(&mut x, &idx, seed.clone());
    let mut x2 = x0.to_vec();
    self_products(&mut x2, &idx);
    assert_eq!(x, x2);
    let f = |z: &[f64]| {
        let mut y = z.to_vec();
        self_products(&mut y, &idx);
        y.iter().zip(&seed).map(|(p, q)| p * q).sum()
    };
    assert_fd(f, &x0, &dx);
}

/// In-place reversal with `swap` on a `&mut [f64]` parameter, then a nonlinearity.
#[reverse]
fn reverse_then_square(x: &mut [f64]) {
    let n = x.len();
    for i in 0..n / 2 {
        x.swap(i, n - 1 - i);
    }
    for i in 0..n {
        x[i] = x[i] * x[i] * (i as f64 + 1.0);
    }
}

#[test]
fn swap_on_a_mut_parameter() {
    let x0 = [1.0, 2.0, 3.0, 4.0, 5.0];
    let seed = vec![1.0, 0.5, 0.25, 2.0, -1.0];
    let mut x = x0.to_vec();
    let ((), dx) = reverse_then_square_vjp(&mut x, seed.clone());
    let mut x2 = x0.to_vec();
    reverse_then_square(&mut x2);
    assert_eq!(x, x2);
    for i in 0..5 {
        let k = 4 - i;
        assert_eq!(dx[i], seed[k] * 2.0 * x0[i] * (k as f64 + 1.0));
    }
}

/// `iter_mut` updates, a gradient-descent step in place.
#[reverse]
fn sgd_step(w: &mut [f64], g: &[f64], lr: f64) -> f64 {
    for (wi, gi) in w.iter_mut().zip(g) {
        *wi -= lr * gi;
    }
    w.iter().map(|v| v * v).sum()
}

#[test]
fn iter_mut_update_then_read() {
    let w0 = [1.0, -2.0, 0.5];
    let g = [0.1, 0.4, -0.3];
    let mut w = w0.to_vec();
    let (v, (dw, dg, dlr)) = sgd_step_vjp(&mut w, &g, 0.5, 1.0, vec![0.0; 3]);
    let mut w2 = w0.to_vec();
    same(v, sgd_step(&mut w2, &g, 0.5));
    assert_eq!(w, w2);
    let mut lr_expect = 0.0;
    for i in 0..3 {
        assert_eq!(dw[i], 2.0 * w2[i]);
        assert_eq!(dg[i], -0.5 * 2.0 * w2[i]);
        lr_expect += -g[i] * 2.0 * w2[i];
    }
    close(dlr, lr_expect, 1e-15);
}

/// A `&mut self` method: a particle integrated with symplectic Euler in place.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Body1 {
    /// Position.
    pub x: f64,
    /// Velocity.
    pub v: f64,
}

impl Body1 {
    /// Steps under the force `-k x³`.
    #[reverse]
    pub fn step(&mut self, k: f64, dt: f64) {
        self.v -= dt * k * self.x * self.x * self.x;
        self.x += dt * self.v;
    }

    /// Runs `n` steps and returns the energy.
    #[reverse]
    pub fn run(&mut self, k: f64, dt: f64, n: usize) -> f64 {
        for _ in 0..n {
            self.step(k, dt);
        }
        0.5 * self.v * self.v + 0.25 * k * self.x.powi(4)
    }
}

#[test]
fn mut_self_methods_in_a_loop() {
    let b0 = Body1 { x: 0.8, v: -0.2 };
    let mut b = b0.clone();
    let (v, (db, dk, ddt)) = b.run_vjp(1.3, 0.05, 20, 1.0, Body1Adjoint { x: 0.0, v: 0.0 });
    let mut b2 = b0.clone();
    same(v, b2.run(1.3, 0.05, 20));
    assert_eq!((b.x, b.v), (b2.x, b2.v));
    let f = |z: &[f64]| {
        let mut b = Body1 { x: z[0], v: z[1] };
        b.run(z[2], z[3], 20)
    };
    assert_fd(f, &[0.8, -0.2, 1.3, 0.05], &[db.x, db.v, dk, ddt]);
}

// ---- growing, collecting, destructuring ---------------------------------------------------------

/// `map(..).collect::<Vec<f64>>()`, then a second pass.
#[reverse]
fn normalized_sq(x: &[f64]) -> f64 {
    let total: f64 = x.iter().sum();
    let y: Vec<f64> = x.iter().map(|v| v / total).collect();
    y.iter().map(|v| v * v).sum()
}

#[test]
fn collect_then_reuse() {
    let x = [1.0, 2.0, 3.0];
    let (v, dx) = normalized_sq_grad(&x);
    same(v, normalized_sq(&x));
    assert_fd(normalized_sq, &x, &dx);
}

/// Array and tuple destructuring, `sin_cos`.
#[reverse]
fn destructure(p: [f64; 3], theta: f64) -> f64 {
    let [a, b, c] = p;
    let (s, co) = theta.sin_cos();
    let (u, w) = (a * co - b * s, a * s + b * co);
    u * u * c + w
}

#[test]
fn array_and_tuple_destructuring() {
    let p = [0.5, -1.2, 2.0];
    let (v, (dp, dth)) = destructure_grad(p, 0.7);
    same(v, destructure(p, 0.7));
    let f = |z: &[f64]| destructure([z[0], z[1], z[2]], z[3]);
    assert_fd(f, &[0.5, -1.2, 2.0, 0.7], &[dp[0], dp[1], dp[2], dth]);
}

/// A 2×2 matrix as nested arrays: the determinant and the trace.
#[reverse]
fn det_plus_trace(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] * m[1][1] - m[0][1] * m[1][0] + m[0][0] + m[1][1]
}

#[test]
fn nested_fixed_arrays() {
    let m = [[1.0, 2.0], [3.0, 4.0]];
    let (v, dm) = det_plus_trace_grad(m);
    same(v, det_plus_trace(m));
    assert_eq!(dm, [[5.0, -3.0], [-2.0, 2.0]]);
}

/// Float casts inside `f32` code: the work in `f64`, the result in `f32`.
#[reverse]
fn widened(x: f32, y: f32) -> f32 {
    let a = x as f64;
    let b = f64::from(y);
    (a.exp() * b).sin() as f32
}

#[test]
fn f32_to_f64_casts_carry_derivatives() {
    let (v, (dx, dy)) = widened_grad(0.3, 1.1);
    assert_eq!(v.to_bits(), widened(0.3, 1.1).to_bits());
    let (a, b) = (f64::from(0.3_f32), f64::from(1.1_f32));
    let c = (a.exp() * b).cos();
    close(f64::from(dx), c * a.exp() * b, 1e-6);
    close(f64::from(dy), c * a.exp(), 1e-6);
}

/// A small dense layer with ReLU and a squared-error loss over a flat weight matrix.
#[reverse]
fn mlp_loss(w: &[f64], b: &[f64], v: &[f64], x: &[f64], target: f64) -> f64 {
    let hidden = b.len();
    let mut out = 0.0;
    for h in 0..hidden {
        let mut z = b[h];
        for i in 0..x.len() {
            z += w[h * x.len() + i] * x[i];
        }
        out += v[h] * z.max(0.0);
    }
    let e = out - target;
    0.5 * e * e
}

#[test]
fn relu_layer_against_finite_differences() {
    let w = [0.2, -0.5, 0.7, 0.1, -0.3, 0.9];
    let b = [0.1, -0.2, 0.05];
    let v = [1.0, -0.5, 2.0];
    let x = [0.8, -1.1];
    let (val, (dw, db, dv, dx, dt)) = mlp_loss_grad(&w, &b, &v, &x, 0.3);
    same(val, mlp_loss(&w, &b, &v, &x, 0.3));
    let f = |z: &[f64]| mlp_loss(&z[..6], &z[6..9], &z[9..12], &z[12..14], z[14]);
    let at: Vec<f64> = [&w[..], &b, &v, &x, &[0.3]].concat();
    let g: Vec<f64> = [&dw[..], &db, &dv, &dx, &[dt]].concat();
    assert_fd(f, &at, &g);
}

/// `exp_m1`, `ln_1p`, `sinh`, `cbrt`, `recip`, `log`, `exp2`: Stan-style special-function use.
#[reverse]
fn special_soup(x: f64, y: f64) -> f64 {
    x.exp_m1() * y.ln_1p() + (x * y).sinh().cbrt() + (1.0 + x * x).recip() + y.log(3.0 + x)
        - (0.5 * x).exp2()
}

#[test]
fn special_functions_against_finite_differences() {
    for (x, y) in [(0.3, 0.8), (1.1, 2.5)] {
        let (v, (dx, dy)) = special_soup_grad(x, y);
        same(v, special_soup(x, y));
        assert_fd(|z| special_soup(z[0], z[1]), &[x, y], &[dx, dy]);
    }
}

// ---- regressions: constructs accepted since this file was written --------------------------------

/// A float passed by shared reference to an annotated callee (`&x`, `&v[i]`, `&(a + b)`,
/// `&2.0`): the callee's `&f64` parameter, under every backend.
#[reverse]
#[revad::forward]
fn cube_ref(x: &f64) -> f64 {
    *x * *x * *x
}

#[reverse]
#[revad::forward]
fn ref_args(v: &[f64], y: f64) -> f64 {
    let mut s = cube_ref(&2.0) * y;
    for i in 0..v.len() {
        s += cube_ref(&v[i]);
    }
    let mut z = y;
    z *= 3.0;
    s + cube_ref(&z) + cube_ref(&(z - y))
}

#[reverse(cps)]
fn ref_args_cps(y: f64) -> f64 {
    let mut z = y;
    z *= 3.0;
    cube_ref(&y) + cube_ref(&z) + cube_ref(&(z - y))
}

#[test]
fn floats_passed_by_reference_to_callees() {
    let v = [0.5, -1.0];
    let y = 0.7;
    let (val, (dv, dy)) = ref_args_grad(&v, y);
    same(val, ref_args(&v, y));
    // s = 8y + Σ v³ + 27y³ + 8y³
    for i in 0..2 {
        assert_eq!(dv[i], 3.0 * v[i] * v[i]);
    }
    close(dy, 8.0 + 35.0 * 3.0 * y * y, 1e-14);
    let (val, t) = ref_args_jvp(&v, y, &[0.0, 0.0], 1.0);
    same(val, ref_args(&v, y));
    close(t, dy, 1e-14);
    let (val, dy) = ref_args_cps_grad(y);
    same(val, ref_args_cps(y));
    close(dy, 36.0 * 3.0 * y * y, 1e-14);
}

/// `f64::exp`, `f64::max` passed to `map`/`fold` by path, under the CPS backend and generic.
#[reverse(cps)]
fn log_sum_exp_cps(x: &[f64]) -> f64 {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x
        .iter()
        .copied()
        .map(f64::exp)
        .map(|e| e * (-m).exp())
        .sum();
    m + s.ln()
}

#[reverse]
fn max_of_sines<T: Float>(x: &[T]) -> T {
    x.iter().copied().map(T::sin).fold(-T::ONE, T::max)
}

#[test]
fn intrinsics_passed_by_path() {
    let x = [0.5, 2.0, -1.0];
    let (v, dx) = log_sum_exp_cps_grad(&x);
    same(v, log_sum_exp_cps(&x));
    let total: f64 = x.iter().map(|a| a.exp()).sum();
    for i in 0..3 {
        close(dx[i], x[i].exp() / total, 1e-14);
    }
    let x = [1.0_f32, 2.0, 0.5];
    let (v, dx) = max_of_sines_grad(&x[..]);
    assert_eq!(v.to_bits(), max_of_sines(&x[..]).to_bits());
    assert_eq!(dx, vec![0.0, 2.0_f32.cos(), 0.0]);
}

/// `sin_cos` in forward mode and in a generic function.
#[revad::forward]
fn rotate_x(x: f64, y: f64, t: f64) -> f64 {
    let (s, c) = t.sin_cos();
    x * c - y * s
}

#[reverse]
fn polar_sum<T: Float>(r: T, t: T) -> T {
    let (s, c) = t.sin_cos();
    r * (s + c)
}

#[test]
fn sin_cos_everywhere() {
    let (v, dt) = rotate_x_jvp(1.5, -0.5, 0.3, 0.0, 0.0, 1.0);
    same(v, rotate_x(1.5, -0.5, 0.3));
    close(dt, -1.5 * 0.3_f64.sin() + 0.5 * 0.3_f64.cos(), 1e-15);
    let (v, (dr, dt)) = polar_sum_grad(2.0_f64, 0.3);
    same(v, polar_sum(2.0, 0.3));
    assert_eq!(dr, 0.3_f64.sin() + 0.3_f64.cos());
    close(dt, 2.0 * (0.3_f64.cos() - 0.3_f64.sin()), 1e-15);
}
