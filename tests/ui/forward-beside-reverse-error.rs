// An error of #[reverse] alone (here a checkpoint on a `while` loop, which only the reverse
// sweep reverses), once, and #[forward] beside it adds no error of its own (it used to panic
// with "errors reported but never emitted").
use revad::{forward, reverse};

#[reverse]
#[forward]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    let mut k = 0;
    #[revad::checkpoint] //~ ERROR
    while k < n {
        s = s.sin() * x;
        k += 1;
    }
    s
}

fn main() {}
