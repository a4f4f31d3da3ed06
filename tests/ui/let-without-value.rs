// A `let` without an initial value that the next statement does not give one on every
// branch (one branch returns) is rejected; the error says which forms are taken.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let y; //~ ERROR a `let` without a value is supported
    if x > 0.0 {
        y = x * x;
    } else {
        return 0.0;
    }
    y
}

fn main() {}
