// A `match` arm that binds a variable inside a pattern of an inactive tuple is rejected at the
// binding pattern (an arm binding the whole value, `n => ..` or `n @ 1..=3 => ..`, is taken:
// `let n = k;` in the arm; so is `Some(n)` beside `None`).
use revad::reverse;

#[reverse]
fn f(x: f64, k: i32, j: i32) -> f64 {
    match (k, j) {
        (0, _) => x,
        (n, 1) => x.powi(n), //~ ERROR a `match` arm that binds a variable is supported by #[reverse] on
        _ => x,
    }
}

fn main() {}
