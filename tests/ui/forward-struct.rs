// Forward mode does not take structs yet: the error says so at the parameter's type.

#[derive(Clone, revad::Adjoint)]
struct Point {
    x: f64,
    y: f64,
}

#[revad::forward]
fn norm(p: &Point) -> f64 {
    (p.x * p.x + p.y * p.y).sqrt()
}

fn main() {}
