// Another crate's `Float` (here a local one), neither `revad::Float` nor `num_traits::Float`:
// the macro cannot tell what its types are, so the parameter is rejected like an unbounded one.
use revad::reverse;

mod num {
    pub trait Float: Copy + core::ops::Mul<Output = Self> {}
}

#[reverse]
fn f<T: num::Float>(x: T) -> T { //~ ERROR `T` is bounded by `num::Float`, not by a float trait
    x * x
}

fn main() {}
