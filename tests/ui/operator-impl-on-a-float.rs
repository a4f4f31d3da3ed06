// An operator impl on a float (`impl Mul<V2> for f64`, for `k * v`) is rejected at the float:
// the derivatives' methods would need an inherent impl of `f64`. `k * v` is rejected at the
// operator.
use revad::reverse;
use std::ops::Mul;

#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

#[revad::reverse]
impl Mul<V2> for f64 { //~ ERROR not on a number
    type Output = V2;
    #[reverse]
    fn mul(self, v: V2) -> V2 {
        V2 { x: self * v.x, y: self * v.y }
    }
}

#[reverse]
fn f(a: V2, k: f64) -> f64 {
    let b = k * a; //~ ERROR with a name on the left
    b.x + b.y
}

fn main() {}
