// Methods and structs are differentiated by the default backend; `#[reverse(cps)]` rejects
// them at the receiver.
use revad::reverse;

#[derive(Clone, revad::Adjoint)]
struct S {
    k: f64,
}

impl S {
    #[reverse(cps)]
    fn f(&self, x: f64) -> f64 { //~ ERROR #[reverse(cps)] does not differentiate structs
        self.k * x * x
    }
}

fn main() {}
