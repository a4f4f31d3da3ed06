// `#[revad::forward]`: the primal interleaved with its tangent code.

#[forward]
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z * z
}

#[forward]
fn recurrence(x0: f64, a: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        if x > 1.0 {
            x = x.atan2(a);
        } else {
            x = x.sin() * a + x;
        }
    }
    x
}

#[forward(vector)]
fn smooth(w: &[f64], out: &mut [f64]) -> f64 {
    let mut acc = 0.0;
    for i in 0..w.len() {
        out[i] = w[i].tanh();
        acc += out[i];
    }
    helper(acc, 2)
}

#[forward(vector)]
fn helper(x: f64, k: usize) -> f64 {
    x.powi(k as i32)
}
