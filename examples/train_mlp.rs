//! Trains a small multilayer perceptron by gradient descent, with the gradient of the loss
//! from `#[revad::reverse]` on a method of the model.
//!
//! Run it with `cargo run --release --example train_mlp` (a debug build works too, slower).
//!
//! The model is plain Rust: `struct Mlp { layers: Vec<Layer> }`, a `forward` method, a
//! `loss` method. `#[derive(revad::Adjoint)]` gives each struct an adjoint struct with the same
//! fields, so `loss_grad` returns an `MlpAdjoint` whose `layers[l].w[i][j]` is ∂loss/∂w.
//! The task: learn `y = sin(2 x₀) · cos(x₁)` on [-1, 1]² from 64 samples.

use revad::reverse;

/// A dense layer, `y = act(W x + b)`.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Layer {
    /// Weights, one row per output.
    pub w: Vec<Vec<f64>>,
    /// Biases.
    pub b: Vec<f64>,
    /// Whether to apply `tanh` (hidden layers) or not (the output layer).
    pub hidden: bool,
}

impl Layer {
    /// The layer applied to `x`.
    #[reverse]
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.b.len()];
        for (i, (row, b)) in self.w.iter().zip(&self.b).enumerate() {
            let mut s = *b;
            for (w, xi) in row.iter().zip(x) {
                s += w * xi;
            }
            y[i] = if self.hidden { s.tanh() } else { s };
        }
        y
    }
}

/// A multilayer perceptron.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Mlp {
    /// The layers, input first.
    pub layers: Vec<Layer>,
}

impl Mlp {
    /// The network's output for one input.
    #[reverse]
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut h = x.to_vec();
        for layer in &self.layers {
            h = layer.forward(&h);
        }
        h
    }

    /// Mean squared error over a data set.
    #[reverse]
    pub fn loss(&self, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut total = 0.0;
        for s in 0..xs.len() {
            let out: Vec<f64> = self.forward(&xs[s]);
            let e = out[0] - ys[s];
            total += e * e;
        }
        total / xs.len() as f64
    }
}

/// A small deterministic generator (no dependency needed for an example).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

fn layer(rng: &mut Lcg, inputs: usize, outputs: usize, hidden: bool) -> Layer {
    let scale = 1.0 / (inputs as f64).sqrt();
    Layer {
        w: (0..outputs)
            .map(|_| (0..inputs).map(|_| scale * rng.next()).collect())
            .collect(),
        b: vec![0.0; outputs],
        hidden,
    }
}

fn main() {
    let mut rng = Lcg(42);
    let xs: Vec<Vec<f64>> = (0..64).map(|_| vec![rng.next(), rng.next()]).collect();
    let ys: Vec<f64> = xs.iter().map(|x| (2.0 * x[0]).sin() * x[1].cos()).collect();
    let mut mlp = Mlp {
        layers: vec![
            layer(&mut rng, 2, 16, true),
            layer(&mut rng, 16, 16, true),
            layer(&mut rng, 16, 1, false),
        ],
    };

    let rate = 0.1;
    let steps = 400;
    let first = mlp.loss(&xs, &ys);
    println!("step    loss");
    for step in 0..=steps {
        // (`xs` and `ys` are active too: their adjoints are the rest of the gradient.)
        let (loss, (grad, _, _)) = mlp.loss_grad(&xs, &ys);
        if step % 50 == 0 {
            println!("{step:4}    {loss:.6}");
        }
        // Gradient descent on every weight and bias.
        for (layer, d) in mlp.layers.iter_mut().zip(&grad.layers) {
            for (row, drow) in layer.w.iter_mut().zip(&d.w) {
                for (w, dw) in row.iter_mut().zip(drow) {
                    *w -= rate * dw;
                }
            }
            for (b, db) in layer.b.iter_mut().zip(&d.b) {
                *b -= rate * db;
            }
        }
    }
    let last = mlp.loss(&xs, &ys);
    println!("\nloss {first:.4} -> {last:.4} after {steps} steps");
    assert!(last < first / 5.0, "the network did not learn");
}
