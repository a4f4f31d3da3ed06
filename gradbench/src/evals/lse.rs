//! `lse`: log Σᵢ exp(xᵢ), computed stably as a + log Σᵢ exp(xᵢ − a) with a = maxᵢ xᵢ, from
//! its primitive operations; `gradient` from `primal_grad`.

use serde::Deserialize;
use serde_json::Value;

use super::{parse, runner, unknown_function, Runner};

/// The eval's input.
#[derive(Deserialize)]
pub struct Input {
    /// The vector x (not empty).
    pub x: Vec<f64>,
}

/// a + log Σᵢ exp(xᵢ − a), a = maxᵢ xᵢ.
///
/// The maximum is read from `x` at the index of the largest element, so its loop holds no
/// float operation for the reverse sweep to undo.
#[revad::reverse]
pub fn primal(x: &[f64]) -> f64 {
    let mut k = 0;
    for i in 1..x.len() {
        if x[i] > x[k] {
            k = i;
        }
    }
    let a = x[k];
    let mut s = 0.0;
    for &xi in x {
        s += (xi - a).exp();
    }
    s.ln() + a
}

/// The gradient of [`primal`].
pub fn gradient(x: &[f64]) -> Vec<f64> {
    primal_grad(x).1
}

/// `primal` or `gradient` of an [`Input`].
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let input: Input = parse(input)?;
    if input.x.is_empty() {
        return Err("`x` is empty".to_string());
    }
    match function {
        "primal" => Ok(runner(input, |i| primal(&i.x), |y| (*y).into())),
        "gradient" => Ok(runner(input, |i| gradient(&i.x), |g| g.clone().into())),
        _ => Err(unknown_function("lse", function)),
    }
}
