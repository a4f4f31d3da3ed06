// A function without a derivative whose result is an array or a `Vec`: one error at each
// call, the missing derivative (not errors about the generated code's stand-in for the
// result).
use revad::reverse;

fn pair(v: f64) -> [f64; 2] {
    [v, 2.0 * v]
}

fn doubled(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| 2.0 * x).collect()
}

#[reverse]
fn f(x: f64) -> f64 {
    let w = pair(x); //~ ERROR `pair` has no derivative
    w[0] * w[1]
}

#[reverse]
fn g(x: f64) -> [f64; 2] {
    pair(x) //~ ERROR `pair` has no derivative
}

#[reverse]
fn h(x: &[f64]) -> f64 {
    let w = doubled(x); //~ ERROR `doubled` has no derivative
    w.iter().sum()
}

fn main() {}
