// `.flatten()` followed by a `zip` (or an `enumerate`, or a `collect`): the items after the
// flattening are not counted, so the chain is rejected at `flatten`, with the alternative.
use revad::reverse;

#[reverse]
fn f(m: &[[f64; 2]], w: &[f64]) -> f64 {
    m.iter().flatten().zip(w.iter()).map(|(a, b)| a * b).sum() //~ ERROR `.flatten()` is supported
}

fn main() {}
