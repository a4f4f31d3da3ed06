// A `for` loop over `iter_mut()` then `.map(..)`: one error at the iterator (the loops over
// chains with closures run as `.for_each(..)`, but not over `iter_mut()`).
use revad::reverse;

#[reverse]
fn shifted(k: f64, y: &mut [f64]) -> f64 {
    for (i, v) in y.iter_mut().map(|v| v).enumerate() {
        *v += i as f64 * k;
    }
    y[0] + y[1]
}

fn main() {}
