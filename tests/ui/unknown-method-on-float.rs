// A float method outside the intrinsic table (`fract`) is rejected at the method name.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    x.fract() //~ ERROR
}

fn main() {}
