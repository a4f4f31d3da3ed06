//! `#[reverse(recompute)]`: a callee whose split companions keep only its arguments, its
//! forward sweep run again in the caller's reverse sweep. The caller's gradient is the same,
//! bit for bit, as with the callee without the option, matches finite differences of the
//! primal, and the caller's tape holds the arguments instead of the callee's values.

#![allow(
    clippy::needless_range_loop,
    reason = "index loops, as a user of the macro writes them"
)]

use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
use bits::assert_same_bits_at;

/// A callee with a long tape of its own: one value per element of `w`.
#[reverse(recompute)]
fn layer(x: f64, w: &[f64]) -> f64 {
    let mut s = x;
    for i in 0..w.len() {
        s = (s * w[i]).sin() + 0.5 * s;
    }
    s
}

#[reverse]
fn layer_taped(x: f64, w: &[f64]) -> f64 {
    let mut s = x;
    for i in 0..w.len() {
        s = (s * w[i]).sin() + 0.5 * s;
    }
    s
}

/// A generic callee with an array parameter and a tuple result.
#[reverse(recompute)]
fn pair<T: revad::Float>(a: [T; 2], k: T) -> (T, T) {
    let p = a[0] * k.exp() - a[1];
    (p.tanh(), p * a[1])
}

#[reverse]
fn pair_taped<T: revad::Float>(a: [T; 2], k: T) -> (T, T) {
    let p = a[0] * k.exp() - a[1];
    (p.tanh(), p * a[1])
}

#[reverse]
fn deep(x: f64, w: &[f64], n: usize) -> f64 {
    let mut y = x;
    let mut acc = 0.0;
    for _ in 0..n {
        y = layer(y, w);
        acc += y * y;
    }
    acc
}

#[reverse]
fn deep_taped(x: f64, w: &[f64], n: usize) -> f64 {
    let mut y = x;
    let mut acc = 0.0;
    for _ in 0..n {
        y = layer_taped(y, w);
        acc += y * y;
    }
    acc
}

#[reverse]
fn pairs(a: [f64; 2], k: f64) -> f64 {
    let (u, v) = pair(a, k);
    let (s, t) = pair([u, v], 0.5 * k);
    u * s + v * t
}

#[reverse]
fn pairs_taped(a: [f64; 2], k: f64) -> f64 {
    let (u, v) = pair_taped(a, k);
    let (s, t) = pair_taped([u, v], 0.5 * k);
    u * s + v * t
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn same_gradient_bits_as_the_taped_callee() {
    let w: Vec<f64> = (0..50).map(|i| 0.9 + 0.01 * i as f64).collect();
    for n in [0, 1, 3, 10] {
        let want = deep_taped_grad(0.4, &w, n);
        let got = deep_grad(0.4, &w, n);
        assert_same_bits_at(got.clone(), want.clone(), n);
        let dx = central(|x| deep(x, &w, n), 0.4);
        assert!(
            (want.1 .0 - dx).abs() < 1e-6 * (1.0 + dx.abs()),
            "{} vs {dx}",
            want.1 .0
        );
        for k in [0, 17, 49] {
            let dw = central(
                |v| {
                    let mut w = w.clone();
                    w[k] = v;
                    deep(0.4, &w, n)
                },
                w[k],
            );
            let g = want.1 .1[k];
            assert!(
                (g - dw).abs() < 1e-6 * (1.0 + dw.abs()),
                "w[{k}]: {g} vs {dw}"
            );
        }
    }
    let (a, k) = ([0.3, -1.2], 0.7);
    let want = pairs_taped_grad(a, k);
    assert_same_bits_at(pairs_grad(a, k), want, "pairs");
    let dk = central(|k| pairs(a, k), k);
    assert!((want.1 .1 - dk).abs() < 1e-6 * (1.0 + dk.abs()));
}

#[test]
fn the_callers_tape_keeps_the_arguments() {
    // 200 calls of a callee whose tape is 500 values: 800 kB taped, a few kB recomputed.
    let w: Vec<f64> = (0..500).map(|i| 0.9 + 0.0002 * i as f64).collect();
    revad::release_thread_buffers();
    let want = deep_taped_grad(0.4, &w, 200);
    let taped = revad::thread_buffer_bytes();
    revad::release_thread_buffers();
    let got = deep_grad(0.4, &w, 200);
    let recomputed = revad::thread_buffer_bytes();
    assert_same_bits_at(got, want, 200);
    assert!(taped >= 8 * 500 * 200, "taped: {taped} bytes");
    assert!(recomputed <= 64 * 1024, "recomputed: {recomputed} bytes");
}
