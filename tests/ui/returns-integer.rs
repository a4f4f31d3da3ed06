// An integer result has no derivative; the error points at the return type.
use revad::reverse;

#[reverse]
fn f(x: f64) -> i32 { //~ ERROR
    x as i32
}

fn main() {}
