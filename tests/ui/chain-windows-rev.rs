// An iterator chain over windows walked backwards: `.rev()` is taken only right after
// `.iter()`; the chain names the adaptor it does not support.
use revad::reverse;

#[reverse]
fn f(x: &[f64]) -> f64 {
    x.windows(2).rev().map(|w| w[1] - w[0]).sum::<f64>() //~ ERROR `.rev()` is not supported
}

fn main() {}
