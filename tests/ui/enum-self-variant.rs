// A variant written through `Self` is rejected at `Self`: the adjoint's alias needs the name.
#[derive(Clone, revad::Adjoint)]
pub enum Shape {
    Circle(f64),
    Square(f64),
}

impl Shape {
    #[revad::reverse]
    pub fn area(&self) -> f64 {
        match self {
            Self::Circle(r) => 3.0 * r * r, //~ ERROR write the enum's name instead of `Self`
            Self::Square(a) => a * a,
        }
    }
}

fn main() {}
