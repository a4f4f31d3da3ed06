// A local of a struct without `#[derive(revad::Adjoint)]` is reported at the local, not at the
// attribute.
use revad::reverse;

#[derive(Clone, Copy)]
struct Lin {
    a: f64,
    b: f64,
}

#[reverse]
fn loss(a: f64, b: f64, xs: &[f64]) -> f64 {
    let m = Lin { a, b }; //~ ERROR `Lin` has no adjoint
    let mut l = 0.0;
    for i in 0..xs.len() {
        l += m.a * xs[i] + m.b;
    }
    l
}

fn main() {}
