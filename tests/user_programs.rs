//! Small programs written from the README the way Rust users write Rust (iterator chains,
//! closures, `match`, `while` loops, structs, `f32`, constants), ports of other AD tools'
//! examples and application code (ML losses, finance, physics, geometry, ODE steps,
//! statistics). Each gradient is checked against a closed form or central finite differences
//! of the primal, and each primal returned by a generated function against the plain
//! function's, bit for bit.
#![allow(
    clippy::needless_range_loop,
    clippy::let_and_return,
    clippy::excessive_precision,
    clippy::manual_while_let_some,
    clippy::ptr_arg,
    clippy::redundant_closure,
    reason = "the programs are written as users write them"
)]

use revad::reverse;

/// `|a - b| <= tol * max(|b|, 1)`.
fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol * b.abs().max(1.0), "{a} vs {b}");
}

/// Every partial of `g` against central finite differences of `f` at `x` (relative 1e-6).
fn assert_fd(f: impl Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    let numeric = revad::check::finite_difference(f, x);
    assert_eq!(numeric.len(), g.len());
    for (i, (a, b)) in g.iter().zip(&numeric).enumerate() {
        assert!(
            (a - b).abs() <= 1e-6 * b.abs().max(1.0),
            "partial {i}: {a} (ad) vs {b} (fd)"
        );
    }
}

/// The same value, bit for bit.
fn same(a: f64, b: f64) {
    assert_eq!(a.to_bits(), b.to_bits(), "{a} vs {b}");
}

// ---- ML losses -------------------------------------------------------------------------------

#[reverse]
fn cross_entropy(logits: &[f64], target: usize) -> f64 {
    let m = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lse = logits.iter().map(|&z| (z - m).exp()).sum::<f64>().ln() + m;
    lse - logits[target]
}

#[test]
fn softmax_cross_entropy() {
    let z = [0.3, -1.2, 2.0, 0.7];
    let (v, g) = cross_entropy_grad(&z, 2);
    same(v, cross_entropy(&z, 2));
    let s: f64 = z.iter().map(|v| v.exp()).sum();
    for i in 0..4 {
        let p = z[i].exp() / s;
        close(g[i], p - if i == 2 { 1.0 } else { 0.0 }, 1e-12);
    }
}

#[reverse]
fn softmax(z: &[f64]) -> Vec<f64> {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

#[test]
fn softmax_jacobian_transpose() {
    let z = [0.1, 0.5, -0.4];
    let seed = vec![1.0, -2.0, 0.5];
    let (v, g) = softmax_vjp(&z, seed.clone());
    assert_eq!(v, softmax(&z));
    // J^T s = p * (s - <p, s>)
    let ps: f64 = v.iter().zip(&seed).map(|(p, s)| p * s).sum();
    for i in 0..3 {
        close(g[i], v[i] * (seed[i] - ps), 1e-12);
    }
}

#[reverse]
fn log_sum_exp(x: &[f64]) -> f64 {
    let mut m = x[0];
    for &v in x.iter() {
        if v > m {
            m = v;
        }
    }
    let mut s = 0.0;
    for v in x {
        s += (v - m).exp();
    }
    m + s.ln()
}

#[test]
fn log_sum_exp_is_softmax() {
    let x = [1.0, 3.0, -2.0, 2.5];
    let (v, g) = log_sum_exp_grad(&x);
    same(v, log_sum_exp(&x));
    let s: f64 = x.iter().map(|v| v.exp()).sum();
    for i in 0..4 {
        close(g[i], x[i].exp() / s, 1e-12);
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[reverse]
fn sigmoid_r(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[reverse(wrt(w, b))]
fn logistic_loss(w: &[f64], b: f64, xs: &[[f64; 2]], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (x, &y) in xs.iter().zip(ys) {
        let z = w[0] * x[0] + w[1] * x[1] + b;
        let p = sigmoid_r(z);
        loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    loss / ys.len() as f64
}

#[test]
fn logistic_regression() {
    let w = [0.4, -0.3];
    let xs = [[1.0, 2.0], [-0.5, 0.3], [2.0, -1.0]];
    let ys = [1.0, 0.0, 1.0];
    let (v, (gw, gb)) = logistic_loss_grad(&w, 0.1, &xs, &ys);
    same(v, logistic_loss(&w, 0.1, &xs, &ys));
    let mut ew = [0.0; 2];
    let mut eb = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let p = sigmoid(w[0] * x[0] + w[1] * x[1] + 0.1);
        ew[0] += (p - y) * x[0] / 3.0;
        ew[1] += (p - y) * x[1] / 3.0;
        eb += (p - y) / 3.0;
    }
    close(gw[0], ew[0], 1e-12);
    close(gw[1], ew[1], 1e-12);
    close(gb, eb, 1e-12);
}

#[reverse]
fn huber(pred: &[f64], target: &[f64], delta: f64) -> f64 {
    pred.iter()
        .zip(target.iter())
        .map(|(p, t)| {
            let r = (p - t).abs();
            if r <= delta {
                0.5 * r * r
            } else {
                delta * (r - 0.5 * delta)
            }
        })
        .sum()
}

#[test]
fn huber_loss() {
    let p = [0.2, 3.0, -1.0];
    let t = [0.0, 0.5, -1.4];
    let (v, (gp, gt, gd)) = huber_grad(&p, &t, 1.0);
    same(v, huber(&p, &t, 1.0));
    let ep = [0.2, 1.0, 0.4];
    for i in 0..3 {
        close(gp[i], ep[i], 1e-12);
        close(gt[i], -ep[i], 1e-12);
    }
    // only the second term is linear: d/ddelta = r - delta
    close(gd, 2.5 - 1.0, 1e-12);
}

#[reverse]
fn mse(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let n = xs.len() as f64;
    xs.iter()
        .zip(ys)
        .map(|(x, y)| {
            let pred: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
            (pred - y).powi(2)
        })
        .sum::<f64>()
        / n
}

#[test]
fn mean_squared_error() {
    let w = vec![0.5, -1.0, 2.0];
    let xs = vec![
        vec![1.0, 2.0, 3.0],
        vec![0.0, -1.0, 0.5],
        vec![2.0, 2.0, -1.0],
    ];
    let ys = vec![1.0, 2.0, 0.0];
    let (v, g) = mse_grad(&w, &xs, &ys);
    same(v, mse(&w, &xs, &ys));
    assert_fd(|w| mse(w, &xs, &ys), &w, &g.0);
}

#[reverse]
fn mlp(w1: &[[f64; 2]; 3], b1: &[f64; 3], w2: &[f64; 3], x: [f64; 2]) -> f64 {
    let mut h = [0.0; 3];
    for i in 0..3 {
        h[i] = (w1[i][0] * x[0] + w1[i][1] * x[1] + b1[i]).tanh();
    }
    h.iter().zip(w2.iter()).map(|(a, b)| a * b).sum()
}

#[test]
fn tiny_mlp() {
    let w1 = [[0.1, -0.2], [0.4, 0.3], [-0.5, 0.6]];
    let b1 = [0.0, 0.1, -0.1];
    let w2 = [1.0, -1.0, 0.5];
    let x = [0.7, -0.3];
    let (v, (gw1, gb1, gw2, gx)) = mlp_grad(&w1, &b1, &w2, x);
    same(v, mlp(&w1, &b1, &w2, x));
    assert_fd(|x| mlp(&w1, &b1, &w2, [x[0], x[1]]), &x, &gx);
    assert_fd(|b| mlp(&w1, &[b[0], b[1], b[2]], &w2, x), &b1, &gb1);
    assert_fd(|w| mlp(&w1, &b1, &[w[0], w[1], w[2]], x), &w2, &gw2);
    let flat: Vec<f64> = w1.iter().flatten().copied().collect();
    let gflat: Vec<f64> = gw1.iter().flatten().copied().collect();
    assert_fd(
        |f| mlp(&[[f[0], f[1]], [f[2], f[3]], [f[4], f[5]]], &b1, &w2, x),
        &flat,
        &gflat,
    );
}

// ---- finance ---------------------------------------------------------------------------------

#[reverse]
fn norm_cdf(x: f64) -> f64 {
    // Abramowitz & Stegun 26.2.17
    let t = 1.0 / (1.0 + 0.2316419 * x.abs());
    let poly = t
        * (0.319381530
            + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
    let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let upper = pdf * poly;
    if x >= 0.0 {
        1.0 - upper
    } else {
        upper
    }
}

#[reverse]
fn black_scholes_call(s: f64, k: f64, r: f64, sigma: f64, t: f64) -> f64 {
    let sqrt_t = t.sqrt();
    let d1 = ((s / k).ln() + (r + 0.5 * sigma * sigma) * t) / (sigma * sqrt_t);
    let d2 = d1 - sigma * sqrt_t;
    s * norm_cdf(d1) - k * (-r * t).exp() * norm_cdf(d2)
}

#[test]
fn black_scholes_greeks() {
    let args = [100.0, 95.0, 0.03, 0.25, 0.75];
    let (v, (ds, dk, dr, dsig, dt)) = black_scholes_call_grad(100.0, 95.0, 0.03, 0.25, 0.75);
    same(v, black_scholes_call(100.0, 95.0, 0.03, 0.25, 0.75));
    assert_fd(
        |a| black_scholes_call(a[0], a[1], a[2], a[3], a[4]),
        &args,
        &[ds, dk, dr, dsig, dt],
    );
    // delta is about N(d1) (up to the approximation of N)
    assert!(ds > 0.5 && ds < 1.0);
}

#[reverse]
fn present_value(cashflows: &[f64], rate: f64) -> f64 {
    cashflows
        .iter()
        .enumerate()
        .map(|(t, c)| c / (1.0 + rate).powi(t as i32 + 1))
        .sum()
}

#[test]
fn bond_price_and_duration() {
    let cf = [5.0, 5.0, 5.0, 105.0];
    let (v, (dcf, dr)) = present_value_grad(&cf, 0.04);
    same(v, present_value(&cf, 0.04));
    let mut er = 0.0;
    for (t, c) in cf.iter().enumerate() {
        let n = t as i32 + 1;
        close(dcf[t], 1.04f64.powi(-n), 1e-12);
        er -= f64::from(n) * c / 1.04f64.powi(n + 1);
    }
    close(dr, er, 1e-12);
}

const N: usize = 8;

#[reverse]
fn binomial_tree(s0: f64, k: f64, up: f64, p: f64, disc: f64) -> f64 {
    let down = 1.0 / up;
    let mut v = [0.0; N + 1];
    for i in 0..=N {
        let st = s0 * up.powi(i as i32) * down.powi((N - i) as i32);
        v[i] = (st - k).max(0.0);
    }
    for step in (0..N).rev() {
        for i in 0..=step {
            v[i] = disc * (p * v[i + 1] + (1.0 - p) * v[i]);
        }
    }
    v[0]
}

#[test]
fn binomial_option() {
    let a = [100.0, 97.0, 1.05, 0.55, 0.99];
    let (v, (g0, g1, g2, g3, g4)) = binomial_tree_grad(a[0], a[1], a[2], a[3], a[4]);
    same(v, binomial_tree(a[0], a[1], a[2], a[3], a[4]));
    assert_fd(
        |a| binomial_tree(a[0], a[1], a[2], a[3], a[4]),
        &a,
        &[g0, g1, g2, g3, g4],
    );
}

// ---- numerics --------------------------------------------------------------------------------

#[reverse]
fn newton_sqrt(a: f64) -> f64 {
    let mut y = a;
    for _ in 0..30 {
        y = 0.5 * (y + a / y);
    }
    y
}

#[test]
fn newton_iteration() {
    let (v, d) = newton_sqrt_grad(2.0);
    same(v, newton_sqrt(2.0));
    close(d, 0.5 / 2f64.sqrt(), 1e-12);
}

#[reverse]
fn newton_cbrt(a: f64) -> f64 {
    let mut y = 1.0;
    let mut iter = 0;
    while (y * y * y - a).abs() > 1e-14 * a && iter < 100 {
        y -= (y * y * y - a) / (3.0 * y * y);
        iter += 1;
    }
    y
}

#[test]
fn newton_while_converged() {
    let (v, d) = newton_cbrt_grad(5.0);
    same(v, newton_cbrt(5.0));
    close(d, 1.0 / (3.0 * 5f64.powf(2.0 / 3.0)), 1e-8);
}

#[reverse]
fn horner(coeffs: &[f64], x: f64) -> f64 {
    coeffs.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

#[test]
fn horner_fold() {
    let c = [1.0, -2.0, 0.5, 3.0]; // 1 - 2x + 0.5x^2 + 3x^3
    let (v, (dc, dx)) = horner_grad(&c, 1.5);
    same(v, horner(&c, 1.5));
    close(dx, -2.0 + 1.5 + 9.0 * 1.5 * 1.5, 1e-12);
    for k in 0..4 {
        close(dc[k], 1.5f64.powi(k as i32), 1e-12);
    }
}

#[reverse]
fn poly_powi(a: &[f64], x: f64) -> f64 {
    let mut s = 0.0;
    for (k, &ak) in a.iter().enumerate() {
        s += ak * x.powi(k as i32);
    }
    s
}

#[test]
fn cppad_poly() {
    let a = [1.0, 1.0, 1.0, 1.0, 1.0];
    let (v, (_, dx)) = poly_powi_grad(&a, 3.0);
    same(v, poly_powi(&a, 3.0));
    close(dx, 1.0 + 2.0 * 3.0 + 3.0 * 9.0 + 4.0 * 27.0, 1e-12);
}

#[reverse]
fn trapezoid(a: f64, b: f64) -> f64 {
    let n = 64;
    let h = (b - a) / n as f64;
    let mut s = 0.5 * (a.sin() + b.sin());
    for i in 1..n {
        let x = a + i as f64 * h;
        s += x.sin();
    }
    s * h
}

#[test]
fn trapezoid_rule() {
    let (v, (da, db)) = trapezoid_grad(0.2, 1.3);
    same(v, trapezoid(0.2, 1.3));
    assert_fd(|p| trapezoid(p[0], p[1]), &[0.2, 1.3], &[da, db]);
    close(db, 1.3f64.sin(), 1e-3);
}

#[reverse]
fn speelpenning(x: &[f64]) -> f64 {
    x.iter().product()
}

#[test]
fn adolc_speelpenning() {
    let x = [1.1, 0.9, 1.3, 0.7, 2.0];
    let (v, g) = speelpenning_grad(&x);
    same(v, speelpenning(&x));
    for i in 0..5 {
        close(g[i], v / x[i], 1e-12);
    }
}

#[reverse]
fn l2_norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[reverse]
fn l1_norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v.abs()).sum()
}

#[reverse]
fn linf(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m: f64, v| m.max(v.abs()))
}

#[test]
fn norms() {
    let x = [3.0, -4.0, 1.0];
    let (v, g) = l2_norm_grad(&x);
    same(v, l2_norm(&x));
    for i in 0..3 {
        close(g[i], x[i] / v, 1e-12);
    }
    let (v, g) = l1_norm_grad(&x);
    same(v, 8.0);
    assert_eq!(g, vec![1.0, -1.0, 1.0]);
    let (v, g) = linf_grad(&x);
    same(v, 4.0);
    assert_eq!(g, vec![0.0, -1.0, 0.0]);
}

#[reverse]
fn pow_loop(x: f64, n: usize) -> f64 {
    let mut r = 1.0;
    for _ in 0..n {
        r *= x;
    }
    r
}

#[test]
fn zygote_pow() {
    let (v, d) = pow_loop_grad(1.7, 5);
    same(v, pow_loop(1.7, 5));
    close(d, 5.0 * 1.7f64.powi(4), 1e-12);
}

// ---- physics / ODE ---------------------------------------------------------------------------

const G: f64 = 9.81;

#[reverse]
fn projectile_range(v0: f64, angle: f64) -> f64 {
    v0 * v0 * (2.0 * angle).sin() / G
}

#[test]
fn const_gravity() {
    let (v, (dv, da)) = projectile_range_grad(20.0, 0.6);
    same(v, projectile_range(20.0, 0.6));
    close(dv, 2.0 * 20.0 * 1.2f64.sin() / G, 1e-12);
    close(da, 400.0 * 2.0 * 1.2f64.cos() / G, 1e-12);
}

#[reverse]
fn rk4_step(y: [f64; 2], dt: f64, k: f64) -> [f64; 2] {
    let f = |s: [f64; 2]| [s[1], -k * s[0]];
    let k1 = f(y);
    let k2 = f([y[0] + 0.5 * dt * k1[0], y[1] + 0.5 * dt * k1[1]]);
    let k3 = f([y[0] + 0.5 * dt * k2[0], y[1] + 0.5 * dt * k2[1]]);
    let k4 = f([y[0] + dt * k3[0], y[1] + dt * k3[1]]);
    [
        y[0] + dt / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
        y[1] + dt / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
    ]
}

#[reverse]
fn oscillator(y0: [f64; 2], k: f64) -> f64 {
    let mut y = y0;
    for _ in 0..100 {
        y = rk4_step(y, 0.01, k);
    }
    y[0]
}

#[test]
fn rk4_harmonic_oscillator() {
    let (v, (dy0, dk)) = oscillator_grad([1.0, 0.0], 4.0);
    same(v, oscillator([1.0, 0.0], 4.0));
    // y(t) = cos(w t), w = sqrt(k), t = 1
    close(v, 2f64.cos(), 1e-8);
    close(dy0[0], 2f64.cos(), 1e-8);
    close(dy0[1], 2f64.sin() / 2.0, 1e-8);
    close(dk, -2f64.sin() * 1.0 / (2.0 * 2.0), 1e-7);
}

#[reverse]
fn euler_decay(y0: f64, lambda: f64, t_end: f64) -> f64 {
    let steps = 1000;
    let dt = t_end / steps as f64;
    let mut y = y0;
    let mut t = 0.0;
    while t < t_end - 0.5 * dt {
        y += dt * (-lambda * y);
        t += dt;
    }
    y
}

#[test]
fn euler_integrator() {
    let (v, (d0, dl, dt)) = euler_decay_grad(2.0, 0.5, 1.0);
    same(v, euler_decay(2.0, 0.5, 1.0));
    assert_fd(
        |p| euler_decay(p[0], p[1], p[2]),
        &[2.0, 0.5, 1.0],
        &[d0, dl, dt],
    );
}

/// A point mass in space.
#[derive(Clone, revad::Adjoint)]
pub struct Body {
    /// Position.
    pub pos: [f64; 3],
    /// Velocity.
    pub vel: [f64; 3],
    /// Mass.
    pub mass: f64,
}

impl Body {
    /// Kinetic energy.
    #[reverse]
    pub fn kinetic(&self) -> f64 {
        0.5 * self.mass * self.vel.iter().map(|v| v * v).sum::<f64>()
    }
}

#[reverse]
fn total_energy(bodies: &[Body]) -> f64 {
    let mut e = 0.0;
    for (i, a) in bodies.iter().enumerate() {
        e += a.kinetic();
        for b in &bodies[i + 1..] {
            let d2: f64 = a
                .pos
                .iter()
                .zip(b.pos.iter())
                .map(|(p, q)| (p - q) * (p - q))
                .sum();
            e -= a.mass * b.mass / d2.sqrt();
        }
    }
    e
}

#[test]
fn nbody_energy() {
    let bodies = vec![
        Body {
            pos: [0.0, 0.0, 0.0],
            vel: [0.1, 0.0, 0.0],
            mass: 1.0,
        },
        Body {
            pos: [1.0, 0.0, 0.5],
            vel: [0.0, 0.3, 0.0],
            mass: 0.5,
        },
        Body {
            pos: [0.0, 2.0, -1.0],
            vel: [0.0, 0.0, -0.2],
            mass: 0.2,
        },
    ];
    let (v, g) = total_energy_grad(&bodies);
    same(v, total_energy(&bodies));
    let flat = |bs: &[Body]| -> Vec<f64> {
        bs.iter()
            .flat_map(|b| b.pos.iter().chain(b.vel.iter()).copied().chain([b.mass]))
            .collect()
    };
    let unflat = |f: &[f64]| -> Vec<Body> {
        f.chunks(7)
            .map(|c| Body {
                pos: [c[0], c[1], c[2]],
                vel: [c[3], c[4], c[5]],
                mass: c[6],
            })
            .collect()
    };
    let gflat: Vec<f64> = g
        .iter()
        .flat_map(|b| b.pos.iter().chain(b.vel.iter()).copied().chain([b.mass]))
        .collect();
    assert_fd(|f| total_energy(&unflat(f)), &flat(&bodies), &gflat);
}

// ---- geometry --------------------------------------------------------------------------------

#[reverse]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[reverse]
fn triangle_area(p: [f64; 3], q: [f64; 3], r: [f64; 3]) -> f64 {
    let u = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
    let v = [r[0] - p[0], r[1] - p[1], r[2] - p[2]];
    let c = cross(u, v);
    0.5 * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
}

#[test]
fn cross_product_and_area() {
    let a = [1.0, 2.0, 3.0];
    let b = [-1.0, 0.5, 2.0];
    let seed = [0.3, -0.7, 1.1];
    let (v, (ga, gb)) = cross_vjp(a, b, seed);
    assert_eq!(v, cross(a, b));
    // <seed, a x b> = <a, b x seed> = <b, seed x a>
    assert_eq!(ga, cross(b, seed));
    assert_eq!(gb, cross(seed, a));

    let p = [0.0, 0.0, 0.0];
    let q = [1.0, 0.2, 0.0];
    let r = [0.3, 1.0, 0.4];
    let (v, (gp, gq, gr)) = triangle_area_grad(p, q, r);
    same(v, triangle_area(p, q, r));
    let all: Vec<f64> = p.iter().chain(&q).chain(&r).copied().collect();
    let g: Vec<f64> = gp.iter().chain(&gq).chain(&gr).copied().collect();
    assert_fd(
        |f| triangle_area([f[0], f[1], f[2]], [f[3], f[4], f[5]], [f[6], f[7], f[8]]),
        &all,
        &g,
    );
}

#[reverse]
fn polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

#[test]
fn polar_coordinates() {
    let (v, (dx, dy)) = polar_vjp(3.0, 4.0, (1.0, 0.0));
    assert_eq!(v, polar(3.0, 4.0));
    close(dx, 0.6, 1e-12);
    close(dy, 0.8, 1e-12);
    let (_, (dx, dy)) = polar_vjp(3.0, 4.0, (0.0, 1.0));
    close(dx, -4.0 / 25.0, 1e-12);
    close(dy, 3.0 / 25.0, 1e-12);
}

#[reverse]
fn polygon_perimeter(xs: &[[f64; 2]]) -> f64 {
    let n = xs.len();
    let mut p = 0.0;
    for i in 0..n {
        let j = (i + 1) % n;
        let (ax, ay) = (xs[i][0], xs[i][1]);
        let (bx, by) = (xs[j][0], xs[j][1]);
        p += ((bx - ax).powi(2) + (by - ay).powi(2)).sqrt();
    }
    p
}

#[test]
fn perimeter() {
    let xs = [[0.0, 0.0], [3.0, 0.0], [3.0, 4.0]];
    let (v, g) = polygon_perimeter_grad(&xs);
    same(v, polygon_perimeter(&xs));
    close(v, 12.0, 1e-12);
    let flat: Vec<f64> = xs.iter().flatten().copied().collect();
    let gflat: Vec<f64> = g.iter().flatten().copied().collect();
    assert_fd(
        |f| polygon_perimeter(&[[f[0], f[1]], [f[2], f[3]], [f[4], f[5]]]),
        &flat,
        &gflat,
    );
}

// ---- statistics ------------------------------------------------------------------------------

#[reverse]
fn variance(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
}

#[test]
fn sample_variance() {
    let x = [1.0, 2.5, 4.0, -1.0];
    let (v, g) = variance_grad(&x);
    same(v, variance(&x));
    let mean = x.iter().sum::<f64>() / 4.0;
    for i in 0..4 {
        close(g[i], 2.0 * (x[i] - mean) / 3.0, 1e-12);
    }
}

#[reverse]
fn normal_log_likelihood(data: &[f64], mu: f64, log_sigma: f64) -> f64 {
    let sigma = log_sigma.exp();
    let n = data.len() as f64;
    let ss: f64 = data.iter().map(|x| ((x - mu) / sigma).powi(2)).sum();
    -n * (log_sigma + 0.5 * (2.0 * std::f64::consts::PI).ln()) - 0.5 * ss
}

#[test]
fn gaussian_mle() {
    let d = [0.5, 1.5, 2.0, -0.3];
    let (v, (gd, gm, gs)) = normal_log_likelihood_grad(&d, 0.7, 0.1);
    same(v, normal_log_likelihood(&d, 0.7, 0.1));
    let s2 = (0.2f64).exp();
    let em: f64 = d.iter().map(|x| (x - 0.7) / s2).sum();
    close(gm, em, 1e-12);
    let es: f64 = -4.0 + d.iter().map(|x| (x - 0.7).powi(2) / s2).sum::<f64>();
    close(gs, es, 1e-12);
    for i in 0..4 {
        close(gd[i], -(d[i] - 0.7) / s2, 1e-12);
    }
}

#[reverse]
fn weighted_mean(x: &[f64], w: &[f64]) -> f64 {
    let num: f64 = x.iter().zip(w).map(|(xi, wi)| xi * wi).sum();
    let den: f64 = w.iter().sum();
    num / den
}

#[test]
fn weighted_mean_tuple_fold() {
    let x = [1.0, 2.0, 4.0];
    let w = [0.5, 0.25, 0.25];
    let (v, (gx, gw)) = weighted_mean_grad(&x, &w);
    same(v, weighted_mean(&x, &w));
    for i in 0..3 {
        close(gx[i], w[i], 1e-12);
        close(gw[i], x[i] - v, 1e-12);
    }
}

// ---- control flow ----------------------------------------------------------------------------

#[reverse]
fn activation(x: f64, kind: u8) -> f64 {
    match kind {
        0 => x.max(0.0),
        1 => x.tanh(),
        2 => 1.0 / (1.0 + (-x).exp()),
        3 => (1.0 + x.exp()).ln(),
        _ => x,
    }
}

#[test]
fn activations_by_match() {
    let x = 0.4;
    let s = sigmoid(x);
    let expected = [1.0, 1.0 - x.tanh().powi(2), s * (1.0 - s), s, 1.0];
    for (k, e) in expected.iter().enumerate() {
        let (v, d) = activation_grad(x, k as u8);
        same(v, activation(x, k as u8));
        close(d, *e, 1e-12);
    }
}

#[reverse]
fn first_above(x: &[f64], threshold: f64) -> f64 {
    let mut i = 0;
    let r = loop {
        if i == x.len() {
            break 0.0;
        }
        if x[i] > threshold {
            break x[i] * x[i];
        }
        i += 1;
    };
    r + threshold
}

#[test]
fn loop_break_value() {
    let x = [0.1, 0.5, 2.0, 3.0];
    let (v, (g, gt)) = first_above_grad(&x, 1.0);
    same(v, first_above(&x, 1.0));
    assert_eq!(g, vec![0.0, 0.0, 4.0, 0.0]);
    assert_eq!(gt, 1.0);
}

#[reverse]
fn closures_sum(x: f64, y: f64) -> f64 {
    let sq = |v: f64| v * v;
    let scale = 3.0;
    let lin = |v| scale * v + y;
    sq(x) + sq(y) + lin(x)
}

#[test]
fn closures_called_in_place() {
    let (v, (dx, dy)) = closures_sum_grad(1.5, -2.0);
    same(v, closures_sum(1.5, -2.0));
    assert_eq!((dx, dy), (2.0 * 1.5 + 3.0, 2.0 * -2.0 + 1.0));
}

#[reverse]
fn shadowing(x: f64) -> f64 {
    let y = x * 2.0;
    let y = {
        let t = y.sin();
        t * t
    };
    let x = y + x;
    x
}

#[test]
fn shadowing_and_blocks() {
    let (v, d) = shadowing_grad(0.3);
    same(v, shadowing(0.3));
    close(d, 2.0 * 0.6f64.sin() * 0.6f64.cos() * 2.0 + 1.0, 1e-12);
}

// ---- f32 and constants ----------------------------------------------------------------------

const WEIGHTS: [f64; 3] = [0.2, 0.3, 0.5];

#[reverse]
fn weighted(x: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for (w, v) in WEIGHTS.iter().zip(x) {
        s += w * v.exp();
    }
    s
}

#[test]
fn const_table() {
    let x = [0.1, -0.2, 0.3];
    let (v, g) = weighted_grad(x);
    same(v, weighted(x));
    for i in 0..3 {
        close(g[i], WEIGHTS[i] * x[i].exp(), 1e-12);
    }
}

#[reverse]
fn sigmoid32(x: f32, w: f32) -> f32 {
    let z = w * x;
    1.0 / (1.0 + (-z).exp())
}

#[test]
fn f32_sigmoid() {
    let (v, (dx, dw)) = sigmoid32_grad(0.5, 2.0);
    assert_eq!(v.to_bits(), sigmoid32(0.5, 2.0).to_bits());
    let s = v;
    assert!((dx - s * (1.0 - s) * 2.0).abs() < 1e-6);
    assert!((dw - s * (1.0 - s) * 0.5).abs() < 1e-6);
}

#[reverse]
fn mixed_precision(x: f32, n: usize) -> f32 {
    let mut acc = 0.0f32;
    for i in 0..n {
        acc += (x * i as f32).sin() / (i as f32 + 1.0);
    }
    acc
}

#[test]
fn f32_loop() {
    let (v, d) = mixed_precision_grad(0.3, 5);
    assert_eq!(v.to_bits(), mixed_precision(0.3, 5).to_bits());
    let mut e = 0.0f32;
    for i in 0..5 {
        e += (0.3 * i as f32).cos() * i as f32 / (i as f32 + 1.0);
    }
    assert!((d - e).abs() < 1e-5);
}

// ---- forward mode and Hessians --------------------------------------------------------------

#[revad::forward]
#[reverse]
fn rosen(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

#[reverse(hessian)]
fn rosen_h(x: [f64; 2]) -> f64 {
    (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2)
}

#[test]
fn rosenbrock_all_modes() {
    let (x, y) = (-1.2, 1.0);
    let gx = -2.0 * (1.0 - x) - 400.0 * x * (y - x * x);
    let gy = 200.0 * (y - x * x);
    let (v, (dx, dy)) = rosen_grad(x, y);
    same(v, rosen(x, y));
    close(dx, gx, 1e-12);
    close(dy, gy, 1e-12);
    let (v, t) = rosen_jvp(x, y, 0.5, -1.0);
    same(v, rosen(x, y));
    close(t, 0.5 * gx - gy, 1e-12);
    let (v, g, h) = rosen_h_hessian([x, y]);
    same(v, rosen_h([x, y]));
    close(g[0], gx, 1e-12);
    close(h[0][0], 2.0 - 400.0 * (y - 3.0 * x * x), 1e-12);
    close(h[0][1], -400.0 * x, 1e-12);
    close(h[1][0], -400.0 * x, 1e-12);
    close(h[1][1], 200.0, 1e-12);
}

#[revad::forward]
fn scale_vec(x: &[f64], a: f64) -> Vec<f64> {
    x.iter().map(|v| v * a + v.sin()).collect()
}

#[test]
fn forward_vec_result() {
    let x = [0.5, 1.0, -0.3];
    let (v, t) = scale_vec_jvp(&x, 2.0, &[1.0, 0.0, 0.0], 1.0);
    assert_eq!(v, scale_vec(&x, 2.0));
    close(t[0], 2.0 + 0.5f64.cos() + 0.5, 1e-12);
    close(t[1], 1.0, 1e-12);
    close(t[2], -0.3, 1e-12);
}

#[revad::forward]
fn dot_fwd(a: [f64; 3], b: [f64; 3]) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum()
}

#[test]
fn forward_dot() {
    let a = [1.0, 2.0, 3.0];
    let b = [4.0, 5.0, 6.0];
    let (v, t) = dot_fwd_jvp(a, b, [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
    same(v, 32.0);
    assert_eq!(t, 4.0 + 3.0);
}

#[reverse(hessian)]
fn quartic(x: &[f64]) -> f64 {
    x.iter().map(|v| v.powi(4)).sum::<f64>() + x[0] * x[1]
}

#[test]
fn hessian_slice() {
    let x = [1.0, 2.0];
    let (_, _, h) = quartic_hessian(&x);
    close(h[0][0], 12.0, 1e-12);
    close(h[1][1], 48.0, 1e-12);
    close(h[0][1], 1.0, 1e-12);
}

// ---- mutation --------------------------------------------------------------------------------

#[reverse]
fn normalize_in_place(x: &mut [f64]) -> f64 {
    let n = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    for v in x.iter_mut() {
        *v /= n;
    }
    n
}

#[test]
fn normalize_mut_slice() {
    let x0 = [3.0, 4.0];
    let mut x = x0;
    let (v, g) = normalize_in_place_vjp(&mut x, 1.0, vec![1.0, 0.0]);
    let mut y = x0;
    same(v, normalize_in_place(&mut y));
    assert_eq!(x, y);
    // d/dx (n + x0/n) = x/n + e0/n - x0 x / n^3
    let n = 5.0;
    let e = [
        3.0 / n + 1.0 / n - 3.0 * 3.0 / 125.0,
        4.0 / n - 3.0 * 4.0 / 125.0,
    ];
    close(g[0], e[0], 1e-12);
    close(g[1], e[1], 1e-12);
}

#[reverse]
fn gd_step(w: &mut [f64; 2], lr: f64) {
    let g = [2.0 * w[0], 4.0 * w[1]];
    w[0] -= lr * g[0];
    w[1] -= lr * g[1];
}

#[test]
fn gradient_descent_step() {
    let mut w = [1.0, 2.0];
    let ((), (gw, glr)) = gd_step_vjp(&mut w, 0.1, [1.0, 1.0]);
    assert_eq!(w, [0.8, 1.2]);
    assert_eq!(gw, [0.8, 1.0 - 0.4]);
    close(glr, -2.0 - 8.0, 1e-12);
}

#[reverse]
fn build_vec(x: f64, n: usize) -> f64 {
    let mut v = Vec::new();
    for i in 0..n {
        v.push(x * i as f64);
    }
    let mut s = 0.0;
    while !v.is_empty() {
        let last = v.pop().unwrap();
        s += last.sin();
    }
    s
}

#[test]
fn push_and_pop() {
    let (v, d) = build_vec_grad(0.3, 4);
    same(v, build_vec(0.3, 4));
    let e: f64 = (0..4).map(|i| i as f64 * (0.3 * i as f64).cos()).sum();
    close(d, e, 1e-12);
}

// ---- windows, chunks, rev ------------------------------------------------------------------

#[reverse]
fn total_variation(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).abs()).sum()
}

#[reverse]
fn pairwise(x: &[f64]) -> f64 {
    x.chunks(2).map(|c| c[0] * c[1]).sum::<f64>()
}

#[reverse]
fn discounted(rewards: &[f64], gamma: f64) -> f64 {
    let mut g = 0.0;
    for r in rewards.iter().rev() {
        g = r + gamma * g;
    }
    g
}

#[test]
fn windows_chunks_rev() {
    let x = [1.0, 3.0, 2.0, 5.0];
    let (v, g) = total_variation_grad(&x);
    same(v, total_variation(&x));
    assert_eq!(g, vec![-1.0, 2.0, -2.0, 1.0]);
    let (v, g) = pairwise_grad(&x);
    same(v, pairwise(&x));
    assert_eq!(g, vec![3.0, 1.0, 5.0, 2.0]);
    let (v, (gr, gg)) = discounted_grad(&x, 0.9);
    same(v, discounted(&x, 0.9));
    for t in 0..4 {
        close(gr[t], 0.9f64.powi(t as i32), 1e-12);
    }
    close(gg, 3.0 + 2.0 * 0.9 * 2.0 + 3.0 * 0.81 * 5.0, 1e-12);
}

// ---- structs ---------------------------------------------------------------------------------

/// A normal distribution.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Gaussian {
    /// Mean.
    pub mu: f64,
    /// Standard deviation.
    pub sigma: f64,
}

#[reverse]
fn make_gaussian(a: f64, b: f64) -> Gaussian {
    Gaussian {
        mu: a + b,
        sigma: (a * b).exp(),
    }
}

#[reverse]
fn nll(g: &Gaussian, x: f64) -> f64 {
    let z = (x - g.mu) / g.sigma;
    0.5 * z * z + g.sigma.ln()
}

#[reverse]
fn fit_gaussian(a: f64, b: f64, x: f64) -> f64 {
    let g = make_gaussian(a, b);
    let z = (x - g.mu) / g.sigma;
    0.5 * z * z + g.sigma.ln()
}

/// The result both read by field and passed by `&` (the field says it is a struct, not an
/// array).
#[reverse]
fn fit_gaussian_shifted(a: f64, b: f64, x: f64) -> f64 {
    let g = make_gaussian(a, b);
    let s = g.sigma;
    nll(&g, x) + s
}

#[test]
fn struct_result_and_parameter() {
    let p = [0.3, 0.5, 1.2];
    let (v, (ga, gb, gx)) = fit_gaussian_shifted_grad(p[0], p[1], p[2]);
    same(v, fit_gaussian_shifted(p[0], p[1], p[2]));
    assert_fd(
        |p| fit_gaussian_shifted(p[0], p[1], p[2]),
        &p,
        &[ga, gb, gx],
    );

    let (v, (ga, gb, gx)) = fit_gaussian_grad(0.3, 0.5, 1.2);
    same(v, fit_gaussian(0.3, 0.5, 1.2));
    assert_fd(
        |p| fit_gaussian(p[0], p[1], p[2]),
        &[0.3, 0.5, 1.2],
        &[ga, gb, gx],
    );
    let (g, seed) = (
        make_gaussian(0.3, 0.5),
        GaussianAdjoint {
            mu: 1.0,
            sigma: 2.0,
        },
    );
    let (v, (da, db)) = make_gaussian_vjp(0.3, 0.5, seed);
    assert_eq!((v.mu, v.sigma), (g.mu, g.sigma));
    close(da, 1.0 + 2.0 * 0.5 * g.sigma, 1e-12);
    close(db, 1.0 + 2.0 * 0.3 * g.sigma, 1e-12);
}

#[reverse]
fn take_vec(mut v: Vec<f64>, s: f64) -> f64 {
    for x in v.iter_mut() {
        *x *= s;
    }
    v.iter().map(|x| x.exp()).sum()
}

#[test]
fn vec_by_value() {
    let v0 = vec![0.1, 0.2];
    let (v, (gv, gs)) = take_vec_grad(v0.clone(), 2.0);
    same(v, take_vec(v0.clone(), 2.0));
    close(gv[0], 2.0 * 0.2f64.exp(), 1e-12);
    close(gv[1], 2.0 * 0.4f64.exp(), 1e-12);
    close(gs, 0.1 * 0.2f64.exp() + 0.2 * 0.4f64.exp(), 1e-12);
}

#[reverse]
fn tuple_param(p: (f64, f64), k: f64) -> f64 {
    let a = p.0;
    let b = p.1;
    a * k + b.powf(k)
}

#[test]
fn tuple_parameter() {
    let (v, (gp, gk)) = tuple_param_grad((2.0, 3.0), 1.5);
    same(v, tuple_param((2.0, 3.0), 1.5));
    close(gp.0, 1.5, 1e-12);
    close(gp.1, 1.5 * 3f64.powf(0.5), 1e-12);
    close(gk, 2.0 + 3f64.powf(1.5) * 3f64.ln(), 1e-12);
}

#[reverse]
fn safe_log(x: f64) -> f64 {
    (x + f64::EPSILON).ln() + std::f64::consts::PI * x
}

#[test]
fn std_constants() {
    let (v, d) = safe_log_grad(2.0);
    same(v, safe_log(2.0));
    close(d, 1.0 / (2.0 + f64::EPSILON) + std::f64::consts::PI, 1e-12);
}

// ---- copies ----------------------------------------------------------------------------------

/// `let mut y = *x;` of a `&[f64; N]` parameter is an owned copy (was E0594: the copy
/// cloned the reference).
#[reverse]
fn copy_deref(x: &[f64; 3]) -> f64 {
    let mut y = *x;
    y[0] *= 2.0;
    y[0] + y[1] * y[2]
}

#[reverse]
fn copy_deref_mut(x: &mut [f64; 3]) -> f64 {
    let mut y = *x;
    y[0] *= 2.0;
    x[1] += y[0];
    y[0] + y[1] * y[2]
}

#[reverse]
fn copy_plain(x: [f64; 3]) -> f64 {
    let mut y = x;
    y[0] *= 2.0;
    x[0] + y[0] + y[1] * y[2]
}

#[reverse]
fn copy_vec(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    y[0] *= 2.0;
    x[0] + y[0]
}

#[revad::forward]
fn copy_fwd(x: &[f64; 3]) -> f64 {
    let mut y = *x;
    y[0] *= 2.0;
    y[0] + y[1] * y[2]
}

#[reverse]
fn copy_ref_vec(x: &Vec<f64>) -> f64 {
    let mut y = x.clone();
    y[0] *= 2.0;
    let mut z = x.to_vec();
    z[1] *= 3.0;
    y[0] + z[1] * x[0]
}

#[reverse(cps)]
fn copy_cps(x: &[f64; 3]) -> f64 {
    let mut y = *x;
    y[0] *= 2.0;
    y[0] + y[1] * y[2]
}

#[reverse(hessian)]
fn copy_h(x: &[f64; 3]) -> f64 {
    let mut y = *x;
    y[0] *= 2.0;
    y[0] * y[0] + y[1] * y[2]
}

#[test]
fn copy_of_a_borrowed_array() {
    let x = [1.0, 2.0, 3.0];
    // y = (2 x0, x1, x2): d/dx (y0 + y1 y2) = (2, x2, x1)
    let (v, g) = copy_deref_grad(&x);
    same(v, copy_deref(&x));
    assert_eq!(g, [2.0, 3.0, 2.0]);
    let (mut a, mut b) = (x, x);
    let (v, g) = copy_deref_mut_grad(&mut a);
    same(v, copy_deref_mut(&mut b));
    assert_eq!(a, b);
    assert_eq!(g, [2.0, 3.0, 2.0]);
    let (v, g) = copy_plain_grad(x);
    same(v, copy_plain(x));
    assert_eq!(g, [3.0, 3.0, 2.0]);
    let (v, g) = copy_vec_grad(&x);
    same(v, copy_vec(&x));
    assert_eq!(g, vec![3.0, 0.0, 0.0]);
    let (v, t) = copy_fwd_jvp(&x, &[1.0, 1.0, 1.0]);
    same(v, copy_fwd(&x));
    assert_eq!(t, 2.0 + 3.0 + 2.0);
    let xv = vec![1.0, 2.0];
    // y0 + z1 x0 = 2 x0 + 3 x1 x0
    let (v, g) = copy_ref_vec_grad(&xv);
    same(v, copy_ref_vec(&xv));
    assert_eq!(g, vec![2.0 + 6.0, 3.0]);
    let (v, g) = copy_cps_grad(&x);
    same(v, copy_cps(&x));
    assert_eq!(g, [2.0, 3.0, 2.0]);
    // 4 x0^2 + x1 x2
    let (v, _, h) = copy_h_hessian(&x);
    same(v, copy_h(&x));
    assert_eq!(
        h,
        vec![
            vec![8.0, 0.0, 0.0],
            vec![0.0, 0.0, 1.0],
            vec![0.0, 1.0, 0.0]
        ]
    );
}

// ---- assorted applications ------------------------------------------------------------------

#[reverse]
fn leaky(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        let a = if v > 0.0 { v } else { 0.01 * v };
        s += a * a;
    }
    s
}

#[reverse]
fn softplus_stable(x: f64) -> f64 {
    if x > 20.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

#[reverse]
fn kl(p: &[f64], q: &[f64]) -> f64 {
    p.iter().zip(q).map(|(a, b)| a * (a / b).ln()).sum()
}

#[reverse]
fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (na * nb)
}

#[reverse]
fn det3(m: [[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

#[reverse]
fn matmul2(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> [[f64; 2]; 2] {
    let mut c = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                c[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    c
}

#[reverse]
fn argmax_pick(x: &[f64]) -> f64 {
    let mut k = 0;
    for i in 1..x.len() {
        if x[i] > x[k] {
            k = i;
        }
    }
    x[k] * 2.0 + x[0]
}

#[reverse]
fn nearest(points: &[[f64; 2]], q: [f64; 2]) -> f64 {
    let mut best = f64::INFINITY;
    for p in points {
        let d = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
        if d < best {
            best = d;
        }
    }
    best.sqrt()
}

#[reverse]
fn geometric(r: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 0.0;
    let mut n = 0;
    loop {
        sum += term;
        term *= r;
        n += 1;
        if n >= 50 || term.abs() < 1e-17 {
            break;
        }
    }
    sum
}

#[reverse]
fn fold_capture(x: &[f64], w: f64) -> f64 {
    x.iter().fold(0.0, |acc, v| acc + w * v * v)
}

#[reverse]
fn centroid_dist(flat: &[f64]) -> f64 {
    let n = flat.len() / 3;
    let mut c = [0.0; 3];
    for p in flat.chunks_exact(3) {
        for k in 0..3 {
            c[k] += p[k] / n as f64;
        }
    }
    let mut s = 0.0;
    for p in flat.chunks_exact(3) {
        s += (0..3).map(|k| (p[k] - c[k]).powi(2)).sum::<f64>();
    }
    s
}

static TABLE: [f64; 4] = [1.0, 0.5, 0.25, 0.125];

#[reverse]
fn static_table(x: f64) -> f64 {
    let mut s = 0.0;
    for (i, t) in TABLE.iter().enumerate() {
        s += t * x.powi(i as i32);
    }
    s
}

#[derive(Clone, Copy, Debug, revad::Adjoint)]
/// A plane vector, by value.
pub struct Vec2 {
    /// Abscissa.
    pub x: f64,
    /// Ordinate.
    pub y: f64,
}

#[reverse]
fn vadd(a: Vec2, b: Vec2) -> Vec2 {
    Vec2 {
        x: a.x + b.x,
        y: a.y + b.y,
    }
}

#[reverse]
fn vlen(a: Vec2) -> f64 {
    (a.x * a.x + a.y * a.y).sqrt()
}

#[reverse]
fn path_len(a: Vec2, b: Vec2) -> f64 {
    let c: Vec2 = vadd(a, b);
    vlen(c) + vlen(a)
}

#[derive(Clone, Debug, revad::Adjoint)]
/// A plane figure.
pub enum Shape {
    /// A circle of radius.
    Circle(f64),
    /// A rectangle.
    Rect {
        /// Width.
        w: f64,
        /// Height.
        h: f64,
    },
}

#[reverse]
fn area(s: &Shape) -> f64 {
    match s {
        Shape::Circle(r) => std::f64::consts::PI * r * r,
        Shape::Rect { w, h } => w * h,
    }
}

#[reverse]
fn total_area(shapes: &[Shape]) -> f64 {
    shapes.iter().map(|s| area(s)).sum()
}

#[reverse]
fn recurse_pow(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * recurse_pow(x, n - 1)
    }
}

#[reverse]
fn generic_norm<T: revad::Float>(x: &[T]) -> T {
    let mut s = T::ZERO;
    for &v in x {
        s += v * v;
    }
    s.sqrt()
}

#[reverse]
fn f32_sum(x: &[f32]) -> f32 {
    x.iter().map(|v| v.sin()).sum::<f32>()
}

#[reverse]
fn minmax_clamp(x: f64, lo: f64, hi: f64) -> f64 {
    let y = x.clamp(lo, hi);
    y.max(0.5 * lo).min(2.0 * hi) + x.min(lo)
}

#[reverse]
fn gauss_seidel(b: &[f64], d: f64) -> f64 {
    let n = b.len();
    let mut x = vec![0.0; n];
    for _ in 0..20 {
        for i in 0..n {
            let mut s = b[i];
            if i > 0 {
                s += x[i - 1];
            }
            if i + 1 < n {
                s += x[i + 1];
            }
            x[i] = s / d;
        }
    }
    x.iter().sum()
}

#[reverse]
fn two_outputs(x: f64) -> (f64, f64) {
    (x.sin(), x.cos())
}

#[reverse]
fn use_two(x: f64) -> f64 {
    let (s, c) = two_outputs(x);
    s * s - c
}

#[reverse]
fn verlet(x0: f64, v0: f64, k: f64) -> f64 {
    let dt = 0.01;
    let mut x = x0;
    let mut v = v0;
    let mut a = -k * x;
    for _ in 0..200 {
        x += v * dt + 0.5 * a * dt * dt;
        let a_new = -k * x;
        v += 0.5 * (a + a_new) * dt;
        a = a_new;
    }
    0.5 * v * v + 0.5 * k * x * x
}

#[reverse]
fn continue_skip(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate() {
        if i % 2 == 1 {
            continue;
        }
        if v < 0.0 {
            break;
        }
        s += v.sqrt();
    }
    s
}

#[reverse]
fn match_guard(x: f64, n: i32) -> f64 {
    match n {
        i32::MIN..=-1 => -x,
        0 => 0.0,
        _ if n % 2 == 0 => x.powi(n),
        _ => x.powi(n) * 0.5,
    }
}

#[reverse]
fn rev_enum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().rev().enumerate() {
        s += (i as f64 + 1.0) * v * v;
    }
    s
}

#[reverse]
fn skip_take(x: &[f64]) -> f64 {
    x.iter().skip(1).take(2).map(|v| v.exp()).sum()
}

#[reverse]
fn mut_vec_push(out: &mut Vec<f64>, x: f64) {
    out.push(x * x);
    out[0] *= x;
}

#[reverse]
fn gram(a: [f64; 2], b: [f64; 2]) -> f64 {
    let na = (a[0] * a[0] + a[1] * a[1]).sqrt();
    let u = [a[0] / na, a[1] / na];
    let p = b[0] * u[0] + b[1] * u[1];
    let w = [b[0] - p * u[0], b[1] - p * u[1]];
    w[0].hypot(w[1])
}

#[reverse]
fn compound_ops(x: &[f64; 3]) -> f64 {
    let mut y = *x;
    y[0] *= 2.0;
    y[1] /= y[0];
    y[2] -= y[1] * y[0];
    y[0] += 1.0;
    y.iter().product::<f64>()
}

#[reverse]
fn quat_rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let [w, x, y, z] = q;
    let t = [
        2.0 * (y * v[2] - z * v[1]),
        2.0 * (z * v[0] - x * v[2]),
        2.0 * (x * v[1] - y * v[0]),
    ];
    [
        v[0] + w * t[0] + (y * t[2] - z * t[1]),
        v[1] + w * t[1] + (z * t[0] - x * t[2]),
        v[2] + w * t[2] + (x * t[1] - y * t[0]),
    ]
}

#[test]
fn assorted_applications() {
    let x = [0.5, -1.0, 2.0];
    let (v, g) = leaky_grad(&x);
    same(v, leaky(&x));
    assert_fd(leaky, &x, &g);
    for &z in &[-3.0, 1.0, 25.0] {
        let (v, d) = softplus_stable_grad(z);
        same(v, softplus_stable(z));
        assert_fd(|p| softplus_stable(p[0]), &[z], &[d]);
    }
    let p = [0.2, 0.3, 0.5];
    let q = [0.4, 0.4, 0.2];
    let (v, (gp, gq)) = kl_grad(&p, &q);
    same(v, kl(&p, &q));
    assert_fd(|p| kl(p, &q), &p, &gp);
    assert_fd(|q| kl(&p, q), &q, &gq);
    let (v, (ga, gb)) = cosine_grad(&p, &x);
    same(v, cosine(&p, &x));
    assert_fd(|a| cosine(a, &x), &p, &ga);
    assert_fd(|b| cosine(&p, b), &x, &gb);
    let m = [[2.0, 1.0, 0.5], [0.3, 1.5, -1.0], [0.0, 0.7, 3.0]];
    let (v, g) = det3_grad(m);
    same(v, det3(m));
    let flat: Vec<f64> = m.iter().flatten().copied().collect();
    let gf: Vec<f64> = g.iter().flatten().copied().collect();
    assert_fd(
        |f| det3([[f[0], f[1], f[2]], [f[3], f[4], f[5]], [f[6], f[7], f[8]]]),
        &flat,
        &gf,
    );
    let a = [[1.0, 2.0], [3.0, 4.0]];
    let b = [[0.5, -1.0], [2.0, 0.25]];
    let (c, (ga, gb)) = matmul2_vjp(a, b, [[1.0, 0.0], [0.0, 1.0]]);
    assert_eq!(c, matmul2(a, b));
    // d tr(AB)/dA = B^T
    for i in 0..2 {
        for j in 0..2 {
            close(ga[i][j], b[j][i], 1e-12);
            close(gb[i][j], a[j][i], 1e-12);
        }
    }
    let (v, g) = argmax_pick_grad(&x);
    same(v, argmax_pick(&x));
    assert_eq!(g, vec![1.0, 0.0, 2.0]);
    let pts = [[0.0, 0.0], [1.0, 1.0], [3.0, -1.0]];
    let (v, (gpt, gq)) = nearest_grad(&pts, [0.9, 1.3]);
    same(v, nearest(&pts, [0.9, 1.3]));
    assert_fd(|q| nearest(&pts, [q[0], q[1]]), &[0.9, 1.3], &gq);
    assert_eq!(gpt[0], [0.0, 0.0]);
    let (v, d) = geometric_grad(0.5);
    same(v, geometric(0.5));
    close(d, 1.0 / 0.25, 1e-9);
    let (v, (gx, gw)) = fold_capture_grad(&x, 1.5);
    same(v, fold_capture(&x, 1.5));
    assert_fd(|p| fold_capture(&x, p[0]), &[1.5], &[gw]);
    assert_fd(|x| fold_capture(x, 1.5), &x, &gx);
    let flat = [0.0, 1.0, 2.0, 1.0, -1.0, 0.5, 2.0, 0.0, 1.0];
    let (v, g) = centroid_dist_grad(&flat);
    same(v, centroid_dist(&flat));
    assert_fd(centroid_dist, &flat, &g);
    let (v, d) = static_table_grad(2.0);
    same(v, static_table(2.0));
    close(d, 0.5 + 0.5 * 2.0 + 0.375 * 4.0, 1e-12);
    let (a, b) = (Vec2 { x: 1.0, y: 2.0 }, Vec2 { x: 0.5, y: -1.0 });
    let (v, (ga, gb)) = path_len_grad(a, b);
    same(v, path_len(a, b));
    assert_fd(
        |f| path_len(Vec2 { x: f[0], y: f[1] }, Vec2 { x: f[2], y: f[3] }),
        &[1.0, 2.0, 0.5, -1.0],
        &[ga.x, ga.y, gb.x, gb.y],
    );
    let shapes = vec![Shape::Circle(1.5), Shape::Rect { w: 2.0, h: 3.0 }];
    let (v, g) = total_area_grad(&shapes);
    same(v, total_area(&shapes));
    match &g[0] {
        ShapeAdjoint::Circle(r) => close(*r, 3.0 * std::f64::consts::PI, 1e-12),
        _ => panic!(),
    }
    match &g[1] {
        ShapeAdjoint::Rect { w, h } => {
            close(*w, 3.0, 1e-12);
            close(*h, 2.0, 1e-12)
        }
        _ => panic!(),
    }
    let (v, d) = recurse_pow_grad(1.3, 5);
    same(v, recurse_pow(1.3, 5));
    close(d, 5.0 * 1.3f64.powi(4), 1e-12);
    let (v, g) = generic_norm_grad(&[3.0f32, 4.0]);
    assert_eq!(v, 5.0);
    assert!((g[0] - 0.6).abs() < 1e-6 && (g[1] - 0.8).abs() < 1e-6);
    let (v, g) = f32_sum_grad(&[0.5f32, 1.0]);
    assert_eq!(v.to_bits(), f32_sum(&[0.5, 1.0]).to_bits());
    assert!((g[0] - 0.5f32.cos()).abs() < 1e-6);
    for &z in &[-2.0, 0.3, 1.7, 5.0] {
        let (v, (dx, dl, dh)) = minmax_clamp_grad(z, 0.0, 2.0);
        same(v, minmax_clamp(z, 0.0, 2.0));
        assert_fd(
            |p| minmax_clamp(p[0], p[1], p[2]),
            &[z, 0.0, 2.0],
            &[dx, dl, dh],
        );
    }
    let b = [1.0, 2.0, 3.0, 4.0];
    let (v, (gb, gd)) = gauss_seidel_grad(&b, 4.0);
    same(v, gauss_seidel(&b, 4.0));
    assert_fd(|b| gauss_seidel(b, 4.0), &b, &gb);
    assert_fd(|d| gauss_seidel(&b, d[0]), &[4.0], &[gd]);
    let (v, d) = use_two_grad(0.7);
    same(v, use_two(0.7));
    close(d, 2.0 * 0.7f64.sin() * 0.7f64.cos() + 0.7f64.sin(), 1e-12);
    let (v, (a, b, c)) = verlet_grad(1.0, 0.5, 2.0);
    same(v, verlet(1.0, 0.5, 2.0));
    assert_fd(|p| verlet(p[0], p[1], p[2]), &[1.0, 0.5, 2.0], &[a, b, c]);
    let xs = [4.0, -1.0, 9.0, 2.0, -1.0, 3.0];
    let (v, g) = continue_skip_grad(&xs);
    same(v, continue_skip(&xs));
    assert_eq!(g, vec![0.25, 0.0, 1.0 / 6.0, 0.0, 0.0, 0.0]);
    for n in [-2, 0, 2, 3] {
        let (v, d) = match_guard_grad(1.5, n);
        same(v, match_guard(1.5, n));
        assert_fd(|p| match_guard(p[0], n), &[1.5], &[d]);
    }
    let (v, g) = rev_enum_grad(&x);
    same(v, rev_enum(&x));
    assert_fd(rev_enum, &x, &g);
    let (v, g) = skip_take_grad(&x);
    same(v, skip_take(&x));
    assert_eq!(g, vec![0.0, (-1.0f64).exp(), 2f64.exp()]);
    let mut out = vec![2.0];
    let ((), (gout, gx)) = mut_vec_push_vjp(&mut out, 3.0, vec![1.0, 1.0]);
    assert_eq!(out, vec![6.0, 9.0]);
    assert_eq!(gout, vec![3.0]);
    close(gx, 2.0 + 6.0, 1e-12);
    let (v, (ga, gb)) = gram_grad([1.0, 0.5], [0.3, 2.0]);
    same(v, gram([1.0, 0.5], [0.3, 2.0]));
    assert_fd(
        |f| gram([f[0], f[1]], [f[2], f[3]]),
        &[1.0, 0.5, 0.3, 2.0],
        &[ga[0], ga[1], gb[0], gb[1]],
    );
    let x3 = [1.5, 2.0, -0.5];
    let (v, g) = compound_ops_grad(&x3);
    same(v, compound_ops(&x3));
    assert_fd(|f| compound_ops(&[f[0], f[1], f[2]]), &x3, &g);
    let q = [0.9, 0.1, -0.3, 0.2];
    let v3 = [1.0, 2.0, 3.0];
    let (r, (gq, gv)) = quat_rotate_vjp(q, v3, [1.0, 0.0, 0.0]);
    assert_eq!(r, quat_rotate(q, v3));
    let all: Vec<f64> = q.iter().chain(&v3).copied().collect();
    let g: Vec<f64> = gq.iter().chain(&gv).copied().collect();
    assert_fd(
        |f| quat_rotate([f[0], f[1], f[2], f[3]], [f[4], f[5], f[6]])[0],
        &all,
        &g,
    );
}

// ---- control flow, models, forward mode ------------------------------------------------------

#[reverse]
fn swap_arrays(a0: [f64; 2], k: f64) -> f64 {
    let mut a = a0;
    let mut b = [k, 2.0 * k];
    for _ in 0..3 {
        let tmp = a;
        a = b;
        b = [tmp[0] * k + b[1], tmp[1].sin()];
    }
    a[0] * b[1] + a[1]
}

#[reverse]
fn even_squares(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, v)| v * v)
        .sum()
}

#[reverse]
fn closure_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let f = |t: f64| t * x[i] + s;
        s += f(2.0).sin();
    }
    s
}

#[reverse]
fn early_return(x: &[f64], cap: f64) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += v * v;
        if s > cap {
            return s.sqrt();
        }
    }
    s
}

#[reverse]
fn cumsum(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    let mut acc = 0.0;
    for v in x {
        acc += v;
        out.push(acc);
    }
    out
}

#[reverse]
fn relu_collect(x: &[f64]) -> f64 {
    let h: Vec<f64> = x.iter().map(|v| v.max(0.0)).collect();
    h.iter().zip(x).map(|(a, b)| a * b).sum()
}

#[reverse]
fn ufcs(x: f64, y: f64) -> f64 {
    f64::powf(x, 2.5)
        + f64::max(x, y)
        + x.sqrt().recip()
        + x.mul_add(y, 1.0)
        + std::f64::consts::E * y
}

#[reverse]
fn phi_branches(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    if x * y > 1.0 {
        a = x * x;
    } else {
        b = y.exp();
        a += b;
    }
    a * b
}

#[reverse]
fn labeled(m: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..n {
        for j in 0..n {
            let v = m[i * n + j];
            if v < 0.0 {
                continue 'outer;
            }
            if s > 10.0 {
                break 'outer;
            }
            s += v * (i + j) as f64;
        }
    }
    s
}

#[reverse]
fn halve_until(x: f64) -> f64 {
    let mut y = x;
    let mut n = 0;
    loop {
        if y > 1.0 {
            y *= 0.5;
            n += 1;
        } else {
            break;
        }
    }
    y + n as f64
}

#[reverse]
fn fast_pow(b0: f64, e: u32) -> f64 {
    let mut r = 1.0;
    let mut b = b0;
    let mut n = e;
    while n > 0 {
        if n & 1 == 1 {
            r *= b;
        }
        b *= b;
        n >>= 1;
    }
    r
}

#[reverse]
fn tuple_closure_call(x: f64) -> f64 {
    let f = |a: f64| (a.sin(), a.cos());
    let (s, c) = f(x);
    s * c
}

#[derive(Clone, Debug, revad::Adjoint)]
/// A linear model.
pub struct LinearModel {
    /// Weights.
    pub w: Vec<f64>,
    /// Bias.
    pub b: f64,
}

impl LinearModel {
    #[reverse]
    /// `w . x + b`.
    pub fn predict(&self, x: &[f64]) -> f64 {
        self.w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>() + self.b
    }

    #[reverse]
    /// Mean squared error.
    pub fn loss(&self, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut l = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let e = self.predict(x) - y;
            l += e * e;
        }
        l / ys.len() as f64
    }

    #[reverse]
    /// One step of stochastic gradient descent, in place.
    pub fn sgd(&mut self, x: &[f64], y: f64, lr: f64) {
        let e = self.predict(x) - y;
        for (w, xi) in self.w.iter_mut().zip(x) {
            *w -= lr * e * xi;
        }
        self.b -= lr * e;
    }
}

#[reverse]
fn iter_mut_zip(x: &mut [f64], y: &[f64]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a = *a * b + b.sin();
    }
}

#[revad::forward]
fn fwd_while(x: f64, a: f64) -> f64 {
    let mut y = x;
    let mut i = 0;
    while i < 10 {
        y = y * a + (y * 0.1).sin();
        i += 1;
    }
    y
}

#[revad::forward]
fn polar_to_cart(r: f64, t: f64) -> [f64; 2] {
    [r * t.cos(), r * t.sin()]
}

#[reverse]
fn log_softmax(x: &[f64], k: usize) -> f64 {
    let m = x.iter().cloned().fold(f64::MIN, f64::max);
    let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
    x[k] - m - s.ln()
}

#[reverse]
fn log1p_exp(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

#[reverse]
fn pend_step(s: &mut [f64; 2], dt: f64, g: f64) {
    let a = -g * s[0].sin();
    s[1] += dt * a;
    s[0] += dt * s[1];
}

#[reverse]
fn pendulum(theta0: f64, g: f64) -> f64 {
    let mut s = [theta0, 0.0];
    for _ in 0..50 {
        pend_step(&mut s, 0.02, g);
    }
    s[0]
}

#[reverse]
fn f32_cast_mean(x: &[f32]) -> f32 {
    let n = x.len() as f32;
    x.iter().map(|v| v * v).sum::<f32>() / n
}

#[reverse]
fn accumulate_branches(x: &[f64], t: f64) -> f64 {
    let mut pos = 0.0;
    let mut neg = 0.0;
    for &v in x {
        if v > t {
            pos += (v - t).powi(2);
        } else {
            neg -= (t - v).ln_1p();
        }
    }
    pos * neg
}

#[test]
fn assorted_control_flow_and_models() {
    let (v, (ga, gk)) = swap_arrays_grad([0.5, 1.0], 0.7);
    same(v, swap_arrays([0.5, 1.0], 0.7));
    assert_fd(
        |p| swap_arrays([p[0], p[1]], p[2]),
        &[0.5, 1.0, 0.7],
        &[ga[0], ga[1], gk],
    );
    let x = [0.5, -1.0, 2.0, 0.3];
    let (v, g) = even_squares_grad(&x);
    same(v, even_squares(&x));
    assert_eq!(g, vec![1.0, 0.0, 4.0, 0.0]);
    let (v, g) = closure_in_loop_grad(&x);
    same(v, closure_in_loop(&x));
    assert_fd(closure_in_loop, &x, &g);
    for cap in [0.5, 100.0] {
        let (v, (g, gc)) = early_return_grad(&x, cap);
        same(v, early_return(&x, cap));
        assert_fd(|x| early_return(x, cap), &x, &g);
        assert_eq!(gc, 0.0);
    }
    let (v, g) = cumsum_vjp(&x, vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(v, cumsum(&x));
    assert_eq!(g, vec![10.0, 9.0, 7.0, 4.0]);
    let (v, g) = relu_collect_grad(&x);
    same(v, relu_collect(&x));
    assert_fd(relu_collect, &x, &g);
    let (v, (gx, gy)) = ufcs_grad(1.3, 0.4);
    same(v, ufcs(1.3, 0.4));
    assert_fd(|p| ufcs(p[0], p[1]), &[1.3, 0.4], &[gx, gy]);
    for (a, b) in [(2.0, 3.0), (0.2, 0.5)] {
        let (v, (gx, gy)) = phi_branches_grad(a, b);
        same(v, phi_branches(a, b));
        assert_fd(|p| phi_branches(p[0], p[1]), &[a, b], &[gx, gy]);
    }
    let m = [1.0, 2.0, -1.0, 0.5, 3.0, 1.0, 2.0, 2.0, 2.0];
    let (v, g) = labeled_grad(&m, 3);
    same(v, labeled(&m, 3));
    assert_fd(|m| labeled(m, 3), &m, &g);
    let (v, d) = halve_until_grad(5.0);
    same(v, halve_until(5.0));
    close(d, 0.125, 1e-15);
    let (v, d) = fast_pow_grad(1.1, 13);
    same(v, fast_pow(1.1, 13));
    close(d, 13.0 * 1.1f64.powi(12), 1e-12);
    let (v, d) = tuple_closure_call_grad(0.3);
    same(v, tuple_closure_call(0.3));
    close(d, 0.6f64.cos(), 1e-12);
    let lin = LinearModel {
        w: vec![0.5, -0.2],
        b: 0.1,
    };
    let xs = vec![vec![1.0, 2.0], vec![-1.0, 0.5], vec![0.3, 0.3]];
    let ys = vec![1.0, 0.0, 0.5];
    let (v, (gl, _, _)) = lin.loss_grad(&xs, &ys);
    same(v, lin.loss(&xs, &ys));
    let mut ew = [0.0; 2];
    let mut eb = 0.0;
    for (x, y) in xs.iter().zip(&ys) {
        let e = lin.predict(x) - y;
        ew[0] += 2.0 * e * x[0] / 3.0;
        ew[1] += 2.0 * e * x[1] / 3.0;
        eb += 2.0 * e / 3.0;
    }
    close(gl.w[0], ew[0], 1e-12);
    close(gl.w[1], ew[1], 1e-12);
    close(gl.b, eb, 1e-12);
    let mut m1 = lin.clone();
    let mut m2 = lin.clone();
    let seed = LinearModelAdjoint {
        w: vec![1.0, 0.0],
        b: 0.0,
    };
    let ((), (gm, _gx, _gy, glr)) = m1.sgd_vjp(&xs[0], 1.0, 0.1, seed);
    m2.sgd(&xs[0], 1.0, 0.1);
    assert_eq!(m1.w, m2.w);
    // w0' = w0 - lr e x0, e = w.x + b - y
    let e = lin.predict(&xs[0]) - 1.0;
    close(glr, -e * xs[0][0], 1e-12);
    close(gm.w[0], 1.0 - 0.1 * xs[0][0] * xs[0][0], 1e-12);
    close(gm.b, -0.1 * xs[0][0], 1e-12);
    let mut a = vec![1.0, 2.0];
    let y = [0.5, 3.0];
    let ((), (ga, gy)) = iter_mut_zip_vjp(&mut a, &y, vec![1.0, 1.0]);
    assert_eq!(a, vec![0.5 + 0.5f64.sin(), 6.0 + 3f64.sin()]);
    assert_eq!(ga, vec![0.5, 3.0]);
    close(gy[0], 1.0 + 0.5f64.cos(), 1e-12);
    let (v, t) = fwd_while_jvp(0.4, 1.1, 1.0, 0.0);
    same(v, fwd_while(0.4, 1.1));
    let h = 1e-6;
    close(
        t,
        (fwd_while(0.4 + h, 1.1) - fwd_while(0.4 - h, 1.1)) / (2.0 * h),
        1e-6,
    );
    let (v, j) = polar_to_cart_jacobian(2.0, 0.5);
    assert_eq!(v, polar_to_cart(2.0, 0.5));
    close(j[0][0], 0.5f64.cos(), 1e-12);
    close(j[0][1], -2.0 * 0.5f64.sin(), 1e-12);
    close(j[1][0], 0.5f64.sin(), 1e-12);
    close(j[1][1], 2.0 * 0.5f64.cos(), 1e-12);
    let (v, g) = log_softmax_grad(&x, 2);
    same(v, log_softmax(&x, 2));
    assert_fd(|x| log_softmax(x, 2), &x, &g);
    for z in [-1.0, 2.0] {
        let (v, d) = log1p_exp_grad(z);
        same(v, log1p_exp(z));
        close(d, 1.0 / (1.0 + (-z).exp()), 1e-12);
    }
    let (v, (gt, gg)) = pendulum_grad(0.3, 9.81);
    same(v, pendulum(0.3, 9.81));
    assert_fd(|p| pendulum(p[0], p[1]), &[0.3, 9.81], &[gt, gg]);
    let (v, g) = f32_cast_mean_grad(&[1.0f32, 2.0]);
    assert_eq!(v, 2.5);
    assert_eq!(g, vec![1.0, 2.0]);
    let (v, (g, gt)) = accumulate_branches_grad(&x, 0.4);
    same(v, accumulate_branches(&x, 0.4));
    assert_fd(|x| accumulate_branches(x, 0.4), &x, &g);
    assert_fd(|t| accumulate_branches(&x, t[0]), &[0.4], &[gt]);
}

// ---- destructuring parts of aggregates ---------------------------------------------------------

#[reverse]
fn perimeter_destructured(xs: &[[f64; 2]]) -> f64 {
    let n = xs.len();
    let mut p = 0.0;
    for i in 0..n {
        let j = (i + 1) % n;
        let [ax, ay] = xs[i];
        let [bx, by] = xs[j];
        p += ((bx - ax).powi(2) + (by - ay).powi(2)).sqrt();
    }
    p
}

#[reverse]
fn tuple_param_destructured(p: (f64, f64), k: f64) -> f64 {
    let (a, b) = p;
    a * k + b.powf(k)
}

#[derive(Clone, Debug, revad::Adjoint)]
/// A struct with an array and a tuple field.
pub struct Rod {
    /// Position.
    pub pos: [f64; 2],
    /// Two ends.
    pub ends: (f64, f64),
}

#[reverse]
fn body_parts(b: &Rod) -> f64 {
    let [x, _] = b.pos;
    let (l, r) = b.ends;
    x * l + r
}

#[reverse]
fn mut_parts(b: &mut Rod) -> f64 {
    let [mut x, y] = b.pos;
    x *= 2.0;
    b.pos[0] = y;
    let (l, _) = b.ends;
    x * l + b.pos[0]
}

#[test]
fn destructuring_parts_of_aggregates() {
    let xs = [[0.0, 0.0], [3.0, 0.0], [3.0, 4.0]];
    let (v, g) = perimeter_destructured_grad(&xs);
    assert_eq!(v, perimeter_destructured(&xs));
    assert_eq!(v, 12.0);
    assert_eq!(g[0], [-0.6 + -1.0, -0.8]);
    let (v, (gp, gk)) = tuple_param_destructured_grad((2.0, 3.0), 1.5);
    assert_eq!(v, tuple_param_destructured((2.0, 3.0), 1.5));
    assert_eq!(gp.0, 1.5);
    assert!((gp.1 - 1.5 * 3f64.sqrt()).abs() < 1e-12);
    assert!((gk - (2.0 + 3f64.powf(1.5) * 3f64.ln())).abs() < 1e-12);
    let b = Rod {
        pos: [2.0, 5.0],
        ends: (3.0, 7.0),
    };
    let (v, g) = body_parts_grad(&b);
    assert_eq!(v, body_parts(&b));
    assert_eq!((g.pos, g.ends), ([3.0, 0.0], (2.0, 1.0)));
    let (mut b1, mut b2) = (b.clone(), b.clone());
    let (v, g) = mut_parts_grad(&mut b1);
    assert_eq!(v, mut_parts(&mut b2));
    assert_eq!(b1.pos, b2.pos);
    assert_eq!((g.pos, g.ends), ([6.0, 1.0], (4.0, 0.0)));
}

#[reverse]
fn alias_then_write(b: &mut Rod, k: f64) -> f64 {
    let (l, r) = b.ends;
    let [p0, p1] = b.pos;
    b.ends.1 = k * l;
    b.pos[0] = k;
    let q = b.pos[1];
    b.pos[1] = 0.0;
    l * r + b.ends.1 * p0 + p1 * q
}

#[reverse]
fn alias_hand(b: &mut Rod, k: f64) -> f64 {
    let r = b.ends.1;
    b.ends.1 = k;
    r + b.ends.1
}

#[test]
fn destructured_parts_are_copies() {
    let b = Rod {
        pos: [2.0, 5.0],
        ends: (3.0, 7.0),
    };
    let (mut b1, mut b2) = (b.clone(), b.clone());
    let (v, (g, gk)) = alias_then_write_grad(&mut b1, 0.5);
    assert_eq!(v, alias_then_write(&mut b2, 0.5));
    assert_eq!(v, 21.0 + 1.5 * 2.0 + 25.0);
    assert_eq!(b1.pos, b2.pos);
    assert_eq!(b1.ends, b2.ends);
    // l r + k l p0 + p1^2
    assert_eq!(g.ends, (7.0 + 0.5 * 2.0, 3.0));
    assert_eq!(g.pos, [0.5 * 3.0, 10.0]);
    assert_eq!(gk, 3.0 * 2.0);
    let (mut b1, mut b2) = (b.clone(), b.clone());
    let (v, (g, gk)) = alias_hand_grad(&mut b1, 0.5);
    assert_eq!(v, alias_hand(&mut b2, 0.5));
    assert_eq!(v, 7.5);
    assert_eq!(g.ends, (0.0, 1.0));
    assert_eq!(gk, 1.0);
}

// ---- match arms binding the value ----------------------------------------------------------

/// `k if .. => x.powi(k)`: an arm binding the whole scrutinee (was rejected).
#[reverse]
fn match_binding(x: f64, n: i32) -> f64 {
    match n {
        i32::MIN..=-1 => -x,
        0 => 0.0,
        k if k % 2 == 0 => x.powi(k),
        k => x.powi(k) * 0.5,
    }
}

#[revad::forward]
#[reverse]
fn match_float(x: f64, y: f64) -> f64 {
    let z = x * y;
    match z {
        v if v > 1.0 => v * v,
        v => v.sin() + x,
    }
}

#[reverse]
fn match_mut_binding(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += match i % 3 {
            0 => x,
            mut r => {
                r += 1;
                x * r as f64
            }
        };
    }
    s
}

#[test]
fn match_arms_binding_the_whole_value() {
    for n in [-2, 0, 2, 3] {
        let (v, d) = match_binding_grad(1.5, n);
        assert_eq!(v, match_binding(1.5, n));
        let e = match n {
            n if n < 0 => -1.0,
            0 => 0.0,
            n if n % 2 == 0 => n as f64 * 1.5f64.powi(n - 1),
            n => 0.5 * n as f64 * 1.5f64.powi(n - 1),
        };
        assert!((d - e).abs() < 1e-12, "{n}: {d} {e}");
    }
    let (v, (dx, dy)) = match_float_grad(2.0, 3.0);
    assert_eq!(v, match_float(2.0, 3.0));
    assert_eq!((dx, dy), (2.0 * 6.0 * 3.0, 2.0 * 6.0 * 2.0));
    let (v, (dx, dy)) = match_float_grad(0.2, 3.0);
    assert_eq!(v, match_float(0.2, 3.0));
    assert!((dx - (0.6f64.cos() * 3.0 + 1.0)).abs() < 1e-12);
    assert!((dy - 0.6f64.cos() * 0.2).abs() < 1e-12);
    let (v, t) = match_float_jvp(2.0, 3.0, 1.0, 0.0);
    same(v, match_float(2.0, 3.0));
    assert_eq!(t, 2.0 * 6.0 * 3.0);
    let (v, d) = match_mut_binding_grad(0.7, 5);
    assert_eq!(v, match_mut_binding(0.7, 5));
    assert_eq!(d, 1.0 + 2.0 + 3.0 + 1.0 + 2.0);
}

// ---- items in the body ----------------------------------------------------------------------

#[revad::forward]
#[reverse]
fn binomial_tree_local_const(s0: f64, k: f64, up: f64, p: f64, disc: f64) -> f64 {
    const N: usize = 8;
    let down = 1.0 / up;
    let mut v = [0.0; N + 1];
    for i in 0..=N {
        let st = s0 * up.powi(i as i32) * down.powi((N - i) as i32);
        v[i] = (st - k).max(0.0);
    }
    for step in (0..N).rev() {
        for i in 0..=step {
            v[i] = disc * (p * v[i + 1] + (1.0 - p) * v[i]);
        }
    }
    v[0]
}

#[reverse]
fn weights_local_items(x: &[f64]) -> f64 {
    use std::f64::consts::PI;
    const W: [f64; 3] = [0.2, 0.3, 0.5];
    static SCALE: f64 = 2.0;
    let mut s = 0.0;
    for i in 0..3 {
        s += W[i] * x[i] * SCALE * PI;
    }
    s
}

#[reverse]
fn caller(x: &[f64]) -> f64 {
    const C: f64 = 3.0;
    weights_local_items(x) * C
}

#[reverse(cps)]
fn cps_const(x: f64) -> f64 {
    const C: f64 = 3.0;
    x * C
}

#[test]
fn const_static_and_use_items_in_the_body() {
    let a = [100.0, 97.0, 1.05, 0.55, 0.99];
    let (v, (g0, _, _, _, _)) = binomial_tree_local_const_grad(a[0], a[1], a[2], a[3], a[4]);
    assert_eq!(v, binomial_tree_local_const(a[0], a[1], a[2], a[3], a[4]));
    let (v2, t) =
        binomial_tree_local_const_jvp(a[0], a[1], a[2], a[3], a[4], 1.0, 0.0, 0.0, 0.0, 0.0);
    assert_eq!(v, v2);
    assert!((g0 - t).abs() < 1e-12);
    let numeric = revad::check::finite_difference(
        |a| binomial_tree_local_const(a[0], a[1], a[2], a[3], a[4]),
        &a,
    );
    close(g0, numeric[0], 1e-6);
    let x = [1.0, 2.0, 3.0];
    let (v, g) = caller_grad(&x);
    assert_eq!(v, caller(&x));
    let pi = std::f64::consts::PI;
    assert_eq!(
        g,
        vec![
            0.2 * 2.0 * pi * 3.0,
            0.3 * 2.0 * pi * 3.0,
            0.5 * 2.0 * pi * 3.0
        ]
    );
    assert_eq!(cps_const_grad(1.0).1, 3.0);
}

#[reverse(hessian)]
fn hess_const(x: f64) -> f64 {
    const C: f64 = 2.0;
    x * x * C
}

#[revad::forward(vector)]
fn vec_const(x: f64, y: f64) -> f64 {
    const C: f64 = 2.0;
    x * y * C
}

#[reverse]
fn integrate_mid<F: Fn(f64) -> f64>(f: F, a: f64, b: f64) -> f64 {
    let n = 10;
    let h = (b - a) / n as f64;
    let mut s = 0.0;
    for i in 0..n {
        s += f(a + (i as f64 + 0.5) * h);
    }
    s * h
}

#[reverse]
fn moment(c: f64) -> f64 {
    const K: f64 = 2.0;
    integrate_mid(|x| c * x * K, 0.0, 1.0)
}

#[test]
fn items_in_the_body_in_every_mode() {
    let (_, _, h) = hess_const_hessian(1.5);
    assert_eq!(h[0][0], 4.0);
    let (v, t) = vec_const_jvp_vec(1.5, 2.0, revad::Lanes([1.0, 0.0]), revad::Lanes([0.0, 1.0]));
    same(v, vec_const(1.5, 2.0));
    assert_eq!(t.0, [4.0, 3.0]);
    let (v, d) = moment_grad(0.5);
    assert_eq!(v, moment(0.5));
    assert!((d - 1.0).abs() < 1e-12);
}

// ---- simulations, models, struct results with their type -------------------------------------

#[reverse]
fn oscillator_rhs(y: &[f64], k: f64) -> Vec<f64> {
    vec![y[1], -k * y[0] - 0.1 * y[1]]
}

#[reverse]
fn rk4_vec(y0: &[f64], k: f64) -> f64 {
    let dt = 0.05;
    let mut y = y0.to_vec();
    for _ in 0..20 {
        let k1 = oscillator_rhs(&y, k);
        let y2: Vec<f64> = y.iter().zip(&k1).map(|(a, b)| a + 0.5 * dt * b).collect();
        let k2 = oscillator_rhs(&y2, k);
        let y3: Vec<f64> = y.iter().zip(&k2).map(|(a, b)| a + 0.5 * dt * b).collect();
        let k3 = oscillator_rhs(&y3, k);
        let y4: Vec<f64> = y.iter().zip(&k3).map(|(a, b)| a + dt * b).collect();
        let k4 = oscillator_rhs(&y4, k);
        for i in 0..y.len() {
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    y[0]
}

#[reverse]
fn lotka(x0: f64, y0: f64, a: f64, b: f64) -> f64 {
    let mut s = [x0, y0];
    let dt = 0.01;
    for _ in 0..100 {
        let [x, y] = s;
        s = [x + dt * (a * x - b * x * y), y + dt * (b * x * y - y)];
    }
    s[0] + s[1]
}

#[reverse]
fn heat(u0: &[f64], r: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    for _ in 0..10 {
        let mut next = u.clone();
        for i in 1..n - 1 {
            next[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        u = next;
    }
    u.iter().map(|v| v * v).sum()
}

#[reverse]
fn asian(s0: f64, sigma: f64, z: &[f64]) -> f64 {
    let dt = 0.1;
    let mut s = s0;
    let mut avg = 0.0;
    for &zi in z {
        s *= (-0.5 * sigma * sigma * dt + sigma * dt.sqrt() * zi).exp();
        avg += s;
    }
    avg /= z.len() as f64;
    (avg - 100.0).max(0.0)
}

#[reverse]
fn shoelace(p: &[[f64; 2]]) -> f64 {
    let n = p.len();
    let mut a = 0.0;
    for i in 0..n {
        let j = if i + 1 == n { 0 } else { i + 1 };
        a += p[i][0] * p[j][1] - p[j][0] * p[i][1];
    }
    0.5 * a.abs()
}

#[reverse]
fn chain_energy(p: &[[f64; 2]], rest: f64) -> f64 {
    p.windows(2)
        .map(|w| {
            let d = ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt();
            (d - rest).powi(2)
        })
        .sum()
}

#[reverse]
fn power_iter(m: &[[f64; 2]; 2]) -> f64 {
    let mut v = [1.0, 0.5];
    let mut lambda = 0.0;
    for _ in 0..60 {
        let w = [
            m[0][0] * v[0] + m[0][1] * v[1],
            m[1][0] * v[0] + m[1][1] * v[1],
        ];
        let n = (w[0] * w[0] + w[1] * w[1]).sqrt();
        lambda = v[0] * w[0] + v[1] * w[1];
        v = [w[0] / n, w[1] / n];
    }
    lambda
}

#[reverse]
fn mahalanobis(x: [f64; 2], mu: [f64; 2], s: [[f64; 2]; 2]) -> f64 {
    let det = s[0][0] * s[1][1] - s[0][1] * s[1][0];
    let mut inv = [[0.0; 2]; 2];
    inv[0][0] = s[1][1] / det;
    inv[0][1] = -s[0][1] / det;
    inv[1][0] = -s[1][0] / det;
    inv[1][1] = s[0][0] / det;
    let d = [x[0] - mu[0], x[1] - mu[1]];
    let mut q = 0.0;
    for i in 0..2 {
        for j in 0..2 {
            q += d[i] * inv[i][j] * d[j];
        }
    }
    q.sqrt()
}

#[reverse]
fn softmax_t(z: [f64; 3], t: f64) -> [f64; 3] {
    let e = [(z[0] / t).exp(), (z[1] / t).exp(), (z[2] / t).exp()];
    let s = e[0] + e[1] + e[2];
    [e[0] / s, e[1] / s, e[2] / s]
}

#[reverse]
fn attention(q: &[f64], keys: &[Vec<f64>], values: &[f64]) -> f64 {
    let scores: Vec<f64> = keys
        .iter()
        .map(|k| k.iter().zip(q).map(|(a, b)| a * b).sum::<f64>())
        .collect();
    let m = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = scores.iter().map(|s| (s - m).exp()).collect();
    let z: f64 = w.iter().sum();
    w.iter().zip(values).map(|(a, v)| a * v).sum::<f64>() / z
}

#[reverse]
fn batch_norm(x: &[f64], gamma: f64, beta: f64) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let inv = 1.0 / (var + 1e-5).sqrt();
    x.iter()
        .map(|v| (gamma * (v - mean) * inv + beta).tanh())
        .sum()
}

#[derive(Clone, Debug, revad::Adjoint)]
/// A dense layer with a ReLU.
pub struct Dense {
    /// Weights, one row per output.
    pub w: Vec<Vec<f64>>,
    /// Biases.
    pub b: Vec<f64>,
}

impl Dense {
    #[reverse]
    /// The layer's outputs.
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        for (row, b) in self.w.iter().zip(&self.b) {
            let z: f64 = row.iter().zip(x).map(|(a, c)| a * c).sum::<f64>() + b;
            out.push(z.max(0.0));
        }
        out
    }

    #[reverse]
    /// The sum of the outputs.
    pub fn score(&self, x: &[f64]) -> f64 {
        let h: Vec<f64> = self.forward(x);
        h.iter().sum()
    }
}

#[reverse]
fn f32_spring(x: f32, k: f32) -> f32 {
    let g = 9.81f32;
    0.5 * k * x * x + g * x / 2.0f32
}

#[reverse]
fn cauchy_lpdf(x: f64, loc: f64, scale: f64) -> f64 {
    let z = (x - loc) / scale;
    -(std::f64::consts::PI * scale).ln() - z.mul_add(z, 1.0).ln()
}

#[test]
fn simulations_and_models() {
    let (v, (gy, gk)) = rk4_vec_grad(&[1.0, 0.0], 2.0);
    same(v, rk4_vec(&[1.0, 0.0], 2.0));
    assert_fd(
        |p| rk4_vec(&[p[0], p[1]], p[2]),
        &[1.0, 0.0, 2.0],
        &[gy[0], gy[1], gk],
    );
    let p = [1.0, 0.5, 1.2, 0.8];
    let (v, (a, b, c, d)) = lotka_grad(p[0], p[1], p[2], p[3]);
    same(v, lotka(p[0], p[1], p[2], p[3]));
    assert_fd(|p| lotka(p[0], p[1], p[2], p[3]), &p, &[a, b, c, d]);
    let u = [0.0, 1.0, 0.5, 0.2, 0.0];
    let (v, (gu, gr)) = heat_grad(&u, 0.2);
    same(v, heat(&u, 0.2));
    assert_fd(|u| heat(u, 0.2), &u, &gu);
    assert_fd(|r| heat(&u, r[0]), &[0.2], &[gr]);
    let z = [0.3, -0.2, 1.1, 0.5];
    let (v, (gs, gsig, _)) = asian_grad(105.0, 0.3, &z);
    same(v, asian(105.0, 0.3, &z));
    assert_fd(|p| asian(p[0], p[1], &z), &[105.0, 0.3], &[gs, gsig]);
    let poly = [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.5]];
    let (v, g) = shoelace_grad(&poly);
    same(v, shoelace(&poly));
    let flat: Vec<f64> = poly.iter().flatten().copied().collect();
    let gf: Vec<f64> = g.iter().flatten().copied().collect();
    let unflat = |f: &[f64]| -> Vec<[f64; 2]> { f.chunks(2).map(|c| [c[0], c[1]]).collect() };
    assert_fd(|f| shoelace(&unflat(f)), &flat, &gf);
    let (v, (g, gr)) = chain_energy_grad(&poly, 1.0);
    same(v, chain_energy(&poly, 1.0));
    let gf: Vec<f64> = g.iter().flatten().copied().collect();
    assert_fd(|f| chain_energy(&unflat(f), 1.0), &flat, &gf);
    assert_fd(|r| chain_energy(&poly, r[0]), &[1.0], &[gr]);
    let m = [[2.0, 1.0], [1.0, 3.0]];
    let (v, g) = power_iter_grad(&m);
    same(v, power_iter(&m));
    // d lambda / dM = v v^T for symmetric M
    let l = v;
    let e = [1.0, l - 2.0];
    let n = (1.0 + e[1] * e[1]).sqrt();
    let ev = [e[0] / n, e[1] / n];
    for i in 0..2 {
        for j in 0..2 {
            close(g[i][j], ev[i] * ev[j], 1e-8);
        }
    }
    let s = [[2.0, 0.3], [0.3, 1.0]];
    let (v, (gx, gm, gs)) = mahalanobis_grad([1.0, 2.0], [0.5, 0.5], s);
    same(v, mahalanobis([1.0, 2.0], [0.5, 0.5], s));
    let all = [1.0, 2.0, 0.5, 0.5, 2.0, 0.3, 0.3, 1.0];
    assert_fd(
        |f| mahalanobis([f[0], f[1]], [f[2], f[3]], [[f[4], f[5]], [f[6], f[7]]]),
        &all,
        &[
            gx[0], gx[1], gm[0], gm[1], gs[0][0], gs[0][1], gs[1][0], gs[1][1],
        ],
    );
    let (v, (gz, gt)) = softmax_t_vjp([0.1, 0.5, -0.3], 2.0, [1.0, 0.0, 0.0]);
    assert_eq!(v, softmax_t([0.1, 0.5, -0.3], 2.0));
    assert_fd(
        |f| softmax_t([f[0], f[1], f[2]], f[3])[0],
        &[0.1, 0.5, -0.3, 2.0],
        &[gz[0], gz[1], gz[2], gt],
    );
    let q = [0.5, -0.2];
    let keys = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![0.5, 0.5]];
    let vals = [1.0, 2.0, 3.0];
    let (v, (gq, _, gv)) = attention_grad(&q, &keys, &vals);
    same(v, attention(&q, &keys, &vals));
    assert_fd(|q| attention(q, &keys, &vals), &q, &gq);
    assert_fd(|v| attention(&q, &keys, v), &vals, &gv);
    let x = [0.5, 1.5, -0.3, 2.0];
    let (v, (gx, gg, gb)) = batch_norm_grad(&x, 1.2, 0.1);
    same(v, batch_norm(&x, 1.2, 0.1));
    assert_fd(|x| batch_norm(x, 1.2, 0.1), &x, &gx);
    assert_fd(|p| batch_norm(&x, p[0], p[1]), &[1.2, 0.1], &[gg, gb]);
    let d = Dense {
        w: vec![vec![0.5, -0.3], vec![0.2, 0.8], vec![-1.0, 0.1]],
        b: vec![0.1, -0.2, 0.3],
    };
    let (v, (gd, gx)) = d.score_grad(&q);
    same(v, d.score(&q));
    assert_fd(|x| d.score(x), &q, &gx);
    let flat: Vec<f64> =
        d.w.iter()
            .flatten()
            .copied()
            .chain(d.b.iter().copied())
            .collect();
    let gflat: Vec<f64> =
        gd.w.iter()
            .flatten()
            .copied()
            .chain(gd.b.iter().copied())
            .collect();
    assert_fd(
        |f| {
            Dense {
                w: vec![f[0..2].to_vec(), f[2..4].to_vec(), f[4..6].to_vec()],
                b: f[6..9].to_vec(),
            }
            .score(&q)
        },
        &flat,
        &gflat,
    );
    let (v, (gx, gk)) = f32_spring_grad(0.5, 2.0);
    assert_eq!(v.to_bits(), f32_spring(0.5, 2.0).to_bits());
    assert!((gx - (2.0 * 0.5 + 9.81 / 2.0)).abs() < 1e-5);
    assert!((gk - 0.125).abs() < 1e-6);
    let (v, (a, b, c)) = cauchy_lpdf_grad(1.0, 0.2, 1.5);
    same(v, cauchy_lpdf(1.0, 0.2, 1.5));
    assert_fd(
        |p| cauchy_lpdf(p[0], p[1], p[2]),
        &[1.0, 0.2, 1.5],
        &[a, b, c],
    );
}

/// A struct result only borrowed, with its type written (`let g: Gaussian = ..`).
#[reverse]
fn fit_typed(a: f64, b: f64, x: f64) -> f64 {
    let g: Gaussian = make_gaussian(a, b);
    nll(&g, x)
}

#[test]
fn typed_struct_result() {
    let p = [0.3, 0.5, 1.2];
    let (v, (a, b, c)) = fit_typed_grad(p[0], p[1], p[2]);
    same(v, fit_typed(p[0], p[1], p[2]));
    assert_fd(|p| fit_typed(p[0], p[1], p[2]), &p, &[a, b, c]);
}

// ---- mutation through calls, generics, CPS, forward, hessians ----------------------------------

#[reverse]
fn scale_in_place_mut(v: &mut [f64], a: f64) {
    for x in v.iter_mut() {
        *x *= a;
    }
}

#[reverse]
fn uses_mut_call(x: &[f64], a: f64) -> f64 {
    let mut v = x.to_vec();
    let before = v[0];
    scale_in_place_mut(&mut v, a);
    scale_in_place_mut(&mut v, a);
    v.iter().sum::<f64>() + before * v[0]
}

#[reverse]
fn shadow_loop(x: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..4 {
        let x = x * i as f64;
        let x = x.sin();
        acc += x;
    }
    acc + x
}

#[reverse]
fn square_break(x: f64) -> f64 {
    let mut y = x;
    let mut k = 0;
    while k < 10 {
        y = y * y;
        if y > 100.0 {
            break;
        }
        k += 1;
    }
    y
}

#[reverse]
fn stale_reads(x: &[f64]) -> f64 {
    let mut a = x.to_vec();
    let mut s = 0.0;
    for i in 1..a.len() {
        let old = a[i];
        a[i] = a[i - 1] * old;
        s += old * a[i];
    }
    s
}

#[revad::forward]
#[reverse]
fn generic_poly<T: revad::Float>(c: &[T], x: T) -> T {
    let mut acc = T::ZERO;
    for &ci in c.iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

#[revad::forward]
#[reverse]
fn nt_generic<T: num_traits::Float>(x: T, y: T) -> T {
    let half = T::from(0.5).unwrap();
    (x * y).exp() * half + x.powi(3) / (T::one() + y * y)
}

#[reverse(cps)]
fn cps_prog(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < 5 {
        if x > y {
            s += x.sin() * y;
        } else {
            s -= y.cos();
        }
        i += 1;
    }
    s * x
}

#[revad::forward]
fn fwd_mut(s: &mut [f64; 2], dt: f64) {
    let a = -s[0];
    s[1] += dt * a;
    s[0] += dt * s[1];
}

#[revad::forward]
fn fwd_caller(x: f64, y: f64) -> f64 {
    let c = [x, y, 1.0];
    generic_poly(&c, x)
}

#[reverse(hessian)]
fn h_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            s += (x[i] * x[j]).sin() * (i + j + 1) as f64;
        }
    }
    s
}

#[reverse(hessian)]
fn h_branch(x: [f64; 2]) -> f64 {
    if x[0] > x[1] {
        x[0].powi(3) * x[1]
    } else {
        x[1].exp() * x[0]
    }
}

#[reverse]
fn min_max_fold(x: &[f64]) -> f64 {
    let lo = x.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    hi - lo
}

#[reverse]
fn vec_of_vec(m: &Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for row in m {
        let n: f64 = row.iter().map(|v| v * v).sum();
        s += n.sqrt();
    }
    s
}

#[reverse]
fn local_matrix(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = x[i] * x[j] + if i == j { 1.0 } else { 0.0 };
        }
    }
    let mut t = 0.0;
    for i in 0..n {
        t += m[i * n + i].ln();
    }
    t
}

#[reverse]
fn return_in_if(x: f64, y: f64) -> f64 {
    if x < 0.0 {
        return y * y;
    }
    let z = x.sqrt();
    if z > 2.0 {
        return z * y;
    }
    z + y
}

#[test]
fn mutation_generics_backends_and_hessians() {
    let x = [0.5, 1.5, -0.7];
    let (v, (gx, ga)) = uses_mut_call_grad(&x, 1.3);
    same(v, uses_mut_call(&x, 1.3));
    assert_fd(|x| uses_mut_call(x, 1.3), &x, &gx);
    assert_fd(|a| uses_mut_call(&x, a[0]), &[1.3], &[ga]);
    let (v, d) = shadow_loop_grad(0.4);
    same(v, shadow_loop(0.4));
    assert_fd(|p| shadow_loop(p[0]), &[0.4], &[d]);
    for z in [1.5, 0.9] {
        let (v, d) = square_break_grad(z);
        same(v, square_break(z));
        assert_fd(|p| square_break(p[0]), &[z], &[d]);
    }
    let (v, g) = stale_reads_grad(&x);
    same(v, stale_reads(&x));
    assert_fd(stale_reads, &x, &g);
    let c = [1.0, -2.0, 0.5];
    let (v, (gc, gx)) = generic_poly_grad(&c, 1.5);
    same(v, generic_poly(&c, 1.5));
    assert_fd(|p| generic_poly(&c, p[0]), &[1.5], &[gx]);
    assert_fd(|c| generic_poly(c, 1.5), &c, &gc);
    let (v32, d32) = generic_poly_jvp(&[1.0f32, -2.0, 0.5], 1.5, &[0.0, 0.0, 0.0], 1.0);
    assert_eq!(v32, generic_poly(&[1.0f32, -2.0, 0.5], 1.5));
    assert!((d32 as f64 - gx).abs() < 1e-5);
    let (v, (a, b)) = nt_generic_grad(0.3, 0.8);
    same(v, nt_generic(0.3, 0.8));
    assert_fd(|p| nt_generic(p[0], p[1]), &[0.3, 0.8], &[a, b]);
    let (_, t) = nt_generic_jvp(0.3, 0.8, 1.0, 0.0);
    close(t, a, 1e-12);
    for (p, q) in [(1.0, 0.5), (0.2, 0.9)] {
        let (v, (a, b)) = cps_prog_grad(p, q);
        same(v, cps_prog(p, q));
        assert_fd(|z| cps_prog(z[0], z[1]), &[p, q], &[a, b]);
    }
    let mut s = [1.0, 0.0];
    let mut ts = [1.0, 0.0];
    let ((), ()) = fwd_mut_jvp(&mut s, 0.1, &mut ts, 0.0);
    // s1' = s1 - dt s0, s0' = s0 + dt s1': along s0, (1 - dt^2, -dt)
    close(ts[0], 1.0 - 0.01, 1e-15);
    close(ts[1], -0.1, 1e-15);
    let mut s2 = [1.0, 0.0];
    fwd_mut(&mut s2, 0.1);
    assert_eq!(s, s2);
    let (v, t) = fwd_caller_jvp(0.7, 0.3, 1.0, 0.0);
    same(v, fwd_caller(0.7, 0.3));
    let h = 1e-6;
    close(
        t,
        (fwd_caller(0.7 + h, 0.3) - fwd_caller(0.7 - h, 0.3)) / (2.0 * h),
        1e-7,
    );
    let (v, g, hm) = h_loop_hessian(&x);
    same(v, h_loop(&x));
    assert_fd(h_loop, &x, &g);
    for i in 0..3 {
        let gi = |p: &[f64]| h_loop_grad(p).1[i];
        let row: Vec<f64> = hm[i].clone();
        assert_fd(gi, &x, &row);
    }
    for p in [[2.0, 1.0], [0.5, 1.0]] {
        let (_, _, hm) = h_branch_hessian(p);
        for i in 0..2 {
            let gi = |q: &[f64]| h_branch_grad([q[0], q[1]]).1[i];
            assert_fd(gi, &p, &hm[i]);
        }
    }
    let (v, g) = min_max_fold_grad(&x);
    same(v, min_max_fold(&x));
    assert_eq!(g, vec![0.0, 1.0, -1.0]);
    let m = vec![vec![3.0, 4.0], vec![1.0, 0.0, 0.0]];
    let (v, g) = vec_of_vec_grad(&m);
    same(v, vec_of_vec(&m));
    close(g[0][0], 0.6, 1e-15);
    close(g[0][1], 0.8, 1e-15);
    assert_eq!(g[1], vec![1.0, 0.0, 0.0]);
    let (v, g) = local_matrix_grad(&x);
    same(v, local_matrix(&x));
    assert_fd(local_matrix, &x, &g);
    for (p, q) in [(-1.0, 2.0), (9.0, 0.5), (1.0, 0.5)] {
        let (v, (a, b)) = return_in_if_grad(p, q);
        same(v, return_in_if(p, q));
        assert_fd(|z| return_in_if(z[0], z[1]), &[p, q], &[a, b]);
    }
}

// ---- local nested containers ---------------------------------------------------------------

#[reverse]
fn if_in_arith_2d(x: &[f64]) -> f64 {
    let mut m = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = x[i] * x[j] + if i == j { 1.0 } else { 0.0 };
        }
    }
    m[0][0] + m[1][2]
}

/// `vec![vec![0.0; n]; n]`, a local matrix (was rejected: `vec!` only as a `let`'s value).
#[reverse]
fn nested_vec_local(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            m[i][j] = x[i] * x[j];
        }
    }
    m[0][1]
}

#[test]
fn if_in_arithmetic_on_a_2d_array() {
    let x = [1.0, 2.0, 3.0];
    assert_eq!(if_in_arith_2d_grad(&x).1, vec![2.0, 3.0, 2.0]);
}

#[reverse]
fn gram_matrix(x: &[[f64; 2]]) -> f64 {
    let n = x.len();
    let mut k = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            let d = (x[i][0] - x[j][0]).powi(2) + (x[i][1] - x[j][1]).powi(2);
            k[i][j] = (-d).exp();
        }
    }
    let mut s = 0.0;
    for row in &k {
        for v in row {
            s += v * v;
        }
    }
    s + k[0][1]
}

#[reverse]
fn rows_of_arrays(x: &[f64], n: usize) -> f64 {
    let mut h = vec![[0.0; 2]; n];
    for i in 0..n {
        h[i][0] = x[i].sin();
        h[i][1] = h[i][0] * x[i];
    }
    h.iter().map(|r| r[0] + r[1]).sum()
}

#[test]
fn nested_vec_locals() {
    let x = [1.0, 2.0, 3.0];
    let (v, g) = nested_vec_local_grad(&x);
    assert_eq!(v, nested_vec_local(&x));
    assert_eq!(g, vec![2.0, 1.0, 0.0]);
    let pts = [[0.0, 0.0], [1.0, 0.5], [0.3, -0.2]];
    let (v, g) = gram_matrix_grad(&pts);
    assert_eq!(v, gram_matrix(&pts));
    let flat: Vec<f64> = pts.iter().flatten().copied().collect();
    let gf: Vec<f64> = g.iter().flatten().copied().collect();
    let num = revad::check::finite_difference(
        |f| gram_matrix(&[[f[0], f[1]], [f[2], f[3]], [f[4], f[5]]]),
        &flat,
    );
    for (a, b) in gf.iter().zip(&num) {
        assert!((a - b).abs() < 1e-7, "{a} {b}");
    }
    let (v, g) = rows_of_arrays_grad(&x, 3);
    assert_eq!(v, rows_of_arrays(&x, 3));
    for i in 0..3 {
        let e = x[i].cos() + x[i].sin() + x[i] * x[i].cos();
        assert!((g[i] - e).abs() < 1e-12);
    }
}

#[reverse]
fn gram_caller(x: &[[f64; 2]], s: f64) -> f64 {
    let mut t = 0.0;
    for k in 0..2 {
        t += gram_matrix(x) * s * k as f64;
    }
    t
}

#[reverse]
fn f32_nested(x: &[f32], n: usize) -> f32 {
    let mut m = vec![vec![0.0; n]; 2];
    for i in 0..n {
        m[0][i] = x[i].sin();
        m[1][i] = m[0][i].exp() * x[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += m[1][i] - m[0][i];
    }
    s
}

#[reverse]
fn branch_nested(x: &[f64], c: bool) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    if c {
        let mut m = vec![vec![1.0; n]; n];
        for i in 0..n {
            m[i][i] = x[i] * x[i];
        }
        s = m[0][0] + m[n - 1][n - 1];
    }
    s
}

#[test]
fn nested_vec_locals_through_callers_f32_and_branches() {
    let pts = [[0.0, 0.0], [1.0, 0.5], [0.3, -0.2]];
    let (v, (g, gs)) = gram_caller_grad(&pts, 0.7);
    assert_eq!(v, gram_caller(&pts, 0.7));
    let (_, g1) = gram_matrix_grad(&pts);
    for i in 0..3 {
        for k in 0..2 {
            assert!((g[i][k] - 0.7 * g1[i][k]).abs() < 1e-12);
        }
    }
    assert!((gs - gram_matrix(&pts)).abs() < 1e-12);
    let x = [0.5f32, 1.0, -0.3];
    let (v, g) = f32_nested_grad(&x, 3);
    assert_eq!(v.to_bits(), f32_nested(&x, 3).to_bits());
    for i in 0..3 {
        let e = x[i].sin().exp() * x[i].cos() * x[i] + x[i].sin().exp() - x[i].cos();
        assert!((g[i] - e).abs() < 1e-5, "{} {}", g[i], e);
    }
    let y = [1.5, 2.0, 3.0];
    let (v, g) = branch_nested_grad(&y, true);
    assert_eq!(v, branch_nested(&y, true));
    assert_eq!(g, vec![3.0, 0.0, 6.0]);
}

/// A local 2-D array under `#[reverse(hessian)]` (was E0277: the lifted copy's float type
/// was not `Send`).
#[revad::reverse(hessian)]
fn h_2d(x: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    m[0][0] = x[0] * x[1];
    m[0][0]
}
#[test]
fn hessian_of_a_local_2d_array() {
    assert_eq!(h_2d_hessian(&[1.0, 2.0]).2[0][1], 1.0);
}
#[revad::reverse(hessian)]
fn h_nested(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        m[i][i] = x[i] * x[(i + 1) % n];
    }
    m[0][0] + m[1][1].sin()
}
#[test]
fn hessian_of_a_local_nested_vec() {
    let x = [1.0, 2.0, 0.5];
    let (v, g, h) = h_nested_hessian(&x);
    assert_eq!(v, h_nested(&x));
    // x0 x1 + sin(x1 x2)
    let c = (1.0f64).cos();
    let s = (1.0f64).sin();
    assert_eq!(g[0], 2.0);
    assert!((h[1][2] - (c - s * 1.0 * 0.5 * 2.0)).abs() < 1e-12);
    assert_eq!(h[0][1], 1.0);
}

// ---- Enzyme-style out parameters, idioms -------------------------------------------------------

#[reverse]
fn enzyme_out(x: &[f64], out: &mut f64) {
    let mut s = 0.0;
    for v in x {
        s += v * v;
    }
    *out = s.sqrt();
}

#[reverse]
fn enzyme_caller(x: &[f64]) -> f64 {
    let mut out = 0.0;
    enzyme_out(x, &mut out);
    out * 2.0
}

#[reverse]
fn from_int(x: f64, n: i32) -> f64 {
    let mut s = 0.0;
    for i in 1..=n {
        s += f64::from(i) * x.powi(-2) + (x - 1.0).abs().max(1e-3);
    }
    s / n as f64
}

#[reverse]
fn any_cond(x: &[f64]) -> f64 {
    if x.iter().any(|v| *v > 1.0) {
        x.iter().map(|v| v.to_radians().sin()).sum()
    } else {
        x.iter().map(|v| v.signum() * v * v).sum()
    }
}

#[reverse]
fn count_mean(x: &[f64]) -> f64 {
    let n = x.len();
    x.iter().sum::<f64>() / n as f64
}

#[reverse]
fn maxby(x: &[f64]) -> f64 {
    let m = x
        .iter()
        .cloned()
        .fold(f64::MIN, |a, b| if b > a { b } else { a });
    m * m
}

#[reverse]
fn nested_calls_a(x: f64) -> f64 {
    x.sin() * 2.0
}
#[reverse]
fn nested_calls_b(x: f64, y: f64) -> f64 {
    nested_calls_a(x * y) + nested_calls_a(y)
}
#[reverse]
fn nested_calls_c(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in v.windows(2) {
        s += nested_calls_b(w[0], w[1]);
    }
    s
}

#[test]
fn enzyme_style_out_parameters_and_idioms() {
    let x = [0.3, -1.2, 2.0];
    let (v, g) = enzyme_caller_grad(&x);
    assert_eq!(v, enzyme_caller(&x));
    assert_fd(enzyme_caller, &x, &g);
    let (v, d) = from_int_grad(1.5, 4);
    assert_eq!(v, from_int(1.5, 4));
    assert_fd(|p| from_int(p[0], 4), &[1.5], &[d]);
    for y in [[0.3, 0.5, -0.2], [0.3, 1.5, -0.2]] {
        let (v, g) = any_cond_grad(&y);
        assert_eq!(v, any_cond(&y));
        assert_fd(any_cond, &y, &g);
    }
    let (v, g) = count_mean_grad(&x);
    assert_eq!(v, count_mean(&x));
    assert_fd(count_mean, &x, &g);
    let (v, g) = maxby_grad(&x);
    assert_eq!(v, maxby(&x));
    assert_eq!(g, vec![0.0, 0.0, 4.0]);
    let (v, g) = nested_calls_c_grad(&x);
    assert_eq!(v, nested_calls_c(&x));
    assert_fd(nested_calls_c, &x, &g);
}

// ---- nested array results of calls ----------------------------------------------------------

#[reverse]
fn matmul22(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> [[f64; 2]; 2] {
    let mut c = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                c[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    c
}

/// A 2-D array result of a call read as `c[i][j]` (was rejected: 'can index float arrays
/// bound to a name').
#[reverse]
fn trace_of_product(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> f64 {
    let c = matmul22(a, b);
    c[0][0] + c[1][1]
}

#[reverse]
fn trace_typed(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> f64 {
    let c: [[f64; 2]; 2] = matmul22(a, b);
    let mut t = 0.0;
    for i in 0..2 {
        t += c[i][i] * c[i][i];
    }
    t
}

#[reverse]
fn outer(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            m[i][j] = x[i] * x[j];
        }
    }
    m
}

#[reverse]
fn outer_sum(x: &[f64]) -> f64 {
    let m = outer(x);
    m[0][1] + m[1][1]
}

#[test]
fn nested_array_results_of_calls() {
    let a = [[1.0, 2.0], [3.0, 4.0]];
    let b = [[0.5, -1.0], [2.0, 0.25]];
    let (v, (ga, gb)) = trace_of_product_grad(a, b);
    assert_eq!(v, trace_of_product(a, b));
    for i in 0..2 {
        for j in 0..2 {
            assert_eq!(ga[i][j], b[j][i]);
            assert_eq!(gb[i][j], a[j][i]);
        }
    }
    let (v, (ga, _)) = trace_typed_grad(a, b);
    assert_eq!(v, trace_typed(a, b));
    let c = matmul22(a, b);
    // d/dA sum c_ii^2 = 2 c_ii b_ji
    for i in 0..2 {
        for j in 0..2 {
            assert!((ga[i][j] - 2.0 * c[i][i] * b[j][i]).abs() < 1e-12);
        }
    }
    let x = [1.0, 2.0, 3.0];
    let (v, g) = outer_sum_grad(&x);
    assert_eq!(v, outer_sum(&x));
    assert_eq!(g, vec![2.0, 1.0 + 4.0, 0.0]);
}

// ---- nested models, simulations, captured arrays ----------------------------------------------

#[derive(Clone, Debug, revad::Adjoint)]
/// A 2-2 tanh layer.
pub struct Layer {
    /// Weights.
    pub w: [[f64; 2]; 2],
    /// Biases.
    pub b: [f64; 2],
}

impl Layer {
    #[reverse]
    /// The layer's output.
    pub fn forward(&self, x: [f64; 2]) -> [f64; 2] {
        [
            (self.w[0][0] * x[0] + self.w[0][1] * x[1] + self.b[0]).tanh(),
            (self.w[1][0] * x[0] + self.w[1][1] * x[1] + self.b[1]).tanh(),
        ]
    }
}

#[derive(Clone, Debug, revad::Adjoint)]
/// Two layers.
pub struct Net {
    /// First layer.
    pub l1: Layer,
    /// Second layer.
    pub l2: Layer,
}

impl Net {
    #[reverse]
    /// The sum of the outputs; the second layer's result is popped typed by the method
    /// called on `self.l2` (was E0308: taken for a `Vec`).
    pub fn eval(&self, x: [f64; 2]) -> f64 {
        let h: [f64; 2] = self.l1.forward(x);
        let o = self.l2.forward(h);
        o[0] + o[1]
    }
}

#[derive(Clone, Debug, revad::Adjoint)]
/// An oscillator.
pub struct Sim {
    /// Position.
    pub x: f64,
    /// Velocity.
    pub v: f64,
    /// Stiffness.
    pub k: f64,
}

impl Sim {
    #[reverse]
    /// One symplectic Euler step, in place.
    pub fn step(&mut self, dt: f64) {
        self.v -= dt * self.k * self.x;
        self.x += dt * self.v;
    }
}

#[reverse]
fn run_sim(x0: f64, k: f64) -> f64 {
    let mut sim = Sim { x: x0, v: 0.0, k };
    for _ in 0..30 {
        sim.step(0.05);
    }
    sim.x * sim.x + sim.v
}

#[reverse]
fn three_parts(x: f64) -> (f64, f64, f64) {
    (x.sin(), x.cos(), x * x)
}

#[reverse]
fn use_three(x: f64) -> f64 {
    let (a, b, c) = three_parts(x);
    a * b + c
}

#[reverse]
fn angle_between(u: [f64; 3], v: [f64; 3]) -> f64 {
    let d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let nu = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
    let nv = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (d / (nu * nv)).clamp(-1.0, 1.0).acos()
}

#[reverse]
fn f32_pi(r: f32) -> f32 {
    std::f32::consts::PI * r * r
}

#[reverse]
fn apply_each<F: Fn(f64) -> f64>(f: F, xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s += f(x);
    }
    s
}

#[reverse]
fn capture_array(w: [f64; 2], xs: &[f64]) -> f64 {
    apply_each(|x| w[0] * x + w[1] * x * x, xs)
}

#[test]
fn nested_models_simulations_and_captures() {
    let l = Layer {
        w: [[0.5, -0.3], [0.2, 0.8]],
        b: [0.1, -0.1],
    };
    let net = Net {
        l1: l.clone(),
        l2: Layer {
            w: [[1.0, 0.5], [-0.5, 1.0]],
            b: [0.0, 0.2],
        },
    };
    let (v, (gn, gx)) = net.eval_grad([0.3, -0.7]);
    assert_eq!(v, net.eval([0.3, -0.7]));
    assert_fd(|x| net.eval([x[0], x[1]]), &[0.3, -0.7], &gx);
    let h = 1e-6;
    let mut p = net.clone();
    p.l1.w[0][1] += h;
    let mut m = net.clone();
    m.l1.w[0][1] -= h;
    assert!((gn.l1.w[0][1] - (p.eval([0.3, -0.7]) - m.eval([0.3, -0.7])) / (2.0 * h)).abs() < 1e-8);
    let (v, (a, b)) = run_sim_grad(1.0, 2.0);
    assert_eq!(v, run_sim(1.0, 2.0));
    assert_fd(|p| run_sim(p[0], p[1]), &[1.0, 2.0], &[a, b]);
    let (v, d) = use_three_grad(0.4);
    assert_eq!(v, use_three(0.4));
    assert!((d - (0.8f64.cos() + 0.8)).abs() < 1e-12);
    let (v, (gu, gv)) = angle_between_grad([1.0, 0.2, 0.0], [0.3, 1.0, 0.5]);
    assert_eq!(v, angle_between([1.0, 0.2, 0.0], [0.3, 1.0, 0.5]));
    assert_fd(
        |f| angle_between([f[0], f[1], f[2]], [f[3], f[4], f[5]]),
        &[1.0, 0.2, 0.0, 0.3, 1.0, 0.5],
        &[gu[0], gu[1], gu[2], gv[0], gv[1], gv[2]],
    );
    let (v, d) = f32_pi_grad(2.0);
    assert_eq!(v, f32_pi(2.0));
    assert!((d - 4.0 * std::f32::consts::PI).abs() < 1e-5);
    let xs = [0.5, 1.0, 2.0];
    let (v, (gw, gx)) = capture_array_grad([0.3, 0.7], &xs);
    assert_eq!(v, capture_array([0.3, 0.7], &xs));
    assert_eq!(gw, [3.5, 0.25 + 1.0 + 4.0]);
    assert_fd(|x| capture_array([0.3, 0.7], x), &xs, &gx);
}

// ---- forward mode and CPS programs -------------------------------------------------------------

fn fd1(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5 * x.abs().max(1.0);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[revad::forward]
fn f_softmax_ce(z: &[f64], k: usize) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
    s.ln() + m - z[k]
}

#[revad::forward]
fn f_rk4(y0: [f64; 2], k: f64) -> [f64; 2] {
    let mut y = y0;
    let dt = 0.1;
    for _ in 0..10 {
        let f = |s: [f64; 2]| [s[1], -k * s[0]];
        let k1 = f(y);
        let k2 = f([y[0] + 0.5 * dt * k1[0], y[1] + 0.5 * dt * k1[1]]);
        let k3 = f([y[0] + 0.5 * dt * k2[0], y[1] + 0.5 * dt * k2[1]]);
        let k4 = f([y[0] + dt * k3[0], y[1] + dt * k3[1]]);
        y = [
            y[0] + dt / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
            y[1] + dt / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
        ];
    }
    y
}

#[revad::forward]
fn f_match(x: f64, n: u8) -> f64 {
    match n {
        0 => x.exp(),
        1 | 2 => x.ln_1p() * n as f64,
        _ => x.atan(),
    }
}

#[revad::forward]
fn f_while(x: f64) -> f64 {
    let mut y = x;
    while y < 10.0 {
        y = y * 1.5 + 0.1;
    }
    y
}

#[revad::forward]
fn f_vec_push(x: f64, n: usize) -> Vec<f64> {
    let mut v = Vec::new();
    let mut a = x;
    for _ in 0..n {
        a = a.sin() + x;
        v.push(a);
    }
    v
}

#[revad::forward]
fn f32_fwd(x: f32, y: f32) -> f32 {
    (x * y).sqrt() + x.powf(y)
}

#[reverse(cps)]
fn cps_loop_arr(x: &[f64], a: f64) -> f64 {
    let mut h = [0.0; 3];
    for i in 0..3 {
        h[i] = (x[i] * a).tanh();
    }
    let mut s = 0.0;
    for v in h.iter() {
        s += v * v;
    }
    s
}

#[reverse(cps)]
fn cps_recursive(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        (cps_recursive(x, n - 1) * 1.1).sin() + x
    }
}

#[test]
fn forward_mode_and_cps_programs() {
    let z = [0.3, -1.0, 2.0];
    let (v, t) = f_softmax_ce_jvp(&z, 1, &[0.0, 0.0, 1.0]);
    assert_eq!(v, f_softmax_ce(&z, 1));
    let s: f64 = z.iter().map(|v| v.exp()).sum();
    close(t, 2f64.exp() / s, 1e-12);
    let (v, t) = f_rk4_jvp([1.0, 0.0], 4.0, [0.0, 0.0], 1.0);
    assert_eq!(v, f_rk4([1.0, 0.0], 4.0));
    close(t[0], fd1(|k| f_rk4([1.0, 0.0], k)[0], 4.0), 1e-7);
    for n in 0..4 {
        let (v, t) = f_match_jvp(0.5, n, 1.0);
        assert_eq!(v, f_match(0.5, n));
        close(t, fd1(|x| f_match(x, n), 0.5), 1e-8);
    }
    let (v, t) = f_while_jvp(0.7, 1.0);
    assert_eq!(v, f_while(0.7));
    close(t, fd1(f_while, 0.7), 1e-6);
    let (v, t) = f_vec_push_jvp(0.4, 4, 1.0);
    assert_eq!(v, f_vec_push(0.4, 4));
    close(t[3], fd1(|x| f_vec_push(x, 4)[3], 0.4), 1e-8);
    let (v, t) = f32_fwd_jvp(2.0, 1.5, 1.0, 0.0);
    assert_eq!(v, f32_fwd(2.0, 1.5));
    assert!((t - (0.5 * 1.5 / 3f32.sqrt() + 1.5 * 2f32.powf(0.5))).abs() < 1e-5);
    let x = [0.5, -0.2, 1.0];
    let (v, (gx, ga)) = cps_loop_arr_grad(&x, 1.3);
    assert_eq!(v, cps_loop_arr(&x, 1.3));
    close(ga, fd1(|a| cps_loop_arr(&x, a), 1.3), 1e-8);
    for i in 0..3 {
        let e = 2.0 * (x[i] * 1.3f64).tanh() * (1.0 - (x[i] * 1.3f64).tanh().powi(2)) * 1.3;
        close(gx[i], e, 1e-12);
    }
    let (v, d) = cps_recursive_grad(0.3, 5);
    assert_eq!(v, cps_recursive(0.3, 5));
    close(d, fd1(|x| cps_recursive(x, 5), 0.3), 1e-8);
}

/// Integer ranges in `match` arms (a half-open `..=-1` too, which `matches!` does not take).
/// The generated code keeps each of the user's literals at its
/// own span, so the lints that read a literal's text (CI runs `clippy -D warnings` on this
/// file) read its own: a `2` spanned at the `0` of `0..=2` was `zero_prefixed_literal`.
#[reverse]
fn banded(x: f64, k: i32) -> f64 {
    match k {
        ..=-1 => x * 4.0,
        0..=2 => x * 2.0,
        3 | 10..=20 => x * x,
        _ => x * 0.333_333_333_333_333_3,
    }
}

#[test]
fn integer_range_arms_keep_their_literals() {
    for k in [-4, 0, 2, 3, 7, 15, 25] {
        let (v, d) = banded_grad(1.5, k);
        same(v, banded(1.5, k));
        let expected = match k {
            ..=-1 => 4.0,
            0..=2 => 2.0,
            3 | 10..=20 => 3.0,
            _ => 0.333_333_333_333_333_3,
        };
        assert_eq!(d, expected, "k = {k}");
    }
}

/// `(sin x, cos x)`.
#[reverse]
fn sin_cos_pair(x: f64) -> (f64, f64) {
    (x.sin(), x.cos())
}

/// A point, written through a destructuring assignment.
#[derive(Clone, Copy, Debug, revad::Adjoint)]
pub struct Pt {
    /// Abscissa.
    pub x: f64,
    /// Ordinate.
    pub y: f64,
}

/// Destructuring assignments: a swap-like recurrence (every value is computed before any
/// place is written), a call's tuple, parts of a struct and of an array, `_`, nesting.
#[reverse]
fn destructured(x: f64, y: f64) -> f64 {
    let (mut a, mut b) = (x, y);
    for _ in 0..3 {
        (a, b) = (b, a + b * 0.5);
    }
    let mut p = Pt { x, y };
    (p.x, p.y) = (p.y * 2.0, p.x);
    let (mut s, mut c) = (x, y);
    let t = s * c;
    (s, c) = sin_cos_pair(p.x * a + t);
    let mut v = [x, y, 1.0];
    (v[0], v[2]) = (v[2], v[0] * b);
    let mut q = 0.0;
    let mut r = 1.0;
    ((q, _), r) = ((q + s * c, 5.0), r * a);
    p.x * p.y + q + r + v[0] + v[2]
}

#[reverse(cps)]
fn destructured_cps(x: f64, y: f64) -> f64 {
    let (mut a, mut b) = (x, y);
    for _ in 0..3 {
        (a, b) = (b, a + b * 0.5);
    }
    a * b
}

#[test]
fn destructuring_assignments() {
    let (x, y) = (0.3, 0.8);
    let (v, (gx, gy)) = destructured_grad(x, y);
    same(v, destructured(x, y));
    assert_fd(|p| destructured(p[0], p[1]), &[x, y], &[gx, gy]);
    // Three steps of (a, b) <- (b, a + b / 2) from (x, y): a3 = x / 2 + 5 y / 4,
    // b3 = 5 x / 4 + 9 y / 8, and f = a3 b3.
    let (v, (gx, gy)) = destructured_cps_grad(x, y);
    let (a3, b3) = (0.5 * x + 1.25 * y, 1.25 * x + 1.125 * y);
    close(v, a3 * b3, 1e-15);
    close(gx, 0.5 * b3 + 1.25 * a3, 1e-14);
    close(gy, 1.25 * b3 + 1.125 * a3, 1e-14);
}

/// `R_z(t) v` weighted by the row: a rotation matrix written as a 2-D array literal of
/// computed entries.
#[reverse]
fn rotated_z(t: f64, v: [f64; 3]) -> f64 {
    let (c, s) = (t.cos(), t.sin());
    let m = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
    let mut out = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            out += m[i][j] * v[j] * (i as f64 + 1.0);
        }
    }
    out
}

#[reverse(cps)]
fn rotated_z_cps(t: f64, v: [f64; 3]) -> f64 {
    let (c, s) = (t.cos(), t.sin());
    let m = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
    let mut out = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            out += m[i][j] * v[j] * (i as f64 + 1.0);
        }
    }
    out
}

/// A 2-D literal in `f32` that reads the array it shadows, then written.
#[reverse]
fn transposed_f32(a: f32, b: f32) -> f32 {
    let m = [[a, b * a], [1.0, b]];
    let mut m = [[m[0][0], m[1][0]], [m[0][1] * 2.0, m[1][1]]];
    m[1][1] *= a;
    m[0][0] * m[1][1] + m[1][0] + m[0][1]
}

#[test]
fn two_dimensional_literals_of_computed_entries() {
    let (t, v) = (0.3f64, [1.0, 2.0, 3.0]);
    let (c, s) = (t.cos(), t.sin());
    // (c v0 - s v1) + 2 (s v0 + c v1) + 3 v2.
    let expected_dt = (-s * v[0] - c * v[1]) + 2.0 * (c * v[0] - s * v[1]);
    let expected_dv = [c + 2.0 * s, -s + 2.0 * c, 3.0];
    for (value, (dt, dv)) in [rotated_z_grad(t, v), rotated_z_cps_grad(t, v)] {
        same(value, rotated_z(t, v));
        close(dt, expected_dt, 1e-15);
        for k in 0..3 {
            close(dv[k], expected_dv[k], 1e-15);
        }
    }
    // a * (b a) + b a * 2 + 1 = a^2 b + 2 a b + 1: d/da = 2 a b + 2 b, d/db = a^2 + 2 a.
    let (a, b) = (1.5f32, 0.5f32);
    let (value, (da, db)) = transposed_f32_grad(a, b);
    assert_eq!(value.to_bits(), transposed_f32(a, b).to_bits());
    assert!((da - (2.0 * a * b + 2.0 * b)).abs() < 1e-6, "{da}");
    assert!((db - (a * a + 2.0 * a)).abs() < 1e-6, "{db}");
}

/// `Σ (a_i b_j)^2` through a matrix `vec![vec![0.0; b.len()]; a.len()]`, whose lengths are
/// the slices' (`.len()` carries no derivative).
#[reverse]
fn outer_product_energy(a: &[f64], b: &[f64]) -> f64 {
    let mut m = vec![vec![0.0; b.len()]; a.len()];
    for i in 0..a.len() {
        for j in 0..b.len() {
            m[i][j] = a[i] * b[j];
        }
    }
    let mut s = 0.0;
    for row in &m {
        for v in row {
            s += v * v;
        }
    }
    s
}

/// Points `(x, x^2)` in `vec![[0.0; 2]; x.len()]`.
#[reverse]
fn parabola_points(x: &[f64]) -> f64 {
    let mut p = vec![[0.0; 2]; x.len()];
    for i in 0..x.len() {
        p[i][0] = x[i];
        p[i][1] = x[i] * x[i];
    }
    p[0][1] + p[1][0] * p[2][1]
}

#[test]
fn nested_vectors_with_lengths_of_slices() {
    let (a, b) = ([1.0, 2.0, -0.5], [3.0, 4.0]);
    let (v, (ga, gb)) = outer_product_energy_grad(&a, &b);
    same(v, outer_product_energy(&a, &b));
    // |a|^2 |b|^2: d/da = 2 a |b|^2, d/db = 2 b |a|^2.
    let (na, nb) = (5.25, 25.0);
    for i in 0..3 {
        close(ga[i], 2.0 * a[i] * nb, 1e-15);
    }
    for j in 0..2 {
        close(gb[j], 2.0 * b[j] * na, 1e-15);
    }
    let x = [0.5, 2.0, -1.5];
    let (v, g) = parabola_points_grad(&x);
    same(v, parabola_points(&x));
    // x0^2 + x1 x2^2.
    assert_eq!(g, vec![2.0 * x[0], x[2] * x[2], 2.0 * x[1] * x[2]]);
}

/// A constant of the program, from a plain function.
fn gain() -> f64 {
    2.5
}

/// A table of the program, from a plain function.
fn weights() -> [f64; 3] {
    [0.5, 1.0, 2.0]
}

/// A grid of the program, from a plain function.
fn grid(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64 * 0.5).collect()
}

/// Values of types the macro cannot see, used in float arithmetic: an `Option`'s default and
/// a plain function's result, at the top level and in a loop (where they are stored for the
/// reverse sweep, whose type their use settles).
#[reverse]
fn unseen_float_types(xs: &[f64], scale: Option<f64>) -> f64 {
    let k = gain();
    let mut t = xs[0] * xs[0] * scale.unwrap_or(1.0) * k;
    for x in xs {
        let g = gain();
        t += (x * g).sin() * scale.unwrap_or(0.5);
    }
    // Arrays from plain functions, bound with their types.
    let w: [f64; 3] = weights();
    let g: Vec<f64> = grid(xs.len());
    for i in 0..3 {
        t += w[i] * xs[i] * g[i];
    }
    t
}

#[test]
fn values_of_unseen_types_in_float_arithmetic() {
    let xs = [0.4, -1.2, 2.0];
    for scale in [Some(3.0), None] {
        let (v, g) = unseen_float_types_grad(&xs, scale);
        same(v, unseen_float_types(&xs, scale));
        let (s0, s1) = (scale.unwrap_or(1.0), scale.unwrap_or(0.5));
        let expected: Vec<f64> = xs
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let first = if i == 0 { 2.0 * x * s0 * 2.5 } else { 0.0 };
                first + 2.5 * (x * 2.5).cos() * s1 + weights()[i] * (i as f64 * 0.5)
            })
            .collect();
        for (a, b) in g.iter().zip(&expected) {
            close(*a, *b, 1e-14);
        }
    }
}

/// What an iterator chain says about the items, without derivatives: a count, flags, a
/// position (each computed as written, from differentiated items).
#[reverse]
fn counted_and_found(xs: &[f64]) -> f64 {
    let positives = xs.iter().filter(|v| **v > 0.0).count();
    let big = xs.iter().any(|v| *v > 1.5);
    let all_small = xs.iter().all(|v| v.abs() < 10.0);
    let i = xs.iter().position(|v| *v > 1.0).unwrap_or(0);
    let found = xs.iter().rposition(|v| *v < 0.0).is_some();
    let mut s = xs[i] * xs[i] * positives as f64;
    if big && all_small {
        s += xs[0];
    }
    if found {
        s *= 2.0;
    }
    s
}

#[test]
fn counts_flags_and_positions_of_a_chain() {
    // 2 positives, one above 1.5, all small, the first above 1 at 2, a negative: 2 (2 x2^2 + x0).
    let xs = [0.5, -1.0, 2.0];
    let (v, g) = counted_and_found_grad(&xs);
    same(v, counted_and_found(&xs));
    assert_eq!(g, vec![2.0, 0.0, 8.0 * xs[2]]);
    // No item above 1: xs[0] squared, once per positive; no negative.
    let xs = [0.5, 0.25];
    let (v, g) = counted_and_found_grad(&xs);
    same(v, counted_and_found(&xs));
    assert_eq!(g, vec![4.0 * xs[0], 0.0]);
}
