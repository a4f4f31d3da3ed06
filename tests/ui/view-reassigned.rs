// A variable bound to a slice cannot be given another slice: the macro fixes a view's base,
// start and length where it is made.
use revad::reverse;

#[reverse]
fn f(w: &[f64]) -> f64 {
    let mut tail = &w[1..];
    if w[0] > 0.0 {
        tail = &w[2..]; //~ ERROR
    }
    tail[0]
}

fn main() {}
