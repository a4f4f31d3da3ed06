// Every method that may change a container holding differentiated values is rejected.
use ad::reverse;

#[reverse]
fn with_capacity(x: f64) -> f64 {
    let mut v = Vec::with_capacity(3);
    v.push(x);
    v[0] * 2.0
}

#[reverse]
fn insert_and_extend(x: f64, w: &[f64]) -> f64 {
    let mut v: Vec<f64> = vec![0.0; 3];
    v.insert(0, x);
    v.extend_from_slice(w);
    v[0] * 2.0
}

#[reverse]
fn cell(x: f64) -> f64 {
    let c = std::cell::Cell::new(1.0);
    c.set(x);
    c.get() * 2.0
}

#[reverse]
fn swap(x: f64) -> f64 {
    let mut a = x;
    let mut b = 2.0;
    std::mem::swap(&mut a, &mut b);
    a * b
}

fn main() {}
