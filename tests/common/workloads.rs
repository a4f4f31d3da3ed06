//! Workloads shared by the tests (`tests/loops.rs`, `tests/straight_line.rs`), the
//! benchmarks (`benches/gradients.rs`) and `examples/recurrence_memory.rs`: each function,
//! written once for both backends (`NAME` under `#[reverse]`, `NAME_cps` under
//! `#[reverse(cps)]`, with `both!`), next to the adjoint an expert writes by hand, so that the
//! tests check the same code the benchmarks time.
//!
//! Included with `#[path]` (it is not a test target of its own), after `both.rs`.

#![allow(dead_code, reason = "each includer uses a part")]

both! {
    /// A 2-layer MLP with tanh hidden units and a linear output, squared error over a batch.
    /// `w1` is `hidden × inputs` row-major, `w2` has `hidden` weights; `xs` holds the batch
    /// row by row and `ys` the targets.
    [wrt(w1, w2)] pub fn mlp_loss / mlp_loss_cps(
        w1: &[f64],
        w2: &[f64],
        xs: &[f64],
        ys: &[f64],
        inputs: usize,
        hidden: usize,
    ) -> f64 {
        let batch = ys.len();
        let mut loss = 0.0;
        for b in 0..batch {
            let mut out = 0.0;
            for j in 0..hidden {
                let mut z = 0.0;
                for k in 0..inputs {
                    z += w1[j * inputs + k] * xs[b * inputs + k];
                }
                out += w2[j] * z.tanh();
            }
            let err = out - ys[b];
            loss += err * err;
        }
        loss / batch as f64
    }
}

/// The adjoint an expert writes for `mlp_loss`.
pub fn mlp_loss_by_hand(
    w1: &[f64],
    w2: &[f64],
    xs: &[f64],
    ys: &[f64],
    inputs: usize,
    hidden: usize,
) -> (f64, (Vec<f64>, Vec<f64>)) {
    let batch = ys.len();
    let mut dw1 = vec![0.0; w1.len()];
    let mut dw2 = vec![0.0; w2.len()];
    let mut h = vec![0.0; hidden];
    let mut loss = 0.0;
    let scale = 1.0 / batch as f64;
    for b in 0..batch {
        let x = &xs[b * inputs..(b + 1) * inputs];
        let mut out = 0.0;
        for j in 0..hidden {
            let z: f64 = (0..inputs).map(|k| w1[j * inputs + k] * x[k]).sum();
            h[j] = z.tanh();
            out += w2[j] * h[j];
        }
        let err = out - ys[b];
        loss += err * err;
        let dout = 2.0 * err * scale;
        for j in 0..hidden {
            dw2[j] += dout * h[j];
            let dz = dout * w2[j] * (1.0 - h[j] * h[j]);
            for k in 0..inputs {
                dw1[j * inputs + k] += dz * x[k];
            }
        }
    }
    (loss * scale, (dw1, dw2))
}

/// Deterministic weights, inputs and targets for `mlp_loss`.
pub fn mlp_data(
    inputs: usize,
    hidden: usize,
    batch: usize,
) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let w1 = (0..hidden * inputs)
        .map(|k| ((k * 7919 % 97) as f64 / 97.0 - 0.5) * 0.6)
        .collect();
    let w2 = (0..hidden)
        .map(|k| ((k * 104_729 % 89) as f64 / 89.0 - 0.5) * 0.8)
        .collect();
    let xs = (0..batch * inputs)
        .map(|k| ((k * 31 % 53) as f64 / 53.0 - 0.5) * 2.0)
        .collect();
    let ys = (0..batch).map(|k| (k as f64 * 0.7).sin()).collect();
    (w1, w2, xs, ys)
}

both! {
    /// `x_{k+1} = sin(x_k) a + x_k b`, `n` steps.
    [] pub fn recurrence / recurrence_cps(x0: f64, a: f64, b: f64, n: usize) -> f64 {
        let mut x = x0;
        for _ in 0..n {
            x = x.sin() * a + x * b;
        }
        x
    }
}

/// The adjoint an expert writes: store x per step, recompute sin and cos going back.
pub fn recurrence_by_hand(x0: f64, a: f64, b: f64, n: usize) -> (f64, (f64, f64, f64)) {
    let mut xs = Vec::with_capacity(n);
    let mut x = x0;
    for _ in 0..n {
        xs.push(x);
        x = x.sin() * a + x * b;
    }
    let (mut dx, mut da, mut db) = (1.0, 0.0, 0.0);
    for &x in xs.iter().rev() {
        da += dx * x.sin();
        db += dx * x;
        dx *= a * x.cos() + b;
    }
    (x, (dx, da, db))
}

both! {
    /// The sum of a matrix-vector product, accumulated element by element in `acc[i]`.
    #[allow(
        clippy::needless_range_loop,
        reason = "index loops throughout: the form #[reverse] is tested and timed on"
    )]
    [wrt(m, x)] pub fn matvec_sum / matvec_sum_cps(m: &[f64], x: &[f64], n: usize) -> f64 {
        let mut acc = vec![0.0; n];
        for i in 0..n {
            for j in 0..n {
                acc[i] += m[i * n + j] * x[j];
            }
        }
        let mut total = 0.0;
        for i in 0..n {
            total += acc[i];
        }
        total
    }
}

both! {
    /// Krawiec et al. (POPL 2022), Fig. 12: the x component of `v` rotated by the quaternion
    /// `q` (x, y, z, w).
    [wrt(q, v)] pub fn rotate_x / rotate_x_cps(q: [f64; 4], v: [f64; 3]) -> f64 {
        let (ux, uy, uz, s) = (q[0], q[1], q[2], q[3]);
        let dot_uv = ux * v[0] + uy * v[1] + uz * v[2];
        let dot_uu = ux * ux + uy * uy + uz * uz;
        let cross_x = uy * v[2] - uz * v[1];
        2.0 * dot_uv * ux + (s * s - dot_uu) * v[0] + 2.0 * s * cross_x
    }
}
