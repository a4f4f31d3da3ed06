// Several mistakes in one function: every one is reported at once, each at its own span.
use revad::reverse;

#[reverse]
fn f(x: f64, k: Option<i32>) -> f64 {
    let _ = format!("{x}"); //~ ERROR `format!` is not supported by #[reverse]
    let s = unsafe { x * 2.0 }; //~ ERROR `unsafe` blocks are not supported
    let mut t = s;
    while let Some(n) = k { //~ ERROR `while let` is not supported
        t *= x.powi(n);
    }
    let mut u = t;
    'outer: { //~ ERROR labeled blocks are not supported
        u *= x;
    }
    match (k, u > 0.0) {
        (Some(n), true) => u * n as f64, //~ ERROR a `match` arm that binds a variable is supported by #[reverse] on
        _ => u,
    }
}

fn main() {}
