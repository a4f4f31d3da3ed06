// A function argument maps floats to a float.

#[revad::reverse]
fn apply<F: Fn(f64) -> usize>(f: F, x: f64) -> f64 {
    f(x) as f64 * x
}

fn main() {}
