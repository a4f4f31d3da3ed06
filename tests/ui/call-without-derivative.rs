// A plain function called with a float has no derivative: one error at the call, naming the
// function and saying to annotate it with #[revad::reverse] or give it #[revad::derivative].
use revad::reverse;

mod helpers {
    pub fn square(x: f64) -> f64 {
        x * x
    }
}

#[reverse]
fn f(x: f64) -> f64 {
    helpers::square(x) + x //~ ERROR `helpers::square` has no derivative
}

fn main() {}
