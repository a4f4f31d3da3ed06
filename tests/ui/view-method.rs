// A slice of a float array (a view) is followed through indexing, `.len()`, loops, iterator
// chains, slicing, `copy_from_slice` and calls; another method on it is rejected at the view.
use revad::reverse;

#[reverse]
fn f(w: &[f64]) -> f64 {
    let tail = &w[1..];
    let first = tail.first(); //~ ERROR
    tail[0] * w[0] + first.copied().unwrap_or(0.0)
}

fn main() {}
