//! How deep a loop can run under the continuation-passing backend, `#[reverse(cps)]`, and
//! what it costs next to the tape backend (`#[reverse]`).
//!
//! Under `#[reverse(cps)]` a loop runs as the tape backend's loop does: its forward sweep
//! pushes what its reverse reads to the value stack, the rest of the body runs as the
//! loop's continuation, and the reverse sweep pops (an iteration's continuation,
//! defunctionalised). So a loop of `n` iterations should cost what the tape's costs, in time
//! and in memory per iteration, with no stack growth. (Until 2026-12, each iteration was one
//! level of a local recursive function whose frames stayed alive until its reverse: about
//! 340 bytes of stack per iteration, 3.1 GiB at 10^7 steps.) This example measures it on two
//! loop workloads:
//!
//! - `recurrence`: `x = x.sin() * a + x`, `n` steps, gradient with respect to `(x0, a)`;
//! - `dot`: `s += w[i] * x[i]` over `n` elements, gradient with respect to `w` and `x`.
//!
//! For n = 10^3, 10^4, ... it runs `f_grad` under both backends, checks that they agree
//! (1e-9 relative), and prints per n: the time of one CPS gradient and of one tape gradient
//! (the best of a few runs, more for small `n`; the inputs are built outside the timing),
//! their ratio, and the memory one gradient needs under each backend. The memory is
//! measured in a fresh child process (this example run again with `--peak`), so that
//! neither stack pages touched by an earlier run nor heap kept by the allocator hide it:
//! the growth of the peak resident set (`VmHWM` in `/proc/self/status`) over the resident
//! set once the inputs are built. That is Linux only; elsewhere it prints `n/a`. It stops
//! growing `n` once the next size is projected (linearly) to take more than about 20 s or
//! 4 GiB for one CPS gradient.
//!
//! Run it in release mode: `cargo run --release --example cps_depth`. Optional argument:
//! the largest power of ten to try (default 7).

use std::hint::black_box;
use std::time::{Duration, Instant};

use revad::reverse;

/// `x_{k+1} = sin(x_k) a + x_k`, `n` steps (tape backend).
#[reverse]
fn recurrence(x0: f64, a: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        x = x.sin() * a + x;
    }
    x
}

/// The same recurrence under the CPS backend.
#[reverse(cps)]
fn recurrence_cps(x0: f64, a: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        x = x.sin() * a + x;
    }
    x
}

/// The dot product (tape backend).
#[reverse]
#[allow(clippy::needless_range_loop, reason = "the index loop is the workload")]
fn dot(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s
}

/// The same dot product under the CPS backend.
#[reverse(cps)]
#[allow(clippy::needless_range_loop, reason = "the index loop is the workload")]
fn dot_cps(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s
}

/// Time budget for one CPS gradient at the next size (projected).
const MAX_SECS: f64 = 20.0;
/// Memory budget for one CPS gradient at the next size (projected).
const MAX_BYTES: f64 = 4.0 * 1024.0 * 1024.0 * 1024.0;

/// The workloads, by the name the child process is given.
const WORKLOADS: [(&str, &str); 2] = [
    (
        "recurrence",
        "recurrence: x = sin(x)·a + x, n steps, gradient w.r.t. (x0, a)",
    ),
    (
        "dot",
        "dot: s += w[i]·x[i], n elements, gradient w.r.t. (w, x)",
    ),
];

/// The inputs of a workload of size `n`.
enum Data {
    Recurrence { x0: f64, a: f64, n: usize },
    Dot { w: Vec<f64>, x: Vec<f64> },
}

fn data(workload: &str, n: usize) -> Data {
    match workload {
        "recurrence" => Data::Recurrence {
            x0: 0.5,
            a: 1e-6,
            n,
        },
        "dot" => Data::Dot {
            w: (0..n).map(|k| (k as f64 * 0.37).sin()).collect(),
            x: (0..n).map(|k| (k as f64 * 0.11).cos()).collect(),
        },
        _ => panic!("unknown workload {workload:?}"),
    }
}

/// One gradient, under the CPS backend or the tape backend.
#[derive(Debug)]
enum Grad {
    Recurrence(f64, (f64, f64)),
    Dot(f64, (Vec<f64>, Vec<f64>)),
}

impl Grad {
    /// The value followed by every gradient component.
    fn flat(&self) -> Vec<f64> {
        match self {
            Grad::Recurrence(v, (dx0, da)) => vec![*v, *dx0, *da],
            Grad::Dot(v, (dw, dx)) => {
                let mut out = vec![*v];
                out.extend_from_slice(dw);
                out.extend_from_slice(dx);
                out
            }
        }
    }
}

fn gradient(d: &Data, cps: bool) -> Grad {
    match (d, cps) {
        (&Data::Recurrence { x0, a, n }, true) => {
            let (v, g) = recurrence_cps_grad(black_box(x0), black_box(a), black_box(n));
            Grad::Recurrence(v, g)
        }
        (&Data::Recurrence { x0, a, n }, false) => {
            let (v, g) = recurrence_grad(black_box(x0), black_box(a), black_box(n));
            Grad::Recurrence(v, g)
        }
        (Data::Dot { w, x }, true) => {
            let (v, g) = dot_cps_grad(black_box(w), black_box(x));
            Grad::Dot(v, g)
        }
        (Data::Dot { w, x }, false) => {
            let (v, g) = dot_grad(black_box(w), black_box(x));
            Grad::Dot(v, g)
        }
    }
}

/// A line of `/proc/self/status` in bytes (`VmHWM`, `VmRSS`), where the platform has it.
fn status_bytes(key: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// The child process: builds the inputs, computes one gradient and prints how far the peak
/// resident set grew over the resident set before the gradient (bytes), or `n/a`.
fn child(workload: &str, n: usize, cps: bool) {
    let d = data(workload, n);
    // Resets VmHWM to the current resident set (Linux 4.0 and later).
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let base = status_bytes("VmRSS:");
    let g = black_box(gradient(&d, cps));
    let peak = status_bytes("VmHWM:");
    drop(g);
    match (reset, base, peak) {
        (true, Some(base), Some(peak)) => println!("{}", (peak - base).max(0.0)),
        _ => println!("n/a"),
    }
}

/// The memory of one gradient, measured by [`child`] in a fresh process.
fn peak_in_child(workload: &str, n: usize, cps: bool) -> Option<f64> {
    let exe = std::env::current_exe().ok()?;
    let backend = if cps { "cps" } else { "tape" };
    let out = std::process::Command::new(exe)
        .args(["--peak", workload, &n.to_string(), backend])
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "memory measurement of {workload}, n = {n}, {backend} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// The best time of `reps` gradients, and the last gradient.
fn time(reps: usize, d: &Data, cps: bool) -> (Duration, Grad) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..reps {
        drop(last.take());
        let start = Instant::now();
        let g = black_box(gradient(d, cps));
        best = best.min(start.elapsed());
        last = Some(g);
    }
    (best, last.expect("reps > 0"))
}

fn assert_agree(what: &str, a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    let scale = a.iter().chain(b).fold(0.0f64, |m, v| m.max(v.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let tol = 1e-9 * x.abs().max(y.abs()) + 1e-12 * scale;
        assert!(
            (x - y).abs() <= tol,
            "{what}: component {i} differs: {x} (cps) vs {y} (tape)"
        );
    }
}

fn fmt_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn fmt_bytes(b: Option<f64>) -> String {
    match b {
        None => "n/a".to_string(),
        Some(b) if b < 1024.0 * 1024.0 => format!("{:.0} KiB", b / 1024.0),
        Some(b) if b < 1024.0 * 1024.0 * 1024.0 => format!("{:.1} MiB", b / 1024.0 / 1024.0),
        Some(b) => format!("{:.2} GiB", b / 1024.0 / 1024.0 / 1024.0),
    }
}

/// Runs one workload for n = 10^3 up to 10^max_exp, within the budgets.
fn sweep(workload: &str, description: &str, max_exp: u32) {
    println!();
    println!("{description}");
    println!(
        "  {:>10} {:>10} {:>10} {:>9} {:>10} {:>10} {:>11}",
        "n", "cps", "tape", "cps/tape", "cps mem", "tape mem", "cps B/iter"
    );
    for exp in 3..=max_exp {
        let n = 10usize.pow(exp);
        let d = data(workload, n);
        // About 10^6 iterations in all, at least 1 run, at most 100.
        let reps = (1_000_000 / n).clamp(1, 100);
        let (cps_time, cps) = time(reps, &d, true);
        let cps = cps.flat();
        let (tape_time, tape) = time(reps, &d, false);
        assert_agree(&format!("{workload}, n = {n}"), &cps, &tape.flat());
        drop((d, cps, tape));
        let cps_mem = peak_in_child(workload, n, true);
        let tape_mem = peak_in_child(workload, n, false);
        println!(
            "  {:>10} {:>10} {:>10} {:>9.2} {:>10} {:>10} {:>11}",
            n,
            fmt_time(cps_time),
            fmt_time(tape_time),
            cps_time.as_secs_f64() / tape_time.as_secs_f64(),
            fmt_bytes(cps_mem),
            fmt_bytes(tape_mem),
            cps_mem.map_or_else(|| "n/a".to_string(), |b| format!("{:.0}", b / n as f64)),
        );
        if exp < max_exp {
            let next_secs = cps_time.as_secs_f64() * 10.0;
            let next_bytes = cps_mem.unwrap_or(0.0) * 10.0;
            if next_secs > MAX_SECS || next_bytes > MAX_BYTES {
                println!(
                    "  stopped: n = {} is projected at {:.0} s and {} for one CPS gradient",
                    n * 10,
                    next_secs,
                    fmt_bytes(Some(next_bytes))
                );
                break;
            }
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: cps_depth [LARGEST_POWER_OF_TEN, default 7]");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--peak") {
        // The child process of `peak_in_child`.
        let [_, workload, n, backend] = &args[..] else {
            usage()
        };
        let n = n.parse().unwrap_or_else(|_| usage());
        child(workload, n, backend == "cps");
        return;
    }
    let max_exp: u32 = match args.first() {
        Some(s) => s.parse().unwrap_or_else(|_| usage()),
        None => 7,
    };
    if cfg!(debug_assertions) {
        println!("note: a debug build; run with --release for meaningful times");
    }
    println!(
        "#[reverse(cps)] against the tape backend (#[reverse]), one f_grad per timing (best of"
    );
    println!("several runs); mem = growth of the peak resident set during one gradient in a fresh");
    println!("process (stack, stack segments and heap), n/a where /proc/self is not available.");
    for (workload, description) in WORKLOADS {
        sweep(workload, description, max_exp);
    }
}
