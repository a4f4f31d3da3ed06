// `wrt()` that names no parameter is rejected.
use revad::reverse;

#[reverse(wrt())] //~ ERROR `wrt()` names no parameter
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
