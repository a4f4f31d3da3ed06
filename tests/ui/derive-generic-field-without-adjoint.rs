// A generic type's adjoint exists where its fields' types have one: using it with a type
// parameter that has none is an error at the use, naming the missing impl.
#[derive(revad::Adjoint)]
pub struct Layer<T> {
    pub w: Vec<T>,
}

pub struct Opaque;

fn main() {
    let layer = Layer { w: vec![Opaque] };
    let _ = revad::Adjoint::zero_adjoint(&layer); //~ ERROR `Opaque` has no adjoint
}
