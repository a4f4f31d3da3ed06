// An element of a tuple a call returns, in arithmetic, is rejected at the call with the one
// message for such tuples: take it apart by `let`.
use revad::reverse;

#[reverse]
fn polar(a: f64, b: f64) -> (f64, f64) {
    ((a * a + b * b).sqrt(), b.atan2(a))
}

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    polar(x, y).0 + polar(x, y).1 //~ ERROR
}

fn main() {}
