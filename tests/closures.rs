//! Closures and iterator chains: captured active variables receive their adjoints
//! (Pearlmutter & Siskind, TOPLAS 2008), and chains lower to loops that store nothing they
//! can read again.

use ad::check;
use ad::reverse;
use approx::assert_relative_eq;

#[path = "common/bits.rs"]
mod bits;
use bits::{assert_same_bits, checked};

// Each function under test also has a thin caller, `NAME_via`: its gradient goes through the
// split companions of `NAME`, and must agree with `NAME_grad` bit for bit.

/// Pearlmutter & Siskind's free-variable example: f = λa. ((λb. λc. b) a) 1, whose
/// derivative is 1. The inner closure returns `b`, a free variable of `λc. b`.
#[reverse]
#[allow(
    clippy::redundant_closure_call,
    reason = "the example applies closures where they are written"
)]
fn free_variable(a: f64) -> f64 {
    let f = |a: f64| (|b: f64| move |_c: f64| b)(a)(1.0);
    f(a)
}

#[reverse]
fn free_variable_via(a: f64) -> f64 {
    free_variable(a)
}

#[test]
fn pearlmutter_siskind_free_variable() {
    for &a in &[-2.0, 0.0, 3.5] {
        let (v, d) = checked(
            free_variable(a),
            free_variable_grad(a),
            free_variable_via_grad(a),
        );
        assert_eq!(v, a);
        assert_eq!(d, 1.0);
    }
}

#[reverse]
fn map_sum_captures_w(xs: &[f64], w: f64) -> f64 {
    xs.iter().map(|x| x * w).sum::<f64>()
}

#[reverse]
fn map_sum_captures_w_via(xs: &[f64], w: f64) -> f64 {
    map_sum_captures_w(xs, w)
}

#[test]
fn captured_weight_receives_its_adjoint() {
    let xs = [1.0, -2.0, 0.5, 4.0];
    let (v, (dxs, dw)) = checked(
        map_sum_captures_w(&xs, 1.5),
        map_sum_captures_w_grad(&xs, 1.5),
        map_sum_captures_w_via_grad(&xs, 1.5),
    );
    assert_eq!(v, 3.5 * 1.5);
    assert_eq!(dw, 3.5);
    assert_eq!(dxs, vec![1.5; 4]);
}

#[reverse]
fn fold_with_scale(xs: &[f64], scale: f64) -> f64 {
    xs.iter().fold(1.0, |acc, &x| acc * (1.0 + scale * x))
}

#[reverse]
fn fold_with_scale_via(xs: &[f64], scale: f64) -> f64 {
    fold_with_scale(xs, scale)
}

#[test]
fn fold_with_a_captured_scale_factor() {
    let xs = [0.5, -0.25, 1.0];
    let scale = 0.3;
    let (v, (dxs, ds)) = checked(
        fold_with_scale(&xs, scale),
        fold_with_scale_grad(&xs, scale),
        fold_with_scale_via_grad(&xs, scale),
    );
    // d/ds prod(1 + s x_i) = prod * sum(x_i / (1 + s x_i)).
    let expected: f64 = xs.iter().map(|x| x / (1.0 + scale * x)).sum::<f64>() * v;
    assert_relative_eq!(ds, expected, max_relative = 1e-13);
    let mut at = xs.to_vec();
    at.push(scale);
    let mut grad = dxs.clone();
    grad.push(ds);
    check::gradient(|p| fold_with_scale(&p[..3], p[3]), &at, &grad).unwrap();
}

#[reverse]
fn zipped(xs: &[f64], ys: &[f64]) -> f64 {
    let dot: f64 = xs.iter().zip(ys).map(|(x, y)| x * y).sum();
    let weighted = xs
        .iter()
        .enumerate()
        .map(|(i, &x)| x * (i as f64 + 1.0))
        .sum::<f64>();
    let positive: f64 = ys.iter().filter(|y| **y > 0.0).map(|y| y.exp()).sum();
    dot.sin() + weighted + positive
}

#[reverse]
fn zipped_via(xs: &[f64], ys: &[f64]) -> f64 {
    zipped(xs, ys)
}

#[test]
fn zip_enumerate_and_filter() {
    let xs = [0.3, -0.6, 0.9, 0.2];
    let ys = [1.0, -0.5, 0.25, 2.0, 9.0];
    let (_, (dxs, dys)) = checked(
        zipped(&xs, &ys),
        zipped_grad(&xs, &ys),
        zipped_via_grad(&xs, &ys),
    );
    let mut at = xs.to_vec();
    at.extend(ys);
    let mut grad = dxs.clone();
    grad.extend(&dys);
    check::gradient(|p| zipped(&p[..4], &p[4..]), &at, &grad).unwrap();
}

#[reverse]
fn collect_then_use(xs: &[f64], k: f64) -> Vec<f64> {
    let scaled: Vec<f64> = xs.iter().map(|x| (x * k).tanh()).collect();
    (0..scaled.len())
        .map(|i| scaled[i] * scaled[i])
        .collect::<Vec<f64>>()
}

// FIXME(soundness): no caller `collect_then_use_via`: a call to a #[reverse] function that
// returns a `Vec` does not compile in a #[reverse] caller (calls lower to a scalar temporary;
// see `rotate` in tests/straight_line.rs).

#[test]
fn map_collect_into_a_vec() {
    let xs = [0.1, -0.4, 0.7];
    let seed = vec![1.0, 2.0, -1.0];
    let (out, (dxs, dk)) = collect_then_use_vjp(&xs, 0.8, seed.clone());
    assert_same_bits(&out, &collect_then_use(&xs, 0.8));
    let weighted = |p: &[f64]| {
        collect_then_use(&p[..3], p[3])
            .iter()
            .zip(&seed)
            .map(|(o, s)| o * s)
            .sum::<f64>()
    };
    let mut grad = dxs.clone();
    grad.push(dk);
    check::gradient(weighted, &[0.1, -0.4, 0.7, 0.8], &grad).unwrap();
}

#[reverse]
fn let_bound_closures(x: f64, y: f64) -> f64 {
    let scale = x * 2.0;
    let f = |t: f64| t * scale + y;
    let g = |t: f64| f(t).sin() * f(t + 1.0);
    g(x) + f(y)
}

#[reverse]
fn let_bound_closures_via(x: f64, y: f64) -> f64 {
    let_bound_closures(x, y)
}

#[test]
fn closures_bound_by_let_and_called() {
    let (_, (dx, dy)) = checked(
        let_bound_closures(0.7, -0.3),
        let_bound_closures_grad(0.7, -0.3),
        let_bound_closures_via_grad(0.7, -0.3),
    );
    check::gradient(|p| let_bound_closures(p[0], p[1]), &[0.7, -0.3], &[dx, dy]).unwrap();
}

#[reverse(wrt(xs))]
fn closure_over_inactive_data(xs: &[f64], offsets: &[f64]) -> f64 {
    let shift = |i: usize, x: f64| (x - offsets[i % offsets.len()]).powi(2);
    let mut total = 0.0;
    for (i, &x) in xs.iter().enumerate() {
        total += shift(i, x);
    }
    total
}

#[reverse(wrt(xs))]
fn closure_over_inactive_data_via(xs: &[f64], offsets: &[f64]) -> f64 {
    closure_over_inactive_data(xs, offsets)
}

#[test]
fn closure_capturing_inactive_data() {
    let xs = [1.0, 2.0, 3.0];
    let offsets = [0.5, -0.5];
    let (v, dxs) = checked(
        closure_over_inactive_data(&xs, &offsets),
        closure_over_inactive_data_grad(&xs, &offsets),
        closure_over_inactive_data_via_grad(&xs, &offsets),
    );
    assert_eq!(v, 0.25 + 6.25 + 6.25);
    assert_eq!(dxs, vec![1.0, 5.0, 5.0]);
}

#[reverse]
fn for_each_accumulates(xs: &[f64]) -> f64 {
    let mut total = 0.0;
    xs.iter().for_each(|x| total += x.sqrt());
    total
}

#[reverse]
fn for_each_accumulates_via(xs: &[f64]) -> f64 {
    for_each_accumulates(xs)
}

#[test]
fn for_each_mutating_a_captured_total() {
    let xs = [1.0, 4.0, 9.0];
    let (v, dxs) = checked(
        for_each_accumulates(&xs),
        for_each_accumulates_grad(&xs),
        for_each_accumulates_via_grad(&xs),
    );
    assert_eq!(v, 6.0);
    assert_eq!(dxs, vec![0.5, 0.25, 0.5 / 3.0]);
}
