//! Iterator adaptors inside chains and `for` loops (issue 23): `.step_by(k)` over arrays,
//! slices and ranges (alone, after or before `.skip(k)` / `.take(n)`, zipped), and
//! `.flatten()` over sequences of arrays. Each gradient is checked against a closed form or
//! finite differences of the primal, and against the same gradient through a caller
//! `NAME_via` (the split companions); forward mode (`NAME_jvp`) and the Hessian against the
//! closed forms too. Empty iterators and steps longer than the sequence are covered.
#![allow(
    clippy::needless_range_loop,
    reason = "index loops are forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::{check, forward, reverse};

#[path = "common/bits.rs"]
mod bits;
#[path = "common/fd.rs"]
mod fd;
use bits::checked;

/// `sum_{i even} x_i`.
#[reverse]
pub fn every_other(x: &[f64]) -> f64 {
    x.iter().step_by(2).sum()
}

/// `every_other` through its split companions.
#[reverse]
pub fn every_other_via(x: &[f64]) -> f64 {
    every_other(x)
}

/// `sum_{i = 0 mod k} x_i^2`, the step a parameter.
#[reverse]
pub fn stepped_squares(x: &[f64], k: usize) -> f64 {
    x.iter().step_by(k).map(|v| v * v).sum::<f64>()
}

/// `stepped_squares` through its split companions.
#[reverse]
pub fn stepped_squares_via(x: &[f64], k: usize) -> f64 {
    stepped_squares(x, k)
}

#[test]
fn step_by_over_a_slice() {
    let x = [0.5, -1.5, 2.0, 3.0, -0.25];
    let (y, g) = checked(
        every_other(&x),
        every_other_grad(&x),
        every_other_via_grad(&x),
    );
    assert_eq!(y, x[0] + x[2] + x[4]);
    assert_eq!(g, vec![1.0, 0.0, 1.0, 0.0, 1.0]);
    for k in 1..8 {
        let (y, g) = checked(
            stepped_squares(&x, k),
            stepped_squares_grad(&x, k),
            stepped_squares_via_grad(&x, k),
        );
        let expect: f64 = (0..x.len())
            .filter(|i| i % k == 0)
            .map(|i| x[i] * x[i])
            .sum();
        assert_eq!(y, expect);
        for i in 0..x.len() {
            let d = if i % k == 0 { 2.0 * x[i] } else { 0.0 };
            assert_eq!(g[i], d, "k = {k}, i = {i}");
        }
    }
    // An empty slice: the sum of no items.
    let (y, g) = every_other_grad(&[]);
    assert_eq!(y.to_bits(), (-0.0f64).to_bits());
    assert!(g.is_empty());
}

#[test]
#[should_panic(expected = "step != 0")]
fn step_by_zero_panics_like_the_iterator() {
    let _ = stepped_squares_grad(&[1.0, 2.0], 0);
}

/// `.skip(1).step_by(2).take(2)`: `x1^2 x3 + x3^2 x5`-style terms; here `sum x_i^3` over
/// `i = 1, 3` (fewer when `x` is short).
#[reverse]
pub fn skipped_stepped(x: &[f64]) -> f64 {
    x.iter()
        .skip(1)
        .step_by(2)
        .take(2)
        .map(|&v| v * v * v)
        .sum()
}

/// `skipped_stepped` through its split companions.
#[reverse]
pub fn skipped_stepped_via(x: &[f64]) -> f64 {
    skipped_stepped(x)
}

/// `.step_by(3).skip(1)`: the items at `3, 6, 9, ..`.
#[reverse]
pub fn stepped_then_skipped(x: &[f64]) -> f64 {
    x.iter().step_by(3).skip(1).fold(1.0, |acc, v| acc * v)
}

#[test]
fn step_by_with_skip_and_take() {
    let x = [0.5, -1.5, 2.0, 3.0, -0.25, 1.25, 0.75];
    let (y, g) = checked(
        skipped_stepped(&x),
        skipped_stepped_grad(&x),
        skipped_stepped_via_grad(&x),
    );
    assert_eq!(y, x[1] * x[1] * x[1] + x[3] * x[3] * x[3]);
    let mut expect = vec![0.0; x.len()];
    expect[1] = 3.0 * x[1] * x[1];
    expect[3] = 3.0 * x[3] * x[3];
    for (a, b) in g.iter().zip(&expect) {
        assert_relative_eq!(*a, *b, max_relative = 1e-15);
    }
    // Shorter than the skip: nothing left.
    let (y, g) = skipped_stepped_grad(&[2.0]);
    assert_eq!(y.to_bits(), (-0.0f64).to_bits());
    assert_eq!(g, vec![0.0]);

    let (y, g) = stepped_then_skipped_grad(&x);
    assert_eq!(y, x[3] * x[6]);
    assert_eq!(g, vec![0.0, 0.0, 0.0, x[6], 0.0, 0.0, x[3]]);
    // A step longer than the slice: one item, skipped.
    let (y, g) = stepped_then_skipped_grad(&x[..2]);
    assert_eq!(y, 1.0);
    assert_eq!(g, vec![0.0, 0.0]);
}

/// `.rev()` after the narrowing adaptors in a chain, as in a `for` loop: the even entries
/// last first through an order-sensitive fold (`acc * 0.5 + v`), and the items at 1, 4 (of
/// `.skip(1).step_by(3).take(2)`) last first, weighted by their position.
#[reverse]
pub fn stepped_reversed(x: &[f64]) -> f64 {
    let a = x.iter().step_by(2).rev().fold(0.0, |acc, v| acc * 0.5 + v);
    let b: f64 = x
        .iter()
        .skip(1)
        .step_by(3)
        .take(2)
        .rev()
        .enumerate()
        .map(|(i, v)| v * v * (i as f64 + 1.0))
        .sum();
    a + b
}

/// `stepped_reversed` through its split companions.
#[reverse]
pub fn stepped_reversed_via(x: &[f64]) -> f64 {
    stepped_reversed(x)
}

#[test]
fn rev_after_step_by_in_a_chain() {
    for n in [0, 1, 2, 5, 6, 7] {
        let x: Vec<f64> = (0..n)
            .map(|i| 0.4 + 0.3 * i as f64 - 0.07 * (i * i) as f64)
            .collect();
        let (y, g) = checked(
            stepped_reversed(&x),
            stepped_reversed_grad(&x),
            stepped_reversed_via_grad(&x),
        );
        // The fold visits the even indices last first: index `2t` is halved once for each
        // even index before it, `t` times.
        let mut expect = vec![0.0; n];
        let mut a = 0.0;
        for i in (0..n).step_by(2).rev() {
            a = a * 0.5 + x[i];
            expect[i] = 0.5f64.powi((i / 2) as i32);
        }
        // Items 1 and 4 last first: 4 gets weight 1, 1 gets weight 2 (when both exist).
        let items: Vec<usize> = [1, 4].into_iter().filter(|&i| i < n).collect();
        let mut b = 0.0;
        for (t, &i) in items.iter().rev().enumerate() {
            b += x[i] * x[i] * (t as f64 + 1.0);
            expect[i] += 2.0 * x[i] * (t as f64 + 1.0);
        }
        assert_relative_eq!(y, a + b, max_relative = 1e-15);
        for i in 0..n {
            assert_relative_eq!(g[i], expect[i], max_relative = 1e-15);
        }
    }
}

/// Zipped: `sum_i x_{2i} y_i` and `sum_i x_i y_{2i+1}`.
#[reverse]
pub fn stepped_dot(x: &[f64], y: &[f64]) -> f64 {
    let a: f64 = x.iter().step_by(2).zip(y.iter()).map(|(a, b)| a * b).sum();
    let b: f64 = x
        .iter()
        .zip(y.iter().skip(1).step_by(2))
        .map(|(a, b)| a * b)
        .sum();
    a + 2.0 * b
}

/// `stepped_dot` through its split companions.
#[reverse]
pub fn stepped_dot_via(x: &[f64], y: &[f64]) -> f64 {
    stepped_dot(x, y)
}

#[test]
fn step_by_zipped() {
    let x = [0.5, -1.5, 2.0, 3.0, -0.25];
    let y = [1.5, 0.25, -2.0, 0.5];
    let (v, (gx, gy)) = checked(
        stepped_dot(&x, &y),
        stepped_dot_grad(&x, &y),
        stepped_dot_via_grad(&x, &y),
    );
    // a = x0 y0 + x2 y1 + x4 y2; b = x0 y1 + x1 y3.
    let a = x[0] * y[0] + x[2] * y[1] + x[4] * y[2];
    let b = x[0] * y[1] + x[1] * y[3];
    assert_eq!(v, a + 2.0 * b);
    assert_eq!(gx, vec![y[0] + 2.0 * y[1], 2.0 * y[3], y[1], 0.0, y[2]]);
    assert_eq!(gy, vec![x[0], x[2] + 2.0 * x[0], x[4], 2.0 * x[1]]);
}

/// A stepped range in a chain: `sum_{i even} x_i^2`, and the odd ones backwards with a weight.
#[reverse]
pub fn stepped_range(x: &[f64]) -> f64 {
    let even: f64 = (0..x.len()).step_by(2).map(|i| x[i] * x[i]).sum();
    let odd = (1..x.len())
        .step_by(2)
        .rev()
        .fold(0.0, |acc, i| acc * 0.5 + x[i]);
    even + odd
}

/// `stepped_range` through its split companions.
#[reverse]
pub fn stepped_range_via(x: &[f64]) -> f64 {
    stepped_range(x)
}

/// The same with `for` loops.
#[reverse]
pub fn stepped_loops(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).step_by(2) {
        s += x[i] * x[i];
    }
    for v in x.iter().step_by(3) {
        s += v.sin();
    }
    for (i, (a, b)) in x.iter().skip(1).step_by(2).zip(x.iter()).enumerate() {
        s += a * b * (i + 1) as f64;
    }
    // The even entries last first.
    for v in x.iter().step_by(2).rev() {
        s = s * 0.5 + v;
    }
    s
}

/// `stepped_loops` through its split companions.
#[reverse]
pub fn stepped_loops_via(x: &[f64]) -> f64 {
    stepped_loops(x)
}

#[test]
fn step_by_over_ranges_and_in_for_loops() {
    for n in [0, 1, 2, 5, 6] {
        let x: Vec<f64> = (0..n)
            .map(|i| 0.3 + 0.7 * i as f64 - 0.1 * (i * i) as f64)
            .collect();
        let (y, g) = checked(
            stepped_range(&x),
            stepped_range_grad(&x),
            stepped_range_via_grad(&x),
        );
        let odd: Vec<usize> = (1..n).step_by(2).collect();
        let mut expect = 0.0;
        let mut de = vec![0.0; n];
        for i in (0..n).step_by(2) {
            expect += x[i] * x[i];
            de[i] = 2.0 * x[i];
        }
        // The fold visits the odd indices last first: the first visited is halved most.
        let mut acc = 0.0;
        for (t, &i) in odd.iter().rev().enumerate() {
            acc = acc * 0.5 + x[i];
            de[i] = 0.5f64.powi((odd.len() - 1 - t) as i32);
        }
        assert_relative_eq!(y, expect + acc, max_relative = 1e-15);
        for i in 0..n {
            assert_relative_eq!(g[i], de[i], max_relative = 1e-15);
        }

        let (y, g) = checked(
            stepped_loops(&x),
            stepped_loops_grad(&x),
            stepped_loops_via_grad(&x),
        );
        assert_eq!(y.to_bits(), stepped_loops(&x).to_bits());
        if n > 0 {
            check::gradient(stepped_loops, &x, &g).unwrap();
        } else {
            assert!(g.is_empty());
        }
    }
}

/// Forward mode: `sum_{i even} x_i^2 + sum_{i = 1 mod 3} x_i`.
#[forward]
pub fn stepped_forward(x: &[f64]) -> f64 {
    let a: f64 = x.iter().step_by(2).map(|v| v * v).sum();
    let b: f64 = (1..x.len()).step_by(3).map(|i| x[i]).sum();
    a + b
}

#[test]
fn step_by_in_forward_mode() {
    let x = [0.5, -1.5, 2.0, 3.0, -0.25];
    for k in 0..x.len() {
        let mut dx = [0.0; 5];
        dx[k] = 1.0;
        let (v, d) = stepped_forward_jvp(&x, &dx);
        assert_eq!(v, x[0] * x[0] + x[2] * x[2] + x[4] * x[4] + x[1] + x[4]);
        let expect = match k {
            0 | 2 => 2.0 * x[k],
            4 => 2.0 * x[4] + 1.0,
            1 => 1.0,
            _ => 0.0,
        };
        assert_eq!(d, expect, "k = {k}");
    }
}

/// Under `hessian`: `sum_{i even} x_i^2 x_{i+1}` over the pairs.
#[reverse(hessian)]
pub fn stepped_cubic(x: &[f64]) -> f64 {
    x.iter()
        .step_by(2)
        .zip(x.iter().skip(1).step_by(2))
        .map(|(&a, &b)| a * a * b)
        .sum()
}

#[test]
fn step_by_under_hessian() {
    let x = [0.5, -1.5, 2.0, 3.0];
    let (v, g, h) = stepped_cubic_hessian(&x);
    assert_eq!(v, x[0] * x[0] * x[1] + x[2] * x[2] * x[3]);
    assert_eq!(
        g,
        vec![
            2.0 * x[0] * x[1],
            x[0] * x[0],
            2.0 * x[2] * x[3],
            x[2] * x[2]
        ]
    );
    let expect = [
        [2.0 * x[1], 2.0 * x[0], 0.0, 0.0],
        [2.0 * x[0], 0.0, 0.0, 0.0],
        [0.0, 0.0, 2.0 * x[3], 2.0 * x[2]],
        [0.0, 0.0, 2.0 * x[2], 0.0],
    ];
    for i in 0..4 {
        for j in 0..4 {
            assert_eq!(h[i][j], expect[i][j], "h[{i}][{j}]");
        }
    }
}

/// Under `cps`: `sum_{i even} x_i^2`, three ways.
#[reverse(cps)]
pub fn stepped_cps(x: &[f64]) -> f64 {
    let a: f64 = x.iter().step_by(2).map(|v| v * v).sum();
    let mut b = 0.0;
    for v in x.iter().step_by(2) {
        b += v * v;
    }
    let c: f64 = (0..x.len()).step_by(2).map(|i| x[i] * x[i]).sum();
    a + 2.0 * b + 4.0 * c
}

#[test]
fn step_by_under_cps() {
    let x = [0.5, -1.5, 2.0, 3.0, -0.25];
    let (v, g) = stepped_cps_grad(&x);
    assert_eq!(v.to_bits(), stepped_cps(&x).to_bits());
    assert_eq!(v, 7.0 * (x[0] * x[0] + x[2] * x[2] + x[4] * x[4]));
    assert_eq!(g, vec![14.0 * x[0], 0.0, 14.0 * x[2], 0.0, 14.0 * x[4]]);
}

/// `.flatten()` over a slice of arrays: `sum_ij m_ij^2`.
#[reverse]
pub fn flat_squares(m: &[[f64; 3]]) -> f64 {
    m.iter().flatten().map(|x| x * x).sum::<f64>()
}

/// `flat_squares` through its split companions.
#[reverse]
pub fn flat_squares_via(m: &[[f64; 3]]) -> f64 {
    flat_squares(m)
}

/// Over `Vec<Vec<f64>>` (rows of different lengths), filtered, with a captured weight:
/// `sum_{m_ij > 0} w m_ij^3`.
#[reverse]
pub fn flat_ragged(m: &[Vec<f64>], w: f64) -> f64 {
    m.iter()
        .flatten()
        .filter(|&&x| x > 0.0)
        .map(|&x| w * x * x * x)
        .sum()
}

/// `flat_ragged` through its split companions.
#[reverse]
pub fn flat_ragged_via(m: &[Vec<f64>], w: f64) -> f64 {
    flat_ragged(m, w)
}

/// Over an owned `[[f64; N]; M]` (its rows stepped), a local 2-D array and chunks, folded:
/// `prod` of the even rows' entries, `sum sin` of a local table, `sum x_i^2` by chunks.
#[reverse]
pub fn flat_mixed(m: [[f64; 2]; 3], x: &[f64]) -> f64 {
    let p = m.iter().step_by(2).flatten().fold(1.0, |acc, v| acc * v);
    let mut q = [[1.0; 2]; 2];
    q[0][0] = x[0];
    q[1][1] = 2.0 * x[0];
    let s: f64 = q.iter().flatten().map(|v| v.sin()).sum();
    let c: f64 = x.chunks(2).flatten().map(|v| v * v).sum();
    p + s + c
}

/// `flat_mixed` through its split companions.
#[reverse]
pub fn flat_mixed_via(m: [[f64; 2]; 3], x: &[f64]) -> f64 {
    flat_mixed(m, x)
}

#[test]
fn flatten_in_chains() {
    let m = [[0.5, -1.5, 2.0], [3.0, -0.25, 1.25]];
    let (y, g) = checked(
        flat_squares(&m),
        flat_squares_grad(&m),
        flat_squares_via_grad(&m),
    );
    assert_eq!(y, m.iter().flatten().map(|x| x * x).sum::<f64>());
    for i in 0..2 {
        for j in 0..3 {
            assert_eq!(g[i][j], 2.0 * m[i][j]);
        }
    }
    // No rows: the sum of no items.
    let (y, g) = flat_squares_grad(&[]);
    assert_eq!(y.to_bits(), (-0.0f64).to_bits());
    assert!(g.is_empty());

    let r = [vec![0.5, -1.5], vec![], vec![2.0, 3.0, -0.25]];
    let w = 0.75;
    let (y, (gr, gw)) = checked(
        flat_ragged(&r, w),
        flat_ragged_grad(&r, w),
        flat_ragged_via_grad(&r, w),
    );
    let cubes = 0.5f64.powi(3) + 2.0f64.powi(3) + 3.0f64.powi(3);
    assert_relative_eq!(y, w * cubes, max_relative = 1e-15);
    assert_relative_eq!(gw, cubes, max_relative = 1e-15);
    for (row, grow) in r.iter().zip(&gr) {
        assert_eq!(row.len(), grow.len());
        for (x, g) in row.iter().zip(grow) {
            let d = if *x > 0.0 { 3.0 * w * x * x } else { 0.0 };
            assert_relative_eq!(*g, d, max_relative = 1e-15);
        }
    }

    let m = [[0.5, -1.5], [2.0, 3.0], [-0.25, 1.25]];
    let x = [0.3, -0.7, 1.1];
    let (_, (gm, gx)) = checked(
        flat_mixed(m, &x),
        flat_mixed_grad(m, &x),
        flat_mixed_via_grad(m, &x),
    );
    let p = m[0][0] * m[0][1] * m[2][0] * m[2][1];
    let expect_m = [
        [p / m[0][0], p / m[0][1]],
        [0.0, 0.0],
        [p / m[2][0], p / m[2][1]],
    ];
    for i in 0..3 {
        for j in 0..2 {
            assert_relative_eq!(gm[i][j], expect_m[i][j], max_relative = 1e-14);
        }
    }
    let expect_x0 = x[0].cos() + 2.0 * (2.0 * x[0]).cos() + 2.0 * x[0];
    assert_relative_eq!(gx[0], expect_x0, max_relative = 1e-14);
    assert_eq!(gx[1], 2.0 * x[1]);
    assert_eq!(gx[2], 2.0 * x[2]);
}

/// `.flatten()` of arrays made by a closure: `sum_i p_i0^2 + (w p_i1)^2`, written with
/// `.map(..).flatten()` and with `.flat_map(..)` (halves of it each).
#[reverse]
#[allow(clippy::map_flatten, reason = "a form #[reverse] must handle")]
pub fn flat_mapped(p: &[[f64; 2]], w: f64) -> f64 {
    let a: f64 = p
        .iter()
        .map(|r| [r[0], w * r[1]])
        .flatten()
        .map(|v| v * v)
        .sum();
    let b: f64 = p.iter().flat_map(|r| [r[0], w * r[1]]).map(|v| v * v).sum();
    0.5 * a + 0.5 * b
}

/// `flat_mapped` through its split companions.
#[reverse]
pub fn flat_mapped_via(p: &[[f64; 2]], w: f64) -> f64 {
    flat_mapped(p, w)
}

#[test]
fn flatten_of_arrays_made_by_a_closure() {
    let p = [[0.5, -1.5], [2.0, 3.0]];
    let w = 0.75;
    let (y, (gp, gw)) = checked(
        flat_mapped(&p, w),
        flat_mapped_grad(&p, w),
        flat_mapped_via_grad(&p, w),
    );
    let expect: f64 = p
        .iter()
        .map(|r| r[0] * r[0] + (w * r[1]) * (w * r[1]))
        .sum();
    assert_relative_eq!(y, expect, max_relative = 1e-15);
    for i in 0..2 {
        assert_eq!(gp[i][0], 2.0 * p[i][0]);
        assert_relative_eq!(gp[i][1], 2.0 * w * w * p[i][1], max_relative = 1e-15);
    }
    let dw: f64 = p.iter().map(|r| 2.0 * w * r[1] * r[1]).sum();
    assert_relative_eq!(gw, dw, max_relative = 1e-15);
}

/// `.flat_map(|r| r.iter())` in chains and `for` loops (a row narrowed by `.skip(1)`; an
/// outer `w` read in the body): `sum m_ij^2 + sum_{j>0} sin m_ij + w sum m_ij`.
#[reverse]
pub fn flat_map_rows(m: &[[f64; 3]], w: f64) -> f64 {
    let mut s: f64 = m.iter().flat_map(|r| r.iter()).map(|x| x * x).sum();
    for x in m.iter().flat_map(|row| row.iter().skip(1)) {
        s += x.sin();
    }
    s + m
        .iter()
        .flat_map(|r| r.iter().copied())
        .fold(0.0, |acc, x| acc + w * x)
}

/// `flat_map_rows` through its split companions.
#[reverse]
pub fn flat_map_rows_via(m: &[[f64; 3]], w: f64) -> f64 {
    flat_map_rows(m, w)
}

#[test]
fn flat_map_of_rows() {
    let m = [[0.5, -1.5, 2.0], [3.0, -0.25, 1.25]];
    let w = 0.75;
    let (_, (gm, gw)) = checked(
        flat_map_rows(&m, w),
        flat_map_rows_grad(&m, w),
        flat_map_rows_via_grad(&m, w),
    );
    for i in 0..2 {
        for j in 0..3 {
            let d = 2.0 * m[i][j] + if j > 0 { m[i][j].cos() } else { 0.0 } + w;
            assert_relative_eq!(gm[i][j], d, max_relative = 1e-15);
        }
    }
    assert_relative_eq!(gw, m.iter().flatten().sum::<f64>(), max_relative = 1e-15);
}

/// `for` loops over `.flatten()`: a `continue` skips an item; the rows stepped; through
/// `iter_mut` (each entry scaled in place).
#[reverse]
pub fn flat_loops(m: &mut [[f64; 3]], w: f64) -> f64 {
    let mut s = 0.0;
    for &v in m.iter().flatten() {
        if v < 0.0 {
            continue;
        }
        s += v * w;
    }
    for v in m.iter().step_by(2).flatten() {
        s += v.sin();
    }
    for v in m.iter_mut().flatten() {
        *v *= w;
    }
    s + m[0][0] * m[1][2]
}

#[test]
fn flatten_in_for_loops() {
    let m0 = [[1.0, -2.0, 3.0], [4.0, 5.0, 6.0], [-0.5, 0.25, 0.75]];
    let w = 0.5;
    let primal = |m: &[f64], w: f64| {
        let mut rows = [[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]];
        flat_loops(&mut rows, w)
    };
    let (mut a, mut b) = (m0, m0);
    let y = flat_loops(&mut a, w);
    let (yg, (gm, gw)) = flat_loops_grad(&mut b, w);
    assert_eq!(y.to_bits(), yg.to_bits());
    assert_eq!(a, b);
    let flat: Vec<f64> = m0.iter().flatten().copied().collect();
    let positive: f64 = flat.iter().filter(|&&v| v >= 0.0).sum();
    let sines: f64 = [0, 2].iter().flat_map(|&i| m0[i]).map(f64::sin).sum();
    assert_relative_eq!(
        y,
        w * positive + sines + w * w * m0[0][0] * m0[1][2],
        max_relative = 1e-15
    );
    let mut point = flat.clone();
    point.push(w);
    let mut grad: Vec<f64> = gm.iter().flatten().copied().collect();
    grad.push(gw);
    check::gradient(|p| primal(&p[..9], p[9]), &point, &grad).unwrap();
    assert_relative_eq!(
        gw,
        positive + 2.0 * w * m0[0][0] * m0[1][2],
        max_relative = 1e-15
    );
}

/// Forward mode, CPS and the Hessian: `.flatten()` of chunks.
#[forward]
pub fn flat_chunks_forward(x: &[f64]) -> f64 {
    let mut s: f64 = x.chunks(2).flatten().map(|v| v * v).sum();
    for v in x.chunks(2).flatten() {
        s += v.sin();
    }
    s
}

/// `flat_chunks_forward` under the CPS backend.
#[reverse(cps)]
pub fn flat_chunks_cps(x: &[f64]) -> f64 {
    let mut s: f64 = x.chunks(2).flatten().map(|v| v * v).sum();
    for v in x.chunks(2).flatten() {
        s += v.sin();
    }
    s
}

/// `sum x_i^3` by chunks, under `hessian`.
#[reverse(hessian)]
pub fn flat_chunks_cubes(x: &[f64]) -> f64 {
    x.chunks(2).flatten().map(|&v| v * v * v).sum()
}

#[test]
fn flatten_in_other_modes() {
    let x = [1.0, -2.0, 3.0];
    let (v, g) = flat_chunks_cps_grad(&x);
    assert_eq!(v.to_bits(), flat_chunks_cps(&x).to_bits());
    for k in 0..3 {
        let d = 2.0 * x[k] + x[k].cos();
        assert_eq!(g[k], d);
        let mut dx = [0.0; 3];
        dx[k] = 1.0;
        let (v, t) = flat_chunks_forward_jvp(&x, &dx);
        assert_eq!(v.to_bits(), flat_chunks_cps(&x).to_bits());
        assert_eq!(t, d);
    }
    let (v, g, h) = flat_chunks_cubes_hessian(&x);
    assert_eq!(v, 1.0 - 8.0 + 27.0);
    for i in 0..3 {
        assert_eq!(g[i], 3.0 * x[i] * x[i]);
        for j in 0..3 {
            assert_eq!(h[i][j], if i == j { 6.0 * x[i] } else { 0.0 });
        }
    }
}

/// `sum_k (k + 1) x_(i_k)` over the positive `x_i`, numbered from 0 in the order kept: the
/// `enumerate` after the `filter` numbers the kept items, not their places in `x`.
#[reverse]
pub fn kept_enumerated(x: &[f64]) -> f64 {
    x.iter()
        .filter(|&&v| v > 0.0)
        .enumerate()
        .map(|(k, v)| v * (k as f64 + 1.0))
        .sum()
}

/// `kept_enumerated` through its split companions.
#[reverse]
pub fn kept_enumerated_via(x: &[f64]) -> f64 {
    kept_enumerated(x)
}

/// `sum_k x_(i_k)^2 y_k` over the positive `x_i`: the `zip` after the `filter` pairs the k-th
/// kept item with `y_k`, and ends with the shorter side.
#[reverse]
pub fn kept_zipped(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .filter(|&&v| v > 0.0)
        .zip(y.iter())
        .map(|(a, b)| a * a * b)
        .sum()
}

/// `kept_zipped` through its split companions.
#[reverse]
pub fn kept_zipped_via(x: &[f64], y: &[f64]) -> f64 {
    kept_zipped(x, y)
}

/// Two filters, with a zip and an enumerate between and after them, folded.
#[reverse]
pub fn filtered_twice(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .filter(|&&v| v > 0.0)
        .zip(y.iter())
        .filter(|(a, _)| **a < 3.0)
        .enumerate()
        .fold(0.0, |s, (k, (a, b))| s + a * b * (k as f64 + 2.0))
}

/// `kept_enumerated` under the CPS backend.
#[reverse(cps)]
pub fn kept_enumerated_cps(x: &[f64]) -> f64 {
    x.iter()
        .filter(|&&v| v > 0.0)
        .enumerate()
        .map(|(k, v)| v * (k as f64 + 1.0))
        .sum()
}

/// The positive items of `x` in order, with their places in `x`.
fn kept(x: &[f64]) -> Vec<(usize, f64)> {
    x.iter()
        .copied()
        .enumerate()
        .filter(|&(_, v)| v > 0.0)
        .collect()
}

#[test]
fn zip_and_enumerate_after_filter() {
    let xs: [&[f64]; 5] = [
        &[],
        &[-1.0],
        &[-1.0, 2.0, -3.0, 0.5],
        &[4.0, 1.5, -2.0, 0.25, 2.5, -0.5],
        &[1.0, 2.0, 3.5],
    ];
    let y = [0.1, 0.2, 0.3, 0.4];
    for x in xs {
        // Closed forms, numbered in the order kept.
        let (mut value, mut grad) = (0.0, vec![0.0; x.len()]);
        for (k, &(i, v)) in kept(x).iter().enumerate() {
            value += v * (k as f64 + 1.0);
            grad[i] = k as f64 + 1.0;
        }
        let (v, g) = checked(
            kept_enumerated(x),
            kept_enumerated_grad(x),
            kept_enumerated_via_grad(x),
        );
        assert_relative_eq!(v, value, max_relative = 1e-15);
        assert_eq!(g, grad, "{x:?}");
        let (vc, gc) = kept_enumerated_cps_grad(x);
        assert_eq!(vc.to_bits(), v.to_bits());
        assert_eq!(gc, grad, "{x:?} (cps)");

        let (mut value, mut gx, mut gy) = (0.0, vec![0.0; x.len()], [0.0; 4]);
        for (k, &(i, v)) in kept(x).iter().take(y.len()).enumerate() {
            value += v * v * y[k];
            gx[i] = 2.0 * v * y[k];
            gy[k] = v * v;
        }
        let (v, (dx, dy)) = checked(
            kept_zipped(x, &y),
            kept_zipped_grad(x, &y),
            kept_zipped_via_grad(x, &y),
        );
        assert_relative_eq!(v, value, max_relative = 1e-15);
        assert_eq!(dx, gx, "{x:?}");
        assert_eq!(dy, gy, "{x:?}");

        // Finite differences of the primal for the two filters.
        let (v, (dx, dy)) = filtered_twice_grad(x, &y);
        assert_eq!(v.to_bits(), filtered_twice(x, &y).to_bits());
        let h = 1e-6;
        for i in 0..x.len() {
            let (mut a, mut b) = (x.to_vec(), x.to_vec());
            a[i] += h;
            b[i] -= h;
            let fd = (filtered_twice(&a, &y) - filtered_twice(&b, &y)) / (2.0 * h);
            assert_relative_eq!(dx[i], fd, epsilon = 1e-7, max_relative = 1e-6);
        }
        for k in 0..y.len() {
            let (mut a, mut b) = (y, y);
            a[k] += h;
            b[k] -= h;
            let fd = (filtered_twice(x, &a) - filtered_twice(x, &b)) / (2.0 * h);
            assert_relative_eq!(dy[k], fd, epsilon = 1e-7, max_relative = 1e-6);
        }
    }
    // A known case: kept 2 (y 0.1), 5 (0.2), 0.5 (0.3), 1 (0.4); the second filter keeps 2,
    // 0.5 and 1, numbered 0, 1, 2.
    let x = [-1.0, 2.0, 5.0, 0.5, 1.0];
    let (v, (dx, dy)) = filtered_twice_grad(&x, &y);
    assert_relative_eq!(
        v,
        2.0 * 0.1 * 2.0 + 0.5 * 0.3 * 3.0 + 0.4 * 4.0,
        max_relative = 1e-15
    );
    assert_relative_eq!(dx[1], 0.1 * 2.0);
    assert_eq!(dx[2], 0.0);
    assert_relative_eq!(dx[3], 0.3 * 3.0);
    assert_relative_eq!(dx[4], 0.4 * 4.0);
    assert_eq!(dy, [4.0, 0.0, 1.5, 4.0]);
}

/// `sum_j j m_j^2` over the rows' entries in order: the `enumerate` after `flatten` numbers
/// the entries, not the rows.
#[reverse]
pub fn flat_enumerated(m: &[[f64; 2]]) -> f64 {
    m.iter()
        .flatten()
        .enumerate()
        .map(|(j, a)| a * a * j as f64)
        .sum()
}

/// `sum_j m_j y_j` over the entries zipped with `y` (the shorter side ends it).
#[reverse]
pub fn flat_zipped(m: &[[f64; 2]], y: &[f64]) -> f64 {
    m.iter().flatten().zip(y.iter()).map(|(a, b)| a * b).sum()
}

/// `flat_zipped` through its split companions.
#[reverse]
pub fn flat_zipped_via(m: &[[f64; 2]], y: &[f64]) -> f64 {
    flat_zipped(m, y)
}

#[test]
fn zip_and_enumerate_after_flatten() {
    let m = [[1.0, 2.0], [3.0, 4.0]];
    let (v, dm) = flat_enumerated_grad(&m);
    assert_eq!(v, 2.0 * 2.0 + 9.0 * 2.0 + 16.0 * 3.0);
    assert_eq!(dm, [[0.0, 4.0], [12.0, 24.0]]);
    for y in [&[0.5, 0.25, 2.0][..], &[0.5, 0.25, 2.0, 1.0, 7.0], &[]] {
        let flat = [1.0, 2.0, 3.0, 4.0];
        let n = y.len().min(4);
        let value: f64 = (0..n).map(|j| flat[j] * y[j]).sum();
        let mut gm = [0.0; 4];
        gm[..n].copy_from_slice(&y[..n]);
        let (v, (dm, dy)) = checked(
            flat_zipped(&m, y),
            flat_zipped_grad(&m, y),
            flat_zipped_via_grad(&m, y),
        );
        assert_eq!(v, if n == 0 { -0.0 } else { value });
        assert_eq!(dm, [[gm[0], gm[1]], [gm[2], gm[3]]]);
        assert_eq!(dy[..n], flat[..n]);
        assert!(dy[n..].iter().all(|&d| d == 0.0));
    }
}

/// Weights of a model, a constant table.
const TABLE: [f64; 3] = [0.5, 1.0, 2.0];

/// Chains over a constant table zipped with the input (on either side): the `for` loops
/// they stand for.
#[reverse]
fn weighted_by_a_table(x: &[f64]) -> f64 {
    let s: f64 = TABLE.iter().zip(x).map(|(w, v)| w * v * v).sum();
    let p: f64 = TABLE
        .iter()
        .zip(x.iter())
        .map(|(w, v)| w + v)
        .product::<f64>();
    let q: f64 = x.iter().zip(TABLE.iter()).map(|(v, w)| w * v).sum();
    s + p + q
}

/// A sum over a constant table alone, whose value with no items is the chain's `-0.0`.
#[reverse]
fn table_dot(x: &[f64]) -> f64 {
    x.iter().zip(TABLE.iter()).map(|(v, w)| w * v).sum()
}

#[test]
fn chains_over_a_constant_table() {
    // No items: the sum is `-0.0`, bit for bit as the chain gives (not `0.0`).
    let (v, g) = table_dot_grad(&[]);
    assert_eq!(v.to_bits(), table_dot(&[]).to_bits());
    assert_eq!(v.to_bits(), (-0.0f64).to_bits());
    assert!(g.is_empty());
    assert_eq!(table_dot_grad(&[2.0]).1, vec![TABLE[0]]);
    let x = [1.0, 2.0, 3.0];
    let (v, g) = weighted_by_a_table_grad(&x);
    assert_eq!(v.to_bits(), weighted_by_a_table(&x).to_bits());
    let p: f64 = TABLE.iter().zip(&x).map(|(w, v)| w + v).product();
    for i in 0..3 {
        let expected = 2.0 * TABLE[i] * x[i] + p / (TABLE[i] + x[i]) + TABLE[i];
        assert!(
            (g[i] - expected).abs() <= 1e-14 * expected.abs(),
            "{i}: {} vs {expected}",
            g[i]
        );
    }
}

// ---- `for` loops over chains with closures: `.for_each` of the chain --------------------

/// `for (a, b) in x.iter().zip(w).filter(..)`: the body runs on the kept pairs.
#[reverse]
pub fn kept_pairs(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(w.iter()).filter(|(a, _)| **a > 0.0) {
        let t = a * b;
        s += t.sin();
    }
    s
}

/// `kept_pairs` through its split companions.
#[reverse]
pub fn kept_pairs_via(x: &[f64], w: &[f64]) -> f64 {
    kept_pairs(x, w)
}

/// `.map(..)` in a `for` loop, and a filtered range with a loop in the body.
#[reverse]
pub fn mapped_and_filtered_range(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().map(|a| a * a) {
        s += v.sqrt() * 2.0;
    }
    for i in (0..x.len()).filter(|i| i % 2 == 0) {
        s += x[i] * x[i];
        for j in 0..i {
            s += x[j] * 0.5;
        }
    }
    s
}

/// `mapped_and_filtered_range` through its split companions.
#[reverse]
pub fn mapped_and_filtered_range_via(x: &[f64]) -> f64 {
    mapped_and_filtered_range(x)
}

/// Enumerations filtered on the index: `|(i, _)| *i > 0` (the index by reference, as Rust
/// binds it through the closure's `&item`) and `|&(i, _)| i % 2 == 1`; a branch in the body.
#[reverse]
pub fn filtered_enumerations(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for (i, &v) in x.iter().enumerate().filter(|(i, _)| *i > 0) {
        if v > 1.0 {
            s *= v;
        } else {
            s += v * i as f64;
        }
    }
    for (i, &v) in x.iter().enumerate().filter(|&(i, _)| i % 2 == 1) {
        s += v * i as f64;
    }
    s + x
        .iter()
        .enumerate()
        .filter(|(i, _)| *i > 1)
        .map(|(i, v)| v * i as f64)
        .sum::<f64>()
}

/// `filtered_enumerations` through its split companions.
#[reverse]
pub fn filtered_enumerations_via(x: &[f64]) -> f64 {
    filtered_enumerations(x)
}

#[test]
fn for_loops_over_chains_with_closures() {
    let x = [1.0, -2.0, 3.0, 0.5];
    let w = [0.1, 0.2, 0.3, 0.4];
    let (_, (dx, dw)) = checked(
        kept_pairs(&x, &w),
        kept_pairs_grad(&x, &w),
        kept_pairs_via_grad(&x, &w),
    );
    for i in 0..4 {
        let (a, b) = (x[i], w[i]);
        let keep = if a > 0.0 { 1.0 } else { 0.0 };
        assert_relative_eq!(dx[i], keep * b * (a * b).cos(), max_relative = 1e-15);
        assert_relative_eq!(dw[i], keep * a * (a * b).cos(), max_relative = 1e-15);
    }
    // 2 Σ |x_i| + x_0² + x_2² + (x_0 + x_1) / 2
    let (v, dx) = checked(
        mapped_and_filtered_range(&x),
        mapped_and_filtered_range_grad(&x),
        mapped_and_filtered_range_via_grad(&x),
    );
    assert_eq!(v, 13.0 + 1.0 + 9.0 - 0.5);
    assert_eq!(dx, [2.0 + 2.0 + 0.5, -2.0 + 0.5, 2.0 + 6.0, 2.0]);
    // 1 - 2 = -1, times 3, plus 0.5 · 3; then - 2 + 1.5; then 3 · 2 + 0.5 · 3
    let (v, dx) = checked(
        filtered_enumerations(&x),
        filtered_enumerations_grad(&x),
        filtered_enumerations_via_grad(&x),
    );
    assert_eq!(v, -1.5 + (-2.0 + 1.5) + 7.5);
    assert_eq!(dx, [0.0, 3.0 + 1.0, -1.0 + 2.0, 3.0 + 3.0 + 3.0]);
    check::gradient(filtered_enumerations, &x, &dx).unwrap();
}

// ---- sums and products of chains whose `skip`/`take` come after `rev`, `zip`, `enumerate` -

/// `x.iter().rev().take(2).sum()` and the like: the `for` loop each stands for.
#[reverse]
pub fn narrowed_late(x: &[f64], y: &[f64]) -> f64 {
    let a: f64 = x.iter().rev().skip(1).map(|v| v * v).sum();
    let b: f64 = x.iter().zip(y).take(2).map(|(p, q)| p + q).product();
    let c: f64 = x
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, v)| v * i as f64)
        .sum();
    a + b + c + x.iter().rev().take(2).sum::<f64>()
}

/// `narrowed_late` through its split companions.
#[reverse]
pub fn narrowed_late_via(x: &[f64], y: &[f64]) -> f64 {
    narrowed_late(x, y)
}

#[test]
fn sums_of_chains_narrowed_after_rev_zip_or_enumerate() {
    let (x, y) = ([1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0]);
    // 14 + 1.5 + 20 + 7
    let (v, (dx, dy)) = checked(
        narrowed_late(&x, &y),
        narrowed_late_grad(&x, &y),
        narrowed_late_via_grad(&x, &y),
    );
    assert_eq!(v, 42.5);
    assert_eq!(dx, [2.0 + 1.0, 4.0 + 1.5 + 1.0, 6.0 + 2.0 + 1.0, 3.0 + 1.0]);
    assert_eq!(dy, [1.0, 1.5, 0.0]);
    for n in [0, 1, 2] {
        let (_, (dx, _)) = narrowed_late_grad(&x[..n], &y);
        check::gradient(|p| narrowed_late(p, &y), &x[..n], &dx).unwrap();
    }
}

/// Windows walked backwards in a sum (`x.windows(2).rev()`), weighted by their position.
#[reverse]
pub fn backward_differences(x: &[f64]) -> f64 {
    let mut k = 0.0;
    x.windows(2)
        .rev()
        .map(|w| {
            k += 1.0;
            (w[1] - w[0]) * k
        })
        .sum::<f64>()
}

#[test]
fn windows_reversed_in_a_sum() {
    // windows last first: (x3 - x2)·1 + (x2 - x1)·2 + (x1 - x0)·3
    let x = [1.0, 2.5, 2.0, 4.0];
    let (v, dx) = backward_differences_grad(&x);
    assert_eq!(v, backward_differences(&x));
    assert_eq!(v, 2.0 - 1.0 + 4.5);
    assert_eq!(dx, [-3.0, 3.0 - 2.0, 2.0 - 1.0, 1.0]);
}

// ---- `a.chain(b)` -------------------------------------------------------------------------
// A `for` loop over a chain runs over each part in turn; a chain followed by adaptors that
// take each item alone, consumed by `sum`, `product`, `fold` or `for_each`, is consumed over
// each part, in the order `Chain` folds them (so sums add in the same order, bit for bit).

/// Loops over chains: with `continue`, three parts, a part that is a subslice, an inner
/// loop that breaks.
#[reverse]
pub fn loops_over_chains(x: &[f64], y: &[f64], z: [f64; 2]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().chain(y) {
        if *v > 5.0 {
            continue;
        }
        s += v.sin();
    }
    for &v in x.iter().chain(y.iter()).chain(&z) {
        s += v * v;
    }
    for v in z.iter().chain(&x[1..]) {
        for k in 0..2 {
            if k == 1 {
                break;
            }
            s += v * (k + 1) as f64;
        }
        s += v.cos();
    }
    s
}

/// `loops_over_chains` through its split companions.
#[reverse]
pub fn loops_over_chains_via(x: &[f64], y: &[f64], z: [f64; 2]) -> f64 {
    loops_over_chains(x, y, z)
}

/// Sums, products, folds (a number and a tuple) and `for_each` over chains.
#[reverse]
pub fn consumed_chains(x: &[f64], y: &[f64], z: [f64; 2]) -> f64 {
    let a: f64 = x.iter().chain(y).map(|v| v * v).sum();
    let b: f64 = x.iter().chain(y.iter()).sum();
    let c = x
        .iter()
        .copied()
        .chain(z)
        .filter(|v| *v > 0.0)
        .map(|v| v.sin())
        .product::<f64>();
    let d = x.iter().chain(&z).fold(0.0, |acc, v| acc * 0.5 + v);
    let mut e = 0.0;
    x.iter().chain(y).chain(&z).for_each(|v| e += v.exp());
    let (s, q) = y
        .iter()
        .chain(x)
        .fold((0.0, 0.0), |(s, q), &v| (s + v, q + v * v));
    a + b + c + d + e + s * q
}

/// `consumed_chains` through its split companions.
#[reverse]
pub fn consumed_chains_via(x: &[f64], y: &[f64], z: [f64; 2]) -> f64 {
    consumed_chains(x, y, z)
}

/// Central differences of `f` at the concatenation `p` of `x` (3), `y` (2) and `z` (2).
fn central_xyz(f: fn(&[f64], &[f64], [f64; 2]) -> f64, p: &[f64]) -> Vec<f64> {
    fd::fd(|p: &[f64]| f(&p[..3], &p[3..5], [p[5], p[6]]), p)
}

#[test]
fn chains_in_loops_and_consumers() {
    let (x, y, z) = ([0.5, 6.0, 1.5], [2.0, -1.0], [0.25, -3.0]);
    let p = [0.5, 6.0, 1.5, 2.0, -1.0, 0.25, -3.0];
    let (_, (dx, dy, dz)) = checked(
        loops_over_chains(&x, &y, z),
        loops_over_chains_grad(&x, &y, z),
        loops_over_chains_via_grad(&x, &y, z),
    );
    let got: Vec<f64> = dx.iter().chain(&dy).chain(&dz).copied().collect();
    fd::close_all(&got, &central_xyz(loops_over_chains, &p));
    let (v, (dx, dy, dz)) = checked(
        consumed_chains(&x, &y, z),
        consumed_chains_grad(&x, &y, z),
        consumed_chains_via_grad(&x, &y, z),
    );
    assert_eq!(v.to_bits(), consumed_chains(&x, &y, z).to_bits());
    let got: Vec<f64> = dx.iter().chain(&dy).chain(&dz).copied().collect();
    fd::close_all(&got, &central_xyz(consumed_chains, &p));
    // Empty parts: the sum of no items is -0.0, as `Sum` gives it.
    let (v, _) = consumed_chains_grad(&[], &[], [1.0, 2.0]);
    assert_eq!(v.to_bits(), consumed_chains(&[], &[], [1.0, 2.0]).to_bits());
}

/// `filter`'s closure reads items taken by value (`into_iter()` of an array, a zip of them,
/// a `map`'s results) through the reference it is given: `*v`.
#[reverse]
pub fn filters_of_values(a: [f64; 3], b: [f64; 3]) -> f64 {
    let p: f64 = a.into_iter().filter(|v| *v > 0.0).map(|v| v.sin()).sum();
    let q: f64 = a
        .into_iter()
        .zip(b)
        .filter(|(x, y)| *x > *y)
        .map(|(x, y)| x * y)
        .sum();
    let r: f64 = b.iter().map(|v| v * 2.0).filter(|v| *v > 1.0).sum();
    p + q + r
}

/// `filters_of_values` through its split companions.
#[reverse]
pub fn filters_of_values_via(a: [f64; 3], b: [f64; 3]) -> f64 {
    filters_of_values(a, b)
}

#[test]
fn filters_dereferencing_items_taken_by_value() {
    let (a, b) = ([0.5, -1.0, 2.0], [0.25, 2.5, 1.0]);
    let (v, (da, db)) = checked(
        filters_of_values(a, b),
        filters_of_values_grad(a, b),
        filters_of_values_via_grad(a, b),
    );
    // p = sin a0 + sin a2; q = a0 b0 + a2 b2 (a1 < b1); r = 2 (b1 + b2) (2 b0 = 0.5 < 1).
    assert_relative_eq!(
        v,
        0.5f64.sin() + 2.0f64.sin() + 0.5 * 0.25 + 2.0 + 2.0 * 3.5,
        max_relative = 1e-15
    );
    assert_eq!(da, [0.5f64.cos() + 0.25, 0.0, 2.0f64.cos() + 1.0]);
    assert_eq!(db, [0.5, 2.0, 2.0 + 2.0]);
}

/// `for` loops over `map` and `filter` chains whose bodies `continue`, `break` (labeled too)
/// and `return`: loops over the sequence with the stages in the body.
#[reverse]
pub fn loops_over_filters_that_jump(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for v in x.iter().filter(|v| **v > 0.0) {
        if *v > 10.0 {
            continue;
        }
        if *v > 5.0 {
            break;
        }
        s += v * v * w;
    }
    'scaled: for v in x.iter().map(|v| v * w) {
        s += v;
        if v > 3.0 {
            break 'scaled;
        }
    }
    for v in x.iter().copied().map(|v| v.sin()).filter(|&v| v < 0.9) {
        if v < -0.5 {
            continue;
        }
        s += v;
    }
    for &v in x.iter().filter(|&&v| v > 2.5) {
        if v > 2.9 {
            return s * v;
        }
    }
    s
}

/// `loops_over_filters_that_jump` through its split companions.
#[reverse]
pub fn loops_over_filters_that_jump_via(x: &[f64], w: f64) -> f64 {
    loops_over_filters_that_jump(x, w)
}

/// Closures given references (`f(&x)`): floats read through them (`*v`), integers too.
#[reverse]
pub fn closures_given_references(x: f64, k: usize) -> f64 {
    let half = |v: &f64| *v * 0.5;
    let scaled = |v: &f64, i: &usize| v * (*i as f64);
    let y = x * x;
    half(&y) + scaled(&x, &k) + half(&(x + 1.0))
}

/// `closures_given_references` through its split companions.
#[reverse]
pub fn closures_given_references_via(x: f64, k: usize) -> f64 {
    closures_given_references(x, k)
}

#[test]
fn loops_over_filters_that_jump_and_references_to_closures() {
    let w = 0.7;
    // With the return taken (at 12.0), and without (no item above 2.5).
    for x in [
        [1.0, -2.0, 12.0, 3.0, 7.0, 0.5],
        [1.0, -2.0, 2.0, 2.2, 0.5, 0.3],
    ] {
        let (v, (dx, dw)) = checked(
            loops_over_filters_that_jump(&x, w),
            loops_over_filters_that_jump_grad(&x, w),
            loops_over_filters_that_jump_via_grad(&x, w),
        );
        assert_eq!(v.to_bits(), loops_over_filters_that_jump(&x, w).to_bits());
        let mut p = x.to_vec();
        p.push(w);
        let at = |p: &[f64]| loops_over_filters_that_jump(&p[..6], p[6]);
        let got: Vec<f64> = dx.iter().chain([&dw]).copied().collect();
        fd::close_all(&got, &fd::fd(at, &p));
    }
    let (x, k) = (1.5, 3);
    let (v, dx) = checked(
        closures_given_references(x, k),
        closures_given_references_grad(x, k),
        closures_given_references_via_grad(x, k),
    );
    assert_eq!(v, x * x * 0.5 + 3.0 * x + (x + 1.0) * 0.5);
    assert_eq!(dx, x + 3.0 + 0.5);
}
