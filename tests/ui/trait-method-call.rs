// A call of a trait method is rejected at the call: #[reverse] differentiates inherent
// methods annotated with #[revad::reverse], not trait methods.
use revad::reverse;

pub trait Eval {
    fn eval(&self, x: f64) -> f64;
}

#[derive(Clone, revad::Adjoint)]
pub struct Model {
    pub k: f64,
}

impl Eval for Model {
    fn eval(&self, x: f64) -> f64 {
        self.k * x
    }
}

#[reverse]
fn f(m: &Model, x: f64) -> f64 {
    m.eval(x) * x //~ ERROR `eval` has no derivative
}

fn main() {}
