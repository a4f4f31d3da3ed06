// An `unsafe fn` is rejected at `unsafe`.
use revad::reverse;

#[reverse]
unsafe fn f(x: f64) -> f64 { //~ ERROR `unsafe fn` is not supported
    x * x
}

fn main() {}
