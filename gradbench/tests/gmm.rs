//! `gmm`: the gradient against finite differences in every parameter, the objective against
//! the log posterior written from the densities, and the output's shape through `prepare`.

mod common;

use common::{check_gradient, evaluate, Numbers};
use revad_gradbench::evals::gmm::{log_multigamma, Input};
use serde_json::{json, Value};

/// An input as GradBench generates one: x normal-ish, μ in [0, 1), α, q, l in [−1, 1).
fn json_input(seed: u64, d: usize, k: usize, n: usize, m: usize, gamma: f64) -> Value {
    let mut r = Numbers::new(seed);
    json!({
        "d": d, "k": k, "n": n, "m": m, "gamma": gamma,
        "x": r.rows(n, d, -2.0, 2.0),
        "alpha": r.vec(k, -1.0, 1.0),
        "mu": r.rows(k, d, 0.0, 1.0),
        "q": r.rows(k, d, -1.0, 1.0),
        "l": r.rows(k, d * (d - 1) / 2, -1.0, 1.0),
        "min_runs": 1, "min_seconds": 0,
    })
}

fn input(json: &Value) -> Input {
    Input::new(serde_json::from_value(json.clone()).unwrap()).unwrap()
}

/// The log posterior from the definitions: log Πᵢ Σ_c φ_c N(xᵢ; μ_c, (Q_cᵀ Q_c)⁻¹) plus
/// Σ_c log W(Q_cᵀ Q_c; I/γ², d + m + 1).
fn naive(p: &Input) -> f64 {
    let (d, k) = (p.d, p.k);
    let ld = d * (d - 1) / 2;
    // Q_c as a dense lower-triangular matrix, l filled column by column.
    let q_matrix = |c: usize| -> Vec<Vec<f64>> {
        let mut q = vec![vec![0.0; d]; d];
        let mut idx = 0;
        for j in 0..d {
            q[j][j] = p.q[c * d + j].exp();
            for row in q.iter_mut().skip(j + 1) {
                row[j] = p.l[c * ld + idx];
                idx += 1;
            }
        }
        q
    };
    let weights: Vec<f64> = p.alpha.iter().map(|a| a.exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut log_likelihood = 0.0;
    for i in 0..p.n {
        let mut density = 0.0;
        for (c, weight) in weights.iter().enumerate() {
            let q = q_matrix(c);
            let mut sq = 0.0;
            for (r, row) in q.iter().enumerate() {
                let v: f64 = (0..=r)
                    .map(|j| row[j] * (p.x[i * d + j] - p.mu[c * d + j]))
                    .sum();
                sq += v * v;
            }
            let det_precision: f64 = (0..d).map(|j| q[j][j] * q[j][j]).product();
            let norm = ((2.0 * std::f64::consts::PI).powi(d as i32) / det_precision).sqrt();
            density += weight / total * (-0.5 * sq).exp() / norm;
        }
        log_likelihood += density.ln();
    }
    let n_w = (d + p.m + 1) as f64;
    let df = d as f64;
    let mut log_prior = 0.0;
    for c in 0..k {
        let q = q_matrix(c);
        let log_det: f64 = (0..d).map(|j| 2.0 * q[j][j].ln()).sum();
        let frobenius: f64 = q.iter().flatten().map(|v| v * v).sum();
        log_prior += 0.5 * (n_w - df - 1.0) * log_det
            - 0.5 * p.gamma * p.gamma * frobenius
            - 0.5 * n_w * df * 2f64.ln()
            + n_w * df * p.gamma.ln()
            - log_multigamma(0.5 * n_w, d);
    }
    log_likelihood + log_prior
}

#[test]
fn log_multigamma_is_the_gamma_function_for_p_1_and_2() {
    assert!((log_multigamma(5.0, 1) - 24f64.ln()).abs() < 1e-14);
    assert!((log_multigamma(0.5, 1) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
    // Γ₂(a) = √π Γ(a) Γ(a − ½); Γ(3.5) = 15√π/8, Γ(3) = 2.
    let expected = 0.5 * std::f64::consts::PI.ln()
        + (15.0 * std::f64::consts::PI.sqrt() / 8.0).ln()
        + 2f64.ln();
    assert!((log_multigamma(3.5, 2) - expected).abs() < 1e-13);
}

#[test]
fn objective_is_the_log_posterior() {
    for (seed, d, k, n, m, gamma) in [
        (1, 1, 1, 1, 0, 1.0),
        (2, 2, 3, 4, 0, 1.0),
        (3, 3, 2, 5, 2, 0.7),
    ] {
        let p = input(&json_input(seed, d, k, n, m, gamma));
        let (ours, expected) = (p.objective(), naive(&p));
        assert!(
            (ours - expected).abs() < 1e-10 * expected.abs().max(1.0),
            "{ours} vs {expected}"
        );
    }
}

#[test]
fn jacobian_matches_finite_differences() {
    for (seed, d, k, n, m, gamma) in [
        (4, 1, 1, 2, 0, 1.0),
        (5, 3, 4, 5, 1, 1.3),
        (6, 4, 2, 3, 0, 0.8),
    ] {
        let p = input(&json_input(seed, d, k, n, m, gamma));
        let g = p.jacobian();
        // Perturb one parameter vector at a time, the others as in `p`.
        let objective_with = |field: usize, v: &[f64]| {
            let mut q = input(&json_input(seed, d, k, n, m, gamma));
            match field {
                0 => q.alpha = v.to_vec(),
                1 => q.mu = v.to_vec(),
                2 => q.q = v.to_vec(),
                _ => q.l = v.to_vec(),
            }
            q.objective()
        };
        check_gradient(|v| objective_with(0, v), &p.alpha, &g.alpha, 1e-6);
        check_gradient(|v| objective_with(1, v), &p.mu, &g.mu, 1e-6);
        check_gradient(|v| objective_with(2, v), &p.q, &g.q, 1e-6);
        if d > 1 {
            check_gradient(|v| objective_with(3, v), &p.l, &g.l, 1e-6);
        }
    }
}

#[test]
fn outputs_through_prepare() {
    let json = json_input(7, 3, 2, 4, 0, 1.0);
    let y = evaluate("gmm", "objective", &json).as_f64().unwrap();
    assert_eq!(y, input(&json).objective());
    let g = evaluate("gmm", "jacobian", &json);
    let rows = |key: &str| -> Vec<usize> {
        g[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_array().unwrap().len())
            .collect()
    };
    assert_eq!(g["alpha"].as_array().unwrap().len(), 2);
    assert_eq!(rows("mu"), [3, 3]);
    assert_eq!(rows("q"), [3, 3]);
    assert_eq!(rows("l"), [3, 3]);
}
