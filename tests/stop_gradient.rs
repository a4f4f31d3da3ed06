//! `revad::stop_gradient(x)`: the value flows through, no derivative does. Against closed
//! forms in which the stopped value is a constant equal to the value, under the tape and CPS
//! backends, forward mode, `#[reverse(hessian)]` (its generic copy runs on dual numbers) and
//! on the dual numbers themselves.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    reason = "the forms under test are written as users write them"
)]

use revad::{forward, reverse, stop_gradient, Dual, DualVec, Lanes};

/// f(x, y) = x·sg(x) + y·sg(x y): as if sg(..) were constants, ∂x = x and ∂y = x y.
#[forward(vector)]
#[reverse]
fn scalars(x: f64, y: f64) -> f64 {
    x * revad::stop_gradient(x) + y * revad::stop_gradient(x * y)
}

#[reverse(cps)]
fn scalars_cps(x: f64, y: f64) -> f64 {
    x * revad::stop_gradient(x) + y * revad::stop_gradient(x * y)
}

#[test]
fn scalars_in_every_backend() {
    let (x, y) = (1.7, -0.6);
    let value = x * x + y * (x * y);
    let (v, (dx, dy)) = scalars_grad(x, y);
    assert_eq!(v.to_bits(), value.to_bits());
    assert_eq!((dx, dy), (x, x * y));
    let (v, (dx, dy)) = scalars_cps_grad(x, y);
    assert_eq!(v.to_bits(), value.to_bits());
    assert_eq!((dx, dy), (x, x * y));
    let (v, tx) = scalars_jvp(x, y, 1.0, 0.0);
    assert_eq!(v.to_bits(), value.to_bits());
    assert_eq!(tx, x);
    assert_eq!(scalars_jvp(x, y, 0.0, 1.0).1, x * y);
    assert_eq!(scalars_jvp(x, y, 0.5, 2.0).1, 0.5 * x + 2.0 * x * y);
    let (v, d) = scalars_jvp_vec(x, y, Lanes([1.0, 0.0]), Lanes([0.0, 1.0]));
    assert_eq!(v.to_bits(), value.to_bits());
    assert_eq!(d.0, [x, x * y]);
}

/// g(x) = x²·sg(x): g' = 2x·x and g'' = 2x (the stopped factor is a constant of value x).
#[reverse(hessian)]
fn cubic(x: f64) -> f64 {
    x * x * revad::stop_gradient(x)
}

#[test]
fn hessian_sees_a_constant() {
    let x = 1.5;
    let (v, g, h) = cubic_hessian(x);
    assert_eq!(v, x * x * x);
    assert_eq!(g, 2.0 * x * x);
    assert_eq!(h, vec![vec![2.0 * x]]);
    let (_, g, hv) = cubic_hvp(x, 3.0);
    assert_eq!((g, hv), (2.0 * x * x, 3.0 * 2.0 * x));
}

/// Two variables: f = x·y·sg(x + y), ∇ = (y s, x s), H = [[0, s], [s, 0]] with s = x + y.
#[reverse(hessian)]
fn pair(x: f64, y: f64) -> f64 {
    let s = revad::stop_gradient(x + y);
    x * y * s
}

#[test]
fn hessian_of_two_variables() {
    let (x, y) = (0.75, -2.0);
    let s = x + y;
    let (_, (gx, gy), h) = pair_hessian(x, y);
    assert_eq!((gx, gy), (y * s, x * s));
    assert_eq!(h, vec![vec![0.0, s], vec![s, 0.0]]);
}

/// Arrays: f(w, x) = Σ w_i·sg(w)_i·x: ∂w_i = w_i x, ∂x = Σ w_i².
#[forward]
#[reverse]
fn arrays(w: [f64; 3], x: f64) -> f64 {
    let c = revad::stop_gradient(w);
    let mut s = 0.0;
    for i in 0..3 {
        s += w[i] * c[i] * x;
    }
    s
}

#[reverse(cps)]
fn arrays_cps(w: [f64; 3], x: f64) -> f64 {
    let c = revad::stop_gradient(w);
    let mut s = 0.0;
    for i in 0..3 {
        s += w[i] * c[i] * x;
    }
    s
}

#[test]
fn fixed_arrays() {
    let (w, x) = ([0.5, -1.25, 2.0], 1.5);
    let norm2: f64 = w.iter().map(|a| a * a).sum();
    for (v, (dw, dx)) in [arrays_grad(w, x), arrays_cps_grad(w, x)] {
        assert_eq!(v, arrays(w, x));
        assert_eq!(dw, [w[0] * x, w[1] * x, w[2] * x]);
        assert_eq!(dx, norm2);
    }
    let (_, t) = arrays_jvp(w, x, [1.0, 0.0, 0.0], 0.0);
    assert_eq!(t, w[0] * x);
    let (_, t) = arrays_jvp(w, x, [0.0; 3], 1.0);
    assert_eq!(t, norm2);
}

/// In a loop: s ← s + sg(s)·x, n times from s = 1. The stopped values c_k are the primal's
/// s_k, so ds_n/dx = Σ_k c_k.
#[forward]
#[reverse]
fn looped(x: f64, n: usize) -> f64 {
    let mut s = 1.0;
    for _ in 0..n {
        s = s + revad::stop_gradient(s) * x;
    }
    s
}

#[reverse(cps)]
fn looped_cps(x: f64, n: usize) -> f64 {
    let mut s = 1.0;
    for _ in 0..n {
        s = s + revad::stop_gradient(s) * x;
    }
    s
}

#[test]
fn inside_a_loop() {
    let (x, n) = (0.3, 7);
    let mut s = 1.0_f64;
    let mut sum = 0.0;
    for _ in 0..n {
        sum += s;
        s += s * x;
    }
    assert_eq!(looped_grad(x, n), (s, sum));
    assert_eq!(looped_cps_grad(x, n), (s, sum));
    assert_eq!(looped_jvp(x, n, 1.0), (s, sum));
}

/// `wrt(..)` picks the parameters of the gradient; `stop_gradient` cuts paths inside the
/// body. With `wrt(x)`, f = x·sg(x)·y has ∂x = x y: the stopped path adds nothing, whether
/// or not `y` is active.
#[reverse(wrt(x))]
fn with_wrt(x: f64, y: f64) -> f64 {
    x * revad::stop_gradient(x) * y
}

#[test]
fn composes_with_wrt() {
    let (x, y) = (2.5, -3.0);
    assert_eq!(with_wrt_grad(x, y), (x * x * y, x * y));
}

/// Used in an inactive expression (an integer count), it kills the derivative as a cast
/// does: the loop count reads `x` without differentiating it.
#[reverse]
fn in_a_condition(x: f64) -> f64 {
    let k = (revad::stop_gradient(x) * 2.0) as usize;
    let mut s = x;
    for _ in 0..k {
        s = s * x;
    }
    s
}

#[test]
fn inside_an_inactive_expression() {
    let x = 1.6;
    // k = 3: s = x⁴, ds/dx = 4x³.
    assert_eq!(in_a_condition_grad(x), (x * x * x * x, 4.0 * (x * x * x)));
}

/// Generic code runs on dual numbers: the runtime function zeroes their tangents.
#[forward]
#[reverse]
fn generic<T: revad::Float>(x: T) -> T {
    x * x * revad::stop_gradient(x)
}

#[test]
fn generic_code_and_dual_numbers() {
    let x = 1.25_f64;
    assert_eq!(generic_grad(x), (x * x * x, 2.0 * x * x));
    assert_eq!(generic_jvp(x, 1.0), (x * x * x, 2.0 * x * x));
    // The primal on nested dual numbers, x²·c with c = x stopped: both first derivatives
    // are 2x·c = 2x², the second is 2c = 2x.
    let d = Dual::new(Dual::variable(x), Dual::constant(1.0));
    let y = generic(d);
    assert_eq!(
        (y.re.re, y.re.eps, y.eps.re, y.eps.eps),
        (x * x * x, 2.0 * x * x, 2.0 * x * x, 2.0 * x)
    );
    let v = generic(DualVec::<f64, 2>::new(x, [1.0, -1.0]));
    assert_eq!(v.eps, [2.0 * x * x, -2.0 * x * x]);
    assert_eq!(stop_gradient(d).eps.re, 0.0);
}

#[revad::reverse]
fn weighted_pair(w0: &[f64], w1: &[f64]) -> f64 {
    w0[1] * w1[0]
}

/// A call's result, its gradient stopped, stored into an element of a 2-D array (the
/// random-program generator's seed 0x5eed2026120602 found it rejected).
#[revad::reverse]
fn stopped_into_a_table(x0: f64, v0: Vec<f64>) -> f64 {
    let mut q0: [[f64; 3]; 3] = [[0.0; 3]; 3];
    q0[2][1] = revad::stop_gradient(weighted_pair(&v0, &v0));
    q0[2][1] * x0 + q0[0][0]
}

#[test]
fn stopped_results_stored_in_nested_arrays() {
    assert_eq!(
        stopped_into_a_table_grad(2.0, vec![1.0, 2.0, 3.0]),
        (4.0, (2.0, vec![0.0; 3]))
    );
}

/// A state with a method that takes a rate, for `stop_gradient` of a call's result inside an
/// argument.
#[derive(Clone, revad::Adjoint)]
pub struct Decaying {
    /// The value.
    pub a: f64,
}

#[reverse]
impl Decaying {
    /// `a ← a k + b`.
    #[reverse]
    pub fn bump(&mut self, k: f64, b: f64) {
        self.a = self.a * k + b;
    }
}

/// A helper whose result is scaled inside `stop_gradient`.
#[reverse]
fn first_times(w: &[f64], c: f64) -> f64 {
    w[0] * c
}

/// `stop_gradient((0.5 * h(..)).tanh())` as a method's argument: the call's result is a float
/// inside it (was taken for an aggregate passed on whole, a rustc inference error).
#[reverse]
fn bumped(x: f64, w: &[f64]) -> f64 {
    let mut s = Decaying { a: x };
    for _ in 0..2 {
        s.bump(
            revad::stop_gradient((0.5 * first_times(w, 0.25)).tanh()),
            0.3,
        );
    }
    s.a
}

#[test]
fn a_stopped_call_result_inside_an_argument() {
    let w = [0.8, 1.0];
    let k = (0.5 * (w[0] * 0.25f64)).tanh();
    let (value, (dx, dw)) = bumped_grad(0.7, &w);
    assert_eq!(value, bumped(0.7, &w));
    assert_eq!(value, (0.7 * k + 0.3) * k + 0.3);
    // The rate's gradient is stopped: ∂/∂x = k², ∂/∂w = 0.
    assert_eq!((dx, dw), (k * k, vec![0.0, 0.0]));
}
