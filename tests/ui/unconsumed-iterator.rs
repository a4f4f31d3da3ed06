// An iterator bound by `let` is consumed later by `.sum()`, `.product()` or `.collect()` only,
// and only when nothing it takes by value (a `move` closure's captures) can change before:
// other uses are rejected.
use revad::reverse;

#[reverse]
fn f(xs: &[f64], a: f64) -> f64 {
    let it = xs.iter().map(|x| x * a);
    it.fold(0.0, |s, v| s + v) //~ ERROR #[reverse] consumes an iterator bound by `let`
}

#[reverse]
fn g(xs: &[f64], a: f64) -> f64 {
    let it = xs.iter().map(move |x| x * a); //~ ERROR #[reverse] supports iterators consumed in the same expression
    it.sum()
}

fn main() {}
