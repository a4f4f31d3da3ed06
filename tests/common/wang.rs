//! The examples of Wang et al., "Shift/Reset the Penultimate Backpropagator" (ICFP 2019),
//! and the free-variable example of Pearlmutter & Siskind (TOPLAS 2008), each written once
//! and annotated twice with `both!`: `NAME` under `#[reverse(cps)]`, `NAME_tape` under the
//! default tape backend. Used by `tests/cps.rs` and `examples/cps.rs`.

#![allow(dead_code, reason = "each includer uses a part")]
#![allow(
    clippy::assign_op_pattern,
    reason = "the WHILE example is written as in the paper, `y = y * x`"
)]

use revad::reverse;

both! {
    /// Straight-line code: `2x + x³`, with derivative `2 + 3x²`.
    [] pub fn poly_tape / poly(x: f64) -> f64 {
        2.0 * x + x * x * x
    }
}

both! {
    /// IF: one continuation for both arms. `x³` for positive `x`, `-2x` otherwise.
    [] pub fn branch_tape / branch(x: f64) -> f64 {
        let y = if x > 0.0 { x * x * x } else { -2.0 * x };
        y + 1.0
    }
}

both! {
    /// WHILE: `x^n` by repeated multiplication; under CPS the loop runs as the tape's, its
    /// continuation defunctionalised (the values its reverse reads, on the value stack).
    [] pub fn power_tape / power(x: f64, n: usize) -> f64 {
        let mut y = 1.0;
        let mut i = 0;
        while i < n {
            y = y * x;
            i += 1;
        }
        y
    }
}

/// TREE: the product of the values of an implicit binary tree (node `i` has children
/// `2i + 1` and `2i + 2`) times `x` at each missing child; a recursive function (written
/// twice: each version recurses into itself).
#[reverse(cps)]
pub fn tree(values: &[f64], x: f64, i: usize) -> f64 {
    if i >= values.len() {
        x
    } else {
        let left = tree(values, x, 2 * i + 1);
        let right = tree(values, x, 2 * i + 2);
        values[i] * left * right
    }
}

/// `tree` under the tape backend.
#[reverse]
pub fn tree_tape(values: &[f64], x: f64, i: usize) -> f64 {
    if i >= values.len() {
        x
    } else {
        let left = tree_tape(values, x, 2 * i + 1);
        let right = tree_tape(values, x, 2 * i + 2);
        values[i] * left * right
    }
}

both! {
    /// A closure with a free variable (Pearlmutter & Siskind): `add_x` captures `x`, so the
    /// derivative of `x * add_x(1)` = `x (x + 1)` is `2x + 1`, and the closure's use of `x`
    /// contributes to it.
    [] pub fn free_variable_tape / free_variable(x: f64) -> f64 {
        let add_x = |y: f64| x + y;
        x * add_x(1.0)
    }
}
