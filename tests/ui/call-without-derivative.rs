// A plain function called with a float has no derivative: the error must name the call site
// and say to annotate the callee with #[revad::reverse] or #[revad::derivative].
use revad::reverse;

mod helpers {
    pub fn square(x: f64) -> f64 {
        x * x
    }
}

#[reverse]
fn f(x: f64) -> f64 {
    helpers::square(x) + x //~ ERROR this function has no derivative that #[reverse] can use
}

fn main() {}
