// The CPS backend does not take function arguments yet: the error is at the type parameter
// and names the default backend (a CPS function may pass closures to a tape function).

#[revad::reverse(cps)]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 { //~ ERROR does not differentiate functions with function arguments
    f(x) * x
}

fn main() {}
