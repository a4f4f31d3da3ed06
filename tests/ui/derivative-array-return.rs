// #[revad::derivative] supports scalar outputs only; an array return type is rejected at the type.
use revad::derivative;

#[derivative(vjp = f_pullback)]
fn f(x: f64) -> [f64; 2] { //~ ERROR #[revad::derivative] supports functions that return `f64` or `f32`
    [x, x * x]
}

fn f_pullback(x: f64, _out: [f64; 2], seed: [f64; 2]) -> f64 {
    seed[0] + 2.0 * x * seed[1]
}

fn main() {}
