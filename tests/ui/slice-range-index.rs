// Indexing a float slice by a range (`&w[1..]`) is rejected at the range index.
use ad::reverse;

#[reverse]
fn f(w: &[f64]) -> f64 {
    let tail = &w[1..]; //~ ERROR
    tail[0] * w[0]
}

fn main() {}
