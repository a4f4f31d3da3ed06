// `if let` is rejected at `let`; the error suggests `match`.
use revad::reverse;

#[reverse]
fn f(x: f64, k: Option<i32>) -> f64 {
    if let Some(n) = k { //~ ERROR `if let` is not supported
        x.powi(n)
    } else {
        x
    }
}

fn main() {}
