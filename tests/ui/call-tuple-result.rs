// A tuple returned by a call is taken apart by `let (a, b) = g(..)`; returned as it is, or
// reached by a field, it is one error saying so.
use revad::reverse;

#[reverse]
fn pair(x: f64) -> (f64, f64) {
    (x, x * x)
}

#[reverse]
fn returned(x: f64) -> (f64, f64) {
    pair(x) //~ ERROR takes a tuple returned by a call apart
}

#[reverse]
fn field(x: f64) -> f64 {
    pair(x).1 * 2.0 //~ ERROR
}

fn main() {}
