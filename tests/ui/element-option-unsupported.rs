// An element's `Option` read by an index with a call in it, or taken apart by a method the
// macro does not take: an error at the method, naming the forms it reads.
use revad::reverse;

#[reverse]
fn through_an_index(xs: &[f64], idx: &[usize]) -> f64 {
    xs.get(idx[0]).copied().unwrap_or(0.0)
}

#[reverse]
fn filtered(xs: &[f64]) -> f64 {
    xs.first().copied().filter(|v| *v > 0.0).unwrap_or(1.0)
}

fn main() {}
