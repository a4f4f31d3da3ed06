//! `x.clamp(lo, hi)` as an intrinsic, and iterator chains that start from `x.chunks(k)`,
//! `x.chunks_exact(k)` or `x.windows(k)`, under `#[reverse]`, `#[reverse(cps)]`,
//! `#[revad::forward]`, `#[reverse(hessian)]` (clamp) and in generic code; each gradient against a
//! closed form derived here and against `revad::check::finite_difference`, each value bit for bit
//! against the primal.
#![allow(
    clippy::needless_range_loop,
    reason = "the forms under test are written as users write them"
)]

use revad::{forward, reverse, Float};

/// `|a - b| <= 1e-6 * max(|a|, |b|, 1)`: finite differences against a gradient.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// The gradient `g` of `f` at `x` agrees with central finite differences (relative 1e-6).
fn agrees_with_fd(f: impl Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    let fd = revad::check::finite_difference(f, x);
    for (i, (a, b)) in g.iter().zip(&fd).enumerate() {
        assert!(
            close(*a, *b),
            "∂/∂x{i} at {x:?}: {a} against finite differences {b}"
        );
    }
}

// ---- clamp ----------------------------------------------------------------------------------

/// `Σ clamp(3 wᵢ, lo, hi)²`: each term has ∂/∂wᵢ = 18 wᵢ strictly inside the bounds and 0
/// outside, where the bound it is clamped to gets `2 · bound`.
#[forward]
#[reverse]
fn clamped_squares(w: &[f64], lo: f64, hi: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += (3.0 * w[i]).clamp(lo, hi).powi(2);
    }
    s
}

/// The same in path form, under the CPS backend.
#[reverse(cps)]
fn clamped_squares_cps(w: &[f64], lo: f64, hi: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += f64::clamp(3.0 * w[i], lo, hi).powi(2);
    }
    s
}

/// The closed form of `clamped_squares`'s gradient.
fn clamped_squares_closed(w: &[f64], lo: f64, hi: f64) -> (Vec<f64>, f64, f64) {
    let (mut dw, mut dlo, mut dhi) = (vec![0.0; w.len()], 0.0, 0.0);
    for (i, &wi) in w.iter().enumerate() {
        let t = 3.0 * wi;
        if t < lo {
            dlo += 2.0 * lo;
        } else if t > hi {
            dhi += 2.0 * hi;
        } else {
            dw[i] = 18.0 * wi;
        }
    }
    (dw, dlo, dhi)
}

#[test]
fn clamp_gradient_in_every_backend_matches_its_closed_form() {
    let (lo, hi) = (-0.8, 1.1);
    let w = [0.1, -0.5, 0.9, 0.2, -0.05, 2.0];
    let primal = clamped_squares(&w, lo, hi);
    let (dw, dlo, dhi) = clamped_squares_closed(&w, lo, hi);
    // Some of each kind: inside, below and above.
    assert!(dlo != 0.0 && dhi != 0.0 && dw.iter().filter(|d| **d != 0.0).count() == 3);

    let (value, (gw, glo, ghi)) = clamped_squares_grad(&w, lo, hi);
    assert_eq!(value.to_bits(), primal.to_bits());
    let (value_cps, (cw, clo, chi)) = clamped_squares_cps_grad(&w, lo, hi);
    assert_eq!(value_cps.to_bits(), primal.to_bits());
    assert_eq!(clamped_squares_cps(&w, lo, hi).to_bits(), primal.to_bits());
    for (got, lo_hi) in [(&gw, (glo, ghi)), (&cw, (clo, chi))] {
        for (a, b) in got.iter().zip(&dw) {
            assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "{a} vs {b}");
        }
        assert!((lo_hi.0 - dlo).abs() <= 1e-14 && (lo_hi.1 - dhi).abs() <= 1e-14);
    }

    // Finite differences of the primal, in all eight variables.
    let mut all = w.to_vec();
    all.extend([lo, hi]);
    let mut g = gw.clone();
    g.extend([glo, ghi]);
    agrees_with_fd(|p| clamped_squares(&p[..6], p[6], p[7]), &all, &g);

    // Forward mode: one JVP per direction, against the gradient.
    for k in 0..all.len() {
        let mut t = vec![0.0; all.len()];
        t[k] = 1.0;
        let (value, d) = clamped_squares_jvp(&w, lo, hi, &t[..6], t[6], t[7]);
        assert_eq!(value.to_bits(), primal.to_bits());
        assert!(
            (d - g[k]).abs() <= 1e-14 * g[k].abs().max(1.0),
            "jvp {k}: {d} vs {}",
            g[k]
        );
    }
}

/// `clamp` with a constant receiver and active bounds, and with constant bounds.
#[forward]
#[reverse]
fn clamp_constant_parts(x: f64, y: f64) -> f64 {
    f64::clamp(0.5, x, y) * y + (x * y).clamp(-1.0, 1.0)
}

#[test]
fn clamp_with_constant_receiver_or_bounds() {
    // (x, y, ∂/∂x, ∂/∂y): 0.5 inside [x, y] gives y·0.5 → ∂/∂y = 0.5, and x·y inside [-1, 1]
    // adds (y, x); 0.5 below x gives x·y → (y, x); x·y outside [-1, 1] adds nothing.
    for (x, y, ex, ey) in [
        (0.2, 0.9, 0.9, 0.5 + 0.2),
        (-3.0, 2.0, 0.0, 0.5),
        (0.7, 0.8, 0.8 + 0.8, 0.7 + 0.7),
        (0.6, 4.0, 4.0, 0.6),
    ] {
        let (value, (dx, dy)) = clamp_constant_parts_grad(x, y);
        assert_eq!(value.to_bits(), clamp_constant_parts(x, y).to_bits());
        assert!(close(dx, ex) && close(dy, ey), "({x}, {y}): ({dx}, {dy})");
        agrees_with_fd(|p| clamp_constant_parts(p[0], p[1]), &[x, y], &[dx, dy]);
        let (value, d) = clamp_constant_parts_jvp(x, y, 1.0, 0.0);
        assert_eq!(value.to_bits(), clamp_constant_parts(x, y).to_bits());
        assert!(close(d, ex));
    }
}

/// The value is `f64::clamp`'s, not `x.max(lo).min(hi)`'s: NaN stays NaN, `-0.0` stays `-0.0`.
#[test]
fn clamp_value_is_f64_clamp_bit_for_bit() {
    for (x, lo, hi) in [(f64::NAN, 0.0, 1.0), (-0.0, 0.0, 1.0), (0.0, -0.0, 1.0)] {
        let expected = x.clamp(lo, hi).to_bits();
        let w = [x / 3.0];
        assert_eq!(
            clamped_squares_grad(&w, lo, hi).0.to_bits(),
            clamped_squares(&w, lo, hi).to_bits()
        );
        let (value, _) = clamp_nan_grad(x, lo, hi);
        assert_eq!(value.to_bits(), expected);
    }
    // A NaN `x` gets no adjoint (JAX's `clip`), and its bounds none either.
    assert_eq!(clamp_nan_grad(f64::NAN, 0.0, 1.0).1, (0.0, 0.0, 0.0));
}

#[reverse]
fn clamp_nan(x: f64, lo: f64, hi: f64) -> f64 {
    x.clamp(lo, hi)
}

/// `f_grad` panics where `f` does: `lo > hi`.
#[test]
#[should_panic]
fn clamp_grad_panics_where_clamp_does() {
    let _ = clamp_nan_grad(0.5, 1.0, 0.0);
}

/// A generic body for `f32` and `f64`.
#[reverse]
fn clamp_generic<T: Float>(x: T, lo: T) -> T {
    (x * x).clamp(lo, T::ONE) * x
}

#[test]
fn clamp_in_generic_code() {
    // x³ inside, lo·x below, x above.
    for (x, lo, ex, elo) in [
        (0.5f64, 0.1, 0.75, 0.0),
        (0.2, 0.1, 0.1, 0.2),
        (-1.5, 0.1, 1.0, 0.0),
    ] {
        let (value, (dx, dlo)) = clamp_generic_grad(x, lo);
        assert_eq!(value.to_bits(), clamp_generic(x, lo).to_bits());
        assert!(close(dx, ex) && close(dlo, elo), "{x}: ({dx}, {dlo})");
        let (value, (dx, dlo)) = clamp_generic_grad(x as f32, lo as f32);
        assert_eq!(
            value.to_bits(),
            clamp_generic(x as f32, lo as f32).to_bits()
        );
        assert!((f64::from(dx) - ex).abs() <= 1e-6 && (f64::from(dlo) - elo).abs() <= 1e-6);
    }
}

/// Forward over reverse: `clamp(x·y, -1, 1)²`, whose Hessian is that of `x²y²` inside and 0
/// outside.
#[reverse(hessian)]
fn clamp_squared(x: f64, y: f64) -> f64 {
    (x * y).clamp(-1.0, 1.0).powi(2)
}

#[test]
fn clamp_hessian_matches_its_closed_form() {
    for (x, y) in [(0.5, 0.8), (-0.3, 1.7), (2.0, 3.0), (-4.0, 0.5)] {
        let (value, _, h) = clamp_squared_hessian(x, y);
        assert_eq!(value.to_bits(), clamp_squared(x, y).to_bits());
        let expected = if (x * y).abs() < 1.0 {
            vec![
                vec![2.0 * y * y, 4.0 * x * y],
                vec![4.0 * x * y, 2.0 * x * x],
            ]
        } else {
            vec![vec![0.0, 0.0], vec![0.0, 0.0]]
        };
        for i in 0..2 {
            for j in 0..2 {
                assert!(close(h[i][j], expected[i][j]), "H[{i}][{j}] at ({x}, {y})");
            }
        }
    }
}

// ---- iterator chains over chunks and windows --------------------------------------------------

/// `Σ (xᵢ₊₁ - xᵢ)²`: ∂/∂xᵢ = 2(xᵢ - xᵢ₋₁) - 2(xᵢ₊₁ - xᵢ), each term where it exists.
#[forward]
#[reverse]
fn squared_steps(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum::<f64>()
}

#[reverse(cps)]
fn squared_steps_cps(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum::<f64>()
}

/// The same as a `for` loop: the chain must agree with it bit for bit.
#[reverse]
fn squared_steps_loop(x: &[f64]) -> f64 {
    let mut s = -0.0;
    for w in x.windows(2) {
        s += (w[1] - w[0]).powi(2);
    }
    s
}

fn squared_steps_closed(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    (0..n)
        .map(|i| {
            let left = if i > 0 { 2.0 * (x[i] - x[i - 1]) } else { 0.0 };
            let right = if i + 1 < n {
                2.0 * (x[i + 1] - x[i])
            } else {
                0.0
            };
            left - right
        })
        .collect()
}

/// Same bits for the same operations in the same order (up to the sign of a zero).
fn same(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (p, q) in a.iter().zip(b) {
        assert_eq!(p.to_bits(), q.to_bits(), "{a:?} against {b:?}");
    }
}

fn close_all(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (p, q) in a.iter().zip(b) {
        assert!(
            (p - q).abs() <= 1e-13 * q.abs().max(1.0),
            "{a:?} against {b:?}"
        );
    }
}

#[test]
fn windows_map_sum_in_every_backend() {
    for x in [
        vec![0.3, -1.2, 2.5, 0.7, 1.1],
        vec![1.5, 0.5],
        vec![2.0],
        vec![],
    ] {
        let primal = squared_steps(&x);
        let (value, g) = squared_steps_grad(&x);
        assert_eq!(value.to_bits(), primal.to_bits());
        close_all(&g, &squared_steps_closed(&x));
        let (value_cps, g_cps) = squared_steps_cps_grad(&x);
        assert_eq!(value_cps.to_bits(), primal.to_bits());
        same(&g_cps, &g);
        let (value_loop, g_loop) = squared_steps_loop_grad(&x);
        assert_eq!(value_loop.to_bits(), primal.to_bits());
        same(&g_loop, &g);
        if !x.is_empty() {
            agrees_with_fd(squared_steps, &x, &g);
        }
        for k in 0..x.len() {
            let mut t = vec![0.0; x.len()];
            t[k] = 1.0;
            let (value, d) = squared_steps_jvp(&x, &t);
            assert_eq!(value.to_bits(), primal.to_bits());
            assert!((d - g[k]).abs() <= 1e-13 * g[k].abs().max(1.0));
        }
    }
}

/// `Σ_c (Σ_{i ∈ c} xᵢ)²` over chunks of 3 (the last one shorter): ∂/∂xᵢ = 2 S_c for the chunk
/// `c` of `i`.
#[forward]
#[reverse]
fn chunk_sums_squared(x: &[f64]) -> f64 {
    x.chunks(3)
        .map(|c| c.iter().sum::<f64>())
        .fold(0.0, |acc, s| acc + s * s)
}

#[reverse(cps)]
fn chunk_sums_squared_cps(x: &[f64]) -> f64 {
    x.chunks(3)
        .map(|c| c.iter().sum::<f64>())
        .fold(0.0, |acc, s| acc + s * s)
}

#[test]
fn chunks_map_fold_in_every_backend() {
    for x in [
        vec![0.3, -1.2, 2.5, 0.7, 1.1, -0.4, 0.9],
        vec![1.0, 2.0, 3.0],
        vec![0.5],
    ] {
        let primal = chunk_sums_squared(&x);
        let expected = x
            .chunks(3)
            .map(|c| c.iter().sum::<f64>())
            .fold(0.0, |a, s| a + s * s);
        assert_eq!(primal.to_bits(), expected.to_bits());
        let closed: Vec<f64> = (0..x.len())
            .map(|i| {
                2.0 * x[i / 3 * 3..(i / 3 * 3 + 3).min(x.len())]
                    .iter()
                    .sum::<f64>()
            })
            .collect();
        let (value, g) = chunk_sums_squared_grad(&x);
        assert_eq!(value.to_bits(), primal.to_bits());
        close_all(&g, &closed);
        let (value_cps, g_cps) = chunk_sums_squared_cps_grad(&x);
        assert_eq!(value_cps.to_bits(), primal.to_bits());
        same(&g_cps, &g);
        agrees_with_fd(chunk_sums_squared, &x, &g);
        let t: Vec<f64> = (0..x.len()).map(|i| 0.5 - i as f64 * 0.3).collect();
        let (value, d) = chunk_sums_squared_jvp(&x, &t);
        assert_eq!(value.to_bits(), primal.to_bits());
        let dot: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
        assert!((d - dot).abs() <= 1e-13 * dot.abs().max(1.0));
    }
}

/// `chunks_exact` (the tail dropped), `enumerate`, `filter` on the index, and a weight `a`
/// captured by the closure: `Σ_{k even} a (k + 1) c₀ c₁`.
#[reverse]
fn even_pairs(x: &[f64], a: f64) -> f64 {
    x.chunks_exact(2)
        .enumerate()
        .filter(|(k, _)| k % 2 == 0)
        .map(|(k, c)| a * (k as f64 + 1.0) * c[0] * c[1])
        .sum::<f64>()
}

#[test]
fn chunks_exact_enumerate_filter() {
    let x = [0.3, -1.2, 2.5, 0.7, 1.1, -0.4, 0.9, 2.0, -0.6];
    let a = 1.7;
    let (value, (g, da)) = even_pairs_grad(&x, a);
    assert_eq!(value.to_bits(), even_pairs(&x, a).to_bits());
    // Chunks 0 and 2 count (weights 1 and 3); chunk 1 and 3 do not; x[8] is in none.
    let mut closed = vec![0.0; x.len()];
    let mut closed_a = 0.0;
    for (k, w) in [(0, 1.0), (2, 3.0)] {
        closed[2 * k] = a * w * x[2 * k + 1];
        closed[2 * k + 1] = a * w * x[2 * k];
        closed_a += w * x[2 * k] * x[2 * k + 1];
    }
    close_all(&g, &closed);
    assert!((da - closed_a).abs() <= 1e-13);
    let mut all = x.to_vec();
    all.push(a);
    let mut grad = g.clone();
    grad.push(da);
    agrees_with_fd(|p| even_pairs(&p[..9], p[9]), &all, &grad);
}

/// Windows of a slice, of a size given at run time, each a product, collected into a `Vec`
/// and returned; `for_each` over chunks zipped with weights, into a captured total.
#[reverse]
fn window_products(x: &[f64], k: usize) -> Vec<f64> {
    x[1..]
        .windows(k)
        .map(|w| w.iter().product::<f64>())
        .collect::<Vec<f64>>()
}

#[reverse]
fn weighted_chunk_spread(x: &[f64], w: &[f64]) -> f64 {
    let mut total = 0.0;
    x.chunks(2)
        .zip(w)
        .for_each(|(c, wi)| total += wi * (c[0] - c[c.len() - 1]).abs());
    total
}

#[test]
fn windows_collect_and_chunks_zip_for_each() {
    let x = [0.3, -1.2, 2.5, 0.7, 1.1, -0.4];
    let seed = [0.5, -1.0, 2.0];
    let (value, g) = window_products_vjp(&x, 3, seed.to_vec());
    // Windows of x[1..] of 3: (x1 x2 x3), (x2 x3 x4), (x3 x4 x5).
    let expected: Vec<f64> = x[1..].windows(3).map(|w| w.iter().product()).collect();
    same(&value, &expected);
    same(&window_products(&x, 3), &expected);
    let mut closed = vec![0.0; x.len()];
    for (j, s) in seed.iter().enumerate() {
        let at = j + 1;
        for i in at..at + 3 {
            let others: f64 = (at..at + 3).filter(|&m| m != i).map(|m| x[m]).product();
            closed[i] += s * others;
        }
    }
    close_all(&g, &closed);
    agrees_with_fd(
        |p| {
            window_products(p, 3)
                .iter()
                .zip(&seed)
                .map(|(a, b)| a * b)
                .sum()
        },
        &x,
        &g,
    );

    // Chunks (0.3, -1.2), (2.5, 0.7), (1.1, -0.4) and the 2 weights: the third is dropped.
    let w = [2.0, -0.5];
    let (value, (gx, gw)) = weighted_chunk_spread_grad(&x, &w);
    assert_eq!(value.to_bits(), weighted_chunk_spread(&x, &w).to_bits());
    let closed_x = [2.0, -2.0, -0.5, 0.5, 0.0, 0.0];
    let closed_w = [(0.3f64 + 1.2).abs(), (2.5f64 - 0.7).abs()];
    close_all(&gx, &closed_x);
    close_all(&gw, &closed_w);
    let mut all = x.to_vec();
    all.extend(w);
    let mut grad = gx.clone();
    grad.extend(gw);
    agrees_with_fd(|p| weighted_chunk_spread(&p[..6], &p[6..]), &all, &grad);
}

/// A generic chain over windows, for `f32` and `f64`.
#[reverse]
fn neighbour_products<T: Float>(x: &[T]) -> T {
    x.windows(2).map(|w| w[0] * w[1]).sum::<T>()
}

#[test]
fn windows_chain_in_generic_code() {
    let x = [0.5f64, -1.5, 2.0, 0.25];
    let (value, g) = neighbour_products_grad(&x);
    assert_eq!(value.to_bits(), neighbour_products(&x).to_bits());
    close_all(&g, &[-1.5, 0.5 + 2.0, -1.5 + 0.25, 2.0]);
    let x32 = x.map(|v| v as f32);
    let (value, g) = neighbour_products_grad(&x32);
    assert_eq!(value.to_bits(), neighbour_products(&x32).to_bits());
    assert_eq!(g, vec![-1.5f32, 2.5, -1.25, 2.0]);
}

/// `f_grad` panics where `f` does: `windows(0)`.
#[test]
#[should_panic(expected = "window size must be non-zero")]
fn chain_over_windows_of_zero_panics() {
    let _ = window_products_vjp(&[1.0, 2.0, 3.0], 0, Vec::new());
}

/// Chunks zipped with chunks, each pair a dot product: `x · y` in blocks of 4.
#[reverse]
fn blocked_dot(x: &[f64], y: &[f64]) -> f64 {
    x.chunks(4)
        .zip(y.chunks(4))
        .map(|(cx, cy)| cx.iter().zip(cy).map(|(a, b)| a * b).sum::<f64>())
        .sum::<f64>()
}

#[reverse(cps)]
fn blocked_dot_cps(x: &[f64], y: &[f64]) -> f64 {
    x.chunks(4)
        .zip(y.chunks(4))
        .map(|(cx, cy)| cx.iter().zip(cy).map(|(a, b)| a * b).sum::<f64>())
        .sum::<f64>()
}

#[test]
fn chunks_zipped_with_chunks() {
    // 10 elements: chunks of 4, 4 and 2; ∂/∂x = y and ∂/∂y = x.
    let x: Vec<f64> = (0..10).map(|i| (i as f64 * 0.7).sin()).collect();
    let y: Vec<f64> = (0..10).map(|i| 1.0 - i as f64 * 0.15).collect();
    let primal = blocked_dot(&x, &y);
    let expected: f64 = x
        .chunks(4)
        .zip(y.chunks(4))
        .map(|(a, b)| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>())
        .sum();
    assert_eq!(primal.to_bits(), expected.to_bits());
    let (value, (gx, gy)) = blocked_dot_grad(&x, &y);
    assert_eq!(value.to_bits(), primal.to_bits());
    same(&gx, &y);
    same(&gy, &x);
    let (value, (cx, cy)) = blocked_dot_cps_grad(&x, &y);
    assert_eq!(value.to_bits(), primal.to_bits());
    same(&cx, &y);
    same(&cy, &x);
    // A shorter `y`: only the chunks both have count (Rust's `zip`).
    let (value, (gx, gy)) = blocked_dot_grad(&x, &y[..6]);
    assert_eq!(value.to_bits(), blocked_dot(&x, &y[..6]).to_bits());
    let mut closed = y[..6].to_vec();
    closed.resize(x.len(), 0.0);
    same(&gx, &closed);
    same(&gy, &x[..6]);
}

/// A bead on a string: its position and mass (`id` is inactive).
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Bead {
    /// Position.
    pub x: f64,
    /// Mass.
    pub m: f64,
    /// An inactive label.
    pub id: usize,
}

/// Windows of structs in a chain: each item's elements are places, read where used.
/// `Σ (m₀ + m₁) (x₁ - x₀)²` over neighbouring beads.
#[reverse]
fn string_energy(beads: &[Bead]) -> f64 {
    beads
        .windows(2)
        .map(|w| (w[0].m + w[1].m) * (w[1].x - w[0].x).powi(2))
        .sum::<f64>()
}

#[test]
fn windows_of_structs_in_a_chain() {
    let beads: Vec<Bead> = (0..4)
        .map(|i| Bead {
            x: (i as f64 * 0.9).cos(),
            m: 1.0 + 0.5 * i as f64,
            id: i,
        })
        .collect();
    let (value, d) = string_energy_grad(&beads);
    assert_eq!(value.to_bits(), string_energy(&beads).to_bits());
    // ∂/∂x_i and ∂/∂m_i from each window (i - 1, i) and (i, i + 1).
    let n = beads.len();
    for i in 0..n {
        let (mut dx, mut dm) = (0.0, 0.0);
        if i > 0 {
            let (a, b) = (&beads[i - 1], &beads[i]);
            dx += 2.0 * (a.m + b.m) * (b.x - a.x);
            dm += (b.x - a.x).powi(2);
        }
        if i + 1 < n {
            let (a, b) = (&beads[i], &beads[i + 1]);
            dx -= 2.0 * (a.m + b.m) * (b.x - a.x);
            dm += (b.x - a.x).powi(2);
        }
        assert!(close(d[i].x, dx) && close(d[i].m, dm), "bead {i}");
    }
    let flat: Vec<f64> = beads.iter().flat_map(|b| [b.x, b.m]).collect();
    let grad: Vec<f64> = d.iter().flat_map(|b| [b.x, b.m]).collect();
    let rebuild = |p: &[f64]| -> Vec<Bead> {
        p.chunks(2)
            .enumerate()
            .map(|(id, c)| Bead {
                x: c[0],
                m: c[1],
                id,
            })
            .collect()
    };
    agrees_with_fd(|p| string_energy(&rebuild(p)), &flat, &grad);
}
