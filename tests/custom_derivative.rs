//! `#[revad::derivative(vjp = ..)]`: hand-written pullbacks used by `#[reverse]` callers.

use revad::check;
use revad::{derivative, reverse};

#[path = "common/bits.rs"]
mod bits;
use bits::checked;

// Each function under test also has a thin caller, `NAME_via`: its gradient goes through the
// split companions of `NAME` (for a `#[derivative]`, its registered pullback), and must agree
// with `NAME_grad` bit for bit.

/// A function whose body the macro could differentiate, with a pullback that is
/// deliberately wrong by a factor of 10: the gradient of a caller shows which one was used.
#[derivative(vjp = cube_scaled_pullback)]
fn cube(x: f64) -> f64 {
    x * x * x
}

fn cube_scaled_pullback(x: f64, _out: f64, seed: f64) -> f64 {
    10.0 * seed * 3.0 * x * x
}

#[reverse]
fn uses_cube(x: f64) -> f64 {
    cube(x) + x
}

#[reverse]
fn cube_via(x: f64) -> f64 {
    cube(x)
}

#[reverse]
fn uses_cube_via(x: f64) -> f64 {
    uses_cube(x)
}

#[test]
fn the_registered_pullback_is_used() {
    let (v, d) = checked(uses_cube(2.0), uses_cube_grad(2.0), uses_cube_via_grad(2.0));
    assert_eq!(v, 10.0);
    // 10 · 3x² + 1, not 3x² + 1.
    assert_eq!(d, 121.0);
    let (v, d) = checked(cube(2.0), cube_grad(2.0), cube_via_grad(2.0));
    assert_eq!((v, d), (8.0, 120.0));
}

/// An iterative solver: Newton's method for `y³ + y = a`. Differentiating the iterations
/// would be wasteful; the implicit function theorem gives `dy/da = 1 / (3y² + 1)`.
#[derivative(vjp = solve_pullback)]
fn solve(a: f64) -> f64 {
    let mut y = a.cbrt();
    for _ in 0..50 {
        y -= (y * y * y + y - a) / (3.0 * y * y + 1.0);
    }
    y
}

fn solve_pullback(_a: f64, y: f64, seed: f64) -> f64 {
    seed / (3.0 * y * y + 1.0)
}

#[reverse]
fn solve_twice(a: f64, b: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..3 {
        total += solve(a * (i as f64 + 1.0)) * b;
    }
    total
}

#[reverse]
fn solve_via(a: f64) -> f64 {
    solve(a)
}

#[reverse]
fn solve_twice_via(a: f64, b: f64) -> f64 {
    solve_twice(a, b)
}

#[test]
fn implicit_derivative_of_a_solver() {
    let (a, b) = (0.7, 1.3);
    let (_, (da, db)) = checked(
        solve_twice(a, b),
        solve_twice_grad(a, b),
        solve_twice_via_grad(a, b),
    );
    check::gradient(|p| solve_twice(p[0], p[1]), &[a, b], &[da, db]).unwrap();
    let (y, dy) = checked(solve(a), solve_grad(a), solve_via_grad(a));
    assert_eq!(dy, 1.0 / (3.0 * y * y + 1.0));
}

/// Several parameters, an array among them, and an inactive one.
#[derivative(vjp = weighted_pullback)]
fn weighted(w: &[f64], x: f64, scale: i32) -> f64 {
    let mut s = 0.0;
    for &v in w {
        s += v * x;
    }
    s * scale as f64
}

fn weighted_pullback(w: &[f64], x: f64, scale: i32, _out: f64, seed: f64) -> (Vec<f64>, f64) {
    let k = scale as f64 * seed;
    (w.iter().map(|_| k * x).collect(), k * w.iter().sum::<f64>())
}

#[reverse]
fn uses_weighted(w: &[f64], x: f64) -> f64 {
    weighted(w, x, 3).sin()
}

#[reverse]
fn weighted_via(w: &[f64], x: f64, scale: i32) -> f64 {
    weighted(w, x, scale)
}

#[reverse]
fn uses_weighted_via(w: &[f64], x: f64) -> f64 {
    uses_weighted(w, x)
}

#[test]
fn array_and_inactive_parameters() {
    let w = [0.2, -0.5, 0.9];
    let x = 0.4;
    let (_, (dw, dx)) = checked(
        uses_weighted(&w, x),
        uses_weighted_grad(&w, x),
        uses_weighted_via_grad(&w, x),
    );
    let mut at = w.to_vec();
    at.push(x);
    let mut grad = dw.clone();
    grad.push(dx);
    check::gradient(|p| uses_weighted(&p[..3], p[3]), &at, &grad).unwrap();
    let (_, (dw, dx)) = checked(
        weighted(&w, x, 3),
        weighted_grad(&w, x, 3),
        weighted_via_grad(&w, x, 3),
    );
    assert_eq!(dw, vec![3.0 * x; 3]);
    assert_eq!(dx, 3.0 * w.iter().sum::<f64>());
}
