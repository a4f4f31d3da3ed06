// `#[revad::forward]` twice on one function.

#[revad::forward]
#[revad::forward]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
