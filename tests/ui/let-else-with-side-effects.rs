// `let Some(v) = .. else` is evaluated twice (a test, then the value): a closure in its value
// that writes something (`n += 1`) would run twice, so such a `let .. else` is rejected at
// `else`.
use revad::reverse;

#[reverse]
fn f(xs: &[f64]) -> f64 {
    let mut n = 0;
    let Some(i) = xs.iter().position(|x| {
        n += 1;
        *x > 0.0
    }) else { //~ ERROR `let Some(v) = .. else
        return 0.0;
    };
    xs[i] * n as f64
}

fn main() {}
