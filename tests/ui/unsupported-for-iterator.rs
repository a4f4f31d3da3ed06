// A `for` loop over an iterator the macro cannot count (`windows`) is rejected at the iterator.
use ad::reverse;

#[reverse]
fn f(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in xs.windows(2) { //~ ERROR #[reverse] supports `for` loops over ranges
        s += w[1] - w[0];
    }
    s
}

fn main() {}
