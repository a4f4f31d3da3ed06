// A struct expression's field must be a value the macro can name: a tuple is rejected.
use revad::reverse;

#[derive(Clone, revad::Adjoint)]
struct P {
    t: (f64, f64),
}

#[reverse]
fn f(x: f64) -> f64 {
    let p = P { t: (x, 2.0 * x) }; //~ ERROR takes a number, an array or a struct
    p.t.0 * x
}

fn main() {}
