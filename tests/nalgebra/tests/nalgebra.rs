//! `nalgebra`'s fixed-size vectors and matrices as active values (feature `nalgebra`, on
//! for this package through its dev-dependency on `revad`): gradients of their arithmetic,
//! checked against closed forms and central finite differences.

use approx::assert_relative_eq;
use nalgebra::{Matrix2, Matrix3, Vector3};
use revad::reverse;

/// Central finite differences of `f` along every element of a matrix `x`.
fn fd<const R: usize, const C: usize>(
    f: impl Fn(&nalgebra::SMatrix<f64, R, C>) -> f64,
    x: &nalgebra::SMatrix<f64, R, C>,
) -> nalgebra::SMatrix<f64, R, C> {
    let h = 1e-6;
    let mut g = nalgebra::SMatrix::<f64, R, C>::zeros();
    for i in 0..R {
        for j in 0..C {
            let (mut a, mut b) = (*x, *x);
            a[(i, j)] += h;
            b[(i, j)] -= h;
            g[(i, j)] = (f(&a) - f(&b)) / (2.0 * h);
        }
    }
    g
}

fn m0() -> Matrix3<f64> {
    Matrix3::new(1.0, 2.0, -0.5, 0.3, -1.2, 2.2, 0.7, 0.1, 1.5)
}

#[reverse]
fn bilinear(m: Matrix3<f64>, v: Vector3<f64>, w: Vector3<f64>) -> f64 {
    (m * v).dot(&w)
}

#[test]
fn bilinear_form_has_closed_form_gradients() {
    let (m, v, w) = (
        m0(),
        Vector3::new(0.5, -1.0, 2.0),
        Vector3::new(1.5, 0.25, -0.75),
    );
    let (y, (dm, dv, dw)) = bilinear_grad(m, v, w);
    assert_relative_eq!(y, w.dot(&(m * v)), epsilon = 1e-12);
    // ∂(wᵀ M v)/∂M = w vᵀ, /∂v = Mᵀ w, /∂w = M v.
    assert_relative_eq!(dm, w * v.transpose(), epsilon = 1e-12);
    assert_relative_eq!(dv, m.transpose() * w, epsilon = 1e-12);
    assert_relative_eq!(dw, m * v, epsilon = 1e-12);
}

#[reverse]
fn scaled_sum_norm(a: Vector3<f64>, b: Vector3<f64>) -> f64 {
    (a + b * 2.0).norm()
}

#[test]
fn norm_of_a_scaled_sum_matches_the_closed_form() {
    let (a, b) = (Vector3::new(1.0, -2.0, 0.5), Vector3::new(0.3, 0.4, -1.1));
    let (y, (da, db)) = scaled_sum_norm_grad(a, b);
    let u = a + b * 2.0;
    assert_relative_eq!(y, u.norm(), epsilon = 1e-12);
    assert_relative_eq!(da, u / u.norm(), epsilon = 1e-12);
    assert_relative_eq!(db, u * 2.0 / u.norm(), epsilon = 1e-12);
}

/// The energy of a spring of rest length `l` and stiffness `k` between two masses.
#[reverse]
fn spring(p: &Vector3<f64>, q: &Vector3<f64>, k: f64, l: f64) -> f64 {
    let d = p - q;
    let stretch = d.norm() - l;
    0.5 * k * stretch * stretch
}

#[test]
fn spring_energy_gives_opposite_forces() {
    let (p, q) = (Vector3::new(1.0, 2.0, 0.5), Vector3::new(-0.5, 1.0, 2.0));
    let (e, (dp, dq, dk, dl)) = spring_grad(&p, &q, 3.0, 1.2);
    let d = p - q;
    let s = d.norm() - 1.2;
    assert_relative_eq!(e, 1.5 * s * s, epsilon = 1e-12);
    assert_relative_eq!(dp, d * (3.0 * s / d.norm()), epsilon = 1e-12);
    assert_relative_eq!(dq, -dp, epsilon = 1e-12);
    assert_relative_eq!(dk, 0.5 * s * s, epsilon = 1e-12);
    assert_relative_eq!(dl, -3.0 * s, epsilon = 1e-12);
}

#[reverse]
fn cross_area(a: Vector3<f64>, b: Vector3<f64>) -> f64 {
    a.cross(&b).norm_squared()
}

#[test]
fn squared_cross_product_matches_finite_differences() {
    let (a, b) = (Vector3::new(1.0, 0.2, -0.4), Vector3::new(-0.3, 0.8, 1.1));
    let (y, (da, db)) = cross_area_grad(a, b);
    assert_relative_eq!(y, a.cross(&b).norm_squared(), epsilon = 1e-12);
    // ‖a × b‖² = ‖a‖²‖b‖² − (a·b)²: ∂/∂a = 2‖b‖² a − 2(a·b) b.
    let closed = a * (2.0 * b.norm_squared()) - b * (2.0 * a.dot(&b));
    assert_relative_eq!(da, closed, epsilon = 1e-10);
    assert_relative_eq!(da, fd(|a| a.cross(&b).norm_squared(), &a), epsilon = 1e-6);
    assert_relative_eq!(db, fd(|b| a.cross(b).norm_squared(), &b), epsilon = 1e-6);
}

#[reverse]
fn quadratic(m: Matrix3<f64>, x: Vector3<f64>) -> f64 {
    let y = m.transpose() * m * x;
    x.dot(&y) - m.norm_squared() / 4.0
}

#[test]
fn matrix_parameter_has_a_matrix_gradient() {
    let (m, x) = (m0(), Vector3::new(0.4, -0.6, 1.3));
    let f = |m: &Matrix3<f64>, x: &Vector3<f64>| {
        x.dot(&(m.transpose() * m * x)) - m.norm_squared() / 4.0
    };
    let (y, (dm, dx)) = quadratic_grad(m, x);
    assert_relative_eq!(y, f(&m, &x), epsilon = 1e-12);
    // xᵀMᵀMx = ‖Mx‖²: ∂/∂M = 2 M x xᵀ; ∂(‖M‖²/4)/∂M = M/2.
    assert_relative_eq!(dm, m * x * x.transpose() * 2.0 - m / 2.0, epsilon = 1e-10);
    assert_relative_eq!(dm, fd(|m| f(m, &x), &m), epsilon = 1e-6);
    assert_relative_eq!(dx, fd(|x| f(&m, x), &x), epsilon = 1e-6);
}

#[reverse]
fn powers(m: Matrix3<f64>, v: Vector3<f64>, n: usize) -> f64 {
    let mut e = 0.0;
    for k in 0..n {
        let u = m * v * (k as f64 + 1.0);
        e += u.norm_squared() + u[0] * u.y;
    }
    e
}

#[test]
fn operation_inside_a_loop_matches_finite_differences() {
    let (m, v) = (m0(), Vector3::new(1.0, -0.5, 0.25));
    let f = |m: &Matrix3<f64>, v: &Vector3<f64>| {
        let mut e = 0.0;
        for k in 0..4 {
            let u = m * v * (k as f64 + 1.0);
            e += u.norm_squared() + u[0] * u[1];
        }
        e
    };
    let (y, (dm, dv)) = powers_grad(m, v, 4);
    assert_relative_eq!(y, f(&m, &v), epsilon = 1e-10);
    assert_relative_eq!(
        dm,
        fd(|m| f(m, &v), &m),
        epsilon = 1e-5,
        max_relative = 1e-7
    );
    assert_relative_eq!(
        dv,
        fd(|v| f(&m, v), &v),
        epsilon = 1e-5,
        max_relative = 1e-7
    );
}

#[reverse]
fn affine(m: Matrix3<f64>, v: Vector3<f64>, s: f64) -> Vector3<f64> {
    -(m * v) + v * s
}

#[test]
fn vector_result_through_vjp() {
    let (m, v, s) = (m0(), Vector3::new(0.2, 0.9, -1.4), 1.7);
    let seed = Vector3::new(1.0, -2.0, 0.5);
    let (y, (dm, dv, ds)) = affine_vjp(m, v, s, seed);
    assert_relative_eq!(y, -(m * v) + v * s, epsilon = 1e-12);
    // seedᵀ(−M v + s v): ∂/∂M = −seed vᵀ, ∂/∂v = −Mᵀ seed + s seed, ∂/∂s = seed·v.
    assert_relative_eq!(dm, -(seed * v.transpose()), epsilon = 1e-12);
    assert_relative_eq!(dv, -(m.transpose() * seed) + seed * s, epsilon = 1e-12);
    assert_relative_eq!(ds, seed.dot(&v), epsilon = 1e-12);
}

#[reverse]
fn kinetic(v: Vector3<f64>, mass: f64) -> f64 {
    let p = mass * v;
    let e = p.dot(&v) / 2.0;
    e + v.x * 0.0
}

#[test]
fn scalar_times_vector_and_element_reads() {
    let v = Vector3::new(0.3, -1.2, 2.0);
    let (e, (dv, dmass)) = kinetic_grad(v, 1.5);
    assert_relative_eq!(e, 0.75 * v.norm_squared(), epsilon = 1e-12);
    assert_relative_eq!(dv, v * 1.5, epsilon = 1e-12);
    assert_relative_eq!(dmass, v.norm_squared() / 2.0, epsilon = 1e-12);
}

#[reverse]
fn difference_quotient(a: Vector3<f64>, b: Vector3<f64>, t: f64) -> f64 {
    let d = (a - b) / t;
    d[0] * d[1] + d.z
}

#[test]
fn division_by_a_scalar_matches_finite_differences() {
    let (a, b, t) = (
        Vector3::new(1.0, 2.0, 3.0),
        Vector3::new(0.5, -0.5, 1.0),
        0.8,
    );
    let f = |a: &Vector3<f64>, b: &Vector3<f64>, t: f64| {
        let d = (a - b) / t;
        d[0] * d[1] + d[2]
    };
    let (y, (da, db, dt)) = difference_quotient_grad(a, b, t);
    assert_relative_eq!(y, f(&a, &b, t), epsilon = 1e-12);
    assert_relative_eq!(da, fd(|a| f(a, &b, t), &a), epsilon = 1e-6);
    assert_relative_eq!(db, -da, epsilon = 1e-12);
    let h = 1e-6;
    assert_relative_eq!(
        dt,
        (f(&a, &b, t + h) - f(&a, &b, t - h)) / (2.0 * h),
        epsilon = 1e-6
    );
}

#[reverse]
fn entries(m: &Matrix2<f64>, i: usize) -> f64 {
    m[(0, 1)] * 2.0 + m[(i, 0)]
}

/// `m[(row, column)]` reads one entry, and its adjoint is that entry of the gradient matrix.
#[test]
fn entries_by_row_and_column() {
    let m = Matrix2::new(1.0, 2.0, 3.0, 4.0);
    let (v, d) = entries_grad(&m, 1);
    assert_eq!(v, 2.0 * 2.0 + 3.0);
    assert_eq!(d, Matrix2::new(0.0, 2.0, 1.0, 0.0));
}

/// A generic function bounded by `nalgebra::RealField`, as nalgebra's users write them:
/// differentiated where it is instantiated at `f64` and `f32` (the generated functions add
/// `T: revad::Float`). Constants by `FromPrimitive` (`T::from_f64(0.5).unwrap()`) and `One`.
#[reverse]
fn soft_plus<T: nalgebra::RealField + Copy>(x: T, y: T) -> T {
    let half = T::from_f64(0.5).unwrap();
    if x.abs() > half {
        (T::one() + (x * y).exp()).ln() * half
    } else {
        x.sin() * y
    }
}

#[test]
fn real_field_generics_at_both_precisions() {
    // |x| > 0.5: ½ ln(1 + e^{xy}), whose partials are ½ σ(xy)·(y, x).
    let (x, y) = (0.8_f64, -1.3);
    let s = 1.0 / (1.0 + (-x * y).exp());
    let (v, (dx, dy)) = soft_plus_grad(x, y);
    assert_eq!(v.to_bits(), soft_plus(x, y).to_bits());
    assert_relative_eq!(dx, 0.5 * s * y, epsilon = 1e-15);
    assert_relative_eq!(dy, 0.5 * s * x, epsilon = 1e-15);
    // |x| <= 0.5: sin(x) y.
    let (_, (dx, dy)) = soft_plus_grad(0.3_f64, y);
    assert_relative_eq!(dx, 0.3_f64.cos() * y, epsilon = 1e-15);
    assert_relative_eq!(dy, 0.3_f64.sin(), epsilon = 1e-15);
    let (v, (dx, _)) = soft_plus_grad(0.3_f32, -1.3);
    assert_eq!(v.to_bits(), soft_plus(0.3_f32, -1.3).to_bits());
    assert_relative_eq!(dx, 0.3_f32.cos() * -1.3, epsilon = 1e-6);
}
