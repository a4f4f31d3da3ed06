// Every method that may change a container holding differentiated values, other than the
// growing and reshaping methods of float vectors that #[reverse] supports, is rejected.
use revad::reverse;

#[reverse]
fn sort_and_retain(x: f64) -> f64 {
    let mut v = vec![x, 2.0 * x, 1.0];
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v.retain(|e| *e > 0.5);
    v.dedup();
    v[0] * 2.0
}

#[reverse]
fn drain_and_append(x: f64, w: &[f64]) -> f64 {
    let mut v: Vec<f64> = vec![0.0; 3];
    v.push(x);
    let mut u = w.to_vec();
    v.append(&mut u);
    v.extend(w.iter().map(|e| e * x));
    let s: f64 = v.drain(..).sum();
    s * 2.0
}

#[reverse]
fn cell(x: f64) -> f64 {
    let c = std::cell::Cell::new(1.0);
    c.set(x);
    c.get() * 2.0
}

fn main() {}
