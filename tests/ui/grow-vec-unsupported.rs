// Growing float vectors: the forms #[reverse] cannot see through are rejected, each saying
// what to write instead.
use revad::reverse;

// Growth inside a closure (inlined where it is called) is not modelled.
#[reverse]
fn in_closure(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    x.iter().for_each(|e| v.push(e * 2.0));
    v[0]
}

// `pop()` returns an `Option`, which the macro does not model.
#[reverse]
fn pop_option(x: f64) -> f64 {
    let mut v = vec![x, 1.0];
    let last = v.pop();
    last.unwrap_or(0.0) * 2.0
}

// A fixed-size array cannot grow.
#[reverse]
fn push_to_array(x: f64) -> f64 {
    let mut a = [x, 1.0];
    a.push(x);
    a[0]
}

// The source of `extend_from_slice` must be a float array bound to a name.
#[reverse]
fn extend_from_expression(x: &[f64], y: f64) -> f64 {
    let mut v = vec![y];
    v.extend_from_slice(&x.to_vec());
    v[1]
}

// An unannotated `Vec::new()` is a vector of floats: integers need the type written.
#[reverse]
fn integers_in_a_float_vec(x: f64, n: usize) -> f64 {
    let mut idx = Vec::new();
    idx.push(n);
    x * idx.len() as f64
}

// A change inside an expression the macro does not differentiate (a condition, an integer)
// would be invisible to the reverse sweep.
#[reverse]
fn pop_in_a_condition(x: f64) -> f64 {
    let mut v = vec![x, 2.0 * x, 3.0];
    while v.pop().unwrap() > 2.5 {}
    let k = v.pop().unwrap() as usize;
    v[0] * k as f64
}

fn main() {}
