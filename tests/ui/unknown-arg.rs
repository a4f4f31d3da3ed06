// A misspelt attribute argument is rejected at the argument, naming the valid ones.
use revad::reverse;

#[reverse(wtr(x))] //~ ERROR unknown argument `wtr`
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}
