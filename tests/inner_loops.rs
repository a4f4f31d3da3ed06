//! Reverse inner loops with their bounds checks taken before the loop and their invariant
//! adjoint elements held in locals (`codegen::sweep::inner`): partial and empty ranges, the
//! forms `base + j` and `j + base`, adjoint elements both read and written in the loop,
//! conditional accesses. Each gradient is checked against finite differences of the primal,
//! and against the split companions' (bit for bit).
#![allow(
    clippy::needless_range_loop,
    reason = "index loops: the form the reverse loops are shaped for"
)]

use revad::check;
use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
use bits::checked;

/// `acc[i] += m[i * n + j] * x[j]` over the band `lo..hi` of each row, then the same with
/// `m[j + i * n]` and `sin`.
#[reverse(wrt(m, x))]
fn band(m: &[f64], x: &[f64], n: usize, lo: usize, hi: usize) -> f64 {
    let mut acc = vec![0.0; n];
    for i in 0..n {
        for j in lo..hi {
            acc[i] += m[i * n + j] * x[j];
        }
        for j in lo..hi {
            acc[i] += m[j + i * n] * x[j].sin();
        }
    }
    let mut total = 0.0;
    for i in 0..n {
        total += acc[i] * acc[i];
    }
    total
}

#[reverse(wrt(m, x))]
fn band_via(m: &[f64], x: &[f64], n: usize, lo: usize, hi: usize) -> f64 {
    band(m, x, n, lo, hi)
}

/// The element `acc[i]`, invariant in the inner loop, read, added to and overwritten there.
#[reverse(wrt(m, x))]
fn churn(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut acc = vec![1.0; n];
    let mut s = 0.0;
    for i in 0..n {
        for j in 1..n {
            s += acc[i] * x[j];
            acc[i] = acc[i] * 0.5 + m[i * n + j] * x[j];
            if x[j] > 0.0 {
                acc[i] += x[j - 1];
            }
        }
    }
    for i in 0..n {
        s += acc[i];
    }
    s
}

#[reverse(wrt(m, x))]
fn churn_via(m: &[f64], x: &[f64], n: usize) -> f64 {
    churn(m, x, n)
}

fn data(n: usize) -> (Vec<f64>, Vec<f64>) {
    let m = (0..n * n).map(|k| (k as f64 * 0.37).sin()).collect();
    let x = (0..n).map(|k| (k as f64 * 0.9).cos() - 0.2).collect();
    (m, x)
}

fn gradient_of(f: impl Fn(&[f64], &[f64]) -> f64, m: &[f64], x: &[f64], dm: &[f64], dx: &[f64]) {
    let at: Vec<f64> = m.iter().chain(x).copied().collect();
    let grad: Vec<f64> = dm.iter().chain(dx).copied().collect();
    check::gradient(|p| f(&p[..m.len()], &p[m.len()..]), &at, &grad).unwrap();
}

#[test]
fn bands_full_partial_and_empty() {
    let n = 5;
    let (m, x) = data(n);
    for (lo, hi) in [(0, 5), (1, 4), (2, 3), (3, 3), (4, 1), (0, 0)] {
        let (_, (dm, dx)) = checked(
            band(&m, &x, n, lo, hi),
            band_grad(&m, &x, n, lo, hi),
            band_via_grad(&m, &x, n, lo, hi),
        );
        gradient_of(|m, x| band(m, x, n, lo, hi), &m, &x, &dm, &dx);
        if lo >= hi {
            assert!(dm.iter().chain(&dx).all(|d| *d == 0.0));
        }
    }
}

#[test]
fn empty_matrices_and_a_short_x_beyond_an_empty_band() {
    // n = 0: no rows; the band 7..2 is empty, and x is shorter than its end.
    let (v, (dm, dx)) = band_grad(&[], &[], 0, 0, 0);
    assert_eq!((v, dm.len(), dx.len()), (0.0, 0, 0));
    let (m, x) = data(3);
    let (v, (dm, dx)) = band_grad(&m, &x, 3, 7, 2);
    assert_eq!(v, 0.0);
    assert!(dm.iter().chain(&dx).all(|d| *d == 0.0));
}

#[test]
fn invariant_element_read_added_to_and_overwritten() {
    for n in [0, 1, 2, 6] {
        let (m, x) = data(n);
        let (_, (dm, dx)) = checked(
            churn(&m, &x, n),
            churn_grad(&m, &x, n),
            churn_via_grad(&m, &x, n),
        );
        gradient_of(|m, x| churn(m, x, n), &m, &x, &dm, &dx);
    }
}

/// `acc[i] += w[i] * m[i * n + j] * x[j]`, with `acc` of length `rows` (which may be short),
/// `w[i]` read at an index the inner loop does not change: the forward sweep holds `acc[i]` and
/// `w[i]` in locals and reslices `m` and `x`.
#[reverse(wrt(w, m, x))]
fn weighted_rows(w: &[f64], m: &[f64], x: &[f64], n: usize, rows: usize) -> f64 {
    let mut acc = vec![0.0; rows];
    for i in 0..n {
        for j in 0..n {
            acc[i] += w[i] * m[i * n + j] * x[j];
        }
    }
    let mut s = 0.0;
    for i in 0..rows {
        s += acc[i] * acc[i];
    }
    s
}

#[reverse(wrt(w, m, x))]
fn weighted_rows_via(w: &[f64], m: &[f64], x: &[f64], n: usize, rows: usize) -> f64 {
    weighted_rows(w, m, x, n, rows)
}

#[test]
fn forward_inner_loops_hold_their_invariant_elements() {
    for n in [0, 1, 3, 5] {
        let (m, x) = data(n);
        let w: Vec<f64> = (0..n).map(|k| 1.0 + 0.25 * k as f64).collect();
        // (`checked` compares the value with the primal's bit for bit.)
        let (_, (dw, dm, dx)) = checked(
            weighted_rows(&w, &m, &x, n, n),
            weighted_rows_grad(&w, &m, &x, n, n),
            weighted_rows_via_grad(&w, &m, &x, n, n),
        );
        let at: Vec<f64> = w.iter().chain(&m).chain(&x).copied().collect();
        let grad: Vec<f64> = dw.iter().chain(&dm).chain(&dx).copied().collect();
        let f = |p: &[f64]| weighted_rows(&p[..n], &p[n..n + n * n], &p[n + n * n..], n, n);
        check::gradient(f, &at, &grad).unwrap();
    }
}

/// The forward sweep's reslicing and held elements panic exactly where the primal does: a
/// short `x`, `m` or `acc`, with the band empty or not.
#[test]
fn forward_inner_loops_panic_where_the_primal_does() {
    let panics = |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    let n = 3;
    let (m, x) = data(n);
    let w = vec![1.0; n];
    let cases: [(&[f64], &[f64], usize); 4] = [
        (&m, &x[..2], n), // x short
        (&m[..7], &x, n), // the last row of m short
        (&m, &x, 2),      // acc short
        (&m, &x, n),      // fine
    ];
    let mut outcomes = Vec::new();
    for (m, x, rows) in cases {
        let primal = panics(&|| {
            weighted_rows(&w, m, x, n, rows);
        });
        let grad = panics(&|| {
            weighted_rows_grad(&w, m, x, n, rows);
        });
        let via = panics(&|| {
            weighted_rows_via_grad(&w, m, x, n, rows);
        });
        outcomes.push((primal, grad, via));
    }
    // An empty band reads nothing: no panic with a short x.
    let empty = panics(&|| {
        band_grad(&m, &x[..1], n, 2, 2);
    });
    assert_eq!(
        outcomes,
        [
            (true, true, true),
            (true, true, true),
            (true, true, true),
            (false, false, false)
        ]
    );
    assert!(!empty);
}
