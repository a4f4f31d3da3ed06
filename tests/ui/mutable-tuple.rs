// `let mut` of a tuple is rejected; the error suggests one `let mut` per element.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut t = (x, x * x); //~ ERROR a mutable tuple is not supported
    t.0 * t.1
}

fn main() {}
