//! The gradient of a 10⁸-step loop in bounded memory: binomial checkpointing
//! (`revad::checkpoint::revolve`) of a damped oscillator integrated by symplectic Euler.
//!
//! ```text
//! cargo run --release --example checkpoint [steps [snapshots [unchecked_steps]]]
//! ```
//!
//! Defaults: 10⁸ steps, 65 536 snapshots (1 MiB of states), the unchecked gradient measured at
//! 10⁷ steps and scaled (at 10⁸ its tape would not fit in 128 MiB). The step is a
//! `#[revad::reverse]` function; `revolve` keeps at most `snapshots` states and calls the
//! generated `step_vjp` for each step in reverse order. The gradient of the loss
//! `x_n² + v_n` with respect to the initial state and the parameters (ω², γ) is checked
//! against forward-mode dual numbers (`revad::DualVec`) run through the same recurrence, an
//! independent computation, and the line starting `ok` says it matches. Then it prints the
//! peak resident memory (`VmHWM`), the recomputation factor (calls of the step per step), and
//! the time against the unchecked gradient (the tape of the same loop written inline).
//!
//! The same loop with `#[revad::checkpoint(snapshots = 4096)]` on it (`attributed`) is
//! differentiated too, checked the same way, and timed: the attribute form of `revolve`.

use std::num::NonZeroUsize;
use std::time::Instant;

use revad::checkpoint::revolve;
use revad::DualVec;

/// One step: `v ← v − dt·(ω² x + γ v)`, `x ← x + dt·v`. `p = (ω², γ)`.
#[revad::reverse]
fn step(s: [f64; 2], p: [f64; 2]) -> [f64; 2] {
    let dt = 1e-6;
    let v = s[1] - dt * (p[0] * s[0] + p[1] * s[1]);
    [s[0] + dt * v, v]
}

/// The same loop written inline, for the unchecked gradient (the tape keeps every step).
#[revad::reverse]
fn unchecked(s0: [f64; 2], p: [f64; 2], n: usize) -> f64 {
    let mut x = s0[0];
    let mut v = s0[1];
    for _ in 0..n {
        let dt = 1e-6;
        let w = v - dt * (p[0] * x + p[1] * v);
        x += dt * w;
        v = w;
    }
    x * x + v
}

/// The same loop with `#[revad::checkpoint]`: `attributed_grad` keeps at most 4096 states of
/// the loop (its state is `x` and `v`) and recomputes the others, the loop's body as the step.
#[revad::reverse]
fn attributed(s0: [f64; 2], p: [f64; 2], n: usize) -> f64 {
    let mut x = s0[0];
    let mut v = s0[1];
    #[revad::checkpoint(snapshots = 4096)]
    for _ in 0..n {
        let dt = 1e-6;
        let w = v - dt * (p[0] * x + p[1] * v);
        x += dt * w;
        v = w;
    }
    x * x + v
}

/// The loss and its gradient (∂x₀, ∂v₀, ∂ω², ∂γ) by forward mode, one pass of 4 tangents.
fn forward_reference(s0: [f64; 2], p: [f64; 2], n: usize) -> (f64, [f64; 4]) {
    type D = DualVec<f64, 4>;
    let mut x = D::variable(s0[0], 0);
    let mut v = D::variable(s0[1], 1);
    let (w2, g) = (D::variable(p[0], 2), D::variable(p[1], 3));
    let dt = D::constant(1e-6);
    for _ in 0..n {
        let w = v - dt * (w2 * x + g * v);
        x += dt * w;
        v = w;
    }
    let loss = x * x + v;
    (loss.re, loss.eps)
}

/// The peak resident set so far, in MiB (`VmHWM` of `/proc/self/status`), where Linux has it.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn arg(args: &[String], i: usize, default: usize) -> usize {
    args.get(i).map_or(default, |s| {
        s.replace('_', "").parse().unwrap_or_else(|_| {
            eprintln!("usage: checkpoint [steps [snapshots [unchecked_steps]]], got {s:?}");
            std::process::exit(2)
        })
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = arg(&args, 0, 100_000_000);
    let Some(budget) = NonZeroUsize::new(arg(&args, 1, 1 << 16)) else {
        eprintln!("the snapshot budget must be at least 1");
        std::process::exit(2)
    };
    let n_unchecked = arg(&args, 2, n.min(10_000_000));
    let (s0, p) = ([1.0, 0.0], [4.0, 0.05]);

    let start = Instant::now();
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
    let time = start.elapsed().as_secs_f64();
    let peak = peak_mib();
    let loss = end[0] * end[0] + end[1];
    let grad = [ds0[0], ds0[1], dp[0], dp[1]];

    let (ref_loss, ref_grad) = forward_reference(s0, p, n);
    let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1e-300);
    let worst = grad
        .iter()
        .zip(&ref_grad)
        .map(|(a, b)| rel(*a, *b))
        .fold(0.0, f64::max);
    let matches = loss == ref_loss && worst < 1e-6;
    println!(
        "{} checkpointed gradient of {n} steps matches forward mode (largest relative \
         difference {worst:.1e})",
        if matches { "ok" } else { "FAILED" }
    );
    println!("loss {loss:.15e}");
    let show = |g: &[f64; 4]| g.map(|d| format!("{d:.12e}")).join(", ");
    println!("grad (x0, v0, w2, gamma) = {}", show(&grad));
    println!("fwd  (x0, v0, w2, gamma) = {}", show(&ref_grad));
    match peak {
        Some(mib) => println!("peak resident memory (VmHWM): {mib:.1} MiB"),
        None => println!("peak resident memory: n/a (no /proc/self/status)"),
    }
    println!(
        "snapshots: budget {budget}, at most {} held; recomputation factor {:.3} (calls of \
         the step per step)",
        stats.max_snapshots,
        stats.recomputation()
    );
    println!("checkpointed gradient: {time:.2} s");

    // The attribute form: the loop inline, `#[revad::checkpoint(snapshots = 4096)]` on it.
    let start = Instant::now();
    let (a_loss, (a_ds0, a_dp)) = attributed_grad(s0, p, n);
    let a_time = start.elapsed().as_secs_f64();
    let a_grad = [a_ds0[0], a_ds0[1], a_dp[0], a_dp[1]];
    let a_worst = a_grad
        .iter()
        .zip(&ref_grad)
        .map(|(a, b)| rel(*a, *b))
        .fold(0.0, f64::max);
    let a_matches = a_loss == ref_loss && a_worst < 1e-6;
    println!(
        "{} #[revad::checkpoint(snapshots = 4096)] gradient of {n} steps matches forward mode \
         (largest relative difference {a_worst:.1e}): {a_time:.2} s",
        if a_matches { "ok" } else { "FAILED" }
    );
    if let Some(mib) = peak_mib() {
        println!("peak resident memory after the attribute form: {mib:.1} MiB");
    }

    if n_unchecked > 0 {
        let start = Instant::now();
        let (value, _) = unchecked_grad(s0, p, n_unchecked);
        let t = start.elapsed().as_secs_f64();
        std::hint::black_box(value);
        let scaled = t * n as f64 / n_unchecked as f64;
        println!(
            "unchecked gradient (tape): {t:.2} s at {n_unchecked} steps, {scaled:.2} s scaled to \
             {n}; checkpointed / unchecked = {:.2}",
            time / scaled
        );
        if let Some(mib) = peak_mib() {
            println!("peak resident memory after the unchecked gradient: {mib:.1} MiB");
        }
    }
    if !matches || !a_matches {
        std::process::exit(1);
    }
}
