//! `lstm`: ADBench's LSTM loss over a character sequence (diagonal weight matrices, l layers
//! of width b); `objective` is the loss, `jacobian` its gradient in the main and extra
//! parameters (rows flattened, main first), from `objective_grad`.
//!
//! Layer `k` has weights and biases for the forget, input, output gates and the change, each b
//! wide: rows 2k (weights) and 2k + 1 (biases) of `main_params`, four blocks of b each. The
//! extra parameters are the input weights, the output weights and the output biases. Its state
//! is a hidden and a cell vector per layer (rows 2k and 2k + 1 of `state`). At each step t the
//! input xₜ ∘ w_in runs through the layers, each taking the previous one's new hidden state;
//! the prediction ŷ = h ∘ w_out + b_out of the last layer is normalised by log(Σ exp ŷ + 2)
//! and scored against xₜ₊₁; the loss is −Σ xₜ₊₁ · (ŷ − lse) / ((c − 1) b).

use serde::Deserialize;
use serde_json::Value;

use super::{flatten, parse, runner, unknown_function, Runner};

/// The eval's input, as GradBench sends it (matrices as rows).
#[derive(Deserialize)]
pub struct Json {
    main_params: Vec<Vec<f64>>,
    extra_params: Vec<Vec<f64>>,
    state: Vec<Vec<f64>>,
    sequence: Vec<Vec<f64>>,
}

/// The input, every matrix flattened row by row.
pub struct Input {
    /// Number of layers.
    pub l: usize,
    /// Width of a layer (bits per character).
    pub b: usize,
    /// Per layer, 4b weights then 4b biases: 2l × 4b.
    pub main: Vec<f64>,
    /// Input weights, output weights, output biases: 3 × b.
    pub extra: Vec<f64>,
    /// Per layer, the hidden then the cell state: 2l × b.
    pub state: Vec<f64>,
    /// The characters, one row of b bits each: c × b.
    pub sequence: Vec<f64>,
}

impl Input {
    /// Flattens and checks the sizes of an input read from JSON.
    pub fn new(json: Json) -> Result<Input, String> {
        let l = json.main_params.len() / 2;
        let b = json.main_params.first().map_or(0, |row| row.len() / 4);
        let input = Input {
            l,
            b,
            main: flatten(&json.main_params),
            extra: flatten(&json.extra_params),
            state: flatten(&json.state),
            sequence: flatten(&json.sequence),
        };
        if l == 0
            || b == 0
            || input.main.len() != 8 * l * b
            || input.extra.len() != 3 * b
            || input.state.len() != 2 * l * b
            || input.sequence.len() % b != 0
            || input.sequence.len() < 2 * b
        {
            return Err("lstm: the sizes of the parameters, state and sequence do not fit".into());
        }
        Ok(input)
    }

    /// The loss.
    pub fn objective(&self) -> f64 {
        objective(
            &self.main,
            &self.extra,
            &self.state,
            &self.sequence,
            self.l,
            self.b,
        )
    }

    /// The gradient of the loss in the main parameters, then in the extra ones.
    pub fn jacobian(&self) -> Vec<f64> {
        let (_, (mut main, extra)) = objective_grad(
            &self.main,
            &self.extra,
            &self.state,
            &self.sequence,
            self.l,
            self.b,
        );
        main.extend_from_slice(&extra);
        main
    }
}

/// The loss of the LSTM with parameters `main` (2l × 4b) and `extra` (3 × b) from `state`
/// (2l × b) over `sequence` (c × b).
///
/// Every value read from the state is read once into a local, so each is kept once for the
/// reverse sweep; the input of the first layer is recomputed from the sequence rather than read
/// from an array the next step overwrites.
#[revad::reverse(wrt(main, extra))]
pub fn objective(
    main: &[f64],
    extra: &[f64],
    state: &[f64],
    sequence: &[f64],
    l: usize,
    b: usize,
) -> f64 {
    let c = sequence.len() / b;
    let mut st = state.to_vec();
    let last = 2 * b * (l - 1);
    let mut total = 0.0;
    for t in 0..c - 1 {
        for layer in 0..l {
            let w = 8 * b * layer;
            let h = 2 * b * layer;
            for i in 0..b {
                let input = if layer == 0 {
                    sequence[t * b + i] * extra[i]
                } else {
                    st[h - 2 * b + i]
                };
                let hidden = st[h + i];
                let cell = st[h + b + i];
                let forget = 1.0 / (1.0 + (-(input * main[w + i] + main[w + 4 * b + i])).exp());
                let ingate =
                    1.0 / (1.0 + (-(hidden * main[w + b + i] + main[w + 5 * b + i])).exp());
                let outgate =
                    1.0 / (1.0 + (-(input * main[w + 2 * b + i] + main[w + 6 * b + i])).exp());
                let change = (hidden * main[w + 3 * b + i] + main[w + 7 * b + i]).tanh();
                let new_cell = cell * forget + ingate * change;
                st[h + b + i] = new_cell;
                st[h + i] = outgate * new_cell.tanh();
            }
        }
        // The prediction ŷ, normalised by log(Σ exp ŷ + 2) and scored against the next
        // character x: Σ xᵢ (ŷᵢ − lse) = Σ xᵢ ŷᵢ − lse Σ xᵢ, in one pass over ŷ.
        let mut sum = 0.0;
        let mut score = 0.0;
        let mut bits = 0.0;
        for i in 0..b {
            let y = st[last + i] * extra[b + i] + extra[2 * b + i];
            sum += y.exp();
            score += sequence[(t + 1) * b + i] * y;
            bits += sequence[(t + 1) * b + i];
        }
        total += score - (sum + 2.0).ln() * bits;
    }
    -total / (((c - 1) * b) as f64)
}

/// `objective` or `jacobian` of an input.
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let input = Input::new(parse(input)?)?;
    match function {
        "objective" => Ok(runner(input, Input::objective, |y| (*y).into())),
        "jacobian" => Ok(runner(input, Input::jacobian, |g| g.clone().into())),
        _ => Err(unknown_function("lstm", function)),
    }
}
