// A `Vec` method that changes the container, called on a part of a struct (`s.xs.push(..)`):
// an error at the method, in the message of every such method (not rustc's about the macro's
// generated companions).

#[derive(Clone, revad::Adjoint)]
pub struct S {
    pub xs: Vec<f64>,
}

#[revad::reverse]
fn f(x: f64) -> f64 {
    let mut s = S { xs: vec![x] };
    s.xs.push(3.0); //~ ERROR may change a container of differentiated values
    s.xs[0] * s.xs[1]
}

#[revad::reverse(cps)]
fn g(x: f64) -> f64 {
    let mut s = S { xs: vec![x] };
    s.xs.clear(); //~ ERROR may change a container of differentiated values
    x
}

fn main() {}
