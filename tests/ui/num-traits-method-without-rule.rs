// A method of `num_traits::Float` that the rule table has no derivative for (`abs_sub`) is an
// error at the call, as it is on `f64`, in reverse and in forward mode.
use revad::num_traits::Float;
use revad::{forward, reverse};

#[reverse]
fn f<T: Float>(x: T) -> T {
    x.abs_sub(T::one()) * x //~ ERROR `abs_sub` is not a float intrinsic
}

#[forward]
fn g<T: Float>(x: T, y: T) -> T {
    x.abs_sub(y) //~ ERROR `abs_sub` is not a float intrinsic
}

fn main() {}
