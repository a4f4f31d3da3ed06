// `wrt(self)` names a method's receiver; a free function has none.
use revad::reverse;

#[reverse(wrt(self))] //~ ERROR `wrt` names `self`, but this function takes no `self`
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
