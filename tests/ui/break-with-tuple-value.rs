// `break` with a float or an index value is supported; with a tuple it is rejected, and the
// error suggests assigning the parts to variables declared before the loop.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut s = x;
    let pair = loop {
        s *= x;
        if s > 10.0 {
            break (s, x); //~ ERROR `break` with a tuple, slice or closure value is not supported
        }
    };
    pair.0 * pair.1
}

fn main() {}
