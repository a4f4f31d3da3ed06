// An unsupported construct in the body of a closure passed to a function is reported at the
// construct (the closure is lifted into a hidden annotated function).

#[revad::reverse]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

#[revad::reverse]
fn outer(a: f64) -> f64 {
    apply(|x| x * unknown_helper(a), a)
}

fn unknown_helper(a: f64) -> f64 {
    a
}

fn main() {}
