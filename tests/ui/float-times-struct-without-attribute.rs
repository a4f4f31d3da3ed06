// `k * v` with a struct of the user's on the right: the method that
// `#[revad::reverse] impl Mul<V2> for f64` gives the struct; without the attribute on that
// impl, one error at the operator says to add it.
use revad::reverse;
use std::ops::Mul;

#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

impl Mul<V2> for f64 {
    type Output = V2;
    fn mul(self, v: V2) -> V2 {
        V2 { x: self * v.x, y: self * v.y }
    }
}

#[reverse]
fn f(a: V2, k: f64) -> f64 {
    let b = k * a; //~ ERROR with a struct on the right has no derivative
    b.x + b.y
}

fn main() {}
