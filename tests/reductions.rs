//! Reductions of iterator chains: `.fold(..)` with a tuple accumulator, and `.reduce(f)`,
//! `.max_by(cmp)` and `.min_by(cmp)`, then `.unwrap()`, `.expect("..")` or `.unwrap_or(d)`,
//! over arrays, slices, mapped and filtered chains (the log-sum-exp's maximum, a nearest distance). Each gradient is checked against
//! a closed form or finite differences of the primal, and against the same gradient through
//! a caller `NAME_via` (the split companions); forward mode against the closed forms too.
//! The first item starts the value, as in the iterators: ties go to the last maximum and the
//! first minimum, and an empty chain panics as `unwrap` does.

use approx::assert_relative_eq;
use revad::{check, forward, reverse};

#[path = "common/bits.rs"]
mod bits;
use bits::checked;

/// `log Σ exp(x_i)`, shifted by the maximum (`reduce(f64::max)`).
#[reverse]
#[forward]
fn lse_reduce(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().reduce(f64::max).unwrap();
    m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

#[reverse]
fn lse_reduce_via(xs: &[f64]) -> f64 {
    lse_reduce(xs)
}

/// The same, by `max_by` on references and a dereference.
#[reverse]
fn lse_max_by(xs: &[f64]) -> f64 {
    let m = *xs.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

#[reverse]
fn lse_max_by_via(xs: &[f64]) -> f64 {
    lse_max_by(xs)
}

/// The smallest `(x_i - c)^2`, by `min_by` of a mapped chain with `total_cmp`.
#[reverse]
#[forward]
fn nearest(xs: &[f64], c: f64) -> f64 {
    xs.iter()
        .map(|x| (x - c) * (x - c))
        .min_by(|a, b| a.total_cmp(b))
        .expect("no points")
}

#[reverse]
fn nearest_via(xs: &[f64], c: f64) -> f64 {
    nearest(xs, c)
}

/// The product of the positive `x_i` by `reduce` with a closure, `w` if there are none.
#[reverse]
fn positive_product(xs: &[f64], w: f64) -> f64 {
    xs.iter()
        .copied()
        .filter(|x| *x > 0.0)
        .reduce(|a, b| a * b * w)
        .unwrap_or(w * w)
}

#[reverse]
fn positive_product_via(xs: &[f64], w: f64) -> f64 {
    positive_product(xs, w)
}

/// The largest `x_i`, by `max_by` of `|&a, &b|` over copies, ties included.
#[reverse]
fn largest(xs: &[f64]) -> f64 {
    xs.iter()
        .copied()
        .max_by(|&a, &b| a.partial_cmp(&b).unwrap())
        .unwrap()
}

/// The smallest `x_i`, by `min_by`.
#[reverse]
fn smallest(xs: &[f64]) -> f64 {
    *xs.iter().min_by(|a, b| a.total_cmp(b)).unwrap()
}

fn softmax(xs: &[f64]) -> Vec<f64> {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = xs.iter().map(|x| (x - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

#[test]
fn log_sum_exp_by_reductions() {
    let xs = [0.5, 2.0, -1.0, 1.5];
    for (ours, via) in [
        (lse_reduce_grad(&xs), lse_reduce_via_grad(&xs)),
        (lse_max_by_grad(&xs), lse_max_by_via_grad(&xs)),
    ] {
        let (v, g) = checked(lse_reduce(&xs), ours, via);
        let expect = xs.iter().map(|x| x.exp()).sum::<f64>().ln();
        assert_relative_eq!(v, expect, max_relative = 1e-15);
        // The gradient of the log-sum-exp is the softmax (the maximum's own part cancels).
        for (g, p) in g.iter().zip(softmax(&xs)) {
            assert_relative_eq!(*g, p, max_relative = 1e-14);
        }
    }
    assert_eq!(lse_max_by(&xs).to_bits(), lse_reduce(&xs).to_bits());
    // Forward mode: the directional derivative is softmax · v.
    let v = [1.0, -0.5, 0.25, 2.0];
    let (y, dy) = lse_reduce_jvp(&xs, &v);
    assert_eq!(y.to_bits(), lse_reduce(&xs).to_bits());
    let expect: f64 = softmax(&xs).iter().zip(&v).map(|(p, v)| p * v).sum();
    assert_relative_eq!(dy, expect, max_relative = 1e-14);
}

#[test]
fn nearest_by_min_by() {
    let (xs, c) = ([0.5, 2.0, -1.0, 1.2], 1.0);
    let (v, (gx, gc)) = checked(
        nearest(&xs, c),
        nearest_grad(&xs, c),
        nearest_via_grad(&xs, c),
    );
    // The nearest is 1.2: (0.2)^2; its derivative 2 (x - c) in x, -2 (x - c) in c.
    assert_relative_eq!(v, 0.04, max_relative = 1e-12);
    assert_eq!(gx[..3], [0.0, 0.0, 0.0]);
    assert_relative_eq!(gx[3], 0.4, max_relative = 1e-12);
    assert_relative_eq!(gc, -0.4, max_relative = 1e-12);
    let (_, d) = nearest_jvp(&xs, c, &[0.0, 0.0, 0.0, 1.0], 0.5);
    assert_relative_eq!(d, 0.4 - 0.2, max_relative = 1e-12);
}

#[test]
fn reduce_with_a_closure_and_a_default() {
    let (xs, w) = ([1.5, -2.0, 0.8, 3.0], 0.7);
    let (v, (gx, gw)) = checked(
        positive_product(&xs, w),
        positive_product_grad(&xs, w),
        positive_product_via_grad(&xs, w),
    );
    // ((1.5 · 0.8 · w) · 3 · w): a = 1.5, b = 0.8, c = 3: a b c w².
    let (a, b, c) = (1.5, 0.8, 3.0);
    assert_relative_eq!(v, a * b * c * w * w, max_relative = 1e-15);
    assert_relative_eq!(gx[0], b * c * w * w, max_relative = 1e-14);
    assert_eq!(gx[1], 0.0);
    assert_relative_eq!(gx[2], a * c * w * w, max_relative = 1e-14);
    assert_relative_eq!(gx[3], a * b * w * w, max_relative = 1e-14);
    assert_relative_eq!(gw, 2.0 * a * b * c * w, max_relative = 1e-14);
    let fd = check::finite_difference(
        |p| positive_product(&p[..4], p[4]),
        &[1.5, -2.0, 0.8, 3.0, w],
    );
    for (g, e) in gx.iter().chain([&gw]).zip(&fd) {
        assert_relative_eq!(*g, *e, epsilon = 1e-8, max_relative = 1e-7);
    }
    // No positive item: the default, w².
    let (v, (gx, gw)) = positive_product_grad(&[-1.0, -2.0], w);
    assert_eq!(v.to_bits(), (w * w).to_bits());
    assert_eq!(gx, vec![0.0, 0.0]);
    assert_relative_eq!(gw, 2.0 * w, max_relative = 1e-15);
    // One positive item: the item itself.
    let (v, (gx, gw)) = positive_product_grad(&[-1.0, 2.5], w);
    assert_eq!((v, gx, gw), (2.5, vec![0.0, 1.0], 0.0));
}

#[test]
fn ties_go_where_the_iterators_put_them() {
    // `max_by` keeps the last of equal maxima, `min_by` the first of equal minima.
    let xs = [1.0, 3.0, -2.0, 3.0, -2.0];
    let (v, g) = largest_grad(&xs);
    assert_eq!(v, 3.0);
    assert_eq!(g, vec![0.0, 0.0, 0.0, 1.0, 0.0]);
    let (v, g) = smallest_grad(&xs);
    assert_eq!(v, -2.0);
    assert_eq!(g, vec![0.0, 0.0, 1.0, 0.0, 0.0]);
    // One item: itself.
    assert_eq!(largest_grad(&[0.25]), (0.25, vec![1.0]));
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn an_empty_reduction_panics_as_unwrap_does() {
    let _ = largest_grad(&[]);
}

#[test]
#[should_panic(expected = "no points")]
fn an_empty_reduction_panics_with_the_message_of_expect() {
    let _ = nearest_grad(&[], 1.0);
}

/// The variance by one `fold` with a tuple accumulator `(Σ x, Σ x²)`.
#[reverse]
fn variance_by_fold(xs: &[f64]) -> f64 {
    let (s, q) = xs.iter().fold((0.0, 0.0), |(s, q), x| (s + x, q + x * x));
    q / xs.len() as f64 - (s / xs.len() as f64).powi(2)
}

#[reverse]
fn variance_by_fold_via(xs: &[f64]) -> f64 {
    variance_by_fold(xs)
}

/// A fold whose closure swaps its accumulators and counts the items: every element is
/// computed before any accumulator is written.
#[reverse]
fn swapping_fold(xs: &[f64]) -> f64 {
    let (a, b, n) = xs
        .iter()
        .fold((1.0, 0.0, 0), |(a, b, n), &x| (b + x, a * x, n + 1));
    a * 2.0 + b + n as f64
}

#[test]
fn folds_with_tuple_accumulators() {
    let xs = [0.5, 2.0, -1.0, 1.5];
    let (_, g) = checked(
        variance_by_fold(&xs),
        variance_by_fold_grad(&xs),
        variance_by_fold_via_grad(&xs),
    );
    let m = xs.iter().sum::<f64>() / 4.0;
    for (g, x) in g.iter().zip(&xs) {
        assert_relative_eq!(*g, 2.0 * (x - m) / 4.0, max_relative = 1e-14);
    }
    let (v, g) = swapping_fold_grad(&xs);
    assert_eq!(v.to_bits(), swapping_fold(&xs).to_bits());
    let fd = check::finite_difference(swapping_fold, &xs);
    for (g, e) in g.iter().zip(&fd) {
        assert_relative_eq!(*g, *e, max_relative = 1e-8);
    }
}

/// `(max - min) / (max + min)` by folds that start from NaN (`f64::max` ignores a NaN
/// argument: the first element wins the first step), and a loop of `m.max(x)` from NaN.
#[reverse]
#[forward]
fn spread_from_nan(xs: &[f64]) -> f64 {
    let hi = xs.iter().cloned().fold(f64::NAN, f64::max);
    let lo = xs.iter().fold(f64::NAN, |a, &b| a.min(b));
    let mut m = f64::NAN;
    for &x in xs {
        m = m.max(x);
    }
    (hi - lo) / (hi + lo) + m
}

#[reverse]
fn spread_from_nan_via(xs: &[f64]) -> f64 {
    spread_from_nan(xs)
}

#[test]
fn folds_from_nan_give_the_whole_adjoint_to_the_extremum() {
    for xs in [[2.0, 0.5, 1.0], [0.5, 1.0, 2.0], [1.0, 2.0, 0.5]] {
        let (_, g) = checked(
            spread_from_nan(&xs),
            spread_from_nan_grad(&xs),
            spread_from_nan_via_grad(&xs),
        );
        // f = (h - l) / (h + l) + h: ∂h = 2 l / (h + l)² + 1, ∂l = -2 h / (h + l)².
        let (h, l) = (2.0, 0.5);
        let (ih, il) = (
            xs.iter().position(|&x| x == h).unwrap(),
            xs.iter().position(|&x| x == l).unwrap(),
        );
        let mut want = [0.0; 3];
        want[ih] = 2.0 * l / ((h + l) * (h + l)) + 1.0;
        want[il] = -2.0 * h / ((h + l) * (h + l));
        for (g, w) in g.iter().zip(want) {
            assert_relative_eq!(*g, w, max_relative = 1e-15);
        }
        let fd = check::finite_difference(spread_from_nan, &xs);
        for (g, e) in g.iter().zip(&fd) {
            assert_relative_eq!(*g, *e, epsilon = 1e-8, max_relative = 1e-7);
        }
        // Forward mode: the tangent along the maximum's element.
        let mut t = [0.0; 3];
        t[ih] = 1.0;
        let (_, d) = spread_from_nan_jvp(&xs, &t);
        assert_relative_eq!(d, want[ih], max_relative = 1e-15);
    }
}
