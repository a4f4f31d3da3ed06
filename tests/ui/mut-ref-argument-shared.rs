// A variable passed by `&mut` to a function that takes a shared reference is one error at the
// call, which says to pass a shared reference: #[reverse] treats a `&mut` argument as written
// by the callee.
use revad::reverse;

#[reverse]
fn total(v: &[f64]) -> f64 {
    v[0] + v[1]
}

#[reverse]
fn f(x: f64) -> f64 {
    let mut v = [x, x * x];
    total(&mut v) //~ ERROR this argument is passed by `&mut`
}

#[reverse]
fn g(s: &mut [f64]) -> f64 {
    s[0] = s[0] * 2.0;
    total(s) //~ ERROR this argument is passed by `&mut`
}

fn main() {}
