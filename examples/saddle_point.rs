//! The saddle point of a two-player zero-sum game by nested gradient methods, after Pearlmutter
//! & Siskind ("Lambda the Ultimate Backpropagator", section 5) and GradBench's `saddle` eval.
//!
//! Player x pays f(x, y) to player y, x minimising and y maximising:
//!
//! ```text
//! min_x max_y f(x, y),   x, y ∈ ℝ²,
//! f(x, y) = x₁² + x₂² − y₁² − y₂² + x₁y₂ − x₂y₁ + x₁ − x₂ + y₁ + ¼(x₁ + 0.4)⁴ − ¼(y₂ + 0.2)⁴.
//! ```
//!
//! f is strictly convex in x and strictly concave in y, so the game has exactly one saddle,
//! where ∇ₓf = 0 and ∇ᵧf = 0. The quartic terms (which make the game non-quadratic) have zero
//! gradient at x₁ = −0.4 and y₂ = −0.2, so the saddle is that of the quadratic part:
//!
//! ```text
//! ∂f/∂x₁ = 2x₁ + y₂ + 1 = 0      ∂f/∂y₁ = −2y₁ − x₂ + 1 = 0
//! ∂f/∂x₂ = 2x₂ − y₁ − 1 = 0      ∂f/∂y₂ = −2y₂ + x₁    = 0
//! ⇒  x* = (−0.4, 0.6),  y* = (0.2, −0.2).
//! ```
//!
//! The solver nests two gradient methods, as the paper's does:
//!
//! - the inner player answers x by gradient ASCENT on y ↦ f(x, y), from a fixed start, for a
//!   fixed number of steps: ŷ(x). Its gradient ∇ᵧf(x, y) is taken at the current outer x,
//!   which the payoff receives as a parameter left out of `wrt`: the closure `λy. f(x, y)`
//!   capturing the outer point, in the paper's terms;
//! - the outer player runs gradient DESCENT on φ(x) = f(x, ŷ(x)) ≈ max_y f(x, y). Its
//!   gradient differentiates through the whole inner ascent, so through ∇ᵧf itself: a
//!   derivative of a derivative, with the inner derivative depending on the outer variable.
//!
//! Each of the two derivatives can be taken in forward or reverse mode: four combinations,
//! named outer-then-inner like GradBench's (`fr`: outer forward over inner reverse). All four
//! compute the same numbers up to rounding; the example prints their iterates and checks that.
//!
//! `cargo run --example saddle_point`

use revad::{forward, reverse};

/// Where both players start, in every descent and ascent (GradBench's `start`).
const START: [f64; 2] = [1.0, 1.0];
/// Step size of the inner ascent: ∇ᵧ²f = −2I near the saddle, so each step shrinks the
/// distance to the inner maximiser by about half.
const INNER_RATE: f64 = 0.25;
/// Number of inner ascent steps: the inner maximiser is reached to about 2⁻⁴⁰.
const INNER_STEPS: usize = 40;
/// Step size of the outer descent: ∇²φ = 2.5 I near the saddle, so each step halves the
/// distance to x* too.
const OUTER_RATE: f64 = 0.2;
/// Number of outer descent steps.
const OUTER_STEPS: usize = 50;

/// The payoff f(x, y) that x pays to y.
///
/// `wrt(y)` differentiates the inner player's variable only; `hessian` makes `payoff_grad`
/// differentiable, and `#[forward]` with the same `wrt` makes `payoff_jvp` differentiable too,
/// so that the outer functions below can call either and be differentiated in x through them.
#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
fn payoff(x: [f64; 2], y: [f64; 2]) -> f64 {
    let quadratic = x[0] * x[0] + x[1] * x[1] - y[0] * y[0] - y[1] * y[1];
    let coupling = x[0] * y[1] - x[1] * y[0];
    let linear = x[0] - x[1] + y[0];
    let quartic = 0.25 * (x[0] + 0.4).powi(4) - 0.25 * (y[1] + 0.2).powi(4);
    quadratic + coupling + linear + quartic
}

/// The inner player's answer ŷ(x), by gradient ascent with ∇ᵧf in reverse mode.
#[forward]
#[reverse]
fn argmax_reverse(x: [f64; 2]) -> [f64; 2] {
    // Element by element: `let mut y = START;` is not taken as an array by #[reverse].
    let mut y = [START[0], START[1]];
    for _ in 0..INNER_STEPS {
        let (_, dy) = payoff_grad(x, y);
        y[0] += INNER_RATE * dy[0];
        y[1] += INNER_RATE * dy[1];
    }
    y
}

/// The inner player's answer ŷ(x), by gradient ascent with ∇ᵧf in forward mode: one
/// Jacobian-vector product per direction of y.
#[forward]
#[reverse]
fn argmax_forward(x: [f64; 2]) -> [f64; 2] {
    // Element by element: `let mut y = START;` is not taken as an array by #[reverse].
    let mut y = [START[0], START[1]];
    for _ in 0..INNER_STEPS {
        let (_, dy0) = payoff_jvp(x, y, [1.0, 0.0]);
        let (_, dy1) = payoff_jvp(x, y, [0.0, 1.0]);
        y[0] += INNER_RATE * dy0;
        y[1] += INNER_RATE * dy1;
    }
    y
}

// The outer objective φ(x) = f(x, ŷ(x)), once per combination. (`#[reverse]` cannot see a
// callee's return type, so the array result of `argmax_*` is bound with its type.)

/// φ with outer reverse over inner reverse.
#[reverse]
fn max_payoff_rr(x: [f64; 2]) -> f64 {
    let y: [f64; 2] = argmax_reverse(x);
    payoff(x, y)
}

/// φ with outer reverse over inner forward.
#[reverse]
fn max_payoff_rf(x: [f64; 2]) -> f64 {
    let y: [f64; 2] = argmax_forward(x);
    payoff(x, y)
}

/// φ with outer forward over inner reverse.
#[forward]
fn max_payoff_fr(x: [f64; 2]) -> f64 {
    let y: [f64; 2] = argmax_reverse(x);
    payoff(x, y)
}

/// φ with outer forward over inner forward.
#[forward]
fn max_payoff_ff(x: [f64; 2]) -> f64 {
    let y: [f64; 2] = argmax_forward(x);
    payoff(x, y)
}

// ∇φ in each combination: one reverse sweep, or one forward sweep per direction of x.

fn outer_gradient_rr(x: [f64; 2]) -> [f64; 2] {
    max_payoff_rr_grad(x).1
}

fn outer_gradient_rf(x: [f64; 2]) -> [f64; 2] {
    max_payoff_rf_grad(x).1
}

fn outer_gradient_fr(x: [f64; 2]) -> [f64; 2] {
    [
        max_payoff_fr_jvp(x, [1.0, 0.0]).1,
        max_payoff_fr_jvp(x, [0.0, 1.0]).1,
    ]
}

fn outer_gradient_ff(x: [f64; 2]) -> [f64; 2] {
    [
        max_payoff_ff_jvp(x, [1.0, 0.0]).1,
        max_payoff_ff_jvp(x, [0.0, 1.0]).1,
    ]
}

/// One way of solving the game: the outer gradient, and the inner ascent in the same inner
/// mode for the final answer of the y player.
struct Combination {
    name: &'static str,
    outer_gradient: fn([f64; 2]) -> [f64; 2],
    argmax: fn([f64; 2]) -> [f64; 2],
}

/// What a solve produced: the outer iterates x₀, x₁, .. and the saddle it ends at.
struct Solution {
    iterates: Vec<[f64; 2]>,
    x: [f64; 2],
    y: [f64; 2],
}

/// GradBench's two steps: x by gradient descent on φ (nested), then y = ŷ(x) (not nested).
fn solve(combination: &Combination) -> Solution {
    let mut x = START;
    let mut iterates = vec![x];
    for _ in 0..OUTER_STEPS {
        let g = (combination.outer_gradient)(x);
        x = [x[0] - OUTER_RATE * g[0], x[1] - OUTER_RATE * g[1]];
        iterates.push(x);
    }
    let y = (combination.argmax)(x);
    Solution { iterates, x, y }
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn main() {
    let combinations = [
        Combination {
            name: "rr (outer reverse, inner reverse)",
            outer_gradient: outer_gradient_rr,
            argmax: argmax_reverse,
        },
        Combination {
            name: "rf (outer reverse, inner forward)",
            outer_gradient: outer_gradient_rf,
            argmax: argmax_forward,
        },
        Combination {
            name: "fr (outer forward, inner reverse)",
            outer_gradient: outer_gradient_fr,
            argmax: argmax_reverse,
        },
        Combination {
            name: "ff (outer forward, inner forward)",
            outer_gradient: outer_gradient_ff,
            argmax: argmax_forward,
        },
    ];
    let (x_star, y_star) = ([-0.4, 0.6], [0.2, -0.2]);
    println!("saddle in closed form: x* = {x_star:?}, y* = {y_star:?}");

    let solutions: Vec<Solution> = combinations.iter().map(solve).collect();
    for (combination, solution) in combinations.iter().zip(&solutions) {
        println!("\n{}", combination.name);
        for (k, x) in solution.iterates.iter().enumerate() {
            if k < 4 || k % 10 == 0 {
                let gap = distance(*x, x_star);
                println!(
                    "  x_{k:<2} = ({:+.12}, {:+.12})   |x - x*| = {gap:.2e}",
                    x[0], x[1]
                );
            }
        }
        let (x, y) = (solution.x, solution.y);
        println!(
            "  saddle: x = ({:+.12}, {:+.12}), y = ({:+.12}, {:+.12})",
            x[0], x[1], y[0], y[1]
        );
    }

    // All four combinations compute the same iterates, up to rounding.
    let reference = &solutions[0];
    for (combination, solution) in combinations.iter().zip(&solutions).skip(1) {
        for (a, b) in reference.iterates.iter().zip(&solution.iterates) {
            assert!(
                distance(*a, *b) < 1e-10,
                "{}: {a:?} vs {b:?}",
                combination.name
            );
        }
        assert!(
            distance(reference.y, solution.y) < 1e-10,
            "{}",
            combination.name
        );
    }
    // And they converge to the saddle.
    for (combination, solution) in combinations.iter().zip(&solutions) {
        assert!(distance(solution.x, x_star) < 1e-9, "{}", combination.name);
        assert!(distance(solution.y, y_star) < 1e-9, "{}", combination.name);
    }
    println!("\nall four combinations agree to 1e-10 and reach the saddle to 1e-9");
}
