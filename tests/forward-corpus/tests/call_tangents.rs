//! Minimal reproducers of the `#[revad::forward]` bugs the forward corpus found (fixed): calls
//! whose tangents flow through a tuple result or a `&mut` argument.

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

#[revad::forward]
#[revad::reverse]
fn sincos(x: f64) -> (f64, f64) {
    (x.sin(), x.cos())
}

/// A call whose result is a tuple taken apart.
#[revad::forward]
#[revad::reverse]
fn polar(x: f64, r: f64) -> f64 {
    let (s, c) = sincos(x);
    r * s + c * c
}

#[test]
fn tuple_result_of_a_call() {
    let (x, r) = (0.3, 2.0);
    let (_, (gx, _)) = polar_grad(x, r);
    let (_, dx) = polar_jvp(x, r, 1.0, 0.0);
    assert!(close(dx, gx), "jvp {dx} against gradient {gx}");
}

#[revad::forward]
#[revad::reverse]
fn fill_powers(x: f64, out: &mut [f64]) {
    out[0] = x;
    out[1] = x * x;
}

/// A local buffer filled by a callee through `&mut` (the callee returns `()`).
#[revad::forward]
#[revad::reverse]
fn quadratic(x: f64) -> f64 {
    let mut p = [0.0; 2];
    fill_powers(x, &mut p);
    p[0] + p[1]
}

#[test]
fn mut_argument_of_a_call_returning_unit() {
    let x = 1.5;
    let (_, gx) = quadratic_grad(x);
    let (_, dx) = quadratic_jvp(x, 1.0);
    assert!(close(dx, gx), "jvp {dx} against gradient {gx}");
}
