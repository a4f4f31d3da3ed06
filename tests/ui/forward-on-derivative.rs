// A function with a hand-written derivative takes its forward derivative as a rule too.

fn pullback(x: f64, _out: f64, seed: f64) -> f64 {
    seed * 2.0 * x
}

#[revad::forward]
#[revad::derivative(vjp = pullback)]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
