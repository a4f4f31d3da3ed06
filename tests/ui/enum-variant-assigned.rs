// Assigning a variant of an enum (or `None`, `Some(..)`) to a value with derivatives is
// rejected at the value: its adjoint keeps the variant it had, which the parts bound by a
// `match` or `if let` read.
use revad::reverse;

#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub enum Shape {
    Circle(f64),
    Empty,
}

#[derive(Clone, Debug, revad::Adjoint)]
pub struct Layer {
    pub w: f64,
    pub bias: Option<f64>,
}

#[reverse]
fn replaced(mut s: Shape, x: f64) -> f64 {
    let r = if let Shape::Circle(r) = s { r } else { 0.0 };
    s = Shape::Circle(x); //~ ERROR does not assign an enum's variant
    if let Shape::Circle(q) = s {
        q * r
    } else {
        r
    }
}

#[reverse]
fn dropped(l: &mut Layer, x: f64) -> f64 {
    if let Some(b) = l.bias {
        l.bias = None; //~ ERROR does not assign an enum's variant
        b * x
    } else {
        x * l.w
    }
}

fn main() {}
