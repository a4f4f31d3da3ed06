//! Forward mode for closures and generic functions: derivatives, Jacobian-vector products,
//! gradients, Jacobians and Hessians, by evaluating a function on dual numbers.
//!
//! The function is written once over [`Dual`] (or generically over `T: Float` and called with
//! `Dual`s); each function here seeds the tangents of the inputs, runs it, and reads the
//! tangents of the outputs. One evaluation gives the derivatives along one direction, so
//! forward mode suits functions of few inputs (reverse mode, `#[reverse]`, suits many inputs
//! and one output).
//!
//! Nested calls are safe: the inner call works on `Dual<Dual<T>>`, a type distinct from the
//! outer `Dual<T>`, so its tangents cannot be confused with the outer ones (Siskind and
//! Pearlmutter, "Perturbation confusion and referential transparency", 2005). The outer
//! variable enters the inner function lifted as a constant, `Dual::constant(x)`:
//!
//! ```
//! use revad_runtime::forward::derivative;
//! use revad_runtime::Dual;
//!
//! // d/dx [ x · (d/dy (x + y))|_{y=1} ] at x = 1 is 1, since d/dy (x + y) = 1.
//! let (_, d) = derivative(
//!     |x: Dual<f64>| {
//!         let (_, inner) = derivative(|y| Dual::constant(x) + y, Dual::constant(1.0));
//!         x * inner
//!     },
//!     1.0,
//! );
//! assert_eq!(d, 1.0); // a tape or a single perturbation would give 2
//! ```

use crate::{Dual, Float};

/// The value and the derivative of `f` at `x`: `(f(x), f′(x))`, in one evaluation.
///
/// ```
/// use revad_runtime::{forward, Float};
///
/// // d/dx (x² sin x) = 2x sin x + x² cos x.
/// let (y, dy) = forward::derivative(|x| x * x * x.sin(), 2.0_f64);
/// assert_eq!(y, 4.0 * 2.0_f64.sin());
/// assert!((dy - (4.0 * 2.0_f64.sin() + 4.0 * 2.0_f64.cos())).abs() < 1e-14);
/// ```
pub fn derivative<T: Float>(f: impl Fn(Dual<T>) -> Dual<T>, x: T) -> (T, T) {
    let y = f(Dual::variable(x));
    (y.re, y.eps)
}

/// The value of `f` at `x` and its directional derivative along `v`, the Jacobian-vector
/// product `∇f(x) · v`, in one evaluation.
///
/// # Panics
///
/// If `x` and `v` have different lengths.
///
/// ```
/// use revad_runtime::{forward, Dual};
///
/// // f(x, y) = x y², ∇f = (y², 2xy); at (3, 2) along (1, -1): 4 - 12 = -8.
/// let f = |p: &[Dual<f64>]| p[0] * p[1] * p[1];
/// assert_eq!(forward::jvp(f, &[3.0, 2.0], &[1.0, -1.0]), (12.0, -8.0));
/// ```
#[track_caller]
pub fn jvp<T: Float>(f: impl Fn(&[Dual<T>]) -> Dual<T>, x: &[T], v: &[T]) -> (T, T) {
    assert_eq!(
        x.len(),
        v.len(),
        "revad: forward::jvp needs one tangent per input"
    );
    let seeded: Vec<Dual<T>> = x.iter().zip(v).map(|(&x, &v)| Dual::new(x, v)).collect();
    let y = f(&seeded);
    (y.re, y.eps)
}

/// The value and the gradient of `f` at `x`.
///
/// Costs `n` evaluations of `f` on `Dual<T>` for `n` inputs (one per partial), and one when
/// `x` is empty; reverse mode (`#[reverse]`) costs a small multiple of one evaluation
/// whatever `n`. For a few inputs in one pass, run `f` on a
/// [`DualVec`](crate::DualVec) instead.
///
/// ```
/// use revad_runtime::{forward, Dual, Float};
///
/// // f(x, y) = x² y, ∇f = (2xy, x²).
/// let (y, g) = forward::gradient(|p: &[Dual<f64>]| p[0].powi(2) * p[1], &[3.0, 4.0]);
/// assert_eq!((y, g), (36.0, vec![24.0, 9.0]));
/// ```
pub fn gradient<T: Float>(f: impl Fn(&[Dual<T>]) -> Dual<T>, x: &[T]) -> (T, Vec<T>) {
    let mut point: Vec<Dual<T>> = x.iter().map(|&x| Dual::constant(x)).collect();
    if x.is_empty() {
        return (f(&point).re, Vec::new());
    }
    let mut value = T::ZERO;
    let mut grad = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        point[i].eps = T::ONE;
        let y = f(&point);
        point[i].eps = T::ZERO;
        value = y.re;
        grad.push(y.eps);
    }
    (value, grad)
}

/// The values and the Jacobian of `f` at `x`: `jacobian[i][j] = ∂fᵢ/∂xⱼ`, one row per output.
///
/// Costs `n` evaluations of `f` for `n` inputs (one column each), and one when `x` is empty.
///
/// # Panics
///
/// If `f` returns outputs of different lengths for the different evaluations.
///
/// ```
/// use revad_runtime::{forward, Dual, Float};
///
/// // (x, y) ↦ (x y, x + sin y).
/// let f = |p: &[Dual<f64>]| vec![p[0] * p[1], p[0] + p[1].sin()];
/// let (values, jac) = forward::jacobian(f, &[2.0, 0.0]);
/// assert_eq!(values, [0.0, 2.0]);
/// assert_eq!(jac, [[0.0, 2.0], [1.0, 1.0]]);
/// ```
#[track_caller]
pub fn jacobian<T: Float>(
    f: impl Fn(&[Dual<T>]) -> Vec<Dual<T>>,
    x: &[T],
) -> (Vec<T>, Vec<Vec<T>>) {
    let mut point: Vec<Dual<T>> = x.iter().map(|&x| Dual::constant(x)).collect();
    if x.is_empty() {
        let values: Vec<T> = f(&point).iter().map(|y| y.re).collect();
        let rows = vec![Vec::new(); values.len()];
        return (values, rows);
    }
    let mut values = Vec::new();
    let mut rows: Vec<Vec<T>> = Vec::new();
    for j in 0..x.len() {
        point[j].eps = T::ONE;
        let ys = f(&point);
        point[j].eps = T::ZERO;
        if j == 0 {
            values = ys.iter().map(|y| y.re).collect();
            rows = vec![Vec::with_capacity(x.len()); ys.len()];
        }
        assert_eq!(
            ys.len(),
            rows.len(),
            "revad: forward::jacobian: the function returned outputs of different lengths"
        );
        for (row, y) in rows.iter_mut().zip(&ys) {
            row.push(y.eps);
        }
    }
    (values, rows)
}

/// The value, the gradient and the Hessian of `f` at `x`, forward over forward:
/// `hessian[i][j] = ∂²f/∂xᵢ∂xⱼ`.
///
/// Each evaluation on `Dual<Dual<T>>` seeds direction `i` in the inner tangent and `j` in the
/// outer one, and gives `∂f/∂xᵢ`, `∂f/∂xⱼ` and `∂²f/∂xᵢ∂xⱼ`; the Hessian is symmetric, so
/// `n (n + 1) / 2` evaluations give all of it for `n` inputs (one when `x` is empty), and the
/// result is exactly symmetric.
///
/// ```
/// use revad_runtime::{forward, Dual, Float};
///
/// // f(x, y) = x² y: ∇f = (2xy, x²), H = [[2y, 2x], [2x, 0]].
/// let f = |p: &[Dual<Dual<f64>>]| p[0] * p[0] * p[1];
/// let (y, g, h) = forward::hessian(f, &[3.0, 4.0]);
/// assert_eq!((y, g), (36.0, vec![24.0, 9.0]));
/// assert_eq!(h, [[8.0, 6.0], [6.0, 0.0]]);
/// ```
pub fn hessian<T: Float>(
    f: impl Fn(&[Dual<Dual<T>>]) -> Dual<Dual<T>>,
    x: &[T],
) -> (T, Vec<T>, Vec<Vec<T>>) {
    let n = x.len();
    let mut point: Vec<Dual<Dual<T>>> = x
        .iter()
        .map(|&x| Dual::constant(Dual::constant(x)))
        .collect();
    if n == 0 {
        return (f(&point).re.re, Vec::new(), Vec::new());
    }
    let mut value = T::ZERO;
    let mut grad = vec![T::ZERO; n];
    let mut hess = vec![vec![T::ZERO; n]; n];
    for i in 0..n {
        point[i].re.eps = T::ONE;
        for j in i..n {
            point[j].eps.re = T::ONE;
            let y = f(&point);
            point[j].eps.re = T::ZERO;
            if j == i {
                value = y.re.re;
                grad[i] = y.re.eps;
            }
            hess[i][j] = y.eps.eps;
            hess[j][i] = y.eps.eps;
        }
        point[i].re.eps = T::ZERO;
    }
    (value, grad, hess)
}
