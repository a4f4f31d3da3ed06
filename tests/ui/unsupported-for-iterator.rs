// A `for` loop over an iterator the macro cannot count (`skip`) is rejected at the iterator;
// the message lists the forms it can (here `&xs[1..]`).
use ad::reverse;

#[reverse]
fn f(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in xs.iter().skip(1) { //~ ERROR #[reverse] supports `for` loops over ranges
        s += x * x;
    }
    s
}

fn main() {}
