// Struct update syntax is rejected at the base.
use revad::reverse;

#[derive(Clone, revad::Adjoint)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[reverse]
fn f(p: &Point, t: f64) -> f64 {
    let q = Point { x: t, ..p.clone() }; //~ ERROR struct update syntax
    q.x * q.y
}

fn main() {}
