// An or-pattern that binds a variant's field is rejected at the pattern.
#[derive(Clone, revad::Adjoint)]
pub enum Shape {
    Circle(f64),
    Square(f64),
}

#[revad::reverse]
fn size(s: &Shape) -> f64 {
    match s {
        Shape::Circle(x) | Shape::Square(x) => x * x, //~ ERROR an or-pattern
    }
}

fn main() {}
