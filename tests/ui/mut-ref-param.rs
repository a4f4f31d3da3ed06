// A `&mut` parameter cannot be differentiated; the error points at the `&mut`.
use ad::reverse;

#[reverse]
fn f(x: f64, out: &mut f64) -> f64 { //~ ERROR `&mut` parameters are not supported
    *out = x;
    x * x
}

fn main() {}
