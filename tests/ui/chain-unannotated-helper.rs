// A function without a derivative called inside an iterator chain collected into a `Vec`:
// one error, at the call (not errors about the generated code's stand-in for its result).
use revad::reverse;

fn helper(v: f64) -> f64 {
    v * v
}

#[reverse]
fn f(x: &[f64]) -> f64 {
    let ys: Vec<f64> = x.iter().map(|v| helper(*v)).collect(); //~ ERROR `helper` has no derivative
    ys.iter().sum()
}

fn main() {}
