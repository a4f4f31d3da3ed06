// Generic functions are not supported; the error points at the type parameter.
use ad::reverse;

#[reverse]
fn f<T: Into<f64>>(x: f64, _t: T) -> f64 { //~ ERROR generic functions are not supported
    x * x
}

fn main() {}
