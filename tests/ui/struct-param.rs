// A user struct without `#[derive(revad::Adjoint)]` has no adjoint: the error is at the
// parameter's type and names the derive.
use revad::reverse;

#[derive(Clone, Copy)]
struct P {
    x: f64,
}

#[reverse]
fn f(p: P) -> f64 { //~ ERROR `P` has no adjoint
    p.x * p.x
}

fn main() {}
