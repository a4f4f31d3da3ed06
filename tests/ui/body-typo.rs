// An undefined name in the body (a typo) is rustc's one error, at the user's token.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    x * y //~ ERROR cannot find value `y`
}

fn main() {}
