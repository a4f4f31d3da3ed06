// A method that may change a float array is rejected: the reverse sweep would not see it.
use ad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut v = vec![0.0; 2];
    v.push(x); //~ ERROR `.push(..)` may change a container of differentiated values
    v[2] * 2.0
}

fn main() {}
