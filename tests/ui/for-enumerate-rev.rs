// `enumerate().rev()` counts down from the end; #[reverse] reverses elements before `enumerate`
// (`xs.iter().rev().enumerate()`), so this order is rejected at `rev`, saying to loop over
// indices.
use revad::reverse;

#[reverse]
fn f(w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, x) in w.iter().enumerate().rev() { //~ ERROR
        s = s * 0.5 + *x * i as f64;
    }
    s
}

fn main() {}
