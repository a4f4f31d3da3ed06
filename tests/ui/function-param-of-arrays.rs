// A function argument takes and returns floats: one of arrays (a vector field `f(s)`) is
// rejected at its call, naming the parameter and the form that is taken.
#[revad::reverse]
fn euler<F: Fn([f64; 2]) -> [f64; 2]>(f: F, s0: [f64; 2], h: f64) -> f64 {
    let mut s = s0;
    for _ in 0..10 {
        let d = f(s); //~ ERROR cannot differentiate a call through the parameter `f`
        s = [s[0] + h * d[0], s[1] + h * d[1]];
    }
    s[0]
}

fn main() {}
