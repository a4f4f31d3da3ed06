// `assert!` is rejected with advice that leads to code that compiles (not "write the
// expansion", whose `panic!` is rejected too).
use ad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    assert!(x > 0.0);
    x.ln()
}

fn main() {}
