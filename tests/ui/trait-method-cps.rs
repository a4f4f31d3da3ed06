// #[reverse(cps)] does not take methods, a trait's neither: the error says to use the default
// backend.
#[revad::reverse]
pub trait Model {
    #[reverse(cps)]
    fn eval(&self, x: f64) -> f64; //~ ERROR #[reverse(cps)] does not differentiate structs
}

fn main() {}
