// `cps` names a reverse-mode backend; forward mode has none.

#[revad::forward(cps)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
