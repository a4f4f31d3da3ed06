// A `#[forward(vector)]` function calls a callee that has `#[ad::forward]` without `vector`:
// the callee has no `jvp_vec`, a compile error at the call.

#[ad::forward]
fn g(x: f64) -> f64 {
    x.sin()
}

#[ad::forward(vector)]
fn f(x: f64) -> f64 {
    g(x) * 2.0
}

fn main() {}
