// A `&f64` parameter is rejected at its type; the error suggests taking the value.
use ad::reverse;

#[reverse]
fn f(x: &f64) -> f64 { //~ ERROR a reference to a float is not supported as a parameter
    x * x
}

fn main() {}
