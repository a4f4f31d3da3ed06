// A method that is not annotated has no derivative: the error is at the call.
use revad::reverse;

#[derive(Clone, revad::Adjoint)]
pub struct Model {
    pub k: f64,
}

impl Model {
    pub fn eval(&self, x: f64) -> f64 {
        self.k * x
    }
}

#[reverse]
fn f(m: &Model, x: f64) -> f64 {
    m.eval(x) * x //~ ERROR no method named `__ad_fwd_eval`
}

fn main() {}
