//! `#[revad::forward]`: `NAME_jvp` against closed forms, central finite differences and the
//! reverse mode of the same function (`JVP·v = v·VJP` identities).
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    reason = "the forms under test are written as users write them"
)]

use revad::{forward, reverse};

/// Central finite difference of `f` at `x` along `v`.
fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], v: &[f64]) -> f64 {
    let h = 1e-6;
    let at = |s: f64| -> Vec<f64> { x.iter().zip(v).map(|(a, b)| a + s * b).collect() };
    (f(&at(h)) - f(&at(-h))) / (2.0 * h)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[forward]
#[reverse]
fn straight(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z * z / (1.0 + y.exp())
}

#[test]
fn straight_line_matches_closed_form() {
    let (x, y) = (0.7, -1.3);
    let (v, dx) = straight_jvp(x, y, 1.0, 0.0);
    let (_, dy) = straight_jvp(x, y, 0.0, 1.0);
    assert_eq!(v.to_bits(), straight(x, y).to_bits());
    let z = x * y + x.sin();
    let q = 1.0 + y.exp();
    assert!(close(dx, 2.0 * z * (y + x.cos()) / q, 1e-14));
    assert!(close(
        dy,
        2.0 * z * x / q - z * z * y.exp() / (q * q),
        1e-14
    ));
    // Against the reverse mode of the same function.
    let (_, (gx, gy)) = straight_grad(x, y);
    let (_, d) = straight_jvp(x, y, 0.3, -2.0);
    assert!(close(d, 0.3 * gx - 2.0 * gy, 1e-14));
}

#[forward]
fn intrinsics(x: f64, y: f64) -> f64 {
    let a = x.tanh() + y.atan2(x) + x.powi(3) + x.powf(y) + x.hypot(y);
    let b = x.max(y) * x.min(y) + x.sqrt() + x.ln() * y.cbrt() + x.mul_add(y, 2.0);
    a * b + (x / y).abs() + x.exp2() + x.log(y) + (x % y)
}

#[test]
fn intrinsics_match_finite_differences() {
    let f = |p: &[f64]| intrinsics(p[0], p[1]);
    for &(x, y) in &[(0.7, 1.9), (1.3, 2.5), (2.3, 1.1)] {
        for v in [[1.0, 0.0], [0.0, 1.0], [0.6, -0.8]] {
            let (_, d) = intrinsics_jvp(x, y, v[0], v[1]);
            assert!(close(d, fd(f, &[x, y], &v), 1e-7), "{x} {y} {v:?}");
        }
    }
}

#[forward(vector)]
#[reverse]
fn looped(x: f64, a: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y.sin() * a + y;
    }
    let mut k = 0;
    while k < 3 {
        if y > 1.0 {
            y = y / 2.0;
        } else {
            y *= 1.5;
        }
        k += 1;
    }
    y
}

#[test]
fn loops_and_branches_agree_with_reverse() {
    for n in [0, 1, 5, 40] {
        let (x, a) = (0.4, 0.9);
        let (v, d) = looped_jvp(x, a, n, 0.25, -1.5);
        assert_eq!(v.to_bits(), looped(x, a, n).to_bits());
        let (_, (gx, ga)) = looped_grad(x, a, n);
        assert!(close(d, 0.25 * gx - 1.5 * ga, 1e-13), "n = {n}");
        let f = |p: &[f64]| looped(p[0], p[1], n);
        assert!(close(d, fd(f, &[x, a], &[0.25, -1.5]), 1e-7));
    }
}

#[forward(vector)]
#[reverse]
fn weighted(w: &[f64], x: &[f64]) -> f64 {
    let mut acc = 0.0;
    for i in 0..w.len() {
        acc += (w[i] * x[i]).tanh();
    }
    let mut hidden = vec![0.0; w.len()];
    for i in 0..w.len() {
        hidden[i] = w[i] * acc;
    }
    let mut grown = Vec::new();
    for h in hidden.iter() {
        grown.push(h * h);
    }
    grown.iter().sum::<f64>().sqrt()
}

#[test]
fn slices_and_vectors_match_reverse() {
    let w = [0.5, -1.2, 0.3];
    let x = [1.0, 0.7, -2.0];
    let (vw, vx) = ([0.1, 0.2, -0.3], [1.0, -1.0, 0.5]);
    let (v, d) = weighted_jvp(&w, &x, &vw, &vx);
    assert_eq!(v.to_bits(), weighted(&w, &x).to_bits());
    let (_, (gw, gx)) = weighted_grad(&w, &x);
    let expected: f64 = (0..3).map(|i| gw[i] * vw[i] + gx[i] * vx[i]).sum();
    assert!(close(d, expected, 1e-13));
    // And both against finite differences of the primal.
    let f = |p: &[f64]| weighted(&p[..3], &p[3..]);
    let at = [w, x].concat();
    let along = [vw, vx].concat();
    assert!(close(d, fd(f, &at, &along), 1e-7));
}

#[forward(vector)]
fn outputs(x: f64, y: f64) -> [f64; 3] {
    [x * y, x.sin(), 2.0]
}

#[forward]
fn out_vec(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 1..x.len() {
        out.push(x[i] * x[i - 1]);
    }
    out
}

#[test]
fn array_and_vec_outputs() {
    let (v, d) = outputs_jvp(2.0, 3.0, 1.0, 0.0);
    assert_eq!(v, [6.0, 2.0_f64.sin(), 2.0]);
    assert_eq!(d, [3.0, 2.0_f64.cos(), 0.0]);
    let (v, d) = out_vec_jvp(&[1.0, 2.0, 3.0], &[0.0, 1.0, 0.0]);
    assert_eq!(v, [2.0, 6.0]);
    assert_eq!(d, [1.0, 3.0]);
}

#[forward(vector)]
#[reverse]
fn scale_in_place(a: f64, xs: &mut [f64]) -> f64 {
    for i in 0..xs.len() {
        xs[i] = xs[i] * a;
    }
    xs[0] + a
}

#[test]
fn mut_parameters_carry_their_tangents() {
    let mut xs = vec![1.0, 2.0];
    let mut txs = vec![0.5, 0.0];
    let (v, d) = scale_in_place_jvp(3.0, &mut xs, 1.0, &mut txs);
    assert_eq!(xs, [3.0, 6.0]);
    assert_eq!(v, 6.0);
    // d(x0 a) = a dx0 + x0 da = 1.5 + 1; the output adds da.
    assert_eq!(d, 3.5);
    // The tangent of xs on return: a·ẋ + x·ȧ.
    assert_eq!(txs, [2.5, 2.0]);
}

#[forward(vector)]
fn inner(x: f64, k: usize) -> f64 {
    x.powi(k as i32) + 1.0
}

#[forward(vector)]
fn outer(x: f64, y: f64) -> f64 {
    let a = inner(x * y, 3);
    let b = inner(2.0, 2);
    a * b + inner(y, 1)
}

#[test]
fn calls_compose() {
    let (x, y) = (0.7, 1.1);
    let (v, d) = outer_jvp(x, y, 1.0, 0.0);
    assert_eq!(v.to_bits(), outer(x, y).to_bits());
    // ∂/∂x [((xy)³ + 1)·5 + y + 1] = 15 (xy)² y.
    assert!(close(d, 15.0 * (x * y).powi(2) * y, 1e-14));
}

#[forward(wrt(y))]
fn only_y(x: f64, y: f64) -> f64 {
    x * y * y
}

#[test]
fn wrt_selects_the_tangents() {
    let (_, d) = only_y_jvp(3.0, 2.0, 1.0);
    assert_eq!(d, 12.0);
}

#[forward]
fn generic_poly<T: revad::Float>(x: T, w: &[T]) -> T {
    let mut acc = T::ZERO;
    for i in 0..w.len() {
        acc = acc * x + w[i];
    }
    acc.sin()
}

#[test]
fn generic_functions_in_both_precisions() {
    let w = [1.0, -2.0, 0.5];
    let (_, d) = generic_poly_jvp(0.3_f64, &w, 1.0, &[0.0; 3]);
    let p = (0.3_f64 * 1.0 - 2.0) * 0.3 + 0.5;
    assert!(close(d, p.cos() * (2.0 * 0.3 - 2.0), 1e-15));
    let (_, d32) = generic_poly_jvp(0.3_f32, &[1.0, -2.0, 0.5], 1.0, &[0.0; 3]);
    assert!((f64::from(d32) - d).abs() < 1e-5);
}

/// `NAME_jvp_vec` on `N` lanes equals `N` separate `NAME_jvp` passes, bit for bit.
#[test]
fn vector_mode_equals_separate_passes() {
    use revad::Lanes;
    // Scalars, loops and branches: the Jacobian row of `looped` in one pass.
    let (v, d) = looped_jvp_vec(0.4, 0.9, 7, Lanes([1.0, 0.0, 0.5]), Lanes([0.0, 1.0, -2.0]));
    assert_eq!(v.to_bits(), looped(0.4, 0.9, 7).to_bits());
    for (k, (tx, ta)) in [(1.0, 0.0), (0.0, 1.0), (0.5, -2.0)]
        .into_iter()
        .enumerate()
    {
        assert_eq!(
            d.0[k].to_bits(),
            looped_jvp(0.4, 0.9, 7, tx, ta).1.to_bits()
        );
    }
    // Slices: tangents are slices of lanes.
    let (w, x) = ([0.5, -1.2, 0.3], [1.0, 0.7, -2.0]);
    let tw = [Lanes([1.0, 0.0]), Lanes([0.0, 1.0]), Lanes([0.0, 0.0])];
    let tx = [Lanes([0.0, 0.0]); 3];
    let (_, d) = weighted_jvp_vec(&w, &x, &tw, &tx);
    assert_eq!(d.0[0], weighted_jvp(&w, &x, &[1.0, 0.0, 0.0], &[0.0; 3]).1);
    assert_eq!(d.0[1], weighted_jvp(&w, &x, &[0.0, 1.0, 0.0], &[0.0; 3]).1);
    // Array outputs and calls.
    let (_, d) = outputs_jvp_vec(2.0, 3.0, Lanes([1.0, 0.0]), Lanes([0.0, 1.0]));
    assert_eq!(
        d.map(|l| l.0),
        [[3.0, 2.0], [2.0_f64.cos(), 0.0], [0.0, 0.0]]
    );
    let (_, d) = outer_jvp_vec(0.7, 1.1, Lanes([1.0, 0.0]), Lanes([0.0, 1.0]));
    assert_eq!(d.0[0], outer_jvp(0.7, 1.1, 1.0, 0.0).1);
    assert_eq!(d.0[1], outer_jvp(0.7, 1.1, 0.0, 1.0).1);
    // `&mut` tangents on lanes.
    let mut xs = vec![1.0, 2.0];
    let mut txs = vec![Lanes([0.5, 0.0]), Lanes([0.0, 0.0])];
    let (_, d) = scale_in_place_jvp_vec(3.0, &mut xs, Lanes([1.0, 0.0]), &mut txs);
    assert_eq!(d.0, [3.5, 0.0]);
    assert_eq!(txs, [Lanes([2.5, 0.0]), Lanes([2.0, 0.0])]);
}

#[forward]
#[reverse]
fn remove_dropped(x: f64, y: f64) -> f64 {
    let mut h: Vec<f64> = vec![x, y, 0.0];
    h.remove(0);
    h.pop();
    h[0] * 2.0
}

/// A value removed from a `Vec` and dropped takes its tangent with it (found by the fuzzer).
#[test]
fn removed_values_take_their_tangents() {
    assert_eq!(remove_dropped_jvp(1.5, 2.5, 0.0, 1.0), (5.0, 2.0));
    assert_eq!(remove_dropped_jvp(1.5, 2.5, 1.0, 0.0), (5.0, 0.0));
}

#[forward]
#[reverse]
fn polar_map(p: [f64; 2]) -> [f64; 3] {
    [p[0] * p[1].cos(), p[0] * p[1].sin(), p[0] * p[0]]
}

#[forward]
#[reverse]
fn energy(x: &[f64], k: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..x.len() {
        e += k * x[i] * x[i];
    }
    e
}

/// Dense Jacobians: by forward mode (one `_jvp` per input) and, with `#[reverse]` too and
/// fewer outputs than inputs, by reverse mode (one `_vjp` per output).
#[test]
fn jacobians_by_either_mode() {
    let (r, t) = (2.0, 0.5_f64);
    let (v, j) = polar_map_jacobian([r, t]);
    assert_eq!(v, polar_map([r, t]));
    assert_eq!(
        j,
        vec![
            vec![t.cos(), -r * t.sin()],
            vec![t.sin(), r * t.cos()],
            vec![2.0 * r, 0.0]
        ]
    );
    // One output, four inputs: reverse mode, one row.
    let x = [1.0, -2.0, 0.5];
    let (e, j) = energy_jacobian(&x, 3.0);
    assert_eq!(e, energy(&x, 3.0));
    assert_eq!(j, vec![vec![6.0, -12.0, 3.0, 5.25]]);
    // Forward only: the same columns from `_jvp`.
    let (_, j) = out_vec_jacobian(&[1.0, 2.0, 3.0]);
    assert_eq!(j, vec![vec![2.0, 1.0, 0.0], vec![0.0, 3.0, 2.0]]);
}

/// Fuzz finding 14 (seed `0x18ebf619d749d9e9`, `q_1321_h0`): a `Vec` result that does not
/// depend on the differentiated parameter (here every entry reads only `a1`), under
/// `wrt(w0)`: its zero tangent, shaped like it, was made after the `Vec` moved into the
/// result (E0382).
#[forward(wrt(w0))]
#[reverse(wrt(w0))]
pub fn constant_vec_result(w0: &[f32], a1: f32) -> Vec<f32> {
    let mut h0: [f32; 4] = [0.0; 4];
    h0[3] = a1.atan().tanh().powi(4) / (1.5 + (a1 % 1.25).powi(2));
    if w0[3] < f32::mul_add(a1, a1, a1) {
        h0[0] = a1.sin();
    }
    vec![
        h0[3] - a1.cos().max(a1 + a1),
        h0[0] * f32::cbrt(1.5 + a1.exp()),
    ]
}

/// The same in a tuple with an active scalar.
#[forward(wrt(x))]
pub fn constant_vec_in_tuple(x: f64, k: f64) -> (Vec<f64>, f64) {
    let v = vec![k, 2.0 * k];
    (v, x * x * k)
}

#[test]
fn constant_vec_results_have_zero_tangents() {
    let (w0, a1) = ([0.5_f32, -1.0, 2.0, 3.0], 0.7_f32);
    let (v, t) = constant_vec_result_jvp(&w0, a1, &[1.0, 1.0, 1.0, 1.0]);
    assert_eq!(v, constant_vec_result(&w0, a1));
    assert_eq!(t, vec![0.0; 2]);
    let (v, g) = constant_vec_result_vjp(&w0, a1, vec![1.0, 1.0]);
    assert_eq!(v, constant_vec_result(&w0, a1));
    assert_eq!(g, vec![0.0; 4]);
    let ((v, y), (tv, ty)) = constant_vec_in_tuple_jvp(1.5, 0.5, 2.0);
    assert_eq!((v.clone(), y), constant_vec_in_tuple(1.5, 0.5));
    assert_eq!(tv, vec![0.0; 2]);
    assert_eq!(ty, 2.0 * 2.0 * 1.5 * 0.5);
}

/// A parameter written `_`, and `std::mem::swap` of two floats, in forward mode.
#[forward]
fn swapped_after_ignoring(_: f64, y: f64, z: f64) -> f64 {
    let mut a = y * y;
    let mut b = z;
    std::mem::swap(&mut a, &mut b);
    a * 3.0 + b
}

#[test]
fn wildcard_parameters_and_swaps_forward() {
    // 3 z + y²
    assert_eq!(
        swapped_after_ignoring_jvp(1.0, 2.0, 5.0, 1.0, 1.0, 0.0),
        (19.0, 4.0)
    );
    assert_eq!(
        swapped_after_ignoring_jvp(1.0, 2.0, 5.0, 0.0, 0.0, 1.0),
        (19.0, 3.0)
    );
}
