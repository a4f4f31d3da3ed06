// A trait object is inactive data: a float passed to its methods has no derivative.
use revad::reverse;

pub trait Model {
    fn eval(&self, x: f64) -> f64;
}

#[reverse]
fn f(m: &dyn Model, x: f64) -> f64 {
    m.eval(x) * x //~ ERROR `eval` has no derivative
}

fn main() {}
