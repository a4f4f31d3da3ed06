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
