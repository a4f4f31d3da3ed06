//! Matrices and vectors built in the body from their entries (`Vector3::new(x, y, z)`,
//! `Matrix2::new(a, b, c, d)`, feature `nalgebra`): the arguments are the entries row by row,
//! and each receives the entry of the result's adjoint in its place. Checked against closed
//! forms and central finite differences of the primal.

use approx::assert_relative_eq;
use nalgebra as na;
use nalgebra::{Matrix2, Matrix2x3, Matrix3, Vector2, Vector3};
use revad::reverse;

/// Central finite differences of `f` at `x` along each coordinate.
fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|k| {
            let (mut a, mut b) = (x.to_vec(), x.to_vec());
            a[k] += h;
            b[k] -= h;
            (f(&a) - f(&b)) / (2.0 * h)
        })
        .collect()
}

/// A vector built from expressions and returned.
#[reverse]
fn built(x: f64, y: f64) -> Vector3<f64> {
    Vector3::new(x * y, x + y, 2.0 * x.sin())
}

#[test]
fn a_returned_vector_has_the_jacobian_of_its_entries() {
    let (x, y) = (0.7_f64, -1.3);
    // Rows of the Jacobian: ∂(xy) = (y, x), ∂(x + y) = (1, 1), ∂(2 sin x) = (2 cos x, 0).
    let rows = [(y, x), (1.0, 1.0), (2.0 * x.cos(), 0.0)];
    for (k, row) in rows.iter().enumerate() {
        let mut seed = Vector3::zeros();
        seed[k] = 1.0;
        let (v, (dx, dy)) = built_vjp(x, y, seed);
        assert_eq!(v, built(x, y));
        assert_eq!(v, Vector3::new(x * y, x + y, 2.0 * x.sin()));
        assert_relative_eq!(dx, row.0, epsilon = 1e-15);
        assert_relative_eq!(dy, row.1, epsilon = 1e-15);
    }
}

/// `.dot` and `.norm` of built vectors, one entry a literal, one a part of a parameter.
#[reverse]
fn built_norms(x: f64, y: f64, w: Vector2<f64>) -> f64 {
    let u = Vector3::new(x * y, 1.5, w[1]);
    let v = Vector3::<f64>::new(x, y, w.x);
    u.norm() + u.dot(&v)
}

#[test]
fn norm_and_dot_of_built_vectors() {
    let (x, y, w) = (0.7, -1.3, Vector2::new(0.4, 2.1));
    let f = |p: &[f64]| {
        let (x, y, w0, w1) = (p[0], p[1], p[2], p[3]);
        let u = Vector3::new(x * y, 1.5, w1);
        u.norm() + u.dot(&Vector3::new(x, y, w0))
    };
    let (value, (dx, dy, dw)) = built_norms_grad(x, y, w);
    assert_eq!(value.to_bits(), built_norms(x, y, w).to_bits());
    let p = [x, y, w[0], w[1]];
    assert_relative_eq!(value, f(&p), epsilon = 1e-15);
    // Closed form: u = (xy, 1.5, w1), v = (x, y, w0).
    let u = Vector3::new(x * y, 1.5, w[1]);
    let n = u.norm();
    let du = u / n + Vector3::new(x, y, w[0]);
    let dv = u;
    assert_relative_eq!(dx, du[0] * y + dv[0], epsilon = 1e-14);
    assert_relative_eq!(dy, du[0] * x + dv[1], epsilon = 1e-14);
    assert_relative_eq!(dw[0], dv[2], epsilon = 1e-14);
    assert_relative_eq!(dw[1], du[2], epsilon = 1e-14);
    let g = fd(f, &p);
    for (a, b) in [dx, dy, dw[0], dw[1]].iter().zip(&g) {
        assert_relative_eq!(*a, *b, epsilon = 1e-8);
    }
}

/// A rotation about z built from an angle, times a vector: `‖R(t) v − target‖²`.
#[reverse]
fn rotated_miss(t: f64, v: Vector3<f64>, target: Vector3<f64>) -> f64 {
    let (s, c) = (t.sin(), t.cos());
    let r = Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0);
    (r * v - target).norm_squared()
}

#[test]
fn a_built_matrix_times_a_vector_matches_finite_differences() {
    let (t, v, target) = (
        0.4,
        Vector3::new(1.0, -0.5, 2.0),
        Vector3::new(0.3, 0.9, 1.7),
    );
    let f = |p: &[f64]| {
        let (s, c) = (p[0].sin(), p[0].cos());
        let r = Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0);
        (r * Vector3::new(p[1], p[2], p[3]) - target).norm_squared()
    };
    let (value, (dt, dv, dtarget)) = rotated_miss_grad(t, v, target);
    let p = [t, v[0], v[1], v[2]];
    assert_eq!(value.to_bits(), rotated_miss(t, v, target).to_bits());
    assert_relative_eq!(value, f(&p), epsilon = 1e-14);
    let g = fd(f, &p);
    assert_relative_eq!(dt, g[0], epsilon = 1e-7);
    for k in 0..3 {
        assert_relative_eq!(dv[k], g[k + 1], epsilon = 1e-7);
    }
    // ∂/∂target = −2 (R v − target); a rotation keeps lengths, so ∂/∂v = 2 Rᵀ(R v − target).
    let (s, c) = (t.sin(), t.cos());
    let r = Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0);
    let miss = r * v - target;
    assert_relative_eq!(dtarget, -2.0 * miss, epsilon = 1e-14);
    assert_relative_eq!(dv, 2.0 * r.transpose() * miss, epsilon = 1e-14);
}

/// A rectangular matrix: its arguments are row by row, its storage column by column.
#[reverse]
fn rectangular(a: f64, b: f64, v: Vector3<f64>) -> Vector2<f64> {
    let m = Matrix2x3::new(a, 2.0 * a, 3.0 * a, b, b * b, 0.5);
    m * v
}

#[test]
fn a_rectangular_matrix_is_built_row_by_row() {
    let (a, b, v) = (0.8, -1.1, Vector3::new(0.5, 1.5, -2.0));
    // m v = (a (v0 + 2 v1 + 3 v2), b v0 + b² v1 + 0.5 v2).
    for k in 0..2 {
        let seed = if k == 0 {
            Vector2::new(1.0, 0.0)
        } else {
            Vector2::new(0.0, 1.0)
        };
        let (y, (da, db, dv)) = rectangular_vjp(a, b, v, seed);
        assert_eq!(y, rectangular(a, b, v));
        assert_eq!(y, Matrix2x3::new(a, 2.0 * a, 3.0 * a, b, b * b, 0.5) * v);
        if k == 0 {
            assert_relative_eq!(da, v[0] + 2.0 * v[1] + 3.0 * v[2], epsilon = 1e-15);
            assert_eq!(db, 0.0);
            assert_relative_eq!(dv, Vector3::new(a, 2.0 * a, 3.0 * a), epsilon = 1e-15);
        } else {
            assert_eq!(da, 0.0);
            assert_relative_eq!(db, v[0] + 2.0 * b * v[1], epsilon = 1e-15);
            assert_relative_eq!(dv, Vector3::new(b, b * b, 0.5), epsilon = 1e-15);
        }
    }
}

/// Built in a loop (kept for the reverse sweep), in single precision: `sum_k ‖M_k u‖²` with
/// `M_k = [[x, k], [k y, x y]]`.
#[reverse]
fn looped(x: f32, y: f32, u: Vector2<f32>, n: usize) -> f32 {
    let mut e = 0.0;
    for k in 0..n {
        let kf = k as f32;
        let m = Matrix2::new(x, kf, kf * y, x * y);
        let w = m * u;
        e += w.norm_squared();
    }
    e
}

#[test]
fn built_inside_a_loop_in_single_precision() {
    let (x, y, u) = (0.6_f32, -0.9_f32, Vector2::new(1.2_f32, 0.3));
    let (e, (dx, dy, du)) = looped_grad(x, y, u, 4);
    assert_eq!(e.to_bits(), looped(x, y, u, 4).to_bits());
    let (mut ex, mut ey, mut eu) = (0.0_f64, 0.0_f64, Vector2::<f64>::zeros());
    let (x, y, u) = (f64::from(x), f64::from(y), u.cast::<f64>());
    for k in 0..4 {
        let k = f64::from(k);
        let w0 = x * u[0] + k * u[1];
        let w1 = k * y * u[0] + x * y * u[1];
        ex += 2.0 * w0 * u[0] + 2.0 * w1 * y * u[1];
        ey += 2.0 * w1 * (k * u[0] + x * u[1]);
        eu += Vector2::new(
            2.0 * w0 * x + 2.0 * w1 * k * y,
            2.0 * w0 * k + 2.0 * w1 * x * y,
        );
    }
    assert_relative_eq!(f64::from(dx), ex, max_relative = 1e-5);
    assert_relative_eq!(f64::from(dy), ey, max_relative = 1e-5);
    assert_relative_eq!(du.cast::<f64>(), eu, max_relative = 1e-5);
}

/// Through a path (`na::Vector3`) and a method on the constructor's result.
#[reverse]
fn poly(x: f64) -> f64 {
    na::Vector3::new(x, x * x, 1.0).norm_squared()
}

/// A built vector scaled and returned, to a caller.
#[reverse]
fn scaled(x: f64) -> Vector3<f64> {
    let v = Vector3::new(x, 1.0, 2.0);
    v * x
}

/// The two through their split companions: `x² + x⁴ + 1 + ‖(x², x, 2x)‖`.
#[reverse]
fn callers(x: f64) -> f64 {
    let v = scaled(x);
    poly(x) + v.norm()
}

#[test]
fn built_vectors_through_callers() {
    let x = 0.5_f64;
    let (y, d) = callers_grad(x);
    assert_eq!(y.to_bits(), callers(x).to_bits());
    let n = (x.powi(4) + 5.0 * x * x).sqrt();
    assert_relative_eq!(y, x * x + x.powi(4) + 1.0 + n, epsilon = 1e-15);
    let expect = 2.0 * x + 4.0 * x.powi(3) + (4.0 * x.powi(3) + 10.0 * x) / (2.0 * n);
    assert_relative_eq!(d, expect, epsilon = 1e-14);
    assert_relative_eq!(d, fd(|p| callers(p[0]), &[x])[0], epsilon = 1e-8);
}
