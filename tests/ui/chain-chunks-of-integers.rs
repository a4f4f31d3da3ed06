// A chain over the chunks of an integer array (indices into a float array): chains and
// loops take chunks and windows of float arrays only.
use revad::reverse;

#[reverse]
fn f(x: &[f64], idx: &[usize]) -> f64 {
    idx.chunks(2).map(|c| x[c[0]] * x[c[1]]).sum::<f64>() //~ ERROR chunks or windows of a float array
}

fn main() {}
