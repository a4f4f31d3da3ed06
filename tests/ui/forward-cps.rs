// `cps` names a reverse-mode backend; forward mode has none.

#[ad::forward(cps)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
