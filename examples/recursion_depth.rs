//! How deep a recursive function, its gradient and its two split companions can recurse on a
//! thread with a given stack, and the stack bytes each recursion level costs.
//!
//! ```text
//! cargo run --release --example recursion_depth            # 8 MiB stacks, like the main thread
//! cargo run --example recursion_depth -- 2097152           # debug build, 2 MiB stacks
//! ```
//!
//! For each workload and each of `primal` (the function itself), `grad` (`NAME_grad`), `fwd`
//! and `rev` (the forward and reverse companions alone, the other one run on a big stack), it
//! finds the largest depth that runs on a thread with that stack by bisection, running each
//! try in a child process (a stack overflow aborts the process), and prints that depth and
//! the stack size divided by it: the bytes per recursion level.
#![allow(
    missing_docs,
    reason = "an example binary; the workloads are documented where they are defined"
)]

#[path = "../tests/common/recursion.rs"]
mod recursion;
use recursion::{
    chain, chain_grad, chain_locals, chain_locals_grad, ping, ping_grad, walk, walk_grad,
};
use std::process::{Command, Stdio};

const WORKLOADS: [&str; 4] = ["chain", "chain_locals", "walk", "ping"];
const PARTS: [&str; 4] = ["primal", "grad", "fwd", "rev"];

/// Runs one part of one workload at `depth`; returns a value so nothing is optimised away.
fn run(workload: &str, part: &str, depth: usize, stack_bytes: usize) -> f64 {
    use revad::__private::{Discard, ValueStack};
    use std::hint::black_box;
    let w: Vec<f64> = (0..7).map(|i| 0.5 + 0.1 * i as f64).collect();
    let x = black_box(0.7);
    let n = black_box(depth);
    match (workload, part) {
        ("chain", "primal") => on_thread(stack_bytes, move || chain(x, n)),
        ("chain", "grad") => on_thread(stack_bytes, move || chain_grad(x, n).1),
        ("chain", "fwd") => on_thread(stack_bytes, move || {
            chain::fwd(x, n, &mut ValueStack::new())
        }),
        ("chain", "rev") => {
            let mut tape = forward_on_big_stack(move |s| chain::fwd(x, n, s));
            on_thread(stack_bytes, move || {
                let mut dx = 0.0;
                chain::rev(x, n, 1.0, &mut tape, &mut dx, Discard);
                dx
            })
        }
        ("chain_locals", "primal") => on_thread(stack_bytes, move || chain_locals(x, x, n)),
        ("chain_locals", "grad") => on_thread(stack_bytes, move || chain_locals_grad(x, x, n).1 .0),
        ("chain_locals", "fwd") => on_thread(stack_bytes, move || {
            chain_locals::fwd(x, x, n, &mut ValueStack::new())
        }),
        ("chain_locals", "rev") => {
            let mut tape = forward_on_big_stack(move |s| chain_locals::fwd(x, x, n, s));
            on_thread(stack_bytes, move || {
                let (mut dx, mut dy) = (0.0, 0.0);
                chain_locals::rev(x, x, n, 1.0, &mut tape, &mut dx, &mut dy, Discard);
                dx + dy
            })
        }
        ("walk", "primal") => on_thread(stack_bytes, move || walk(&w, x, n)),
        ("walk", "grad") => on_thread(stack_bytes, move || walk_grad(&w, x, n).1 .1),
        ("walk", "fwd") => on_thread(stack_bytes, move || {
            walk::fwd(&w, x, n, &mut ValueStack::new())
        }),
        ("walk", "rev") => {
            let w2 = w.clone();
            let mut tape = forward_on_big_stack(move |s| walk::fwd(&w2, x, n, s));
            on_thread(stack_bytes, move || {
                let (mut dw, mut dx) = (vec![0.0; w.len()], 0.0);
                walk::rev(&w, x, n, 1.0, &mut tape, &mut dw[..], &mut dx, Discard);
                dx + dw[0]
            })
        }
        ("ping", "primal") => on_thread(stack_bytes, move || ping(x, n)),
        ("ping", "grad") => on_thread(stack_bytes, move || ping_grad(x, n).1),
        ("ping", "fwd") => on_thread(stack_bytes, move || ping::fwd(x, n, &mut ValueStack::new())),
        ("ping", "rev") => {
            let mut tape = forward_on_big_stack(move |s| ping::fwd(x, n, s));
            on_thread(stack_bytes, move || {
                let mut dx = 0.0;
                ping::rev(x, n, 1.0, &mut tape, &mut dx, Discard);
                dx
            })
        }
        _ => {
            eprintln!("unknown workload or part: {workload} {part}");
            std::process::exit(2)
        }
    }
}

/// The forward companion on a big stack, so that only `rev` runs on the measured one.
fn forward_on_big_stack(
    fwd: impl FnOnce(&mut revad::__private::ValueStack) -> f64 + Send + 'static,
) -> revad::__private::ValueStack {
    on_thread(1 << 30, move || {
        let mut tape = revad::__private::ValueStack::new();
        let _ = fwd(&mut tape);
        tape
    })
}

fn on_thread<T: Send + 'static>(stack_bytes: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(stack_bytes)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("join")
}

/// Whether `part` of `workload` runs at `depth` on a `stack_bytes` stack, in a child process.
fn fits(workload: &str, part: &str, depth: usize, stack_bytes: usize) -> bool {
    Command::new(std::env::current_exe().expect("current_exe"))
        .args([
            "--child",
            workload,
            part,
            &depth.to_string(),
            &stack_bytes.to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("child")
        .success()
}

/// The largest depth that fits, within 0.5 %.
fn max_depth(workload: &str, part: &str, stack_bytes: usize) -> usize {
    let (mut lo, mut hi) = (1usize, 1024usize);
    while fits(workload, part, hi, stack_bytes) {
        lo = hi;
        hi *= 2;
    }
    while hi - lo > lo / 200 + 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(workload, part, mid, stack_bytes) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        let depth = args[3].parse().expect("depth");
        let stack_bytes = args[4].parse().expect("stack bytes");
        println!("{}", run(&args[1], &args[2], depth, stack_bytes));
        return;
    }
    let stack_bytes: usize = args
        .first()
        .map_or(8 << 20, |s| s.parse().expect("stack bytes"));
    let only: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!("{profile}, stack {stack_bytes} bytes: max depth (bytes per level)");
    print!("{:<14}", "workload");
    for part in PARTS {
        print!("{part:>22}");
    }
    println!("{:>14}", "primal/grad");
    for workload in WORKLOADS {
        if !only.is_empty() && !only.contains(&workload) {
            continue;
        }
        print!("{workload:<14}");
        let mut depths = Vec::new();
        for part in PARTS {
            let d = max_depth(workload, part, stack_bytes);
            depths.push(d);
            let cell = format!("{d} ({})", stack_bytes / d);
            print!("{cell:>22}");
            use std::io::Write;
            std::io::stdout().flush().ok();
        }
        println!("{:>14.2}", depths[0] as f64 / depths[1] as f64);
    }
}
