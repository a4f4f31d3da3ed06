// A parameter listed twice in `wrt(..)` is rejected at the second occurrence.
use revad::reverse;

#[reverse(wrt(x, x))] //~ ERROR `x` is listed twice in `wrt(...)`
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}
