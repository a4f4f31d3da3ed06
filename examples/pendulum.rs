//! `&mut` parameters: `cargo run --example pendulum`.
//!
//! A pendulum integrated with RK4, its state updated in place by a step function that takes
//! `&mut [f64; 2]`, called in a loop by a simulation that takes the state by `&mut` too. The
//! gradient of the final angle with respect to the initial state, the length and the time
//! step goes back through every in-place update; finite differences agree.

use revad::{check, reverse};

const G: f64 = 9.81;

/// One RK4 step of θ'' = -(g / l) sin θ, on the state `[θ, ω]`, in place.
#[reverse]
fn rk4_step(state: &mut [f64; 2], length: f64, dt: f64) {
    let k = G / length;
    let (th, om) = (state[0], state[1]);
    let (a1, b1) = (om, -k * th.sin());
    let (a2, b2) = (om + 0.5 * dt * b1, -k * (th + 0.5 * dt * a1).sin());
    let (a3, b3) = (om + 0.5 * dt * b2, -k * (th + 0.5 * dt * a2).sin());
    let (a4, b4) = (om + dt * b3, -k * (th + dt * a3).sin());
    state[0] = th + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    state[1] = om + dt / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4);
}

/// Runs `steps` steps on `state` and returns the final angle.
#[reverse]
fn simulate(state: &mut [f64; 2], length: f64, dt: f64, steps: usize) -> f64 {
    for _ in 0..steps {
        rk4_step(state, length, dt);
    }
    state[0]
}

fn main() {
    let (length, dt, steps) = (1.2, 0.01, 200);
    let start = [0.6, 0.0];

    let mut state = start;
    let (angle, (d_state, d_length, d_dt)) = simulate_grad(&mut state, length, dt, steps);
    println!(
        "pendulum: θ(0) = {}, ω(0) = {}, l = {length} m, {steps} RK4 steps of {dt} s",
        start[0], start[1]
    );
    println!("θ(T)                 {angle:.12}");
    println!("state on return      {state:.12?}   (updated in place, as by `simulate`)");
    println!("∂θ(T)/∂(θ0, ω0)      {d_state:.12?}");
    println!("∂θ(T)/∂l             {d_length:.12}");
    println!("∂θ(T)/∂dt            {d_dt:.12}");

    // The same by finite differences over (θ0, ω0, l) ...
    let f = |p: &[f64]| {
        let mut s = [p[0], p[1]];
        simulate(&mut s, p[2], dt, steps)
    };
    let point = [start[0], start[1], length];
    let analytic = [d_state[0], d_state[1], d_length];
    println!(
        "finite diff.         {:.12?}",
        check::finite_difference(f, &point)
    );
    match check::gradient(f, &point, &analytic) {
        Ok(()) => println!("check                ok: #[reverse] agrees with finite differences"),
        Err(mismatch) => println!("check                FAILED: {mismatch}"),
    }
    // ... and over dt, with a step small beside dt itself.
    let at = |dt: f64| simulate(&mut start.clone(), length, dt, steps);
    let h = 1e-7;
    let numeric = (at(dt + h) - at(dt - h)) / (2.0 * h);
    println!(
        "∂θ(T)/∂dt, central   {numeric:.12}   (relative difference {:.1e})",
        (numeric - d_dt).abs() / d_dt.abs()
    );

    // A seed on the state on return: the sensitivity of the final angular velocity.
    let mut state = start;
    let (_, (d_state, _, _)) = simulate_vjp(&mut state, length, dt, steps, 0.0, [0.0, 1.0]);
    println!("∂ω(T)/∂(θ0, ω0)      {d_state:.12?}   (seed [0, 1] on the state on return)");
}
