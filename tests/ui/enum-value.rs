// Enum values are rejected at the variant.
use ad::reverse;

pub enum Shape {
    Circle(f64),
    Square(f64),
}

#[reverse]
fn area(r: f64) -> f64 {
    let s = Shape::Circle(r); //~ ERROR enum values are not supported
    match s {
        Shape::Circle(r) => 3.0 * r * r,
        Shape::Square(a) => a * a,
    }
}

fn main() {}
