// `return` inside a closure is rejected at the `return`.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let g = |y: f64| {
        if y > 1.0 {
            return y; //~ ERROR
        }
        y * y
    };
    g(x) * x
}

fn main() {}
