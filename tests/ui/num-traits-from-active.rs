// `T::from(..)` of `num_traits::NumCast` makes a constant (for a dual number too), so a
// conversion of a differentiated value would drop its derivative: the error points at `from`.
use revad::num_traits::Float;
use revad::reverse;

#[reverse]
fn f<T: Float>(x: T, y: f64) -> T {
    x * T::from(y * 2.0).unwrap() //~ ERROR `from` makes a constant of its argument
}

fn main() {}
