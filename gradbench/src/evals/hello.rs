//! `hello`: `square` is x², `double` its derivative (the protocol's smoke test).

use serde::Deserialize;
use serde_json::Value;

use super::{parse, runner, unknown_function, Runner};

/// x².
#[revad::reverse]
pub fn square(x: f64) -> f64 {
    x * x
}

/// d(x²)/dx, from `square_grad`.
pub fn double(x: f64) -> f64 {
    square_grad(x).1
}

/// The input: GradBench sends a bare number; `{"x": number, "min_runs": .., "min_seconds": ..}`
/// is accepted too, so that a test can ask for repeated runs.
#[derive(Deserialize)]
#[serde(untagged)]
enum Input {
    Number(f64),
    Object { x: f64 },
}

/// `square` or `double` of the number `input` (or of its field `x`).
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let (Input::Number(x) | Input::Object { x }) = parse(input)?;
    match function {
        "square" => Ok(runner(x, |&x| square(x), |&y| y.into())),
        "double" => Ok(runner(x, |&x| double(x), |&y| y.into())),
        _ => Err(unknown_function("hello", function)),
    }
}
