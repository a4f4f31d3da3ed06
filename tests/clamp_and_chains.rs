//! `x.clamp(lo, hi)` as an intrinsic, under `#[reverse]`, `#[reverse(cps)]`, `#[ad::forward]`,
//! `#[reverse(hessian)]` and in generic code; each gradient against a closed form derived here
//! and against `ad::check::finite_difference`, each value bit for bit against the primal.
#![allow(
    clippy::needless_range_loop,
    reason = "the forms under test are written as users write them"
)]

use ad::{forward, reverse, Float};

/// `|a - b| <= 1e-6 * max(|a|, |b|, 1)`: finite differences against a gradient.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// The gradient `g` of `f` at `x` agrees with central finite differences (relative 1e-6).
fn agrees_with_fd(f: impl Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    let fd = ad::check::finite_difference(f, x);
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
