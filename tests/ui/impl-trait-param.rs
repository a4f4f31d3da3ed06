// `impl Trait` parameters other than `impl Fn(..)` (a function argument) are rejected at the
// `impl Trait` type.
use revad::reverse;

#[reverse]
fn f(x: f64, g: impl Iterator<Item = f64>) -> f64 { //~ ERROR `impl Trait` parameters are not supported
    g.sum::<f64>() * x
}

fn main() {}
