//! Newton's method on the Rosenbrock function with the exact Hessian from
//! `#[revad::reverse(hessian)]`: each step solves `(H + λI)·s = -∇f`, with the damping `λ`
//! raised until the step decreases `f` (Levenberg's safeguard, for where `H` is not positive
//! definite) and lowered again after a success, so that near the minimum at (1, 1) the steps
//! are Newton's and converge quadratically.
//!
//! `cargo run --example newton`

#[revad::reverse(hessian)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
}

/// Solves `a·s = b` by Gaussian elimination with partial pivoting (small dense systems).
#[allow(
    clippy::needless_range_loop,
    reason = "the elimination reads best with indices"
)]
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let factor = a[row][col] / a[col][col];
            for k in col..n {
                a[row][k] -= factor * a[col][k];
            }
            b[row] -= factor * b[col];
        }
    }
    let mut s = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| a[row][k] * s[k]).sum();
        s[row] = (b[row] - rest) / a[row][row];
    }
    s
}

fn main() {
    let mut x = vec![-1.2, 1.0];
    let mut lambda = 0.0;
    println!("Newton's method on the Rosenbrock function, from the classic start (-1.2, 1)");
    println!(
        "{:>4}  {:>12}  {:>12}  {:>8}  x",
        "step", "f(x)", "|∇f(x)|", "λ"
    );
    for step in 0..100 {
        let (value, grad, hessian) = rosenbrock_hessian(&x);
        let norm = grad.iter().map(|g| g * g).sum::<f64>().sqrt();
        println!("{step:>4}  {value:>12.4e}  {norm:>12.4e}  {lambda:>8.1e}  {x:.10?}");
        if norm < 1e-10 {
            break;
        }
        loop {
            let mut damped = hessian.clone();
            for (i, row) in damped.iter_mut().enumerate() {
                row[i] += lambda;
            }
            let s = solve(damped, grad.iter().map(|g| -g).collect());
            let trial: Vec<f64> = x.iter().zip(&s).map(|(a, s)| a + s).collect();
            if rosenbrock(&trial) < value {
                x = trial;
                lambda *= 0.1;
                if lambda < 1e-6 {
                    lambda = 0.0;
                }
                break;
            }
            lambda = (lambda * 10.0).max(1e-3);
        }
    }
    let (value, _, _) = rosenbrock_hessian(&x);
    assert!(value < 1e-20, "did not converge: f = {value}");
    println!("converged to {x:.12?}");
}
