// The CPS backend does not pass a struct to a function that returns a tuple yet: the error is
// at the call.

#[derive(Clone, Debug, revad::Adjoint)]
pub struct P {
    pub x: f64,
}

#[revad::reverse]
fn parts(p: &P, a: f64) -> (f64, f64) {
    (p.x * a, a)
}

#[revad::reverse(cps)]
fn total(a: f64) -> f64 {
    let p = P { x: a * 3.0 };
    let (u, v) = parts(&p, a); //~ ERROR does not pass a struct to a function that returns a tuple
    u + v
}

fn main() {}
