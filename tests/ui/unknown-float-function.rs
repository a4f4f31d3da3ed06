// A float function that is not in the rule table, called in path form: named at its name.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    f64::copysign(x, -1.0) * 2.0 //~ ERROR `copysign` is not a float intrinsic
}

fn main() {}
