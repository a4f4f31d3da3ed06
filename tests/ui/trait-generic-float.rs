// A trait generic over its float type (`trait Model<T: Float>`) is not differentiated yet:
// the error is at the type parameter in the method's signature, in the trait and in its impl.
use revad::Float;

#[revad::reverse]
pub trait Model<T: Float> {
    #[reverse]
    fn eval(&self, x: T) -> T { //~ ERROR does not differentiate the methods of a trait generic over its float type
        x * x
    }
}

#[derive(revad::Adjoint)]
pub struct Lin<T> {
    pub w: T,
}

#[revad::reverse]
impl<T: Float> Model<T> for Lin<T> {
    #[reverse]
    fn eval(&self, x: T) -> T { //~ ERROR does not differentiate the methods of a trait generic over its float type
        self.w * x
    }
}

fn main() {}
