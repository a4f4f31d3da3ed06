// A misspelt `#[adjoint(..)]` argument, and `#[adjoint]` on a field, are rejected at the
// argument and at the attribute, both at once.
#[derive(revad::Adjoint)]
#[adjoint(nmae = ParticleGrad)] //~ ERROR unknown argument `nmae`
pub struct Particle {
    #[adjoint(name = Pos)] //~ ERROR not supported on a field
    pub pos: [f64; 3],
}

fn main() {
    // The stand-in impl keeps this call free of errors of its own.
    let _ = revad::Adjoint::zero_adjoint(&Particle { pos: [0.0; 3] });
}
