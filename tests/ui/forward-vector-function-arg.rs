// `#[revad::forward(vector)]` does not take function arguments: one error at the parameter,
// on the function itself (no caller needed).
#[revad::forward(vector)]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 { //~ ERROR does not take function arguments
    f(x) * x
}

#[revad::forward(vector)]
fn apply_impl(f: impl Fn(f64) -> f64, x: f64) -> f64 { //~ ERROR does not take function arguments
    f(x) * x
}

fn main() {}
