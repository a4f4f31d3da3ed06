// A method that is not annotated has no derivative: one error at the call, naming it.
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
    m.eval(x) * x //~ ERROR `eval` has no derivative
}

fn main() {}
