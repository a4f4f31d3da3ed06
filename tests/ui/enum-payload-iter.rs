// Iterating over an array in a variant is rejected at the array: it has no view.
#[derive(Clone, revad::Adjoint)]
pub enum Shape {
    Poly([f64; 3]),
    Empty,
}

#[revad::reverse]
fn perimeter(s: &Shape) -> f64 {
    let mut sum = 0.0;
    match s {
        Shape::Poly(pts) => {
            for p in pts.iter() { //~ ERROR a slice or iterator over a part of an enum variant
                sum += p;
            }
        }
        Shape::Empty => {}
    }
    sum
}

fn main() {}
