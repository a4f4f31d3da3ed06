// A method of a generic `impl` block over the float type, without `#[revad::reverse]` on the
// block: the attribute on the method alone cannot see the block's `T` (it would take `T` for a
// type of the user's). The error says to annotate the block, which passes its generics to the
// method (tests/generic_impls.rs).
use revad::reverse;

#[derive(revad::Adjoint)]
pub struct Model<T> {
    pub w: [T; 3],
}

impl<T: revad::Float> Model<T> {
    #[reverse]
    pub fn eval(&self, x: T) -> T { //~ ERROR `T` is not a type parameter of this function
        self.w[0] * x + self.w[1]
    }
}

fn main() {}
