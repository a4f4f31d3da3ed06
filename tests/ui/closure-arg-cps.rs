// The CPS backend does not pass closures to functions yet.

#[ad::reverse]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

#[ad::reverse(cps)]
fn outer(a: f64) -> f64 {
    apply(|x| x * a, a)
}

fn main() {}
