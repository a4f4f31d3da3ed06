// `stop_gradient` is known by its path: a bare `stop_gradient(x)` (imported, or the user's own
// function of that name) is an error at the callee, not a guess either way.
use revad::{reverse, stop_gradient};

#[reverse]
fn f(x: f64) -> f64 {
    x * stop_gradient(x) //~ ERROR knows `stop_gradient` by its path
}

fn main() {
    let _ = stop_gradient(1.0);
}
