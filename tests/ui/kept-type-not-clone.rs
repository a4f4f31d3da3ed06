// A value of a type of the user's, chosen with its type in a loop and read by the reverse
// sweep (an annotated callee's argument), is kept whole: a type that is not `Clone` is one
// error at the `let`'s name, which says so.
use revad::reverse;

pub enum Mode {
    Plain,
    Square,
}

#[reverse(wrt(x))]
fn apply(x: f64, m: Mode) -> f64 {
    match m {
        Mode::Plain => x,
        Mode::Square => x * x,
    }
}

#[reverse]
fn total(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let m: Mode = if i % 2 == 0 { Mode::Plain } else { Mode::Square }; //~ ERROR is kept for the reverse sweep
        s += apply(x[i], m);
    }
    s
}

fn main() {}
