//! `det`: the gradient against finite differences and against the cofactors, the primal
//! against Leibniz's formula, and the outputs through `prepare`.

mod common;

use common::{check_gradient, evaluate, numbers, Numbers};
use revad_gradbench::evals::det::{det, gradient};
use serde_json::json;

/// Σ over permutations σ of sign(σ) Πᵢ a[i][σ(i)].
fn leibniz(a: &[f64], ell: usize) -> f64 {
    fn go(a: &[f64], ell: usize, row: usize, used: &mut Vec<bool>, sign: f64) -> f64 {
        if row == ell {
            return sign;
        }
        let mut total = 0.0;
        let mut sign = sign;
        for j in 0..ell {
            if !used[j] {
                used[j] = true;
                total += a[row * ell + j] * go(a, ell, row + 1, used, sign);
                used[j] = false;
                sign = -sign;
            }
        }
        total
    }
    go(a, ell, 0, &mut vec![false; ell], 1.0)
}

#[test]
fn primal_is_leibniz() {
    assert_eq!(det(&[3.5], 1), 3.5);
    assert_eq!(det(&[1.0, 2.0, 3.0, 4.0], 2), -2.0);
    for ell in 3..=6 {
        let a = Numbers::new(ell as u64).vec(ell * ell, -1.0, 1.0);
        assert!((det(&a, ell) - leibniz(&a, ell)).abs() < 1e-12, "ℓ = {ell}");
    }
}

#[test]
fn gradient_matches_finite_differences_and_cofactors() {
    for ell in 1..=5 {
        let a = Numbers::new(10 + ell as u64).vec(ell * ell, -1.0, 1.0);
        let g = gradient(&a, ell);
        check_gradient(|a| det(a, ell), &a, &g, 1e-7);
        // ∂det/∂a[i][j] is the cofactor (−1)^(i+j) det(minor without row i, column j).
        if ell > 1 {
            for i in 0..ell {
                for j in 0..ell {
                    let minor: Vec<f64> = (0..ell * ell)
                        .filter(|&p| p / ell != i && p % ell != j)
                        .map(|p| a[p])
                        .collect();
                    let sign = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
                    let cofactor = sign * leibniz(&minor, ell - 1);
                    assert!((g[i * ell + j] - cofactor).abs() < 1e-12);
                }
            }
        }
    }
}

#[test]
fn outputs_through_prepare() {
    let input = json!({ "A": [2.0, 1.0, 0.5, 3.0], "ell": 2, "min_runs": 1, "min_seconds": 0 });
    assert_eq!(evaluate("det", "primal", &input).as_f64(), Some(5.5));
    assert_eq!(
        numbers(&evaluate("det", "gradient", &input)),
        [3.0, -0.5, -1.0, 2.0]
    );
    let bad = json!({ "A": [1.0, 2.0, 3.0], "ell": 2 });
    assert!(revad_gradbench::evals::prepare("det", "primal", &bad).is_err());
}
