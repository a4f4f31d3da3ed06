// `#[reverse(hessian)]` does not differentiate twice through closures passed to functions
// yet.

#[ad::reverse]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

#[ad::reverse(hessian)]
fn outer(a: f64) -> f64 {
    apply(|x| x * a, a)
}

fn main() {}
