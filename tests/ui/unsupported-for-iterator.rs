// A `for` loop over an iterator the macro cannot count (`cycle` of a slice) is rejected at
// the iterator; the message lists the forms it can.
use revad::reverse;

#[reverse]
fn f(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in xs.iter().cycle().take(5) { //~ ERROR #[reverse] supports `for` loops over ranges
        s += x * x;
    }
    s
}

fn main() {}
