// In a function generic over its float type, arithmetic with an integer operand (`x * 2`,
// which a bound `T: Mul<i32>` would allow) is checked to compute an integer: an error at
// the operation, not a dropped derivative.
use std::ops::Mul;

#[revad::reverse]
fn doubled<T: revad::Float + Mul<i32, Output = T>>(x: T) -> T {
    x * 2 //~ ERROR this arithmetic has an integer operand
}

fn main() {}
