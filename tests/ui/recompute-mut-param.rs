// `#[reverse(recompute)]` runs the function's forward sweep again in its callers' reverse
// sweep: not on a function that writes through a `&mut` parameter.
use revad::reverse;

#[reverse(recompute)] //~ ERROR `recompute` is not supported on a function with a `&mut` parameter
fn kick(x: &mut f64, dt: f64) {
    *x = *x + dt * x.sin();
}

fn main() {}
