// A whole struct is assigned from a variable, a struct expression or a call; an `if` value is
// bound with `let` first.
use revad::reverse;

#[derive(Clone, revad::Adjoint)]
pub struct P {
    pub pos: [f64; 2],
    pub mass: f64,
}

#[reverse]
fn evolve(p: &P, dt: f64) -> f64 {
    let mut q = p.clone();
    let r = P { pos: [dt, dt], mass: 1.0 };
    for _ in 0..3 {
        q = if dt > 0.0 { r.clone() } else { p.clone() }; //~ ERROR assigning a whole struct
    }
    q.pos[0]
}

fn main() {}
