#[reverse]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x) * x
}

#[reverse]
fn outer(c: f64, w: &[f64]) -> f64 {
    apply(|x| c * x + w[0], c)
}
