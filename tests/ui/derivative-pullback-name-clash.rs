// The pullback cannot be named `f_vjp`: #[revad::derivative] generates a function of that name.
use revad::derivative;

#[derivative(vjp = f_vjp)] //~ ERROR the pullback is named like the function
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
