//! Loops: every supported loop form, loop-carried floats and arrays, and the numeric
//! workloads of the loops issue, each checked against a closed form or a hand-written
//! adjoint, and against finite differences.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    reason = "these tests exercise index loops and plain assignments on purpose: they are the forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
use bits::{assert_same_bits, checked};

#[path = "common/both.rs"]
#[macro_use]
mod both;

#[path = "common/workloads.rs"]
mod workloads;
use workloads::{
    matvec_sum, matvec_sum_grad, mlp_data, mlp_loss, mlp_loss_by_hand, mlp_loss_grad, recurrence,
    recurrence_by_hand, recurrence_grad,
};

// Each function under test also has a thin caller, `NAME_via`: its gradient goes through the
// split companions of `NAME`, and must agree with `NAME_grad` bit for bit.

#[reverse]
fn recurrence_via(x0: f64, a: f64, b: f64, n: usize) -> f64 {
    recurrence(x0, a, b, n)
}

#[reverse(wrt(m, x))]
fn matvec_sum_via(m: &[f64], x: &[f64], n: usize) -> f64 {
    matvec_sum(m, x, n)
}

#[reverse(wrt(w1, w2))]
fn mlp_loss_via(
    w1: &[f64],
    w2: &[f64],
    xs: &[f64],
    ys: &[f64],
    inputs: usize,
    hidden: usize,
) -> f64 {
    mlp_loss(w1, w2, xs, ys, inputs, hidden)
}

// ---- Wang et al. (ICFP 2019), sec. 4.3: WHILE -----------------------------------------------

#[reverse]
fn halve_until_small(x0: f64) -> f64 {
    let mut x = x0;
    while x > 1.0 {
        x = x * 0.5;
    }
    x
}

#[reverse]
fn halve_until_small_via(x0: f64) -> f64 {
    halve_until_small(x0)
}

#[test]
fn while_loop_gradient_is_half_to_the_trip_count() {
    for &(x0, trips) in &[(0.5, 0), (1.5, 1), (3.0, 2), (100.0, 7), (1e6, 20)] {
        let (_, d) = checked(
            halve_until_small(x0),
            halve_until_small_grad(x0),
            halve_until_small_via_grad(x0),
        );
        assert_eq!(d, 0.5f64.powi(trips), "x0 = {x0}");
    }
}

// ---- the recurrence x = sin(x) a + x b ----------------------------------------------------

fn assert_close(a: f64, b: f64, rel: f64) {
    assert!((a - b).abs() <= rel * a.abs().max(b.abs()), "{a} vs {b}");
}

#[test]
fn recurrence_ten_thousand_steps() {
    let (x0, a, b, n) = (0.5, 0.3, 0.9, 10_000);
    let (v, (dx, da, db)) = checked(
        recurrence(x0, a, b, n),
        recurrence_grad(x0, a, b, n),
        recurrence_via_grad(x0, a, b, n),
    );
    let (hv, (hx, ha, hb)) = recurrence_by_hand(x0, a, b, n);
    assert_eq!(v, hv);
    for (ours, theirs) in [(dx, hx), (da, ha), (db, hb)] {
        assert_close(ours, theirs, 1e-12);
    }
    let (x0, a, b, n) = (0.5, 0.3, 0.9, 30);
    let (_, (dx, da, db)) = checked(
        recurrence(x0, a, b, n),
        recurrence_grad(x0, a, b, n),
        recurrence_via_grad(x0, a, b, n),
    );
    check::gradient(
        |v| recurrence(v[0], v[1], v[2], n),
        &[x0, a, b],
        &[dx, da, db],
    )
    .unwrap();
}

#[test]
fn recurrence_ten_million_steps_on_the_default_stack() {
    // The constants of the benchmark: adjoints stay out of the subnormal range.
    let (x0, a, b, n) = (0.5, 1e-6, 1.0 - 1e-7, 10_000_000);
    let (v, (dx, da, db)) = checked(
        recurrence(x0, a, b, n),
        recurrence_grad(x0, a, b, n),
        recurrence_via_grad(x0, a, b, n),
    );
    let (hv, (hx, ha, hb)) = recurrence_by_hand(x0, a, b, n);
    assert_eq!(v, hv);
    for (ours, theirs) in [(dx, hx), (da, ha), (db, hb)] {
        assert_close(ours, theirs, 1e-9);
    }
}

// ---- every loop form ----------------------------------------------------------------------

#[reverse]
fn forms(w: &[f64], x: f64) -> f64 {
    let n = w.len();
    let mut s = 0.0;
    for i in 0..n {
        s += w[i] * x;
    }
    for i in 1..=3 {
        s += w[i] * w[i - 1];
    }
    for i in (0..n).rev() {
        s = s * 0.5 + w[i];
    }
    for i in (0..n).step_by(2) {
        s += w[i].sin();
    }
    for i in (1..n).rev().step_by(3) {
        s += w[i] * s.cos();
    }
    for v in w.iter() {
        s += *v * *v;
    }
    for &v in w {
        s += v.exp() * 0.1;
    }
    for (i, v) in w.iter().enumerate() {
        s += (i as f64) * v;
    }
    for (i, &v) in w.iter().enumerate() {
        if i % 2 == 0 {
            s -= v * x;
        }
    }
    s
}

#[reverse]
fn forms_via(w: &[f64], x: f64) -> f64 {
    forms(w, x)
}

#[test]
fn range_and_slice_loop_forms() {
    let w = [0.3, -0.7, 1.1, 0.4, -0.2, 0.9];
    let x = 1.3;
    let (_, (dw, dx)) = checked(forms(&w, x), forms_grad(&w, x), forms_via_grad(&w, x));
    let mut grad = dw.clone();
    grad.push(dx);
    let mut at = w.to_vec();
    at.push(x);
    check::gradient(|p| forms(&p[..6], p[6]), &at, &grad).unwrap();
}

#[reverse]
fn break_and_continue(x: f64, limit: f64) -> f64 {
    let mut s = x;
    let mut k = 0;
    loop {
        k += 1;
        if k % 3 == 0 {
            continue;
        }
        s = s * 1.1 + x.sin();
        if s > limit {
            break;
        }
        if k > 50 {
            break;
        }
    }
    let mut t = 0.0;
    let mut i = 0;
    while i < 10 {
        i += 1;
        if i == 4 {
            continue;
        }
        t += s * (i as f64);
        if t > 1e3 {
            break;
        }
    }
    s + t
}

#[reverse]
fn break_and_continue_via(x: f64, limit: f64) -> f64 {
    break_and_continue(x, limit)
}

#[test]
fn loop_with_break_and_continue() {
    for &(x, limit) in &[(0.5, 4.0), (0.9, 30.0), (0.2, 2.0)] {
        let (_, (dx, dlimit)) = checked(
            break_and_continue(x, limit),
            break_and_continue_grad(x, limit),
            break_and_continue_via_grad(x, limit),
        );
        assert_eq!(dlimit, 0.0);
        check::gradient(|p| break_and_continue(p[0], limit), &[x], &[dx]).unwrap();
    }
}

#[reverse]
fn first_crossing(w: &[f64], threshold: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..w.len() {
        acc += w[i] * w[i];
        if acc > threshold {
            return acc.sqrt();
        }
    }
    -acc
}

#[reverse]
fn first_crossing_via(w: &[f64], threshold: f64) -> f64 {
    first_crossing(w, threshold)
}

#[test]
fn early_return_inside_a_loop() {
    let w = [0.5, 1.5, -2.0, 0.25];
    for &t in &[0.1, 2.0, 5.0, 100.0] {
        let (_, (dw, dt)) = checked(
            first_crossing(&w, t),
            first_crossing_grad(&w, t),
            first_crossing_via_grad(&w, t),
        );
        assert_eq!(dt, 0.0);
        check::gradient(|p| first_crossing(p, t), &w, &dw).unwrap();
    }
    // Closed form when the third element crosses: d/dw_j sqrt(sum w_i^2) = w_j / v.
    let (v, (dw, _)) = checked(
        first_crossing(&w, 3.0),
        first_crossing_grad(&w, 3.0),
        first_crossing_via_grad(&w, 3.0),
    );
    assert_relative_eq!(v, (0.25f64 + 2.25 + 4.0).sqrt(), max_relative = 1e-15);
    assert_relative_eq!(dw[2], -2.0 / v, max_relative = 1e-15);
    assert_eq!(dw[3], 0.0);
}

#[reverse]
fn nested_with_branches(w: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut row = 0.0;
        for j in 0..n {
            let v = w[i * n + j];
            if v > 0.0 {
                row += v * v;
            } else {
                row -= v.sin();
            }
        }
        total += row.tanh() * (i as f64 + 1.0);
    }
    total
}

#[reverse]
fn nested_with_branches_via(w: &[f64], n: usize) -> f64 {
    nested_with_branches(w, n)
}

#[test]
fn nested_loops_with_branches_inside() {
    let n = 4;
    // No element at the kink `v = 0`, where finite differences straddle both branches.
    let w: Vec<f64> = (0..n * n)
        .map(|k| ((k * 37 % 11) as f64 - 5.5) * 0.13)
        .collect();
    let (_, dw) = checked(
        nested_with_branches(&w, n),
        nested_with_branches_grad(&w, n),
        nested_with_branches_via_grad(&w, n),
    );
    check::gradient(|p| nested_with_branches(p, n), &w, &dw).unwrap();
}

#[reverse]
fn local_arrays(x: &[f64]) -> f64 {
    let mut h = [0.0; 8];
    for i in 0..8 {
        h[i] = x[i % x.len()] * (i as f64 + 1.0);
    }
    for _ in 0..3 {
        for i in 1..8 {
            h[i] = h[i] * 0.5 + h[i - 1].sin();
        }
    }
    let mut acc = vec![0.0; x.len()];
    for i in 0..x.len() {
        for j in 0..8 {
            acc[i] += h[j] * x[i];
        }
    }
    let mut s = 0.0;
    for i in 0..acc.len() {
        s += acc[i] * acc[i];
    }
    s
}

#[reverse]
fn local_arrays_via(x: &[f64]) -> f64 {
    local_arrays(x)
}

#[test]
fn loop_carried_local_arrays() {
    let x = [0.3, -0.6, 0.9];
    let (_, dx) = checked(
        local_arrays(&x),
        local_arrays_grad(&x),
        local_arrays_via_grad(&x),
    );
    check::gradient(local_arrays, &x, &dx).unwrap();
}

#[reverse]
fn cumulative(x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    let mut running = 0.0;
    for i in 0..x.len() {
        running = running * 0.9 + x[i];
        out[i] = running.sin();
    }
    out
}

// FIXME(soundness): no caller `cumulative_via` for `cumulative`: a call to a #[reverse]
// function that returns a `Vec` does not compile in a #[reverse] caller (calls lower to a
// scalar temporary; see `rotate` in tests/straight_line.rs).

#[test]
fn vector_output_through_vjp() {
    let x = [0.2, 0.5, -0.4, 1.0];
    let seed = [1.0, -2.0, 0.5, 3.0];
    let (out, dx) = cumulative_vjp(&x, seed.to_vec());
    assert_same_bits(&out, &cumulative(&x));
    let weighted = |p: &[f64]| {
        cumulative(p)
            .iter()
            .zip(&seed)
            .map(|(o, s)| o * s)
            .sum::<f64>()
    };
    check::gradient(weighted, &x, &dx).unwrap();
}

#[test]
#[should_panic(expected = "cumulative_vjp: the seed has length 2 but the output has length 4")]
fn vector_seed_of_the_wrong_length_panics() {
    let _ = cumulative_vjp(&[0.2, 0.5, -0.4, 1.0], vec![1.0, 2.0]);
}

// ---- numeric workloads --------------------------------------------------------------------

#[reverse]
fn dot(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s
}

#[reverse]
fn dot_via(w: &[f64], x: &[f64]) -> f64 {
    dot(w, x)
}

#[test]
fn dot_product() {
    let w = [1.0, -2.0, 0.5, 4.0];
    let x = [0.25, 3.0, -1.0, 2.0];
    let (v, (dw, dx)) = checked(dot(&w, &x), dot_grad(&w, &x), dot_via_grad(&w, &x));
    assert_eq!(v, 0.25 - 6.0 - 0.5 + 8.0);
    assert_eq!(dw, x);
    assert_eq!(dx, w);
}

#[test]
fn matrix_vector_product_then_sum() {
    let n = 5;
    let m: Vec<f64> = (0..n * n).map(|k| (k as f64 * 0.37).sin()).collect();
    let x: Vec<f64> = (0..n).map(|k| k as f64 - 2.0).collect();
    let (_, (dm, dx)) = checked(
        matvec_sum(&m, &x, n),
        matvec_sum_grad(&m, &x, n),
        matvec_sum_via_grad(&m, &x, n),
    );
    // d/dm_ij = x_j, d/dx_j = sum_i m_ij.
    for i in 0..n {
        for j in 0..n {
            assert_eq!(dm[i * n + j], x[j]);
        }
    }
    for j in 0..n {
        let col: f64 = (0..n).map(|i| m[i * n + j]).sum();
        assert_relative_eq!(dx[j], col, max_relative = 1e-14);
    }
}

#[reverse(wrt(logits))]
fn softmax_cross_entropy(logits: &[f64], label: usize) -> f64 {
    let mut max = logits[0];
    for i in 1..logits.len() {
        max = max.max(logits[i]);
    }
    let mut sum = 0.0;
    for i in 0..logits.len() {
        sum += (logits[i] - max).exp();
    }
    sum.ln() + max - logits[label]
}

#[reverse(wrt(logits))]
fn softmax_cross_entropy_via(logits: &[f64], label: usize) -> f64 {
    softmax_cross_entropy(logits, label)
}

#[test]
fn softmax_cross_entropy_with_max_subtraction() {
    let logits = [1.5, -0.3, 2.2, 0.7, 2.2 - 1e-3];
    let label = 3;
    let (v, d) = checked(
        softmax_cross_entropy(&logits, label),
        softmax_cross_entropy_grad(&logits, label),
        softmax_cross_entropy_via_grad(&logits, label),
    );
    let z: f64 = logits.iter().map(|l| l.exp()).sum();
    assert_relative_eq!(v, z.ln() - logits[label], max_relative = 1e-14);
    // Closed form: softmax minus one-hot.
    for i in 0..logits.len() {
        let expected = logits[i].exp() / z - if i == label { 1.0 } else { 0.0 };
        assert_relative_eq!(d[i], expected, max_relative = 1e-12, epsilon = 1e-15);
    }
    check::gradient(|p| softmax_cross_entropy(p, label), &logits, &d).unwrap();
}

#[test]
fn two_layer_tanh_mlp_over_a_batch() {
    let (inputs, hidden, batch) = (4, 6, 5);
    let (w1, w2, xs, ys) = mlp_data(inputs, hidden, batch);
    let (v, (dw1, dw2)) = checked(
        mlp_loss(&w1, &w2, &xs, &ys, inputs, hidden),
        mlp_loss_grad(&w1, &w2, &xs, &ys, inputs, hidden),
        mlp_loss_via_grad(&w1, &w2, &xs, &ys, inputs, hidden),
    );
    let (hv, (hw1, hw2)) = mlp_loss_by_hand(&w1, &w2, &xs, &ys, inputs, hidden);
    assert_relative_eq!(v, hv, max_relative = 1e-13);
    for (a, b) in dw1.iter().zip(&hw1).chain(dw2.iter().zip(&hw2)) {
        assert_relative_eq!(a, b, max_relative = 1e-12, epsilon = 1e-15);
    }
    let mut all = w1.clone();
    all.extend(&w2);
    let mut grad = dw1.clone();
    grad.extend(&dw2);
    let split = w1.len();
    check::gradient(
        |p| mlp_loss(&p[..split], &p[split..], &xs, &ys, inputs, hidden),
        &all,
        &grad,
    )
    .unwrap();
}

#[reverse(wrt(w, bias))]
fn logistic_regression(w: &[f64], bias: f64, xs: &[f64], labels: &[f64]) -> f64 {
    let d = w.len();
    let mut nll = 0.0;
    for n in 0..labels.len() {
        let mut z = bias;
        for k in 0..d {
            z += w[k] * xs[n * d + k];
        }
        let p = 1.0 / (1.0 + (-z).exp());
        nll -= labels[n] * p.ln() + (1.0 - labels[n]) * (1.0 - p).ln();
    }
    nll
}

#[reverse(wrt(w, bias))]
fn logistic_regression_via(w: &[f64], bias: f64, xs: &[f64], labels: &[f64]) -> f64 {
    logistic_regression(w, bias, xs, labels)
}

#[test]
fn logistic_regression_negative_log_likelihood() {
    let w = [0.4, -0.25, 0.1];
    let bias = 0.05;
    let xs = [
        1.0, 2.0, -1.0, 0.5, -0.5, 2.0, -1.5, 1.0, 0.0, 0.3, 0.3, 0.3,
    ];
    let labels = [1.0, 0.0, 1.0, 0.0];
    let (_, (dw, db)) = checked(
        logistic_regression(&w, bias, &xs, &labels),
        logistic_regression_grad(&w, bias, &xs, &labels),
        logistic_regression_via_grad(&w, bias, &xs, &labels),
    );
    // Closed form: sum_n (p_n - y_n) x_n and sum_n (p_n - y_n).
    let mut ew = [0.0; 3];
    let mut eb = 0.0;
    for n in 0..4 {
        let z = bias + (0..3).map(|k| w[k] * xs[n * 3 + k]).sum::<f64>();
        let p = 1.0 / (1.0 + (-z).exp());
        eb += p - labels[n];
        for k in 0..3 {
            ew[k] += (p - labels[n]) * xs[n * 3 + k];
        }
    }
    assert_relative_eq!(db, eb, max_relative = 1e-12);
    for k in 0..3 {
        assert_relative_eq!(dw[k], ew[k], max_relative = 1e-12);
    }
}

#[reverse]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

#[reverse]
fn rosenbrock_via(x: &[f64]) -> f64 {
    rosenbrock(x)
}

#[test]
fn rosenbrock_in_n_dimensions() {
    let x: Vec<f64> = (0..7).map(|k| (k as f64 * 0.9).cos() * 1.2).collect();
    let (_, dx) = checked(rosenbrock(&x), rosenbrock_grad(&x), rosenbrock_via_grad(&x));
    let n = x.len();
    for i in 0..n {
        let mut expected = 0.0;
        if i + 1 < n {
            expected += -400.0 * x[i] * (x[i + 1] - x[i] * x[i]) - 2.0 * (1.0 - x[i]);
        }
        if i > 0 {
            expected += 200.0 * (x[i] - x[i - 1] * x[i - 1]);
        }
        assert_relative_eq!(dx[i], expected, max_relative = 1e-12, epsilon = 1e-12);
    }
    check::gradient(rosenbrock, &x, &dx).unwrap();
    // The minimum at (1, ..., 1).
    let ones = [1.0; 5];
    let (v, dx) = checked(
        rosenbrock(&ones),
        rosenbrock_grad(&ones),
        rosenbrock_via_grad(&ones),
    );
    assert_eq!(v, 0.0);
    assert!(dx.iter().all(|&d| d == 0.0));
}
