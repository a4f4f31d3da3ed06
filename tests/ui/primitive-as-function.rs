// A primitive type called like a function is one error that says how to convert.
use revad::reverse;

#[reverse]
fn f(x: f32) -> f64 {
    f64(x) * 2.0
}

fn main() {}
