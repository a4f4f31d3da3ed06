// A `&mut` parameter of a generic type of the user's is not taken yet; the error says what to
// write instead.
#[revad::reverse]
pub trait Model {
    #[reverse]
    fn eval(&self, x: f64) -> f64;
}

#[revad::reverse]
fn fit<M: Model>(m: &mut M, x: f64) -> f64 { //~ ERROR does not take a `&mut` parameter of a generic type
    m.eval(x) * x
}

fn main() {}
