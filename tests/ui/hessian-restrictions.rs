// `#[reverse(hessian)]` runs a generic copy of the function on dual numbers: it needs a
// scalar result, parameters by value or `&`, a free function generic over its float type
// at most, no cast of a float to an integer, no `Option` (or other wrapper) of floats as a
// parameter, no `fn` item of floats in the body, and one float type.

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

#[revad::reverse(hessian)]
fn scaled(x: f64, scale: Option<f64>) -> f64 {
    x * x * scale.unwrap_or(1.0)
}

#[revad::reverse(hessian)]
fn with_item(x: f64, y: f64) -> f64 {
    fn sq(v: f64) -> f64 {
        v * v
    }
    sq(x) * sq(y)
}

#[revad::reverse(hessian)]
fn mixed(x: f32) -> f32 {
    let y = x as f64;
    (y.exp() * 1.5) as f32 + x * x
}

fn main() {}
