// `to_f64` of `num_traits::ToPrimitive` leaves the float type, so the derivative of a
// differentiated value would be lost: the error points at `to_f64`, not at the `unwrap` after
// it.
use revad::num_traits::Float;
use revad::reverse;

#[reverse]
fn f<T: Float>(x: T, y: f64) -> f64 {
    y * x.to_f64().unwrap() //~ ERROR `to_f64` converts the value to a plain number
}

fn main() {}
