// `#[reverse(hessian)]` does not differentiate twice through closures passed to functions
// yet.

#[revad::reverse]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

#[revad::reverse(hessian)]
fn outer(a: f64) -> f64 {
    apply(|x| x * a, a)
}

fn main() {}
