//! The evals: one module per GradBench eval, each with the eval's functions as plain Rust and
//! their derivatives from `#[revad::reverse]`.
//!
//! The interface every eval module follows:
//!
//! - `pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String>` reads
//!   the eval's JSON input into Rust values (untimed, reported as the `prepare` timing) and
//!   returns a [`Runner`] for `function`, or an error naming an unknown function;
//! - [`Runner::run`] computes the function once (what each `evaluate` timing measures), and
//!   [`Runner::output`] turns the last result into the JSON the eval expects (untimed).
//!
//! [`runner`] builds a `Runner` from an input, the function and its output conversion, and
//! [`parse`] reads an input with serde; [`prepare`] dispatches on the module name.

use serde::de::DeserializeOwned;
use serde_json::Value;

pub mod ba;
pub mod det;
pub mod gmm;
pub mod hello;
pub mod ht;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod ode;
pub mod particle;
pub mod saddle;

/// The evals this tool implements, sorted as in `evals.txt`; `define` succeeds for these.
pub const SUPPORTED: &[&str] = &[
    "ba", "det", "gmm", "hello", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle",
];

/// One evaluation, its input already converted: run it, then read its output.
pub trait Runner {
    /// Computes the function once, keeping the result for [`Runner::output`].
    fn run(&mut self);
    /// The result of the last [`Runner::run`] as the eval's JSON (`Null` before any run).
    fn output(&self) -> Value;
}

/// A [`Runner`] for the evaluation of `module`'s `function` on `input`.
pub fn prepare(module: &str, function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    match module {
        "det" => det::prepare(function, input),
        "gmm" => gmm::prepare(function, input),
        "hello" => hello::prepare(function, input),
        "llsq" => llsq::prepare(function, input),
        "lse" => lse::prepare(function, input),
        "lstm" => lstm::prepare(function, input),
        "ode" => ode::prepare(function, input),
        "ba" => ba::prepare(function, input),
        "ht" => ht::prepare(function, input),
        "kmeans" => kmeans::prepare(function, input),
        "particle" => particle::prepare(function, input),
        "saddle" => saddle::prepare(function, input),
        _ => Err(format!("module `{module}` is not supported")),
    }
}

/// The [`Runner`] that computes `function(&input)` and converts its result with `output`.
pub fn runner<I: 'static, O: 'static>(
    input: I,
    function: fn(&I) -> O,
    output: fn(&O) -> Value,
) -> Box<dyn Runner> {
    Box::new(Job {
        input,
        function,
        output,
        result: None,
    })
}

struct Job<I, O> {
    input: I,
    function: fn(&I) -> O,
    output: fn(&O) -> Value,
    result: Option<O>,
}

impl<I, O> Runner for Job<I, O> {
    fn run(&mut self) {
        // `black_box` keeps the compiler from hoisting the work out of the timed loop.
        self.result = Some((self.function)(std::hint::black_box(&self.input)));
    }

    fn output(&self) -> Value {
        self.result.as_ref().map_or(Value::Null, self.output)
    }
}

/// Reads `input` as a `T`, with serde's message on failure.
pub fn parse<T: DeserializeOwned>(input: &Value) -> Result<T, String> {
    T::deserialize(input).map_err(|e| format!("invalid input: {e}"))
}

/// The error for a function that `module` does not have.
pub fn unknown_function(module: &str, function: &str) -> String {
    format!("module `{module}` has no function `{function}`")
}

/// Row-major flattening of a matrix given as rows (`x: Float[][]` in an eval's input).
pub fn flatten(rows: &[Vec<f64>]) -> Vec<f64> {
    rows.concat()
}
