use ad::reverse;

#[reverse]
fn through_pointer(x: f64, g: fn(f64) -> f64) -> f64 {
    g(x) * x
}

#[reverse]
fn trait_path(x: f64) -> f64 {
    std::ops::Add::add(x, x)
}

fn main() {}
