// A tuple of differentiated values passed to a function is rejected at the argument (it was
// taken for a call without a derivative).
use revad::reverse;

#[reverse]
fn prod(t: (f64, f64)) -> f64 {
    t.0 * t.1
}

#[reverse]
fn caller(x: f64, y: f64) -> f64 {
    prod((x, 2.0 * y)) //~ ERROR not tuples of differentiated values
}

fn main() {}
