// A `for` loop over `.flatten()` is two nested loops: a `break` out of it would leave only
// the inner one, so it is rejected at the `break`, with the alternative.
use revad::reverse;

#[reverse]
fn f(m: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for &v in m.iter().flatten() {
        if v > 1.0 {
            break; //~ ERROR does not `break` out of a loop over `.flatten()`
        }
        s += v;
    }
    s
}

fn main() {}
