//! Labeled loops (`break 'outer`, `continue 'outer` on `for`, `while` and `loop`) and
//! `break value` out of `loop`: each gradient against a closed form derived by hand or
//! against finite differences, the value against the plain function bit for bit (and through
//! a caller, `NAME_via`, whose gradient goes through the split companions), and `NAME_jvp`
//! against the reverse gradient.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    reason = "the loops under test are written as users write them"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::{forward, reverse};

#[path = "common/bits.rs"]
mod bits;
use bits::checked;

/// `JVP·v` of a forward-mode result against `v·gradient` of the reverse mode.
fn assert_jvp(jvp: f64, grad: &[f64], v: &[f64]) {
    let dot: f64 = grad.iter().zip(v).map(|(g, t)| g * t).sum();
    assert_relative_eq!(jvp, dot, epsilon = 1e-12, max_relative = 1e-10);
}

// ---- labeled `break` out of two nested `for` loops ----------------------------------------

#[forward]
#[reverse]
fn break_outer(x: &[f64], t: f64, rows: usize) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..rows {
        for j in 0..x.len() {
            let w = (i + 1) as f64;
            // Runs once more at the step that breaks, and not after it.
            s += 0.5 * x[j];
            if x[j] * w > t {
                break 'outer;
            }
            s += w * x[j] * x[j];
        }
        // Skipped by the `break 'outer`.
        s = s + 1.0;
    }
    s * t
}

#[reverse]
fn break_outer_via(x: &[f64], t: f64, rows: usize) -> f64 {
    break_outer(x, t, rows)
}

/// The gradient of `break_outer`, derived by hand: the steps that run are those before the
/// first `(i, j)` (row-major) with `x[j] (i + 1) > t`; each adds `(i + 1) x[j]^2`, each
/// finished row adds 1, each step (that one included) adds `x[j] / 2`, and the result is
/// `s t`.
fn break_outer_by_hand(x: &[f64], t: f64, rows: usize) -> (Vec<f64>, f64) {
    let mut dx = vec![0.0; x.len()];
    let mut s = 0.0;
    let mut rows_done = 0.0;
    'scan: for i in 0..rows {
        let w = (i + 1) as f64;
        for j in 0..x.len() {
            s += 0.5 * x[j];
            dx[j] += 0.5 * t;
            if x[j] * w > t {
                break 'scan;
            }
            s += w * x[j] * x[j];
            dx[j] += 2.0 * w * x[j] * t;
        }
        rows_done += 1.0;
    }
    (dx, s + rows_done)
}

#[test]
fn labeled_break_leaves_both_for_loops() {
    let x = [0.3, -0.7, 0.45, 0.2];
    // Thresholds that stop in the first row, in a later row, and never.
    for &(t, rows) in &[(0.4, 3), (1.0, 4), (1.2, 5), (10.0, 3), (0.1, 0)] {
        let (_, (dx, dt)) = checked(
            break_outer(&x, t, rows),
            break_outer_grad(&x, t, rows),
            break_outer_via_grad(&x, t, rows),
        );
        let (want_dx, want_dt) = break_outer_by_hand(&x, t, rows);
        for (a, b) in dx.iter().zip(&want_dx) {
            assert_relative_eq!(a, b, max_relative = 1e-12);
        }
        assert_relative_eq!(dt, want_dt, max_relative = 1e-12);
        let v = [0.5, -1.0, 0.25, 2.0];
        let (value, jvp) = break_outer_jvp(&x, t, rows, &v, 0.0);
        assert_eq!(value.to_bits(), break_outer(&x, t, rows).to_bits());
        assert_jvp(jvp, &dx, &v);
    }
}

// ---- labeled `continue` -------------------------------------------------------------------

#[forward]
#[reverse]
fn continue_outer(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    let mut c = 0.0;
    'rows: for i in 0..n {
        for j in 0..x.len() {
            // Runs once more at the step that continues the outer loop, and not after it.
            c += x[j];
            if j > i {
                continue 'rows;
            }
            s = s * 0.5 + x[j].sin() * (i + 1) as f64;
        }
        // Reached only when the inner loop ran to its end (`i + 1 >= x.len()`).
        s = s * x[0];
    }
    s + c
}

#[reverse]
fn continue_outer_via(x: &[f64], n: usize) -> f64 {
    continue_outer(x, n)
}

#[test]
fn labeled_continue_skips_the_rest_of_the_outer_iteration() {
    let x = [0.9, -0.4, 1.3];
    for n in [0, 1, 2, 3, 5] {
        let (_, dx) = checked(
            continue_outer(&x, n),
            continue_outer_grad(&x, n),
            continue_outer_via_grad(&x, n),
        );
        check::gradient(|p| continue_outer(p, n), &x, &dx).unwrap();
        let v = [1.0, 0.5, -0.25];
        let (value, jvp) = continue_outer_jvp(&x, n, &v);
        assert_eq!(value.to_bits(), continue_outer(&x, n).to_bits());
        assert_jvp(jvp, &dx, &v);
    }
    // The closed form for n = 2: row 0 runs j = 0 (s = sin x0) and continues `'rows` at
    // j = 1, row 1 runs j = 0, 1 (s = s/2 + 2 sin x0, then s/2 + 2 sin x1) and continues at
    // j = 2; `c` adds x0 + x1, then x0 + x1 + x2.
    let (v, dx) = continue_outer_grad(&x, 2);
    let want = 0.25 * x[0].sin() + x[0].sin() + 2.0 * x[1].sin() + 2.0 * x[0] + 2.0 * x[1] + x[2];
    assert_relative_eq!(v, want, max_relative = 1e-14);
    assert_relative_eq!(dx[0], 1.25 * x[0].cos() + 2.0, max_relative = 1e-12);
    assert_relative_eq!(dx[1], 2.0 * x[1].cos() + 2.0, max_relative = 1e-12);
    assert_eq!(dx[2], 1.0);
}

// ---- labeled `break` from a `while` inside a `loop` ---------------------------------------

#[forward]
#[reverse]
fn while_in_loop(x: f64, limit: f64) -> f64 {
    let mut y = x;
    let mut rounds = 0;
    'search: loop {
        rounds += 1;
        let mut k = 0;
        while k < 4 {
            y = y * 1.25 + 0.1 * x;
            if y > limit {
                break 'search;
            }
            k += 1;
        }
        // Skipped by the `break 'search`.
        y = y.sqrt();
        if rounds > 20 {
            break;
        }
    }
    y * x
}

#[reverse]
fn while_in_loop_via(x: f64, limit: f64) -> f64 {
    while_in_loop(x, limit)
}

#[test]
fn labeled_break_from_a_while_inside_a_loop() {
    for &(x, limit) in &[(0.5, 1.0), (1.2, 2.0), (0.9, 3.5), (0.3, 50.0)] {
        let (_, (dx, dlimit)) = checked(
            while_in_loop(x, limit),
            while_in_loop_grad(x, limit),
            while_in_loop_via_grad(x, limit),
        );
        assert_eq!(dlimit, 0.0);
        check::gradient(|p| while_in_loop(p[0], limit), &[x], &[dx]).unwrap();
        let (value, jvp) = while_in_loop_jvp(x, limit, 1.0, 0.0);
        assert_eq!(value.to_bits(), while_in_loop(x, limit).to_bits());
        assert_jvp(jvp, &[dx], &[1.0]);
    }
    // The closed form when the first step crosses: y = 1.35 x, result 1.35 x^2.
    let (v, (dx, _)) = while_in_loop_grad(2.0, 1.0);
    assert_eq!(
        v.to_bits(),
        ((2.0f64 * 1.25 + 0.1 * 2.0) * 2.0f64).to_bits()
    );
    assert_relative_eq!(dx, 2.0 * 1.35 * 2.0, max_relative = 1e-14);
}

// ---- a search loop: the first index above a threshold -------------------------------------

#[forward]
#[reverse]
fn first_above(x: &[f64], t: f64) -> f64 {
    let mut i = 0;
    let k = loop {
        if i + 1 == x.len() || x[i] > t {
            break i;
        }
        i += 1;
    };
    x[k] * x[k] + x[k].exp() * t
}

#[reverse]
fn first_above_via(x: &[f64], t: f64) -> f64 {
    first_above(x, t)
}

/// The same search over a matrix with a labeled `break` out of both loops.
#[forward]
#[reverse]
fn first_above_2d(a: &[f64], cols: usize, t: f64) -> f64 {
    let mut found = a.len() - 1;
    'scan: for r in 0..a.len() / cols {
        for c in 0..cols {
            if a[r * cols + c] > t {
                found = r * cols + c;
                break 'scan;
            }
        }
    }
    a[found].sin() * t
}

#[reverse]
fn first_above_2d_via(a: &[f64], cols: usize, t: f64) -> f64 {
    first_above_2d(a, cols, t)
}

#[test]
fn search_loop_then_differentiate_the_value_found() {
    let x = [0.1, -0.5, 0.8, 1.4, 0.3];
    for &t in &[0.0, 0.5, 1.0, 2.0] {
        let (_, (dx, dt)) = checked(
            first_above(&x, t),
            first_above_grad(&x, t),
            first_above_via_grad(&x, t),
        );
        // The closed form: `k` is the first index with `x[k] > t` (else the last one).
        let k = x.iter().position(|&v| v > t).unwrap_or(x.len() - 1);
        for (j, d) in dx.iter().enumerate() {
            let want = if j == k {
                2.0 * x[k] + x[k].exp() * t
            } else {
                0.0
            };
            assert_relative_eq!(*d, want, max_relative = 1e-14);
        }
        assert_relative_eq!(dt, x[k].exp(), max_relative = 1e-14);
        let v = [0.5, -1.0, 0.25, 2.0, -0.75];
        let (value, jvp) = first_above_jvp(&x, t, &v, 1.5);
        assert_eq!(value.to_bits(), first_above(&x, t).to_bits());
        assert_jvp(jvp, &[dx, vec![dt]].concat(), &[&v[..], &[1.5]].concat());
    }
    let a = [0.1, -0.5, 0.8, 1.4, 0.3, 0.9];
    for &t in &[0.0, 0.5, 1.0, 2.0] {
        let (_, (da, dt)) = checked(
            first_above_2d(&a, 3, t),
            first_above_2d_grad(&a, 3, t),
            first_above_2d_via_grad(&a, 3, t),
        );
        let k = a.iter().position(|&v| v > t).unwrap_or(a.len() - 1);
        for (j, d) in da.iter().enumerate() {
            let want = if j == k { a[k].cos() * t } else { 0.0 };
            assert_relative_eq!(*d, want, max_relative = 1e-14);
        }
        assert_relative_eq!(dt, a[k].sin(), max_relative = 1e-14);
        let v = [1.0, 2.0, 3.0, -1.0, -2.0, -3.0];
        let (value, jvp) = first_above_2d_jvp(&a, 3, t, &v, -0.5);
        assert_eq!(value.to_bits(), first_above_2d(&a, 3, t).to_bits());
        assert_jvp(jvp, &[da, vec![dt]].concat(), &[&v[..], &[-0.5]].concat());
    }
}

// ---- `break value` --------------------------------------------------------------------------

#[forward]
#[reverse]
fn break_value_in_let(x: f64) -> f64 {
    let mut s = x;
    let y = loop {
        s = s * x + 1.0;
        if s > 10.0 {
            break s * 2.0;
        }
    };
    y + s
}

#[reverse]
fn break_value_in_let_via(x: f64) -> f64 {
    break_value_in_let(x)
}

#[test]
fn break_value_bound_by_let() {
    for &x in &[1.1, 1.5, 2.0, 3.7, 12.0] {
        let (_, dx) = checked(
            break_value_in_let(x),
            break_value_in_let_grad(x),
            break_value_in_let_via_grad(x),
        );
        check::gradient(|p| break_value_in_let(p[0]), &[x], &[dx]).unwrap();
        let (value, jvp) = break_value_in_let_jvp(x, 1.0);
        assert_eq!(value.to_bits(), break_value_in_let(x).to_bits());
        assert_jvp(jvp, &[dx], &[1.0]);
    }
    // The closed form at x = 12, one iteration: s = x^2 + 1, result 3 s, derivative 6 x.
    let (v, dx) = break_value_in_let_grad(12.0);
    assert_eq!(v, 3.0 * 145.0);
    assert_relative_eq!(dx, 72.0, max_relative = 1e-15);
}

#[forward]
#[reverse]
fn break_value_tail(x: f64, n: usize) -> f64 {
    let mut acc = 1.0;
    let mut k = 0;
    loop {
        acc *= x;
        k += 1;
        if k >= n {
            break acc.ln() + acc;
        }
    }
}

#[reverse]
fn break_value_tail_via(x: f64, n: usize) -> f64 {
    break_value_tail(x, n)
}

#[test]
fn break_value_as_the_tail_expression() {
    for &x in &[0.5, 1.3, 2.0] {
        for n in [1, 2, 5, 9] {
            let (_, dx) = checked(
                break_value_tail(x, n),
                break_value_tail_grad(x, n),
                break_value_tail_via_grad(x, n),
            );
            // f = n ln x + x^n.
            let nf = n as f64;
            let want = nf / x + nf * x.powi(n as i32 - 1);
            assert_relative_eq!(dx, want, max_relative = 1e-12);
            let (value, jvp) = break_value_tail_jvp(x, n, 1.0);
            assert_eq!(value.to_bits(), break_value_tail(x, n).to_bits());
            assert_jvp(jvp, &[dx], &[1.0]);
        }
    }
}

/// `break value` from a `loop` inside a `for`, and `break 'outer value` from a `for` inside a
/// labeled `loop`.
#[forward]
#[reverse]
fn nested_break_values(x: &[f64], t: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let mut p = x[i];
        let q = loop {
            p = p * 1.5;
            if p.abs() > t {
                break p - t;
            }
        };
        total += q * x[i];
    }
    // The first positive `x[j]`, else the first negative one.
    let mut sign = 1.0;
    let r = 'outer: loop {
        for j in 0..x.len() {
            if x[j] * sign > 0.0 {
                break 'outer total * x[j];
            }
        }
        if sign < 0.0 {
            break total;
        }
        sign = -1.0;
    };
    r + t
}

#[reverse]
fn nested_break_values_via(x: &[f64], t: f64) -> f64 {
    nested_break_values(x, t)
}

/// The gradient of `nested_break_values`, derived by hand: with `m_i` the number of times
/// `x_i` is multiplied by 1.5 (the first `m >= 1` with `|x_i| 1.5^m > t`),
/// `total = Σ (x_i 1.5^m_i - t) x_i`, and `r = total x_j` for the first positive `x_j`, else
/// the first negative one (else `r = total`).
fn nested_break_values_by_hand(x: &[f64], t: f64) -> (Vec<f64>, f64) {
    let mut dtotal = vec![0.0; x.len()];
    let mut total = 0.0;
    let mut dtotal_dt = 0.0;
    for i in 0..x.len() {
        let mut m = 1;
        while (x[i] * 1.5f64.powi(m)).abs() <= t {
            m += 1;
        }
        let g = 1.5f64.powi(m);
        total += (x[i] * g - t) * x[i];
        dtotal[i] = 2.0 * x[i] * g - t;
        dtotal_dt -= x[i];
    }
    let first = |positive: bool| {
        x.iter()
            .position(|&v| (v > 0.0 && positive) || v < 0.0 && !positive)
    };
    match first(true).or_else(|| first(false)) {
        Some(j) => {
            let mut dx: Vec<f64> = dtotal.iter().map(|d| d * x[j]).collect();
            dx[j] += total;
            (dx, dtotal_dt * x[j] + 1.0)
        }
        None => (dtotal, dtotal_dt + 1.0),
    }
}

#[test]
fn break_values_in_nested_loops() {
    let cases: [&[f64]; 4] = [
        &[0.4, -1.2, 2.5],
        &[-0.3, -0.8],
        &[-0.6, 0.7, 0.2, -2.0],
        &[-0.5, -0.1, 0.8],
    ];
    for x in cases {
        for &t in &[0.5, 1.0, 3.0] {
            let (_, (dx, dt)) = checked(
                nested_break_values(x, t),
                nested_break_values_grad(x, t),
                nested_break_values_via_grad(x, t),
            );
            let (want_dx, want_dt) = nested_break_values_by_hand(x, t);
            for (a, b) in dx.iter().zip(&want_dx) {
                assert_relative_eq!(a, b, max_relative = 1e-12);
            }
            assert_relative_eq!(dt, want_dt, max_relative = 1e-12);
            let v: Vec<f64> = (0..x.len()).map(|k| 0.5 - k as f64).collect();
            let (value, jvp) = nested_break_values_jvp(x, t, &v, 0.75);
            assert_eq!(value.to_bits(), nested_break_values(x, t).to_bits());
            assert_jvp(jvp, &[dx, vec![dt]].concat(), &[&v[..], &[0.75]].concat());
        }
    }
}

// ---- Newton's iteration, `break x` on convergence -------------------------------------------

#[forward]
#[reverse]
fn newton_sqrt(a: f64, tol: f64) -> f64 {
    let mut x = a.max(1.0);
    let mut steps = 0;
    loop {
        let next = 0.5 * (x + a / x);
        let delta = next - x;
        x = next;
        steps += 1;
        if delta.abs() < tol || steps == 100 {
            break x;
        }
    }
}

#[reverse]
fn newton_sqrt_via(a: f64, tol: f64) -> f64 {
    newton_sqrt(a, tol)
}

#[test]
fn newton_iteration_breaks_with_its_root() {
    for &a in &[0.25, 2.0, 10.0, 1234.5] {
        let (root, (da, dtol)) = checked(
            newton_sqrt(a, 1e-12),
            newton_sqrt_grad(a, 1e-12),
            newton_sqrt_via_grad(a, 1e-12),
        );
        assert_relative_eq!(root, a.sqrt(), max_relative = 1e-14);
        // Differentiating the converged iteration gives the derivative of the root.
        assert_relative_eq!(da, 0.5 / a.sqrt(), max_relative = 1e-6);
        assert_eq!(dtol, 0.0);
        let fd = check::finite_difference(|p| newton_sqrt(p[0], 1e-12), &[a]);
        assert_relative_eq!(da, fd[0], max_relative = 1e-6);
        let (value, jvp) = newton_sqrt_jvp(a, 1e-12, 1.0, 0.0);
        assert_eq!(value.to_bits(), root.to_bits());
        assert_jvp(jvp, &[da], &[1.0]);
    }
}

// ---- `break value` in a branch whose value is used; jumps of every kind together ------------

#[forward]
#[reverse]
fn break_value_in_if_arm(x: f64, deep: bool) -> f64 {
    let y = if deep {
        let mut s = x;
        loop {
            s = s * s + 0.5;
            if s > 4.0 {
                break s.ln();
            }
        }
    } else {
        x * 3.0
    };
    y * x
}

#[reverse]
fn break_value_in_if_arm_via(x: f64, deep: bool) -> f64 {
    break_value_in_if_arm(x, deep)
}

#[test]
fn break_value_inside_an_if_whose_value_is_used() {
    for &x in &[0.3, 0.9, 1.4, 2.5] {
        for deep in [false, true] {
            let (_, dx) = checked(
                break_value_in_if_arm(x, deep),
                break_value_in_if_arm_grad(x, deep),
                break_value_in_if_arm_via_grad(x, deep),
            );
            check::gradient(|p| break_value_in_if_arm(p[0], deep), &[x], &[dx]).unwrap();
            if !deep {
                assert_relative_eq!(dx, 6.0 * x, max_relative = 1e-15);
            }
            let (value, jvp) = break_value_in_if_arm_jvp(x, deep, 1.0);
            assert_eq!(value.to_bits(), break_value_in_if_arm(x, deep).to_bits());
            assert_jvp(jvp, &[dx], &[1.0]);
        }
    }
    // The closed form at x = 2.5, one iteration: s = x^2 + 1/2, result x ln s.
    let (v, dx) = break_value_in_if_arm_grad(2.5, true);
    let s = 2.5f64 * 2.5 + 0.5;
    assert_eq!(v.to_bits(), (s.ln() * 2.5).to_bits());
    assert_relative_eq!(dx, s.ln() + 2.5 * 2.0 * 2.5 / s, max_relative = 1e-14);
}

/// `continue 'outer` and `break 'outer` from a `loop` inside a `for`, and a `return` from
/// inside both.
#[forward]
#[reverse]
fn mixed_jumps(x: &[f64], t: f64) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..x.len() {
        let mut j = 0;
        loop {
            if j == x.len() {
                continue 'outer;
            }
            s += x[i] * x[j];
            if s > t {
                return s.sqrt() * t;
            }
            if x[j] < 0.0 {
                break 'outer;
            }
            j += 1;
        }
    }
    s * 2.0
}

#[reverse]
fn mixed_jumps_via(x: &[f64], t: f64) -> f64 {
    mixed_jumps(x, t)
}

#[test]
fn labeled_jumps_together_with_return() {
    let cases: [&[f64]; 3] = [&[0.5, 0.25, 0.75], &[0.5, 0.3, -0.2, 0.9], &[1.5, 2.0]];
    for x in cases {
        for &t in &[0.3, 1.0, 2.0, 100.0] {
            let (_, (dx, dt)) = checked(
                mixed_jumps(x, t),
                mixed_jumps_grad(x, t),
                mixed_jumps_via_grad(x, t),
            );
            let mut at = x.to_vec();
            at.push(t);
            let grad = [&dx[..], &[dt]].concat();
            check::gradient(|p| mixed_jumps(&p[..x.len()], p[x.len()]), &at, &grad).unwrap();
            let v: Vec<f64> = (0..x.len()).map(|k| 1.0 - 0.5 * k as f64).collect();
            let (value, jvp) = mixed_jumps_jvp(x, t, &v, 0.5);
            assert_eq!(value.to_bits(), mixed_jumps(x, t).to_bits());
            assert_jvp(jvp, &grad, &[&v[..], &[0.5]].concat());
        }
    }
    // The closed form for x = [0.5, 0.3, -0.2, 0.9], t = 100: row 0 adds x0 (x0 + x1 + x2)
    // and leaves both loops at j = 2; the result is 2 s.
    let x = [0.5, 0.3, -0.2, 0.9];
    let (_, (dx, dt)) = mixed_jumps_grad(&x, 100.0);
    assert_relative_eq!(
        dx[0],
        2.0 * (2.0 * x[0] + x[1] + x[2]),
        max_relative = 1e-14
    );
    assert_relative_eq!(dx[1], 2.0 * x[0], max_relative = 1e-14);
    assert_relative_eq!(dx[2], 2.0 * x[0], max_relative = 1e-14);
    assert_eq!((dx[3], dt), (0.0, 0.0));
}
