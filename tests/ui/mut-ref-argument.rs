// `&mut` borrows passed to a function are rejected: the callee could change a value behind
// the reverse sweep's back.
use ad::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y * 2.0;
    std::mem::swap(&mut a, &mut b); //~ ERROR `mem::swap` moves values
    a * b
}

fn main() {}
