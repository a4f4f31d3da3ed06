// A closure passed to a function captures what can be passed to the function it is lifted
// into: floats, float arrays, integers, `bool`s.

#[revad::reverse]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

#[revad::reverse]
fn outer(a: f64, b: f64) -> f64 {
    let t = (a, b);
    apply(|x| x * t.0, a)
}

fn main() {}
