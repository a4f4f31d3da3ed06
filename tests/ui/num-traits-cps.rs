// The CPS backend does not differentiate generic functions, whatever their bound
// (`num_traits::Float` here): the error points at the type parameter and names the default
// backend.
use revad::num_traits::Float;
use revad::reverse;

#[reverse(cps)]
fn f<T: Float>(x: T) -> T { //~ ERROR #[reverse(cps)] does not differentiate generic functions
    x.sin() * x
}

fn main() {}
