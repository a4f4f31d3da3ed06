// A method of a `#[revad::reverse]` trait without `#[reverse]` of its own is not
// differentiated: a call of it with a differentiated argument is an error at the call that
// names the method, through a generic bound as on a concrete type.
use revad::reverse;

#[reverse]
pub trait Activation {
    fn act(&self, x: f64) -> f64;
}

#[derive(Clone, Copy, revad::Adjoint)]
pub struct Scaled {
    pub k: f64,
}

#[reverse]
impl Activation for Scaled {
    fn act(&self, x: f64) -> f64 {
        (self.k * x).tanh()
    }
}

#[reverse]
fn neuron<A: Activation>(a: &A, w: f64, x: f64) -> f64 {
    a.act(w * x) //~ ERROR `act` has no derivative: put #[reverse] on `act`
}

#[reverse]
fn concrete(w: f64) -> f64 {
    let s = Scaled { k: 2.0 };
    s.act(w) * w //~ ERROR `act` has no derivative
}

fn main() {}
