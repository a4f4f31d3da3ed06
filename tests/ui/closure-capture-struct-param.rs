// A closure passed to a function is lifted into a function of its own, which takes floats,
// float arrays, integers and `bool`s: a struct parameter it captures is rejected at its name,
// with the way out (bind the floats it reads first).
#[derive(Clone, revad::Adjoint)]
pub struct Params {
    pub k: f64,
}

#[revad::reverse]
fn integrate<F: Fn(f64) -> f64>(f: F, y0: f64, h: f64) -> f64 {
    let mut y = y0;
    for _ in 0..10 {
        y += h * f(y);
    }
    y
}

#[revad::reverse]
fn decay(p: &Params, y0: f64) -> f64 {
    integrate(|y| -p.k * y, y0, 0.1) //~ ERROR bind the floats the closure reads
}

fn main() {}
