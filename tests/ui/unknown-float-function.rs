// A float function that is not in the rule table, called in path form: named at its name.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    f64::div_euclid(x, 2.0) * 2.0 //~ ERROR `div_euclid` is not a float intrinsic
}

fn main() {}
