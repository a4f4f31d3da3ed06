// The CPS backend does not differentiate generic functions; the error points at the type
// parameter and names the default backend.
use revad::{reverse, Float};

#[reverse(cps)]
fn f<T: Float>(x: T) -> T { //~ ERROR #[reverse(cps)] does not differentiate generic functions
    x * x
}

fn main() {}
