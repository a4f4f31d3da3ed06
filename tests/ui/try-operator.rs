// The `?` operator in a function that returns a float is rustc's one error, at the `?`.
use revad::reverse;

fn parse(s: &str) -> Option<i32> {
    s.parse().ok()
}

#[reverse]
fn f(x: f64, s: &str) -> f64 {
    let n = parse(s)?; //~ ERROR the `?` operator can only be used
    x.powi(n)
}

fn main() {}
