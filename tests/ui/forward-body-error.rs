// With both attributes, an error of the body is reported once (by `#[reverse]`), and
// nothing else: the stubs of both keep callers quiet.

#[revad::forward]
#[revad::reverse]
fn f(x: f64) -> f64 {
    let s = format!("{x}");
    x * s.len() as f64
}

fn main() {
    let _ = f_jvp(1.0, 1.0);
    let _ = f_grad(1.0);
}
