//! `revad::checkpoint::revolve`: the gradient of a long loop in bounded memory. Its step is a
//! `#[reverse]` function and its reverse the generated `_vjp`; the checkpointed gradient is
//! compared with the one that keeps every state (bit for bit), with the tape of the same loop
//! written inline in a `#[reverse]` function (to rounding: the step's own `_vjp` adds a
//! parameter's adjoints within a step before adding them to the running sum), and with closed
//! forms.

use std::num::NonZeroUsize;

use revad::checkpoint::{revolve, snapshots, Stats};
use revad::reverse;

/// One step of a damped oscillator (symplectic Euler): state (x, v), parameters (ω², γ).
#[reverse]
fn step(s: [f64; 2], p: [f64; 2]) -> [f64; 2] {
    let dt = 0.01;
    let v = s[1] - dt * (p[0] * s[0] + p[1] * s[1]);
    [s[0] + dt * v, v]
}

/// The same loop written inline, differentiated by the tape: loss = x_n² + v_n.
#[reverse]
fn inline(s0: [f64; 2], p: [f64; 2], n: usize) -> f64 {
    let mut x = s0[0];
    let mut v = s0[1];
    for _ in 0..n {
        let dt = 0.01;
        let w = v - dt * (p[0] * x + p[1] * v);
        x += dt * w;
        v = w;
    }
    x * x + v
}

type Grad = ([f64; 2], [f64; 2]);

/// The gradient of x_n² + v_n by `revolve` under `budget` snapshots.
fn checkpointed(s0: [f64; 2], p: [f64; 2], n: usize, budget: NonZeroUsize) -> (f64, Grad, Stats) {
    let mut dp = [0.0; 2];
    let (end, ds0, stats) = revolve(
        n,
        budget,
        s0,
        |_, s| step(*s, p),
        |_, s, adj: [f64; 2]| {
            let (_, (ds, dpi)) = step_vjp(*s, p, adj);
            dp[0] += dpi[0];
            dp[1] += dpi[1];
            ds
        },
        |s| [2.0 * s[0], 1.0],
    );
    (end[0] * end[0] + end[1], (ds0, dp), stats)
}

/// The same gradient keeping every state.
fn stored(s0: [f64; 2], p: [f64; 2], n: usize) -> (f64, Grad) {
    let mut states = vec![s0];
    for _ in 0..n {
        let next = step(*states.last().unwrap(), p);
        states.push(next);
    }
    let end = states[n];
    let mut adj = [2.0 * end[0], 1.0];
    let mut dp = [0.0; 2];
    for i in (0..n).rev() {
        let (_, (ds, dpi)) = step_vjp(states[i], p, adj);
        dp[0] += dpi[0];
        dp[1] += dpi[1];
        adj = ds;
    }
    (end[0] * end[0] + end[1], (adj, dp))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn every_budget_matches_the_stored_loop_bit_for_bit() {
    let (s0, p) = ([1.0, -0.25], [4.0, 0.3]);
    for n in 0..=24 {
        let (value, grad) = stored(s0, p, n);
        for budget in 1..=n.max(1) {
            let (v, g, stats) = checkpointed(s0, p, n, NonZeroUsize::new(budget).unwrap());
            assert_eq!(v.to_bits(), value.to_bits(), "n {n}, budget {budget}");
            for k in 0..2 {
                assert_eq!(
                    g.0[k].to_bits(),
                    grad.0[k].to_bits(),
                    "n {n}, budget {budget}"
                );
                assert_eq!(
                    g.1[k].to_bits(),
                    grad.1[k].to_bits(),
                    "n {n}, budget {budget}"
                );
            }
            assert!(stats.max_snapshots <= budget);
        }
    }
}

#[test]
fn matches_the_inline_loop_of_the_tape() {
    let (s0, p) = ([0.5, 1.5], [9.0, 0.1]);
    for n in [1, 2, 7, 50, 300] {
        let (value, (ds0, dp)) = inline_grad(s0, p, n);
        for budget in [1, 2, 3, 5, n] {
            let (v, g, _) = checkpointed(s0, p, n, NonZeroUsize::new(budget).unwrap());
            assert_eq!(v.to_bits(), value.to_bits());
            for k in 0..2 {
                assert!(close(g.0[k], ds0[k]), "n {n}: {:?} vs {ds0:?}", g.0);
                assert!(close(g.1[k], dp[k]), "n {n}: {:?} vs {dp:?}", g.1);
            }
        }
    }
}

#[test]
fn closed_form_of_a_linear_recurrence() {
    // Without stiffness or damping (p = 0) the step is x ← x + dt·v, v ← v: x_n = x_0 +
    // n·dt·v_0, and the loss x_n² + v_n has ∂x_0 = 2x_n and ∂v_0 = 2x_n·n·dt + 1.
    let (s0, p, n) = ([0.75, -2.0], [0.0, 0.0], 1000);
    let (_, (ds0, _), stats) = checkpointed(s0, p, n, snapshots::<3>());
    let x_n = s0[0] + n as f64 * 0.01 * s0[1];
    assert!(close(ds0[0], 2.0 * x_n));
    assert!(close(ds0[1], 2.0 * x_n * n as f64 * 0.01 + 1.0));
    assert!(stats.max_snapshots <= 3);
    assert!(stats.recomputation() > 1.0);
}
