// A destructuring pattern in parameter position is rejected at the pattern.
use revad::reverse;

#[reverse]
fn f((a, b): (f64, f64)) -> f64 { //~ ERROR #[reverse] needs a plain name for each parameter
    a * b
}

fn main() {}
