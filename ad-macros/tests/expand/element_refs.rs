#[reverse]
fn element_refs(xs: &[f64], i: usize) -> f64 {
    let v = &xs[i];
    let last = if let Some(w) = xs.last() { *w } else { 1.0 };
    *v * last
}

#[reverse]
fn get_or(xs: &[f64], i: usize) -> f64 {
    match xs.get(i) {
        Some(&v) => v.sin(),
        None => 0.0,
    }
}

#[reverse]
fn get_unwrap_or(xs: &[f64], i: usize) -> f64 {
    let first = *xs.first().unwrap();
    first * xs.get(i).copied().unwrap_or(2.0)
}
