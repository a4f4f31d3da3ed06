//! `particle`: choose the control w that makes a charged particle, deflected by two fixed
//! charges at (10, 10 − w) and (10, 0), reach the ground at the origin.
//!
//! Two derivatives nest. The force on the particle at each Euler step is −∇ₓp(x; w), the
//! gradient of the potential in the position (the inner derivative, w captured); the control is
//! chosen by gradient descent on the squared miss distance E(w), whose derivative runs through
//! the whole simulation and so through the inner gradients (the outer derivative). The four
//! functions `ff`, `fr`, `rf`, `rr` take the outer then the inner derivative in forward (`f`)
//! or reverse (`r`) mode.

use super::Runner;
use revad::{forward, reverse};
use serde_json::Value;

/// The Euler time step.
const DT: f64 = 0.1;

/// The potential of the two charges at the position `x`, for the control `w`.
///
/// Only `x` is differentiated (`w` is what a closure would capture); `hessian` and the
/// forward attribute make `potential_grad` and `potential_jvp` differentiable in `w` from the
/// simulations below.
#[forward(wrt(x))]
#[reverse(hessian, wrt(x))]
pub fn potential(w: f64, x: [f64; 2]) -> f64 {
    let (ax, ay) = (x[0] - 10.0, x[1] - (10.0 - w));
    let (bx, by) = (x[0] - 10.0, x[1]);
    1.0 / (ax * ax + ay * ay).sqrt() + 1.0 / (bx * bx + by * by).sqrt()
}

// The squared miss distance E(w): Euler steps from x = (0, 8), ẋ = (0.75, 0) while the next
// position is above the ground, then a fractional step to y = 0. One body per inner mode; the
// outer attribute is `#[reverse]` and `#[forward]` on both.

/// E(w) with the force by the reverse-mode gradient of the potential.
#[forward]
#[reverse]
pub fn miss_inner_reverse(w: f64) -> f64 {
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    while x[1] + DT * v[1] > 0.0 {
        let (_, dp) = potential_grad(w, x);
        x[0] += DT * v[0];
        x[1] += DT * v[1];
        v[0] -= DT * dp[0];
        v[1] -= DT * dp[1];
    }
    let dt_f = -x[1] / v[1];
    let x_f = x[0] + dt_f * v[0];
    x_f * x_f
}

/// E(w) with the force by two forward-mode derivatives of the potential, one per axis.
#[forward]
#[reverse]
pub fn miss_inner_forward(w: f64) -> f64 {
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    while x[1] + DT * v[1] > 0.0 {
        let (_, dp0) = potential_jvp(w, x, [1.0, 0.0]);
        let (_, dp1) = potential_jvp(w, x, [0.0, 1.0]);
        x[0] += DT * v[0];
        x[1] += DT * v[1];
        v[0] -= DT * dp0;
        v[1] -= DT * dp1;
    }
    let dt_f = -x[1] / v[1];
    let x_f = x[0] + dt_f * v[0];
    x_f * x_f
}

/// E(w) and dE/dw in one mode combination.
pub type MissAndSlope = fn(f64) -> (f64, f64);

/// Outer forward, inner forward.
pub fn ff(w: f64) -> (f64, f64) {
    miss_inner_forward_jvp(w, 1.0)
}

/// Outer forward, inner reverse.
pub fn fr(w: f64) -> (f64, f64) {
    miss_inner_reverse_jvp(w, 1.0)
}

/// Outer reverse, inner forward.
pub fn rf(w: f64) -> (f64, f64) {
    miss_inner_forward_grad(w)
}

/// Outer reverse, inner reverse.
pub fn rr(w: f64) -> (f64, f64) {
    miss_inner_reverse_grad(w)
}

/// The combination named by a GradBench function name.
pub fn combination(function: &str) -> Option<MissAndSlope> {
    match function {
        "ff" => Some(ff),
        "fr" => Some(fr),
        "rf" => Some(rf),
        "rr" => Some(rr),
        _ => None,
    }
}

/// GradBench's one-dimensional gradient descent from `w0`: the rate starts at 10⁻⁵, doubles
/// after ten accepted steps in a row and halves on a step that does not decrease E; it stops
/// when |dE/dw| or the step is at most 10⁻⁵. Each trial point is evaluated once, for its value
/// and slope together.
pub fn argmin(miss_and_slope: MissAndSlope, w0: f64) -> f64 {
    const TOLERANCE: f64 = 1e-5;
    let (mut w, (mut miss, mut slope)) = (w0, miss_and_slope(w0));
    let mut rate = 1e-5;
    let mut accepted = 0;
    loop {
        if slope.abs() <= TOLERANCE {
            return w;
        }
        if accepted == 10 {
            rate *= 2.0;
            accepted = 0;
            continue;
        }
        let trial = w - rate * slope;
        if (w - trial).abs() <= TOLERANCE {
            return w;
        }
        let (trial_miss, trial_slope) = miss_and_slope(trial);
        if trial_miss < miss {
            (w, miss, slope) = (trial, trial_miss, trial_slope);
            accepted += 1;
        } else {
            rate /= 2.0;
            accepted = 0;
        }
    }
}

struct Particle {
    solve: MissAndSlope,
    w0: f64,
    w: f64,
}

impl Runner for Particle {
    fn run(&mut self) {
        self.w = argmin(self.solve, self.w0);
    }

    fn output(&self) -> Value {
        Value::from(self.w)
    }
}

/// Prepares `ff`, `fr`, `rf` or `rr` for the input `{"w": w0}`.
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let solve = combination(function).ok_or_else(|| format!("particle has no {function}"))?;
    let w0 = input["w"].as_f64().ok_or("particle: missing w")?;
    Ok(Box::new(Particle { solve, w0, w: w0 }))
}
