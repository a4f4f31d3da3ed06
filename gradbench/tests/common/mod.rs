//! Helpers shared by the eval tests: deterministic inputs, finite-difference checks, and
//! running an eval's function through `prepare` as the protocol does.

#![allow(dead_code, reason = "each test file uses its own subset")]

use revad::check::{self, Tolerance};
use revad_gradbench::evals;
use serde_json::Value;

/// A deterministic stream of numbers in [lo, hi) (a 64-bit LCG; tests need no better).
pub struct Numbers(u64);

impl Numbers {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> Numbers {
        Numbers(
            seed.wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407),
        )
    }

    /// The next number in [lo, hi).
    pub fn next(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// `n` numbers in [lo, hi).
    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.next(lo, hi)).collect()
    }

    /// `rows` rows of `cols` numbers in [lo, hi).
    pub fn rows(&mut self, rows: usize, cols: usize, lo: f64, hi: f64) -> Vec<Vec<f64>> {
        (0..rows).map(|_| self.vec(cols, lo, hi)).collect()
    }
}

/// Checks `gradient` against fourth-order central differences of `f` at `x`, relative
/// tolerance `rel` (absolute `rel` too, for partials near zero).
pub fn check_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64], gradient: &[f64], rel: f64) {
    let tol = Tolerance { rel, abs: rel };
    if let Err(mismatch) = check::gradient_with(f, x, gradient, tol) {
        panic!("{mismatch}");
    }
}

/// Runs `module`'s `function` on `input` once through [`evals::prepare`] and returns its
/// output JSON.
pub fn evaluate(module: &str, function: &str, input: &Value) -> Value {
    let mut runner = evals::prepare(module, function, input)
        .unwrap_or_else(|e| panic!("{module}::{function}: {e}"));
    runner.run();
    runner.output()
}

/// The numbers of a JSON array.
pub fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| v.as_f64().unwrap_or_else(|| panic!("not a number: {v}")))
        .collect()
}
