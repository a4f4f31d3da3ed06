// The CPS backend does not pass closures to functions yet.

#[revad::reverse]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

#[revad::reverse(cps)]
fn outer(a: f64) -> f64 {
    apply(|x| x * a, a)
}

fn main() {}
