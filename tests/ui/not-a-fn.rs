// #[reverse] on something other than a function is rejected.
use revad::reverse;

#[reverse] //~ ERROR #[reverse] applies to a function
struct S {
    x: f64,
}

fn main() {}
