// Arithmetic with an integer operand is taken for integer arithmetic, which carries no
// derivative; an operator of a struct of the user's with an integer on the right is checked
// to be one, and is an error at the operation (not a derivative dropped).
use std::ops::Mul;

#[derive(Clone, Copy, Debug, Default, revad::Adjoint)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Copy, Debug, Default, revad::Adjoint)]
pub struct Body {
    pub pos: V2,
}

#[revad::reverse]
impl Mul<i32> for V2 {
    type Output = V2;
    #[reverse]
    fn mul(self, k: i32) -> V2 {
        V2 { x: self.x * k as f64, y: self.y * k as f64 }
    }
}

#[revad::reverse]
fn doubled(b: &Body) -> f64 {
    let w = b.pos * 2; //~ ERROR this arithmetic has an integer operand
    w.x
}

#[revad::reverse]
fn built(x: f64) -> f64 {
    let w = V2 { x, y: x } * 2; //~ ERROR this arithmetic has an integer operand
    w.x
}

fn main() {}
