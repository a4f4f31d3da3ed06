// An `unsafe` block inside a #[reverse] function is rejected at the `unsafe` block.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let y = unsafe { x * 2.0 }; //~ ERROR
    y * x
}

fn main() {}
