//! A function's last loop whose reverse sweep `NAME_vjp` runs iteration by iteration inside
//! its forward sweep (see `ad-macros/src/codegen/sweep/fuse.rs`): reductions returned as they
//! are (the seed is the accumulator's adjoint), reductions followed by more work (`s / n`,
//! `m + s.ln()`, `s.sqrt() + x[0]`: the loop's reverse runs with the accumulator's adjoint 1
//! and is multiplied afterwards), and the loops that must not be fused (an accumulator that
//! feeds the loop, two accumulators followed by more work, a loop-carried array). Loops with
//! loops in their body fuse too (row sums, an MLP's batch loop: each iteration's reverse walks
//! its inner loops right after its forward). Each
//! gradient is checked against a closed form or central finite differences, the value bit for
//! bit against the function, and the gradient against the one through the split companions
//! (`NAME_via`, never fused) to rounding.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    reason = "these tests exercise index loops on purpose"
)]

use approx::assert_relative_eq;
use revad::{check, reverse, Float};

#[path = "common/bits.rs"]
mod bits;
use bits::checked;

fn xs() -> Vec<f64> {
    vec![0.3, -1.2, 0.8, 2.1, -0.4, 1.5]
}

fn ys() -> Vec<f64> {
    vec![1.1, 0.2, -0.7, 0.4, 0.9, -1.3]
}

/// Central finite differences of `f` at `x` agree with `grad`.
fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], grad: &[f64]) {
    check::gradient(f, x, grad).unwrap();
}

// ---- returned as it is: the seed is the accumulator's adjoint -----------------------------

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
fn dot_product_gradient_is_the_other_vector() {
    let (w, x) = (xs(), ys());
    let (_, (dw, dx)) = checked(dot(&w, &x), dot_grad(&w, &x), dot_via_grad(&w, &x));
    assert_eq!(dw, x);
    assert_eq!(dx, w);
    let (v, (dw, dx)) = dot_vjp(&w, &x, -2.5);
    assert_eq!(v.to_bits(), dot(&w, &x).to_bits());
    for i in 0..w.len() {
        assert_eq!(dw[i], -2.5 * x[i]);
        assert_eq!(dx[i], -2.5 * w[i]);
    }
}

/// `-=`, a transcendental stored by the iteration for its own reverse, and a scalar
/// parameter every iteration adds into.
#[reverse]
fn sin_sum(x: &[f64], w: f64) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s -= (x[i] * w).sin() * x[i];
    }
    s
}

#[reverse]
fn sin_sum_via(x: &[f64], w: f64) -> f64 {
    sin_sum(x, w)
}

#[test]
fn subtracting_accumulator_with_a_shared_scalar() {
    let (x, w) = (xs(), 0.7);
    let (_, (dx, dw)) = checked(sin_sum(&x, w), sin_sum_grad(&x, w), sin_sum_via_grad(&x, w));
    let mut want_w = 0.0;
    for i in 0..x.len() {
        let (s, c) = (x[i] * w).sin_cos();
        assert_relative_eq!(dx[i], -(c * w * x[i] + s), max_relative = 1e-14);
        want_w -= c * x[i] * x[i];
    }
    assert_relative_eq!(dw, want_w, max_relative = 1e-13);
}

/// Two accumulators returned together: `_vjp` seeds each.
#[reverse]
fn moments(x: &[f64]) -> (f64, f64) {
    let mut s = 0.0;
    let mut q = 0.0;
    for i in 0..x.len() {
        s += x[i];
        q += x[i] * x[i];
    }
    (s, q)
}

#[test]
fn two_accumulators_returned_as_a_tuple() {
    let x = xs();
    let (v, dx) = moments_vjp(&x, (0.5, -1.5));
    let want = moments(&x);
    assert_eq!(
        (v.0.to_bits(), v.1.to_bits()),
        (want.0.to_bits(), want.1.to_bits())
    );
    for i in 0..x.len() {
        assert_relative_eq!(dx[i], 0.5 - 3.0 * x[i], max_relative = 1e-15);
    }
}

/// Branches, a local array and a call of an annotated function in the fused loop's body:
/// their values go through the value stack within the iteration.
#[reverse]
fn softplus(z: f64) -> f64 {
    if z > 20.0 {
        z
    } else {
        z.exp().ln_1p()
    }
}

#[reverse]
fn layered(w: &[f64], x: &[f64]) -> f64 {
    let mut total = 0.0;
    for b in 0..x.len() {
        let z = w[0] * x[b] + w[1];
        let h = [z, 0.1 * z, z * z];
        let a = if z > 0.0 { h[0] } else { h[1] };
        total += softplus(a * w[2]) + h[2];
    }
    total
}

#[reverse]
fn layered_via(w: &[f64], x: &[f64]) -> f64 {
    layered(w, x)
}

#[test]
fn loop_with_branches_arrays_and_calls() {
    let w = vec![0.4, -0.3, 0.9];
    let x: Vec<f64> = xs().into_iter().chain(ys()).collect();
    let (_, (dw, dx)) = checked(
        layered(&w, &x),
        layered_grad(&w, &x),
        layered_via_grad(&w, &x),
    );
    fd(|p| layered(p, &x), &w, &dw);
    fd(|p| layered(&w, p), &x, &dx);
}

// ---- more work after the loop: the loop's reverse is multiplied afterwards ----------------

/// The mean: the accumulator's adjoint is `seed / n`.
#[reverse]
fn mean_square(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] * w).powi(2);
    }
    s / x.len() as f64
}

#[reverse]
fn mean_square_via(x: &[f64], w: f64) -> f64 {
    mean_square(x, w)
}

#[test]
fn mean_of_squares() {
    let (x, w) = (xs(), -1.3);
    let n = x.len() as f64;
    let (_, (dx, dw)) = checked(
        mean_square(&x, w),
        mean_square_grad(&x, w),
        mean_square_via_grad(&x, w),
    );
    let sum_sq: f64 = x.iter().map(|v| v * v).sum();
    for i in 0..x.len() {
        assert_relative_eq!(dx[i], 2.0 * x[i] * w * w / n, max_relative = 1e-14);
    }
    assert_relative_eq!(dw, 2.0 * w * sum_sq / n, max_relative = 1e-14);
    let (_, (dx3, dw3)) = mean_square_vjp(&x, w, 3.0);
    assert_relative_eq!(dw3, 3.0 * dw, max_relative = 1e-14);
    assert_relative_eq!(dx3[2], 3.0 * dx[2], max_relative = 1e-14);
}

/// Log-sum-exp: the statement after the loop reads `m`, which the loop's reverse adds into
/// too (it gets an adjoint of its own in the loop); the gradient is the softmax.
#[reverse]
fn log_sum_exp(x: &[f64]) -> f64 {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] - m).exp();
    }
    m + s.ln()
}

#[reverse]
fn log_sum_exp_via(x: &[f64]) -> f64 {
    log_sum_exp(x)
}

#[test]
fn log_sum_exp_gradient_is_the_softmax() {
    let x = xs();
    let (v, dx) = checked(
        log_sum_exp(&x),
        log_sum_exp_grad(&x),
        log_sum_exp_via_grad(&x),
    );
    let total: f64 = x.iter().map(|t| t.exp()).sum();
    assert_relative_eq!(v, total.ln(), max_relative = 1e-15);
    for i in 0..x.len() {
        assert_relative_eq!(dx[i], x[i].exp() / total, max_relative = 1e-14);
    }
    assert_relative_eq!(dx.iter().sum::<f64>(), 1.0, max_relative = 1e-14);
}

/// The norm plus a read of the array the loop reads: its adjoint gets the loop's part
/// multiplied, then the direct one.
#[reverse]
fn norm_plus_first(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s.sqrt() + 3.0 * x[0]
}

#[test]
fn norm_plus_a_read_of_the_same_array() {
    let x = ys();
    let (v, dx) = norm_plus_first_grad(&x);
    assert_eq!(v.to_bits(), norm_plus_first(&x).to_bits());
    let norm = x.iter().map(|t| t * t).sum::<f64>().sqrt();
    for i in 0..x.len() {
        let direct = if i == 0 { 3.0 } else { 0.0 };
        assert_relative_eq!(dx[i], x[i] / norm + direct, max_relative = 1e-14);
    }
}

/// A variable the loop reads, overwritten after it and read again: its adjoint after the
/// loop belongs to the new value; the loop's part is added after the overwrite's reverse.
#[reverse]
fn overwritten_after(x: &[f64], w: f64) -> f64 {
    let mut c = 2.0 * w;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += c * x[i];
    }
    c = 3.0 * w;
    s * c
}

#[test]
fn variable_overwritten_after_the_loop() {
    let (x, w) = (xs(), 0.6);
    let (v, (dx, dw)) = overwritten_after_grad(&x, w);
    assert_eq!(v.to_bits(), overwritten_after(&x, w).to_bits());
    let sum: f64 = x.iter().sum();
    // f = 2w Σx · 3w = 6 w² Σx
    assert_relative_eq!(dw, 12.0 * w * sum, max_relative = 1e-14);
    for d in dx {
        assert_relative_eq!(d, 6.0 * w * w, max_relative = 1e-14);
    }
}

/// The returned tuple holds a variable the loop reads: its seed is not multiplied.
#[reverse]
fn scaled_and_returned(x: &[f64], w: f64) -> (f64, f64) {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += w * x[i];
    }
    (s * s, w)
}

#[test]
fn a_returned_variable_the_loop_reads() {
    let (x, w) = (ys(), 1.7);
    let (v, (dx, dw)) = scaled_and_returned_vjp(&x, w, (0.5, 2.0));
    let want = scaled_and_returned(&x, w);
    assert_eq!(
        (v.0.to_bits(), v.1.to_bits()),
        (want.0.to_bits(), want.1.to_bits())
    );
    let sum: f64 = x.iter().sum();
    let s = w * sum;
    // 0.5 · d(s²) + 2 · dw/dw
    assert_relative_eq!(dw, 0.5 * 2.0 * s * sum + 2.0, max_relative = 1e-14);
    for d in dx {
        assert_relative_eq!(d, 0.5 * 2.0 * s * w, max_relative = 1e-14);
    }
}

/// The MLP's loss over a batch, divided by the batch size after the loop: fused, scaled, with
/// two levels of loops in its body (whose `tanh` values the inner reverse pops).
#[reverse(wrt(w1, w2))]
fn mlp_mean_loss(w1: &[f64], w2: &[f64], xs: &[f64], ys: &[f64], inputs: usize) -> f64 {
    let hidden = w2.len();
    let mut loss = 0.0;
    for b in 0..ys.len() {
        let mut out = 0.0;
        for j in 0..hidden {
            let mut z = 0.0;
            for k in 0..inputs {
                z += w1[j * inputs + k] * xs[b * inputs + k];
            }
            out += w2[j] * z.tanh();
        }
        let err = out - ys[b];
        loss += err * err;
    }
    loss / ys.len() as f64
}

#[reverse(wrt(w1, w2))]
fn mlp_mean_loss_via(w1: &[f64], w2: &[f64], xs: &[f64], ys: &[f64], inputs: usize) -> f64 {
    mlp_mean_loss(w1, w2, xs, ys, inputs)
}

/// Row sums of `M x`, each row's sum in a local: fused with its inner loop.
#[reverse(wrt(m, x))]
fn row_sums(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut s = 0.0;
        for j in 0..n {
            s += m[i * n + j] * x[j].sin();
        }
        total += s * s;
    }
    total
}

#[reverse(wrt(m, x))]
fn row_sums_via(m: &[f64], x: &[f64], n: usize) -> f64 {
    row_sums(m, x, n)
}

#[test]
fn loops_with_loops_in_their_body() {
    for n in [0, 1, 4] {
        let m: Vec<f64> = (0..n * n).map(|k| (k as f64 * 0.37).sin()).collect();
        let x: Vec<f64> = (0..n).map(|k| 0.3 + 0.2 * k as f64).collect();
        let (_, (dm, dx)) = checked(
            row_sums(&m, &x, n),
            row_sums_grad(&m, &x, n),
            row_sums_via_grad(&m, &x, n),
        );
        // d/dm[i][j] = 2 s_i sin x_j; d/dx_j = Σ_i 2 s_i m[i][j] cos x_j.
        for i in 0..n {
            let s: f64 = (0..n).map(|j| m[i * n + j] * x[j].sin()).sum();
            for j in 0..n {
                assert_relative_eq!(dm[i * n + j], 2.0 * s * x[j].sin(), max_relative = 1e-13);
            }
        }
        for j in 0..n {
            let expected: f64 = (0..n)
                .map(|i| {
                    let s: f64 = (0..n).map(|k| m[i * n + k] * x[k].sin()).sum();
                    2.0 * s * m[i * n + j] * x[j].cos()
                })
                .sum();
            assert_relative_eq!(dx[j], expected, max_relative = 1e-12, epsilon = 1e-15);
        }
    }
}

#[test]
fn mean_loss_of_a_small_network() {
    let inputs = 2;
    let w1 = vec![0.5, -0.2, 0.3, 0.8, -0.6, 0.1];
    let w2 = vec![0.7, -0.4, 0.9];
    let data = xs();
    let targets = vec![0.2, -0.5, 1.0];
    let (v, (d1, d2)) = mlp_mean_loss_grad(&w1, &w2, &data, &targets, inputs);
    assert_eq!(
        v.to_bits(),
        mlp_mean_loss(&w1, &w2, &data, &targets, inputs).to_bits()
    );
    fd(|p| mlp_mean_loss(p, &w2, &data, &targets, inputs), &w1, &d1);
    fd(|p| mlp_mean_loss(&w1, p, &data, &targets, inputs), &w2, &d2);
    checked(
        v,
        (v, (d1, d2)),
        mlp_mean_loss_via_grad(&w1, &w2, &data, &targets, inputs),
    );
}

/// Generic and in `f32`: the multiplication uses the accumulator's float type.
#[reverse]
fn mean_cube<T: Float>(x: &[T]) -> T {
    let mut s = T::ZERO;
    for i in 0..x.len() {
        s += x[i] * x[i] * x[i];
    }
    s / T::from_f64(x.len() as f64)
}

#[test]
fn generic_mean_of_cubes_in_f32_and_f64() {
    let x = xs();
    let n = x.len() as f64;
    let (v, dx) = mean_cube_grad(&x);
    assert_eq!(v.to_bits(), mean_cube(&x).to_bits());
    for i in 0..x.len() {
        assert_relative_eq!(dx[i], 3.0 * x[i] * x[i] / n, max_relative = 1e-14);
    }
    let x32: Vec<f32> = x.iter().map(|&t| t as f32).collect();
    let (v32, dx32) = mean_cube_grad(&x32);
    assert_eq!(v32.to_bits(), mean_cube(&x32).to_bits());
    for i in 0..x.len() {
        assert_relative_eq!(dx32[i], 3.0 * x32[i] * x32[i] / 6.0, max_relative = 1e-5);
    }
}

// ---- inner loops fused in a fused iteration ----------------------------------------------
//
// What follows the inner loop in the iteration only passes its accumulator's adjoint on, so
// the inner loop's reverse runs in its forward too: one pass over each row.

/// Row sums passed on scaled and subtracted: `total = Σ_i 1.5 s_i`.
#[reverse(wrt(m, x))]
fn weighted_row_sums(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut s = 0.0;
        for j in 0..n {
            s += m[i * n + j] * x[j].sin();
        }
        let half = 0.5 * s;
        total -= half;
        total += 2.0 * s;
    }
    total
}

#[reverse(wrt(m, x))]
fn weighted_row_sums_via(m: &[f64], x: &[f64], n: usize) -> f64 {
    weighted_row_sums(m, x, n)
}

#[test]
fn inner_loops_whose_result_is_passed_on() {
    for n in [0, 1, 2, 5] {
        let m: Vec<f64> = (0..n * n).map(|k| (k as f64 * 0.37).sin()).collect();
        let x: Vec<f64> = (0..n).map(|k| 0.3 + 0.2 * k as f64).collect();
        let (_, (dm, dx)) = checked(
            weighted_row_sums(&m, &x, n),
            weighted_row_sums_grad(&m, &x, n),
            weighted_row_sums_via_grad(&m, &x, n),
        );
        for i in 0..n {
            for j in 0..n {
                assert_relative_eq!(dm[i * n + j], 1.5 * x[j].sin(), max_relative = 1e-15);
            }
        }
        for j in 0..n {
            let column: f64 = (0..n).map(|i| m[i * n + j]).sum();
            assert_relative_eq!(dx[j], 1.5 * column * x[j].cos(), max_relative = 1e-12);
        }
    }
}

/// The inner loop adds into the outer accumulator itself, from `lo`, reading `w[i]` (an
/// element at an index it does not change, held in a local, its adjoint too).
#[reverse(wrt(w, x))]
fn banded_products(w: &[f64], x: &[f64], lo: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        for j in lo..x.len() {
            total += w[i] * x[j] * x[j];
        }
    }
    total
}

#[reverse(wrt(w, x))]
fn banded_products_via(w: &[f64], x: &[f64], lo: usize) -> f64 {
    banded_products(w, x, lo)
}

#[test]
fn inner_loops_adding_into_the_outer_accumulator() {
    let (w, x) = (xs(), ys());
    for lo in [0, 2, 6, 9] {
        let (_, (dw, dx)) = checked(
            banded_products(&w, &x, lo),
            banded_products_grad(&w, &x, lo),
            banded_products_via_grad(&w, &x, lo),
        );
        // total = (Σ w) (Σ_{j ≥ lo} x_j²)
        let sw: f64 = w.iter().sum();
        let sq: f64 = x.iter().skip(lo).map(|v| v * v).sum();
        for i in 0..w.len() {
            assert_relative_eq!(dw[i], sq, max_relative = 1e-14);
        }
        for j in 0..x.len() {
            let want = if j >= lo { 2.0 * sw * x[j] } else { 0.0 };
            assert_relative_eq!(dx[j], want, max_relative = 1e-13);
        }
    }
}

/// Three loops deep, a branch in the innermost, an integer counter, a linear scaling after
/// each inner loop.
#[reverse]
fn nested_three(a: &[f64], rounds: usize) -> f64 {
    let mut total = 0.0;
    let mut count = 0usize;
    for r in 0..rounds {
        let mut t = 0.0;
        for i in 0..a.len() {
            let mut u = 0.0;
            for j in 0..a.len() {
                if a[j] > 0.0 {
                    u += a[i] * a[j] * (r as f64 + 1.0);
                } else {
                    u -= (a[j] * a[i]).exp();
                }
            }
            t += u;
            count += 1;
        }
        total += t * 0.25;
    }
    total + count as f64
}

#[reverse]
fn nested_three_via(a: &[f64], rounds: usize) -> f64 {
    nested_three(a, rounds)
}

#[test]
fn inner_loops_three_deep() {
    let a = xs();
    for rounds in [0, 1, 3] {
        let (_, da) = checked(
            nested_three(&a, rounds),
            nested_three_grad(&a, rounds),
            nested_three_via_grad(&a, rounds),
        );
        fd(|p| nested_three(p, rounds), &a, &da);
    }
}

/// An inner loop whose reads run past the end of `x`: the gradient panics as the function
/// does.
#[reverse(wrt(m, x))]
fn short_rows(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut s = 0.0;
        for j in 0..n {
            s += m[i * n + j] * x[j];
        }
        total += s;
    }
    total
}

#[test]
#[should_panic(expected = "out of")]
fn inner_loop_reading_past_the_end_panics() {
    let m = vec![1.0; 9];
    let _ = short_rows_grad(&m, &[1.0, 2.0], 3);
}

#[test]
#[should_panic(expected = "out of")]
fn the_function_reading_past_the_end_panics() {
    let m = vec![1.0; 9];
    let _ = short_rows(&m, &[1.0, 2.0], 3);
}

// ---- a loop fused with what follows it reversed first -------------------------------------
//
// `acc[i] += ..` in a double loop, then a reduction of `acc` whose reverse reads nothing the
// loops compute (`total += acc[i]`): the reduction's reverse runs first, giving the adjoint of
// `acc`, then the double loop runs fused.

/// `Σ_i (M x)_i`, with the products accumulated into `acc` (and one row's sign flipped).
#[reverse(wrt(m, x))]
fn accumulated_rows(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut acc = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            if i == 1 {
                acc[i] -= m[i * n + j] * x[j];
            } else {
                acc[i] += m[i * n + j] * x[j].sin();
            }
        }
    }
    let mut total = 0.0;
    for i in 0..n {
        total += 2.0 * acc[i];
    }
    total / 4.0
}

#[reverse(wrt(m, x))]
fn accumulated_rows_via(m: &[f64], x: &[f64], n: usize) -> f64 {
    accumulated_rows(m, x, n)
}

/// The same, but the reduction reads the values it sums (`acc[i] * acc[i]`): not reversed
/// first, the double loop is reversed after it.
#[reverse(wrt(m, x))]
fn squared_rows(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut acc = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            acc[i] += m[i * n + j] * x[j];
        }
    }
    let mut total = 0.0;
    for i in 0..n {
        total += acc[i] * acc[i];
    }
    total
}

#[reverse(wrt(m, x))]
fn squared_rows_via(m: &[f64], x: &[f64], n: usize) -> f64 {
    squared_rows(m, x, n)
}

/// The same sums by `acc.iter().sum()` and by a loop over `0..acc.len()`.
#[reverse(wrt(m, x))]
fn accumulated_then_summed(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut acc = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            acc[i] += m[i * n + j] * x[j];
        }
    }
    let mut total = acc.iter().sum::<f64>();
    for i in 0..acc.len() {
        total -= 0.25 * acc[i];
    }
    total
}

#[reverse(wrt(m, x))]
fn accumulated_then_summed_via(m: &[f64], x: &[f64], n: usize) -> f64 {
    accumulated_then_summed(m, x, n)
}

#[test]
fn double_loops_then_their_sum() {
    for n in [0, 1, 2, 4] {
        let m: Vec<f64> = (0..n * n).map(|k| (k as f64 * 0.37).sin()).collect();
        let x: Vec<f64> = (0..n).map(|k| 0.3 + 0.2 * k as f64).collect();
        let (_, (dm, dx)) = checked(
            accumulated_rows(&m, &x, n),
            accumulated_rows_grad(&m, &x, n),
            accumulated_rows_via_grad(&m, &x, n),
        );
        // total = Σ_i ±(M f(x))_i / 2, f = id on row 1 (subtracted), sin elsewhere.
        for i in 0..n {
            for j in 0..n {
                let want = if i == 1 {
                    -0.5 * x[j]
                } else {
                    0.5 * x[j].sin()
                };
                assert_relative_eq!(dm[i * n + j], want, max_relative = 1e-15);
            }
        }
        for j in 0..n {
            let want: f64 = (0..n)
                .map(|i| match i {
                    1 => -0.5 * m[i * n + j],
                    _ => 0.5 * m[i * n + j] * x[j].cos(),
                })
                .sum();
            assert_relative_eq!(dx[j], want, max_relative = 1e-12, epsilon = 1e-15);
        }
        // 0.75 Σ_i (M x)_i
        let (_, (dm, dx)) = checked(
            accumulated_then_summed(&m, &x, n),
            accumulated_then_summed_grad(&m, &x, n),
            accumulated_then_summed_via_grad(&m, &x, n),
        );
        for i in 0..n {
            for j in 0..n {
                assert_relative_eq!(dm[i * n + j], 0.75 * x[j], max_relative = 1e-15);
            }
        }
        for j in 0..n {
            let column: f64 = (0..n).map(|i| m[i * n + j]).sum();
            assert_relative_eq!(dx[j], 0.75 * column, max_relative = 1e-12, epsilon = 1e-15);
        }
        let (_, (dm, dx)) = checked(
            squared_rows(&m, &x, n),
            squared_rows_grad(&m, &x, n),
            squared_rows_via_grad(&m, &x, n),
        );
        let rows: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| m[i * n + j] * x[j]).sum())
            .collect();
        for i in 0..n {
            for j in 0..n {
                assert_relative_eq!(dm[i * n + j], 2.0 * rows[i] * x[j], max_relative = 1e-13);
            }
        }
        for j in 0..n {
            let want: f64 = (0..n).map(|i| 2.0 * rows[i] * m[i * n + j]).sum();
            assert_relative_eq!(dx[j], want, max_relative = 1e-12, epsilon = 1e-15);
        }
    }
}

/// Arrays accumulated into and returned: their seeds are their adjoints, before the loop.
#[reverse]
fn negated_squares(w: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; w.len()];
    for i in 0..w.len() {
        out[i] -= w[i] * w[i];
    }
    out
}

#[reverse]
fn neighbour_products(w: [f64; 3]) -> [f64; 3] {
    let mut out = [1.0; 3];
    for i in 0..3 {
        out[i] += w[i] * w[(i + 1) % 3];
    }
    out
}

#[test]
fn arrays_accumulated_into_and_returned() {
    let w = [1.0, 2.0, 3.0];
    let seed = [1.0, 10.0, 100.0];
    let (v, dw) = negated_squares_vjp(&w, seed.to_vec());
    assert_eq!(v, negated_squares(&w));
    for i in 0..3 {
        assert_eq!(dw[i], -2.0 * w[i] * seed[i]);
    }
    let (v, dw) = neighbour_products_vjp(w, seed);
    assert_eq!(v, neighbour_products(w));
    // out_i = 1 + w_i w_{i+1}
    for k in 0..3 {
        let want = seed[k] * w[(k + 1) % 3] + seed[(k + 2) % 3] * w[(k + 2) % 3];
        assert_eq!(dw[k], want);
    }
}

// ---- loops that are not fused: still exact ------------------------------------------------

/// The accumulator feeds the loop: its adjoint changes from one iteration to the next.
#[reverse]
fn compound(x: &[f64], r: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += s * r + x[i];
    }
    s
}

#[test]
fn an_accumulator_that_feeds_the_loop() {
    let (x, r) = (xs(), 0.1);
    let (v, (dx, dr)) = compound_grad(&x, r);
    assert_eq!(v.to_bits(), compound(&x, r).to_bits());
    // s_n = Σ x_i (1 + r)^(n-1-i)
    let n = x.len();
    for i in 0..n {
        assert_relative_eq!(
            dx[i],
            (1.0 + r).powi((n - 1 - i) as i32),
            max_relative = 1e-14
        );
    }
    fd(|p| compound(&x, p[0]), &[r], &[dr]);
}

/// Two accumulators followed by more work (the variance): the loop's reverse is linear in
/// two adjoints at once.
#[reverse]
fn variance(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut q = 0.0;
    for i in 0..x.len() {
        s += x[i];
        q += x[i] * x[i];
    }
    let n = x.len() as f64;
    q / n - (s / n) * (s / n)
}

#[test]
fn two_accumulators_then_more_work() {
    let x = xs();
    let n = x.len() as f64;
    let (v, dx) = variance_grad(&x);
    assert_eq!(v.to_bits(), variance(&x).to_bits());
    let mean = x.iter().sum::<f64>() / n;
    for i in 0..x.len() {
        assert_relative_eq!(dx[i], 2.0 * (x[i] - mean) / n, max_relative = 1e-13);
    }
}

/// A loop-carried array: each iteration reads what the previous one wrote.
#[reverse]
fn prefix_products(x: &[f64]) -> f64 {
    let mut p = vec![1.0; x.len() + 1];
    let mut s = 0.0;
    for i in 0..x.len() {
        p[i + 1] = p[i] * x[i];
        s += p[i + 1];
    }
    s
}

#[test]
fn a_loop_carried_array() {
    let x = ys();
    let (v, dx) = prefix_products_grad(&x);
    assert_eq!(v.to_bits(), prefix_products(&x).to_bits());
    fd(prefix_products, &x, &dx);
}
