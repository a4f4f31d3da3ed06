// An operator on a struct of the user's whose impl has no `#[revad::reverse]`: the error is at
// the operator (`a + a` is `a.add(a)`, a method without a derivative); one whose left operand
// is no name (a call's result) is an error at the operator that says what to write.
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
    let b = a + a;
    b.x * b.y
}

#[revad::reverse]
impl V2 {
    #[revad::reverse]
    fn twice(&self) -> V2 {
        V2 { x: 2.0 * self.x, y: 2.0 * self.y }
    }
}

#[reverse]
fn g(x: f64, y: f64) -> f64 {
    let a = V2 { x, y };
    let b = a.twice() + a;
    b.x * b.y
}

fn main() {}
