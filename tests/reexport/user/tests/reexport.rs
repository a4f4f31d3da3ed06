//! The derivatives of `revad_reexport_user`'s functions, generated through a re-export of
//! `revad` (`crate = revad_reexporter::math::diff`), against closed forms.

use revad_reexport_user as lib;
use revad_reexport_user::{scaled_twice, scaled_twice_grad};

#[path = "../../../renamed/shared_checks.rs"]
mod shared_checks;

#[test]
fn a_closure_lifted_into_a_function_of_its_own() {
    // f(t) = a sin t; f(f(x)) = a sin(a sin x).
    let (a, x) = (1.3, 0.4);
    let (value, (da, dx)) = scaled_twice_grad(a, x);
    assert_eq!(value.to_bits(), scaled_twice(a, x).to_bits());
    let inner = a * x.sin();
    let expected_da = inner.sin() + a * inner.cos() * x.sin();
    let expected_dx = a * inner.cos() * a * x.cos();
    assert!((da - expected_da).abs() <= 1e-15, "{da} vs {expected_da}");
    assert!((dx - expected_dx).abs() <= 1e-15, "{dx} vs {expected_dx}");
}
