// The `?` operator is rejected at the `?` expression.
use revad::reverse;

fn parse(s: &str) -> Option<i32> {
    s.parse().ok()
}

#[reverse]
fn f(x: f64, s: &str) -> f64 {
    let n = parse(s)?; //~ ERROR
    x.powi(n)
}

fn main() {}
