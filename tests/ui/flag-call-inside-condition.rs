// A helper returning `bool` beside its `&mut` outputs is called as a whole condition; inside
// a larger one (`!step(..)`, `a && step(..)` in an `if`) or as the scrutinee of a `match`, the
// error says to bind its result.
use revad::reverse;

#[reverse]
fn step(x: &mut f64, y: f64) -> bool {
    *x = *x * y;
    *x > 1.0
}

#[reverse]
fn user(x: f64, y: f64) -> f64 {
    let mut a = x;
    if !step(&mut a, y) { //~ ERROR takes a call that writes through `&mut` as a whole condition
        a
    } else {
        a * 2.0
    }
}

#[reverse]
fn matched(x: f64, y: f64) -> f64 {
    let mut a = x;
    match step(&mut a, y) { //~ ERROR takes a call that writes through `&mut` as a whole condition
        true => a * 2.0,
        false => a,
    }
}

fn main() {}
