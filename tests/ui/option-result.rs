// A function returning an `Option` is rejected, saying so.
use revad::reverse;

#[reverse]
fn root(x: f64) -> Option<f64> {
    if x > 0.0 { Some(x.sqrt()) } else { None } //~ ERROR
}

fn main() {}
