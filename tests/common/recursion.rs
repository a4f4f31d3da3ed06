//! Recursive workloads shared by `tests/recursion_depth.rs` (which guards their stack use)
//! and `examples/recursion_depth.rs` (which measures it): the same functions, so the test
//! checks what the example measures.
//!
//! Included with `#[path]` (it is not a test target of its own).

#![allow(dead_code, reason = "each includer uses a part")]

use revad::reverse;

/// The simplest recursion: one float carried down, one intrinsic on the way up.
#[reverse]
pub fn chain(x: f64, n: usize) -> f64 {
    if n == 0 {
        x
    } else {
        chain(x, n - 1).sin() * 1.0001 + 0.5 * x
    }
}

/// More locals live across the recursive call, two active parameters.
#[reverse]
pub fn chain_locals(x: f64, y: f64, n: usize) -> f64 {
    if n == 0 {
        x * y
    } else {
        let a = x.sin() * y;
        let b = y.cos() + x * 0.5;
        let c = (a * b).tanh();
        let r = chain_locals(x * 0.999, y + 1e-6, n - 1);
        r * 0.5 + a * c - b.exp() * 1e-3 + (r * a).sin() * 1e-2
    }
}

/// A slice parameter: the reverse sweep adds into an array sink at every level.
#[reverse]
pub fn walk(w: &[f64], x: f64, n: usize) -> f64 {
    if n == 0 {
        x
    } else {
        let k = n % w.len();
        w[k] * walk(w, x, n - 1).cos() + x * 0.25
    }
}

/// Mutual recursion, two functions per two levels.
#[reverse]
pub fn ping(x: f64, n: usize) -> f64 {
    if n == 0 {
        x
    } else {
        pong(x * 1.5, n - 1).sin()
    }
}

#[reverse]
pub fn pong(x: f64, n: usize) -> f64 {
    if n == 0 {
        x * x
    } else {
        ping(x - 0.25, n - 1) * x
    }
}
