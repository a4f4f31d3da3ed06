//! `lse`: the gradient against finite differences and against softmax, the primal against
//! log Σ exp, and the outputs through `prepare`.

mod common;

use common::{check_gradient, evaluate, numbers, Numbers};
use revad_gradbench::evals::lse::{gradient, primal};
use serde_json::json;

#[test]
fn primal_is_log_sum_exp() {
    let x = Numbers::new(1).vec(20, -3.0, 3.0);
    let expected = x.iter().map(|v| v.exp()).sum::<f64>().ln();
    assert!((primal(&x) - expected).abs() < 1e-12);
    // Stable where the naive sum overflows.
    assert!((primal(&[1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-9);
    assert_eq!(primal(&[-7.5]), -7.5);
}

#[test]
fn gradient_matches_finite_differences_and_softmax() {
    for (seed, n) in [(2, 1), (3, 2), (4, 17)] {
        let x = Numbers::new(seed).vec(n, -5.0, 5.0);
        let g = gradient(&x);
        check_gradient(primal, &x, &g, 1e-7);
        let total: f64 = x.iter().map(|v| v.exp()).sum();
        for (gi, xi) in g.iter().zip(&x) {
            assert!((gi - xi.exp() / total).abs() < 1e-12);
        }
    }
    // Ties of the maximum: the gradient is still the softmax.
    let g = gradient(&[2.0, 2.0, 1.0]);
    let total = 2.0 * 2f64.exp() + 1f64.exp();
    assert!((g[0] - 2f64.exp() / total).abs() < 1e-12);
    assert!((g[1] - 2f64.exp() / total).abs() < 1e-12);
}

#[test]
fn outputs_through_prepare() {
    let input = json!({ "x": [0.1, 0.7, 0.3], "min_runs": 1, "min_seconds": 0 });
    let y = evaluate("lse", "primal", &input).as_f64().unwrap();
    assert_eq!(y, primal(&[0.1, 0.7, 0.3]));
    assert_eq!(numbers(&evaluate("lse", "gradient", &input)).len(), 3);
}
