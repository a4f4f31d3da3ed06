// `std::mem::take` moves a float behind the macro's back: rejected at the call with what to
// write instead. (`mem::swap(&mut a, &mut b)` and `mem::replace(&mut a, v)` are assignments the
// macro follows.)
use revad::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let mut a = x;
    let b = std::mem::take(&mut a); //~ ERROR `mem::take` moves values
    a * b + y
}

fn main() {}
