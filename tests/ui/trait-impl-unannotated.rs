// An impl of a trait with #[revad::reverse] needs the attribute too (it defines the trait's
// derivatives for the type): without it, the trait's hidden item it would define is missing.
#[revad::reverse]
pub trait Model {
    #[reverse]
    fn eval(&self, x: f64) -> f64;
}

#[derive(Clone, revad::Adjoint)]
pub struct Linear {
    pub w: f64,
}

impl Model for Linear { //~ ERROR missing: `IMPL_NEEDS_REVAD_REVERSE`
    fn eval(&self, x: f64) -> f64 {
        self.w * x
    }
}

fn main() {}
