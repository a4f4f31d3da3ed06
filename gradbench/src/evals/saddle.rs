//! `saddle`: min over x ∈ ℝ² of max over y ∈ ℝ² of f(x, y) = (x₁² + x₂²) − (y₁² + y₂²), both
//! by GradBench's gradient descent, all from the same start point.
//!
//! The outer objective φ(x) = max_y f(x, y) runs the inner gradient ascent, whose gradient
//! ∇ᵧf(x, ·) is the inner derivative (x captured). The outer descent differentiates φ through
//! the whole inner ascent, the inner gradients included: a derivative of a function containing
//! derivatives. The four functions `ff`, `fr`, `rf`, `rr` take the outer then the inner
//! derivative in forward (`f`) or reverse (`r`) mode. Once x is found, y = argmax f(x, ·) is
//! found by one more (non-nested) ascent, with the outer mode's gradient.

use super::Runner;
use revad::{forward, reverse};
use serde_json::Value;

/// Stopping tolerance of the descents (gradient norm and step length).
const TOLERANCE: f64 = 1e-5;
/// Initial rate of the descents.
const RATE: f64 = 1e-5;

/// The payoff f(x, y); `y` differentiated (x is what a closure would capture), and `hessian`
/// with the forward attribute make `objective_grad` and `objective_jvp` differentiable in `x`.
#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
pub fn objective(x: [f64; 2], y: [f64; 2]) -> f64 {
    (x[0] * x[0] + x[1] * x[1]) - (y[0] * y[0] + y[1] * y[1])
}

/// φ(x) = f(x, ŷ), ŷ found by GradBench's descent on −f(x, ·) from `start`, with ∇ᵧf by
/// reverse mode.
#[forward(wrt(x))]
#[reverse(wrt(x))]
pub fn max_inner_reverse(x: [f64; 2], start: [f64; 2]) -> f64 {
    let mut y = [start[0], start[1]];
    let mut fy = -objective(x, y);
    let (_, g) = objective_grad(x, y);
    let mut gy = [-g[0], -g[1]];
    let mut rate = RATE;
    let mut accepted = 0;
    loop {
        if (gy[0] * gy[0] + gy[1] * gy[1]).sqrt() <= TOLERANCE {
            break;
        }
        if accepted == 10 {
            rate *= 2.0;
            accepted = 0;
            continue;
        }
        let t = [y[0] - rate * gy[0], y[1] - rate * gy[1]];
        let (d0, d1) = (y[0] - t[0], y[1] - t[1]);
        if (d0 * d0 + d1 * d1).sqrt() <= TOLERANCE {
            break;
        }
        let ft = -objective(x, t);
        if ft < fy {
            y[0] = t[0];
            y[1] = t[1];
            fy = ft;
            let (_, g) = objective_grad(x, y);
            gy[0] = -g[0];
            gy[1] = -g[1];
            accepted += 1;
        } else {
            rate /= 2.0;
            accepted = 0;
        }
    }
    objective(x, y)
}

/// φ(x) as [`max_inner_reverse`], with ∇ᵧf by two forward-mode derivatives.
#[forward(wrt(x))]
#[reverse(wrt(x))]
pub fn max_inner_forward(x: [f64; 2], start: [f64; 2]) -> f64 {
    let mut y = [start[0], start[1]];
    let mut fy = -objective(x, y);
    let (_, g0) = objective_jvp(x, y, [1.0, 0.0]);
    let (_, g1) = objective_jvp(x, y, [0.0, 1.0]);
    let mut gy = [-g0, -g1];
    let mut rate = RATE;
    let mut accepted = 0;
    loop {
        if (gy[0] * gy[0] + gy[1] * gy[1]).sqrt() <= TOLERANCE {
            break;
        }
        if accepted == 10 {
            rate *= 2.0;
            accepted = 0;
            continue;
        }
        let t = [y[0] - rate * gy[0], y[1] - rate * gy[1]];
        let (d0, d1) = (y[0] - t[0], y[1] - t[1]);
        if (d0 * d0 + d1 * d1).sqrt() <= TOLERANCE {
            break;
        }
        let ft = -objective(x, t);
        if ft < fy {
            y[0] = t[0];
            y[1] = t[1];
            fy = ft;
            let (_, g0) = objective_jvp(x, y, [1.0, 0.0]);
            let (_, g1) = objective_jvp(x, y, [0.0, 1.0]);
            gy[0] = -g0;
            gy[1] = -g1;
            accepted += 1;
        } else {
            rate /= 2.0;
            accepted = 0;
        }
    }
    objective(x, y)
}

/// GradBench's descent on a function given with its gradient: the rate starts at 10⁻⁵,
/// doubles after ten accepted steps in a row and halves on a step that does not decrease the
/// value; it stops when the gradient or the step is at most 10⁻⁵ long.
pub fn argmin(
    mut value_and_gradient: impl FnMut([f64; 2]) -> (f64, [f64; 2]),
    x0: [f64; 2],
) -> [f64; 2] {
    let norm = |v: [f64; 2]| (v[0] * v[0] + v[1] * v[1]).sqrt();
    let mut x = x0;
    let (mut fx, mut gx) = value_and_gradient(x);
    let mut rate = RATE;
    let mut accepted = 0;
    loop {
        if norm(gx) <= TOLERANCE {
            return x;
        }
        if accepted == 10 {
            rate *= 2.0;
            accepted = 0;
            continue;
        }
        let t = [x[0] - rate * gx[0], x[1] - rate * gx[1]];
        if norm([x[0] - t[0], x[1] - t[1]]) <= TOLERANCE {
            return x;
        }
        let (ft, gt) = value_and_gradient(t);
        if ft < fx {
            (x, fx, gx) = (t, ft, gt);
            accepted += 1;
        } else {
            rate /= 2.0;
            accepted = 0;
        }
    }
}

/// The saddle point `[x₁, x₂, y₁, y₂]` from `start`, for GradBench's function name
/// (`ff`, `fr`, `rf`, `rr`: outer mode, inner mode).
pub fn saddle(function: &str, start: [f64; 2]) -> Option<[f64; 4]> {
    let x = match function {
        "rr" => argmin(|x| max_inner_reverse_grad(x, start), start),
        "rf" => argmin(|x| max_inner_forward_grad(x, start), start),
        "fr" => argmin(
            |x| {
                let (v, d0) = max_inner_reverse_jvp(x, start, [1.0, 0.0]);
                let (_, d1) = max_inner_reverse_jvp(x, start, [0.0, 1.0]);
                (v, [d0, d1])
            },
            start,
        ),
        "ff" => argmin(
            |x| {
                let (v, d0) = max_inner_forward_jvp(x, start, [1.0, 0.0]);
                let (_, d1) = max_inner_forward_jvp(x, start, [0.0, 1.0]);
                (v, [d0, d1])
            },
            start,
        ),
        _ => return None,
    };
    // argmax_y f(x, y) = argmin_y −f(x, y), with the outer mode's gradient.
    let y = if function.starts_with('r') {
        argmin(
            |y| {
                let (v, g) = objective_grad(x, y);
                (-v, [-g[0], -g[1]])
            },
            start,
        )
    } else {
        argmin(
            |y| {
                let (v, g0) = objective_jvp(x, y, [1.0, 0.0]);
                let (_, g1) = objective_jvp(x, y, [0.0, 1.0]);
                (-v, [-g0, -g1])
            },
            start,
        )
    };
    Some([x[0], x[1], y[0], y[1]])
}

struct Saddle {
    function: String,
    start: [f64; 2],
    result: [f64; 4],
}

impl Runner for Saddle {
    fn run(&mut self) {
        self.result = saddle(&self.function, self.start).expect("checked in prepare");
    }

    fn output(&self) -> Value {
        Value::from(self.result.to_vec())
    }
}

/// Prepares `ff`, `fr`, `rf` or `rr` for the input `{"start": [s₁, s₂]}`.
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    if !["ff", "fr", "rf", "rr"].contains(&function) {
        return Err(format!("saddle has no {function}"));
    }
    let start = input["start"]
        .as_array()
        .filter(|s| s.len() == 2)
        .and_then(|s| Some([s[0].as_f64()?, s[1].as_f64()?]))
        .ok_or("saddle: start must be two numbers")?;
    Ok(Box::new(Saddle {
        function: function.to_string(),
        start,
        result: [0.0; 4],
    }))
}
