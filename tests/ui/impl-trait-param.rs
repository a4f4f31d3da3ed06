// `impl Trait` parameters are rejected at the `impl Trait` type.
use ad::reverse;

#[reverse]
fn f(x: f64, g: impl Fn(f64) -> f64) -> f64 { //~ ERROR `impl Trait` parameters are not supported
    g(x) * x
}

fn main() {}
