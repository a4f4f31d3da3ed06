// A `for` loop whose body can `break`, over a chain with an enumeration after a `map`, is
// rejected at the chain: the loop runs over the sequence before `map` and `filter` only.
use revad::reverse;

#[reverse]
fn scaled(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().map(|v| v * w).enumerate() { //~ ERROR
        if i > 3 {
            break;
        }
        s += v;
    }
    s
}

fn main() {}
