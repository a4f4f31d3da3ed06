// A `mut` binding of a variant's field is rejected at the binding.
#[derive(Clone, revad::Adjoint)]
pub enum Shape {
    Circle(f64),
    Square(f64),
}

#[revad::reverse]
fn area(s: &Shape) -> f64 {
    match *s {
        Shape::Circle(mut r) => { //~ ERROR a `mut` or `@` binding
            r *= 2.0;
            r
        }
        Shape::Square(a) => a * a,
    }
}

fn main() {}
