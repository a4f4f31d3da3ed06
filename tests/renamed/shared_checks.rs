//! The checks both dependency forms share (included by `tests/renamed/tests/renamed.rs` and
//! `tests/reexport/user/tests/reexport.rs`): the crate under test, named `lib` where this is
//! included, has the same loop, struct method and forward-mode function, whose derivatives
//! must match the closed forms whatever the path to `revad` in its generated code.

use super::lib::{product, product_grad, product_jvp, recurrence, recurrence_grad, Body};

#[test]
fn a_loop() {
    let (x0, a, n) = (0.3, 0.9, 5);
    let (value, (dx0, da)) = recurrence_grad(x0, a, n);
    assert_eq!(value.to_bits(), recurrence(x0, a, n).to_bits());
    // Forward recurrence of the tangents: dx ← dx·(a + cos x) (+ x for a).
    let (mut x, mut tx0, mut ta) = (x0, 1.0, 0.0);
    for _ in 0..n {
        let d = a + x.cos();
        (tx0, ta) = (tx0 * d, ta * d + x);
        x = x * a + x.sin();
    }
    assert!((dx0 - tx0).abs() <= 1e-14 * tx0.abs(), "{dx0} vs {tx0}");
    assert!((da - ta).abs() <= 1e-14 * ta.abs(), "{da} vs {ta}");
}

#[test]
fn a_struct_method() {
    let body = Body {
        pos: [1.0, 2.0],
        vel: [3.0, -4.0],
        mass: 1.5,
    };
    let (value, (db, dg)) = body.energy_grad(9.81);
    assert_eq!(value.to_bits(), body.energy(9.81).to_bits());
    assert_eq!(db.pos, [0.0, 1.5 * 9.81]);
    assert_eq!(db.vel, [1.5 * 3.0, 1.5 * -4.0]);
    assert_eq!(db.mass, 0.5 * 25.0 + 9.81 * 2.0);
    assert_eq!(dg, 1.5 * 2.0);
}

#[test]
fn forward_and_reverse_mode() {
    let (x, y) = (0.7, -1.3);
    let (value, dx) = product_jvp(x, y, 1.0, 0.0);
    assert_eq!(value.to_bits(), product(x, y).to_bits());
    assert_eq!(dx, y + x.cos());
    let (_, (gx, gy)) = product_grad(x, y);
    assert_eq!((gx, gy), (y + x.cos(), x));
}
