//! The continuation-passing backend, `#[reverse(cps)]`, on the examples of Wang et al.,
//! "Shift/Reset the Penultimate Backpropagator" (ICFP 2019), and Pearlmutter & Siskind's
//! free variable: each gradient from the CPS backend next to the tape backend's and the
//! closed form.
//!
//! Run with `cargo run --example cps`. The functions are in `tests/common/wang.rs`, where
//! each is annotated once per backend.

#[path = "../tests/common/both.rs"]
#[macro_use]
mod both;

#[path = "../tests/common/wang.rs"]
mod wang;
use wang::*;

fn main() {
    println!(
        "{:<34} {:>14} {:>14} {:>14}",
        "example", "cps", "tape", "closed form"
    );
    let row = |name: &str, cps: f64, tape: f64, exact: f64| {
        println!("{name:<34} {cps:>14.9} {tape:>14.9} {exact:>14.9}");
        assert_eq!(cps.to_bits(), tape.to_bits(), "{name}: the backends differ");
    };

    let x = 1.5;
    row(
        "d/dx 2x + x^3 at 1.5",
        poly_grad(x).1,
        poly_tape_grad(x).1,
        2.0 + 3.0 * x * x,
    );

    for x in [-0.5, 0.5] {
        let exact = if x > 0.0 { 3.0 * x * x } else { -2.0 };
        let name = format!("IF: d/dx at {x}");
        row(&name, branch_grad(x).1, branch_tape_grad(x).1, exact);
    }

    let (x, n) = (1.1_f64, 5);
    let exact = n as f64 * x.powi(n as i32 - 1);
    row(
        "WHILE: d/dx x^5 at 1.1",
        power_grad(x, n).1,
        power_tape_grad(x, n).1,
        exact,
    );

    let values = [1.5, -0.5, 2.0];
    let x = 1.2;
    let (v, (_, dx)) = tree_grad(&values, x, 0);
    let (_, (_, dx_tape)) = tree_tape_grad(&values, x, 0);
    row("TREE: d/dx (3 nodes, x^4) at 1.2", dx, dx_tape, 4.0 * v / x);

    let x = 0.5;
    let name = "free variable: d/dx x(x+1) at 0.5";
    row(
        name,
        free_variable_grad(x).1,
        free_variable_tape_grad(x).1,
        2.0 * x + 1.0,
    );

    println!("\nBoth backends agree bit for bit.");
}
