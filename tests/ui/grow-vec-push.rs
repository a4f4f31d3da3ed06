// A vector grown with `push` would hide its elements from the reverse sweep (this once
// returned a zero gradient): rejected at the method until growing vectors are supported.
use ad::reverse;

#[reverse]
fn f(x: f32) -> f32 {
    let mut v: Vec<f32> = Vec::new();
    for i in 0..4 {
        v.push(x * (i as f32 + 1.0));
    }
    let mut s = 0.0;
    for i in 0..4 {
        s += v[i] * v[i];
    }
    s
}

fn main() {}
