//! `ode`: s steps of the classical Runge–Kutta method (RK4) from y(0) = 0 to y(2) for
//! y₀' = x₀, yᵢ' = xᵢ yᵢ₋₁ (cmpad's `an_ode`); `primal` is y(2), `gradient` the gradient of
//! its last element in x, from `primal_vjp` with the last element's seed.

use serde::Deserialize;
use serde_json::Value;

use super::{parse, runner, unknown_function, Runner};

/// The eval's input.
#[derive(Deserialize)]
pub struct Input {
    /// The coefficients x (not empty).
    pub x: Vec<f64>,
    /// The number of steps.
    pub s: usize,
}

/// y(2) after `s` RK4 steps of y₀' = x₀, yᵢ' = xᵢ yᵢ₋₁ from y(0) = 0.
///
/// Each step is one pass over i: stage k of component i reads stage k − 1 of component i − 1,
/// so the four stages of yᵢ follow those of yᵢ₋₁, carried in scalars (`prev*`), with no
/// temporary arrays.
#[revad::reverse]
pub fn primal(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let h = 2.0 / (s as f64);
    let mut y = vec![0.0; n];
    for _ in 0..s {
        // Component 0: every stage is x₀.
        let y0 = y[0];
        let mut prev0 = y0;
        let mut prev1 = y0 + h * x[0] / 2.0;
        let mut prev2 = y0 + h * x[0] / 2.0;
        let mut prev3 = y0 + h * x[0];
        y[0] = y0 + h * x[0];
        for i in 1..n {
            let yi = y[i];
            let k1 = x[i] * prev0;
            let y1 = yi + h * k1 / 2.0;
            let k2 = x[i] * prev1;
            let y2 = yi + h * k2 / 2.0;
            let k3 = x[i] * prev2;
            let y3 = yi + h * k3;
            let k4 = x[i] * prev3;
            y[i] = yi + h * (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0;
            prev0 = yi;
            prev1 = y1;
            prev2 = y2;
            prev3 = y3;
        }
    }
    y
}

/// The gradient of the last element of [`primal`] in `x`.
pub fn gradient(x: &[f64], s: usize) -> Vec<f64> {
    let mut seed = vec![0.0; x.len()];
    if let Some(last) = seed.last_mut() {
        *last = 1.0;
    }
    primal_vjp(x, s, seed).1
}

/// `primal` or `gradient` of an [`Input`].
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let input: Input = parse(input)?;
    if input.x.is_empty() {
        return Err("`x` is empty".to_string());
    }
    match function {
        "primal" => Ok(runner(input, |i| primal(&i.x, i.s), |y| y.clone().into())),
        "gradient" => Ok(runner(input, |i| gradient(&i.x, i.s), |g| g.clone().into())),
        _ => Err(unknown_function("ode", function)),
    }
}
