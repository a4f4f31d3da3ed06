//! Peak memory of one gradient of the recurrence `x = sin(x)·a + x·b` (x0 = 0.5, a = 1e-6,
//! b = 1 − 1e-7), with the `#[revad::reverse]` version or the hand-written adjoint.
//!
//! Usage: `recurrence_memory ours|hand [steps]` (steps default to 10^6). It computes ONE
//! gradient with respect to (x0, a, b) and prints the value and the gradient. To compare peak
//! memory, build once and measure the built binary, so cargo's own memory is not counted:
//!
//! ```text
//! cargo build --release --example recurrence_memory
//! /usr/bin/time -v target/release/examples/recurrence_memory ours   # "Maximum resident set size"
//! /usr/bin/time -v target/release/examples/recurrence_memory hand
//! ```

#[path = "../tests/common/both.rs"]
#[macro_use]
mod both;

#[path = "../tests/common/workloads.rs"]
mod workloads;
use workloads::{recurrence_by_hand, recurrence_grad};

fn main() {
    let mut args = std::env::args().skip(1);
    let variant = args.next().unwrap_or_default();
    let steps: usize = match args.next() {
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("steps must be a non-negative integer, got {s:?}");
            std::process::exit(2)
        }),
        None => 1_000_000,
    };
    let (x0, a, b) = (0.5, 1e-6, 1.0 - 1e-7);
    let (value, (dx0, da, db)) = match variant.as_str() {
        "ours" => recurrence_grad(x0, a, b, steps),
        "hand" => recurrence_by_hand(x0, a, b, steps),
        _ => {
            eprintln!("usage: recurrence_memory ours|hand [steps]");
            std::process::exit(2)
        }
    };
    println!("{variant}: {steps} steps");
    println!("value   = {value:.17e}");
    println!("d/dx0   = {dx0:.17e}");
    println!("d/da    = {da:.17e}");
    println!("d/db    = {db:.17e}");
}
