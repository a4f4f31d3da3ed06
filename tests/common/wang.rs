//! The examples of Wang et al., "Shift/Reset the Penultimate Backpropagator" (ICFP 2019),
//! and the free-variable example of Pearlmutter & Siskind (TOPLAS 2008), each written once
//! and annotated twice: `NAME` under `#[reverse(cps)]`, `NAME_tape` under the default tape
//! backend. Used by `tests/cps.rs` and `examples/cps.rs`.

#![allow(dead_code, reason = "each includer uses a part")]
#![allow(
    clippy::assign_op_pattern,
    reason = "the WHILE example is written as in the paper, `y = y * x`"
)]

use ad::reverse;

/// Writes each function twice, once per backend.
macro_rules! both {
    ($(#[$doc:meta])* fn $name:ident / $tape:ident ($($p:ident: $t:ty),*) -> $r:ty $body:block) => {
        $(#[$doc])*
        #[reverse(cps)]
        pub fn $name($($p: $t),*) -> $r $body

        $(#[$doc])*
        #[reverse]
        pub fn $tape($($p: $t),*) -> $r $body
    };
}

both! {
    /// Straight-line code: `2x + x³`, with derivative `2 + 3x²`.
    fn poly / poly_tape(x: f64) -> f64 {
        2.0 * x + x * x * x
    }
}

both! {
    /// IF: one continuation for both arms. `x³` for positive `x`, `-2x` otherwise.
    fn branch / branch_tape(x: f64) -> f64 {
        let y = if x > 0.0 { x * x * x } else { -2.0 * x };
        y + 1.0
    }
}

both! {
    /// WHILE: `x^n` by repeated multiplication; the loop is a local recursive function, one
    /// level per iteration.
    fn power / power_tape(x: f64, n: usize) -> f64 {
        let mut y = 1.0;
        let mut i = 0;
        while i < n {
            y = y * x;
            i += 1;
        }
        y
    }
}

both! {
    /// TREE: the product of the values of an implicit binary tree (node `i` has children
    /// `2i + 1` and `2i + 2`) times `x` at each missing child; a recursive function.
    fn tree / tree_tape(values: &[f64], x: f64, i: usize) -> f64 {
        if i >= values.len() {
            x
        } else {
            let left = tree(values, x, 2 * i + 1);
            let right = tree(values, x, 2 * i + 2);
            values[i] * left * right
        }
    }
}

both! {
    /// A closure with a free variable (Pearlmutter & Siskind): `add_x` captures `x`, so the
    /// derivative of `x * add_x(1)` = `x (x + 1)` is `2x + 1`, and the closure's use of `x`
    /// contributes to it.
    fn free_variable / free_variable_tape(x: f64) -> f64 {
        let add_x = |y: f64| x + y;
        x * add_x(1.0)
    }
}
