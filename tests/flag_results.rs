//! Helpers that return a `bool` (or an integer) beside their `&mut` float outputs, called
//! from annotated code: the whole condition of an `if` or a `while` (the call is made before
//! the test, its writes differentiated), a statement, or bound with its type (`let done: bool
//! = step(..)`). Checked against closed forms and finite differences of the primal, in f64 and
//! f32.

#![allow(
    clippy::assign_op_pattern,
    reason = "the forms under test are written as users write them"
)]

use approx::assert_relative_eq;
use revad::reverse;

/// `x ← x·y`; whether the result passed 1.
#[reverse]
fn step(x: &mut f64, y: f64) -> bool {
    *x = *x * y;
    *x > 1.0
}

/// The same in single precision.
#[reverse]
fn step32(x: &mut f32, y: f32) -> bool {
    *x = *x * y;
    *x > 1.0
}

/// `2·x·y` when `x·y` passes 1, else `x·y`.
#[reverse]
fn branch(x: f64, y: f64) -> f64 {
    let mut a = x;
    if step(&mut a, y) {
        a * 2.0
    } else {
        a
    }
}

/// The same in single precision, with the call in parentheses.
#[reverse]
fn branch32(x: f32, y: f32) -> f32 {
    let mut a = x;
    #[allow(unused_parens, reason = "the form under test")]
    if (step32(&mut a, y)) {
        a * 2.0
    } else {
        a
    }
}

/// Steps and square roots while the step passes 1, at most three times.
#[reverse]
fn iterate(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut n = 0;
    while step(&mut a, y) && n < 3 {
        a = a.sqrt();
        n += 1;
    }
    a
}

/// The flag bound by `let` with its type.
#[reverse]
fn bound(x: f64, y: f64) -> f64 {
    let mut a = x;
    let big: bool = step(&mut a, y);
    if big {
        a
    } else {
        a * a
    }
}

/// The flag ignored: a statement.
#[reverse]
fn ignored(x: f64, y: f64) -> f64 {
    let mut a = x;
    step(&mut a, y);
    a.sin()
}

/// `x ← 0.9·√x` until `x ≤ 1`; the number of steps.
#[reverse]
fn shrink(x: &mut f64) -> usize {
    let mut n = 0;
    while *x > 1.0 {
        *x = x.sqrt() * 0.9;
        n += 1;
    }
    n
}

/// `x·s` after shrinking `x`, plus the number of steps.
#[reverse]
fn shrunk(x: f64, s: f64) -> f64 {
    let mut a = x;
    let n: usize = shrink(&mut a);
    a * s + n as f64
}

fn fd2(f: impl Fn(f64, f64) -> f64, x: f64, y: f64) -> (f64, f64) {
    let h = 1e-6;
    (
        (f(x + h, y) - f(x - h, y)) / (2.0 * h),
        (f(x, y + h) - f(x, y - h)) / (2.0 * h),
    )
}

#[test]
fn the_helper_returns_its_flag_and_differentiates_its_output() {
    let mut x = 2.0;
    let (flag, (dx, dy)) = step_vjp(&mut x, 3.0, 1.0);
    assert!(flag);
    assert_eq!(x, 6.0);
    assert_eq!((dx, dy), (3.0, 2.0));
    let mut x = 0.1;
    let (flag, (dx, dy)) = step_vjp(&mut x, 3.0, 0.5);
    assert!(!flag);
    assert_eq!((dx, dy), (1.5, 0.05));
    let mut x = 2.0f32;
    let (flag, (dx, dy)) = step32_vjp(&mut x, 3.0, 1.0);
    assert!(flag);
    assert_eq!((x, dx, dy), (6.0, 3.0, 2.0));
}

#[test]
fn a_flag_as_the_condition_of_an_if() {
    for (x, y) in [(2.0, 3.0), (0.2, 3.0)] {
        let (v, (dx, dy)) = branch_grad(x, y);
        assert_eq!(v, branch(x, y));
        let k = if x * y > 1.0 { 2.0 } else { 1.0 };
        assert_eq!((dx, dy), (k * y, k * x));
    }
    let (v, (dx, dy)) = branch32_grad(2.0, 3.0);
    assert_eq!((v, dx, dy), (12.0, 6.0, 4.0));
    let (v, (dx, dy)) = branch32_grad(0.25, 2.0);
    assert_eq!((v, dx, dy), (0.5, 2.0, 0.25));
}

#[test]
fn a_flag_in_the_condition_of_a_while() {
    for (x, y) in [(2.0, 3.0), (0.2, 3.0), (0.5, 2.5)] {
        let (v, (dx, dy)) = iterate_grad(x, y);
        assert_eq!(v, iterate(x, y));
        let (fx, fy) = fd2(iterate, x, y);
        assert_relative_eq!(dx, fx, max_relative = 1e-7);
        assert_relative_eq!(dy, fy, max_relative = 1e-7);
    }
}

#[test]
fn a_flag_bound_or_ignored() {
    for (x, y) in [(2.0, 3.0), (0.2, 3.0)] {
        let (v, (dx, dy)) = bound_grad(x, y);
        assert_eq!(v, bound(x, y));
        // x·y when it passes 1, (x·y)² otherwise.
        let (ex, ey) = match x * y > 1.0 {
            true => (y, x),
            false => (2.0 * x * y * y, 2.0 * x * x * y),
        };
        assert_relative_eq!(dx, ex, max_relative = 1e-15);
        assert_relative_eq!(dy, ey, max_relative = 1e-15);
        let (v, (dx, dy)) = ignored_grad(x, y);
        assert_eq!(v, ignored(x, y));
        let c = (x * y).cos();
        assert_relative_eq!(dx, c * y, max_relative = 1e-15);
        assert_relative_eq!(dy, c * x, max_relative = 1e-15);
    }
}

#[test]
fn an_integer_result_beside_an_output() {
    // x_{k+1} = 0.9·√x_k: d x_{k+1} / d x_k = 0.45 / √x_k along the primal's steps.
    let (mut a, mut chain, mut steps) = (50.0f64, 1.0, 0);
    while a > 1.0 {
        chain *= 0.45 / a.sqrt();
        a = a.sqrt() * 0.9;
        steps += 1;
    }
    let mut x = 50.0;
    let (n, dx) = shrink_vjp(&mut x, 1.0);
    let mut primal = 50.0;
    assert_eq!(n, shrink(&mut primal));
    assert_eq!((n, x), (steps, primal));
    assert_relative_eq!(dx, chain, max_relative = 1e-14);
    let h = 1e-5;
    let after = |mut x: f64| {
        shrink(&mut x);
        x
    };
    assert_relative_eq!(
        dx,
        (after(50.0 + h) - after(50.0 - h)) / (2.0 * h),
        max_relative = 1e-6
    );
    let (v, (dx, ds)) = shrunk_grad(50.0, 1.5);
    assert_eq!(v, shrunk(50.0, 1.5));
    assert_relative_eq!(dx, 1.5 * chain, max_relative = 1e-14);
    assert_eq!(ds, a);
}

/// Forward mode: `x ← x·y`; whether the result passed 1.
#[revad::forward]
fn step_fwd(x: &mut f64, y: f64) -> bool {
    *x = *x * y;
    *x > 1.0
}

/// Forward mode: `2·x·y` when `x·y` passes 1, else `x·y`.
#[revad::forward]
fn branch_fwd(x: f64, y: f64) -> f64 {
    let mut a = x;
    if step_fwd(&mut a, y) {
        a * 2.0
    } else {
        a
    }
}

#[test]
fn forward_mode_flags() {
    let (mut x, mut dx) = (2.0, 1.0);
    let (flag, ()) = step_fwd_jvp(&mut x, 3.0, &mut dx, 0.5);
    assert!(flag);
    // d(x·y) = y·dx + x·dy.
    assert_eq!((x, dx), (6.0, 3.0 + 2.0 * 0.5));
    for (x, y) in [(2.0, 3.0), (0.2, 3.0)] {
        let k = if x * y > 1.0 { 2.0 } else { 1.0 };
        assert_eq!(branch_fwd_jvp(x, y, 1.0, 0.0), (branch_fwd(x, y), k * y));
        assert_eq!(branch_fwd_jvp(x, y, 0.0, 1.0), (branch_fwd(x, y), k * x));
    }
}

/// The continuation-passing backend.
#[cfg(feature = "cps")]
mod cps {
    /// `x ← x·y`; whether the result passed 1.
    #[revad::reverse(cps)]
    fn step_cps(x: &mut f64, y: f64) -> bool {
        *x = *x * y;
        *x > 1.0
    }

    /// `2·x·y` when `x·y` passes 1, else `x·y`.
    #[revad::reverse(cps)]
    fn branch_cps(x: f64, y: f64) -> f64 {
        let mut a = x;
        if step_cps(&mut a, y) {
            a * 2.0
        } else {
            a
        }
    }

    #[test]
    fn flags_under_cps() {
        let mut x = 2.0;
        assert_eq!(step_cps_vjp(&mut x, 3.0, 1.0), (true, (3.0, 2.0)));
        assert_eq!(x, 6.0);
        for (x, y) in [(2.0, 3.0), (0.2, 3.0)] {
            let k = if x * y > 1.0 { 2.0 } else { 1.0 };
            assert_eq!(branch_cps_grad(x, y), (branch_cps(x, y), (k * y, k * x)));
        }
    }
}
