// An arithmetic bound makes a float type parameter only when its output is the parameter
// itself (`Mul<Output = T>`): `T: Mul<Output = f64>` could be anything, and is rejected.
use core::ops::Mul;
use revad::reverse;

#[reverse]
fn f<T: Copy + Mul<Output = f64>>(x: T, y: f64) -> f64 { //~ ERROR `T` is not bounded by a float trait
    x * x + y
}

fn main() {}
