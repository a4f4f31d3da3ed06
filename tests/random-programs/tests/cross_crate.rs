//! A `#[reverse]` function in this test crate calls `#[reverse]` functions of another crate
//! (`revad_random_programs`): the callee's split companions are public like the callee.

use revad::{check, reverse};

#[reverse]
fn composed(x0: f64, x1: f64, x2: f64) -> f64 {
    let a = revad_random_programs::p_0(x0, x1, x2);
    let b = revad_random_programs::p_1(a, x1 * 0.5, x2);
    a * b + x0.sin()
}

#[test]
fn calls_into_another_crate_receive_derivatives() {
    for &point in &[[0.3, -0.7, 1.1], [-1.2, 0.4, 0.25]] {
        let [x0, x1, x2] = point;
        let (v, (d0, d1, d2)) = composed_grad(x0, x1, x2);
        assert_eq!(v, composed(x0, x1, x2));
        check::gradient(|p| composed(p[0], p[1], p[2]), &point, &[d0, d1, d2]).unwrap();
    }
}
