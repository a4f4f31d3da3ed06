// `cps` given twice: the error points at the second one.
use revad::reverse;

#[reverse(cps, cps)] //~ ERROR duplicate `cps` argument
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
