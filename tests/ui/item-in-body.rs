// An item inside the body that no closure can stand for (here a generic `fn` taking floats)
// is rejected at the item.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    fn helper<T: std::ops::Mul<Output = T> + Copy>(y: T) -> T { //~ ERROR items inside a #[reverse] function
        y * y
    }
    helper(x)
}

fn main() {}
