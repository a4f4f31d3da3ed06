// An associated function without a derivative called from annotated code: one error at the
// call, naming it.
use revad::reverse;

#[derive(Clone, revad::Adjoint)]
pub struct Model {
    pub k: f64,
}

impl Model {
    pub fn scale(x: f64) -> f64 {
        2.0 * x
    }

    #[reverse]
    pub fn eval(&self, x: f64) -> f64 {
        self.k * Self::scale(x) //~ ERROR `scale` has no derivative
    }
}

#[reverse]
fn f(x: f64) -> f64 {
    Model::scale(x) * x //~ ERROR `scale` has no derivative
}

fn main() {}
