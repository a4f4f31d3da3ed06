// A function without a derivative called from annotated code: one error at the call, naming
// the function and saying how to give it a derivative.
use revad::reverse;

fn norm2(x: f64, y: f64) -> f64 {
    x * x + y * y
}

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    norm2(x, y).sqrt() //~ ERROR `norm2` has no derivative
}

fn main() {}
