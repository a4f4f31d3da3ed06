// In a generic function over `revad::Float`, a const generic parameter is still rejected, and a
// second type parameter without the bound too: both errors at once.
use revad::{reverse, Float};

#[reverse]
fn f<T: Float, U: Clone, const N: usize>(x: [T; N], _u: U) -> T { //~ ERROR const generic parameters are not supported; `U` is not bounded
    x[0] * x[N - 1]
}

fn main() {}
