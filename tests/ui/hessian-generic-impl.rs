// `#[reverse(hessian)]` on an associated function of a generic `impl` block: second
// derivatives are of free functions only; the error says so (not that the function has
// another generic parameter than its float type, which is the block's).
pub struct Model<T>(pub T);

#[revad::reverse]
impl<T: revad::Float> Model<T> {
    #[revad::reverse(hessian)]
    pub fn sq(x: T) -> T { //~ ERROR needs a free function
        x * x
    }
}

fn main() {}
