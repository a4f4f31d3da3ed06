// A float method outside the intrinsic table (`clamp`) is rejected at the method name.
use ad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    x.clamp(0.0, 1.0) //~ ERROR
}

fn main() {}
