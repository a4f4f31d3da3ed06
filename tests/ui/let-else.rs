// `let ... else` of a value other than an element or a reduction is rejected at `else`
// (its value would be evaluated twice: a call may differ the second time).
use revad::reverse;

fn next_power(x: f64) -> Option<i32> {
    (x > 0.0).then_some(2)
}

#[reverse]
fn f(x: f64) -> f64 {
    let Some(n) = next_power(x) else { //~ ERROR `let Some(v) = .. else
        return x;
    };
    x.powi(n)
}

fn main() {}
