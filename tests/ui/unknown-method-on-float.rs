// A float method outside the intrinsic table (`to_degrees`) is rejected at the method name.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    x.to_degrees() //~ ERROR
}

fn main() {}
