//! A method named like a float intrinsic (`round`) or a method without a derivative (`len`):
//! its calls would be taken for those, so the method is rejected at its name.

#[derive(Clone, Copy, Debug, revad::Adjoint)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

impl V2 {
    #[revad::reverse]
    pub fn len(&self) -> f64 {
        self.x.hypot(self.y)
    }

    #[revad::reverse]
    pub fn round(&self) -> f64 {
        self.x * 2.0 + self.y
    }
}

fn main() {}
