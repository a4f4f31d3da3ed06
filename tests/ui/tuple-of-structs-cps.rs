// The CPS backend does not return a tuple with a struct in it yet (a struct alone, it does):
// the error is at the return type.

#[derive(Clone, Debug, revad::Adjoint)]
pub struct P {
    pub x: f64,
}

#[revad::reverse(cps)]
fn split(a: f64) -> (P, f64) { //~ ERROR does not return tuples of structs
    (P { x: a * 2.0 }, a)
}

fn main() {}
