// A struct variable is not assigned whole: its fields are.
use revad::reverse;

#[derive(Clone, revad::Adjoint)]
pub struct P {
    pub pos: [f64; 2],
    pub mass: f64,
}

#[reverse]
fn evolve(p: &P, dt: f64) -> f64 {
    let mut q = p.clone();
    for _ in 0..3 {
        q = P { pos: [q.pos[0] + dt, q.pos[1]], mass: q.mass }; //~ ERROR assigning a whole struct
    }
    q.pos[0]
}

fn main() {}
