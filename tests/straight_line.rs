//! Straight-line code and branches: the examples of the foundation issue, each checked
//! against its closed form and against finite differences.

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
use bits::{assert_same_bits, checked};

#[path = "common/both.rs"]
#[macro_use]
mod both;

#[path = "common/workloads.rs"]
mod workloads;
use workloads::{rotate_x, rotate_x_grad};

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    2.0 * x + x * x * y
}

/// Each function under test also has a thin caller, `NAME_via`: its gradient goes through the
/// split companions of `NAME`, and must agree with `NAME_grad` bit for bit.
#[reverse]
fn f_via(x: f64, y: f64) -> f64 {
    f(x, y)
}

#[test]
fn polynomial_of_two_variables() {
    for &(x, y) in &[(3.0, 4.0), (-1.5, 0.25), (0.0, 7.0)] {
        let (_, (dx, dy)) = checked(f(x, y), f_grad(x, y), f_via_grad(x, y));
        assert_relative_eq!(dx, 2.0 + 2.0 * x * y, max_relative = 1e-15);
        assert_relative_eq!(dy, x * x, max_relative = 1e-15);
        check::gradient(|v| f(v[0], v[1]), &[x, y], &[dx, dy]).unwrap();
    }
    let (v, (dx, dy)) = checked(f(3.0, 4.0), f_vjp(3.0, 4.0, 0.5), f_via_vjp(3.0, 4.0, 0.5));
    assert_eq!(v, 42.0);
    assert_eq!((dx, dy), (13.0, 4.5));
}

#[reverse]
fn piecewise(x: f64, k: i32) -> f64 {
    let mut s = x.sin() * x;
    if s > 0.5 {
        s = s.sqrt();
    } else {
        s *= 2.0;
    }
    s.powi(k) + f64::exp(-x)
}

#[reverse]
fn piecewise_via(x: f64, k: i32) -> f64 {
    piecewise(x, k)
}

#[test]
fn branch_on_a_float_condition() {
    for &(x, k) in &[(0.7, 3), (1.2, 2), (-0.4, 3), (2.0, 1)] {
        let (_, dx) = checked(
            piecewise(x, k),
            piecewise_grad(x, k),
            piecewise_via_grad(x, k),
        );
        let s0 = x.sin() * x;
        let ds0 = x.cos() * x + x.sin();
        let (s, ds) = if s0 > 0.5 {
            (s0.sqrt(), 0.5 / s0.sqrt() * ds0)
        } else {
            (2.0 * s0, 2.0 * ds0)
        };
        let expected = k as f64 * s.powi(k - 1) * ds - (-x).exp();
        assert_relative_eq!(dx, expected, max_relative = 1e-12);
        check::gradient(|v| piecewise(v[0], k), &[x], &[dx]).unwrap();
    }
}

#[reverse(wrt(w))]
fn dot3(w: [f64; 3], x: &[f64]) -> f64 {
    w[0] * x[0] + w[1] * x[1] + w[2] * x[2]
}

#[reverse(wrt(w))]
fn dot3_via(w: [f64; 3], x: &[f64]) -> f64 {
    dot3(w, x)
}

#[test]
fn wrt_selects_the_array_parameter() {
    let x = [4.0, 5.0, 6.0];
    let w = [1.0, 2.0, 3.0];
    let (v, dw) = checked(dot3(w, &x), dot3_grad(w, &x), dot3_via_grad(w, &x));
    assert_eq!(v, 32.0);
    assert_eq!(dw, x);
}

#[reverse]
fn cubic(x: f64) -> f64 {
    2.0 * x + x * x * x
}

#[reverse]
fn cubic_via(x: f64) -> f64 {
    cubic(x)
}

#[test]
fn two_x_plus_x_cubed() {
    for &x in &[-2.0, -0.5, 0.0, 1.0, 3.5] {
        let (_, d) = checked(cubic(x), cubic_grad(x), cubic_via_grad(x));
        assert_relative_eq!(d, 2.0 + 3.0 * x * x, max_relative = 1e-15);
    }
}

#[reverse]
fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let (ux, uy, uz, s) = (q[0], q[1], q[2], q[3]);
    let dot_uv = ux * v[0] + uy * v[1] + uz * v[2];
    let dot_uu = ux * ux + uy * uy + uz * uz;
    let k = s * s - dot_uu;
    let cross = [
        uy * v[2] - uz * v[1],
        uz * v[0] - ux * v[2],
        ux * v[1] - uy * v[0],
    ];
    [
        2.0 * dot_uv * ux + k * v[0] + 2.0 * s * cross[0],
        2.0 * dot_uv * uy + k * v[1] + 2.0 * s * cross[1],
        2.0 * dot_uv * uz + k * v[2] + 2.0 * s * cross[2],
    ]
}

// FIXME(soundness): no caller `rotate_via` for `rotate`: a call to a #[reverse] function that
// returns an array does not compile in a #[reverse] caller (`rotate(q, v)` in tail position:
// "cannot match this result to the return type"; `let out = rotate(q, v); out` the same;
// `[out[0], out[1], out[2]]`: "can index float arrays bound to a name"). Calls lower to a
// scalar temporary only.

#[reverse(wrt(q, v))]
fn rotate_x_via(q: [f64; 4], v: [f64; 3]) -> f64 {
    rotate_x(q, v)
}

/// The closed-form Jacobian of the rotation with respect to `v`: the rotation matrix.
fn rotation_matrix(q: [f64; 4]) -> [[f64; 3]; 3] {
    let [x, y, z, w] = q;
    [
        [
            w * w + x * x - y * y - z * z,
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            w * w - x * x + y * y - z * z,
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            w * w - x * x - y * y + z * z,
        ],
    ]
}

#[test]
fn rotate_vec_by_quat() {
    let q = [0.1, -0.3, 0.5, 0.8];
    let v = [1.5, -2.0, 0.25];
    let (x, (dq, dv)) = checked(rotate_x(q, v), rotate_x_grad(q, v), rotate_x_via_grad(q, v));
    let e0 = [1.0, 0.0, 0.0];
    let (out, _) = rotate_vjp(q, v, e0);
    assert_same_bits(out, rotate(q, v));
    assert_relative_eq!(x, out[0], max_relative = 1e-15);
    let r = rotation_matrix(q);
    for j in 0..3 {
        assert_relative_eq!(dv[j], r[0][j], max_relative = 1e-12);
    }
    let packed = |p: &[f64]| rotate_x([p[0], p[1], p[2], p[3]], [p[4], p[5], p[6]]);
    let all = [q[0], q[1], q[2], q[3], v[0], v[1], v[2]];
    let grad = [dq[0], dq[1], dq[2], dq[3], dv[0], dv[1], dv[2]];
    check::gradient(packed, &all, &grad).unwrap();

    // The full vector through the vjp: each seed picks a row of the Jacobian.
    for (i, row) in r.iter().enumerate() {
        let mut seed = [0.0; 3];
        seed[i] = 1.0;
        let (out, (dq, dv)) = rotate_vjp(q, v, seed);
        assert_same_bits(out, rotate(q, v));
        for j in 0..3 {
            assert_relative_eq!(dv[j], row[j], max_relative = 1e-12);
        }
        let component = |p: &[f64]| rotate([p[0], p[1], p[2], p[3]], [p[4], p[5], p[6]])[i];
        let grad = [dq[0], dq[1], dq[2], dq[3], dv[0], dv[1], dv[2]];
        check::gradient(component, &all, &grad).unwrap();
    }
}

#[reverse]
fn fanout(x: f64) -> f64 {
    let a = x * 2.0;
    a + a + a + a + a + a + a + a + a + a
}

#[reverse]
fn fanout_via(x: f64) -> f64 {
    fanout(x)
}

#[test]
fn one_variable_used_ten_times() {
    let (v, d) = checked(fanout(1.25), fanout_grad(1.25), fanout_via_grad(1.25));
    assert_eq!(v, 25.0);
    assert_eq!(d, 20.0);
}

/// A variable added to (and subtracted from) itself: both terms reach the old binding.
#[reverse]
fn add_to_itself(x: f64) -> f64 {
    let mut m = x * x;
    m += m;
    let mut z = m + x;
    z -= z;
    m + z
}

#[reverse]
fn add_to_itself_via(x: f64) -> f64 {
    add_to_itself(x)
}

#[test]
fn compound_assignment_of_a_variable_to_itself() {
    // 2x² + 0: the derivative is 4x (the CPS backend once gave 2x).
    let (v, d) = checked(
        add_to_itself(3.0),
        add_to_itself_grad(3.0),
        add_to_itself_via_grad(3.0),
    );
    assert_eq!(v, 18.0);
    assert_eq!(d, 12.0);
}

#[reverse]
fn doubling_chain(x0: f64) -> f64 {
    let x1 = x0 + x0;
    let x2 = x1 + x1;
    let x3 = x2 + x2;
    let x4 = x3 + x3;
    let x5 = x4 + x4;
    let x6 = x5 + x5;
    let x7 = x6 + x6;
    let x8 = x7 + x7;
    let x9 = x8 + x8;
    let x10 = x9 + x9;
    let x11 = x10 + x10;
    let x12 = x11 + x11;
    let x13 = x12 + x12;
    let x14 = x13 + x13;
    let x15 = x14 + x14;
    let x16 = x15 + x15;
    let x17 = x16 + x16;
    let x18 = x17 + x17;
    let x19 = x18 + x18;
    let x20 = x19 + x19;
    let x21 = x20 + x20;
    let x22 = x21 + x21;
    let x23 = x22 + x22;
    let x24 = x23 + x23;
    let x25 = x24 + x24;
    let x26 = x25 + x25;
    let x27 = x26 + x26;
    let x28 = x27 + x27;
    let x29 = x28 + x28;
    let x30 = x29 + x29;
    let x31 = x30 + x30;
    let x32 = x31 + x31;
    let x33 = x32 + x32;
    let x34 = x33 + x33;
    let x35 = x34 + x34;
    let x36 = x35 + x35;
    let x37 = x36 + x36;
    let x38 = x37 + x37;
    let x39 = x38 + x38;
    x39 + x39
}

#[reverse]
fn doubling_chain_via(x0: f64) -> f64 {
    doubling_chain(x0)
}

#[test]
fn sharing_is_kept_in_a_chain_of_forty_doublings() {
    let (v, d) = checked(
        doubling_chain(1.0),
        doubling_chain_grad(1.0),
        doubling_chain_via_grad(1.0),
    );
    assert_eq!(v, 2f64.powi(40));
    assert_eq!(d, 2f64.powi(40));
}

/// Empty statements (a stray `;`) do nothing, wherever they are.
#[reverse]
#[allow(redundant_semicolons)]
fn stray_semicolons(x: f64, n: usize) -> f64 {
    let y = x * x;
    let mut s = y;
    for _ in 0..n {
        s *= x;
        if s > 100.0 {
            break;
        }
    }
    s
}

#[reverse]
fn stray_semicolons_via(x: f64, n: usize) -> f64 {
    stray_semicolons(x, n)
}

#[test]
fn empty_statements_are_ignored() {
    // x² · x³ (n = 3, no break), and x² · x² = 256 > 100 (the break after two steps).
    let (v, d) = checked(
        stray_semicolons(1.5, 3),
        stray_semicolons_grad(1.5, 3),
        stray_semicolons_via_grad(1.5, 3),
    );
    assert_relative_eq!(v, 1.5f64.powi(5), max_relative = 1e-15);
    assert_relative_eq!(d, 5.0 * 1.5f64.powi(4), max_relative = 1e-15);
    let (v, d) = checked(
        stray_semicolons(4.0, 5),
        stray_semicolons_grad(4.0, 5),
        stray_semicolons_via_grad(4.0, 5),
    );
    assert_eq!(v, 256.0);
    assert_eq!(d, 4.0 * 64.0);
}

/// Rosenbrock with the array taken apart by a pattern.
#[reverse]
fn rosenbrock_pattern(x: [f64; 2]) -> f64 {
    let [a, b] = x;
    (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2)
}

/// A pattern with `_` and `..`, on an array behind a reference.
#[reverse]
fn first_and_third(x: &[f64; 4]) -> f64 {
    let [p, _, q, ..] = *x;
    p * q.sin()
}

#[test]
fn array_patterns() {
    let (a, b) = (1.5, -0.5);
    let (v, g) = rosenbrock_pattern_grad([a, b]);
    assert_eq!(v.to_bits(), rosenbrock_pattern([a, b]).to_bits());
    assert_eq!(g[0], -2.0 * (1.0 - a) - 400.0 * a * (b - a * a));
    assert_eq!(g[1], 200.0 * (b - a * a));
    let x = [0.5, 9.0, 1.25, 9.0];
    let (v, g) = first_and_third_grad(&x);
    assert_eq!(v, 0.5 * 1.25f64.sin());
    assert_eq!(g, [1.25f64.sin(), 0.0, 0.5 * 1.25f64.cos(), 0.0]);
}
