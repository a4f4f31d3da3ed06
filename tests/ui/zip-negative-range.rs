// A range with a negative bound in a zip is rejected at the bound: the items are `usize`s.
use revad::reverse;

#[reverse]
fn f(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, x) in (-2..2).zip(xs.iter()) { //~ ERROR a negative bound is not taken
        s += x * k as f64;
    }
    s
}

fn main() {}
