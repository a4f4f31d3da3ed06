// `a.chain(b)` followed by an adaptor that counts items, and a `break` out of a loop over a
// chain, are rejected: at the `chain` and at the `break`.
use revad::reverse;

#[reverse]
fn f(x: &[f64], y: &[f64]) -> f64 {
    x.iter().chain(y).enumerate().map(|(i, v)| v * i as f64).sum::<f64>() //~ ERROR
}

#[reverse]
fn g(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().chain(y) {
        if *v > 2.0 {
            break; //~ ERROR
        }
        s += v;
    }
    s
}

fn main() {}
