// A check or diagnostic is kept as a statement; as the value of an `if` arm it is rejected.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let y = if x > 0.0 { x.ln() } else { panic!("x = {x}") };
    y * 2.0
}

fn main() {}
