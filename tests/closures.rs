//! Closures and iterator chains: captured active variables receive their adjoints
//! (Pearlmutter & Siskind, TOPLAS 2008), and chains lower to loops that store nothing they
//! can read again.

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
#[path = "common/fd.rs"]
mod fd;
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
fn cube(v: f64) -> f64 {
    v * v * v
}

/// A call inside a chain collected into a `let` with a `Vec` type: the type is the
/// collection's, not the call's (the call's result is a scalar).
#[reverse]
fn collect_calls_then_sum(xs: &[f64]) -> f64 {
    let cubes: Vec<f64> = xs.iter().map(|x| cube(*x)).collect();
    cubes.iter().sum()
}

#[test]
fn calls_in_a_chain_collected_into_a_typed_let() {
    let xs = [0.5, -2.0, 3.0];
    let (value, grad) = collect_calls_then_sum_grad(&xs);
    // Σ x³ and its gradient 3x², exact in binary.
    assert_eq!(value, 0.125 - 8.0 + 27.0);
    assert_eq!(grad, vec![0.75, 12.0, 27.0]);
    check::gradient(collect_calls_then_sum, &xs, &grad).unwrap();
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

// ---- closures called in conditions and under intrinsics ---------------------------------
// The closures a condition calls are inlined before it, as if their values were bound by
// `let` (the condition itself is branched on, so no derivative flows out of it).

#[reverse]
fn closure_in_condition(x: f64, y: f64) -> f64 {
    let f = |c: f64| c * y - 1.0;
    if f(x) > 0.0 {
        f(x).sin() * x
    } else if f(2.0) < -2.0 {
        x * y
    } else {
        -x
    }
}

#[reverse]
fn closure_in_condition_via(x: f64, y: f64) -> f64 {
    closure_in_condition(x, y)
}

#[test]
fn let_bound_closure_called_in_an_if_condition() {
    // (x, y) in each branch: x y > 1; x y <= 1 and y < -0.5; neither.
    for &(x, y) in &[(2.0, 0.75), (0.5, -1.0), (0.25, 0.5)] {
        let (v, (dx, dy)) = checked(
            closure_in_condition(x, y),
            closure_in_condition_grad(x, y),
            closure_in_condition_via_grad(x, y),
        );
        let u: f64 = x * y - 1.0;
        let (value, expected) = if u > 0.0 {
            (u.sin() * x, (u.cos() * y * x + u.sin(), u.cos() * x * x))
        } else if y < -0.5 {
            (x * y, (y, x))
        } else {
            (-x, (-1.0, 0.0))
        };
        assert_eq!(v, value);
        assert_relative_eq!(dx, expected.0, max_relative = 1e-15);
        assert_relative_eq!(dy, expected.1, max_relative = 1e-15);
        check::gradient(|p| closure_in_condition(p[0], p[1]), &[x, y], &[dx, dy]).unwrap();
    }
}

#[reverse]
#[allow(
    clippy::redundant_closure_call,
    reason = "the closures are applied where they are written"
)]
fn in_place_closures(x: f64, y: f64) -> f64 {
    let f = |t: f64| t * y;
    let a = (|t: f64| t * x)(2.0).sin() + f64::exp((|t: f64| t * x)(0.5));
    let b = f(x).exp();
    if (|t: f64| t * t - y)(x) < 0.0 {
        a + b
    } else {
        a - b
    }
}

#[reverse]
fn in_place_closures_via(x: f64, y: f64) -> f64 {
    in_place_closures(x, y)
}

#[test]
fn intrinsics_of_closures_called_in_place_and_by_name() {
    for &(x, y) in &[(0.3, 0.5), (0.9, 0.25)] {
        let (v, (dx, dy)) = checked(
            in_place_closures(x, y),
            in_place_closures_grad(x, y),
            in_place_closures_via_grad(x, y),
        );
        // sin(2x) + exp(x / 2) ± exp(x y), the sign + where x² < y.
        let s: f64 = if x * x - y < 0.0 { 1.0 } else { -1.0 };
        let value = (2.0 * x).sin() + (0.5 * x).exp() + s * (x * y).exp();
        assert_eq!(v, value);
        let ex = 2.0 * (2.0 * x).cos() + 0.5 * (0.5 * x).exp() + s * y * (x * y).exp();
        assert_relative_eq!(dx, ex, max_relative = 1e-15);
        assert_relative_eq!(dy, s * x * (x * y).exp(), max_relative = 1e-15);
        check::gradient(|p| in_place_closures(p[0], p[1]), &[x, y], &[dx, dy]).unwrap();
    }
}

#[reverse]
fn closure_in_while_condition(x: f64, n: usize) -> f64 {
    let grow = |t: f64| t * 1.5 + x;
    let small = |t: f64| t.abs() < 10.0;
    let mut y = x;
    let mut k = 0;
    while small(y) && k < n {
        y = grow(y);
        k += 1;
    }
    y
}

#[reverse]
fn closure_in_while_condition_via(x: f64, n: usize) -> f64 {
    closure_in_while_condition(x, n)
}

/// The same loop with the closure on the right of `&&`: it runs only while `k < n`.
#[reverse]
fn closure_right_of_and_in_while(x: f64, n: usize) -> f64 {
    let grow = |t: f64| t * 1.5 + x;
    let small = |t: f64| t.abs() < 10.0;
    let mut y = x;
    let mut k = 0;
    while k < n && small(y) {
        y = grow(y);
        k += 1;
    }
    y
}

#[reverse]
fn closure_right_of_and_in_while_via(x: f64, n: usize) -> f64 {
    closure_right_of_and_in_while(x, n)
}

#[test]
fn closures_called_in_a_while_condition_run_before_each_test() {
    for &x in &[0.3, -0.7, 2.5, 20.0] {
        for n in [0, 1, 4, 100] {
            // y_{k+1} = 1.5 y_k + x from y_0 = x, while |y| < 10 and k < n: y = x (1 + 1.5 +
            // .. + 1.5^k), dy/dx = y / x.
            let (mut y, mut dy, mut k): (f64, f64, usize) = (x, 1.0, 0);
            while y.abs() < 10.0 && k < n {
                y = y * 1.5 + x;
                dy = dy * 1.5 + 1.0;
                k += 1;
            }
            for (v, d) in [
                checked(
                    closure_in_while_condition(x, n),
                    closure_in_while_condition_grad(x, n),
                    closure_in_while_condition_via_grad(x, n),
                ),
                checked(
                    closure_right_of_and_in_while(x, n),
                    closure_right_of_and_in_while_grad(x, n),
                    closure_right_of_and_in_while_via_grad(x, n),
                ),
            ] {
                assert_eq!(v, y);
                assert_eq!(d, dy);
            }
        }
    }
}

#[reverse]
fn closures_in_inactive_expressions(x: f64, y: f64) -> f64 {
    let f = |c: f64| c * y;
    let table = [1.0, 2.0, 3.0, 4.0];
    let big = f(x) > 1.0;
    let k = f(x) as usize;
    let z = table[f(x).abs() as usize % 4] * x;
    let w = match (f(x) * 2.0) as i32 {
        0 => x,
        1 => x * y,
        _ => f(y),
    };
    if !f(x).is_nan() && !big {
        z + w
    } else {
        z - w + k as f64
    }
}

#[reverse]
fn closures_in_inactive_expressions_via(x: f64, y: f64) -> f64 {
    closures_in_inactive_expressions(x, y)
}

#[test]
fn closures_called_in_comparisons_casts_indices_and_match_scrutinees() {
    for &(x, y) in &[(0.3, 0.5), (0.6, 1.25), (1.5, 1.5), (-1.25, 2.0)] {
        let (v, (dx, dy)) = checked(
            closures_in_inactive_expressions(x, y),
            closures_in_inactive_expressions_grad(x, y),
            closures_in_inactive_expressions_via_grad(x, y),
        );
        let u: f64 = x * y;
        let t = [1.0, 2.0, 3.0, 4.0][u.abs() as usize % 4];
        let (w, dw) = match (u * 2.0) as i32 {
            0 => (x, (1.0, 0.0)),
            1 => (x * y, (y, x)),
            _ => (y * y, (0.0, 2.0 * y)),
        };
        let (value, expected) = if u <= 1.0 {
            (t * x + w, (t + dw.0, dw.1))
        } else {
            (t * x - w + (u as usize) as f64, (t - dw.0, -dw.1))
        };
        assert_eq!(v, value);
        assert_eq!((dx, dy), expected);
        check::gradient(
            |p| closures_in_inactive_expressions(p[0], p[1]),
            &[x, y],
            &[dx, dy],
        )
        .unwrap();
    }
}

#[reverse]
fn closure_mutating_a_capture_in_conditions(x: f64) -> f64 {
    let mut total = 0.0;
    let mut add = |v: f64| {
        total += v * v;
        total
    };
    let mut y = x;
    if add(x) > 1.0 {
        y *= 2.0;
    }
    if add(x) > 1.0 {
        y *= 3.0;
    }
    y + total
}

#[reverse]
fn closure_mutating_a_capture_in_conditions_via(x: f64) -> f64 {
    closure_mutating_a_capture_in_conditions(x)
}

#[test]
fn closure_mutating_a_capture_runs_once_per_condition() {
    // total = x² then 2x²; y doubles when x² > 1, and triples when 2x² > 1.
    for &x in &[0.5, 0.8, -1.5] {
        let (v, d) = checked(
            closure_mutating_a_capture_in_conditions(x),
            closure_mutating_a_capture_in_conditions_grad(x),
            closure_mutating_a_capture_in_conditions_via_grad(x),
        );
        let scale = match (x * x > 1.0, 2.0 * x * x > 1.0) {
            (true, true) => 6.0,
            (false, true) => 3.0,
            _ => 1.0,
        };
        assert_eq!(v, scale * x + 2.0 * x * x);
        assert_eq!(d, scale + 4.0 * x);
        check::gradient(
            |p| closure_mutating_a_capture_in_conditions(p[0]),
            &[x],
            &[d],
        )
        .unwrap();
    }
}

#[reverse]
fn closure_in_while_condition_in_a_value_branch(x: f64) -> f64 {
    let f = |t: f64| t * t;
    let v = if x > 0.0 {
        let mut y = x;
        while f(y) < 10.0 {
            y = y * 2.0 + 1.0;
        }
        y
    } else {
        x * 3.0
    };
    v * x
}

#[reverse]
fn closure_in_while_condition_in_a_value_branch_via(x: f64) -> f64 {
    closure_in_while_condition_in_a_value_branch(x)
}

#[test]
fn closure_in_a_while_condition_inside_a_branch_whose_value_is_used() {
    for &x in &[0.5, 2.0, 4.0, -1.0] {
        let (v, d) = checked(
            closure_in_while_condition_in_a_value_branch(x),
            closure_in_while_condition_in_a_value_branch_grad(x),
            closure_in_while_condition_in_a_value_branch_via_grad(x),
        );
        // y = 2^m x + (2^m - 1) after m doublings; v = y x.
        let (mut y, mut dy): (f64, f64) = (x, 1.0);
        if x > 0.0 {
            while y * y < 10.0 {
                y = y * 2.0 + 1.0;
                dy *= 2.0;
            }
        } else {
            (y, dy) = (x * 3.0, 3.0);
        }
        assert_eq!(v, y * x);
        assert_eq!(d, dy * x + y);
    }
}

#[reverse]
#[allow(
    clippy::redundant_closure_call,
    reason = "the closures are applied where they are written"
)]
fn integer_and_bool_closures(x: f64, y: f64) -> f64 {
    let next = |i: usize| i + 1;
    let f = |t: f64| t * y;
    let table = [1.0, 2.0, 3.0, 4.0];
    let mut k = 0;
    k = next(k);
    k = (|i: usize| i * 2)(k);
    let mut flag = false;
    if x > 0.0 {
        flag = f(x) > 1.0;
    }
    if flag {
        table[k] * x
    } else {
        table[next(k)] * y
    }
}

#[reverse]
fn integer_and_bool_closures_via(x: f64, y: f64) -> f64 {
    integer_and_bool_closures(x, y)
}

#[test]
fn closures_computing_integers_and_flags_assigned_to_variables() {
    // k = (0 + 1) * 2 = 2; 3 x when x > 0 and x y > 1, else 4 y.
    for &(x, y) in &[(2.0, 1.0), (0.5, 1.0), (-2.0, -1.0)] {
        let (v, (dx, dy)) = checked(
            integer_and_bool_closures(x, y),
            integer_and_bool_closures_grad(x, y),
            integer_and_bool_closures_via_grad(x, y),
        );
        if x > 0.0 && x * y > 1.0 {
            assert_eq!((v, dx, dy), (3.0 * x, 3.0, 0.0));
        } else {
            assert_eq!((v, dx, dy), (4.0 * y, 0.0, 4.0));
        }
    }
}

/// Closures with an array parameter, given whole arrays and rows of a nested slice
/// (`f(ps[1])`, `f(*p)`, `g(&ps[0])`).
#[reverse]
fn closures_of_rows(ps: &[[f64; 3]], b: [f64; 3]) -> f64 {
    let f = |p: [f64; 3]| p[0] * p[1] * b[2];
    let g = |p: &[f64; 3]| p[2].sin() + p[0];
    let mut s = f(b) + f(ps[1]) + g(&ps[0]);
    for p in ps {
        s += f(*p) * g(p);
    }
    s
}

#[reverse]
fn closures_of_rows_via(ps: &[[f64; 3]], b: [f64; 3]) -> f64 {
    closures_of_rows(ps, b)
}

#[test]
fn closures_with_array_parameters_given_rows() {
    let ps = [[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]];
    let b = [0.2, 0.4, -0.7];
    let (v, (gps, gb)) = closures_of_rows_grad(&ps, b);
    assert_eq!(v.to_bits(), closures_of_rows(&ps, b).to_bits());
    assert_eq!(closures_of_rows_via_grad(&ps, b), (v, (gps.clone(), gb)));
    let flat: Vec<f64> = ps.iter().flatten().chain(&b).copied().collect();
    let fd = check::finite_difference(
        |x| {
            closures_of_rows(
                &[[x[0], x[1], x[2]], [x[3], x[4], x[5]]],
                [x[6], x[7], x[8]],
            )
        },
        &flat,
    );
    for (g, e) in gps.iter().flatten().chain(&gb).zip(&fd) {
        assert_relative_eq!(*g, *e, max_relative = 1e-8);
    }
    // d/db2 = b0 b1 + Σ_rows p0 p1 (g(p)) + p10 p11.
    let g = |p: [f64; 3]| p[2].sin() + p[0];
    let expect =
        b[0] * b[1] + ps[1][0] * ps[1][1] + ps.iter().map(|p| p[0] * p[1] * g(*p)).sum::<f64>();
    assert_relative_eq!(gb[2], expect, max_relative = 1e-14);
}

/// A mass and a velocity.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct MassVel {
    /// Mass.
    pub m: f64,
    /// Velocity.
    pub v: [f64; 2],
}

/// Parts of a struct given to closures, one of them with a `mut` parameter (a value of its
/// own, not a name for the field).
#[reverse]
fn closures_of_fields(b: &MassVel, x: f64) -> f64 {
    let g = |mut t: f64| {
        t += x;
        t * 2.0
    };
    let h = |t: f64| t * x;
    g(b.m) + h(b.m) + h(b.v[1])
}

#[test]
fn closures_given_fields_with_mut_parameters() {
    let b = MassVel {
        m: 1.5,
        v: [0.2, 0.7],
    };
    let x = 0.5;
    // 2 (m + x) + m x + v1 x.
    let (v, (gb, gx)) = closures_of_fields_grad(&b, x);
    assert_eq!(v.to_bits(), closures_of_fields(&b, x).to_bits());
    assert_relative_eq!(
        v,
        2.0 * (b.m + x) + b.m * x + b.v[1] * x,
        max_relative = 1e-15
    );
    assert_relative_eq!(gb.m, 2.0 + x, max_relative = 1e-15);
    assert_eq!(gb.v, [0.0, x]);
    assert_relative_eq!(gx, 2.0 + b.m + b.v[1], max_relative = 1e-15);
}

// ---- `return` in closures ---------------------------------------------------------------
// A `return` leaves the call it is in: the rest of the closure's body is guarded by a flag of
// that call, as in a function with early returns.

/// A piecewise closure with a `return` before its tail and another inside a loop.
#[reverse]
fn closure_with_returns(xs: &[f64], c: f64) -> f64 {
    let f = |v: f64| {
        if v < 0.0 {
            return c * v;
        }
        let mut s = v;
        for k in 0..3 {
            if s > 4.0 {
                return s * c;
            }
            s = s * s + 0.1 * k as f64;
        }
        s.sqrt()
    };
    xs.iter().map(|&v| f(v)).sum::<f64>() + f(c)
}

#[reverse]
fn closure_with_returns_via(xs: &[f64], c: f64) -> f64 {
    closure_with_returns(xs, c)
}

/// `return;` in `for_each`'s closure skips the rest of that item.
#[reverse]
fn for_each_with_return(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    xs.iter().for_each(|&v| {
        if v > 2.0 {
            return;
        }
        s += v.sin();
    });
    s
}

#[reverse]
fn for_each_with_return_via(xs: &[f64]) -> f64 {
    for_each_with_return(xs)
}

/// A closure with a declared return type, whose `return` is in an `if` without `else`.
#[reverse]
fn typed_closure_with_return(x: f64) -> f64 {
    let g = |v: f64| -> f64 {
        if v > 1.0 {
            return v.ln();
        }
        v - 1.0
    };
    g(x) * g(x * x)
}

#[reverse]
fn typed_closure_with_return_via(x: f64) -> f64 {
    typed_closure_with_return(x)
}

#[test]
fn returns_inside_closures_leave_the_call() {
    // The items take each branch: negative (c v), a loop return (s c), and the tail (sqrt).
    let xs = [1.5, -0.5, 2.5, 0.3, 1.9];
    let c = 0.7;
    let (v, (dxs, dc)) = checked(
        closure_with_returns(&xs, c),
        closure_with_returns_grad(&xs, c),
        closure_with_returns_via_grad(&xs, c),
    );
    let at = |p: &[f64]| closure_with_returns(&p[..5], p[5]);
    let mut p = xs.to_vec();
    p.push(c);
    assert_eq!(v.to_bits(), at(&p).to_bits());
    let got: Vec<f64> = dxs.iter().chain([&dc]).copied().collect();
    fd::close_all(&got, &fd::fd(at, &p));
    // -0.5 is negative: d/dv (c v) = c. 2.5 returns from the loop: s = v is not above 4 at
    // k = 0, s = v² is at k = 1, and v² c is returned: d/dv = 2 v c.
    assert_eq!(dxs[1], c);
    assert_relative_eq!(dxs[2], 2.0 * 2.5 * c, max_relative = 1e-15);

    let xs = [1.0, 3.0, 0.5, 2.5];
    let (v, dxs) = checked(
        for_each_with_return(&xs),
        for_each_with_return_grad(&xs),
        for_each_with_return_via_grad(&xs),
    );
    assert_eq!(v, 1.0f64.sin() + 0.5f64.sin());
    assert_eq!(dxs, vec![1.0f64.cos(), 0.0, 0.5f64.cos(), 0.0]);

    for x in [1.3, 0.9, 1.05] {
        let (v, d) = checked(
            typed_closure_with_return(x),
            typed_closure_with_return_grad(x),
            typed_closure_with_return_via_grad(x),
        );
        // g(v) = ln v above 1, v - 1 below.
        let g = |v: f64| {
            if v > 1.0 {
                (v.ln(), 1.0 / v)
            } else {
                (v - 1.0, 1.0)
            }
        };
        let ((a, da), (b, db)) = (g(x), g(x * x));
        assert_relative_eq!(v, a * b, max_relative = 1e-15);
        assert_relative_eq!(d, da * b + a * db * 2.0 * x, max_relative = 1e-14);
    }
}
