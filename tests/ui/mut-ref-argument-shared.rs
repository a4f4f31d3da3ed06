// A variable passed by `&mut` to a function whose parameter is a shared reference is a type
// error at the call: the callee's reverse sweep needs the value, which `&mut` marks as written.
use ad::reverse;

#[reverse]
fn total(v: &[f64]) -> f64 {
    v[0] + v[1]
}

#[reverse]
fn f(x: f64) -> f64 {
    let mut v = [x, x * x];
    total(&mut v) //~ ERROR mismatched types
}

fn main() {}
