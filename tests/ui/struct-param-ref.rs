// A user type without `#[derive(revad::Adjoint)]` behind a reference or in a slice: one error
// per parameter, at the type, naming the derive.
use revad::reverse;

#[derive(Clone, Copy)]
struct P {
    x: f64,
}

#[reverse]
fn f(p: &P, y: f64) -> f64 { //~ ERROR `P` has no adjoint
    p.x * y
}

#[reverse]
fn g(ps: &[P], y: f64) -> f64 { //~ ERROR `P` has no adjoint
    let mut s = 0.0;
    for p in ps {
        s += p.x * y;
    }
    s
}

fn main() {}
