// `#[ad::forward]` twice on one function.

#[ad::forward]
#[ad::forward]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
