// In a generic function over `revad::Float` and a length, a second type parameter without a
// float bound is rejected at the parameter (the length is taken).
use revad::{reverse, Float};

#[reverse]
fn f<T: Float, U: Clone, const N: usize>(x: [T; N], _u: U) -> T { //~ ERROR `U` is not bounded
    x[0] * x[N - 1]
}

fn main() {}
