// A user struct named in `wrt(..)` cannot be differentiated yet; the error points at it.
use ad::reverse;

#[derive(Clone, Copy)]
struct P {
    x: f64,
}

#[reverse(wrt(p))] //~ ERROR
fn f(p: P) -> f64 {
    p.x * p.x
}

fn main() {}
