// A trait object's methods have no derivatives #[reverse] can call (it calls them by static
// dispatch): the error gives the generic parameter to write instead.
use revad::reverse;

pub trait Model {
    fn eval(&self, x: f64) -> f64;
}

#[reverse]
fn f(m: &dyn Model, x: f64) -> f64 {
    m.eval(x) * x //~ ERROR `eval` is called on a trait object
}

fn main() {}
