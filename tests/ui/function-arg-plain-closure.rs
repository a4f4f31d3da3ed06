// `NAME_grad` of a higher-order function cannot take a plain closure: its derivative is
// unknown. Closures are passed from annotated functions, which lift them.

#[revad::reverse]
fn apply<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(x)
}

fn main() {
    let _ = apply_grad(|x| x * x, 2.0);
}
