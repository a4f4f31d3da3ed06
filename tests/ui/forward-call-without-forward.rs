// A call from forward-mode code to a function without `#[revad::forward]`: the callee has no
// tangent companion, and the error is at the call.

#[revad::reverse]
fn g(x: f64) -> f64 {
    x.sin()
}

#[revad::forward]
fn f(x: f64) -> f64 {
    g(x) * 2.0
}

fn main() {}
