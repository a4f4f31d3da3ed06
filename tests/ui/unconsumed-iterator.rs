// An iterator stored in a variable instead of being consumed in the same expression is rejected.
use revad::reverse;

#[reverse]
fn f(xs: &[f64], a: f64) -> f64 {
    let it = xs.iter().map(|x| x * a); //~ ERROR #[reverse] supports iterators consumed in the same expression
    it.sum()
}

fn main() {}
