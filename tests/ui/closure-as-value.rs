// A closure passed to a function without a derivative: the missing derivative is the error
// (a closure passed to an annotated function is lifted: tests/function_args.rs).
use revad::reverse;

fn apply(g: impl Fn(f64) -> f64, x: f64) -> f64 {
    g(x)
}

#[reverse]
fn f(x: f64) -> f64 {
    let g = |y: f64| y * x;
    apply(g, x) //~ ERROR
}

fn main() {}
