// `T::from_f64` of a differentiated value would drop its derivative (for a dual number it
// makes a constant); the error points at `from_f64`.
use revad::{reverse, Float};

#[reverse]
fn f<T: Float>(x: T, y: f64) -> T {
    x * T::from_f64(y * 2.0) //~ ERROR `from_f64` makes a constant of its argument
}

fn main() {}
