// `dbg!` passes its value through, which #[reverse] cannot see: rejected with advice that
// compiles (the checks and diagnostics `assert!`, `println!`, .. are kept as statements).
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    assert!(x > 0.0);
    let y = dbg!(x.ln());
    y
}

fn main() {}
