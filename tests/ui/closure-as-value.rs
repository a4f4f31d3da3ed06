// A closure passed to a function (not called in place) is rejected at the closure's name.
use ad::reverse;

fn apply(g: impl Fn(f64) -> f64, x: f64) -> f64 {
    g(x)
}

#[reverse]
fn f(x: f64) -> f64 {
    let g = |y: f64| y * x;
    apply(g, x) //~ ERROR
}

fn main() {}
