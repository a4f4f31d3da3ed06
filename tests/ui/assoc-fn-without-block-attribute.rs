// An associated function without `self` and without `Self` in its signature or body: an
// attribute on the function alone cannot tell it from a free function, and expands to a free
// function's items, which an `impl` block cannot hold. `#[revad::reverse]` on the block says
// where it is (tests/assoc_fns.rs).
use revad::reverse;

pub struct Foo;

impl Foo {
    #[reverse] //~ ERROR struct is not supported in `trait`s or `impl`s
    pub fn sq(x: f64) -> f64 {
        x * x
    }
}

fn main() {}
