// A type parameter bounded by no float trait (`revad::Float`, `num_traits::Float`, `Real`) and
// by no arithmetic operator of its own type is rejected at the parameter: the macro cannot tell
// whether its values carry derivatives.
use revad::reverse;

#[reverse]
fn f<T: Into<f64>>(x: f64, _t: T) -> f64 { //~ ERROR `T` is not bounded by a float trait
    x * x
}

fn main() {}
