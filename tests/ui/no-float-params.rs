// A function without float parameters has nothing to differentiate with respect to.
use revad::reverse;

#[reverse]
fn f(n: i32, k: usize) -> f64 { //~ ERROR
    n as f64 * k as f64
}

fn main() {}
