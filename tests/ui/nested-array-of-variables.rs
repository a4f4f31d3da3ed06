// A 2-D array built in the body starts from constants; one built from variables would lose
// its elements' derivatives, and is rejected at the literal.
use revad::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let m = [[x, y], [y, x]]; //~ ERROR #[reverse] builds 2-D arrays from constants
    m[0][1] * m[1][1]
}

fn main() {}
