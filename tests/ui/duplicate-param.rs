// A parameter name bound twice is rustc's error (E0415), the only one: the generated code
// does not repeat it with names of its own.
use revad::reverse;

#[reverse]
fn f(a: f64, a: f64) -> f64 { //~ ERROR identifier `a` is bound more than once
    a * a
}

fn main() {
    let _ = f_grad(1.0, 2.0);
}
