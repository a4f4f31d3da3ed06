// `async fn` is not supported; the error points at `async`.
use revad::reverse;

#[reverse]
async fn f(x: f64) -> f64 { //~ ERROR `async fn` is not supported
    x * x
}

fn main() {}
