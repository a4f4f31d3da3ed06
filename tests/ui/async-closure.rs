// An async closure is rejected at `async`.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let _g = async |y: f64| y * y; //~ ERROR async closures are not supported
    x * x
}

fn main() {}
