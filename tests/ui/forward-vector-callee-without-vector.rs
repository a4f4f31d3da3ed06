// A `#[forward(vector)]` function calls a callee that has `#[revad::forward]` without `vector`:
// the callee has no `jvp_vec`, a compile error at the call.

#[revad::forward]
fn g(x: f64) -> f64 {
    x.sin()
}

#[revad::forward(vector)]
fn f(x: f64) -> f64 {
    g(x) * 2.0
}

fn main() {}
