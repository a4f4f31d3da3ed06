//! The first program to run: `cargo run --example quickstart`.
//!
//! Differentiates a small function with `#[revad::reverse]`, prints its value and gradient, and
//! the finite-difference gradient beside it.

use revad::{check, reverse};

/// A little loss: a weighted sum through a nonlinearity, with a loop and a branch.
#[reverse(wrt(w, b))]
fn loss(w: &[f64], b: f64, x: &[f64], target: f64) -> f64 {
    let mut z = b;
    for i in 0..w.len() {
        z += w[i] * x[i];
    }
    let y = if z > 0.0 { z.tanh() } else { 0.1 * z };
    (y - target).powi(2)
}

fn main() {
    let w = [0.5, -0.25, 1.0];
    let b = 0.1;
    let x = [1.0, 2.0, 0.5];
    let target = 0.3;

    let (value, (dw, db)) = loss_grad(&w, b, &x, target);
    println!("loss(w, b) = (tanh(b + w·x) - target)²   at w = {w:?}, b = {b}");
    println!("value            {value:.12}");
    println!("∂loss/∂w         {dw:.12?}");
    println!("∂loss/∂b         {db:.12}");

    // The same gradient by finite differences, over (w, b).
    let mut point = w.to_vec();
    point.push(b);
    let f = |p: &[f64]| loss(&p[..3], p[3], &x, target);
    let numeric = check::finite_difference(f, &point);
    println!("finite diff.     {numeric:.12?}");

    let mut analytic = dw.clone();
    analytic.push(db);
    match check::gradient(f, &point, &analytic) {
        Ok(()) => println!("check            ok: #[reverse] agrees with finite differences"),
        Err(mismatch) => println!("check            FAILED: {mismatch}"),
    }
}
