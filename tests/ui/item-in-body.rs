// An item (here a nested `fn`) inside the body is rejected at the item.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    fn helper(y: f64) -> f64 { //~ ERROR items inside a #[reverse] function are not supported
        y * y
    }
    helper(x)
}

fn main() {}
