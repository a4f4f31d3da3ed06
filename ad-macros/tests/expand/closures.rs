#[reverse]
fn map_sum(xs: &[f64], w: f64) -> f64 {
    xs.iter().map(|x| x * w).sum::<f64>()
}

#[reverse]
fn free_variable(a: f64) -> f64 {
    let f = |a: f64| (|b: f64| move |_c: f64| b)(a)(1.0);
    f(a)
}

#[reverse]
fn map_sin_sum(xs: &[f64], ys: &[f64], w: f64) -> f64 {
    xs.iter().zip(ys).map(|(x, y)| (x * w).sin() * y).sum::<f64>()
}
