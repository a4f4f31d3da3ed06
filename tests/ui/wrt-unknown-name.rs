// `wrt(..)` naming something that is not a parameter is rejected at that name.
use revad::reverse;

#[reverse(wrt(x, z))] //~ ERROR `wrt` names `z`, which is not a parameter
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}
