// `if let` on a value other than an element of an array of floats is rejected at `let`; the
// error says what is taken and what to write instead.
use revad::reverse;

#[reverse]
fn f(x: f64, k: Option<i32>) -> f64 {
    if let Some(n) = k { //~ ERROR `if let` is supported .. on an element of an array of floats only
        x.powi(n)
    } else {
        x
    }
}

fn main() {}
