// A `match` without arms is rejected.
use revad::reverse;

enum Never {}

#[reverse(wrt(x))]
fn f(x: f64, n: Never) -> f64 {
    let k: f64 = match n {}; //~ ERROR a `match` without arms is not supported
    x * k
}

fn main() {}
