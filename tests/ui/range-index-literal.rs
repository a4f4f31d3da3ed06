// Slicing an array that is not bound to a name (a literal) is rejected at the range.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let a = &[1.0, 2.0][0..1];
    a[0] * x
}

fn main() {}
