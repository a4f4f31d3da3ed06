// An operator on a struct of the user's (`impl Add for V2`) is not differentiated through:
// the error is at the operator and says what to write instead.
use revad::reverse;
use std::ops::Add;

#[derive(Clone, Copy, Debug, revad::Adjoint)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

impl Add for V2 {
    type Output = V2;
    fn add(self, o: V2) -> V2 {
        V2 { x: self.x + o.x, y: self.y + o.y }
    }
}

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let a = V2 { x, y };
    let b = a + a; //~ ERROR not on a struct of yours
    b.x * b.y
}

fn main() {}
