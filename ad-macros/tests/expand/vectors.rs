// Growing and reshaping float vectors: the adjoint of a `Vec` is as long as the `Vec` at each
// point of the reverse sweep.
use revad::reverse;

#[reverse]
fn buffer(x: &[f64]) -> f64 {
    let mut buf = Vec::new();
    for i in 0..x.len() {
        buf.push(x[i] * x[i].sin());
    }
    buf.iter().sum()
}

#[reverse]
fn reshape(a: f64, b: f64, k: usize) -> f64 {
    let mut v = vec![a, b, a * b];
    let last = v.pop().unwrap();
    v.insert(0, last);
    let first = v.remove(1);
    v.swap(0, 1);
    v.truncate(k);
    v.resize(4, b);
    let w = v.to_vec();
    v.extend_from_slice(&w);
    v.clear();
    v.push(first);
    v[0] * w[0] + w[3]
}

#[reverse(cps)]
fn buffer_cps(x: &[f64]) -> f64 {
    let mut buf = Vec::new();
    for i in 0..x.len() {
        buf.push(x[i] * x[i].sin());
    }
    let t = buf.pop().unwrap();
    buf.iter().sum::<f64>() * t
}
