// An `extern "C"` function is rejected at its ABI.
use revad::reverse;

#[reverse]
extern "C" fn f(x: f64) -> f64 { //~ ERROR `extern` functions are not supported
    x * x
}

fn main() {}
