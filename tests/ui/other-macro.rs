// Macros other than `vec![x; n]` and the checks and diagnostics (`assert!`, `println!`, ..)
// are rejected at the macro path.
use revad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let _y = format!("{x}"); //~ ERROR `format!` is not supported by #[reverse]
    x * x
}

fn main() {}
