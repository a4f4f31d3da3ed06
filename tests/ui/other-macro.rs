// Macros other than `vec![x; n]` are rejected at the macro path.
use ad::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    println!("{x}"); //~ ERROR macros are not supported by #[reverse]
    x * x
}

fn main() {}
