// A value whose type the macro cannot tell, which the reverse sweep must store: the error of
// #[reverse], once, and #[forward] beside it (which stores nothing) adds no error of its own
// (it used to panic with "errors reported but never emitted").
use revad::{forward, reverse};

fn unknown() -> (f64, f64) {
    (2.0, 1.0)
}

#[reverse]
#[forward]
fn f(x: f64, y: f64) -> f64 {
    let two = unknown().0; //~ ERROR does not know its type
    let a = x.sin() * y + x.powi(2) / two;
    a * a
}

fn main() {}
