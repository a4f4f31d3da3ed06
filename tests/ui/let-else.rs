// `let ... else` is rejected at `else`.
use revad::reverse;

#[reverse]
fn f(x: f64, k: Option<i32>) -> f64 {
    let Some(n) = k else { //~ ERROR `let ... else` is not supported
        return x;
    };
    x.powi(n)
}

fn main() {}
