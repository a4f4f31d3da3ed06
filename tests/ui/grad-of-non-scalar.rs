// `NAME_grad` exists for functions that return one float; for another output, the error at
// the call says to use `NAME_vjp` (or `NAME_jacobian` with #[revad::forward]).
use revad::reverse;

#[reverse]
fn polar(r: f64, t: f64) -> [f64; 2] {
    [r * t.cos(), r * t.sin()]
}

fn main() {
    let _ = polar_grad(1.0, 0.5); //~ ERROR `polar_grad` does not exist
}
