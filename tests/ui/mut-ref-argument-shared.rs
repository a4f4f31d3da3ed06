// Under `#[reverse(cps)]`, a variable passed by `&mut` to a function that takes a shared
// reference is one error at the call, which says to pass a shared reference (the default
// backend passes it as the callee takes it).
use revad::reverse;

#[reverse]
fn total(v: &[f64]) -> f64 {
    v[0] + v[1]
}

#[reverse(cps)]
fn f(x: f64) -> f64 {
    let mut v = [x, x * x];
    total(&mut v) //~ ERROR this argument is passed by `&mut`
}

fn main() {}
