// A pullback that does not return the adjoints of the float parameters is one error at the
// pullback's name, which says what it must return.
use revad::derivative;

#[derivative(vjp = f_pullback)] //~ ERROR the pullback returns `f64`, but #[revad::derivative] expects `(f64, f64)`
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn f_pullback(_x: f64, _y: f64, _out: f64, seed: f64) -> f64 {
    seed
}

fn main() {}
