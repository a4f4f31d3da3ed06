//! Small versions of `examples/saddle_point.rs` and `examples/particle.rs`: nested derivatives
//! (a gradient inside a function that is itself differentiated) in the four combinations of
//! outer and inner forward/reverse mode, each outer derivative checked against central finite
//! differences of the outer objective computed in plain `f64`, with the inner gradient
//! written out by hand (no AD in the reference).

use revad::{forward, reverse};

/// |a − b| small relative to the larger of them.
fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Central difference of `f` at `x` along `dir`.
fn central<const N: usize>(f: impl Fn([f64; N]) -> f64, x: [f64; N], dir: [f64; N]) -> f64 {
    let h = 1e-6;
    let up: [f64; N] = std::array::from_fn(|i| x[i] + h * dir[i]);
    let down: [f64; N] = std::array::from_fn(|i| x[i] - h * dir[i]);
    (f(up) - f(down)) / (2.0 * h)
}

// ---------------------------------------------------------------------------------------
// Saddle point: φ(x) = f(x, ŷ(x)), ŷ(x) a few steps of gradient ascent on y ↦ f(x, y).

const INNER_RATE: f64 = 0.25;
const INNER_STEPS: usize = 4;

#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
fn payoff(x: [f64; 2], y: [f64; 2]) -> f64 {
    let quadratic = x[0] * x[0] + x[1] * x[1] - y[0] * y[0] - y[1] * y[1];
    let coupling = x[0] * y[1] - x[1] * y[0];
    let linear = x[0] - x[1] + y[0];
    let quartic = 0.25 * (x[0] + 0.4).powi(4) - 0.25 * (y[1] + 0.2).powi(4);
    quadratic + coupling + linear + quartic
}

/// ∇ᵧ of the payoff, by hand.
fn payoff_dy(x: [f64; 2], y: [f64; 2]) -> [f64; 2] {
    [
        -2.0 * y[0] - x[1] + 1.0,
        -2.0 * y[1] + x[0] - (y[1] + 0.2).powi(3),
    ]
}

#[forward]
#[reverse]
fn argmax_reverse(x: [f64; 2]) -> [f64; 2] {
    let mut y = [1.0, 1.0];
    for _ in 0..INNER_STEPS {
        let (_, dy) = payoff_grad(x, y);
        y[0] += INNER_RATE * dy[0];
        y[1] += INNER_RATE * dy[1];
    }
    y
}

#[forward]
#[reverse]
fn argmax_forward(x: [f64; 2]) -> [f64; 2] {
    let mut y = [1.0, 1.0];
    for _ in 0..INNER_STEPS {
        let (_, dy0) = payoff_jvp(x, y, [1.0, 0.0]);
        let (_, dy1) = payoff_jvp(x, y, [0.0, 1.0]);
        y[0] += INNER_RATE * dy0;
        y[1] += INNER_RATE * dy1;
    }
    y
}

#[reverse]
fn phi_rr(x: [f64; 2]) -> f64 {
    let y: [f64; 2] = argmax_reverse(x);
    payoff(x, y)
}

#[reverse]
fn phi_rf(x: [f64; 2]) -> f64 {
    let y: [f64; 2] = argmax_forward(x);
    payoff(x, y)
}

#[forward]
fn phi_fr(x: [f64; 2]) -> f64 {
    let y: [f64; 2] = argmax_reverse(x);
    payoff(x, y)
}

#[forward]
fn phi_ff(x: [f64; 2]) -> f64 {
    let y: [f64; 2] = argmax_forward(x);
    payoff(x, y)
}

/// φ in plain `f64`, with the hand-written ∇ᵧf.
fn phi_plain(x: [f64; 2]) -> f64 {
    let mut y = [1.0, 1.0];
    for _ in 0..INNER_STEPS {
        let dy = payoff_dy(x, y);
        y[0] += INNER_RATE * dy[0];
        y[1] += INNER_RATE * dy[1];
    }
    payoff(x, y)
}

/// ∇φ in the four combinations, named outer-then-inner.
fn saddle_gradients(x: [f64; 2]) -> [(&'static str, f64, [f64; 2]); 4] {
    let (v_rr, g_rr) = phi_rr_grad(x);
    let (v_rf, g_rf) = phi_rf_grad(x);
    let ((v_fr, fr0), (_, fr1)) = (phi_fr_jvp(x, [1.0, 0.0]), phi_fr_jvp(x, [0.0, 1.0]));
    let ((v_ff, ff0), (_, ff1)) = (phi_ff_jvp(x, [1.0, 0.0]), phi_ff_jvp(x, [0.0, 1.0]));
    [
        ("rr", v_rr, g_rr),
        ("rf", v_rf, g_rf),
        ("fr", v_fr, [fr0, fr1]),
        ("ff", v_ff, [ff0, ff1]),
    ]
}

#[test]
fn saddle_inner_ascent_matches_the_hand_written_gradient() {
    let x = [0.3, -0.7];
    let mut y = [1.0, 1.0];
    for _ in 0..INNER_STEPS {
        let dy = payoff_dy(x, y);
        y[0] += INNER_RATE * dy[0];
        y[1] += INNER_RATE * dy[1];
    }
    for (a, b) in argmax_reverse(x).iter().zip(&y) {
        assert!(close(*a, *b, 1e-14), "{a} {b}");
    }
    for (a, b) in argmax_forward(x).iter().zip(&y) {
        assert!(close(*a, *b, 1e-14), "{a} {b}");
    }
}

#[test]
fn saddle_outer_gradient_matches_finite_differences_in_all_four_combinations() {
    for x in [[1.0, 1.0], [0.3, -0.7], [-0.4, 0.6], [-1.5, 2.0]] {
        let value = phi_plain(x);
        let fd = [
            central(phi_plain, x, [1.0, 0.0]),
            central(phi_plain, x, [0.0, 1.0]),
        ];
        let all = saddle_gradients(x);
        for (name, v, g) in all {
            assert!(
                close(v, value, 1e-13),
                "{name} at {x:?}: value {v} vs {value}"
            );
            for i in 0..2 {
                assert!(
                    close(g[i], fd[i], 1e-7),
                    "{name} at {x:?}: ∂φ/∂x{i} = {} vs finite differences {}",
                    g[i],
                    fd[i]
                );
                assert!(close(g[i], all[0].2[i], 1e-12), "{name} vs rr at {x:?}");
            }
        }
    }
}

#[test]
fn saddle_descent_takes_the_same_steps_in_all_four_combinations() {
    let mut xs = [[1.0, 1.0]; 4];
    for _ in 0..5 {
        for (k, x) in xs.iter_mut().enumerate() {
            let g = saddle_gradients(*x)[k].2;
            *x = [x[0] - 0.2 * g[0], x[1] - 0.2 * g[1]];
        }
    }
    for x in &xs[1..] {
        assert!(close(x[0], xs[0][0], 1e-12) && close(x[1], xs[0][1], 1e-12));
    }
}

// ---------------------------------------------------------------------------------------
// Charged particle: E(w) = x₁(t_f)² after an Euler simulation in an unbounded `while` loop,
// the force −∇ₓp(x; w) taken inside it.

const DT: f64 = 0.1;

#[forward(wrt(x))]
#[reverse(hessian, wrt(x))]
fn potential(w: f64, x: [f64; 2]) -> f64 {
    let (ax, ay) = (x[0] - 10.0, x[1] - (10.0 - w));
    let (bx, by) = (x[0] - 10.0, x[1]);
    1.0 / (ax * ax + ay * ay).sqrt() + 1.0 / (bx * bx + by * by).sqrt()
}

/// ∇ₓp by hand: each charge c contributes −(x − c)/‖x − c‖³.
fn potential_dx(w: f64, x: [f64; 2]) -> [f64; 2] {
    let mut g = [0.0; 2];
    for c in [[10.0, 10.0 - w], [10.0, 0.0]] {
        let d = [x[0] - c[0], x[1] - c[1]];
        let r3 = (d[0] * d[0] + d[1] * d[1]).powf(1.5);
        g[0] -= d[0] / r3;
        g[1] -= d[1] / r3;
    }
    g
}

#[reverse]
fn miss_rr(w: f64) -> f64 {
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    while x[1] + DT * v[1] > 0.0 {
        let (_, dp) = potential_grad(w, x);
        x[0] += DT * v[0];
        x[1] += DT * v[1];
        v[0] -= DT * dp[0];
        v[1] -= DT * dp[1];
    }
    let dt_f = -x[1] / v[1];
    let x_f = x[0] + dt_f * v[0];
    x_f * x_f
}

#[reverse]
fn miss_rf(w: f64) -> f64 {
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    while x[1] + DT * v[1] > 0.0 {
        let (_, dp0) = potential_jvp(w, x, [1.0, 0.0]);
        let (_, dp1) = potential_jvp(w, x, [0.0, 1.0]);
        x[0] += DT * v[0];
        x[1] += DT * v[1];
        v[0] -= DT * dp0;
        v[1] -= DT * dp1;
    }
    let dt_f = -x[1] / v[1];
    let x_f = x[0] + dt_f * v[0];
    x_f * x_f
}

#[forward]
fn miss_fr(w: f64) -> f64 {
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    while x[1] + DT * v[1] > 0.0 {
        let (_, dp) = potential_grad(w, x);
        x[0] += DT * v[0];
        x[1] += DT * v[1];
        v[0] -= DT * dp[0];
        v[1] -= DT * dp[1];
    }
    let dt_f = -x[1] / v[1];
    let x_f = x[0] + dt_f * v[0];
    x_f * x_f
}

#[forward]
fn miss_ff(w: f64) -> f64 {
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    while x[1] + DT * v[1] > 0.0 {
        let (_, dp0) = potential_jvp(w, x, [1.0, 0.0]);
        let (_, dp1) = potential_jvp(w, x, [0.0, 1.0]);
        x[0] += DT * v[0];
        x[1] += DT * v[1];
        v[0] -= DT * dp0;
        v[1] -= DT * dp1;
    }
    let dt_f = -x[1] / v[1];
    let x_f = x[0] + dt_f * v[0];
    x_f * x_f
}

/// E(w) in plain `f64`, with the hand-written force.
fn miss_plain(w: f64) -> f64 {
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    while x[1] + DT * v[1] > 0.0 {
        let dp = potential_dx(w, x);
        x[0] += DT * v[0];
        x[1] += DT * v[1];
        v[0] -= DT * dp[0];
        v[1] -= DT * dp[1];
    }
    let dt_f = -x[1] / v[1];
    let x_f = x[0] + dt_f * v[0];
    x_f * x_f
}

/// E and dE/dw in the four combinations, named outer-then-inner.
fn particle_slopes(w: f64) -> [(&'static str, (f64, f64)); 4] {
    [
        ("rr", miss_rr_grad(w)),
        ("rf", miss_rf_grad(w)),
        ("fr", miss_fr_jvp(w, 1.0)),
        ("ff", miss_ff_jvp(w, 1.0)),
    ]
}

#[test]
fn particle_force_matches_the_hand_written_gradient() {
    for (w, x) in [(0.0, [0.0, 8.0]), (0.2, [7.5, 3.0]), (-0.3, [12.0, 1.0])] {
        let g = potential_dx(w, x);
        let (_, dp) = potential_grad(w, x);
        let dp_fwd = [
            potential_jvp(w, x, [1.0, 0.0]).1,
            potential_jvp(w, x, [0.0, 1.0]).1,
        ];
        for i in 0..2 {
            assert!(close(dp[i], g[i], 1e-13) && close(dp_fwd[i], g[i], 1e-13));
        }
    }
}

#[test]
fn particle_outer_slope_matches_finite_differences_in_all_four_combinations() {
    for w in [0.0, 0.1, 0.2, 0.25] {
        let value = miss_plain(w);
        let fd = central(|p: [f64; 1]| miss_plain(p[0]), [w], [1.0]);
        let all = particle_slopes(w);
        for (name, (e, slope)) in all {
            assert!(
                close(e, value, 1e-12),
                "{name} at w = {w}: E {e} vs {value}"
            );
            assert!(
                close(slope, fd, 1e-6),
                "{name} at w = {w}: dE/dw = {slope} vs finite differences {fd}"
            );
            assert!(close(slope, all[0].1 .1, 1e-12), "{name} vs rr at w = {w}");
        }
    }
}

#[test]
fn particle_descent_takes_the_same_steps_in_all_four_combinations() {
    // A few plain gradient-descent steps from w = 0; E'(0) ≈ −19, so the rate is small.
    let mut ws = [0.0; 4];
    for _ in 0..5 {
        for (k, w) in ws.iter_mut().enumerate() {
            let (_, slope) = particle_slopes(*w)[k].1;
            *w -= 2e-3 * slope;
        }
    }
    assert!(
        ws[0] > 0.1,
        "the descent moves towards w ≈ 0.207: {}",
        ws[0]
    );
    for w in &ws[1..] {
        assert!(close(*w, ws[0], 1e-12), "{w} vs {}", ws[0]);
    }
}
