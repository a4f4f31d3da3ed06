//! The stack a recursive gradient needs: `NAME_grad` of a recursive function runs its forward
//! and reverse companions recursively, one frame per level each. These tests run gradients at
//! depths that fit a fixed 4 MiB thread stack with room to spare, so that a regression in the
//! companions' frame sizes shows up as a stack overflow here (the process aborts with "thread
//! '..' has overflowed its stack", naming the case) rather than in users' programs.
//!
//! Measured in debug builds (what `cargo test` runs), Rust 1.95, x86-64: the gradient takes
//! 192, 514 and 369 bytes per level for `chain`, `chain_locals` and `walk` against 64, 176 and
//! 112 for the functions themselves; the depths below use about 55 % of the stack at those
//! sizes. `cargo run --release --example recursion_depth` measures both profiles.

use revad::{reverse, DualVec, Float as _};

#[path = "common/recursion.rs"]
mod recursion;
use recursion::{chain, chain_grad, chain_locals, chain_locals_grad, walk, walk_grad};

const STACK: usize = 4 << 20;

/// Runs `f` on a thread with a `STACK`-byte stack.
fn on_small_stack<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name(name.to_string())
        .stack_size(STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the gradient panicked")
}

/// The derivative of `chain` by forward differentiation of the same recurrence, in a loop.
fn chain_derivative(x: f64, n: usize) -> f64 {
    let (mut y, mut dy) = (x, 1.0);
    for _ in 0..n {
        (y, dy) = (y.sin() * 1.0001 + 0.5 * x, y.cos() * 1.0001 * dy + 0.5);
    }
    dy
}

#[test]
fn chain_gradient_at_depth_12000_on_a_4_mib_stack() {
    let n = 12_000;
    let (value, dx) = on_small_stack("chain_grad, depth 12 000, 4 MiB stack", move || {
        chain_grad(0.7, n)
    });
    assert_eq!(value, chain(0.7, n));
    let expected = chain_derivative(0.7, n);
    assert!(
        (dx - expected).abs() <= 1e-12 * expected.abs(),
        "{dx} vs {expected}"
    );
}

/// The gradient of `chain_locals` by dual numbers on the same recurrence, unrolled into loops:
/// the arguments of each level first, then the results from the deepest level up.
fn chain_locals_derivative(x: f64, y: f64, n: usize) -> [f64; 2] {
    type D = DualVec<f64, 2>;
    let c = D::constant;
    let mut args = vec![(D::variable(x, 0), D::variable(y, 1))];
    for _ in 0..n {
        let (x, y) = args[args.len() - 1];
        args.push((x * c(0.999), y + c(1e-6)));
    }
    let (bx, by) = args[n];
    let mut r = bx * by;
    for &(x, y) in args[..n].iter().rev() {
        let a = x.sin() * y;
        let b = y.cos() + x * c(0.5);
        let cc = (a * b).tanh();
        r = r * c(0.5) + a * cc - b.exp() * c(1e-3) + (r * a).sin() * c(1e-2);
    }
    r.eps
}

/// The gradient of `walk` in `(w, x)` by forward differentiation of the same recurrence, in a
/// loop: level `m` computes `w[m % len] cos(y) + x / 4` from the level below.
fn walk_derivative(w: &[f64], x: f64, n: usize) -> (Vec<f64>, f64) {
    let (mut y, mut dx, mut dw) = (x, 1.0, vec![0.0; w.len()]);
    for m in 1..=n {
        let k = m % w.len();
        let slope = -w[k] * y.sin();
        dx = slope * dx + 0.25;
        for d in dw.iter_mut() {
            *d *= slope;
        }
        dw[k] += y.cos();
        y = w[k] * y.cos() + x * 0.25;
    }
    (dw, dx)
}

fn assert_close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-10 * (1.0 + b.abs()), "{a} vs {b}");
}

#[test]
fn gradient_with_locals_across_the_call_at_depth_4500_on_a_4_mib_stack() {
    let n = 4_500;
    let (value, (dx, dy)) =
        on_small_stack("chain_locals_grad, depth 4 500, 4 MiB stack", move || {
            chain_locals_grad(0.3, 0.4, n)
        });
    assert_eq!(value, chain_locals(0.3, 0.4, n));
    // The function's stack is not the question here; a shallow finite-difference check is.
    let (_, (sx, sy)) = chain_locals_grad(0.3, 0.4, 20);
    revad::check::gradient(|p| chain_locals(p[0], p[1], 20), &[0.3, 0.4], &[sx, sy]).unwrap();
    // The deep one against dual numbers on the unrolled recurrence.
    let [ex, ey] = chain_locals_derivative(0.3, 0.4, n);
    assert_close(dx, ex);
    assert_close(dy, ey);
}

#[test]
fn gradient_with_an_array_sink_at_depth_6000_on_a_4_mib_stack() {
    let n = 6_000;
    let w: Vec<f64> = (0..7).map(|i| 0.5 + 0.1 * i as f64).collect();
    let w2 = w.clone();
    let (value, (dw, dx)) = on_small_stack("walk_grad, depth 6 000, 4 MiB stack", move || {
        walk_grad(&w2, 0.7, n)
    });
    assert_eq!(value, walk(&w, 0.7, n));
    let (ew, ex) = walk_derivative(&w, 0.7, n);
    assert_close(dx, ex);
    for (d, e) in dw.iter().zip(&ew) {
        assert_close(*d, *e);
    }
    assert_eq!(dw.len(), w.len());
}

/// A parameter the body assigns keeps a local adjoint in `rev` (reset at the assignment) and
/// adds it to the caller's sink at the end; the others add into the sink as they go.
#[reverse]
fn assigned_parameter(mut x: f64, y: f64) -> f64 {
    x = x.sin() * y;
    x * 2.0 + y
}

#[reverse]
fn calls_assigned_parameter(x: f64, y: f64, n: usize) -> f64 {
    if n == 0 {
        assigned_parameter(x * x, y) * y
    } else {
        calls_assigned_parameter(x, y * 0.9, n - 1) * x + assigned_parameter(y, x)
    }
}

#[test]
fn assigned_and_unassigned_parameters_through_calls() {
    for n in [0, 1, 5] {
        let (value, (dx, dy)) = calls_assigned_parameter_grad(0.6, 0.8, n);
        assert_eq!(value, calls_assigned_parameter(0.6, 0.8, n));
        revad::check::gradient(
            |p| calls_assigned_parameter(p[0], p[1], n),
            &[0.6, 0.8],
            &[dx, dy],
        )
        .unwrap();
    }
}
