// A generic function calling a generic function without a derivative: one error, at the call,
// as for `f64` code.
use revad::{reverse, Float};

fn cube<T: Float>(x: T) -> T {
    x * x * x
}

#[reverse]
fn f<T: Float>(x: T) -> T {
    cube(x) + x //~ ERROR has no derivative
}

fn main() {}
