//! The robustness test of `#[reverse]` (see `tests/robustness.rs`): valid programs mutated at
//! the token level, and programs with each unsupported construct, must give either a macro
//! error at a user span or an ordinary rustc error in user code; never a panic of the macro,
//! never an error inside generated code.
//!
//! - [`corpus`]: the programs (seeds, their mutants, unsupported constructs, `tests/ui/`);
//! - [`lex`] and [`mutate`]: token-level mutations, deterministic;
//! - [`scratch`]: a nested `cargo check` of all programs, with and without attributes;
//! - [`classify`]: which errors are allowed.
#![forbid(unsafe_code)]

pub mod classify;
pub mod corpus;
pub mod lex;
pub mod mutate;
pub mod scratch;
