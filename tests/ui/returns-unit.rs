// A function that returns nothing has no output to differentiate.
use ad::reverse;

#[reverse]
fn f(x: f64) { //~ ERROR
    let _ = x * x;
}

fn main() {}
