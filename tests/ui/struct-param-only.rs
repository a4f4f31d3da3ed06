use ad::reverse;

pub struct Point {
    pub x: f64,
}

#[reverse]
fn f(p: &Point) -> f64 {
    p.x * 2.0
}

fn main() {}
