// The `cps` backend is not available yet; the error points at `cps` and says to remove it.
use ad::reverse;

#[reverse(cps)] //~ ERROR the `cps` backend is not available yet
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
