// A second #[reverse] on the same function is rejected at the second attribute; the first
// one generates the functions once.
use revad::reverse;

#[reverse]
#[reverse] //~ ERROR `f` has #[reverse] twice
fn f(x: f64) -> f64 {
    x * x
}

fn main() {
    let _ = f_grad(1.0);
}
