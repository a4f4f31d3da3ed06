// Chunks of a constant table zipped into a chain over a float array: the chain zips with
// a float array or its chunks or windows, not with a constant table's chunks.
use revad::reverse;

const W: [f64; 4] = [1.0, 2.0, 3.0, 4.0];

#[reverse]
fn f(x: &[f64]) -> f64 {
    x.chunks(2)
        .zip(W.chunks(2)) //~ ERROR can zip with a float array
        .map(|(c, w)| c[0] * w[0] + c[1] * w[1])
        .sum::<f64>()
}

fn main() {}
