//! `#[reverse(hessian)]`: Hessian-vector products, Hessians and their diagonals by forward
//! over reverse, against closed forms and against central finite differences of `NAME_grad`.
#![allow(
    clippy::needless_range_loop,
    reason = "the forms under test are written as users write them"
)]

use revad::reverse;

/// Pearlmutter & Siskind's example: f(x, y) = 2x² + 3xy + 4y².
#[reverse(hessian)]
fn quadratic(x: f64, y: f64) -> f64 {
    2.0 * x * x + 3.0 * x * y + 4.0 * y * y
}

#[test]
fn pearlmutter_siskind_hessian_vector_product() {
    let (value, (gx, gy), (hx, hy)) = quadratic_hvp(3.0, 4.0, 7.0, 8.0);
    assert_eq!(value, 18.0 + 36.0 + 64.0);
    assert_eq!((gx, gy), (4.0 * 3.0 + 3.0 * 4.0, 3.0 * 3.0 + 8.0 * 4.0));
    assert_eq!((hx, hy), (52.0, 85.0));
    let (_, _, h) = quadratic_hessian(3.0, 4.0);
    assert_eq!(h, vec![vec![4.0, 3.0], vec![3.0, 8.0]]);
    let (_, _, d) = quadratic_hessian_diag(3.0, 4.0);
    assert_eq!(d, vec![4.0, 8.0]);
}

#[reverse(hessian)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
}

/// The Hessian by central differences of a gradient.
fn fd_hessian(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let h = 1e-5;
    (0..x.len())
        .map(|j| {
            let mut up = x.to_vec();
            let mut down = x.to_vec();
            up[j] += h;
            down[j] -= h;
            let (gu, gd) = (grad(&up), grad(&down));
            gu.iter()
                .zip(&gd)
                .map(|(a, b)| (a - b) / (2.0 * h))
                .collect()
        })
        .collect()
}

/// The gradient by central differences of the primal: ties the `_grad` that `fd_hessian`
/// differentiates to the function itself.
fn fd_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|j| {
            let mut up = x.to_vec();
            let mut down = x.to_vec();
            up[j] += h;
            down[j] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

fn assert_close(a: &[Vec<f64>], b: &[Vec<f64>], tol: f64) {
    for (ra, rb) in a.iter().zip(b) {
        for (x, y) in ra.iter().zip(rb) {
            assert!(
                (x - y).abs() <= tol * (1.0 + x.abs().max(y.abs())),
                "{a:?}\n{b:?}"
            );
        }
    }
}

#[test]
fn rosenbrock_hessian_against_finite_differences_of_the_gradient() {
    let x = [-1.2, 1.0, 0.3, 0.8];
    let (value, g, h) = rosenbrock_hessian(&x);
    assert_eq!(value, rosenbrock(&x));
    assert_eq!(g, rosenbrock_grad(&x).1);
    let fd = fd_hessian(|p| rosenbrock_grad(p).1, &x);
    assert_close(&h, &fd, 1e-6);
    // Closed form of the 2-D entries: ∂²/∂x0² = 2 - 400 (x1 - x0²) + 800 x0².
    let x0: f64 = -1.2;
    assert!((h[0][0] - (2.0 - 400.0 * (1.0 - x0 * x0) + 800.0 * x0 * x0)).abs() < 1e-9);
    assert_eq!(h[0][1], -400.0 * x0);
    // Symmetric, and the diagonal agrees.
    for i in 0..4 {
        for j in 0..4 {
            assert!((h[i][j] - h[j][i]).abs() < 1e-9);
        }
    }
    let (_, _, d) = rosenbrock_hessian_diag(&x);
    assert_eq!(d, (0..4).map(|i| h[i][i]).collect::<Vec<_>>());
}

/// A one-hidden-layer perceptron's squared loss on one example; the weights are flat.
#[reverse(hessian, wrt(w1, w2))]
fn mlp_loss(w1: &[f64], w2: &[f64], x: &[f64], target: f64) -> f64 {
    let hidden = w2.len();
    let mut out = 0.0;
    for j in 0..hidden {
        let mut z = 0.0;
        for i in 0..x.len() {
            z += w1[j * x.len() + i] * x[i];
        }
        out += w2[j] * z.tanh();
    }
    let e = out - target;
    0.5 * e * e
}

#[test]
fn mlp_loss_hessian_against_finite_differences_of_the_gradient() {
    let x = [0.5, -1.0, 0.25];
    let w1: Vec<f64> = (0..6).map(|k| 0.3 * (k as f64) - 0.7).collect();
    let w2 = [0.8, -0.4];
    let (value, g, h) = mlp_loss_hessian(&w1, &w2, &x, 0.3);
    assert_eq!(h.len(), 8);
    // The gradient that the finite differences below differentiate, against the primal's.
    assert_eq!(value, mlp_loss(&w1, &w2, &x, 0.3));
    let flat = [w1.clone(), w2.to_vec()].concat();
    let primal_fd = fd_gradient(|p| mlp_loss(&p[..6], &p[6..], &x, 0.3), &flat);
    assert_close(&[[g.0, g.1.to_vec()].concat()], &[primal_fd], 1e-7);
    let fd = fd_hessian(
        |p| {
            let (_, (g1, g2)) = mlp_loss_grad(&p[..6], &p[6..], &x, 0.3);
            [g1, g2].concat()
        },
        &[w1.clone(), w2.to_vec()].concat(),
    );
    assert_close(&h, &fd, 1e-6);
    // An H·v against the Hessian times v.
    let v1: Vec<f64> = (0..6).map(|k| (k as f64).sin()).collect();
    let v2 = [1.0, -2.0];
    let (_, _, (hv1, hv2)) = mlp_loss_hvp(&w1, &w2, &x, 0.3, &v1, &v2);
    let v = [v1.clone(), v2.to_vec()].concat();
    let hv = [hv1, hv2.to_vec()].concat();
    for i in 0..8 {
        let expected: f64 = (0..8).map(|j| h[i][j] * v[j]).sum();
        assert!((hv[i] - expected).abs() < 1e-12 * (1.0 + expected.abs()));
    }
}

#[reverse(hessian, wrt(y))]
fn only_y(x: f64, y: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    for k in 0..n {
        acc += (x * y).sin() * (k as f64 + 1.0);
    }
    acc * std::f64::consts::PI
}

#[test]
fn wrt_loops_casts_and_constants() {
    let (x, y) = (0.7, 1.3);
    let (_, dy, h) = only_y_hessian(x, y, 3);
    let s = 6.0 * std::f64::consts::PI;
    assert!((dy - s * x * (x * y).cos()).abs() < 1e-12);
    assert!((h[0][0] + s * x * x * (x * y).sin()).abs() < 1e-12);
}

#[reverse(hessian)]
fn single(x: f32) -> f32 {
    x.powi(3) + x.exp()
}

#[test]
fn single_precision() {
    let (_, g, h) = single_hessian(0.5);
    assert!((g - (0.75 + 0.5f32.exp())).abs() < 1e-6);
    assert!((h[0][0] - (3.0 + 0.5f32.exp())).abs() < 1e-5);
}

/// A float converted to an integer through `revad::Float::to_f64`, which the generic copy for
/// second derivatives can do (a plain `x as usize` is rejected, with this advice).
#[reverse(hessian)]
fn stepped(x: f64, w: &[f64]) -> f64 {
    let k = revad::Float::to_f64(x * 2.0) as usize;
    w[k.min(w.len() - 1)] * x * x
}

#[test]
fn float_to_integer_through_to_f64() {
    let w = [1.0, 10.0, 100.0];
    let (v, (dx, _), h) = stepped_hessian(0.75, &w);
    assert_eq!(v, 10.0 * 0.75 * 0.75);
    assert_eq!(dx, 20.0 * 0.75);
    assert_eq!(h[0][0], 20.0);
    assert_eq!(h[0][2], 2.0 * 0.75);
}

/// A function generic over its float type: its second derivatives are of its `f64` instance.
#[reverse(hessian)]
fn generic_quadratic<T: revad::Float>(p: &[T]) -> T {
    let mut s = T::ZERO;
    for i in 0..p.len() {
        s += T::from_f64(i as f64 + 1.0) * p[i] * p[i] * p[i];
    }
    s
}

#[test]
fn generic_functions_at_f64() {
    let p = [1.0, -2.0, 0.5];
    let (v, g, h) = generic_quadratic_hessian(&p);
    assert_eq!(v, generic_quadratic(&p));
    assert_eq!(g, generic_quadratic_grad(&p).1);
    for i in 0..3 {
        for j in 0..3 {
            let expected = if i == j {
                6.0 * (i as f64 + 1.0) * p[i]
            } else {
                0.0
            };
            assert_eq!(h[i][j], expected);
        }
    }
    // And still generic for the first derivative.
    let (_, g32) = generic_quadratic_grad(&[1.0_f32, 2.0, 3.0]);
    assert_eq!(g32, vec![3.0, 24.0, 81.0]);
}

const GRAVITY: f64 = 9.81;
const STEPS: usize = 4;

mod physics {
    pub const DAMPING: f64 = 0.5;
}

/// Constants of the module used as floats are converted like literals in the generic copy
/// (and an integer constant stays an integer).
#[reverse(hessian)]
fn with_constants(x: f64, v: f64) -> f64 {
    let mut h = x;
    let mut u = v;
    for _ in 0..STEPS {
        u -= GRAVITY * 0.1 + physics::DAMPING * u * u;
        h += u * 0.1;
    }
    let g = GRAVITY;
    h * h + g
}

#[test]
fn module_constants_in_the_generic_copy() {
    let (x, v) = (2.0, 1.5);
    let (value, (gx, gv), h) = with_constants_hessian(x, v);
    assert_eq!(value, with_constants(x, v));
    assert_eq!((gx, gv), with_constants_grad(x, v).1);
    let primal_fd = fd_gradient(|p| with_constants(p[0], p[1]), &[x, v]);
    assert_close(&[vec![gx, gv]], &[primal_fd], 1e-7);
    let step = 1e-5;
    let fd = |dx: f64, dv: f64| {
        let (_, (a, b)) = with_constants_grad(x + dx, v + dv);
        let (_, (c, d)) = with_constants_grad(x - dx, v - dv);
        [(a - c) / (2.0 * step), (b - d) / (2.0 * step)]
    };
    let (col0, col1) = (fd(step, 0.0), fd(0.0, step));
    for (i, row) in h.iter().enumerate() {
        assert!(
            (row[0] - col0[i]).abs() < 1e-6 * (1.0 + col0[i].abs()),
            "{h:?}"
        );
        assert!(
            (row[1] - col1[i]).abs() < 1e-6 * (1.0 + col1[i].abs()),
            "{h:?}"
        );
    }
}

const LEN: usize = 3;
const WEIGHTS: [f64; LEN] = [1.0, 2.0, 0.5];

/// Integer constants in an array length, a range and a pattern stay integers; a constant
/// array of floats is converted.
#[reverse(hessian)]
fn constant_shapes(x: f64) -> f64 {
    let mut a = [0.0; LEN];
    for i in 0..LEN {
        a[i] = WEIGHTS[i] * x * x;
    }
    let k = match LEN {
        LEN => 1.0,
        _ => 2.0,
    };
    a[0] + a[1] + a[2] * k
}

#[test]
fn integer_constants_stay_integers() {
    let (v, d, h) = constant_shapes_hessian(2.0);
    assert_eq!(v, 3.5 * 4.0);
    assert_eq!(d, 3.5 * 4.0);
    assert_eq!(h, vec![vec![7.0]]);
}

/// An `#[allow(..)]` on the function reaches every generated function (clippy runs on the
/// tests with `-D warnings`: eight parameters are too many without it).
#[revad::reverse(hessian)]
#[revad::forward(vector)]
#[allow(clippy::too_many_arguments)]
fn eight(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64, h: f64) -> f64 {
    a * b + c * d + e * f + g * h
}

#[test]
fn allow_attributes_reach_generated_functions() {
    let (_, _, hessian) = eight_hessian(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    assert_eq!(hessian[0][1], 1.0);
    assert_eq!(hessian[0][0], 0.0);
    let (_, jacobian) = eight_jacobian(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    assert_eq!(jacobian[0], vec![2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0]);
}

/// Items read by reference (`.iter()` with `|a|`, `for v in x.iter()`) are multiplied as
/// references (`&a * &a`, `v * v` of `&f64`s), which `f64` allows: the Hessian's copy runs them on dual
/// numbers. Σ a³ + Σ_i v_i·v_i·x_0 has the closed-form gradient and Hessian below.
#[reverse(hessian)]
fn cubes_by_reference(x: &[f64]) -> f64 {
    let cubes = x.iter().map(|a| a * a * a).sum::<f64>();
    let mut s = 0.0;
    for v in x.iter() {
        s += v * v;
    }
    let t = x[0] * x[0];
    cubes + s * x[0] + t + x[1]
}

#[test]
fn items_read_by_reference_under_hessian() {
    let x = [0.7, -1.3, 2.1];
    let (value, g, h) = cubes_by_reference_hessian(&x);
    let sq: f64 = x.iter().map(|a| a * a).sum();
    let cubes: f64 = x.iter().map(|a| a * a * a).sum();
    assert_eq!(value, cubes_by_reference(&x));
    approx::assert_relative_eq!(
        value,
        cubes + sq * x[0] + x[0] * x[0] + x[1],
        max_relative = 1e-14
    );
    for i in 0..3 {
        // ∂/∂x_i: 3x_i² + 2x_i·x_0 (+ sq + 2x_0 for i = 0, + 1 for i = 1).
        let mut gi = 3.0 * x[i] * x[i] + 2.0 * x[i] * x[0];
        if i == 0 {
            gi += sq + 2.0 * x[0];
        }
        if i == 1 {
            gi += 1.0;
        }
        approx::assert_relative_eq!(g[i], gi, max_relative = 1e-13);
        for j in 0..3 {
            let mut hij = if i == j { 6.0 * x[i] + 2.0 * x[0] } else { 0.0 };
            if j == 0 {
                hij += 2.0 * x[i];
            }
            if i == 0 {
                hij += 2.0 * x[j];
            }
            if i == 0 && j == 0 {
                hij += 2.0;
            }
            approx::assert_relative_eq!(h[i][j], hij, max_relative = 1e-13, epsilon = 1e-13);
        }
    }
}

/// A sort by `total_cmp` (the float trait's, on the dual numbers of the second derivative).
#[revad::reverse(hessian)]
fn product_of_two_smallest(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[0] * v[1]
}

/// An element of a `Vec` updated from another element of it (`v[1] -= f * v[0]`, as in
/// elimination).
#[revad::reverse(hessian)]
fn eliminated(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v[1] -= x[0] * v[0];
    v[1] * v[1]
}

#[test]
fn hessians_of_sorts_and_updates_in_place() {
    let (v, g, h) = product_of_two_smallest_hessian(&[3.0, 1.0, 2.0]);
    assert_eq!((v, g), (2.0, vec![0.0, 2.0, 1.0]));
    assert_eq!(
        h,
        vec![vec![0.0; 3], vec![0.0, 0.0, 1.0], vec![0.0, 1.0, 0.0]]
    );
    // (x1 - x0²)²
    let (v, g, h) = eliminated_hessian(&[3.0, 1.0]);
    assert_eq!((v, g), (64.0, vec![96.0, -16.0]));
    assert_eq!(h, vec![vec![2.0 * 36.0 + 32.0, -12.0], vec![-12.0, 2.0]]);
}

/// A recursive function: `x^n`, each call the copy's own.
#[reverse(hessian)]
fn power_by_recursion(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power_by_recursion(x, n - 1)
    }
}

/// `%=`, integer literals of a float type (`10f64`, `3f64`), a suffixed literal.
#[reverse(hessian)]
fn remainders_and_literals(x: f64, y: f64) -> f64 {
    let mut z = x * 3.0;
    z %= 2.0;
    z * x + 10f64.ln() * y * y + 3f64 * y + 0.5f64 * x * y
}

/// `f32` with suffixed literals, a cast of an integer and `f32::NEG_INFINITY`.
#[reverse(hessian)]
fn in_f32(x: f32, y: f32, k: usize) -> f32 {
    0.5f32 * x * y + 2.0 * x * x + 0.1f32 * (k as f32) * y * y
}

#[reverse(hessian)]
fn log_sum_exp_f32(x: &[f32]) -> f32 {
    let m = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    m + x.iter().map(|&v| (v - m).exp()).sum::<f32>().ln()
}

#[test]
fn recursion_remainders_literals_and_f32_constants() {
    for n in 0..4 {
        let (v, g, h) = power_by_recursion_hessian(1.5, n);
        let n_f = f64::from(n);
        assert_eq!(v.to_bits(), power_by_recursion(1.5, n).to_bits());
        assert_relative_eq(g, n_f * 1.5f64.powi(n as i32 - 1));
        assert_relative_eq(h[0][0], n_f * (n_f - 1.0) * 1.5f64.powi(n as i32 - 2));
    }
    // z = 3x - 2 near x = 0.9: z x = 3x² - 2x.
    let (x, y) = (0.9, 1.3);
    let (v, (gx, gy), h) = remainders_and_literals_hessian(x, y);
    assert_eq!(v.to_bits(), remainders_and_literals(x, y).to_bits());
    let ln10 = 10f64.ln();
    assert_relative_eq(gx, 6.0 * x - 2.0 + 0.5 * y);
    assert_relative_eq(gy, 2.0 * ln10 * y + 3.0 + 0.5 * x);
    assert_relative_eq(h[0][0], 6.0);
    assert_relative_eq(h[0][1], 0.5);
    assert_relative_eq(h[1][0], 0.5);
    assert_relative_eq(h[1][1], 2.0 * ln10);

    let (v, (gx, gy), h) = in_f32_hessian(1.0, 2.0, 3);
    assert_eq!(v.to_bits(), in_f32(1.0, 2.0, 3).to_bits());
    let c = 0.1f32 * 3.0;
    assert_eq!((gx, gy), (0.5 * 2.0 + 4.0, 0.5 + 2.0 * c * 2.0));
    assert_eq!(h, vec![vec![4.0, 0.5], vec![0.5, 2.0 * c]]);

    let x = [1.0f32, 2.0];
    let (v, g, h) = log_sum_exp_f32_hessian(&x);
    assert_eq!(v.to_bits(), log_sum_exp_f32(&x).to_bits());
    // The softmax p and its Jacobian diag(p) - p pᵀ.
    let e = [(-1.0f32).exp(), 1.0];
    let p = [e[0] / (e[0] + e[1]), e[1] / (e[0] + e[1])];
    for i in 0..2 {
        assert!((g[i] - p[i]).abs() < 1e-6, "{g:?} vs {p:?}");
        for j in 0..2 {
            let d = if i == j { p[i] } else { 0.0 } - p[i] * p[j];
            assert!((h[i][j] - d).abs() < 1e-6, "{h:?}");
        }
    }
}

fn assert_relative_eq(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
}
