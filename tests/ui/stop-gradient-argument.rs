// `revad::stop_gradient` takes one float or one fixed-size array: two arguments are an
// error at the call, a slice rustc's at the argument (`StopGradient`'s message).
use revad::reverse;

#[reverse]
fn two(x: f64, y: f64) -> f64 {
    x * revad::stop_gradient(x, y) //~ ERROR takes one float
}

#[reverse]
fn slice(w: &[f64]) -> f64 {
    let c = revad::stop_gradient(w); //~ ERROR takes a float or a fixed-size array of floats
    w[0] * c[0]
}

fn main() {}
