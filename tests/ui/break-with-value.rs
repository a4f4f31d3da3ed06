// `break` with a value is rejected; the error suggests assigning to a variable first.
use ad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut s = x;
    let y = loop {
        s *= x;
        if s > 10.0 {
            break s; //~ ERROR `break` with a value is not supported
        }
    };
    y
}

fn main() {}
