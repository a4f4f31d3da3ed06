// Forward mode does not differentiate with respect to a struct, a method's `self` included;
// the error says that `wrt(..)` may leave it out (`#[revad::forward(wrt(t))]`).

#[derive(Clone, revad::Adjoint)]
pub struct Osc {
    pub c: f64,
}

impl Osc {
    #[revad::forward]
    pub fn at(&self, t: f64) -> f64 { //~ ERROR #[revad::forward] does not differentiate with respect to structs
        (-self.c * t).exp() * t.cos()
    }
}

fn main() {}
