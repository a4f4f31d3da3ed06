//! The README's first example and the forms users reach for first, under the default
//! features: loops over slices, `&mut` arguments lent to readers.
#![allow(
    clippy::needless_range_loop,
    reason = "index loops are the form users write first"
)]

use approx::assert_relative_eq;
use revad::reverse;

/// The README's loss: a linear model's squared error.
#[reverse]
pub fn loss(w: &[f64], x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x.powi(i as i32);
    }
    (s - 1.0) * (s - 1.0)
}

#[test]
fn the_readme_loss() {
    let w = [0.5, -1.0, 0.25];
    let x = 1.5;
    let (v, (dw, dx)) = loss_grad(&w, x);
    assert_eq!(v, loss(&w, x));
    let s = w[0] + w[1] * x + w[2] * x * x;
    for (i, d) in dw.iter().enumerate() {
        assert_relative_eq!(*d, 2.0 * (s - 1.0) * x.powi(i as i32), max_relative = 1e-15);
    }
    assert_relative_eq!(
        dx,
        2.0 * (s - 1.0) * (w[1] + 2.0 * w[2] * x),
        max_relative = 1e-15
    );
}

/// A reader of a slice.
#[reverse]
pub fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

/// A state updated in place, read by a helper that takes `&[f64]` (Rust coerces `&mut`).
#[reverse]
pub fn relax(xs: &mut [f64], k: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        xs[i] *= k;
        s += total(xs);
    }
    s
}

#[test]
fn a_mut_slice_lent_to_a_reader() {
    let x0 = [1.0, 2.0, 3.0];
    let mut xs = x0;
    let k = 0.5;
    let (v, (dxs, dk)) = relax_grad(&mut xs, k);
    assert_eq!(xs, [0.5, 1.0, 1.5]);
    // s = k x0 + x1 + x2 + k (x0 + x1) + x2 + k (x0 + x1 + x2).
    let plain = |x: [f64; 3], k: f64| {
        (k * x[0] + x[1] + x[2]) + (k * x[0] + k * x[1] + x[2]) + k * (x[0] + x[1] + x[2])
    };
    assert_relative_eq!(v, plain(x0, k), max_relative = 1e-15);
    assert_relative_eq!(dxs[0], 3.0 * k, max_relative = 1e-15);
    assert_relative_eq!(dxs[1], 1.0 + 2.0 * k, max_relative = 1e-15);
    assert_relative_eq!(dxs[2], 2.0 + k, max_relative = 1e-15);
    assert_relative_eq!(dk, 3.0 * x0[0] + 2.0 * x0[1] + x0[2], max_relative = 1e-15);
}
