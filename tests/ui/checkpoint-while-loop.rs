// A checkpoint goes on a `for` loop over a range: a `while` loop's number of steps is not
// known before it runs.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut s = x;
    #[revad::checkpoint] //~ ERROR goes on a `for` loop over a range
    while s < 10.0 {
        s = s * 1.5 + x;
    }
    s
}

fn main() {}
