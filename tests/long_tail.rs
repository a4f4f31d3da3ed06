//! The long tail of forms people write (issue 23): call results carried around loops, calls
//! inside closures of iterator chains, callees with `wrt(..)`, methods returning arrays, and
//! more. Each gradient is checked against a closed form or finite differences of the primal,
//! and against the same gradient through a caller `NAME_via` (the split companions).
#![allow(
    clippy::needless_range_loop,
    reason = "index loops are forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
use bits::checked;
#[path = "common/fd.rs"]
mod fd;

/// `[c0 t, c1 t]`.
#[reverse]
fn point(c: [f64; 2], t: f64) -> [f64; 2] {
    [c[0] * t, c[1] * t]
}

/// A call's array result carried around a loop and replaced by a local array:
/// `3 c0 c1` (the first product reads `p[0] = 0`).
#[reverse]
fn carried_result(c: [f64; 2]) -> f64 {
    let mut s = 0.0;
    let mut prev = point(c, 0.5);
    for i in 0..3 {
        let p = [c[0] * i as f64, c[1]];
        s += p[0] * prev[1];
        prev = p;
    }
    s
}

#[reverse]
fn carried_result_via(c: [f64; 2]) -> f64 {
    carried_result(c)
}

#[test]
fn call_result_carried_around_a_loop() {
    let c = [0.7, -1.3];
    let (y, g) = checked(
        carried_result(c),
        carried_result_grad(c),
        carried_result_via_grad(c),
    );
    assert_relative_eq!(y, 3.0 * c[0] * c[1], max_relative = 1e-15);
    assert_relative_eq!(g[0], 3.0 * c[1], max_relative = 1e-15);
    assert_relative_eq!(g[1], 3.0 * c[0], max_relative = 1e-15);
}

/// `b0 ws[0]`.
#[reverse]
fn weighted_first(b0: f64, ws: &[f64]) -> f64 {
    b0 * ws[0]
}

/// A call that borrows the iterated vector inside a `.map(..)` closure:
/// `cv[k] = w[k] w[0]`, and the result is `cv[0] + cv[1] = w0^2 + w1 w0`.
#[reverse]
fn call_in_map(w: Vec<f64>) -> f64 {
    let cv: Vec<f64> = w.iter().map(|&e| weighted_first(e, &w)).collect();
    cv[0] + cv[1]
}

#[reverse]
fn call_in_map_via(w: Vec<f64>) -> f64 {
    call_in_map(w)
}

#[test]
fn call_borrowing_the_iterated_vector() {
    let w = vec![0.4, -1.1, 2.5];
    let (y, g) = checked(
        call_in_map(w.clone()),
        call_in_map_grad(w.clone()),
        call_in_map_via_grad(w.clone()),
    );
    assert_relative_eq!(y, w[0] * w[0] + w[1] * w[0], max_relative = 1e-15);
    assert_relative_eq!(g[0], 2.0 * w[0] + w[1], max_relative = 1e-15);
    assert_relative_eq!(g[1], w[0], max_relative = 1e-15);
    assert_eq!(g[2], 0.0);
}

const INPUTS: [[f64; 3]; 2] = [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15]];

/// `tanh(inputs[i] . weights)`, differentiated with respect to `weights` only.
#[reverse(wrt(weights))]
fn predictions(weights: &[f64; 3], inputs: &[[f64; 3]; 2]) -> [f64; 2] {
    let mut preds = [0.0; 2];
    for i in 0..2 {
        let mut dot = 0.0;
        for j in 0..3 {
            dot += inputs[i][j] * weights[j];
        }
        preds[i] = dot.tanh();
    }
    preds
}

/// A callee annotated with `wrt(..)`, called with a constant for its inactive parameter.
#[reverse]
fn wrt_loss(weights: &[f64; 3]) -> f64 {
    let preds = predictions(weights, &INPUTS);
    let mut l = 0.0;
    for i in 0..2 {
        l -= preds[i].ln();
    }
    l
}

#[reverse]
fn wrt_loss_via(weights: &[f64; 3]) -> f64 {
    wrt_loss(weights)
}

#[test]
fn callee_with_wrt() {
    let w = [0.9, 0.3, 0.5];
    let (_, g) = checked(wrt_loss(&w), wrt_loss_grad(&w), wrt_loss_via_grad(&w));
    check::gradient(|p| wrt_loss(&[p[0], p[1], p[2]]), &w, &g).unwrap();
}

/// The same callee without `wrt(..)`, called with a constant for its nested array.
#[reverse]
fn all_predictions(weights: &[f64; 3], inputs: &[[f64; 3]; 2]) -> [f64; 2] {
    let mut preds = [0.0; 2];
    for i in 0..2 {
        preds[i] = (inputs[i][0] * weights[0] + inputs[i][1] * weights[1]).tanh() * weights[2];
    }
    preds
}

#[reverse]
fn constant_loss(weights: &[f64; 3]) -> f64 {
    let preds = all_predictions(weights, &INPUTS);
    preds[0] * preds[1]
}

#[reverse]
fn constant_loss_via(weights: &[f64; 3]) -> f64 {
    constant_loss(weights)
}

#[test]
fn constant_passed_for_a_nested_array() {
    let w = [0.9, 0.3, 0.5];
    let (_, g) = checked(
        constant_loss(&w),
        constant_loss_grad(&w),
        constant_loss_via_grad(&w),
    );
    check::gradient(|p| constant_loss(&[p[0], p[1], p[2]]), &w, &g).unwrap();
}

/// A user type without an adjoint: data, left out of `wrt(..)`.
struct Table {
    /// The coefficients.
    pub coef: [f64; 2],
}

/// `coef[0] x^2 + coef[1] x`, differentiated with respect to `x` only.
#[reverse(wrt(x))]
fn poly(x: f64, table: &Table) -> f64 {
    table.coef[0] * x * x + table.coef[1] * x
}

/// A caller that leaves the table out too.
#[reverse(wrt(x))]
fn poly_twice(x: f64, table: &Table) -> f64 {
    poly(x, table) + poly(2.0 * x, table)
}

#[test]
fn user_type_left_out_of_wrt_needs_no_adjoint() {
    let table = Table { coef: [0.5, -1.5] };
    let x = 0.8;
    let (y, g) = poly_twice_grad(x, &table);
    assert_eq!(y.to_bits(), poly_twice(x, &table).to_bits());
    let [a, b] = table.coef;
    assert_relative_eq!(
        g,
        2.0 * a * x + b + 2.0 * (2.0 * a * 2.0 * x + b),
        max_relative = 1e-15
    );
}

/// A model whose step is a method returning an array.
#[derive(revad::Adjoint)]
struct Decay {
    pub rate: f64,
}

impl Decay {
    /// `[x0 - rate x1, x1 + rate x0]`.
    #[reverse]
    fn step(&self, x: [f64; 2]) -> [f64; 2] {
        [x[0] - self.rate * x[1], x[1] + self.rate * x[0]]
    }
}

/// A method's array result assigned to a loop-carried array.
#[reverse]
fn rollout(m: &Decay, x: [f64; 2]) -> f64 {
    let mut state = x;
    for _ in 0..3 {
        state = m.step(state);
    }
    state[0] * state[1]
}

#[reverse]
fn rollout_via(m: &Decay, x: [f64; 2]) -> f64 {
    rollout(m, x)
}

#[test]
fn method_result_carried_around_a_loop() {
    let m = Decay { rate: 0.3 };
    let x = [0.8, -0.4];
    let (y, (gm, gx)) = rollout_grad(&m, x);
    assert_eq!(y.to_bits(), rollout(&m, x).to_bits());
    let (y2, (gm2, gx2)) = rollout_via_grad(&m, x);
    assert_eq!(y2.to_bits(), y.to_bits());
    assert_eq!((gm2.rate, gx2), (gm.rate, gx));
    let f = |p: &[f64]| rollout(&Decay { rate: p[0] }, [p[1], p[2]]);
    check::gradient(f, &[m.rate, x[0], x[1]], &[gm.rate, gx[0], gx[1]]).unwrap();
}

/// The issue's form: only the first element read.
#[reverse]
fn call_in_map_first(w: Vec<f64>) -> f64 {
    let cv: Vec<f64> = w.iter().map(|&e| weighted_first(e, &w)).collect();
    cv[0]
}

#[test]
fn call_in_map_first_element() {
    let w = vec![0.4, -1.1, 2.5];
    let (y, g) = call_in_map_first_grad(w.clone());
    assert_eq!(y.to_bits(), call_in_map_first(w.clone()).to_bits());
    assert_eq!(g, vec![2.0 * w[0], 0.0, 0.0]);
}

/// An `if` whose arms are arrays: `2 max(a, b) + min(a, b)`.
#[reverse]
fn if_of_arrays(a: f64, b: f64) -> f64 {
    let v = if a > b { [a, b] } else { [b, a] };
    v[0] * 2.0 + v[1]
}

#[reverse]
fn if_of_arrays_via(a: f64, b: f64) -> f64 {
    if_of_arrays(a, b)
}

#[test]
fn if_with_array_arms() {
    for (a, b) in [(0.3, -1.2), (-0.5, 2.0)] {
        let (y, (ga, gb)) = checked(
            if_of_arrays(a, b),
            if_of_arrays_grad(a, b),
            if_of_arrays_via_grad(a, b),
        );
        assert_eq!(y, 2.0 * a.max(b) + a.min(b));
        assert_eq!((ga, gb), if a > b { (2.0, 1.0) } else { (1.0, 2.0) });
    }
}

/// A `for` loop over a temporary array: `a^2 + b^2 + c^2`.
#[reverse]
fn loop_over_temporary(a: f64, b: f64, c: f64) -> f64 {
    let mut s = 0.0;
    for v in [a, b * c, c] {
        s += v * v;
    }
    s
}

#[reverse]
fn loop_over_temporary_via(a: f64, b: f64, c: f64) -> f64 {
    loop_over_temporary(a, b, c)
}

/// An iterator chain over a temporary array: `a + 2 b`.
#[reverse]
fn sum_of_temporary(a: f64, b: f64) -> f64 {
    [a, b, b].iter().sum()
}

#[reverse]
fn sum_of_temporary_via(a: f64, b: f64) -> f64 {
    sum_of_temporary(a, b)
}

#[test]
fn temporary_arrays_iterated() {
    let (a, b, c) = (0.7, -1.1, 0.4);
    let (_, (ga, gb, gc)) = checked(
        loop_over_temporary(a, b, c),
        loop_over_temporary_grad(a, b, c),
        loop_over_temporary_via_grad(a, b, c),
    );
    assert_eq!(ga, 2.0 * a);
    assert_relative_eq!(gb, 2.0 * b * c * c, max_relative = 1e-15);
    assert_relative_eq!(gc, 2.0 * b * b * c + 2.0 * c, max_relative = 1e-15);
    let (y, g) = checked(
        sum_of_temporary(a, b),
        sum_of_temporary_grad(a, b),
        sum_of_temporary_via_grad(a, b),
    );
    assert_eq!(y, a + b + b);
    assert_eq!(g, (1.0, 2.0));
}

const STEPS: usize = 3;
const DIM: usize = 2;

/// A local 2-D array written element by element, then read: `q[t][i] = t x_i + q[t-1][i] x_i`.
#[reverse]
fn local_table(x: &[f64; 2]) -> f64 {
    let mut q = [[0.0; DIM]; STEPS];
    for t in 0..STEPS {
        for i in 0..DIM {
            q[t][i] += x[i] * t as f64;
            if t > 0 {
                q[t][i] += q[t - 1][i] * x[i];
            }
        }
    }
    q[2][0] * q[1][1]
}

#[reverse]
fn local_table_via(x: &[f64; 2]) -> f64 {
    local_table(x)
}

/// A local 2-D table of constants, indexed: `x0 + 3 x1`.
#[reverse]
fn constant_table(x: &[f64; 2]) -> f64 {
    let a = [[1.0, 2.0], [3.0, 4.0]];
    let mut s = 0.0;
    for i in 0..2 {
        s += a[i][0] * x[i];
    }
    s
}

#[reverse]
fn constant_table_via(x: &[f64; 2]) -> f64 {
    constant_table(x)
}

/// A local 2-D array with an element subtracted from after a write (the fuzzer's finding: the
/// companions typed the restored array like the untyped constant `[[0.0; 2]; 2]`, and
/// `-adj[1][0]` did not compile, E0282): `x - x^2 + x`.
#[reverse]
fn local_table_sub(x: f64) -> f64 {
    let mut q = [[0.0; 2]; 2];
    q[1][0] = x;
    q[1][0] -= x * x;
    q[1][0] + x
}

#[reverse]
fn local_table_sub_via(x: f64) -> f64 {
    local_table_sub(x)
}

/// A 2-D element read at a computed inner index (the fuzzer's finding: the companions did not
/// restore the index `n % 3` of `q[0][n % 3]`, E0425 at an internal name):
/// `q[0][j] = x (x q[0][j] + 1)` three times, `j = n % 3`: `x^5 + x^3 + x`.
#[reverse]
fn local_table_computed_index(x: f64, n: usize) -> f64 {
    let mut q: [[f64; 3]; 3] = [[0.0; 3]; 3];
    for _ in 0..3 {
        q[0][n % 3] = x * (x * q[0][n % 3] + 1.0);
    }
    q[0][n % 3]
}

#[reverse]
fn local_table_computed_index_via(x: f64, n: usize) -> f64 {
    local_table_computed_index(x, n)
}

#[test]
fn local_2d_arrays() {
    let x = [0.3, -0.7];
    let (_, g) = checked(
        local_table(&x),
        local_table_grad(&x),
        local_table_via_grad(&x),
    );
    // q[1] = [x0 (1 + 0), x1 (1 + 0)] = x, q[2][0] = 2 x0 + x0 x0: f = (2 x0 + x0^2) x1.
    let f = |p: &[f64]| (2.0 * p[0] + p[0] * p[0]) * p[1];
    assert_relative_eq!(local_table(&x), f(&x), max_relative = 1e-15);
    assert_relative_eq!(g[0], (2.0 + 2.0 * x[0]) * x[1], max_relative = 1e-15);
    assert_relative_eq!(g[1], 2.0 * x[0] + x[0] * x[0], max_relative = 1e-15);
    let (y, g) = checked(
        constant_table(&x),
        constant_table_grad(&x),
        constant_table_via_grad(&x),
    );
    assert_eq!(y, x[0] + 3.0 * x[1]);
    assert_eq!(g, [1.0, 3.0]);
    let (y, g) = checked(
        local_table_sub(x[0]),
        local_table_sub_grad(x[0]),
        local_table_sub_via_grad(x[0]),
    );
    assert_eq!(y, x[0] - x[0] * x[0] + x[0]);
    assert_eq!(g, 2.0 - 2.0 * x[0]);
    let (y, g) = checked(
        local_table_computed_index(x[1], 4),
        local_table_computed_index_grad(x[1], 4),
        local_table_computed_index_via_grad(x[1], 4),
    );
    let t = x[1];
    assert_relative_eq!(y, t.powi(5) + t.powi(3) + t, max_relative = 1e-15);
    assert_relative_eq!(g, 5.0 * t.powi(4) + 3.0 * t * t + 1.0, max_relative = 1e-15);
}

const TABLE: [[f64; 2]; 2] = [[1.0, 2.0], [3.0, 4.0]];

/// A module-level 2-D constant under `#[reverse(hessian)]`: `sum_i TABLE[i][1] x_i^2 x_0`.
#[reverse(hessian)]
fn table_weighted(x: &[f64; 2]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        s += TABLE[i][1] * x[i] * x[i] * x[0];
    }
    s
}

#[test]
fn constant_table_under_hessian() {
    let x = [0.6, -0.9];
    let (y, g, h) = table_weighted_hessian(&x);
    assert_eq!(y.to_bits(), table_weighted(&x).to_bits());
    // f = 2 x0^3 + 4 x1^2 x0.
    let (x0, x1) = (x[0], x[1]);
    assert_relative_eq!(g[0], 6.0 * x0 * x0 + 4.0 * x1 * x1, max_relative = 1e-14);
    assert_relative_eq!(g[1], 8.0 * x1 * x0, max_relative = 1e-14);
    assert_relative_eq!(h[0][0], 12.0 * x0, max_relative = 1e-14);
    assert_relative_eq!(h[0][1], 8.0 * x1, max_relative = 1e-14);
    assert_relative_eq!(h[1][0], 8.0 * x1, max_relative = 1e-14);
    assert_relative_eq!(h[1][1], 8.0 * x0, max_relative = 1e-14);
}

/// `.skip(k)` right after `.iter()` in a chain: `sum_{i>=1} x_i^2`.
#[reverse]
fn skipped_squares(x: &[f64]) -> f64 {
    x.iter().skip(1).map(|v| v * v).sum()
}

/// `.skip(1).take(2)` zipped: `x1 y0 + x2 y1` (fewer terms when `x` is short).
#[reverse]
fn skipped_dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .skip(1)
        .take(2)
        .zip(y.iter())
        .map(|(a, b)| a * b)
        .sum()
}

#[reverse]
fn skipped_dot_via(x: &[f64], y: &[f64]) -> f64 {
    skipped_dot(x, y)
}

#[test]
fn skip_and_take_in_chains() {
    let x = [0.5, -1.5, 2.0];
    let (y, g) = skipped_squares_grad(&x);
    assert_eq!(y.to_bits(), skipped_squares(&x).to_bits());
    assert_eq!(g, vec![0.0, 2.0 * x[1], 2.0 * x[2]]);
    let (x, w) = ([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0]);
    let (y, (gx, gw)) = checked(
        skipped_dot(&x, &w),
        skipped_dot_grad(&x, &w),
        skipped_dot_via_grad(&x, &w),
    );
    assert_eq!(y, 2.0 * 5.0 + 3.0 * 6.0);
    assert_eq!(gx, vec![0.0, 5.0, 6.0, 0.0]);
    assert_eq!(gw, vec![2.0, 3.0, 0.0]);
    // `skip` past the end gives an empty iterator, as in Rust.
    let (y, (gx, _)) = skipped_dot_grad(&[1.0], &w);
    assert_eq!(y, 0.0);
    assert_eq!(gx, vec![0.0]);
}

/// A chain bound by `let` and consumed later; `w` shadowed in between (the chain reads the
/// first): `w sum x`, then `+ w2`.
#[reverse]
fn bound_chain(x: &[f64], w: f64) -> f64 {
    let it = x.iter().map(|v| v * w);
    let w = w * 3.0;
    let s: f64 = it.sum();
    s + w
}

#[reverse]
fn bound_chain_via(x: &[f64], w: f64) -> f64 {
    bound_chain(x, w)
}

#[test]
fn chain_bound_by_let() {
    let (x, w) = ([0.5, -1.5, 2.0], 0.7);
    let (y, (gx, gw)) = checked(
        bound_chain(&x, w),
        bound_chain_grad(&x, w),
        bound_chain_via_grad(&x, w),
    );
    assert_relative_eq!(y, w * (x[0] + x[1] + x[2]) + 3.0 * w, max_relative = 1e-15);
    assert_eq!(gx, vec![w; 3]);
    assert_relative_eq!(gw, x[0] + x[1] + x[2] + 3.0, max_relative = 1e-15);
}

/// Early `return`s in a function returning an array.
#[reverse]
fn early_array(x: f64, y: f64) -> [f64; 2] {
    let a = x * y;
    if a > 1.0 {
        let b = a * 2.0;
        return [b, x];
    }
    let c = a.sin();
    if c < 0.0 {
        return [c, c * x];
    }
    [c * y, a]
}

/// An early `return` in a function returning a tuple.
#[reverse]
fn early_tuple(x: f64) -> (f64, f64) {
    if x > 10.0 {
        return (x, x);
    }
    (x * x, x.exp())
}

#[reverse]
fn early_via(x: f64, y: f64) -> f64 {
    let v = early_array(x, y);
    let (p, q) = early_tuple(x);
    v[0] * 3.0 + v[1] + p * q
}

#[test]
fn early_return_of_arrays_and_tuples() {
    for (x, y) in [(2.0, 0.9), (0.5, 0.3), (-0.5, 0.8), (12.0, 0.05)] {
        for k in 0..2 {
            let mut seed = [0.0; 2];
            seed[k] = 1.0;
            let (v, (gx, gy)) = early_array_vjp(x, y, seed);
            assert_eq!(v, early_array(x, y));
            let f = |p: &[f64]| early_array(p[0], p[1])[k];
            check::gradient(f, &[x, y], &[gx, gy]).unwrap();
        }
        let (t, g) = early_tuple_vjp(x, (1.0, 0.5));
        assert_eq!(t, early_tuple(x));
        check::gradient(
            |p| early_tuple(p[0]).0 + 0.5 * early_tuple(p[0]).1,
            &[x],
            &[g],
        )
        .unwrap();
        let (_, (gx, gy)) = early_via_grad(x, y);
        let f = |p: &[f64]| {
            let v = early_array(p[0], p[1]);
            let (a, b) = early_tuple(p[0]);
            v[0] * 3.0 + v[1] + a * b
        };
        check::gradient(f, &[x, y], &[gx, gy]).unwrap();
    }
}

impl Decay {
    /// `rate x`, element by element.
    #[reverse]
    fn scaled(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = x[i] * self.rate;
        }
        out
    }
}

/// A method's array result kept for the reverse sweep of a loop, bound without a type:
/// `sum_k sin(k y0 y1)` for `k = 1..=3`, `y = m.step(x)`.
#[reverse]
fn method_results_in_loop(m: &Decay, x: [f64; 2]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let y = m.step(x);
        s += ((k as f64 + 1.0) * y[0] * y[1]).sin();
    }
    s
}

impl Decay {
    /// [`method_results_in_loop`] as a method: the receiver is `self`.
    #[reverse]
    fn results_in_loop(&self, x: [f64; 2]) -> f64 {
        let mut s = 0.0;
        for k in 0..3 {
            let y = self.step(x);
            s += ((k as f64 + 1.0) * y[0] * y[1]).sin();
        }
        s
    }
}

#[reverse]
fn method_results_in_loop_via(m: &Decay, x: [f64; 2]) -> f64 {
    method_results_in_loop(m, x)
}

/// The same with a method returning a `Vec`: `sum_k sin(k r^2 x0 x1)`.
#[reverse]
fn method_vecs_in_loop(m: &Decay, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let y = m.scaled(x);
        s += ((k as f64 + 1.0) * y[0] * y[1]).sin();
    }
    s
}

#[reverse]
fn method_vecs_in_loop_via(m: &Decay, x: &[f64]) -> f64 {
    method_vecs_in_loop(m, x)
}

#[test]
fn method_results_kept_without_a_type() {
    let (r, x) = (0.3, [0.8, -0.4]);
    let m = Decay { rate: r };
    let (y0, y1) = (x[0] - r * x[1], x[1] + r * x[0]);
    let p = y0 * y1;
    let c: f64 = (1..=3).map(|k| k as f64 * (k as f64 * p).cos()).sum();
    let (s, (gm, gx)) = method_results_in_loop_grad(&m, x);
    assert_eq!(s.to_bits(), method_results_in_loop(&m, x).to_bits());
    assert_relative_eq!(gm.rate, c * (x[0] * y0 - x[1] * y1), max_relative = 1e-12);
    assert_relative_eq!(gx[0], c * (y1 + r * y0), max_relative = 1e-12);
    assert_relative_eq!(gx[1], c * (y0 - r * y1), max_relative = 1e-12);
    let (s3, (gm3, gx3)) = m.results_in_loop_grad(x);
    assert_eq!(s3.to_bits(), s.to_bits());
    assert_eq!((gm3.rate, gx3), (gm.rate, gx));
    let (s2, (gm2, gx2)) = method_results_in_loop_via_grad(&m, x);
    assert_eq!(s2.to_bits(), s.to_bits());
    // (The caller's sinks add the same terms in another order.)
    assert_relative_eq!(gm2.rate, gm.rate, max_relative = 1e-14);
    assert_relative_eq!(&gx2[..], &gx[..], max_relative = 1e-14);

    let (s, (gm, gx)) = method_vecs_in_loop_grad(&m, &x);
    assert_eq!(s.to_bits(), method_vecs_in_loop(&m, &x).to_bits());
    let f = |q: &[f64]| method_vecs_in_loop(&Decay { rate: q[0] }, &q[1..]);
    check::gradient(f, &[r, x[0], x[1]], &[gm.rate, gx[0], gx[1]]).unwrap();

    let (s2, (gm2, gx2)) = method_vecs_in_loop_via_grad(&m, &x);
    assert_eq!(s2.to_bits(), s.to_bits());
    assert_relative_eq!(gm2.rate, gm.rate, max_relative = 1e-14);
    assert_relative_eq!(&gx2[..], &gx[..], max_relative = 1e-14);
}

/// The same forms under the CPS backend (structs, nested containers and methods are rejected
/// there with a message naming the default backend).
mod under_cps {
    use super::*;

    #[reverse(cps)]
    fn carried_result(c: [f64; 2]) -> f64 {
        let mut s = 0.0;
        let mut prev = point(c, 0.5);
        for i in 0..3 {
            let p = [c[0] * i as f64, c[1]];
            s += p[0] * prev[1];
            prev = p;
        }
        s
    }

    #[reverse(cps)]
    fn call_in_map(w: Vec<f64>) -> f64 {
        let cv: Vec<f64> = w.iter().map(|&e| weighted_first(e, &w)).collect();
        cv[0] + cv[1]
    }

    #[reverse(cps)]
    fn if_of_arrays(a: f64, b: f64) -> f64 {
        let v = if a > b { [a, b] } else { [b, a] };
        v[0] * 2.0 + v[1]
    }

    #[reverse(cps)]
    fn temporaries(a: f64, b: f64, c: f64) -> f64 {
        let mut s: f64 = [a, b].iter().sum();
        for v in [a, b * c, c] {
            s += v * v;
        }
        s
    }

    #[reverse(cps)]
    fn chains(x: &[f64], w: f64) -> f64 {
        let it = x.iter().skip(1).map(|v| v * w);
        let s: f64 = it.sum();
        s
    }

    #[reverse(cps)]
    fn early_array(x: f64, y: f64) -> [f64; 2] {
        let a = x * y;
        if a > 1.0 {
            let b = a * 2.0;
            return [b, x];
        }
        let c = a.sin();
        if c < 0.0 {
            return [c, c * x];
        }
        [c * y, a]
    }

    #[test]
    fn agree_with_the_tape_backend() {
        let c = [0.7, -1.3];
        let (y, g) = carried_result_grad(c);
        assert_eq!(y.to_bits(), super::carried_result(c).to_bits());
        assert_eq!(g, super::carried_result_grad(c).1);
        let w = vec![0.4, -1.1, 2.5];
        let (y, g) = call_in_map_grad(w.clone());
        assert_eq!(y.to_bits(), super::call_in_map(w.clone()).to_bits());
        assert_eq!(g, super::call_in_map_grad(w).1);
        for (a, b) in [(0.3, -1.2), (-0.5, 2.0)] {
            assert_eq!(if_of_arrays_grad(a, b), super::if_of_arrays_grad(a, b));
        }
        let (a, b, c) = (0.7, -1.1, 0.4);
        let (y, (ga, gb, gc)) = temporaries_grad(a, b, c);
        assert_eq!(y.to_bits(), temporaries(a, b, c).to_bits());
        assert_relative_eq!(ga, 1.0 + 2.0 * a, max_relative = 1e-15);
        assert_relative_eq!(gb, 1.0 + 2.0 * b * c * c, max_relative = 1e-15);
        assert_relative_eq!(gc, 2.0 * b * b * c + 2.0 * c, max_relative = 1e-15);
        let x = [0.5, -1.5, 2.0];
        let (y, (gx, gw)) = chains_grad(&x, 0.3);
        assert_eq!(y.to_bits(), chains(&x, 0.3).to_bits());
        assert_eq!(gx, vec![0.0, 0.3, 0.3]);
        assert_relative_eq!(gw, x[1] + x[2], max_relative = 1e-15);
        for (x, y) in [(2.0, 0.9), (0.5, 0.3), (-0.5, 0.8)] {
            for seed in [[1.0, 0.0], [0.0, 1.0]] {
                let ours = early_array_vjp(x, y, seed);
                let tape = super::early_array_vjp(x, y, seed);
                assert_eq!(ours.0, tape.0);
                assert_relative_eq!(ours.1 .0, tape.1 .0, max_relative = 1e-15);
                assert_relative_eq!(ours.1 .1, tape.1 .1, max_relative = 1e-15);
            }
        }
    }
}

/// Fuzz finding 13: an element of a local 2-D array passed to an annotated callee, the array
/// written after the call (so the reverse sweep keeps a snapshot of it), in `f64` and `f32`.
mod two_d_element_as_call_argument {
    use revad::reverse;

    #[reverse]
    pub fn pair(a0: f64, a1: f64) -> (f64, f64) {
        (a0 * a1, a1.sin())
    }

    #[reverse]
    pub fn f(x0: f64, xs0: &[f64]) -> f64 {
        let mut q3: [[f64; 2]; 2] = [[0.0; 2]; 2];
        q3[1][1] += xs0[0].atan();
        let (tu6, tu7) = pair(q3[1][1], x0);
        q3[1][0] += tu6;
        tu6 + tu7 * q3[1][0]
    }

    #[reverse]
    pub fn g32(a0: f32, a1: f32) -> f32 {
        a0 * a1.cos()
    }

    #[reverse]
    pub fn f32_table(x0: f32) -> f32 {
        let mut q2: [[f32; 3]; 3] = [[0.0; 3]; 3];
        q2[2][1] = x0 * 2.0;
        let t = g32(q2[2][1], (0.5 * (2.5 - q2[2][1])).tanh());
        q2[0][0] = t;
        t * q2[0][0] + q2[2][1]
    }

    #[test]
    fn gradients_match_finite_differences() {
        let (v, (gx, gxs)) = f_grad(0.7, &[0.3]);
        assert_eq!(v, f(0.7, &[0.3]));
        revad::check::gradient(|p| f(p[0], &p[1..]), &[0.7, 0.3], &[gx, gxs[0]]).unwrap();
        // f32: against a central difference in f64 of the same function.
        let x = 0.4_f32;
        let (v, g) = f32_table_grad(x);
        assert_eq!(v, f32_table(x));
        let h = 1e-3_f32;
        let fd = (f32_table(x + h) - f32_table(x - h)) / (2.0 * h);
        assert!((g - fd).abs() <= 1e-2 * (1.0 + fd.abs()), "{g} vs {fd}");
    }
}

/// Fuzz finding 15: a 2-D local array after an early `return` is declared at the top of
/// `NAME_vjp` (hoisted); it must keep its element type, or `q[0][1].tan()` is E0689.
mod two_d_array_after_early_return {
    use revad::reverse;

    #[reverse]
    pub fn f(x: f32, n: usize) -> f32 {
        if x < (n as f32) {
            return x * 2.0;
        }
        let mut q: [[f32; 2]; 2] = [[0.0; 2]; 2];
        q[1][0] = q[0][1].tan() - x;
        q[1][0] * x
    }

    #[test]
    fn both_paths_have_their_closed_forms() {
        // n = 0: -(x) · x = -x², derivative -2x; n = 5: 2x, derivative 2.
        assert_eq!(f_grad(2.0, 0), (-4.0, -4.0));
        assert_eq!(f(2.0, 0), -4.0);
        assert_eq!(f_grad(2.0, 5), (4.0, 2.0));
    }
}

/// A particle with an array field.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Particle {
    /// Position.
    pub pos: [f64; 2],
    /// Charge.
    pub q: f64,
}

/// Rows of nested arrays and an array field assigned array literals: `p[i] = [a, b, c]`,
/// items reading the row they replace, a row copied whole, `out[i] = [..]` through `&mut`.
#[reverse]
fn rows_assigned_literals(xs: &[f64], w: f64) -> f64 {
    let n = xs.len();
    let mut p = vec![[0.0; 3]; n];
    for i in 0..n {
        p[i] = [xs[i] * w, xs[i].sin(), w];
        p[i] = [p[i][1], p[i][0] * p[i][2], p[i][0]];
    }
    let mut m = [[0.0; 2]; 2];
    m[0] = [w, xs[0]];
    m[1] = m[0];
    m[1][0] += w * w;
    let mut b = Particle {
        pos: [0.0; 2],
        q: w,
    };
    b.pos = [b.q * xs[0], m[1][0]];
    let mut s = b.pos[0] * b.pos[1] + m[0][0] * m[1][1];
    for i in 0..n {
        s += p[i][0] * p[i][1] + p[i][2].cos();
    }
    s
}

#[reverse]
fn rows_assigned_literals_via(xs: &[f64], w: f64) -> f64 {
    rows_assigned_literals(xs, w)
}

/// `out[i] = [x_i, x_i^2]` into a `&mut` slice of rows.
#[reverse]
fn write_rows(xs: &[f64], out: &mut [[f64; 2]]) {
    for i in 0..xs.len() {
        out[i] = [xs[i], xs[i] * xs[i]];
    }
}

#[reverse]
fn sum_of_written_rows(xs: &[f64]) -> f64 {
    let mut out = vec![[0.0; 2]; xs.len()];
    write_rows(xs, &mut out);
    let mut s = 0.0;
    for r in &out {
        s += r[0] * r[1];
    }
    s
}

#[test]
fn rows_and_array_fields_assigned_array_literals() {
    let (xs, w) = ([0.7, -1.2, 2.0], 0.4);
    let (_, (gx, gw)) = checked(
        rows_assigned_literals(&xs, w),
        rows_assigned_literals_grad(&xs, w),
        rows_assigned_literals_via_grad(&xs, w),
    );
    let mut at = xs.to_vec();
    at.push(w);
    let fd = check::finite_difference(|p| rows_assigned_literals(&p[..3], p[3]), &at);
    for (g, e) in gx.iter().chain([&gw]).zip(&fd) {
        assert_relative_eq!(*g, *e, max_relative = 1e-8);
    }
    // One point, by hand: p = [sin x, x w^2, x w], m = [[w, x], [w + w^2, x]],
    // pos = [w x, w + w^2]: s = w x (w + w^2) + w x + x w^2 sin x + cos(x w).
    let x = 0.7;
    let (s, (gx, gw)) = rows_assigned_literals_grad(&[x], w);
    let expect = w * x * (w + w * w) + w * x + x * w * w * x.sin() + (x * w).cos();
    assert_relative_eq!(s, expect, max_relative = 1e-15);
    let ds_dx = w * (w + w * w) + w + w * w * (x.sin() + x * x.cos()) - w * (x * w).sin();
    let ds_dw = x * (2.0 * w + 3.0 * w * w) + x + 2.0 * x * w * x.sin() - x * (x * w).sin();
    assert_relative_eq!(gx[0], ds_dx, max_relative = 1e-13);
    assert_relative_eq!(gw, ds_dw, max_relative = 1e-13);
    // Σ x^3: 3 x^2.
    let (s, gx) = sum_of_written_rows_grad(&xs);
    assert_relative_eq!(
        s,
        xs.iter().map(|x| x * x * x).sum::<f64>(),
        max_relative = 1e-15
    );
    for (g, x) in gx.iter().zip(&xs) {
        assert_relative_eq!(*g, 3.0 * x * x, max_relative = 1e-15);
    }
}

/// A polyline whose own `len` is a `usize` (the number of points): its calls are lengths, as
/// a container's are, and pass the check that they are `usize`s.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
struct Polyline {
    ys: Vec<f64>,
    scale: f64,
}

impl Polyline {
    fn len(&self) -> usize {
        self.ys.len()
    }

    /// `scale · Σ y_i / n`.
    #[reverse]
    fn mean_height(&self) -> f64 {
        let mut s = 0.0;
        for i in 0..self.len() {
            s += self.ys[i];
        }
        self.scale * s / self.len() as f64
    }
}

/// `mean_height(p) · n + w`.
#[reverse]
fn polyline_total(p: &Polyline, w: f64) -> f64 {
    let n = p.len() as f64;
    p.mean_height() * n + w * p.ys.len() as f64
}

#[test]
fn user_len_methods_returning_lengths() {
    let p = Polyline {
        ys: vec![0.5, -1.5, 2.5, 4.0],
        scale: 1.5,
    };
    let (v, g) = p.mean_height_grad();
    assert_eq!(v.to_bits(), p.mean_height().to_bits());
    let sum: f64 = p.ys.iter().sum();
    assert_relative_eq!(g.scale, sum / 4.0, max_relative = 1e-15);
    for gy in &g.ys {
        assert_relative_eq!(*gy, 1.5 / 4.0, max_relative = 1e-15);
    }
    // `scale · Σ y + 4 w`.
    let (v, (gp, gw)) = polyline_total_grad(&p, 0.25);
    assert_eq!(v.to_bits(), polyline_total(&p, 0.25).to_bits());
    assert_relative_eq!(gp.scale, sum, max_relative = 1e-15);
    for gy in &gp.ys {
        assert_relative_eq!(*gy, 1.5, max_relative = 1e-15);
    }
    assert_eq!(gw, 4.0);
}

/// A point whose methods take `self` by value.
#[derive(Clone, Copy, Debug, Default, PartialEq, revad::Adjoint)]
struct Pt {
    x: f64,
    y: f64,
}

#[revad::reverse]
impl Pt {
    /// `|p|`.
    #[reverse]
    fn magnitude(self) -> f64 {
        self.x.hypot(self.y)
    }

    /// `k p`.
    #[reverse]
    fn scaled(self, k: f64) -> Pt {
        Pt {
            x: self.x * k,
            y: self.y * k,
        }
    }

    /// `x y`, through a receiver the body changes.
    #[reverse]
    fn area(mut self) -> f64 {
        self.x *= self.y;
        self.x
    }
}

/// `2 |a| + |k a| + a_x a_y`, by calls of `self`-by-value methods on a parameter, on a call's
/// result, bound and not.
#[reverse]
fn by_value_receivers(a: Pt, k: f64) -> f64 {
    let s = a.scaled(k);
    2.0 * a.magnitude() + s.magnitude() + a.area() - a.scaled(k).magnitude() + s.magnitude()
}

#[reverse]
fn by_value_receivers_via(a: Pt, k: f64) -> f64 {
    by_value_receivers(a, k)
}

/// `|(2x, sin x)|`, of a local built from `Default::default()` and written field by field.
#[reverse]
#[allow(clippy::field_reassign_with_default)]
fn by_value_receiver_of_a_local(x: f64) -> f64 {
    let mut v: Pt = Default::default();
    v.x = 2.0 * x;
    v.y = x.sin();
    v.magnitude()
}

#[reverse]
fn by_value_receiver_of_a_local_via(x: f64) -> f64 {
    by_value_receiver_of_a_local(x)
}

#[test]
fn methods_taking_self_by_value() {
    let (a, k) = (Pt { x: 0.6, y: -0.8 }, 1.5);
    let (v, (ga, gk)) = by_value_receivers_grad(a, k);
    assert_eq!(v.to_bits(), by_value_receivers(a, k).to_bits());
    let (v_via, (ga_via, gk_via)) = by_value_receivers_via_grad(a, k);
    assert_eq!(v_via.to_bits(), v.to_bits());
    assert_eq!(
        (ga_via.x.to_bits(), ga_via.y.to_bits()),
        (ga.x.to_bits(), ga.y.to_bits())
    );
    assert_eq!(gk_via.to_bits(), gk.to_bits());
    // f = 2|a| + k|a| + x y (k > 0): ∂x = (2 + k) x/|a| + y, ∂y = (2 + k) y/|a| + x, ∂k = |a|.
    let r = a.x.hypot(a.y);
    assert_relative_eq!(ga.x, (2.0 + k) * a.x / r + a.y, max_relative = 1e-14);
    assert_relative_eq!(ga.y, (2.0 + k) * a.y / r + a.x, max_relative = 1e-14);
    assert_relative_eq!(gk, r, max_relative = 1e-14);
    let x = 0.7;
    let (_, g) = checked(
        by_value_receiver_of_a_local(x),
        by_value_receiver_of_a_local_grad(x),
        by_value_receiver_of_a_local_via_grad(x),
    );
    // d/dx sqrt(4x² + sin² x) = (4x + sin x cos x) / sqrt(..).
    let expect = (4.0 * x + x.sin() * x.cos()) / (4.0 * x * x + x.sin().powi(2)).sqrt();
    assert_relative_eq!(g, expect, max_relative = 1e-14);
    // The methods' own gradients.
    let (_, g) = a.area_grad();
    assert_eq!((g.x, g.y), (a.y, a.x));
}

/// `Σ` of `2 x_i`, `sin x_i`, `x_i^2` by `i mod 3`, with an `unreachable!()` arm, times `k`.
#[reverse]
#[revad::forward]
fn by_residue(xs: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for (i, x) in xs.iter().enumerate() {
        s += match i % 3 {
            0 => x * 2.0,
            1 => x.sin(),
            2 => x * x,
            _ => unreachable!(),
        };
    }
    s * k as f64
}

#[reverse]
fn by_residue_via(xs: &[f64], k: usize) -> f64 {
    by_residue(xs, k)
}

/// `sqrt(x) y^2 + y`, through branches that panic (`x <= 0`, `y >= 10`).
#[reverse]
fn checked_root(x: f64, y: f64) -> f64 {
    let r = if x > 0.0 {
        x.sqrt() * y
    } else {
        panic!("negative x: {x}")
    };
    let q = if y < 10.0 {
        (r * y, y)
    } else {
        unimplemented!()
    };
    q.0 + q.1
}

#[reverse]
fn checked_root_via(x: f64, y: f64) -> f64 {
    checked_root(x, y)
}

#[test]
fn branches_and_arms_that_panic() {
    let xs = [0.5, 2.0, -1.0, 1.5];
    let (_, g) = checked(
        by_residue(&xs, 2),
        by_residue_grad(&xs, 2),
        by_residue_via_grad(&xs, 2),
    );
    let expect = [4.0, 2.0 * 2.0_f64.cos(), -4.0, 4.0];
    for (g, e) in g.iter().zip(&expect) {
        assert_relative_eq!(*g, *e, max_relative = 1e-15);
    }
    let v = [1.0, -1.0, 0.5, 2.0];
    let (y, dy) = by_residue_jvp(&xs, 2, &v);
    assert_eq!(y.to_bits(), by_residue(&xs, 2).to_bits());
    let dot: f64 = expect.iter().zip(&v).map(|(g, v)| g * v).sum();
    assert_relative_eq!(dy, dot, max_relative = 1e-14);
    let (_, (gx, gy)) = checked(
        checked_root(4.0, 2.0),
        checked_root_grad(4.0, 2.0),
        checked_root_via_grad(4.0, 2.0),
    );
    // ∂x = y^2 / (2 sqrt x) = 1, ∂y = 2 sqrt(x) y + 1 = 9.
    assert_eq!((gx, gy), (1.0, 9.0));
    let panicked = std::panic::catch_unwind(|| checked_root_grad(-1.0, 2.0));
    let message = panicked.expect_err("the primal panics");
    assert_eq!(
        message.downcast_ref::<String>().map(String::as_str),
        Some("negative x: -1")
    );
    assert!(std::panic::catch_unwind(|| checked_root_grad(1.0, 20.0)).is_err());
}

/// `Σ x_i y_i + Σ x_i sin y_{i+1}`, by `std::iter::zip` in a `for` loop and in a chain.
#[reverse]
fn free_zip(xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in std::iter::zip(xs, ys) {
        s += x * y;
    }
    s + std::iter::zip(xs.iter(), &ys[1..])
        .map(|(a, b)| a * b.sin())
        .sum::<f64>()
}

#[reverse]
fn free_zip_via(xs: &[f64], ys: &[f64]) -> f64 {
    free_zip(xs, ys)
}

/// `out_i = x_i^2`, by `core::iter::zip` over `iter_mut()`.
#[reverse]
fn squares_into(xs: &[f64], out: &mut [f64]) {
    for (o, x) in core::iter::zip(out.iter_mut(), xs) {
        *o = x * x;
    }
}

#[reverse]
fn sum_of_squares_into(xs: &[f64]) -> f64 {
    let mut out = vec![0.0; xs.len()];
    squares_into(xs, &mut out);
    out.iter().sum()
}

#[test]
fn zips_by_the_free_function() {
    let (xs, ys) = ([0.5, 2.0, -1.0], [1.5, 2.5, 0.5]);
    let (_, (gx, gy)) = checked(
        free_zip(&xs, &ys),
        free_zip_grad(&xs, &ys),
        free_zip_via_grad(&xs, &ys),
    );
    let ex = [ys[0] + ys[1].sin(), ys[1] + ys[2].sin(), ys[2]];
    let ey = [
        xs[0],
        xs[1] + xs[0] * ys[1].cos(),
        xs[2] + xs[1] * ys[2].cos(),
    ];
    for (g, e) in gx.iter().zip(&ex).chain(gy.iter().zip(&ey)) {
        assert_relative_eq!(*g, *e, max_relative = 1e-15);
    }
    let (s, g) = sum_of_squares_into_grad(&xs);
    assert_eq!(s.to_bits(), sum_of_squares_into(&xs).to_bits());
    assert_eq!(g, vec![1.0, 4.0, -2.0]);
}

/// `y = w x∘x`, `z = sin y` by `[f64; 3]::map`: `y0 + y1 y2 + z2`.
#[reverse]
fn mapped_arrays(x: [f64; 3], w: f64) -> f64 {
    let y = x.map(|v| v * v * w);
    let z = y.map(f64::sin);
    y[0] + y[1] * y[2] + z[2]
}

#[reverse]
fn mapped_arrays_via(x: [f64; 3], w: f64) -> f64 {
    mapped_arrays(x, w)
}

/// `exp` of each, as the result.
#[reverse]
fn mapped_result(x: [f64; 2]) -> [f64; 2] {
    x.map(|v| v.exp())
}

#[test]
fn fixed_size_arrays_mapped() {
    let (x, w) = ([1.0, 2.0, 3.0], 0.5);
    let (_, (gx, gw)) = checked(
        mapped_arrays(x, w),
        mapped_arrays_grad(x, w),
        mapped_arrays_via_grad(x, w),
    );
    let y = x.map(|v| v * v * w);
    let ex = [
        2.0 * x[0] * w,
        2.0 * x[1] * w * y[2],
        2.0 * x[2] * w * (y[1] + y[2].cos()),
    ];
    let ew = x[0] * x[0] + x[1] * x[1] * y[2] + (y[1] + y[2].cos()) * x[2] * x[2];
    for (g, e) in gx.iter().zip(&ex) {
        assert_relative_eq!(*g, *e, max_relative = 1e-15);
    }
    assert_relative_eq!(gw, ew, max_relative = 1e-15);
    let (v, g) = mapped_result_vjp([0.5, 1.0], [1.0, 2.0]);
    assert_eq!(v, [0.5_f64.exp(), 1.0_f64.exp()]);
    assert_eq!(g, [0.5_f64.exp(), 2.0 * 1.0_f64.exp()]);
}

/// `Σ` of `x_i^2` where `i mod 3` is 0 or 2 and `x_i > 0`, else `sin x_i` where `b`; doubled
/// where `k > 2`: `matches!` with alternatives and with a guard, as flags.
#[reverse]
#[allow(clippy::redundant_pattern_matching)]
fn flags_by_matches(xs: &[f64], k: usize, b: bool) -> f64 {
    let mut s = 0.0;
    for (i, x) in xs.iter().enumerate() {
        if matches!(i % 3, 0 | 2) && *x > 0.0 {
            s += x * x;
        } else if matches!(b, true) {
            s += x.sin();
        }
    }
    let big = matches!(k, n if n > 2);
    if big {
        s * 2.0
    } else {
        s
    }
}

#[reverse]
fn flags_by_matches_via(xs: &[f64], k: usize, b: bool) -> f64 {
    flags_by_matches(xs, k, b)
}

#[test]
fn matches_as_flags() {
    let xs = [0.5, 2.0, -1.0, 1.5];
    for (k, b) in [(3, true), (1, false)] {
        let (_, g) = checked(
            flags_by_matches(&xs, k, b),
            flags_by_matches_grad(&xs, k, b),
            flags_by_matches_via_grad(&xs, k, b),
        );
        let fd = check::finite_difference(|p| flags_by_matches(p, k, b), &xs);
        for (g, e) in g.iter().zip(&fd) {
            assert_relative_eq!(*g, *e, epsilon = 1e-8, max_relative = 1e-7);
        }
    }
    // By hand at k = 3, b: 2 · (2 x0, cos x1, cos x2, 2 x3).
    let (_, g) = flags_by_matches_grad(&xs, 3, true);
    assert_eq!(g[0], 2.0);
    assert_relative_eq!(g[1], 2.0 * 2.0_f64.cos(), max_relative = 1e-15);
}

/// A struct named like a type parameter (`V2`), built by a method of a plain `impl` block.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
struct V2 {
    x: f64,
    y: f64,
}

impl V2 {
    /// `k v`.
    #[reverse]
    fn scaled(&self, k: f64) -> V2 {
        V2 {
            x: self.x * k,
            y: self.y * k,
        }
    }

    /// `|v|²`.
    #[reverse]
    fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }
}

/// `|k v|² = k² |v|²`.
#[reverse]
fn scaled_norm2(v: V2, k: f64) -> f64 {
    let s = v.scaled(k);
    s.norm2()
}

#[test]
fn structs_named_like_type_parameters() {
    let (v, k) = (V2 { x: 0.6, y: -0.8 }, 1.5);
    let (value, (gv, gk)) = scaled_norm2_grad(v, k);
    assert_eq!(value.to_bits(), scaled_norm2(v, k).to_bits());
    assert_relative_eq!(gv.x, 2.0 * k * k * v.x, max_relative = 1e-15);
    assert_relative_eq!(gv.y, 2.0 * k * k * v.y, max_relative = 1e-15);
    assert_relative_eq!(gk, 2.0 * k * (v.x * v.x + v.y * v.y), max_relative = 1e-15);
}

/// `z y + f64::from(x) m` with `z: f64 = x.into()` and `m: f64 = n.into()`.
#[reverse]
fn widened(x: f32, y: f64, n: i32) -> f64 {
    let z: f64 = x.into();
    let m: f64 = n.into();
    z * y + f64::from(x) * m
}

#[test]
fn floats_widened_by_into() {
    let (v, (gx, gy)) = widened_grad(1.5, 2.0, 3);
    assert_eq!(v.to_bits(), widened(1.5, 2.0, 3).to_bits());
    assert_eq!((gx, gy), (5.0, 1.5));
}

/// `x_i x_1` of `x_i` where it exists, else 0: `let .. else` returning from the body.
#[reverse]
fn element_or_return(xs: &[f64], i: usize) -> f64 {
    let Some(&m) = xs.get(i) else {
        return 0.0;
    };
    m * xs[1]
}

#[reverse]
fn element_or_return_via(xs: &[f64], i: usize) -> f64 {
    element_or_return(xs, i)
}

/// `Σ_j 1.5^(n - j) x_{i+j}²` over the `j` whose element exists (`let .. else { break }` in a
/// loop), then `max x · x_0` (`let .. else` of a reduction, and a `panic!` in the `else`).
#[reverse]
fn elements_until_missing(xs: &[f64], i: usize) -> f64 {
    let mut s = 0.0;
    for j in 0..4 {
        let Some(v) = xs.get(i + j) else {
            break;
        };
        s += v * v;
        s *= 1.5;
    }
    let Some(top) = xs.iter().copied().reduce(f64::max) else {
        return s;
    };
    let Some(first) = xs.first() else {
        panic!("no first element");
    };
    s + top * first
}

#[reverse]
fn elements_until_missing_via(xs: &[f64], i: usize) -> f64 {
    elements_until_missing(xs, i)
}

#[test]
fn let_else_of_elements_and_reductions() {
    let xs = [1.0, 2.0, 3.0, -0.5];
    for i in [0, 2, 3, 7] {
        let (_, g) = checked(
            element_or_return(&xs, i),
            element_or_return_grad(&xs, i),
            element_or_return_via_grad(&xs, i),
        );
        let mut want = [0.0; 4];
        if i < xs.len() {
            want[i] += xs[1];
            want[1] += xs[i];
        }
        assert_eq!(g, want, "at i = {i}");
        let (_, g) = checked(
            elements_until_missing(&xs, i),
            elements_until_missing_grad(&xs, i),
            elements_until_missing_via_grad(&xs, i),
        );
        let fd = check::finite_difference(|p| elements_until_missing(p, i), &xs);
        for (g, e) in g.iter().zip(&fd) {
            assert_relative_eq!(*g, *e, epsilon = 1e-8, max_relative = 1e-7);
        }
    }
    // At i = 2: s = 1.5 (1.5 x2² + x3²), max = x2, first = x0.
    let (_, g) = elements_until_missing_grad(&xs, 2);
    assert_eq!(g[0], 3.0);
    assert_eq!(g[2], 1.5 * 1.5 * 2.0 * 3.0 + 1.0);
    assert_eq!(g[3], 1.5 * 2.0 * -0.5);
    assert_eq!(elements_until_missing(&[], 0), 0.0);
}

/// `p = (2 x_0, x_1 + x_0, x_2 + x_1)` by `std::array::from_fn`, and `q_k = k p_k`:
/// `p_0 p_1 + p_2 + Σ q`.
#[reverse]
fn arrays_from_fn(xs: &[f64]) -> f64 {
    let p: [f64; 3] = std::array::from_fn(|i| {
        if i == 0 {
            2.0 * xs[0]
        } else {
            xs[i] + xs[i - 1]
        }
    });
    let q: [f64; 3] = core::array::from_fn(|k: usize| k as f64 * p[k]);
    p[0] * p[1] + p[2] + q.iter().sum::<f64>()
}

#[reverse]
fn arrays_from_fn_via(xs: &[f64]) -> f64 {
    arrays_from_fn(xs)
}

#[test]
fn arrays_built_by_from_fn() {
    let xs = [1.0, 2.0, 3.0];
    let (v, g) = checked(
        arrays_from_fn(&xs),
        arrays_from_fn_grad(&xs),
        arrays_from_fn_via_grad(&xs),
    );
    // p = (2, 3, 5), q = (0, 3, 10): 6 + 5 + 13.
    assert_eq!(v, 24.0);
    // f = 2 x0 (x1 + x0) + x2 + x1 + (x1 + x0) + 2 (x2 + x1).
    assert_eq!(g, [4.0 * xs[0] + 2.0 * xs[1] + 1.0, 2.0 * xs[0] + 4.0, 3.0]);
}

/// `k Σ x_i y_i + Σ (x_i - y_i) + Σ i y_i + y_0` over a slice of pairs, destructured by
/// reference patterns: `for &(x, y) in pts`, `|&(x, y)|`, `for (i, &(_, y)) in ..enumerate()`.
#[reverse]
fn pairs_destructured(pts: &[(f64, f64)], k: f64) -> f64 {
    let mut s = 0.0;
    for &(x, y) in pts {
        s += x * y * k;
    }
    for (i, &(_, y)) in pts.iter().enumerate() {
        s += i as f64 * y;
    }
    s + pts.iter().map(|&(x, y)| x - y).sum::<f64>() + pts[0].1
}

#[reverse]
fn pairs_destructured_via(pts: &[(f64, f64)], k: f64) -> f64 {
    pairs_destructured(pts, k)
}

#[test]
fn slices_of_pairs_destructured_by_reference_patterns() {
    let (pts, k) = ([(1.0, 2.0), (3.0, 4.0), (-0.5, 1.5)], 0.5);
    let (v, (g, gk)) = checked(
        pairs_destructured(&pts, k),
        pairs_destructured_grad(&pts, k),
        pairs_destructured_via_grad(&pts, k),
    );
    // k (2 + 12 - 0.75) + (4 + 3) + (-1 - 1 - 2) + 2.
    assert_eq!(v, 0.5 * 13.25 + 7.0 - 4.0 + 2.0);
    let want = [
        (k * 2.0 + 1.0, k * 1.0 - 1.0 + 1.0),
        (k * 4.0 + 1.0, k * 3.0 + 1.0 - 1.0),
        (k * 1.5 + 1.0, k * -0.5 + 2.0 - 1.0),
    ];
    assert_eq!(g, want);
    assert_eq!(gk, 13.25);
}

/// Raw identifiers as parameters, locals (shadowed too), tuple bindings and fields:
/// `x · type · 2x + (x + type)` with `in = 2x`.
#[reverse]
#[revad::forward]
fn raw_identifiers(x: f64, r#type: f64) -> f64 {
    let r#in = x * 2.0;
    let r#in = r#in * r#type;
    let r#pair = (x, r#type);
    r#in * x + r#pair.0 + r#pair.1
}

#[reverse]
fn raw_identifiers_via(x: f64, r#type: f64) -> f64 {
    raw_identifiers(x, r#type)
}

#[test]
fn raw_identifiers_are_names_like_any() {
    let (x, t) = (1.5, -2.0);
    let (v, (dx, dt)) = checked(
        raw_identifiers(x, t),
        raw_identifiers_grad(x, t),
        raw_identifiers_via_grad(x, t),
    );
    assert_eq!(v, 2.0 * x * x * t + x + t);
    assert_eq!((dx, dt), (4.0 * x * t + 1.0, 2.0 * x * x + 1.0));
    assert_eq!(raw_identifiers_jvp(x, t, 1.0, 0.0).1, dx);
}

/// A body whose position is a struct of the user's.
#[derive(Clone, Debug, revad::Adjoint)]
struct Body2 {
    pos: Pt,
    mass: f64,
}

/// `Σ` over `n` steps of `a_x a_y`, with `a` a typed copy of the body's position written field
/// by field (`let mut a: Pt = b.pos; a.x = ..`), which leaves `b` as it was.
#[reverse]
fn typed_copies_of_struct_fields(b: &Body2, k: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for _ in 0..n {
        let mut a: Pt = b.pos;
        a.x = a.x * k + s * b.mass;
        s += a.x * a.y;
    }
    s + b.pos.x
}

#[reverse]
fn typed_copies_of_struct_fields_via(b: &Body2, k: f64, n: usize) -> f64 {
    typed_copies_of_struct_fields(b, k, n)
}

#[test]
fn typed_copies_of_struct_fields_written_field_by_field() {
    let b = Body2 {
        pos: Pt { x: 1.5, y: 0.5 },
        mass: 0.25,
    };
    let (k, n) = (1.2, 3);
    let (v, (gb, gk)) = typed_copies_of_struct_fields_grad(&b, k, n);
    let (v_via, (gb_via, gk_via)) = typed_copies_of_struct_fields_via_grad(&b, k, n);
    assert_eq!(v.to_bits(), v_via.to_bits());
    assert_eq!((&gb.pos, gb.mass, gk), (&gb_via.pos, gb_via.mass, gk_via));
    // One step: s = k x y + x.
    let (_, (g1, gk1)) = typed_copies_of_struct_fields_grad(&b, k, 1);
    assert_eq!(gk1, b.pos.x * b.pos.y);
    assert_eq!((g1.pos.x, g1.pos.y), (k * b.pos.y + 1.0, k * b.pos.x));
    let at = |x: f64, y: f64, m: f64, k: f64| {
        let b = Body2 {
            pos: Pt { x, y },
            mass: m,
        };
        typed_copies_of_struct_fields(&b, k, n)
    };
    let fd = check::finite_difference(|p| at(p[0], p[1], p[2], p[3]), &[1.5, 0.5, 0.25, k]);
    for (g, e) in [gb.pos.x, gb.pos.y, gb.mass, gk].iter().zip(&fd) {
        assert_relative_eq!(*g, *e, epsilon = 1e-8, max_relative = 1e-7);
    }
    assert_eq!(v.to_bits(), at(1.5, 0.5, 0.25, k).to_bits());
}

/// `let z;` given its value by the next statement: an assignment, an `if` chain whose
/// branches end in one, a `match` whose arms do (`let mut` too).
#[allow(
    clippy::needless_late_init,
    reason = "the late initializations are the forms under test"
)]
#[reverse]
fn deferred_values(x: f64, y: f64) -> f64 {
    let z: f64;
    if x > y {
        let t = x * y;
        z = t.sin();
    } else if x < 0.0 {
        z = x + y;
    } else {
        z = y;
    }
    let mut w;
    match (x > 1.0, y > 1.0) {
        (true, _) => w = z * 2.0,
        (false, true) => {
            w = z * z;
        }
        _ => w = 0.5,
    }
    w += 1.0;
    let q;
    q = w * x;
    q
}

#[reverse]
fn deferred_values_via(x: f64, y: f64) -> f64 {
    deferred_values(x, y)
}

#[test]
fn lets_given_their_value_by_the_next_statement() {
    // x > y: q = (2 sin(x y) + 1) x
    let (x, y) = (2.0, 1.5);
    let (_, (dx, dy)) = checked(
        deferred_values(x, y),
        deferred_values_grad(x, y),
        deferred_values_via_grad(x, y),
    );
    let c = (x * y).cos();
    assert_relative_eq!(
        dx,
        2.0 * c * y * x + 2.0 * (x * y).sin() + 1.0,
        max_relative = 1e-15
    );
    assert_relative_eq!(dy, 2.0 * c * x * x, max_relative = 1e-15);
    // Every branch: against finite differences.
    for (x, y) in [(2.0, 1.5), (-0.5, 1.5), (-0.5, 0.5), (0.5, 0.7), (1.2, 3.0)] {
        let (_, (dx, dy)) = checked(
            deferred_values(x, y),
            deferred_values_grad(x, y),
            deferred_values_via_grad(x, y),
        );
        check::gradient(|p| deferred_values(p[0], p[1]), &[x, y], &[dx, dy]).unwrap();
    }
}

// ---- `fn` items inside the function -----------------------------------------------------
// A `fn` item taking floats runs as a closure declared at the start of its block (an item is
// visible in all of it); one taking only integers stays an item, recursive or not.

/// A constant the items read.
const WEIGHT: f64 = 3.0;

/// Items called before they are written, one calling another, one over a slice, one mapped
/// by name.
#[reverse]
#[allow(
    clippy::items_after_statements,
    reason = "items after statements are a form #[reverse] must handle"
)]
fn nested_fns(x: f64, w: &[f64]) -> f64 {
    let y = cube(x) + sq(2.0 * x);
    fn sq(v: f64) -> f64 {
        v * v * WEIGHT
    }
    fn cube(v: f64) -> f64 {
        sq(v) * v
    }
    fn norm2(a: &[f64]) -> f64 {
        a.iter().map(|v| v * v).sum()
    }
    fn act(v: f64) -> f64 {
        v.tanh()
    }
    y + norm2(w) * x
        + w.iter().map(|&v| sq(v)).sum::<f64>()
        + w.iter().copied().map(act).sum::<f64>()
}

#[reverse]
fn nested_fns_via(x: f64, w: &[f64]) -> f64 {
    nested_fns(x, w)
}

/// An item returning a tuple, and integer items (one recursive) that stay items.
#[reverse]
fn nested_fns_of_tuples_and_integers(x: f64, y: f64) -> f64 {
    fn polar(a: f64, b: f64) -> (f64, f64) {
        ((a * a + b * b).sqrt(), b.atan2(a))
    }
    fn factorial(n: u32) -> f64 {
        if n == 0 {
            1.0
        } else {
            n as f64 * factorial(n - 1)
        }
    }
    fn index(i: usize, j: usize) -> usize {
        i * 2 + j
    }
    let (r, t) = polar(x, y);
    r * t.sin() * factorial(4) + x * index(1, 1) as f64
}

#[reverse]
fn nested_fns_of_tuples_and_integers_via(x: f64, y: f64) -> f64 {
    nested_fns_of_tuples_and_integers(x, y)
}

#[test]
fn fn_items_inside_the_function() {
    let (x, w) = (1.2, [0.5, -1.0, 2.0]);
    let (v, (dx, dw)) = checked(
        nested_fns(x, &w),
        nested_fns_grad(x, &w),
        nested_fns_via_grad(x, &w),
    );
    let n2: f64 = w.iter().map(|v| v * v).sum();
    // 3x³ + 12x² + x |w|² + 3|w|² + Σ tanh w.
    let th: f64 = w.iter().map(|v| v.tanh()).sum();
    assert_relative_eq!(
        v,
        3.0 * x * x * x + 12.0 * x * x + n2 * x + 3.0 * n2 + th,
        max_relative = 1e-14
    );
    assert_relative_eq!(dx, 9.0 * x * x + 24.0 * x + n2, max_relative = 1e-14);
    for (d, wi) in dw.iter().zip(w) {
        let want = 2.0 * wi * x + 6.0 * wi + 1.0 - wi.tanh().powi(2);
        assert_relative_eq!(*d, want, max_relative = 1e-14);
    }

    let (x, y) = (0.6, 0.8);
    let (v, (dx, dy)) = checked(
        nested_fns_of_tuples_and_integers(x, y),
        nested_fns_of_tuples_and_integers_grad(x, y),
        nested_fns_of_tuples_and_integers_via_grad(x, y),
    );
    // r sin t = y: 24 y + 3 x.
    assert_relative_eq!(v, 24.0 * y + 3.0 * x, max_relative = 1e-14);
    assert_relative_eq!(dx, 3.0, epsilon = 1e-13);
    assert_relative_eq!(dy, 24.0, max_relative = 1e-14);
}

// ---- forms found by probing application code and ports of other systems' tests ----------

/// The logistic function, passed by name to `map`.
#[reverse]
fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// An annotated function passed by name to `map`; a nested array sized by `len() - 1`; a
/// reduction bound by `let` and read through its reference; elements of `xs.iter()` by
/// `nth`, `next` and `last`.
#[reverse]
#[allow(
    clippy::iter_nth,
    clippy::iter_next_slice,
    reason = "the iterator forms are what #[reverse] must handle"
)]
fn probed_forms(x: &[f64]) -> f64 {
    let s: f64 = x.iter().copied().map(logistic).sum();
    let n = x.len() - 1;
    let mut p = vec![[0.0; 2]; n];
    p[n - 1][1] = x[0] * x[1];
    let m = x.iter().min_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    let second = x.iter().nth(1).unwrap();
    let first = x.iter().next().unwrap();
    let last = x.iter().last().unwrap();
    s + p[n - 1][1] + *m * 2.0 + second * last - first
}

#[reverse]
fn probed_forms_via(x: &[f64]) -> f64 {
    probed_forms(x)
}

#[test]
fn functions_by_name_lengths_and_iterator_elements() {
    let x = [0.5, -1.0, 2.0];
    let (v, dx) = checked(
        probed_forms(&x),
        probed_forms_grad(&x),
        probed_forms_via_grad(&x),
    );
    let sig = |v: f64| 1.0 / (1.0 + (-v).exp());
    let s: f64 = x.iter().map(|&v| sig(v)).sum();
    // s + x0 x1 + 2 min + x1 x2 - x0, the minimum x1.
    assert_relative_eq!(
        v,
        s + x[0] * x[1] + 2.0 * x[1] + x[1] * x[2] - x[0],
        max_relative = 1e-15
    );
    let ds = |v: f64| sig(v) * (1.0 - sig(v));
    let want = [
        ds(x[0]) + x[1] - 1.0,
        ds(x[1]) + x[0] + 2.0 + x[2],
        ds(x[2]) + x[1],
    ];
    for (d, w) in dx.iter().zip(want) {
        assert_relative_eq!(*d, w, max_relative = 1e-14);
    }
}

/// A constant table of the crate, indexed by an integer computed from a float.
const SQUARES: [f64; 5] = [0.0, 1.0, 4.0, 9.0, 16.0];

/// `SQUARES[i] t + SQUARES[i + 1] t²` with `i = ⌊t⌋`: the elements are floats, stored for
/// the reverse sweep.
#[reverse]
fn table_lookup(t: f64) -> f64 {
    let i = t.floor() as usize;
    SQUARES[i] * t + SQUARES[i + 1] * t * t
}

#[test]
fn constant_tables_indexed_by_integers_from_floats() {
    let (v, d) = table_lookup_grad(2.5);
    assert_eq!(v.to_bits(), table_lookup(2.5).to_bits());
    assert_eq!(v, 4.0 * 2.5 + 9.0 * 6.25);
    assert_eq!(d, 4.0 + 2.0 * 9.0 * 2.5);
}

/// Two-point Gauss–Legendre nodes and weights on [-1, 1].
const GAUSS: [(f64, f64); 2] = [
    (-0.577_350_269_189_625_7, 1.0),
    (0.577_350_269_189_625_7, 1.0),
];

/// Exponents and coefficients of a polynomial.
const TERMS: [(i32, f64); 3] = [(1, 0.5), (2, 0.25), (3, 0.125)];

/// `∫_{-1}^{1} e^{x t} dt` by the rule, three ways over the table of tuples, and a polynomial
/// whose table gives `powi` its exponents.
#[reverse]
fn tables_of_tuples(x: f64) -> f64 {
    let mut a = 0.0;
    for &(t, w) in GAUSS.iter() {
        a += w * (x * t).exp();
    }
    let mut b = 0.0;
    for (t, w) in GAUSS {
        b += w * (x * t).exp();
    }
    let c: f64 = GAUSS.iter().map(|&(t, w)| w * (x * t).exp()).sum();
    let mut p = 0.0;
    for &(k, coef) in TERMS.iter() {
        p += coef * x.powi(k);
    }
    a + 2.0 * b + 3.0 * c + p
}

#[reverse]
fn tables_of_tuples_via(x: f64) -> f64 {
    tables_of_tuples(x)
}

#[test]
fn constant_tables_of_tuples() {
    let x = 0.7;
    let (v, d) = checked(
        tables_of_tuples(x),
        tables_of_tuples_grad(x),
        tables_of_tuples_via_grad(x),
    );
    let t = GAUSS[1].0;
    let rule = (x * t).exp() + (-x * t).exp();
    let drule = t * (x * t).exp() - t * (-x * t).exp();
    let p = 0.5 * x + 0.25 * x * x + 0.125 * x * x * x;
    let dp = 0.5 + 0.5 * x + 0.375 * x * x;
    assert_relative_eq!(v, 6.0 * rule + p, max_relative = 1e-14);
    assert_relative_eq!(d, 6.0 * drule + dp, max_relative = 1e-14);
}

/// Constants from functions the macro does not see into, as a tuple and as a vector.
fn constant_pair() -> (f64, f64) {
    (2.0, 1.0)
}

/// See [`constant_pair`].
fn constant_vec() -> Vec<f64> {
    vec![4.0, 0.5]
}

/// The parts of an unseen call's results beside floats are floats: `s c.0 + s / v[0]`,
/// stored for the reverse sweep (the division reads its divisor).
#[reverse]
fn parts_of_unseen_results(s: f64) -> f64 {
    let v = constant_vec();
    s * constant_pair().0 + s / v[0] + s * s * v[1]
}

#[test]
fn parts_of_results_of_unseen_calls() {
    let (v, d) = parts_of_unseen_results_grad(3.0);
    assert_eq!(v.to_bits(), parts_of_unseen_results(3.0).to_bits());
    assert_eq!(v, 6.0 + 0.75 + 4.5);
    assert_eq!(d, 2.0 + 0.25 + 3.0);
}

/// The determinant by Gaussian elimination with partial pivoting: rows of a
/// `Vec<Vec<f64>>` exchanged by `swap`.
#[reverse]
fn pivoted_determinant(m: &[Vec<f64>]) -> f64 {
    let mut a = m.to_vec();
    let n = a.len();
    let mut det = 1.0;
    for col in 0..n {
        let mut piv = col;
        for r in col + 1..n {
            if a[r][col].abs() > a[piv][col].abs() {
                piv = r;
            }
        }
        if piv != col {
            a.swap(col, piv);
            det = -det;
        }
        det *= a[col][col];
        for r in col + 1..n {
            let f = a[r][col] / a[col][col];
            for c in col..n {
                a[r][c] -= f * a[col][c];
            }
        }
    }
    det
}

#[reverse]
fn pivoted_determinant_via(m: &[Vec<f64>]) -> f64 {
    pivoted_determinant(m)
}

/// Rows of an array of arrays exchanged by `swap`, with an index computed in place.
#[reverse]
fn swapped_rows(m: [[f64; 2]; 2], k: usize) -> f64 {
    let mut a = m;
    a.swap(0, k + 1);
    a[0][0] * 2.0 + a[1][1]
}

#[test]
fn rows_of_nested_containers_swapped() {
    let m = vec![
        vec![1.0, 2.0, 0.5],
        vec![4.0, 1.0, 2.0],
        vec![0.3, 5.0, 1.0],
    ];
    let (v, dm) = checked(
        pivoted_determinant(&m),
        pivoted_determinant_grad(&m),
        pivoted_determinant_via_grad(&m),
    );
    assert_relative_eq!(v, -5.95, max_relative = 1e-14);
    // The gradient of the determinant is the cofactor matrix.
    let cof = [[-9.0, -3.4, 19.7], [0.5, 0.85, -4.4], [3.5, 0.0, -7.0]];
    for (row, want) in dm.iter().zip(cof) {
        for (d, w) in row.iter().zip(want) {
            assert_relative_eq!(*d, w, epsilon = 1e-13);
        }
    }
    let (v, dm) = swapped_rows_grad([[1.0, 2.0], [3.0, 4.0]], 0);
    assert_eq!(v, 3.0 * 2.0 + 2.0);
    assert_eq!(dm, [[0.0, 1.0], [2.0, 0.0]]);
}

/// Two floats exchanged by `std::mem::swap` in a loop: `(a, b) ← (b/2 + a, b)` after the
/// exchange, three times.
#[reverse]
fn swapped_floats(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..3 {
        std::mem::swap(&mut a, &mut b);
        a = a * 0.5 + b;
    }
    a * b
}

#[reverse]
fn swapped_floats_via(x: f64, y: f64) -> f64 {
    swapped_floats(x, y)
}

/// Smoothing with two buffers, exchanged by `mem::swap` after each pass (the time-stepping
/// idiom).
#[reverse]
fn double_buffered(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..4 {
        for i in 1..n - 1 {
            next[i] = 0.25 * cur[i - 1] + 0.5 * cur[i] + 0.25 * cur[i + 1];
        }
        next[0] = cur[0];
        next[n - 1] = cur[n - 1] * cur[n - 2];
        std::mem::swap(&mut cur, &mut next);
    }
    cur.iter().map(|v| v * v).sum()
}

/// Arrays exchanged by `core::mem::swap`, floats behind `&mut` references by `mem::swap(a, b)`,
/// and `mem::replace` returning the old value.
#[reverse]
fn swapped_arrays(x: [f64; 3]) -> f64 {
    let mut a = x;
    let mut b = [0.0; 3];
    for _ in 0..2 {
        for i in 0..3 {
            b[i] = a[(i + 1) % 3] * a[i];
        }
        core::mem::swap(&mut a, &mut b);
    }
    a[0] + a[1] * b[2]
}

#[reverse]
fn swapped_through_references(x: f64, a: &mut f64, b: &mut f64) -> f64 {
    *a = x * 2.0;
    *b = x * x;
    std::mem::swap(a, b);
    *a * 3.0 + *b
}

#[reverse]
fn replaced(x: f64) -> f64 {
    let mut a = x * x;
    let old = std::mem::replace(&mut a, x.sin());
    old * a
}

#[test]
fn values_exchanged_by_mem_swap_and_replace() {
    let f = |v: &[f64]| swapped_floats(v[0], v[1]);
    let (v, (dx, dy)) = checked(
        swapped_floats(1.0, 2.0),
        swapped_floats_grad(1.0, 2.0),
        swapped_floats_via_grad(1.0, 2.0),
    );
    assert_eq!(v, 8.75);
    fd::close_all(&[dx, dy], &fd::fd(f, &[1.0, 2.0]));

    let x = [1.0, 2.0, 3.0, 4.0, 0.5];
    let (v, dx) = double_buffered_grad(&x);
    assert_eq!(v.to_bits(), double_buffered(&x).to_bits());
    fd::close_all(&dx, &fd::fd(double_buffered, &x));

    let x = [1.0, 2.0, 3.0];
    let (v, dx) = swapped_arrays_grad(x);
    assert_eq!(v.to_bits(), swapped_arrays(x).to_bits());
    let g = |v: &[f64]| swapped_arrays([v[0], v[1], v[2]]);
    fd::close_all(&dx, &fd::fd(g, &x));

    // a = x², b = 2x after the exchange: 3x² + 2x, and the references hold them.
    let (mut a, mut b) = (0.0, 0.0);
    let (v, (dx, _, _)) = swapped_through_references_grad(1.5, &mut a, &mut b);
    assert_eq!((v, dx, a, b), (9.75, 11.0, 2.25, 3.0));

    // x² sin x.
    let (v, d) = replaced_grad(0.7);
    assert_eq!(v.to_bits(), replaced(0.7).to_bits());
    assert_relative_eq!(
        d,
        2.0 * 0.7 * 0.7_f64.sin() + 0.49 * 0.7_f64.cos(),
        max_relative = 1e-14
    );
}

/// Rows of `mut` nested arrays read whole (`let t = m[0];`), assigned from other rows and
/// from `Vec`s (`rows[2] = x.to_vec();`).
#[allow(
    clippy::manual_swap,
    reason = "rows read and assigned whole are the form tested"
)]
#[reverse]
fn rows_read_whole(m: &mut [[f64; 2]; 2], x: f64) -> f64 {
    m[0][0] *= x;
    let t = m[0];
    m[0] = m[1];
    m[1] = t;
    m[0][1] + t[0] * x + m[1][0]
}

#[reverse]
fn rows_of_a_local(x: f64) -> f64 {
    let mut m = [[0.0; 2]; 2];
    m[0][0] = x;
    m[1][1] = x * x;
    let t = m[1];
    m[1] = m[0];
    t[1] + m[1][0] * t[1]
}

#[reverse]
fn rows_assigned_vectors(x: &[f64]) -> f64 {
    let mut rows = vec![vec![0.0; 2]; 3];
    rows[2] = x.to_vec();
    rows[0] = rows[2].clone();
    rows[1][1] = x[0] * 3.0;
    let r = &rows[1];
    rows[2][0] * x[1] + r[1] * rows[0][1]
}

#[reverse]
fn rows_assigned_arrays(x: &[f64]) -> f64 {
    let mut rows = vec![[0.0; 2]; x.len()];
    for i in 0..x.len() {
        rows[i] = [x[i], x[i] * x[i]];
    }
    let mut s = 0.0;
    for p in &rows {
        s += p[0] * p[1];
    }
    let last = rows[x.len() - 1];
    s + last[1]
}

#[test]
fn rows_of_mutable_nested_containers_read_and_assigned_whole() {
    // m = [[1, 2], [3, 4]]: m11 + m00 x² + m00 x.
    let mut m = [[1.0, 2.0], [3.0, 4.0]];
    let (v, (dm, dx)) = rows_read_whole_grad(&mut m, 2.0);
    assert_eq!(v, 4.0 + 2.0 * 2.0 + 2.0);
    assert_eq!(dm, [[4.0 + 2.0, 0.0], [0.0, 1.0]]);
    assert_eq!(dx, 2.0 * 2.0 + 1.0);
    assert_eq!(m, [[3.0, 4.0], [2.0, 2.0]]);

    // x² + x³.
    let (v, d) = rows_of_a_local_grad(1.5);
    assert_eq!(v, 1.5 * 1.5 + 1.5 * 1.5 * 1.5);
    assert_eq!(d, 2.0 * 1.5 + 3.0 * 1.5 * 1.5);

    // x0 x1 + 3 x0 x1.
    let x = [1.5, 2.0];
    let (v, dx) = rows_assigned_vectors_grad(&x);
    assert_eq!(v, 4.0 * 1.5 * 2.0);
    assert_eq!(dx, [4.0 * 2.0, 4.0 * 1.5]);

    // Σ x³ + x_last².
    let (v, dx) = rows_assigned_arrays_grad(&x);
    assert_eq!(v.to_bits(), rows_assigned_arrays(&x).to_bits());
    assert_eq!(dx, [3.0 * 1.5 * 1.5, 3.0 * 4.0 + 4.0]);
}

/// The right-hand side of the Van der Pol oscillator, `[v, μ (1 - x²) v - x]`.
#[reverse]
fn van_der_pol(s: [f64; 2], mu: f64) -> [f64; 2] {
    [s[1], mu * (1.0 - s[0] * s[0]) * s[1] - s[0]]
}

/// An array result taken apart by a pattern, from the call and from a name bound to it.
#[reverse]
fn euler_steps(x: f64, mu: f64) -> f64 {
    let [dx, dv] = van_der_pol([x, 1.0], mu);
    let r = van_der_pol([x + 0.1 * dx, 1.0 + 0.1 * dv], mu);
    let [a, mut b] = r;
    b += a;
    a * b
}

#[test]
fn arrays_taken_apart_from_call_results() {
    let f = |v: &[f64]| euler_steps(v[0], v[1]);
    let (v, (dx, dmu)) = euler_steps_grad(0.5, 2.0);
    assert_eq!(v.to_bits(), euler_steps(0.5, 2.0).to_bits());
    fd::close_all(&[dx, dmu], &fd::fd(f, &[0.5, 2.0]));
}

/// An augmented matrix sized by a local integer and by arithmetic on it (`vec![vec![0.0; n +
/// 1]; n]`), as Gaussian elimination builds it: the solution of `diag(d) y = b`, summed.
#[reverse]
fn augmented_solve(d: &[f64], b: &[f64]) -> f64 {
    let n = 3;
    let mut m = vec![vec![0.0; n + 1]; n];
    for i in 0..n {
        m[i][i] = d[i];
        m[i][n] = b[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += m[i][n] / m[i][i];
    }
    s
}

#[test]
fn nested_vectors_sized_by_local_integers() {
    let (d, b) = ([2.0, 4.0, 0.5], [1.0, 2.0, 3.0]);
    let (v, (dd, db)) = augmented_solve_grad(&d, &b);
    assert_eq!(v, 0.5 + 0.5 + 6.0);
    for i in 0..3 {
        assert_relative_eq!(dd[i], -b[i] / (d[i] * d[i]), max_relative = 1e-15);
        assert_relative_eq!(db[i], 1.0 / d[i], max_relative = 1e-15);
    }
}

/// The arg max by `enumerate().max_by(..)`, taken apart into the index and the item, or
/// mapped to the index.
#[reverse]
fn weighted_max(x: &[f64]) -> f64 {
    let (imax, vmax) = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    vmax * (imax as f64 + 1.0)
}

#[reverse]
fn doubled_min(x: &[f64]) -> f64 {
    let i = x
        .iter()
        .copied()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
        .unwrap();
    let (_, &m) = x
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    x[i] * 2.0 + m
}

#[test]
fn arg_max_and_min_by_enumerate() {
    let x = [1.0, 3.0, 2.0];
    assert_eq!(weighted_max_grad(&x), (6.0, vec![0.0, 2.0, 0.0]));
    let x = [1.0, -3.0, 2.0];
    assert_eq!(doubled_min_grad(&x), (-9.0, vec![0.0, 3.0, 0.0]));
}

/// The median of a sorted copy.
#[reverse]
fn median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Squares sorted in descending order by `sort_unstable_by`, weighted by rank, the largest and
/// the smallest left out.
#[reverse]
fn ranked_squares(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().map(|a| a * a).collect();
    v.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut s = 0.0;
    for i in 1..v.len() - 1 {
        s += v[i] * i as f64;
    }
    s
}

/// Discounted returns computed backwards, then put in order by `reverse`.
#[reverse]
fn discounted(r: &[f64], g: f64) -> f64 {
    let mut out = Vec::new();
    let mut acc = 0.0;
    for i in (0..r.len()).rev() {
        acc = r[i] + g * acc;
        out.push(acc);
    }
    out.reverse();
    out[0] * 2.0 + out[1]
}

/// An array sorted in place by a comparator given by name.
#[reverse]
fn sorted_array(x: [f64; 3]) -> f64 {
    let mut a = x;
    a.sort_by(f64::total_cmp);
    a[0] * 3.0 + a[2]
}

#[test]
fn sequences_sorted_and_reversed_in_place() {
    let x = [3.0, 1.0, 2.0, 5.0];
    assert_eq!(median_grad(&x), (2.5, vec![0.5, 0.0, 0.5, 0.0]));
    let x = [3.0, 1.0, 2.0, 5.0, 4.0];
    assert_eq!(median_grad(&x), (3.0, vec![1.0, 0.0, 0.0, 0.0, 0.0]));
    // [25, 9, 4, 1]: 9 + 2·4.
    assert_eq!(
        ranked_squares_grad(&[3.0, 1.0, 2.0, 5.0]),
        (17.0, vec![6.0, 0.0, 8.0, 0.0])
    );
    // out = [r0 + g r1 + g² r2, r1 + g r2, r2]: 2 out0 + out1.
    let (v, (dr, dg)) = discounted_grad(&[1.0, 2.0, 3.0], 0.5);
    assert_eq!(v, 9.0);
    assert_eq!(dr, [2.0, 2.0 * 0.5 + 1.0, 2.0 * 0.25 + 0.5]);
    assert_eq!(dg, 2.0 * (2.0 + 2.0 * 0.5 * 3.0) + 3.0);
    assert_eq!(sorted_array_grad([2.0, 1.0, 3.0]), (6.0, [0.0, 3.0, 1.0]));
}

/// Parameters written `_`: a callback's signature that ignores some of its arguments.
#[reverse]
fn ignores_some(_: f64, y: f64, _: &[f64]) -> f64 {
    y * y
}

#[reverse]
fn calls_one_that_ignores(t: f64) -> f64 {
    ignores_some(t, t * 3.0, &[t])
}

#[test]
fn parameters_written_as_wildcards() {
    assert_eq!(
        ignores_some_grad(1.0, 3.0, &[1.0]),
        (9.0, (0.0, 6.0, vec![0.0]))
    );
    assert_eq!(calls_one_that_ignores_grad(2.0), (36.0, 36.0));
}

/// A rotation matrix returned as a 2-D array literal.
#[reverse]
fn rotation(t: f64) -> [[f64; 2]; 2] {
    let (s, c) = t.sin_cos();
    [[c, -s], [s, c]]
}

/// An array returned by `std::array::from_fn`.
#[reverse]
fn scaled(a: [f64; 3], k: f64) -> [f64; 3] {
    std::array::from_fn(|i| a[i] * k)
}

#[reverse]
fn rotation_then_scaled(t: f64) -> f64 {
    let m = rotation(t);
    let s = scaled([m[0][0], m[1][0], 1.0], t);
    s[0] * 2.0 + s[1]
}

#[test]
fn array_results_by_literals_and_from_fn() {
    assert_eq!(
        scaled_vjp([1.0, 2.0, 3.0], 2.0, [1.0, 1.0, 1.0]),
        ([2.0, 4.0, 6.0], ([2.0, 2.0, 2.0], 6.0))
    );
    // 2 t cos t + t sin t.
    let t: f64 = 0.5;
    let (v, d) = rotation_then_scaled_grad(t);
    assert_eq!(v.to_bits(), rotation_then_scaled(t).to_bits());
    let want = 2.0 * t.cos() - 2.0 * t * t.sin() + t.sin() + t * t.cos();
    assert_relative_eq!(d, want, max_relative = 1e-14);
}

/// A worklist drained by `while let Some(v) = stack.pop()`.
#[reverse]
fn drained(x: &[f64]) -> f64 {
    let mut stack = x.to_vec();
    let mut s = 0.0;
    while let Some(v) = stack.pop() {
        s = s * 0.5 + v * v;
    }
    s
}

#[reverse]
fn drained_via(x: &[f64]) -> f64 {
    drained(x)
}

#[test]
fn worklists_drained_by_while_let_pop() {
    let x = [1.0, 2.0, 3.0];
    // Pops 3, 2, 1: s = 3²/4 + 2²/2 + 1².
    let (v, dx) = checked(drained(&x), drained_grad(&x), drained_via_grad(&x));
    assert_eq!(v, 9.0 / 4.0 + 2.0 + 1.0);
    assert_eq!(dx, [2.0, 2.0, 1.5]);
}

/// Horner's rule by `rev().fold` over a coefficient table declared in the body, and over a
/// global one.
#[reverse]
fn erf_like(t: f64) -> f64 {
    const A: [f64; 5] = [
        0.254829592,
        -0.284496736,
        1.421413741,
        -1.453152027,
        1.061405429,
    ];
    let p = A.iter().rev().fold(0.0, |acc, a| acc * t + a);
    p * t
}

const HORNER: [f64; 3] = [0.5, -1.0, 2.0];

#[reverse]
fn horner_table(t: f64) -> f64 {
    HORNER.iter().rev().fold(0.0, |acc, a| acc * t + a)
}

#[test]
fn folds_over_reversed_constant_tables() {
    let (v, d) = horner_table_grad(0.5);
    assert_eq!(v.to_bits(), horner_table(0.5).to_bits());
    assert_eq!(d, 4.0 * 0.5 - 1.0);
    let t = 0.3;
    let (v, d) = erf_like_grad(t);
    assert_eq!(v.to_bits(), erf_like(t).to_bits());
    fd::close_all(&[d], &fd::fd(|v: &[f64]| erf_like(v[0]), &[t]));
}

/// An activation, chosen per item.
#[derive(Clone, Copy, revad::Adjoint)]
pub enum Activation {
    /// `x`.
    Identity,
    /// `x²`.
    Square,
}

#[reverse]
fn activate(x: f64, a: Activation) -> f64 {
    match a {
        Activation::Identity => x,
        Activation::Square => x * x,
    }
}

/// A value of an enum of the user's chosen in a loop and bound with its type: kept for the
/// reverse sweep of the call that reads it.
#[reverse]
fn alternating(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let a: Activation = if i % 2 == 0 {
            Activation::Identity
        } else {
            Activation::Square
        };
        s += activate(x[i], a) * (i as f64 + 1.0);
    }
    s
}

#[test]
fn enum_values_chosen_in_loops() {
    // x0 + 2 x1² + 3 x2.
    assert_eq!(
        alternating_grad(&[1.0, 2.0, 3.0]),
        (1.0 + 8.0 + 9.0, vec![1.0, 8.0, 3.0])
    );
}

/// The first element a predicate takes, by `find(..).copied()`, with a default or unwrapped.
#[reverse]
fn first_above(x: &[f64], t: f64) -> f64 {
    let a = x.iter().find(|v| **v > t).copied().unwrap();
    let b = x.iter().find(|&&v| v > 100.0).cloned().unwrap_or(t * t);
    a * b
}

#[test]
fn elements_found_by_predicates() {
    // a = x2, b = t².
    assert_eq!(
        first_above_grad(&[1.0, 2.0, 3.0], 2.5),
        (18.75, (vec![0.0, 0.0, 6.25], 15.0))
    );
}

/// `x ← x²` through a `&mut f64`.
#[reverse]
fn square_in_place(x: &mut f64) {
    *x = *x * *x;
}

/// `x ← x t + 1` through a `&mut f64`, returning `2 x`.
#[reverse]
fn relax_in_place(x: &mut f64, t: f64) -> f64 {
    *x = *x * t + 1.0;
    *x * 2.0
}

/// A struct with a field lent to a callee.
#[derive(Clone, revad::Adjoint)]
pub struct Pair {
    /// The first.
    pub a: f64,
    /// The second.
    pub b: f64,
}

/// Elements of a `Vec` and a field of a struct lent to annotated functions taking `&mut f64`,
/// as statements and as the value of a `let`.
#[reverse]
fn lent_elements(v: &[f64], t: f64) -> f64 {
    let mut w = v.to_vec();
    square_in_place(&mut w[0]);
    for i in 1..w.len() {
        let e = relax_in_place(&mut w[i], t);
        w[0] += e;
    }
    let mut s = Pair { a: t, b: 2.0 };
    square_in_place(&mut s.a);
    w[0] + w[1] * s.a + s.b
}

#[test]
fn elements_and_fields_lent_mutably_to_calls() {
    let (v, t) = ([1.5, 2.0, 3.0], 0.5);
    let (value, (dv, dt)) = lent_elements_grad(&v, t);
    assert_eq!(value.to_bits(), lent_elements(&v, t).to_bits());
    // w0 = v0² + 2 (v1 t + 1) + 2 (v2 t + 1), w1 = v1 t + 1, s.a = t².
    assert_eq!(value, 11.25 + 2.0 * 0.25 + 2.0);
    assert_eq!(dv, [3.0, 2.0 * t + t * t * t, 2.0 * t]);
    assert_eq!(
        dt,
        2.0 * 2.0 + 2.0 * 3.0 + (2.0 * t * t + 2.0 * t * (2.0 * t + 1.0))
    );
}

/// A weight with methods returning a struct and an array.
#[derive(Clone, Copy, revad::Adjoint)]
pub struct Weight {
    /// The weight.
    pub w: f64,
}

#[reverse]
impl Weight {
    /// Twice the weight.
    #[reverse]
    pub fn doubled(&self) -> Weight {
        Weight { w: self.w * 2.0 }
    }

    /// `[w, w²]`.
    #[reverse]
    pub fn powers(&self) -> [f64; 2] {
        [self.w, self.w * self.w]
    }
}

/// Array results of methods of local structs (a method's result and a struct expression),
/// kept for the reverse sweep of a caller.
#[reverse]
fn powers_of_locals(q: &Weight, t: f64) -> f64 {
    let n = q.doubled();
    let r = n.powers();
    let m = Weight { w: q.w * t };
    let s = m.powers();
    r[0] * r[1] + s[1]
}

#[reverse]
fn powers_of_locals_via(q: &Weight, t: f64) -> f64 {
    powers_of_locals(q, t) * 1.0
}

#[test]
fn array_results_of_methods_of_local_structs() {
    // (2w)³ + (w t)²
    let (q, t) = (Weight { w: 1.5 }, 0.5);
    let (v, (dq, dt)) = powers_of_locals_grad(&q, t);
    let (v2, (dq2, dt2)) = powers_of_locals_via_grad(&q, t);
    assert_eq!(v, 27.0 + 0.5625);
    assert_eq!(v2, v);
    assert_eq!(
        (dq.w, dt),
        (24.0 * 2.25 + 2.0 * 1.5 * 0.25, 2.0 * 2.25 * 0.5)
    );
    assert_eq!((dq2.w, dt2), (dq.w, dt));
}

/// A state with a history.
#[derive(Clone, revad::Adjoint)]
pub struct Tracked {
    /// The value.
    pub a: f64,
    /// Its history.
    pub h: [f64; 3],
}

#[reverse]
fn scale_tracked(p: &mut Tracked, k: f64) -> f64 {
    p.a *= k;
    p.h[0] += p.a;
    p.a
}

/// A `&mut` struct parameter passed on to an annotated callee as it is (`g(p, k)`).
#[reverse]
fn scale_tracked_on(p: &mut Tracked, k: f64) -> f64 {
    let r = scale_tracked(p, k);
    r * p.h[0]
}

#[reverse]
fn scale_corner(m: &mut [[f64; 2]; 2], k: f64) -> f64 {
    m[0][0] *= k;
    m[1][1]
}

/// A `&mut` nested array parameter passed on as it is.
#[reverse]
fn scale_corner_on(m: &mut [[f64; 2]; 2], k: f64) -> f64 {
    scale_corner(m, k) * m[0][0]
}

#[test]
fn mutable_struct_parameters_passed_on() {
    // a k (h0 + a k)
    let mut p = Tracked {
        a: 2.0,
        h: [1.0; 3],
    };
    let (v, (dp, dk)) = scale_tracked_on_grad(&mut p, 3.0);
    assert_eq!((v, dp.a, dp.h, dk), (42.0, 39.0, [6.0, 0.0, 0.0], 26.0));
    assert_eq!((p.a, p.h), (6.0, [7.0, 1.0, 1.0]));
    // m11 m00 k
    let mut m = [[1.0, 2.0], [3.0, 4.0]];
    assert_eq!(
        scale_corner_on_grad(&mut m, 3.0),
        (12.0, ([[12.0, 0.0], [0.0, 3.0]], 4.0))
    );
}

/// The arg max of scores computed into a local `Vec`, and of a local array literal.
#[reverse]
fn best_score(x: &[f64], w: f64) -> f64 {
    let mut scores = vec![0.0; x.len()];
    for i in 0..x.len() {
        scores[i] = x[i] * w;
    }
    let (i, v) = scores
        .iter()
        .enumerate()
        .max_by(|p, q| p.1.total_cmp(q.1))
        .unwrap();
    let h = [w, x[0], w * x[0]];
    let (_, &m) = h
        .iter()
        .enumerate()
        .max_by(|p, q| p.1.total_cmp(q.1))
        .unwrap();
    *v * (i as f64 + 1.0) + m
}

#[test]
fn arg_max_of_local_arrays() {
    // scores = [2, 6, 4]: 2 · 6; h = [2, 1, 2]: the first 2 is w (max_by keeps the last of
    // equal items: w x0).
    let (v, (dx, dw)) = best_score_grad(&[1.0, 3.0, 2.0], 2.0);
    assert_eq!(v, 12.0 + 2.0);
    assert_eq!(dx, [2.0, 4.0, 0.0]);
    assert_eq!(dw, 6.0 + 1.0);
}

/// The shoelace area of a closed polygon, over its edges `zip(iter().cycle().skip(1))`, as a
/// loop and as a sum.
#[reverse]
fn polygon_area(pts: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for (p, q) in pts.iter().zip(pts.iter().cycle().skip(1)) {
        s += p[0] * q[1] - q[0] * p[1];
    }
    0.5 * s
}

#[reverse]
fn polygon_area_summed(pts: &[[f64; 2]]) -> f64 {
    0.5 * pts
        .iter()
        .zip(pts.iter().cycle().skip(1))
        .map(|(p, q)| p[0] * q[1] - q[0] * p[1])
        .sum::<f64>()
}

/// Items of a shorter sequence, cycled and shifted by two.
#[reverse]
fn cycled_products(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (&a, &b) in x.iter().zip(y.iter().cycle().skip(2)) {
        s += a * b;
    }
    s
}

#[test]
fn edges_of_closed_polygons_by_cycled_zips() {
    let pts = [[0.0, 0.0], [2.0, 0.0], [2.5, 1.0], [0.0, 1.5]];
    // ∂A/∂x_i = (y_{i+1} - y_{i-1}) / 2, ∂A/∂y_i = (x_{i-1} - x_{i+1}) / 2.
    let n = pts.len();
    let want: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let (prev, next) = (pts[(i + n - 1) % n], pts[(i + 1) % n]);
            [0.5 * (next[1] - prev[1]), 0.5 * (prev[0] - next[0])]
        })
        .collect();
    for (v, d) in [polygon_area_grad(&pts), polygon_area_summed_grad(&pts)] {
        assert_eq!(v.to_bits(), polygon_area(&pts).to_bits());
        assert_eq!(v, 0.5 * (2.0 + 3.75));
        assert_eq!(d, want);
    }
    // y cycled from index 2 mod 2: 4, 5, 4.
    assert_eq!(
        cycled_products_grad(&[1.0, 2.0, 3.0], &[4.0, 5.0]),
        (26.0, (vec![4.0, 5.0, 4.0], vec![4.0, 2.0]))
    );
}

/// `match` on an `Option` with `Some(k)` and `None` (or `_`) arms, in either order: the
/// index of the first entry above 1 (`2 x[k]`), else `x[0]`; plus the square of the
/// largest entry, by `reduce`.
#[reverse]
fn options_matched(x: &[f64], scale: Option<f64>) -> f64 {
    let first = match x.iter().position(|&v| v > 1.0) {
        Some(k) => 2.0 * x[k],
        None => x[0],
    };
    let top = match x.iter().copied().reduce(f64::max) {
        None => 0.0,
        Some(m) => {
            let s = m * m;
            s + 1.0
        }
    };
    let sum = first + top;
    match scale {
        Some(c) => c * sum,
        _ => sum,
    }
}

#[reverse]
fn options_matched_via(x: &[f64], scale: Option<f64>) -> f64 {
    options_matched(x, scale)
}

#[test]
fn options_matched_by_some_and_none() {
    for (x, scale) in [
        (vec![0.5, 2.0, 3.0], Some(1.5)),
        (vec![0.5, 0.2, -0.1], None),
    ] {
        let (y, g) = checked(
            options_matched(&x, scale),
            options_matched_grad(&x, scale),
            options_matched_via_grad(&x, scale),
        );
        let expected = fd::fd(|q| options_matched(q, scale), &x);
        fd::close_all(&g, &expected);
        let c = scale.unwrap_or(1.0);
        let (k, first) = match x.iter().position(|&v| v > 1.0) {
            Some(k) => (k, 2.0),
            None => (0, 1.0),
        };
        let top = (0..x.len()).fold(0, |m, i| if x[i] > x[m] { i } else { m });
        let mut closed = vec![0.0; x.len()];
        closed[k] += c * first;
        closed[top] += c * 2.0 * x[top];
        assert_eq!(g, closed);
        assert_relative_eq!(y, c * (first * x[k] + x[top] * x[top] + 1.0));
    }
}

/// `k @ pattern` arms binding the whole integer scrutinee, one with a guard:
/// `x^n` for n = 1, `2 x^n` for n ≥ 2, `x` otherwise.
#[reverse]
fn powers_by_subpatterns(x: f64, n: i32) -> f64 {
    match n {
        k @ (1 | 2) if k != 2 => x.powi(k),
        k @ 2.. => 2.0 * x.powi(k),
        _ => x,
    }
}

#[reverse]
fn powers_by_subpatterns_via(x: f64, n: i32) -> f64 {
    powers_by_subpatterns(x, n)
}

#[test]
fn whole_values_bound_with_subpatterns() {
    let x = 1.7;
    for n in [-1, 0, 1, 2, 3, 5] {
        let (y, g) = checked(
            powers_by_subpatterns(x, n),
            powers_by_subpatterns_grad(x, n),
            powers_by_subpatterns_via_grad(x, n),
        );
        let (value, slope) = match n {
            1 => (x, 1.0),
            n if n >= 2 => (2.0 * x.powi(n), 2.0 * f64::from(n) * x.powi(n - 1)),
            _ => (x, 1.0),
        };
        assert_relative_eq!(y, value, max_relative = 1e-15);
        assert_relative_eq!(g, slope, max_relative = 1e-14);
    }
}

/// `w0 x + w1` for each `x`.
#[reverse]
fn affine_predictions(w: &[f64], xs: &[f64]) -> Vec<f64> {
    xs.iter().map(|x| w[0] * x + w[1]).collect()
}

/// Iterator chains and loops over the results of calls, written without binding them:
/// the mean squared error of the predictions, plus the sum of their squares, plus a loop
/// over the cubes.
#[reverse]
fn chained_on_results(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let mse = affine_predictions(w, xs)
        .iter()
        .zip(ys)
        .map(|(p, t)| (p - t).powi(2))
        .sum::<f64>()
        / xs.len() as f64;
    let squares: f64 = affine_predictions(w, xs).into_iter().map(|p| p * p).sum();
    let mut cubes = 0.0;
    for p in affine_predictions(w, ys).iter() {
        cubes += p * p * p;
    }
    for p in &affine_predictions(w, ys) {
        cubes += p;
    }
    mse + squares + cubes
}

#[reverse]
fn chained_on_results_via(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    chained_on_results(w, xs, ys)
}

/// A layer of the user's whose method's result is iterated in another method.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Dense {
    /// Weights, one per input.
    pub w: Vec<f64>,
    /// The bias added to each.
    pub b: f64,
}

impl Dense {
    /// `w_i x_i + b`.
    #[reverse]
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        self.w.iter().zip(x).map(|(w, x)| w * x + self.b).collect()
    }

    /// `Σ tanh(forward_i) + Σ forward_i²`, by a chain and a loop over `self.forward(x)`.
    #[reverse]
    pub fn energy(&self, x: &[f64]) -> f64 {
        let e: f64 = self.forward(x).iter().map(|v| v.tanh()).sum();
        let mut s = 0.0;
        for v in self.forward(x) {
            s += v * v;
        }
        e + s
    }
}

#[test]
fn chains_and_loops_over_call_results() {
    let (w, xs, ys) = ([0.7, -0.2], [1.0, 2.0, -0.5], [0.3, 1.1, 0.9]);
    let (y, g) = checked(
        chained_on_results(&w, &xs, &ys),
        chained_on_results_grad(&w, &xs, &ys),
        chained_on_results_via_grad(&w, &xs, &ys),
    );
    let p: Vec<f64> = xs.iter().map(|x| w[0] * x + w[1]).collect();
    let q: Vec<f64> = ys.iter().map(|y| w[0] * y + w[1]).collect();
    let mse = p.iter().zip(&ys).map(|(p, t)| (p - t).powi(2)).sum::<f64>() / 3.0;
    let squares: f64 = p.iter().map(|p| p * p).sum();
    let cubes: f64 = q.iter().map(|q| q * q * q + q).sum();
    assert_relative_eq!(y, mse + squares + cubes, max_relative = 1e-15);
    let all = |v: &[f64]| chained_on_results(&v[..2], &v[2..5], &v[5..]);
    let flat: Vec<f64> = g.0.iter().chain(&g.1).chain(&g.2).copied().collect();
    fd::close_all(&flat, &fd::fd(all, &[&w[..], &xs, &ys].concat()));

    let layer = Dense {
        w: vec![0.3, -0.2, 0.5],
        b: 0.1,
    };
    let x = [1.0, 2.0, -1.5];
    let (e, (dl, dx)) = layer.energy_grad(&x);
    assert_eq!(e.to_bits(), layer.energy(&x).to_bits());
    let f = |v: &[f64]| {
        let l = Dense {
            w: v[..3].to_vec(),
            b: v[3],
        };
        l.energy(&v[4..])
    };
    let flat: Vec<f64> = dl.w.iter().chain([&dl.b]).chain(&dx).copied().collect();
    fd::close_all(&flat, &fd::fd(f, &[&layer.w[..], &[layer.b], &x].concat()));
}

/// `.filter_map(..)` with closures that keep an item on a condition: `if c { Some(e) } else {
/// None }` (and the other way round), `c.then(|| e)`, `c.then_some(e)`, ending in `sum`,
/// `product` and a `for` loop.
#[allow(
    clippy::filter_map_bool_then,
    clippy::unnecessary_filter_map,
    reason = "forms of `filter_map` users write"
)]
#[reverse]
fn filtered_maps(w: &[f64], xs: &[f64]) -> f64 {
    let s: f64 = xs
        .iter()
        .filter_map(|&x| if x > 0.0 { Some(w[0] * x) } else { None })
        .sum();
    let t: f64 = xs
        .iter()
        .enumerate()
        .filter_map(|(i, x)| (i % 2 == 0).then(|| x * w[1]))
        .sum();
    let u: f64 = xs
        .iter()
        .filter_map(|x| if *x < 0.0 { None } else { Some(x * x) })
        .sum();
    let p: f64 = xs
        .iter()
        .copied()
        .filter_map(|x| (x != 0.0).then_some(x))
        .product();
    let mut q = 0.0;
    for v in xs
        .iter()
        .filter_map(|&x| if x > 0.5 { Some(x.ln()) } else { None })
    {
        q += v * w[0];
    }
    s + t + u + p + q
}

#[reverse]
fn filtered_maps_via(w: &[f64], xs: &[f64]) -> f64 {
    filtered_maps(w, xs)
}

#[test]
fn items_kept_and_mapped_by_filter_map() {
    let (w, xs) = ([1.3, 0.5], [1.0, -2.0, 3.0, 0.0, 0.25]);
    let (y, (dw, dx)) = checked(
        filtered_maps(&w, &xs),
        filtered_maps_grad(&w, &xs),
        filtered_maps_via_grad(&w, &xs),
    );
    // Written out: the positive entries 1, 3 and 0.25; the even positions 1, 3 and 0.25; the
    // squares of the non-negative ones; the product of the non-zero ones; the logarithms of
    // those above 0.5.
    let s = w[0] * (1.0 + 3.0 + 0.25);
    let t = w[1] * (1.0 + 3.0 + 0.25);
    let u = 1.0 + 9.0 + 0.0 + 0.0625;
    let p = 1.0 * -2.0 * 3.0 * 0.25;
    let q = w[0] * 3.0f64.ln();
    assert_relative_eq!(y, s + t + u + p + q, max_relative = 1e-15);
    assert_relative_eq!(dw[0], 4.25 + 3.0f64.ln(), max_relative = 1e-15);
    assert_relative_eq!(dw[1], 4.25, max_relative = 1e-15);
    let expected = [
        w[0] + w[1] + 2.0 + p / 1.0 + w[0],
        p / -2.0,
        w[0] + w[1] + 6.0 + p / 3.0 + w[0] / 3.0,
        0.0,
        w[0] + w[1] + 0.5 + p / 0.25,
    ];
    fd::close_all(&dx, &expected);
}

/// A neuron of the user's, taken apart by a struct pattern.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Neuron {
    /// Weights.
    pub w: Vec<f64>,
    /// Bias.
    pub b: f64,
    /// Output gains.
    pub k: [f64; 2],
}

impl Neuron {
    /// `tanh(w·x + b) k0 + b k1`, its fields bound by `let Neuron { w, b, k } = self;`.
    #[reverse]
    pub fn fire(&self, x: &[f64]) -> f64 {
        let Neuron { w, b, k } = self;
        let s: f64 = w.iter().zip(x).map(|(w, x)| w * x).sum();
        (s + b).tanh() * k[0] + *b * k[1]
    }
}

/// A pair of the user's, a tuple struct.
#[derive(Clone, Copy, Debug, revad::Adjoint)]
pub struct Couple(pub f64, pub f64);

/// Parameters of the user's.
#[derive(Clone, Copy, Debug, revad::Adjoint)]
pub struct Spring {
    /// Stiffness.
    pub k: f64,
    /// Mass.
    pub m: f64,
    /// Coefficients.
    pub c: [f64; 2],
}

/// Struct patterns of a dereferenced reference (`mut k` a copy, `c: [c0, _]` an array
/// pattern), of a tuple struct, and with `..`: `2 k m x + a b + c0 c1`.
#[reverse]
fn spring_parts(p: &Spring, v: Couple, x: f64) -> f64 {
    let Spring {
        mut k,
        m,
        c: [c0, _],
    } = *p;
    k *= 2.0;
    let Couple(a, b) = v;
    let Spring { c, .. } = p;
    k * m * x + a * b + c0 * c[1]
}

#[reverse]
fn spring_parts_via(p: &Spring, v: Couple, x: f64) -> f64 {
    spring_parts(p, v, x)
}

#[test]
fn structs_taken_apart_by_patterns() {
    let n = Neuron {
        w: vec![0.5, -0.3],
        b: 0.2,
        k: [1.5, 0.7],
    };
    let x = [1.0, 2.0];
    let (v, (dn, dx)) = n.fire_grad(&x);
    assert_eq!(v.to_bits(), n.fire(&x).to_bits());
    let f = |q: &[f64]| {
        Neuron {
            w: q[..2].to_vec(),
            b: q[2],
            k: [q[3], q[4]],
        }
        .fire(&q[5..])
    };
    let flat: Vec<f64> =
        dn.w.iter()
            .chain([&dn.b])
            .chain(&dn.k)
            .chain(&dx)
            .copied()
            .collect();
    fd::close_all(&flat, &fd::fd(f, &[0.5, -0.3, 0.2, 1.5, 0.7, 1.0, 2.0]));

    let p = Spring {
        k: 1.5,
        m: 2.0,
        c: [0.3, 0.4],
    };
    let (v, (dp, dv, dx)) = spring_parts_grad(&p, Couple(3.0, 5.0), 0.5);
    let (v2, (dp2, dv2, dx2)) = spring_parts_via_grad(&p, Couple(3.0, 5.0), 0.5);
    assert_eq!(
        v.to_bits(),
        spring_parts(&p, Couple(3.0, 5.0), 0.5).to_bits()
    );
    assert_eq!(v2.to_bits(), v.to_bits());
    assert_relative_eq!(v, 2.0 * 1.5 * 2.0 * 0.5 + 15.0 + 0.3 * 0.4);
    assert_eq!(
        (dp.k, dp.m, dp.c),
        (2.0 * 2.0 * 0.5, 2.0 * 1.5 * 0.5, [0.4, 0.3])
    );
    assert_eq!((dv.0, dv.1, dx), (5.0, 3.0, 2.0 * 1.5 * 2.0));
    assert_eq!(
        (dp2.k, dp2.m, dp2.c, dv2.0, dv2.1, dx2),
        (dp.k, dp.m, dp.c, dv.0, dv.1, dx)
    );
}

/// The softmax of `x`.
#[reverse]
fn softmax_of(x: &[f64]) -> Vec<f64> {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

/// Zips with the results of calls, written without binding them: the cross-entropy of the
/// softmax (`zip(softmax_of(x))`, by value), a loop over `zip(softmax_of(x).iter())`, and a
/// chain from one call's result zipped with another's (`&softmax_of(y)`).
#[reverse]
fn zipped_with_results(x: &[f64], y: &[f64]) -> f64 {
    let ce: f64 = y.iter().zip(softmax_of(x)).map(|(t, p)| t * p.ln()).sum();
    let mut s = -ce;
    for (t, p) in y.iter().zip(softmax_of(x).iter()) {
        s -= t * p * p;
    }
    s + softmax_of(x)
        .iter()
        .zip(&softmax_of(y))
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

#[reverse]
fn zipped_with_results_via(x: &[f64], y: &[f64]) -> f64 {
    zipped_with_results(x, y)
}

#[test]
fn zips_with_call_results() {
    let (x, y) = ([0.5, -1.0, 2.0], [0.2, 0.3, 0.5]);
    let (v, (dx, dy)) = checked(
        zipped_with_results(&x, &y),
        zipped_with_results_grad(&x, &y),
        zipped_with_results_via_grad(&x, &y),
    );
    let soft = |v: &[f64]| {
        let e: Vec<f64> = v.iter().map(|a| a.exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|a| a / s).collect::<Vec<f64>>()
    };
    let (p, q) = (soft(&x), soft(&y));
    let expected: f64 = (0..3)
        .map(|i| -y[i] * p[i].ln() - y[i] * p[i] * p[i] + p[i] * q[i])
        .sum();
    assert_relative_eq!(v, expected, max_relative = 1e-12);
    let flat: Vec<f64> = dx.iter().chain(&dy).copied().collect();
    let all = |v: &[f64]| zipped_with_results(&v[..3], &v[3..]);
    fd::close_all(&flat, &fd::fd(all, &[&x[..], &y].concat()));
}

/// A dense layer: `tanh(w_i x_i + b)`.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Squash {
    /// Weights.
    pub w: Vec<f64>,
    /// Bias.
    pub b: f64,
}

impl Squash {
    #[reverse]
    /// `tanh(w_i x_i + b)` for each input.
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        self.w
            .iter()
            .zip(x)
            .map(|(w, x)| (w * x + self.b).tanh())
            .collect()
    }
}

/// Layers of the user's.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Stack {
    /// In order.
    pub layers: Vec<Squash>,
}

impl Stack {
    /// The layers folded over the input (`fold(x.to_vec(), |h, l| l.forward(&h))`), summed.
    #[reverse]
    pub fn run(&self, x: &[f64]) -> f64 {
        let h: Vec<f64> = self.layers.iter().fold(x.to_vec(), |h, l| l.forward(&h));
        h.iter().sum::<f64>()
    }
}

/// The variance by a fold into an array of the two moments (the item typed, `x: &f64`).
#[reverse]
fn variance_by_fold(xs: &[f64]) -> f64 {
    let m = xs
        .iter()
        .fold([0.0; 2], |acc, x: &f64| [acc[0] + x, acc[1] + x * x]);
    let n = xs.len() as f64;
    m[1] / n - (m[0] / n).powi(2)
}

#[test]
fn folds_into_vectors_and_arrays() {
    let net = Stack {
        layers: vec![
            Squash {
                w: vec![0.5, -0.3],
                b: 0.1,
            },
            Squash {
                w: vec![1.2, 0.7],
                b: -0.2,
            },
        ],
    };
    let x = [1.0, 2.0];
    let (v, (dn, dx)) = net.run_grad(&x);
    assert_eq!(v.to_bits(), net.run(&x).to_bits());
    let f = |q: &[f64]| {
        let layer = |k: usize| Squash {
            w: q[3 * k..3 * k + 2].to_vec(),
            b: q[3 * k + 2],
        };
        Stack {
            layers: vec![layer(0), layer(1)],
        }
        .run(&q[6..])
    };
    let mut flat = Vec::new();
    for l in &dn.layers {
        flat.extend(&l.w);
        flat.push(l.b);
    }
    flat.extend(&dx);
    let at = [0.5, -0.3, 0.1, 1.2, 0.7, -0.2, 1.0, 2.0];
    fd::close_all(&flat, &fd::fd(f, &at));

    let xs = [1.0, 2.0, 4.0];
    let (v, g) = variance_by_fold_grad(&xs);
    assert_eq!(v.to_bits(), variance_by_fold(&xs).to_bits());
    let mean = 7.0 / 3.0;
    assert_relative_eq!(v, 7.0 - mean * mean, max_relative = 1e-14);
    for i in 0..3 {
        assert_relative_eq!(g[i], 2.0 * (xs[i] - mean) / 3.0, max_relative = 1e-12);
    }
}

/// Names bound by struct patterns of values are copies: writing the value afterwards leaves
/// them as they were (`v = (v1 x, v0)` twice: `(v0 + v1) x` summed).
#[reverse]
fn rotated_couples(mut v: Couple, p: &mut Spring, x: f64) -> f64 {
    for _ in 0..2 {
        let Couple(a, b) = v;
        v.0 = b * x;
        v.1 = a;
    }
    let Spring { k, .. } = *p;
    p.k = x;
    v.0 + v.1 + k * p.k
}

#[test]
fn struct_patterns_bind_copies_of_values() {
    let mut p = Spring {
        k: 1.5,
        m: 2.0,
        c: [0.0; 2],
    };
    let x = 3.0;
    let (v, (dv, dp, dx)) = rotated_couples_grad(Couple(1.0, 2.0), &mut p.clone(), x);
    assert_eq!(
        v.to_bits(),
        rotated_couples(Couple(1.0, 2.0), &mut p, x).to_bits()
    );
    // (1 + 2) x + 1.5 x.
    assert_eq!(v, 3.0 * x + 1.5 * x);
    assert_eq!((dv.0, dv.1), (x, x));
    assert_eq!((dp.k, dp.m), (x, 0.0));
    assert_eq!(dx, 3.0 + 1.5);
}

/// A guard on the `Some` arm before `_`: the product with the entry before the first one
/// above `t`, where there is one, else `2 x0`.
#[reverse]
fn guarded_position(x: &[f64], t: f64) -> f64 {
    match x.iter().position(|&v| v > t) {
        Some(i) if i > 0 => x[i] * x[i - 1],
        _ => x[0] * 2.0,
    }
}

#[reverse]
fn guarded_position_via(x: &[f64], t: f64) -> f64 {
    guarded_position(x, t)
}

#[test]
fn options_matched_with_a_guard() {
    let x = [1.5, 2.0, 3.0];
    for (t, expected) in [
        (1.7, vec![2.0, 1.5, 0.0]),
        (0.5, vec![2.0, 0.0, 0.0]),
        (5.0, vec![2.0, 0.0, 0.0]),
    ] {
        let (_, (g, dt)) = checked(
            guarded_position(&x, t),
            guarded_position_grad(&x, t),
            guarded_position_via_grad(&x, t),
        );
        assert_eq!((g, dt), (expected, 0.0));
    }
}

/// Parts of `sin_cos` and of a tuple built in place, and a float type's functions behind
/// `<f64>::`: `sin x cos x + cos y · x y + √x`.
#[reverse]
#[revad::forward]
fn tuple_parts(x: f64, y: f64) -> f64 {
    x.sin_cos().0 * x.sin_cos().1 + f64::sin_cos(y).1 * (x * y, y).0 + <f64>::sqrt(x)
}

#[reverse]
fn tuple_parts_via(x: f64, y: f64) -> f64 {
    tuple_parts(x, y)
}

#[test]
fn tuple_parts_in_expressions() {
    let (x, y) = (0.3, 0.7);
    let (value, (dx, dy)) = checked(
        tuple_parts(x, y),
        tuple_parts_grad(x, y),
        tuple_parts_via_grad(x, y),
    );
    assert_eq!(value, x.sin() * x.cos() + y.cos() * (x * y) + x.sqrt());
    assert_relative_eq!(
        dx,
        (2.0 * x).cos() + y.cos() * y + 0.5 / x.sqrt(),
        max_relative = 1e-14
    );
    assert_relative_eq!(dy, -y.sin() * x * y + y.cos() * x, max_relative = 1e-14);
    assert_eq!(tuple_parts_jvp(x, y, 1.0, 0.0).1, dx);
}

/// A function of a pair, for array literals as arguments.
#[reverse]
fn pair_product(x: [f64; 2]) -> f64 {
    x[0] * x[1]
}

/// Calls with array literals on both sides of an operator, and a repeat `[b; 2]`:
/// `a b + b a · b² / b² = 2 a b`.
#[reverse]
fn literal_arguments(a: f64, b: f64) -> f64 {
    pair_product([a, b]) + pair_product([b, a]) * pair_product([b; 2]) / (b * b)
}

#[test]
fn array_literals_as_arguments() {
    let (a, b) = (0.3, 0.7);
    let (value, (da, db)) = literal_arguments_grad(a, b);
    assert_eq!(value, literal_arguments(a, b));
    assert_relative_eq!(da, 2.0 * b, max_relative = 1e-14);
    assert_relative_eq!(db, 2.0 * a, max_relative = 1e-14);
    let fd = (literal_arguments(a, b + 1e-6) - literal_arguments(a, b - 1e-6)) / 2e-6;
    assert_relative_eq!(db, fd, max_relative = 1e-6);
}

/// Divide and conquer over sub-slices, as pairwise sums are written: `Σ x²`.
#[reverse]
fn pairwise_squares(x: &[f64]) -> f64 {
    if x.len() == 1 {
        return x[0] * x[0];
    }
    let mid = x.len() / 2;
    pairwise_squares(&x[..mid]) + pairwise_squares(&x[mid..])
}

#[reverse(cps)]
fn pairwise_squares_cps(x: &[f64]) -> f64 {
    if x.len() == 1 {
        return x[0] * x[0];
    }
    let mid = x.len() / 2;
    pairwise_squares_cps(&x[..mid]) + pairwise_squares_cps(&x[mid..])
}

/// `|(x, y)|` over a slice of pairs (the item a reference, bound as `&(x, y)`), with `*x`.
#[reverse]
fn pair_moments(p: &[(f64, f64)]) -> f64 {
    p.iter().map(|(x, y)| *x * *y + x * 2.0).sum::<f64>()
        + p.iter().map(|&(x, y)| x - y).sum::<f64>()
}

#[reverse(cps)]
fn pair_moments_cps(p: &[(f64, f64)]) -> f64 {
    p.iter().map(|(x, y)| *x * *y + x * 2.0).sum::<f64>()
        + p.iter().map(|&(x, y)| x - y).sum::<f64>()
}

#[test]
fn sub_slices_and_pairs() {
    let x = [1.0, 2.0, 3.0, -0.5, 0.25];
    let (value, g) = pairwise_squares_grad(&x);
    assert_eq!(value, pairwise_squares(&x));
    assert_eq!(g, x.iter().map(|v| 2.0 * v).collect::<Vec<_>>());
    assert_eq!(pairwise_squares_cps_grad(&x), (value, g));
    let p = [(1.0, 2.0), (3.0, -4.0)];
    let (value, g) = pair_moments_grad(&p);
    assert_eq!(value, pair_moments(&p));
    // ∂/∂x = y + 2 + 1, ∂/∂y = x - 1.
    assert_eq!(g, vec![(5.0, 0.0), (-1.0, 2.0)]);
    assert_eq!(pair_moments_cps_grad(&p), (value, g));
}

/// Closures of slices and of arrays, called with sub-slices and array literals: the product of
/// the means of the halves, and `u · w` of two pairs.
#[reverse]
fn closures_of_slices(x: &[f64], a: f64) -> f64 {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let dot = |u: [f64; 2], w: [f64; 2]| u[0] * w[0] + u[1] * w[1];
    mean(&x[..3]) * mean(&x[3..]) + dot([a, x[0]], [x[1], a])
}

#[reverse(cps)]
fn closures_of_slices_cps(x: &[f64], a: f64) -> f64 {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let dot = |u: [f64; 2], w: [f64; 2]| u[0] * w[0] + u[1] * w[1];
    mean(&x[..3]) * mean(&x[3..]) + dot([a, x[0]], [x[1], a])
}

#[test]
fn closures_called_with_sub_slices() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let a = 0.5;
    let (value, (g, da)) = closures_of_slices_grad(&x, a);
    assert_eq!(value, closures_of_slices(&x, a));
    // means 2 and 4.5; a x1 + x0 a.
    assert_eq!(value, 2.0 * 4.5 + a * 2.0 + 1.0 * a);
    assert_eq!(g, vec![1.5 + a, 1.5 + a, 1.5, 1.0, 1.0]);
    assert_eq!(da, 2.0 + 1.0);
    assert_eq!(closures_of_slices_cps_grad(&x, a), (value, (g, da)));
}

/// `for (a, b) in pairs.iter()` and `in &pairs`: the items are references, taken apart as
/// `&(a, b)`; `Σ a b + Σ (a - b)`.
#[reverse]
fn loop_over_pairs(p: &[(f64, f64)]) -> f64 {
    let mut s = 0.0;
    for (a, b) in p.iter() {
        s += a * b;
    }
    let v = p.to_vec();
    for (a, b) in &v {
        s += a - *b;
    }
    s
}

#[reverse(cps)]
fn loop_over_pairs_cps(p: &[(f64, f64)]) -> f64 {
    let mut s = 0.0;
    for (a, b) in p.iter() {
        s += a * b;
    }
    let v = p.to_vec();
    for (a, b) in &v {
        s += a - *b;
    }
    s
}

#[test]
fn for_loops_over_pairs() {
    let p = [(1.0, 2.0), (3.0, 4.0)];
    let (value, g) = loop_over_pairs_grad(&p);
    assert_eq!(value, loop_over_pairs(&p));
    assert_eq!(value, 2.0 + 12.0 - 1.0 - 1.0);
    assert_eq!(g, vec![(3.0, 0.0), (5.0, 2.0)]);
    assert_eq!(loop_over_pairs_cps_grad(&p), (value, g));
}
