// `vector` is an argument of forward mode.

#[revad::reverse(vector)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
