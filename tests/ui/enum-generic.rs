// An enum with type parameters is rejected at the enum's name in the pattern.
#[derive(Clone, revad::Adjoint)]
pub enum Shape<T> {
    Circle(T),
    Empty,
}

#[revad::reverse]
fn area(s: &Shape<f64>) -> f64 {
    match s {
        Shape::Circle(r) => r * r, //~ ERROR an enum with generic parameters
        Shape::Empty => 0.0,
    }
}

fn main() {}
