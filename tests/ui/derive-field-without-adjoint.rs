// A field of a type without an adjoint is reported at the field's type, saying how to add one.
pub struct Opaque {
    pub v: f64,
}

#[derive(revad::Adjoint)]
pub struct Model {
    pub w: Vec<f64>,
    pub inner: Opaque, //~ ERROR `Opaque` has no adjoint
}

fn main() {}
