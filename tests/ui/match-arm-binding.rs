// A `match` arm that binds a variable is rejected at the binding pattern.
use revad::reverse;

#[reverse]
fn f(x: f64, k: i32) -> f64 {
    match k {
        0 => x,
        n => x.powi(n), //~ ERROR a `match` arm that binds a variable is not supported
    }
}

fn main() {}
