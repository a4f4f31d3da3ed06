//! The derivatives of `revad_renamed`'s functions, generated under the dependency name
//! `autodiff`, against closed forms.

use revad_renamed as lib;
use revad_renamed::weighted_grad;

#[path = "../shared_checks.rs"]
mod shared_checks;

#[test]
fn a_generic_function_in_f32_and_f64() {
    let (value, (dw, dx)) = weighted_grad(&[1.0f32, 2.0], &[3.0, -1.0]);
    assert_eq!(value, 1.0 * 9.0 + 2.0 * 1.0);
    assert_eq!(dw, [9.0, 1.0]);
    assert_eq!(dx, [6.0, -4.0]);
    let (_, (_, dx)) = weighted_grad(&[0.5f64], &[4.0]);
    assert_eq!(dx, [4.0]);
}

#[test]
fn a_num_traits_generic_function() {
    use std::f64::consts::LN_2;
    // d/dx x (x² + ln 2) = 3x² + ln 2 at x > 0; -(3x² + ln 2) at x <= 0.
    let (v, dx) = lib::num_generic_grad(0.5_f64);
    assert_eq!(v, lib::num_generic(0.5_f64));
    assert!((dx - (0.75 + LN_2)).abs() < 1e-15);
    let (_, dx) = lib::num_generic_grad(-0.5_f64);
    assert!((dx + (0.75 + LN_2)).abs() < 1e-15);
    let (_, dx) = lib::num_generic_grad(0.5_f32);
    assert!((f64::from(dx) - (0.75 + LN_2)).abs() < 1e-6);
}
