//! Generic functions over `num_traits::Float`, `num_traits::real::Real` and std's arithmetic
//! operators, differentiated by `#[reverse]` and `#[forward]` at `f64` and `f32`.

use num_traits::Float;
use revad::{forward, reverse};

#[reverse]
#[forward]
fn nt<T: Float>(x: T, y: T) -> T {
    let two = T::from(2.0).unwrap();
    let a = x.sin() * y + x.powi(2) / two;
    a * T::one() + y.exp() - T::zero()
}

#[test]
fn basic() {
    let (v, (dx, dy)) = nt_grad(0.3_f64, 0.7);
    println!("{v} {dx} {dy}");
    let (v, d) = nt_jvp(0.3_f64, 0.7, 1.0, 0.0);
    println!("{v} {d}");
}
