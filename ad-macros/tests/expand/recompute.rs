// `#[reverse(recompute)]`: `NAME::fwd` is the primal and keeps nothing; `NAME::rev` runs the
// forward sweep on copies of the arguments before the reverse sweep.
use revad::reverse;

#[reverse(recompute)]
fn layer(x: f64, w: &[f64]) -> f64 {
    let mut s = x;
    for i in 0..w.len() {
        s = (s * w[i]).sin() + 0.5 * s;
    }
    s
}
