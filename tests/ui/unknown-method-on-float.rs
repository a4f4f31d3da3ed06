// A float method outside the intrinsic table (`div_euclid`) is rejected at the method name.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    x.div_euclid(0.5) //~ ERROR
}

fn main() {}
