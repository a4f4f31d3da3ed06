//! A method of the user's that is not annotated, named like a float intrinsic (`round`) or a
//! container's length (`len`) and computing a float: a call on a struct goes to the method
//! (which has no derivative), and a `.len()` is checked to be a length (a `usize`).

#[derive(Clone, Copy, Debug, revad::Adjoint)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

impl V2 {
    pub fn len(&self) -> f64 {
        self.x.hypot(self.y)
    }

    pub fn round(&self) -> f64 {
        self.x * 2.0 + self.y
    }
}

#[revad::reverse]
fn twice_the_length(a: V2) -> f64 {
    2.0 * a.len()
}

#[revad::reverse]
fn rounded(a: V2) -> f64 {
    a.round() * a.x
}

fn main() {}
