// Another crate's `Float` (here a local one) is not `revad::Float`: the generated code could not
// use its types, so the parameter is rejected like an unbounded one.
use revad::reverse;

mod num {
    pub trait Float: Copy + core::ops::Mul<Output = Self> {}
}

#[reverse]
fn f<T: num::Float>(x: T) -> T { //~ ERROR `T` is bounded by `num::Float`, not by `revad::Float`
    x * x
}

fn main() {}
