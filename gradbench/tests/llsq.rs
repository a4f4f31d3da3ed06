//! `llsq`: the gradient against finite differences, the primal against the formula written
//! term by term, and the outputs through `prepare`.

mod common;

use common::{check_gradient, evaluate, numbers, Numbers};
use revad_gradbench::evals::llsq::{gradient, primal};
use serde_json::json;

/// ½ Σᵢ (sign(tᵢ) − Σⱼ xⱼ tᵢʲ)², each power by `powi`.
fn reference(x: &[f64], n: usize) -> f64 {
    (0..n)
        .map(|i| {
            let t = -1.0 + i as f64 * 2.0 / (n as f64 - 1.0);
            let s = if t > 0.0 {
                1.0
            } else if t < 0.0 {
                -1.0
            } else {
                0.0
            };
            let p: f64 = x
                .iter()
                .enumerate()
                .map(|(j, xj)| xj * t.powi(j as i32))
                .sum();
            (s - p) * (s - p)
        })
        .sum::<f64>()
        / 2.0
}

#[test]
fn primal_is_the_formula() {
    let x = Numbers::new(1).vec(7, 0.0, 1.0);
    for n in [2, 3, 11, 64] {
        let (ours, expected) = (primal(&x, n), reference(&x, n));
        assert!(
            (ours - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "n = {n}"
        );
    }
}

#[test]
fn gradient_matches_finite_differences() {
    for (seed, m, n) in [(2, 1, 5), (3, 4, 9), (4, 8, 33)] {
        let x = Numbers::new(seed).vec(m, -1.0, 1.0);
        check_gradient(|x| primal(x, n), &x, &gradient(&x, n), 1e-7);
    }
}

#[test]
fn outputs_through_prepare() {
    let input = json!({ "x": [0.5, -0.25, 0.125], "n": 16, "min_runs": 1, "min_seconds": 0 });
    let y = evaluate("llsq", "primal", &input).as_f64().unwrap();
    assert!((y - reference(&[0.5, -0.25, 0.125], 16)).abs() < 1e-12);
    let g = numbers(&evaluate("llsq", "gradient", &input));
    assert_eq!(g, gradient(&[0.5, -0.25, 0.125], 16));
}
