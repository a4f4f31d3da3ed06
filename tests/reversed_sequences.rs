//! `for` loops over reversed sequences: `xs.iter().rev()` zipped with a sequence of another
//! length (each side keeps its own length: item `i` of `xs.iter().rev()` is `xs[len - 1 - i]`
//! even when the zip stops earlier), and `.rev()` of an enumeration, a zip and chunks (item
//! `i` is item `n - 1 - i` of the sequence, a zip of unequal lengths trimmed to the shorter
//! first, as `DoubleEndedIterator` does). Each value is the primal's, bit for bit, and each
//! gradient is compared with a closed form or central finite differences, with the longer
//! side first and second.

use revad::reverse;

#[path = "common/fd.rs"]
mod fd;
use fd::{close_all, fd};

/// The gradient of `f(a, b)` at `(a, b)` by finite differences, `a`'s then `b`'s.
fn fd2(f: impl Fn(&[f64], &[f64]) -> f64, a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = a.len();
    fd(|v| f(&v[..n], &v[n..]), &[a, b].concat())
}

const A: [f64; 5] = [1.0, 2.0, 3.0, 4.0, 5.0];
const B: [f64; 2] = [10.0, 20.0];

/// The last elements of `a` against the first of `b`.
#[reverse]
fn reversed_with_shorter(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().rev().zip(b.iter()) {
        s += x * y;
    }
    s
}

/// `b` reversed on the right of the zip.
#[reverse]
fn reversed_on_the_right(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b.iter().rev()) {
        s = s * 0.5 + x * y;
    }
    s
}

#[test]
fn a_reversed_side_keeps_its_own_length() {
    // 5·10 + 4·20: the last elements of `a`, not its first.
    let (v, (ga, gb)) = reversed_with_shorter_grad(&A, &B);
    assert_eq!(v, 130.0);
    assert_eq!(v, reversed_with_shorter(&A, &B));
    close_all(&ga, &[0.0, 0.0, 0.0, 20.0, 10.0]);
    close_all(&gb, &[5.0, 4.0]);
    // The shorter side reversed: 20·1 + 10·2.
    let (v, (gb, ga)) = reversed_with_shorter_grad(&B, &A);
    assert_eq!(v, reversed_with_shorter(&B, &A));
    assert_eq!(v, 40.0);
    close_all(&gb, &[2.0, 1.0]);
    close_all(&ga, &[20.0, 10.0, 0.0, 0.0, 0.0]);
    for (a, b) in [(&A[..], &B[..]), (&B[..], &A[..])] {
        let (v, (ga, gb)) = reversed_on_the_right_grad(a, b);
        assert_eq!(v, reversed_on_the_right(a, b));
        close_all(&[ga, gb].concat(), &fd2(reversed_on_the_right, a, b));
    }
}

/// The indices count down with the elements.
#[reverse]
fn enumerate_reversed(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, x) in a.iter().enumerate().rev() {
        s = s * 0.5 + x * (i as f64 + 1.0);
    }
    s
}

#[test]
fn enumerate_then_rev() {
    let (v, g) = enumerate_reversed_grad(&A);
    assert_eq!(v, enumerate_reversed(&A));
    assert_eq!(v, 8.8125);
    // Item (i, a_i) is scaled by 2^-i after the loop: d/da_i = (i + 1) / 2^i.
    close_all(&g, &[1.0, 1.0, 0.75, 0.5, 0.3125]);
    let (v, g) = enumerate_reversed_grad(&[]);
    assert_eq!(v, 0.0);
    assert!(g.is_empty());
}

/// A zip of unequal lengths, reversed: trimmed to the shorter first.
#[reverse]
fn zip_reversed(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b.iter()).rev() {
        s = s * 0.5 + x * y;
    }
    s
}

#[test]
fn zip_then_rev() {
    // Pairs (2, 20) then (1, 10): 40 / 2 + 10.
    let (v, (ga, gb)) = zip_reversed_grad(&A, &B);
    assert_eq!(v, zip_reversed(&A, &B));
    assert_eq!(v, 30.0);
    close_all(&ga, &[10.0, 10.0, 0.0, 0.0, 0.0]);
    close_all(&gb, &[1.0, 1.0]);
    let (v, (gb, ga)) = zip_reversed_grad(&B, &A);
    assert_eq!(v, zip_reversed(&B, &A));
    close_all(&[gb, ga].concat(), &fd2(zip_reversed, &B, &A));
}

/// Chunks from the last (the short one first).
#[reverse]
fn chunks_reversed(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in a.chunks(2).rev() {
        s = s * 0.5 + c[0] * c[c.len() - 1];
    }
    s
}

/// The same reversal twice is the sequence itself.
#[reverse]
fn twice_reversed(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, x) in a.iter().enumerate().rev().rev() {
        s = s * 0.5 + x * (i as f64 + 1.0);
    }
    s
}

#[test]
fn chunks_then_rev_and_rev_twice() {
    // [5], [3, 4], [1, 2]: (25 / 2 + 12) / 2 + 2.
    let (v, g) = chunks_reversed_grad(&A);
    assert_eq!(v, chunks_reversed(&A));
    assert_eq!(v, 14.25);
    close_all(&g, &[2.0, 1.0, 2.0, 1.5, 2.5]);
    let (v, g) = twice_reversed_grad(&A);
    assert_eq!(v, twice_reversed(&A));
    close_all(&g, &fd(twice_reversed, &A));
}

/// `iter_mut()` zipped with a reversed side of another length, reversed itself, and reversed
/// then enumerated.
#[reverse]
fn written_through_reversed_sides(a: &[f64], b: &[f64]) -> f64 {
    let mut out = vec![0.0; a.len()];
    for (o, y) in out.iter_mut().zip(b.iter().rev()) {
        *o = y * 2.0;
    }
    for (o, x) in out.iter_mut().rev().zip(a.iter()) {
        *o += x.sin();
    }
    let mut s = 0.0;
    for (i, o) in out.iter_mut().rev().enumerate() {
        *o *= i as f64 + 1.0;
        s += *o;
    }
    s * out[0]
}

#[test]
fn iter_mut_with_reversed_sides() {
    for (a, b) in [(&A[..], &B[..]), (&B[..], &A[..])] {
        let (v, (ga, gb)) = written_through_reversed_sides_grad(a, b);
        assert_eq!(v, written_through_reversed_sides(a, b));
        close_all(
            &[ga, gb].concat(),
            &fd2(written_through_reversed_sides, a, b),
        );
    }
    // a = [1, 2], b = [10, 20, 30, 40, 50]: out = [100 + sin 2, 80 + sin 1], then scaled by
    // [2, 1] from the end: s = 2 (100 + sin 2) + 80 + sin 1, times out[0] = 2 (100 + sin 2).
    let (v, _) = written_through_reversed_sides_grad(&[1.0, 2.0], &A.map(|x| 10.0 * x));
    let o0 = 2.0 * (100.0 + 2.0_f64.sin());
    let expected = (o0 + 80.0 + 1.0_f64.sin()) * o0;
    assert!((v - expected).abs() <= 1e-9 * expected, "{v} vs {expected}");
}

/// Reversed chunks, windows and enumerations zipped with a shorter sequence: each reversed
/// side counts down from its own number of items, not the zip's.
#[reverse]
fn reversed_parts_with_shorter(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (c, y) in a.chunks(2).rev().zip(b.iter()) {
        s = s * 0.7 + c[0] * y;
    }
    for (c, y) in a.chunks_exact(2).rev().zip(b.iter()) {
        s = s * 0.7 + c[1] * y;
    }
    for (w, y) in a.windows(2).rev().zip(b.iter()) {
        s = s * 0.7 + w[0] * w[1] * y;
    }
    for (y, (i, x)) in b.iter().zip(a.iter().enumerate().rev()) {
        s = s * 0.7 + x * y * i as f64;
    }
    for (y, c) in b.chunks(1).zip(a.chunks(2).rev()) {
        s = s * 0.7 + c[0] * y[0];
    }
    s
}

#[test]
fn reversed_chunks_windows_and_enumerations_keep_their_own_length() {
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
    for (a, b) in [(&a[..], &B[..]), (&B[..], &a[..]), (&a[..], &a[..])] {
        let (v, (ga, gb)) = reversed_parts_with_shorter_grad(a, b);
        assert_eq!(v.to_bits(), reversed_parts_with_shorter(a, b).to_bits());
        close_all(&[ga, gb].concat(), &fd2(reversed_parts_with_shorter, a, b));
    }
    // The first loop alone at a = 1..=7, b = [10, 20]: chunks [7], [5, 6], ..: 7·10·0.7 + 5·20.
    #[reverse]
    fn first_chunks(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for (c, y) in a.chunks(2).rev().zip(b.iter()) {
            s = s * 0.7 + c[0] * y;
        }
        s
    }
    let (v, (ga, _)) = first_chunks_grad(&a, &B);
    assert_eq!(v, 7.0 * 10.0 * 0.7 + 5.0 * 20.0);
    assert_eq!(ga, [0.0, 0.0, 0.0, 0.0, 20.0, 0.0, 7.0]);
}

// ---- `.skip(k)`, `.take(n)`, `.step_by(k)` of zips, enumerations and reversed sequences ----

/// `enumerate().skip(1)`: the indices stay the enumeration's (1, 2, ..).
#[reverse]
fn enumerated_then_skipped(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate().skip(1) {
        s += v * x[i - 1] * (i as f64);
    }
    s
}

/// `rev().skip(1)` and `rev().step_by(k)`, `k` a variable changed in the body (the sequence
/// took its value before the loop).
#[reverse]
fn reversed_then_skipped_and_stepped(x: &[f64], mut k: usize) -> f64 {
    let mut s = 0.0;
    for v in x.iter().rev().skip(1) {
        s = s * 0.5 + v;
    }
    for v in x.iter().rev().step_by(k) {
        s = s * 0.5 + v * v;
        k += 1;
    }
    s + k as f64
}

/// A zip taken and skipped, an enumeration reversed then skipped.
#[reverse]
fn zipped_taken_and_skipped(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y.iter().rev()).take(3) {
        s += a * b;
    }
    for (a, b) in x.iter().zip(y.iter()).skip(1).step_by(2) {
        s += a.sin() * b;
    }
    for (i, v) in x.iter().enumerate().rev().skip(2) {
        s += (i as f64 + 1.0) * v.sin();
    }
    s
}

#[test]
fn skip_take_and_step_by_of_other_sequences() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    // Σ_{i ≥ 1} x_i x_{i-1} i = 2 + 12 + 36 + 80
    let (v, g) = enumerated_then_skipped_grad(&x);
    assert_eq!(v.to_bits(), enumerated_then_skipped(&x).to_bits());
    assert_eq!(v, 130.0);
    assert_eq!(g, [2.0, 7.0, 16.0, 29.0, 16.0]);
    for n in [0, 1, 2, 5] {
        let x = &x[..n];
        let (v, g) = enumerated_then_skipped_grad(x);
        assert_eq!(v.to_bits(), enumerated_then_skipped(x).to_bits());
        close_all(&g, &fd(enumerated_then_skipped, x));
        for k in [1, 2, 3] {
            let (v, g) = reversed_then_skipped_and_stepped_grad(x, k);
            assert_eq!(
                v.to_bits(),
                reversed_then_skipped_and_stepped(x, k).to_bits()
            );
            close_all(&g, &fd(|p| reversed_then_skipped_and_stepped(p, k), x));
        }
    }
    // The first loop walks [4, 3, 2, 1] (weights 1/8 .. 1 at the end of it), the second
    // [5, 3, 1] (k = 2), halving the sum three times: the first loop's weights times 1/8.
    let (_, g) = reversed_then_skipped_and_stepped_grad(&x, 2);
    let first = [1.0, 0.5, 0.25, 0.125, 0.0].map(|w| w * 0.125);
    let second = [2.0 * 1.0, 0.0, 2.0 * 3.0 * 0.5, 0.0, 2.0 * 5.0 * 0.25];
    for i in 0..5 {
        assert_eq!(g[i], first[i] + second[i]);
    }
    let y = [0.5, -1.0, 2.0, 0.25];
    for (a, b) in [(&x[..], &y[..]), (&y[..], &x[..]), (&x[..2], &y[..])] {
        let (v, (ga, gb)) = zipped_taken_and_skipped_grad(a, b);
        assert_eq!(v.to_bits(), zipped_taken_and_skipped(a, b).to_bits());
        close_all(&[ga, gb].concat(), &fd2(zipped_taken_and_skipped, a, b));
    }
}

/// `.step_by(0)` panics as the iterator does.
#[test]
#[should_panic(expected = "step != 0")]
fn step_by_zero_panics() {
    let _ = reversed_then_skipped_and_stepped_grad(&[1.0, 2.0], 0);
}

// ---- ranges in zips ---------------------------------------------------------------------

/// `(1..).zip(xs)`, `(0..n).rev().zip(xs)`, `xs.zip(2..=4)`, `xs.zip((2..=4).rev())`.
#[reverse]
fn zipped_ranges(xs: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for (k, x) in (1..).zip(xs.iter()) {
        s += x * k as f64;
    }
    for (i, x) in (0..n).rev().zip(xs.iter()) {
        s += x * x * i as f64;
    }
    for (x, j) in xs.iter().zip(2..=4) {
        s += x.sin() * j as f64;
    }
    for (x, j) in xs.iter().zip((2..=4).rev()) {
        s += x.cos() * j as f64;
    }
    // (Literal bounds of an exclusive range: `usize`s.)
    for (j, x) in (1..3).zip(xs.iter()) {
        s += x * x * x * j as f64;
    }
    s
}

#[test]
fn ranges_zipped_with_arrays() {
    let x = [1.0, 2.0, 3.0, 4.0];
    for n in [0, 2, 3, 6] {
        for len in [0, 1, 3, 4] {
            let xs = &x[..len];
            let (v, g) = zipped_ranges_grad(xs, n);
            assert_eq!(v.to_bits(), zipped_ranges(xs, n).to_bits());
            close_all(&g, &fd(|p| zipped_ranges(p, n), xs));
        }
    }
    // n = 3, all of x: d/dx_k = k + 1, plus for k < 3: 2 (2 - k) x_k + (k + 2) cos x_k
    // - (4 - k) sin x_k.
    let (_, g) = zipped_ranges_grad(&x, 3);
    for (k, &xk) in x.iter().enumerate() {
        let kf = k as f64;
        let mut want = kf + 1.0;
        if k < 2 {
            want += 3.0 * xk * xk * (kf + 1.0);
        }
        if k < 3 {
            want += 2.0 * (2.0 - kf) * xk + (kf + 2.0) * xk.cos() - (4.0 - kf) * xk.sin();
        }
        assert!(
            (g[k] - want).abs() <= 1e-14 * want.abs().max(1.0),
            "{k}: {} vs {want}",
            g[k]
        );
    }
}
