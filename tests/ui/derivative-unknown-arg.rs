// An unknown argument of #[revad::derivative] is rejected at the argument, naming `vjp`.
use revad::derivative;

#[derivative(pullback = f_pullback)] //~ ERROR unknown argument
fn f(x: f64) -> f64 {
    x * x
}

fn f_pullback(x: f64, _out: f64, seed: f64) -> f64 {
    2.0 * x * seed
}

fn main() {}
