// A `&mut` parameter must hold floats (it is an output); a `&mut` counter is rejected at its
// type.
use ad::reverse;

#[reverse]
fn f(x: f64, calls: &mut usize) -> f64 { //~ ERROR a `&mut` parameter of #[reverse] must hold floats
    *calls += 1;
    x * x
}

fn main() {}
