// #[reverse(cps)] does not take generic functions, over a user trait neither.
#[revad::reverse]
pub trait Model {
    #[reverse]
    fn eval(&self, x: f64) -> f64;
}

#[revad::reverse(cps)]
fn fit<M: Model>(m: &M, x: f64) -> f64 { //~ ERROR #[reverse(cps)] does not differentiate generic functions
    m.eval(x) * x
}

fn main() {}
