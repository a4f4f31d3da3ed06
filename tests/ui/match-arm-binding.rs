// A `match` arm that binds a variable inside a pattern is rejected at the binding pattern (an
// arm binding the whole value, `n => ..`, is taken: `let n = k;` in the arm).
use revad::reverse;

#[reverse]
fn f(x: f64, k: i32) -> f64 {
    match k {
        0 => x,
        n @ 1..=3 => x.powi(n), //~ ERROR a `match` arm that binds a variable is not supported
        _ => x,
    }
}

fn main() {}
