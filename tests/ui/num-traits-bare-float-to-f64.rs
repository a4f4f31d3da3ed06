// With a bare `Float` bound the macro cannot tell `num_traits::Float` from `revad::Float`, and
// the generated functions, bounded by `revad::Float` too, take `x.to_f64()` as the library's
// (an `f64`, not `ToPrimitive`'s `Option<f64>`): an error at the call, never another value.
// Name the trait in the bound (`T: num_traits::Float`), write `x.to_f64().unwrap()`, or
// `ToPrimitive::to_f64(&x)`.
use revad::num_traits::Float;
use revad::reverse;

#[reverse]
fn f<T: Float>(x: T) -> T {
    if x.to_f64() > Some(1.0) { //~ ERROR mismatched types
        x * x
    } else {
        x
    }
}

fn main() {}
