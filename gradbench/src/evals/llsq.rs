//! `llsq`: y(x) = ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)², tᵢ = −1 + 2i/(n − 1), sᵢ = sign(tᵢ) (cmpad's
//! `llsq_obj`); `primal` is y, `gradient` its gradient in x from `primal_grad`.

use serde::Deserialize;
use serde_json::Value;

use super::{parse, runner, unknown_function, Runner};

/// The eval's input: the coefficients `x` and the number `n` of sample points.
#[derive(Deserialize)]
pub struct Input {
    /// The m coefficients.
    pub x: Vec<f64>,
    /// The number of points tᵢ.
    pub n: usize,
}

/// ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)² over `n` points.
///
/// The polynomial is evaluated by Horner's rule, highest coefficient first: its reverse sweep
/// needs only tᵢ (recomputed from `i`), so the gradient stores one value per point, not one per
/// term.
#[revad::reverse]
pub fn primal(x: &[f64], n: usize) -> f64 {
    let scale = 2.0 / ((n - 1) as f64);
    let mut sum = 0.0;
    for i in 0..n {
        let t = -1.0 + (i as f64) * scale;
        let sign = if t > 0.0 {
            1.0
        } else if t < 0.0 {
            -1.0
        } else {
            0.0
        };
        let mut p = 0.0;
        for j in (0..x.len()).rev() {
            p = p * t + x[j];
        }
        let r = sign - p;
        sum += r * r;
    }
    sum / 2.0
}

/// The gradient of [`primal`] in `x`.
pub fn gradient(x: &[f64], n: usize) -> Vec<f64> {
    primal_grad(x, n).1
}

/// `primal` or `gradient` of an [`Input`].
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let input: Input = parse(input)?;
    match function {
        "primal" => Ok(runner(input, |i| primal(&i.x, i.n), |y| (*y).into())),
        "gradient" => Ok(runner(input, |i| gradient(&i.x, i.n), |g| g.clone().into())),
        _ => Err(unknown_function("llsq", function)),
    }
}
