// `.flatten()` followed by a `collect`: the `Vec` is sized by the items of the outer loop, so
// the chain is rejected at `flatten`, with the alternative. (A `zip` or an `enumerate` after
// it counts the items that reach it: accepted.)
use revad::reverse;

#[reverse]
fn f(m: &[[f64; 2]], w: f64) -> f64 {
    let v: Vec<f64> = m.iter().flatten().map(|a| a * w).collect(); //~ ERROR `collect` after `.flatten()`
    v[0]
}

fn main() {}
