// Forward mode does not take the methods of a trait's declaration yet (those of its impl
// blocks take it: tests/assoc_fns.rs); the error says where to put it.
#[revad::reverse]
pub trait Model {
    #[revad::forward] //~ ERROR #[revad::forward] does not take the methods of a trait's own declaration yet
    fn eval(&self, x: f64) -> f64;
}

fn main() {}
