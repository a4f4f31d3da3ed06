// A function without a derivative passed by name to an annotated higher-order function: one
// error at the call, naming the function and saying how to give it a derivative.
fn plain(x: f64) -> f64 {
    x * x
}

#[revad::reverse]
fn twice(g: fn(f64) -> f64, x: f64) -> f64 {
    g(g(x))
}

#[revad::reverse]
fn f(x: f64) -> f64 {
    twice(plain, x) //~ ERROR `plain` has no derivative
}

fn main() {}
