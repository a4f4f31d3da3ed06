#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z * z
}

#[reverse]
fn piecewise(x: f64, k: i32) -> f64 {
    let mut s = x.sin() * x;
    if s > 0.5 {
        s = s.sqrt();
    } else {
        s *= 2.0;
    }
    s.powi(k) + f64::exp(-x)
}

#[reverse(wrt(w))]
fn dot3(w: [f64; 3], x: &[f64]) -> f64 {
    w[0] * x[0] + w[1] * x[1] + w[2] * x[2]
}

#[reverse]
fn constant_receiver(x: f64) -> f64 {
    f64::sin(0.5 + 0.25) * x + 2.0_f64.powf(x)
}

#[reverse]
fn clamped(x: f64, lo: f64) -> f64 {
    (x * x).clamp(lo, 1.0)
}
