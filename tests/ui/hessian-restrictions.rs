// `#[reverse(hessian)]` runs a generic copy of the function on dual numbers: it needs a
// scalar result, parameters by value or `&`, a free function generic over its float type
// at most, and no cast of a float to an integer.

#[revad::reverse(hessian)]
fn scale(x: f64, out: &mut [f64]) -> f64 {
    out[0] = x;
    x
}

#[revad::reverse(hessian)]
fn pair(x: f64) -> [f64; 2] {
    [x, x * x]
}

#[revad::reverse(hessian)]
fn two_generics<T: revad::Float, U: Copy>(x: T, _u: U) -> T {
    x * x
}

#[revad::reverse(hessian)]
fn casts(x: f64) -> f64 {
    let k = x as usize;
    x * k as f64
}

fn main() {}
