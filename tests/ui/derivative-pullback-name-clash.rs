// The pullback cannot be named `f_vjp`: #[ad::derivative] generates a function of that name.
use ad::derivative;

#[derivative(vjp = f_vjp)] //~ ERROR the pullback is named like the function
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
