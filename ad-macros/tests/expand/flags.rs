#[reverse]
fn step(x: &mut f64, y: f64) -> bool {
    *x = *x * y;
    *x > 1.0
}

#[reverse]
fn branch(x: f64, y: f64) -> f64 {
    let mut a = x;
    if step(&mut a, y) {
        a * 2.0
    } else {
        a
    }
}
