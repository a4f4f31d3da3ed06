// The adjoint type's name is an identifier: a string is rejected at the string, with the fix.
#[derive(revad::Adjoint)]
#[adjoint(name = "StateGrad")] //~ ERROR not a string
pub struct State {
    pub x: Vec<f64>,
}

fn main() {}
