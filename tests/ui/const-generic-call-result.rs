// The result type of a function generic over a constant depends on the constant: a caller
// that keeps the result for its reverse sweep must be told it (`let p: [f64; 3] = ..`).
#[revad::reverse]
fn scale<const N: usize>(x: [f64; N]) -> [f64; N] {
    let mut o = [0.0; N];
    for i in 0..N {
        o[i] = 2.0 * x[i];
    }
    o
}

#[revad::reverse]
fn user(x: [f64; 3]) -> f64 {
    let p = scale(x); //~ ERROR cannot name the type of the result of `scale`
    p[0] * p[1]
}

#[revad::reverse]
fn typed(x: [f64; 3]) -> f64 {
    let p: [f64; 3] = scale(x);
    p[0] * p[1]
}

fn main() {
    let _ = typed_grad([1.0, 2.0, 3.0]);
}
