// An operator impl on an integer (`impl Mul<V2> for i32`) is rejected at the integer; on a
// float it is the struct's method (`tests/operators.rs`).
use std::ops::Mul;

#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

#[revad::reverse]
impl Mul<V2> for i32 { //~ ERROR not on an integer
    type Output = V2;
    #[reverse]
    fn mul(self, v: V2) -> V2 {
        V2 { x: self as f64 * v.x, y: self as f64 * v.y }
    }
}

fn main() {}
