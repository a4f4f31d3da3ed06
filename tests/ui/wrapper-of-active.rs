// `Some(..)` of a differentiated value: the macro does not model the `Option`, and says so at
// the constructor (its constant form, `Some(1.0)`, is an inactive value).
use revad::reverse;

#[derive(Clone, Debug, revad::Adjoint)]
pub struct Track {
    pub x: f64,
    pub last: Option<f64>,
}

#[reverse]
fn f(x: f64) -> f64 {
    let t = Track { x, last: Some(x * 2.0) }; //~ ERROR does not differentiate through `Some(..)`
    t.x
}

#[reverse]
fn g(x: f64) -> f64 {
    let t = Track { x, last: Some(1.0) };
    t.x * 2.0
}

fn main() {
    let _ = (f_grad(1.0), g_grad(1.0));
}
