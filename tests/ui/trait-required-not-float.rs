// A required trait method with #[reverse] returns a float (its derivatives are declared from
// its signature); other results need a default body.
#[revad::reverse]
pub trait Model {
    #[reverse]
    fn eval(&self, x: f64) -> [f64; 2]; //~ ERROR returns `f64` or `f32`
}

fn main() {}
