#[reverse]
fn area(s: &Shape, k: f64) -> f64 {
    match s {
        Shape::Circle(r) => 3.14 * r * r * k,
        Shape::Rect { w, h } => w * h * k,
        Shape::Empty => 0.0,
        Shape::Poly(pts) => pts[0] * pts[1],
    }
}

#[reverse]
fn built(x: f64) -> f64 {
    let c = Shape::Circle(2.0 * x);
    match c {
        Shape::Circle(r) => r * r,
        _ => 0.0,
    }
}

#[reverse]
fn rect(x: f64, y: f64) -> Shape {
    Shape::Rect { w: x * y, h: y }
}
