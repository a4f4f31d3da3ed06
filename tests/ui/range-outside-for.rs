// A range used outside a `for` loop is rejected at the range.
use revad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let r = 0..n; //~ ERROR a range is only supported as the iterator of a `for` loop
    let mut s = x;
    for _ in r {
        s *= x;
    }
    s
}

fn main() {}
