// A float by another name (`type Real = f64;`) in a signature: #[reverse] reads types by their
// names and takes `Real` for a struct of the user's; the error is at the type, and says to
// write the float type.
use revad::reverse;

pub type Real = f64;

#[reverse]
fn f(x: Real, y: f64) -> f64 { //~ ERROR a float by another name
    x.sin() * y
}

fn main() {}
