//! Views of float arrays (sub-slices, `split_at`, chunks, windows, reversed and zipped
//! iteration, `copy_from_slice`, writes through `&mut x[a..b]`), inactive data (constant and
//! static tables, integer index arrays, integer assignment), `return` in both arms of a tail
//! `if`, a callee of another precision, and an array passed twice. Each gradient is checked
//! against a closed form and against central finite differences; each value bit for bit
//! against the primal, and through an annotated caller `NAME_via` (the split companions).
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::needless_return,
    clippy::useless_vec,
    reason = "these tests exercise index loops, plain assignments, `return` and `vec!` on purpose: they are the forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
use bits::checked;

const X4: [f64; 4] = [0.7, -1.3, 2.1, 0.4];
const X6: [f64; 6] = [0.7, -1.3, 2.1, 0.4, -0.9, 1.6];

/// Central finite differences of `f` at `x` agree with `g`.
#[track_caller]
fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    check::gradient(f, x, g).unwrap();
}

// ---- windows: a sliding-window sum of products ------------------------------------------

#[reverse]
fn window_products(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        s += w[0] * w[1] * w[2];
    }
    s
}

#[reverse]
fn window_products_via(x: &[f64]) -> f64 {
    window_products(x)
}

#[test]
fn windows_sum_products_of_neighbours() {
    let x = X6;
    let (v, g) = checked(
        window_products(&x),
        window_products_grad(&x),
        window_products_via_grad(&x),
    );
    let mut expect_v = 0.0;
    let mut expect = vec![0.0; 6];
    for k in 0..4 {
        expect_v += x[k] * x[k + 1] * x[k + 2];
        expect[k] += x[k + 1] * x[k + 2];
        expect[k + 1] += x[k] * x[k + 2];
        expect[k + 2] += x[k] * x[k + 1];
    }
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    for k in 0..6 {
        assert_relative_eq!(g[k], expect[k], epsilon = 1e-12);
    }
    fd(window_products, &x, &g);
    // Fewer elements than the window: no window, no term.
    assert_eq!(window_products_grad(&[1.0, 2.0]), (0.0, vec![0.0, 0.0]));
}

/// The window slid over a view, and iterated inside.
#[reverse]
fn window_means(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for w in x[1..].windows(k) {
        let mut m = 0.0;
        for v in w.iter() {
            m += *v;
        }
        s += (m / k as f64).powi(2);
    }
    s
}

#[test]
fn windows_of_a_slice_iterated_inside() {
    let x = X6;
    let (v, g) = window_means_grad(&x, 2);
    let mut expect_v = 0.0;
    let mut expect = vec![0.0; 6];
    for j in 1..5 {
        let m = (x[j] + x[j + 1]) / 2.0;
        expect_v += m * m;
        expect[j] += m;
        expect[j + 1] += m;
    }
    assert_eq!(v.to_bits(), window_means(&x, 2).to_bits());
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    for j in 0..6 {
        assert_relative_eq!(g[j], expect[j], epsilon = 1e-12);
    }
    fd(|x| window_means(x, 3), &x, &window_means_grad(&x, 3).1);
}

// ---- chunks: a chunked dot product ------------------------------------------------------

#[reverse]
fn chunked_dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (cx, cy) in x.chunks(4).zip(y.chunks(4)) {
        let mut part = 0.0;
        for i in 0..cx.len() {
            part += cx[i] * cy[i];
        }
        s += part;
    }
    s
}

#[reverse]
fn chunked_dot_via(x: &[f64], y: &[f64]) -> f64 {
    chunked_dot(x, y)
}

#[test]
fn chunks_compute_a_dot_product() {
    // 10 elements: chunks of 4, 4 and 2.
    let x: Vec<f64> = (0..10).map(|i| (i as f64 * 0.37).sin()).collect();
    let y: Vec<f64> = (0..10).map(|i| (i as f64 * 0.91).cos()).collect();
    let (v, (gx, gy)) = checked(
        chunked_dot(&x, &y),
        chunked_dot_grad(&x, &y),
        chunked_dot_via_grad(&x, &y),
    );
    let dot: f64 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
    assert_relative_eq!(v, dot, epsilon = 1e-12);
    assert_eq!(gx, y);
    assert_eq!(gy, x);
}

/// `chunks_exact` with the chunk's index, and an iterator chain over each chunk.
#[reverse]
fn weighted_chunk_norms(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, c) in x.chunks_exact(2).enumerate() {
        let sq: f64 = c.iter().map(|v| v * v).sum();
        s += sq * (k as f64 + 1.0);
    }
    s
}

#[test]
fn chunks_exact_with_enumerate_and_a_chain_inside() {
    // 7 elements: three chunks of 2; the last element is in none.
    let x = [0.7, -1.3, 2.1, 0.4, -0.9, 1.6, 5.0];
    let (v, g) = weighted_chunk_norms_grad(&x);
    assert_eq!(v.to_bits(), weighted_chunk_norms(&x).to_bits());
    let mut expect = vec![0.0; 7];
    for i in 0..6 {
        expect[i] = 2.0 * x[i] * (i / 2 + 1) as f64;
    }
    assert_eq!(g, expect);
    fd(weighted_chunk_norms, &x, &g);
}

// ---- iter().rev(): Horner's rule --------------------------------------------------------

#[reverse]
fn horner(c: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for ci in c.iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

#[reverse]
fn horner_via(c: &[f64], x: f64) -> f64 {
    horner(c, x)
}

#[test]
fn reversed_iteration_evaluates_a_polynomial() {
    let c = [0.5, -1.0, 2.0, 0.25];
    let x = 1.3;
    let (v, (gc, gx)) = checked(horner(&c, x), horner_grad(&c, x), horner_via_grad(&c, x));
    let p = |x: f64| c[0] + c[1] * x + c[2] * x * x + c[3] * x * x * x;
    assert_relative_eq!(v, p(x), epsilon = 1e-12);
    assert_relative_eq!(
        gx,
        c[1] + 2.0 * c[2] * x + 3.0 * c[3] * x * x,
        epsilon = 1e-12
    );
    for (k, g) in gc.iter().enumerate() {
        assert_relative_eq!(*g, x.powi(k as i32), epsilon = 1e-12);
    }
}

/// `.iter().rev().enumerate()`, and a reversed iterator chain.
#[reverse]
fn reversed_weights(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, v) in x.iter().rev().enumerate() {
        s += v * (k as f64 + 1.0);
    }
    let t: f64 = x.iter().rev().zip(x).map(|(a, b)| a * b).sum();
    s + t
}

#[test]
fn reversed_enumerate_counts_from_the_last_element() {
    let x = X4;
    let (v, g) = reversed_weights_grad(&x);
    assert_eq!(v.to_bits(), reversed_weights(&x).to_bits());
    // s = sum x[i] (n - i); t = sum x[n-1-i] x[i], so dt/dx[i] = 2 x[n-1-i].
    let n = x.len();
    for i in 0..n {
        assert_relative_eq!(g[i], (n - i) as f64 + 2.0 * x[n - 1 - i], epsilon = 1e-12);
    }
    fd(reversed_weights, &x, &g);
}

// ---- split_at: two halves -----------------------------------------------------------------

#[reverse]
fn halves(x: &[f64]) -> f64 {
    let (left, right) = x.split_at(x.len() / 2);
    let mut s = 0.0;
    for (a, b) in left.iter().zip(right) {
        s += a * b;
    }
    s + right[right.len() - 1] * left.len() as f64
}

#[reverse]
fn halves_via(x: &[f64]) -> f64 {
    halves(x)
}

#[test]
fn split_at_halves_combined() {
    let x = X6;
    let (v, g) = checked(halves(&x), halves_grad(&x), halves_via_grad(&x));
    let expect_v = x[0] * x[3] + x[1] * x[4] + x[2] * x[5] + x[5] * 3.0;
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    assert_eq!(g, vec![x[3], x[4], x[5], x[0], x[1], x[2] + 3.0]);
}

/// `split_at_mut`: writes through both halves reach the array.
#[reverse]
fn split_and_write(x: &[f64]) -> f64 {
    let mut h = vec![0.0; 4];
    let (a, b) = h.split_at_mut(1);
    a[0] = x[0] * x[1];
    b[2] = x[2].sin();
    b[0] += a[0];
    h[0] * h[1] + h[3]
}

#[test]
fn split_at_mut_writes_reach_the_array() {
    let x = [0.7, -1.3, 2.1];
    let (v, g) = split_and_write_grad(&x);
    assert_eq!(v.to_bits(), split_and_write(&x).to_bits());
    // h = [p, p, 0, sin x2] with p = x0 x1: value p^2 + sin x2.
    let p = x[0] * x[1];
    assert_relative_eq!(v, p * p + x[2].sin(), epsilon = 1e-12);
    assert_relative_eq!(g[0], 2.0 * p * x[1], epsilon = 1e-12);
    assert_relative_eq!(g[1], 2.0 * p * x[0], epsilon = 1e-12);
    assert_relative_eq!(g[2], x[2].cos(), epsilon = 1e-12);
}

// ---- copy_from_slice into a local buffer, then reduced -----------------------------------

#[reverse]
fn copied_then_reduced(x: &[f64]) -> f64 {
    let mut buf = [0.0; 5];
    buf[1..4].copy_from_slice(&x[2..5]);
    let mut all = vec![0.0; x.len()];
    all.copy_from_slice(x);
    let mut s = 0.0;
    for i in 0..buf.len() {
        s += buf[i] * buf[i] * (i as f64);
    }
    s + all[0] * all[5]
}

#[reverse]
fn copied_then_reduced_via(x: &[f64]) -> f64 {
    copied_then_reduced(x)
}

#[test]
fn copy_from_slice_into_a_buffer() {
    let x = X6;
    let (v, g) = checked(
        copied_then_reduced(&x),
        copied_then_reduced_grad(&x),
        copied_then_reduced_via_grad(&x),
    );
    let expect_v = x[2] * x[2] + 2.0 * x[3] * x[3] + 3.0 * x[4] * x[4] + x[0] * x[5];
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    let expect = [x[5], 0.0, 2.0 * x[2], 4.0 * x[3], 6.0 * x[4], x[0]];
    for i in 0..6 {
        assert_relative_eq!(g[i], expect[i], epsilon = 1e-12);
    }
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn copy_from_slice_of_another_length_panics_in_the_gradient_too() {
    #[reverse]
    fn copy_tail(x: &[f64], k: usize) -> f64 {
        let mut buf = [0.0; 3];
        buf.copy_from_slice(&x[k..]);
        buf[0] * buf[2]
    }
    assert_eq!(copy_tail_grad(&X4, 1).1, vec![0.0, X4[3], 0.0, X4[1]]);
    let _ = copy_tail_grad(&X4, 2);
}

// ---- writes through &mut x[a..b] ------------------------------------------------------------

#[reverse]
fn write_through_slice(x: &[f64], k: usize) -> f64 {
    let mut h = vec![0.0; x.len()];
    let mut start = k;
    let v = &mut h[start..];
    // The view keeps the start it was made with.
    start += 1;
    for i in 0..v.len() {
        v[i] = x[i] * x[i];
    }
    v[0] += x[0];
    let mut s = 0.0;
    for i in 0..h.len() {
        s += h[i] * (i + start) as f64;
    }
    s
}

#[test]
fn writes_through_a_mutable_slice_reach_the_array() {
    let x = X6;
    let k = 2;
    let (v, g) = write_through_slice_grad(&x, k);
    assert_eq!(v.to_bits(), write_through_slice(&x, k).to_bits());
    // h[k + i] = x[i]^2 (+ x[0] at i = 0), weighted by k + i + k + 1.
    let w = |i: usize| (2 * k + 1 + i) as f64;
    let mut expect_v = x[0] * w(0);
    let mut expect = vec![0.0; 6];
    expect[0] += w(0);
    for i in 0..4 {
        expect_v += x[i] * x[i] * w(i);
        expect[i] += 2.0 * x[i] * w(i);
    }
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    for i in 0..6 {
        assert_relative_eq!(g[i], expect[i], epsilon = 1e-12);
    }
    fd(
        |x| write_through_slice(x, 1),
        &x,
        &write_through_slice_grad(&x, 1).1,
    );
}

// ---- a slice of a slice, and a slice passed to an annotated function ----------------------

#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[reverse]
fn shifted_products(x: &[f64]) -> f64 {
    let tail = &x[1..];
    let mid = &tail[1..=2];
    dot(&x[..3], tail) + dot(mid, &tail[..2]) + mid[1] * tail.len() as f64
}

#[reverse]
fn shifted_products_via(x: &[f64]) -> f64 {
    shifted_products(x)
}

#[test]
fn slices_of_slices_and_slices_as_arguments() {
    let x = X4;
    let (v, g) = checked(
        shifted_products(&x),
        shifted_products_grad(&x),
        shifted_products_via_grad(&x),
    );
    // dot(x[0..3], x[1..4]) + dot(x[2..4], x[1..3]) + 3 x[3]
    let expect_v = x[0] * x[1] + x[1] * x[2] + x[2] * x[3] + x[2] * x[1] + x[3] * x[2] + 3.0 * x[3];
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    let expect = [
        x[1],
        x[0] + x[2] + x[2],
        x[1] + x[3] + x[1] + x[3],
        x[2] + x[2] + 3.0,
    ];
    for i in 0..4 {
        assert_relative_eq!(g[i], expect[i], epsilon = 1e-12);
    }
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn an_index_past_the_end_of_a_slice_panics_in_the_gradient_too() {
    #[reverse]
    fn past_the_end(x: &[f64], i: usize) -> f64 {
        let head = &x[..2];
        head[i] * 2.0
    }
    // `head[2]` is inside `x`, but not inside `head`.
    let _ = past_the_end_grad(&X4, 2);
}

// ---- the same array passed twice --------------------------------------------------------

#[reverse]
fn self_dot(a: &[f64]) -> f64 {
    dot(a, a)
}

#[reverse]
fn self_dot_array(a: [f64; 4]) -> f64 {
    dot(&a, &a) + dot(&a[1..], &a[..3])
}

#[test]
fn the_same_array_passed_twice() {
    let a = X4;
    let (v, g) = self_dot_grad(&a);
    assert_eq!(v.to_bits(), self_dot(&a).to_bits());
    assert_eq!(g, a.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
    let (v, g) = self_dot_array_grad(a);
    assert_eq!(v.to_bits(), self_dot_array(a).to_bits());
    // d/da of a0 a1 + a1 a2 + a2 a3: [a1, a0 + a2, a1 + a3, a2].
    let expect = [
        2.0 * a[0] + a[1],
        2.0 * a[1] + a[0] + a[2],
        2.0 * a[2] + a[1] + a[3],
        2.0 * a[3] + a[2],
    ];
    for i in 0..4 {
        assert_relative_eq!(g[i], expect[i], epsilon = 1e-12);
    }
}

// ---- constant and static tables ----------------------------------------------------------

const WEIGHTS: [f64; 4] = [0.5, -1.5, 2.0, 0.25];
static OFFSETS: [f64; 4] = [1.0, 2.0, 3.0, 4.0];

#[reverse]
fn weighted(x: &[f64]) -> f64 {
    let w = &WEIGHTS;
    let mut s = 0.0;
    for i in 0..4 {
        s += WEIGHTS[i] * x[i] * x[i] + w[i] * OFFSETS[i];
    }
    for (wi, xi) in WEIGHTS.iter().zip(x) {
        s += wi * xi;
    }
    s
}

#[reverse]
fn weighted_via(x: &[f64]) -> f64 {
    weighted(x)
}

#[test]
fn constant_tables_are_inactive_data() {
    let x = X4;
    let (v, g) = checked(weighted(&x), weighted_grad(&x), weighted_via_grad(&x));
    let mut expect_v = 0.0;
    for i in 0..4 {
        expect_v += WEIGHTS[i] * x[i] * x[i] + WEIGHTS[i] * OFFSETS[i] + WEIGHTS[i] * x[i];
    }
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    for i in 0..4 {
        assert_relative_eq!(g[i], 2.0 * WEIGHTS[i] * x[i] + WEIGHTS[i], epsilon = 1e-12);
    }
}

// ---- integer index arrays and integer assignment ------------------------------------------

#[reverse]
fn permuted(x: &[f64], p: &[usize]) -> f64 {
    let idx = [3usize, 0, 2, 1];
    let rev: Vec<usize> = (0..x.len()).rev().collect();
    let twice = vec![1usize, 1, 0, 0];
    let mut s = 0.0;
    for k in 0..x.len() {
        s += x[idx[k]] * x[p[k]] + x[rev[k]] * (k as f64) + x[twice[k]];
    }
    s
}

#[reverse]
fn permuted_via(x: &[f64], p: &[usize]) -> f64 {
    permuted(x, p)
}

#[test]
fn integer_index_arrays_gather() {
    let x = X4;
    let p = [1usize, 3, 0, 2];
    let (v, g) = checked(
        permuted(&x, &p),
        permuted_grad(&x, &p),
        permuted_via_grad(&x, &p),
    );
    let idx = [3usize, 0, 2, 1];
    let mut expect_v = 0.0;
    let mut expect = [0.0; 4];
    for k in 0..4 {
        expect_v += x[idx[k]] * x[p[k]] + x[3 - k] * k as f64 + x[[1, 1, 0, 0][k]];
        expect[idx[k]] += x[p[k]];
        expect[p[k]] += x[idx[k]];
        expect[3 - k] += k as f64;
        expect[[1, 1, 0, 0][k]] += 1.0;
    }
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    for i in 0..4 {
        assert_relative_eq!(g[i], expect[i], epsilon = 1e-12);
    }
}

#[reverse]
fn count_positive(x: &[f64]) -> f64 {
    let mut count = 0;
    let mut k = 0usize;
    let mut last = 0;
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            count = count + 1;
            last = i;
        }
        k = k + 1;
        s += x[last] * k as f64;
    }
    count = count * 2;
    s * count as f64
}

#[reverse]
fn count_positive_via(x: &[f64]) -> f64 {
    count_positive(x)
}

#[test]
fn integer_assignment_is_inactive() {
    let x = X4;
    let (v, g) = checked(
        count_positive(&x),
        count_positive_grad(&x),
        count_positive_via_grad(&x),
    );
    // Positives at 0, 2, 3: last = [0, 0, 2, 3], count = 3, doubled.
    let expect_v = (x[0] * 1.0 + x[0] * 2.0 + x[2] * 3.0 + x[3] * 4.0) * 6.0;
    assert_relative_eq!(v, expect_v, epsilon = 1e-12);
    assert_eq!(g, vec![18.0, 0.0, 18.0, 24.0]);
}

// ---- return in both arms of a tail `if` -------------------------------------------------

#[reverse]
fn both_arms_return(x: f64, y: f64) -> f64 {
    let z = x * y;
    if z > 1.0 {
        return z.ln() * x;
    } else if z < -1.0 {
        return -z;
    } else {
        return z.sin() + y;
    }
}

#[reverse]
fn both_arms_return_via(x: f64, y: f64) -> f64 {
    both_arms_return(x, y)
}

#[test]
fn return_in_both_arms_of_a_tail_if() {
    for &(x, y) in &[(2.0, 3.0), (-2.0, 3.0), (0.5, 0.25)] {
        let (v, (dx, dy)) = checked(
            both_arms_return(x, y),
            both_arms_return_grad(x, y),
            both_arms_return_via_grad(x, y),
        );
        let z: f64 = x * y;
        let (ex, ey) = if z > 1.0 {
            (z.ln() + 1.0, x / y)
        } else if z < -1.0 {
            (-y, -x)
        } else {
            (z.cos() * y, z.cos() * x + 1.0)
        };
        assert_relative_eq!(dx, ex, epsilon = 1e-12);
        assert_relative_eq!(dy, ey, epsilon = 1e-12);
        let _ = v;
    }
}

// ---- a callee of another precision ------------------------------------------------------

#[reverse]
fn widen(x: f32) -> f64 {
    (x as f64).sin() * 2.0
}

#[reverse]
fn narrow(x: f32) -> f32 {
    (widen(x) * 3.0) as f32 + x
}

#[reverse]
fn narrow_by_let(x: f32) -> f32 {
    let y = widen(x) as f32;
    y * x
}

#[test]
fn an_f32_function_calls_an_f64_helper() {
    let x = 0.3f32;
    let (v, d) = narrow_grad(x);
    assert_eq!(v.to_bits(), narrow(x).to_bits());
    let closed = 6.0 * (x as f64).cos() + 1.0;
    assert_relative_eq!(d as f64, closed, epsilon = 1e-6);
    let (v, d) = narrow_by_let_grad(x);
    assert_eq!(v.to_bits(), narrow_by_let(x).to_bits());
    let w = 2.0 * (x as f64).sin();
    let closed = 2.0 * (x as f64).cos() * x as f64 + w;
    assert_relative_eq!(d as f64, closed, epsilon = 1e-6);
}

/// `skip` and `take` right after `iter()`: narrower views, clamped to the length.
#[reverse]
fn skip_and_take(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().skip(1) {
        s += v * v;
    }
    for (i, v) in x.iter().take(2).enumerate() {
        s += *v * (i as f64 + 1.0);
    }
    for (a, b) in x.iter().zip(x.iter().skip(1)) {
        s += a * b;
    }
    for v in x.iter().skip(10) {
        s += v.exp();
    }
    s
}

#[test]
fn skip_and_take_are_views() {
    let x = [1.0, 2.0, 3.0];
    let (v, g) = skip_and_take_grad(&x);
    assert_eq!(v.to_bits(), skip_and_take(&x).to_bits());
    assert_eq!(v, 4.0 + 9.0 + 1.0 + 4.0 + 2.0 + 6.0);
    assert_eq!(g, vec![1.0 + 2.0, 4.0 + 2.0 + 1.0 + 3.0, 6.0 + 2.0]);
}
