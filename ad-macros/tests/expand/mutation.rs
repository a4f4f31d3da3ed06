#[reverse]
fn scale_into(x: &[f64], k: &f64, out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] = x[i] * *k;
    }
}

#[reverse]
fn step(state: &mut [f64; 2], dt: f64) {
    let x = state[0];
    state[0] = x + dt * state[1];
    state[1] = state[1] - dt * x;
}

#[reverse]
fn simulate(state: &mut [f64; 2], dt: f64, n: usize) -> f64 {
    for _ in 0..n {
        step(state, dt);
    }
    state[0]
}

#[reverse]
fn sincos(x: f64) -> (f64, f64) {
    (x.sin(), x.cos())
}

#[reverse]
fn polar(x: f64, r: f64) -> f64 {
    let (s, c) = sincos(x);
    r * s + c
}
