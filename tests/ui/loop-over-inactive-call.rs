// A `for` loop over a call of inactive data (which may give an iterator, not a collection) is
// rejected at the sequence, as a loop over an iterator is; a call with derivatives
// (`for v in layer.forward(x)`) is bound and iterated.
use revad::reverse;

#[reverse]
fn words(x: &[f64], s: &str) -> f64 {
    let mut t = 0.0;
    for w in s.split_whitespace() { //~ ERROR supports `for` loops over ranges
        if w == "a" {
            t += x[0];
        }
    }
    t
}

fn main() {}
