// `if let` on a value other than an element of an array of floats or an `Option` that a name
// or an iterator over one gives (here a `map` of one) is rejected at `let`; the error says
// what is taken and what to write instead.
use revad::reverse;

#[reverse]
fn f(x: f64, k: Option<i32>) -> f64 {
    if let Some(n) = k.map(|v| v + 1) { //~ ERROR `if let` is supported .. only
        x.powi(n)
    } else {
        x
    }
}

fn main() {}
