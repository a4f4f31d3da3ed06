// `wrt(..)` naming an integer parameter is rejected: integers have no derivative.
use revad::reverse;

#[reverse(wrt(x, n))] //~ ERROR
fn f(x: f64, n: i32) -> f64 {
    x.powi(n)
}

fn main() {}
