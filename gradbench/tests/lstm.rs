//! `lstm`: the gradient against finite differences, the objective against ADBench's loop
//! structure (layer by layer, then normalise, then score), and the outputs through `prepare`.

mod common;

use common::{check_gradient, evaluate, numbers, Numbers};
use revad_gradbench::evals::lstm::{objective, Input};
use serde_json::{json, Value};

/// An input as GradBench generates one: parameters and state in [0, 1), a sequence of bits.
fn json_input(seed: u64, l: usize, b: usize, c: usize) -> Value {
    let mut r = Numbers::new(seed);
    let sequence: Vec<Vec<f64>> = (0..c)
        .map(|_| (0..b).map(|_| r.next(0.0, 1.0).round()).collect())
        .collect();
    json!({
        "main_params": r.rows(2 * l, 4 * b, 0.0, 1.0),
        "extra_params": r.rows(3, b, 0.0, 1.0),
        "state": r.rows(2 * l, b, 0.0, 1.0),
        "sequence": sequence,
        "min_runs": 1, "min_seconds": 0,
    })
}

fn input(json: &Value) -> Input {
    Input::new(serde_json::from_value(json.clone()).unwrap()).unwrap()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The loss as ADBench computes it: predict (input weights, each layer in place, output
/// weights), log(Σ exp + 2), ŷ − lse, score against the next character, average.
fn reference(p: &Input) -> f64 {
    let (l, b) = (p.l, p.b);
    let c = p.sequence.len() / b;
    let mut state = p.state.clone();
    let mut total = 0.0;
    let mut count = 0;
    for t in 0..c - 1 {
        let mut layer_input: Vec<f64> =
            (0..b).map(|i| p.sequence[t * b + i] * p.extra[i]).collect();
        for layer in 0..l {
            let w = &p.main[8 * b * layer..8 * b * (layer + 1)];
            let (hidden, cell) = state[2 * b * layer..2 * b * (layer + 1)].split_at_mut(b);
            for i in 0..b {
                let forget = sigmoid(layer_input[i] * w[i] + w[4 * b + i]);
                let ingate = sigmoid(hidden[i] * w[b + i] + w[5 * b + i]);
                let outgate = sigmoid(layer_input[i] * w[2 * b + i] + w[6 * b + i]);
                let change = (hidden[i] * w[3 * b + i] + w[7 * b + i]).tanh();
                cell[i] = cell[i] * forget + ingate * change;
                hidden[i] = outgate * cell[i].tanh();
            }
            layer_input = hidden.to_vec();
        }
        let ypred: Vec<f64> = (0..b)
            .map(|i| layer_input[i] * p.extra[b + i] + p.extra[2 * b + i])
            .collect();
        let lse = (ypred.iter().map(|y| y.exp()).sum::<f64>() + 2.0).ln();
        for (i, y) in ypred.iter().enumerate() {
            total += p.sequence[(t + 1) * b + i] * (y - lse);
        }
        count += b;
    }
    -total / count as f64
}

#[test]
fn objective_is_adbench_lstm() {
    for (seed, l, b, c) in [(1, 1, 1, 2), (2, 2, 3, 5), (3, 3, 4, 7)] {
        let p = input(&json_input(seed, l, b, c));
        let (ours, expected) = (p.objective(), reference(&p));
        assert!(
            (ours - expected).abs() < 1e-13 * expected.abs().max(1.0),
            "{ours} vs {expected}"
        );
    }
}

#[test]
fn jacobian_matches_finite_differences() {
    for (seed, l, b, c) in [(4, 1, 2, 3), (5, 2, 3, 5), (6, 3, 2, 4)] {
        let p = input(&json_input(seed, l, b, c));
        let g = p.jacobian();
        let (g_main, g_extra) = g.split_at(p.main.len());
        let loss =
            |main: &[f64], extra: &[f64]| objective(main, extra, &p.state, &p.sequence, p.l, p.b);
        check_gradient(|m| loss(m, &p.extra), &p.main, g_main, 1e-6);
        check_gradient(|e| loss(&p.main, e), &p.extra, g_extra, 1e-6);
    }
}

#[test]
fn outputs_through_prepare() {
    let json = json_input(7, 2, 3, 4);
    let p = input(&json);
    assert_eq!(
        evaluate("lstm", "objective", &json).as_f64(),
        Some(p.objective())
    );
    // Main parameters (2l × 4b) then extra ones (3 × b).
    assert_eq!(
        numbers(&evaluate("lstm", "jacobian", &json)).len(),
        8 * 2 * 3 + 3 * 3
    );
}
