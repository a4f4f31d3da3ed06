// Forward mode does not take a trait's methods yet; the error says to use #[reverse].
#[revad::reverse]
pub trait Model {
    #[revad::forward] //~ ERROR #[revad::forward] does not take a trait's methods yet
    fn eval(&self, x: f64) -> f64;
}

fn main() {}
