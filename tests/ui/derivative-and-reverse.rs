// #[revad::derivative] and #[reverse] on one function are rejected at the second attribute: a
// function has either a derivative of its body or a hand-written pullback.
use revad::{derivative, reverse};

#[derivative(vjp = f_pullback)]
#[reverse] //~ ERROR `f` already has #[revad::derivative]
fn f(x: f64) -> f64 {
    x * x
}

fn f_pullback(x: f64, _out: f64, seed: f64) -> f64 {
    2.0 * x * seed
}

fn main() {
    let _ = f_grad(1.0);
}
