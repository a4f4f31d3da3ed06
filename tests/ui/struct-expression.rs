// A struct expression is rejected at the struct path.
use ad::reverse;

struct P {
    x: f64,
}

#[reverse]
fn f(x: f64) -> f64 {
    let p = P { x }; //~ ERROR struct expressions are not supported
    p.x * x
}

fn main() {}
