// `return` inside a closure gives back a float or nothing: an integer is rejected at it.
use revad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let g = |k: usize| {
        if k > n {
            return n; //~ ERROR
        }
        k
    };
    x * g(3) as f64
}

fn main() {}
