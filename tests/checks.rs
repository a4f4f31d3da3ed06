//! Checks and diagnostics in a body (`assert!` and its variants, `panic!`, `unreachable!`,
//! `println!` and the like): inactive statements kept as written, run by the forward sweep.
//! Each gradient is checked against its closed form; the assertions fire in `f_grad` as they
//! do in `f`. (`tests/cps-corpus` runs this file again under the CPS backend.)

use approx::assert_relative_eq;
use revad::reverse;

#[reverse]
fn checked_square(x: f64, n: usize) -> f64 {
    assert!(n > 0, "n must be positive, got {n}");
    debug_assert!(x.is_finite());
    let y = x * x;
    assert_eq!(n.min(n), n);
    assert_ne!(n, 0, "n = {}", n);
    debug_assert_eq!(y, x * x);
    debug_assert_ne!(n, usize::MAX);
    println!("checked_square: x = {x}, y = {y}");
    eprintln!("n = {n:>4}");
    print!("");
    eprint!("");
    y * n as f64
}

#[test]
fn checks_keep_the_gradient() {
    for (x, n) in [(1.5, 1), (-2.0, 3), (0.25, 7)] {
        let (v, d) = checked_square_grad(x, n);
        assert_eq!(v, checked_square(x, n));
        assert_relative_eq!(d, 2.0 * x * n as f64, max_relative = 1e-15);
    }
}

#[test]
#[should_panic(expected = "n must be positive, got 0")]
fn a_failing_assertion_panics_in_the_gradient_too() {
    let _ = checked_square_grad(1.0, 0);
}

/// `y` shadows `y`: the message names the second one, as in the function.
#[reverse]
fn shadowed_in_a_message(x: f64) -> f64 {
    let y = x * 2.0;
    let y = y + 0.5;
    assert!(y < 0.0, "y = {y}, first {}", x * 2.0);
    y
}

#[test]
#[should_panic(expected = "y = 2.5, first 2")]
fn an_inline_name_in_a_format_string_is_the_current_binding() {
    let _ = shadowed_in_a_message_grad(1.0);
}

#[reverse]
fn guarded(x: f64) -> f64 {
    if x > 100.0 {
        panic!("x = {x} is too large") // (a block's tail: a statement all the same)
    }
    let mut s = x;
    for k in 0..3 {
        if k > 5 {
            unreachable!("k = {}", k);
        }
        s = s * x + 1.0;
    }
    s
}

#[test]
fn panics_in_branches_that_do_not_run() {
    let x: f64 = 0.5;
    let (v, d) = guarded_grad(x);
    assert_eq!(v, guarded(x));
    // s = ((x·x + 1)·x + 1)·x + 1 = x⁴ + x² + x + 1: s' = 4x³ + 2x + 1.
    assert_relative_eq!(d, 4.0 * x.powi(3) + 2.0 * x + 1.0, max_relative = 1e-15);
}

#[test]
#[should_panic(expected = "x = 200 is too large")]
fn a_panic_in_a_branch_that_runs() {
    let _ = guarded_grad(200.0);
}

/// Checks whose arguments call closures that only read (`all`, `any` over the inputs).
#[reverse(wrt(l))]
fn checked_by_closures(l: &[f64], t: &[f64]) -> f64 {
    debug_assert!(t.iter().all(|&v| v >= 0.0));
    let v = 3.0;
    assert!(
        l.iter().zip(t).all(|(a, b)| *a * v > -100.0 * b),
        "out of range: {}",
        l.len()
    );
    l[0] * t[0] * v
}

#[test]
fn checks_calling_closures_that_read() {
    let (v, dl) = checked_by_closures_grad(&[2.0, 1.0], &[0.5, 1.0]);
    assert_eq!(v, 3.0);
    assert_eq!(dl, vec![1.5, 0.0]);
}

#[test]
#[should_panic(expected = "out of range: 2")]
fn checks_calling_closures_fire_in_the_gradient() {
    let _ = checked_by_closures_grad(&[-200.0, 1.0], &[0.5, 1.0]);
}
