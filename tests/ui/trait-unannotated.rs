// #[revad::reverse] on an impl block needs it on the trait too, which declares the
// derivatives the impl defines: the error is at the trait's name in the impl.
pub trait Model {
    fn eval(&self, x: f64) -> f64;
}

#[derive(Clone, revad::Adjoint)]
pub struct Linear {
    pub w: f64,
}

#[revad::reverse]
impl Model for Linear { //~ ERROR cannot find macro `Model`
    #[reverse]
    fn eval(&self, x: f64) -> f64 {
        self.w * x
    }
}

fn main() {}
