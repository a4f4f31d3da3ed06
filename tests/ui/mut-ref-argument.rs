// `std::mem::swap` (and `replace`, `take`) move floats behind the macro's back: rejected at
// the call with what to write instead.
use revad::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y * 2.0;
    std::mem::swap(&mut a, &mut b); //~ ERROR `mem::swap` moves values
    a * b
}

fn main() {}
