//! A [GradBench](https://github.com/gradbench/gradbench) tool for the `revad` crate.
//!
//! GradBench's evals talk to a tool in JSON lines on its standard input and output
//! ([`protocol::serve`]); each eval's functions live in [`evals`], one module per eval, written
//! as plain Rust with `#[revad::reverse]` for every derivative: no derivative is written by hand.

pub mod evals;
pub mod protocol;
