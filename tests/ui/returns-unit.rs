// A function that returns nothing has no output to differentiate.
use revad::reverse;

#[reverse]
fn f(x: f64) { //~ ERROR
    let _ = x * x;
}

fn main() {}
