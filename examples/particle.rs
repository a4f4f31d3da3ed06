//! Siskind & Pearlmutter's charged particle ("Using Programming Language Theory to Make
//! Automatic Differentiation Sound and Efficient", 2008; GradBench's `particle` eval): choose
//! a control w so that a charged particle, deflected by two fixed charges, lands at the
//! origin.
//!
//! The particle starts at x(0) = (0, 8) with velocity ẋ(0) = (0.75, 0). Two unit charges
//! sit at (10, 10 − w) and (10, 0); their potential at x is
//!
//! ```text
//! p(x; w) = 1/‖x − (10, 10 − w)‖ + 1/‖x − (10, 0)‖,
//! ```
//!
//! and the particle (unit mass and charge) is accelerated by ẍ = −∇ₓp(x; w). Euler steps of
//! Δt = 0.1 integrate the motion in an unbounded `while` loop until the next step would take
//! the particle below the ground; a last, fractional step Δt_f = −x₂/ẋ₂ lands it on y = 0 at
//! x₁(t_f). The miss distance is E(w) = x₁(t_f)², and w is chosen by gradient descent on it.
//!
//! Two derivatives nest:
//!
//! - the inner one, ∇ₓp(x; w), is the force at every step of the simulation, taken with the
//!   control w captured (a parameter of the potential left out of `wrt`);
//! - the outer one, dE/dw, differentiates the whole simulation, inner gradients included.
//!
//! Each can be taken in forward or reverse mode; the example runs all four combinations
//! (named outer-then-inner as GradBench's: `fr` is outer forward over inner reverse), prints
//! their iterates, checks that they agree, and checks the answer against the same descent
//! driven by central finite differences of E, which needs no AD at all.
//!
//! `cargo run --example particle`

use revad::{forward, reverse};

/// The Euler step.
const DT: f64 = 0.1;

/// The potential p(x; w) of the two charges at the particle's position x.
///
/// `wrt(x)` differentiates the position only, w being the captured control; `hessian` makes
/// `potential_grad` differentiable, and `#[forward]` with the same `wrt` makes
/// `potential_jvp` differentiable too, so the simulations below can call either and be
/// differentiated in w through them.
#[forward(wrt(x))]
#[reverse(hessian, wrt(x))]
fn potential(w: f64, x: [f64; 2]) -> f64 {
    let (ax, ay) = (x[0] - 10.0, x[1] - (10.0 - w));
    let (bx, by) = (x[0] - 10.0, x[1]);
    1.0 / (ax * ax + ay * ay).sqrt() + 1.0 / (bx * bx + by * by).sqrt()
}

// The miss distance E(w), once per combination. The four bodies are the same simulation;
// only the way they take ∇ₓp (inner) and the attribute (outer) differ.

/// E(w) with outer reverse over inner reverse.
#[reverse]
fn miss_rr(w: f64) -> f64 {
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

/// E(w) with outer reverse over inner forward: ∇ₓp by one Jacobian-vector product per axis.
#[reverse]
fn miss_rf(w: f64) -> f64 {
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

/// E(w) with outer forward over inner reverse.
#[forward]
fn miss_fr(w: f64) -> f64 {
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

/// E(w) with outer forward over inner forward.
#[forward]
fn miss_ff(w: f64) -> f64 {
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

/// E(w) in plain `f64`, the force by central differences of the potential: no AD anywhere.
fn miss_plain(w: f64) -> f64 {
    let h = 1e-6;
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    while x[1] + DT * v[1] > 0.0 {
        let dp0 = (potential(w, [x[0] + h, x[1]]) - potential(w, [x[0] - h, x[1]])) / (2.0 * h);
        let dp1 = (potential(w, [x[0], x[1] + h]) - potential(w, [x[0], x[1] - h])) / (2.0 * h);
        x[0] += DT * v[0];
        x[1] += DT * v[1];
        v[0] -= DT * dp0;
        v[1] -= DT * dp1;
    }
    let dt_f = -x[1] / v[1];
    let x_f = x[0] + dt_f * v[0];
    x_f * x_f
}

// E and dE/dw in each combination.

/// A function giving E(w) and dE/dw.
type MissAndSlope = fn(f64) -> (f64, f64);

fn miss_and_slope_rr(w: f64) -> (f64, f64) {
    miss_rr_grad(w)
}

fn miss_and_slope_rf(w: f64) -> (f64, f64) {
    miss_rf_grad(w)
}

fn miss_and_slope_fr(w: f64) -> (f64, f64) {
    miss_fr_jvp(w, 1.0)
}

fn miss_and_slope_ff(w: f64) -> (f64, f64) {
    miss_ff_jvp(w, 1.0)
}

/// E and its slope by central differences of `miss_plain`.
fn miss_and_slope_fd(w: f64) -> (f64, f64) {
    let h = 1e-5;
    let slope = (miss_plain(w + h) - miss_plain(w - h)) / (2.0 * h);
    (miss_plain(w), slope)
}

/// One step of the descent: the control, the miss distance there and its slope.
#[derive(Clone, Copy, Debug)]
struct Iterate {
    w: f64,
    miss: f64,
    slope: f64,
}

/// Gradient descent on E from w = 0, with the step-size rule of Siskind & Pearlmutter's
/// `multivariate_argmin`: a step that does not decrease E is refused and halves the rate, ten
/// accepted steps in a row double it; stop when the slope or the step is below 10⁻⁵.
fn argmin(miss_and_slope: MissAndSlope) -> Vec<Iterate> {
    const TOLERANCE: f64 = 1e-5;
    let (miss, slope) = miss_and_slope(0.0);
    let mut current = Iterate {
        w: 0.0,
        miss,
        slope,
    };
    let mut iterates = vec![current];
    let mut rate = 1e-5;
    let mut accepted = 0;
    while current.slope.abs() > TOLERANCE {
        if accepted == 10 {
            rate *= 2.0;
            accepted = 0;
        }
        let w = current.w - rate * current.slope;
        if (w - current.w).abs() <= TOLERANCE {
            break;
        }
        let (miss, slope) = miss_and_slope(w);
        if miss < current.miss {
            current = Iterate { w, miss, slope };
            iterates.push(current);
            accepted += 1;
        } else {
            rate /= 2.0;
            accepted = 0;
        }
    }
    iterates
}

fn main() {
    let combinations: [(&str, MissAndSlope); 4] = [
        ("rr (outer reverse, inner reverse)", miss_and_slope_rr),
        ("rf (outer reverse, inner forward)", miss_and_slope_rf),
        ("fr (outer forward, inner reverse)", miss_and_slope_fr),
        ("ff (outer forward, inner forward)", miss_and_slope_ff),
    ];

    let runs: Vec<Vec<Iterate>> = combinations.iter().map(|(_, f)| argmin(*f)).collect();
    for ((name, _), iterates) in combinations.iter().zip(&runs) {
        println!("{name}: {} accepted steps", iterates.len() - 1);
        let last = iterates.len() - 1;
        for (k, it) in iterates.iter().enumerate() {
            if k < 3 || k % 20 == 0 || k == last {
                println!(
                    "  w_{k:<3} = {:.12}   E = {:.6e}   dE/dw = {:+.6e}",
                    it.w, it.miss, it.slope
                );
            }
        }
    }

    // The four combinations take the same steps, up to rounding.
    let reference = &runs[0];
    for ((name, _), iterates) in combinations.iter().zip(&runs).skip(1) {
        assert_eq!(iterates.len(), reference.len(), "{name}");
        for (a, b) in reference.iter().zip(iterates) {
            assert!((a.w - b.w).abs() < 1e-10, "{name}: {a:?} vs {b:?}");
            assert!(
                (a.slope - b.slope).abs() < 1e-10 * (1.0 + a.slope.abs()),
                "{name}"
            );
        }
    }

    // The same descent driven by finite differences of E lands on the same control.
    let by_differences = argmin(miss_and_slope_fd);
    let w_fd = by_differences.last().expect("at least the start").w;
    let w_ad = reference.last().expect("at least the start").w;
    println!(
        "\nfinite differences: {} accepted steps, w = {w_fd:.12}",
        by_differences.len() - 1
    );
    println!(
        "nested AD:          w = {w_ad:.12}, miss distance {:.3e}",
        miss_plain(w_ad)
    );
    assert!((w_ad - w_fd).abs() < 1e-4, "{w_ad} vs {w_fd}");
    assert!(miss_plain(w_ad) < 1e-6);
    println!("all four combinations agree to 1e-10 and with the finite-difference solve");
}
