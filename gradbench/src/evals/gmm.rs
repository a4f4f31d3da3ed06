//! `gmm`: the log posterior of a Gaussian mixture with a Wishart prior on its precision
//! matrices (ADBench's GMM objective, as GradBench corrects it); `objective` is the log
//! posterior, `jacobian` its gradient in α, μ, q and l, from `objective_grad`.
//!
//! Component c has mean μ_c and precision matrix Q_cᵀ Q_c, Q_c lower triangular with
//! diagonal exp(q_c) and, below it, l_c column by column. With β_ic = α_c + Σⱼ q_cj −
//! ½‖Q_c (x_i − μ_c)‖², the objective is
//!
//! Σᵢ logsumexp_c β_ic − n logsumexp(α) − n d ½ log 2π
//!   − Σ_c (½ γ² ‖Q_c‖²_F − m Σⱼ q_cj) + k (n_W d (log γ − ½ log 2) − log Γ_d(n_W / 2)),
//!
//! n_W = d + m + 1, each logsumexp computed stably around its maximum.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{flatten, parse, runner, unknown_function, Runner};

/// The eval's input, as GradBench sends it (matrices as rows).
#[derive(Deserialize)]
pub struct Json {
    d: usize,
    k: usize,
    n: usize,
    alpha: Vec<f64>,
    mu: Vec<Vec<f64>>,
    q: Vec<Vec<f64>>,
    l: Vec<Vec<f64>>,
    x: Vec<Vec<f64>>,
    gamma: f64,
    m: usize,
}

/// The input with every matrix flattened row by row.
pub struct Input {
    /// Dimension of the space.
    pub d: usize,
    /// Number of components.
    pub k: usize,
    /// Number of points.
    pub n: usize,
    /// Weight parameters, k.
    pub alpha: Vec<f64>,
    /// Means, k × d.
    pub mu: Vec<f64>,
    /// Logarithms of the diagonals of the Q_c, k × d.
    pub q: Vec<f64>,
    /// Strictly lower triangles of the Q_c, column by column, k × d(d − 1)/2.
    pub l: Vec<f64>,
    /// Points, n × d.
    pub x: Vec<f64>,
    /// Precision of the Wishart prior.
    pub gamma: f64,
    /// Additional degrees of freedom of the Wishart prior.
    pub m: usize,
}

impl Input {
    /// Flattens and checks the sizes of an input read from JSON.
    pub fn new(json: Json) -> Result<Input, String> {
        let input = Input {
            d: json.d,
            k: json.k,
            n: json.n,
            alpha: json.alpha,
            mu: flatten(&json.mu),
            q: flatten(&json.q),
            l: flatten(&json.l),
            x: flatten(&json.x),
            gamma: json.gamma,
            m: json.m,
        };
        let (d, k, n) = (input.d, input.k, input.n);
        if d == 0
            || k == 0
            || input.alpha.len() != k
            || input.mu.len() != k * d
            || input.q.len() != k * d
            || input.l.len() != k * d * (d - 1) / 2
            || input.x.len() != n * d
        {
            return Err("gmm: the sizes of `alpha`, `mu`, `q`, `l`, `x` do not fit d, k, n".into());
        }
        Ok(input)
    }

    /// The terms that do not depend on α, μ, q, l: −n d ½ log 2π and the k Wishart
    /// normalisations.
    pub fn constant(&self) -> f64 {
        let (d, k, n) = (self.d as f64, self.k as f64, self.n as f64);
        let n_w = d + self.m as f64 + 1.0;
        let wishart =
            n_w * d * (self.gamma.ln() - 0.5 * 2f64.ln()) - log_multigamma(0.5 * n_w, self.d);
        -n * d * 0.5 * (2.0 * std::f64::consts::PI).ln() + k * wishart
    }

    /// The log posterior.
    pub fn objective(&self) -> f64 {
        objective(
            &self.alpha,
            &self.mu,
            &self.q,
            &self.l,
            &self.x,
            self.d,
            self.n,
            self.gamma,
            self.m as f64,
            self.constant(),
        )
    }

    /// The gradient of the log posterior in α, μ, q, l.
    pub fn jacobian(&self) -> Gradient {
        let (_, (alpha, mu, q, l)) = objective_grad(
            &self.alpha,
            &self.mu,
            &self.q,
            &self.l,
            &self.x,
            self.d,
            self.n,
            self.gamma,
            self.m as f64,
            self.constant(),
        );
        Gradient { alpha, mu, q, l }
    }
}

/// The gradient, flattened like [`Input`].
pub struct Gradient {
    /// In α.
    pub alpha: Vec<f64>,
    /// In μ.
    pub mu: Vec<f64>,
    /// In q.
    pub q: Vec<f64>,
    /// In l.
    pub l: Vec<f64>,
}

#[derive(Serialize)]
struct GradientJson {
    alpha: Vec<f64>,
    mu: Vec<Vec<f64>>,
    q: Vec<Vec<f64>>,
    l: Vec<Vec<f64>>,
}

impl Gradient {
    fn to_json(&self, k: usize) -> Value {
        let rows = |v: &[f64]| -> Vec<Vec<f64>> {
            let len = v.len() / k;
            (0..k).map(|c| v[c * len..(c + 1) * len].to_vec()).collect()
        };
        serde_json::to_value(GradientJson {
            alpha: self.alpha.clone(),
            mu: rows(&self.mu),
            q: rows(&self.q),
            l: rows(&self.l),
        })
        .unwrap_or(Value::Null)
    }
}

/// log Γ_p(a) = p(p − 1)/4 log π + Σⱼ₌₁..ₚ log Γ(a + (1 − j)/2), for a a positive multiple of
/// ½ with a + (1 − p)/2 > 0 (as n_W / 2 is).
pub fn log_multigamma(a: f64, p: usize) -> f64 {
    let p_f = p as f64;
    let mut out = 0.25 * p_f * (p_f - 1.0) * std::f64::consts::PI.ln();
    for j in 1..=p {
        out += log_gamma_half(a + 0.5 * (1.0 - j as f64));
    }
    out
}

/// log Γ(a) for a positive multiple of ½, exactly by Γ(a + 1) = a Γ(a) from Γ(1) = 1 or
/// Γ(½) = √π.
fn log_gamma_half(a: f64) -> f64 {
    let (mut base, mut out) = if (a - a.round()).abs() < 0.25 {
        (1.0, 0.0)
    } else {
        (0.5, 0.5 * std::f64::consts::PI.ln())
    };
    while base + 0.25 < a {
        out += base.ln();
        base += 1.0;
    }
    out
}

/// The log posterior; `alpha` is k, `mu` and `q` are k × d, `l` is k × d(d − 1)/2 and `x` is
/// n × d, all row-major; `constant` is [`Input::constant`].
#[revad::reverse(wrt(alpha, mu, q, l))]
#[allow(
    clippy::too_many_arguments,
    reason = "the eval's parameters, flattened"
)]
pub fn objective(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    n: usize,
    gamma: f64,
    m: f64,
    constant: f64,
) -> f64 {
    let k = alpha.len();
    let ld = d * (d - 1) / 2;
    // exp(q), the diagonals of the Q_c; Σⱼ q_cj = log det Q_c; and the Wishart prior's
    // ½ γ² ‖Q_c‖²_F − m log det Q_c.
    let mut qdiag = vec![0.0; k * d];
    let mut sum_q = vec![0.0; k];
    let mut prior = 0.0;
    for c in 0..k {
        let mut s = 0.0;
        let mut frobenius = 0.0;
        for j in 0..d {
            let e = q[c * d + j].exp();
            qdiag[c * d + j] = e;
            frobenius += e * e;
            s += q[c * d + j];
        }
        for j in 0..ld {
            frobenius += l[c * ld + j] * l[c * ld + j];
        }
        sum_q[c] = s;
        prior += 0.5 * gamma * gamma * frobenius - m * s;
    }
    let slse = log_likelihood(alpha, mu, &qdiag, &sum_q, l, x, d, n);
    // logsumexp(α) around the largest α_c.
    let mut best = 0;
    for c in 1..k {
        if alpha[c] > alpha[best] {
            best = c;
        }
    }
    let top = alpha[best];
    let mut s = 0.0;
    for &a in alpha.iter() {
        s += (a - top).exp();
    }
    let lse_alpha = s.ln() + top;
    constant + slse - (n as f64) * lse_alpha - prior
}

/// Σᵢ logsumexp_c β_ic, β_ic = α_c + Σⱼ q_cj − ½‖Q_c (x_i − μ_c)‖², given `qdiag` = exp(q)
/// and `sum_q` = Σⱼ q_cj.
///
/// A function of its own so that its loops read only parameters: `qdiag` and `sum_q` are
/// inputs here, never rewritten, so the reverse sweep reads them again instead of storing a
/// copy per point. What it stores per point and component is what the reverse sweep needs
/// anyway: Q_c (x_i − μ_c) and exp(β_ic − max_c β_ic).
#[revad::reverse(wrt(alpha, mu, qdiag, sum_q, l))]
#[allow(
    clippy::too_many_arguments,
    reason = "the eval's parameters, flattened"
)]
pub fn log_likelihood(
    alpha: &[f64],
    mu: &[f64],
    qdiag: &[f64],
    sum_q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    n: usize,
) -> f64 {
    let k = alpha.len();
    let ld = d * (d - 1) / 2;
    let mut qx = vec![0.0; d];
    let mut beta = vec![0.0; k];
    let mut slse = 0.0;
    for i in 0..n {
        for c in 0..k {
            // qx = Q_c (x_i − μ_c): the diagonal, then the strict lower triangle column by
            // column (the order of `l`: column `col` starts at `c ld + col (2d − col − 1)/2`).
            for j in 0..d {
                qx[j] = qdiag[c * d + j] * (x[i * d + j] - mu[c * d + j]);
            }
            for col in 0..d {
                let xc = x[i * d + col] - mu[c * d + col];
                let start = c * ld + col * (2 * d - col - 1) / 2;
                for row in col + 1..d {
                    qx[row] += l[start + row - col - 1] * xc;
                }
            }
            let mut sq = 0.0;
            for &v in qx.iter() {
                sq += v * v;
            }
            beta[c] = alpha[c] + sum_q[c] - 0.5 * sq;
        }
        // logsumexp_c β_ic around the largest β_ic.
        let mut best = 0;
        for c in 1..k {
            if beta[c] > beta[best] {
                best = c;
            }
        }
        let top = beta[best];
        let mut s = 0.0;
        for &b in beta.iter() {
            s += (b - top).exp();
        }
        slse += s.ln() + top;
    }
    slse
}

/// `objective` or `jacobian` of an input.
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let input = Input::new(parse(input)?)?;
    match function {
        "objective" => Ok(runner(input, Input::objective, |y| (*y).into())),
        "jacobian" => Ok(runner(
            input,
            |i| (i.jacobian(), i.k),
            |(g, k)| g.to_json(*k),
        )),
        _ => Err(unknown_function("gmm", function)),
    }
}
