// A 2-D array built in the body starts from constants, or from rows written out in a `let`
// (`[[x, y], [y, x]]`); one built from array variables would lose its elements' derivatives,
// and is rejected at the literal, and so is a nested `vec!` of one (at the `vec!`).
use revad::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let r = [x, y];
    let m = [r, [y, x]]; //~ ERROR #[reverse] builds 2-D arrays from constants
    m[0][1] * m[1][1]
}

#[reverse]
fn g(x: f64, y: f64) -> f64 {
    let m = [[x, y], [y * 2.0, x]];
    m[0][1] * m[1][0]
}

#[reverse]
fn h(x: f64, n: usize) -> f64 {
    let m = vec![vec![x; n]; 2]; //~ ERROR #[reverse] builds 2-D arrays from constants
    m[0][1] * m[1][1]
}

fn main() {
    let _ = g_grad(1.0, 2.0);
}
