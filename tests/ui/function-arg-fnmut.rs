// A function argument must be `Fn`: the derivative calls it again.

#[revad::reverse]
fn apply<F: FnMut(f64) -> f64>(mut f: F, x: f64) -> f64 {
    f(x)
}

fn main() {}
