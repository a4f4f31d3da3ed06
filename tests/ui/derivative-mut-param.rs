// #[revad::derivative] takes values: a `&mut` parameter is rejected at its type.
use revad::derivative;

#[derivative(vjp = f_pullback)]
fn f(x: f64, out: &mut f64) -> f64 { //~ ERROR #[revad::derivative] does not support `&mut` parameters
    *out = x;
    x * x
}

fn f_pullback(x: f64, _out: f64, seed: f64) -> f64 {
    2.0 * x * seed
}

fn main() {}
