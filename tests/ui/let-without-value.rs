// A `let` without an initial value is rejected; the error suggests giving the first value.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let y; //~ ERROR a `let` without a value is not supported
    y = x * x;
    y
}

fn main() {}
