// An `if` whose value is a slice is rejected: choose the bounds in the branches, then slice.
use revad::reverse;

#[reverse]
fn f(w: &[f64]) -> f64 {
    let tail = if w[0] > 0.0 { &w[1..] } else { &w[2..] }; //~ ERROR
    tail[0] * w[0]
}

fn main() {}
