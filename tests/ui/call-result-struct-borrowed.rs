// A call's result that the caller only borrows is taken for an array (`&y` passes an array as
// often as a struct): for a struct, the error is at the call and says to write its type.
use revad::reverse;

#[derive(Clone, revad::Adjoint)]
pub struct Gaussian {
    pub mu: f64,
    pub sigma: f64,
}

#[reverse]
fn make(a: f64) -> Gaussian {
    Gaussian { mu: a, sigma: a * a }
}

#[reverse]
fn nll(g: &Gaussian, x: f64) -> f64 {
    (x - g.mu) / g.sigma
}

#[reverse]
fn fit(a: f64, x: f64) -> f64 {
    let g = make(a); //~ ERROR this call returns `Gaussian`, but #[reverse] takes its result for an array
    nll(&g, x)
}

fn main() {}
