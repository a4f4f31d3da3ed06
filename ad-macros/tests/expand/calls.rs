#[reverse]
fn pow_rec(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * pow_rec(x, n - 1)
    }
}
