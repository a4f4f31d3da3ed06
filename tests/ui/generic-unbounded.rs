// A type parameter not bounded by `revad::Float` is rejected at the parameter: the macro cannot
// tell whether its values carry derivatives.
use revad::reverse;

#[reverse]
fn f<T: Into<f64>>(x: f64, _t: T) -> f64 { //~ ERROR `T` is not bounded by `revad::Float`
    x * x
}

fn main() {}
