//! Small programs in the style of other AD systems' test suites (JAX's `jvp`, `jacfwd`,
//! `jacrev`, `hessian` and `grad(grad(f))`, ForwardDiff.jl and Zygote.jl, PyTorch's
//! `gradcheck`/`hessian`, the num-dual and autodiff crates, Siskind & Pearlmutter's nested-AD
//! examples), written as a Rust user would write them with `#[revad::forward]`,
//! `#[revad::reverse(hessian)]`, nested calls and function arguments.
//!
//! Every derivative is checked against a hand-derived closed form, central finite differences
//! of the primal, or the other mode; every value against the plain function, bit for bit.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::excessive_precision,
    clippy::unnecessary_cast,
    reason = "the programs are written as users write them"
)]

use revad::{forward, reverse, Float, Lanes};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[track_caller]
fn assert_close(a: f64, b: f64, tol: f64) {
    assert!(close(a, b, tol), "{a} vs {b}");
}

#[track_caller]
fn assert_all_close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!(close(*x, *y, tol), "{a:?} vs {b:?}");
    }
}

#[track_caller]
fn assert_matrix_close(a: &[Vec<f64>], b: &[Vec<f64>], tol: f64) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (ra, rb) in a.iter().zip(b) {
        assert_all_close(ra, rb, tol);
    }
}

/// The gradient of `f` at `x` by central differences.
fn fd_grad(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[i] += h;
            down[i] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

/// The Jacobian of a vector function by central differences, row by row over outputs.
fn fd_jacobian(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let cols: Vec<Vec<f64>> = (0..x.len())
        .map(|j| {
            let h = 1e-6 * x[j].abs().max(1.0);
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[j] += h;
            down[j] -= h;
            let (a, b) = (f(&up), f(&down));
            a.iter().zip(&b).map(|(p, q)| (p - q) / (2.0 * h)).collect()
        })
        .collect();
    (0..cols[0].len())
        .map(|i| cols.iter().map(|c| c[i]).collect())
        .collect()
}

/// The Hessian of `f` by central differences of a gradient function.
fn fd_hessian(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    fd_jacobian(grad, x)
}

// =========================================================================================
// Forward mode: JAX `jvp`, ForwardDiff `derivative`, num-dual / autodiff style scalars.

/// JAX's `jvp(sin, (x,), (t,))` test, extended: f(x) = sin(x) cos(x) + x e^{-x²}.
#[forward]
fn sin_cos(x: f64) -> f64 {
    x.sin() * x.cos() + x * (-x * x).exp()
}

#[test]
fn jvp_of_a_scalar_function() {
    for x in [-1.3, 0.0, 0.4, 2.5] {
        let (v, t) = sin_cos_jvp(x, 1.0);
        assert_eq!(v.to_bits(), sin_cos(x).to_bits());
        // cos 2x + (1 - 2x²) e^{-x²}.
        assert_close(
            t,
            (2.0 * x).cos() + (1.0 - 2.0 * x * x) * (-x * x).exp(),
            1e-14,
        );
        // Linear in the tangent.
        assert_close(sin_cos_jvp(x, -2.5).1, -2.5 * t, 1e-15);
    }
}

/// num-dual's README function: f(x) = x³ / sqrt(x) + ln(1 + x²), as `powi`, `sqrt`, `ln_1p`.
#[forward]
fn num_dual_example(x: f64) -> f64 {
    x.powi(3) / x.sqrt() + (x * x).ln_1p()
}

#[test]
fn num_dual_style_scalar() {
    for x in [0.3, 1.0, 5.0] {
        let (v, t) = num_dual_example_jvp(x, 1.0);
        assert_eq!(v.to_bits(), num_dual_example(x).to_bits());
        // d/dx x^{5/2} = 2.5 x^{3/2}; d/dx ln(1 + x²) = 2x / (1 + x²).
        assert_close(t, 2.5 * x.powf(1.5) + 2.0 * x / (1.0 + x * x), 1e-13);
    }
}

/// ForwardDiff's `derivative` of a function of two arguments along a direction (`pushforward`).
#[forward]
fn two_args(x: f64, y: f64) -> f64 {
    x.powf(y) + (x / y).atan() - y.exp() * x.cosh()
}

#[test]
fn directional_derivative_matches_finite_differences() {
    let f = |p: &[f64]| two_args(p[0], p[1]);
    for (x, y) in [(1.2, 0.7), (0.5, 2.0), (3.0, -1.0)] {
        let g = fd_grad(f, &[x, y]);
        for (tx, ty) in [(1.0, 0.0), (0.0, 1.0), (0.6, -0.8)] {
            let (v, t) = two_args_jvp(x, y, tx, ty);
            assert_eq!(v.to_bits(), two_args(x, y).to_bits());
            assert_close(t, g[0] * tx + g[1] * ty, 1e-7);
        }
    }
}

/// Horner's scheme with a `for` loop over a slice of coefficients (autodiff crate tests).
#[forward]
#[reverse]
fn horner(coeffs: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for &c in coeffs {
        acc = acc * x + c;
    }
    acc
}

#[test]
fn horner_derivative_in_x_and_in_the_coefficients() {
    let c = [2.0, -3.0, 0.5, 4.0];
    let x = 1.7;
    let (v, t) = horner_jvp(&c, x, &[0.0; 4], 1.0);
    assert_eq!(v.to_bits(), horner(&c, x).to_bits());
    assert_close(t, 6.0 * x * x - 6.0 * x + 0.5, 1e-14);
    // Tangent of the coefficients: the powers of x.
    let (_, t) = horner_jvp(&c, x, &[1.0, 1.0, 1.0, 1.0], 0.0);
    assert_close(t, x * x * x + x * x + x + 1.0, 1e-14);
    // Against reverse mode.
    let (_, (dc, dx)) = horner_grad(&c, x);
    let tc = [0.3, -0.2, 0.1, 0.9];
    let (_, t) = horner_jvp(&c, x, &tc, -0.4);
    let expected: f64 = dc.iter().zip(&tc).map(|(a, b)| a * b).sum::<f64>() - 0.4 * dx;
    assert_close(t, expected, 1e-14);
}

/// A piecewise function with `if`/`else if` (a smoothed Huber loss).
#[forward]
fn huber(x: f64, delta: f64) -> f64 {
    if x.abs() <= delta {
        0.5 * x * x
    } else if x > 0.0 {
        delta * (x - 0.5 * delta)
    } else {
        -delta * (x + 0.5 * delta)
    }
}

#[test]
fn branches_follow_the_primal() {
    let delta = 1.5;
    for (x, dx, ddelta) in [
        (0.7, 0.7, 0.0),
        (2.0, 1.5, 2.0 - 1.5),
        (-3.0, -1.5, 3.0 - 1.5),
    ] {
        let (v, t) = huber_jvp(x, delta, 1.0, 0.0);
        assert_eq!(v.to_bits(), huber(x, delta).to_bits());
        assert_eq!(t, dx);
        assert_eq!(huber_jvp(x, delta, 0.0, 1.0).1, ddelta);
    }
}

/// The Babylonian square root: a `while` loop until convergence (ForwardDiff's iterative
/// algorithms test); its derivative converges to 1 / (2 sqrt a).
#[forward]
fn babylonian(a: f64) -> f64 {
    let mut x = a.max(1.0);
    let mut iters = 0;
    while iters < 60 && (x * x - a).abs() > 1e-15 * a {
        x = 0.5 * (x + a / x);
        iters += 1;
    }
    x
}

#[test]
fn derivative_through_an_iterative_solver() {
    for a in [0.25, 2.0, 10.0, 1e4] {
        let (v, t) = babylonian_jvp(a, 1.0);
        assert_eq!(v.to_bits(), babylonian(a).to_bits());
        assert_close(v, a.sqrt(), 1e-15);
        assert_close(t, 0.5 / a.sqrt(), 1e-12);
    }
}

/// `loop` with `break` and an early `return` (bisection-free fixed point of cos).
#[forward]
fn cos_fixed_point(c: f64) -> f64 {
    let mut x = 0.0;
    let mut k = 0;
    loop {
        let next = (c * x).cos();
        if (next - x).abs() < 1e-15 {
            return next;
        }
        x = next;
        k += 1;
        if k == 500 {
            break;
        }
    }
    x
}

#[test]
fn fixed_point_derivative_by_the_implicit_function_theorem() {
    // x = cos(c x): dx/dc = -x sin(c x) / (1 + c sin(c x)).
    for c in [0.5, 1.0] {
        let (x, t) = cos_fixed_point_jvp(c, 1.0);
        assert_eq!(x.to_bits(), cos_fixed_point(c).to_bits());
        let s = (c * x).sin();
        assert_close(t, -x * s / (1.0 + c * s), 1e-10);
    }
}

/// Generic over the library's float trait, run at `f64` and `f32`.
#[forward]
fn logistic<T: Float>(x: T, k: T) -> T {
    T::ONE / (T::ONE + (-k * x).exp())
}

#[test]
fn generic_forward_at_both_precisions() {
    let (x, k) = (0.3_f64, 2.0_f64);
    let (v, t) = logistic_jvp(x, k, 1.0, 0.0);
    assert_eq!(v.to_bits(), logistic(x, k).to_bits());
    assert_close(t, k * v * (1.0 - v), 1e-15);
    let (v32, t32) = logistic_jvp(0.3_f32, 2.0_f32, 0.0, 1.0);
    assert_eq!(v32.to_bits(), logistic(0.3_f32, 2.0_f32).to_bits());
    assert!((f64::from(t32) - x * v * (1.0 - v)).abs() < 1e-6);
}

/// Calls between annotated functions: a norm built on a dot product.
#[forward]
#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[forward]
#[reverse]
fn cosine_similarity(a: &[f64], b: &[f64]) -> f64 {
    dot(a, b) / (dot(a, a).sqrt() * dot(b, b).sqrt())
}

#[test]
fn calls_between_annotated_functions() {
    let a = [1.0, 2.0, -0.5];
    let b = [0.3, -1.0, 2.0];
    let (v, (ga, gb)) = cosine_similarity_grad(&a, &b);
    assert_eq!(v.to_bits(), cosine_similarity(&a, &b).to_bits());
    // Closed form: ∂/∂a = b/(|a||b|) - cos · a/|a|².
    let (na, nb) = (dot(&a, &a).sqrt(), dot(&b, &b).sqrt());
    for i in 0..3 {
        assert_close(ga[i], b[i] / (na * nb) - v * a[i] / (na * na), 1e-14);
        assert_close(gb[i], a[i] / (na * nb) - v * b[i] / (nb * nb), 1e-14);
    }
    let (ta, tb) = ([0.1, 0.0, -0.7], [1.0, 0.5, 0.25]);
    let (fv, t) = cosine_similarity_jvp(&a, &b, &ta, &tb);
    assert_eq!(fv.to_bits(), v.to_bits());
    let expected: f64 = (0..3).map(|i| ga[i] * ta[i] + gb[i] * tb[i]).sum();
    assert_close(t, expected, 1e-14);
}

/// Recursion: x^n by squaring, recursive in forward mode.
#[forward]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else if n % 2 == 0 {
        let h = power(x, n / 2);
        h * h
    } else {
        x * power(x, n - 1)
    }
}

#[test]
fn recursive_forward_function() {
    for n in [0_u32, 1, 2, 7, 10] {
        let x = 1.1;
        let (v, t) = power_jvp(x, n, 1.0);
        assert_eq!(v.to_bits(), power(x, n).to_bits());
        assert_close(t, f64::from(n) * x.powi(n as i32 - 1), 1e-14);
    }
}

/// A `&mut` buffer: in-place prefix sums and a running product written into an out-parameter.
#[forward]
#[reverse]
fn prefix_ops(x: &mut [f64], out: &mut [f64]) {
    for i in 1..x.len() {
        x[i] += x[i - 1];
    }
    let mut p = 1.0;
    for i in 0..x.len() {
        p *= x[i];
        out[i] = p;
    }
}

#[test]
fn mut_buffers_carry_tangents() {
    let x0 = [1.0, 2.0, 3.0];
    let mut x = x0.to_vec();
    let mut out = vec![0.0; 3];
    let mut tx = vec![1.0, 0.0, 0.0];
    let mut tout = vec![0.0; 3];
    prefix_ops_jvp(&mut x, &mut out, &mut tx, &mut tout);
    let (mut px, mut pout) = (x0.to_vec(), vec![0.0; 3]);
    prefix_ops(&mut px, &mut pout);
    assert_eq!((x.clone(), out.clone()), (px, pout));
    // Prefix sums s = (x0, x0+x1, x0+x1+x2) each move by 1 along e0.
    assert_eq!(tx, [1.0, 1.0, 1.0]);
    // out = (s0, s0 s1, s0 s1 s2) = (1, 3, 18): d/dx0 = (1, s1 + s0, s1 s2 + s0 s2 + s0 s1).
    assert_eq!(tout, [1.0, 4.0, 6.0 * 3.0 + 1.0 * 6.0 + 1.0 * 3.0]);
}

// =========================================================================================
// Jacobians of vector-valued functions: JAX `jacfwd` / `jacrev`, torch.autograd.functional.

/// The spherical-to-Cartesian map.
#[forward]
#[reverse]
fn spherical(p: [f64; 3]) -> [f64; 3] {
    let (r, theta, phi) = (p[0], p[1], p[2]);
    [
        r * theta.sin() * phi.cos(),
        r * theta.sin() * phi.sin(),
        r * theta.cos(),
    ]
}

#[test]
fn jacobian_of_spherical_coordinates_and_its_determinant() {
    let (r, t, f) = (2.0, 0.7_f64, -0.4_f64);
    let (v, j) = spherical_jacobian([r, t, f]);
    assert_eq!(v, spherical([r, t, f]));
    let expected = vec![
        vec![
            t.sin() * f.cos(),
            r * t.cos() * f.cos(),
            -r * t.sin() * f.sin(),
        ],
        vec![
            t.sin() * f.sin(),
            r * t.cos() * f.sin(),
            r * t.sin() * f.cos(),
        ],
        vec![t.cos(), -r * t.sin(), 0.0],
    ];
    assert_matrix_close(&j, &expected, 1e-15);
    let det = j[0][0] * (j[1][1] * j[2][2] - j[1][2] * j[2][1])
        - j[0][1] * (j[1][0] * j[2][2] - j[1][2] * j[2][0])
        + j[0][2] * (j[1][0] * j[2][1] - j[1][1] * j[2][0]);
    assert_close(det, r * r * t.sin(), 1e-14);
    // jacrev: rows from the reverse mode.
    for (i, row) in expected.iter().enumerate() {
        let mut seed = [0.0; 3];
        seed[i] = 1.0;
        let (_, g) = spherical_vjp([r, t, f], seed);
        assert_all_close(&g, row, 1e-15);
    }
}

/// Softmax on a slice into a `Vec`: the Jacobian is diag(s) - s sᵀ.
#[forward]
#[reverse]
fn softmax(x: &[f64]) -> Vec<f64> {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut e = vec![0.0; x.len()];
    let mut total = 0.0;
    for i in 0..x.len() {
        e[i] = (x[i] - m).exp();
        total += e[i];
    }
    for i in 0..x.len() {
        e[i] /= total;
    }
    e
}

#[test]
fn softmax_jacobian_forward_and_reverse() {
    let x = [0.5, -1.0, 2.0, 0.1];
    let (s, j) = softmax_jacobian(&x);
    assert_eq!(s, softmax(&x));
    let expected: Vec<Vec<f64>> = (0..4)
        .map(|i| {
            (0..4)
                .map(|k| {
                    if i == k {
                        s[i] - s[i] * s[k]
                    } else {
                        -s[i] * s[k]
                    }
                })
                .collect()
        })
        .collect();
    assert_matrix_close(&j, &expected, 1e-14);
    // Each row of the Jacobian sums to zero (softmax sums to 1).
    for row in &j {
        assert!(row.iter().sum::<f64>().abs() < 1e-15);
    }
    // Reverse rows.
    for i in 0..4 {
        let mut seed = vec![0.0; 4];
        seed[i] = 1.0;
        let (_, g) = softmax_vjp(&x, seed);
        assert_all_close(&g, &expected[i], 1e-14);
    }
}

/// Several parameters, one output wider than the inputs: forward Jacobian columns.
#[forward]
fn outer_product(a: [f64; 2], b: f64) -> [f64; 4] {
    [a[0] * a[0], a[0] * a[1], a[1] * b, b.sin()]
}

#[test]
fn jacobian_with_several_parameters_against_finite_differences() {
    let (a, b) = ([1.5, -0.5], 0.8);
    let (v, j) = outer_product_jacobian(a, b);
    assert_eq!(v, outer_product(a, b));
    let fd = fd_jacobian(
        |p| outer_product([p[0], p[1]], p[2]).to_vec(),
        &[a[0], a[1], b],
    );
    assert_matrix_close(&j, &fd, 1e-7);
}

/// The Lorenz system's right-hand side integrated by explicit Euler: the Jacobian of the flow
/// map, forward vs reverse vs finite differences.
#[forward]
#[reverse]
fn lorenz_flow(u: [f64; 3], steps: usize) -> [f64; 3] {
    let (sigma, rho, beta) = (10.0, 28.0, 8.0 / 3.0);
    let dt = 0.001;
    let mut s = u;
    for _ in 0..steps {
        let dx = sigma * (s[1] - s[0]);
        let dy = s[0] * (rho - s[2]) - s[1];
        let dz = s[0] * s[1] - beta * s[2];
        s[0] += dt * dx;
        s[1] += dt * dy;
        s[2] += dt * dz;
    }
    s
}

#[test]
fn jacobian_of_an_ode_flow_in_both_modes() {
    let u = [1.0, 1.0, 1.0];
    let (v, j) = lorenz_flow_jacobian(u, 200);
    assert_eq!(v, lorenz_flow(u, 200));
    let fd = fd_jacobian(|p| lorenz_flow([p[0], p[1], p[2]], 200).to_vec(), &u);
    assert_matrix_close(&j, &fd, 1e-6);
    for i in 0..3 {
        let mut seed = [0.0; 3];
        seed[i] = 1.0;
        let (_, g) = lorenz_flow_vjp(u, 200, seed);
        assert_all_close(&g, &j[i], 1e-12);
    }
}

/// `#[forward(vector)]`: a whole Jacobian in one pass on `Lanes`.
#[forward(vector)]
fn rotate(p: [f64; 2], angle: f64) -> [f64; 2] {
    let (c, s) = (angle.cos(), angle.sin());
    [c * p[0] - s * p[1], s * p[0] + c * p[1]]
}

#[test]
fn vector_mode_jacobian_in_one_pass() {
    let (p, a) = ([1.0, 2.0], 0.3_f64);
    let (v, d) = rotate_jvp_vec(
        p,
        a,
        [Lanes([1.0, 0.0, 0.0]), Lanes([0.0, 1.0, 0.0])],
        Lanes([0.0, 0.0, 1.0]),
    );
    assert_eq!(v, rotate(p, a));
    let (c, s) = (a.cos(), a.sin());
    assert_eq!(d[0].0, [c, -s, -s * p[0] - c * p[1]]);
    assert_eq!(d[1].0, [s, c, c * p[0] - s * p[1]]);
    let (_, j) = rotate_jacobian(p, a);
    assert_eq!(j, vec![d[0].0.to_vec(), d[1].0.to_vec()]);
}

// =========================================================================================
// Hessians of classic test functions: JAX `hessian`, torch.autograd.functional.hessian.

/// Rosenbrock's banana function in two scalars, with parameters a and b left out of `wrt`.
#[reverse(hessian, wrt(x, y))]
fn banana(x: f64, y: f64, a: f64, b: f64) -> f64 {
    (a - x).powi(2) + b * (y - x * x).powi(2)
}

#[test]
fn rosenbrock_hessian_closed_form() {
    let (a, b) = (1.0, 100.0);
    for (x, y) in [(-1.2, 1.0), (1.0, 1.0), (0.3, -0.4)] {
        let (v, (gx, gy), h) = banana_hessian(x, y, a, b);
        assert_eq!(v.to_bits(), banana(x, y, a, b).to_bits());
        assert_close(gx, -2.0 * (a - x) - 4.0 * b * x * (y - x * x), 1e-14);
        assert_close(gy, 2.0 * b * (y - x * x), 1e-14);
        let expected = vec![
            vec![2.0 - 4.0 * b * (y - x * x) + 8.0 * b * x * x, -4.0 * b * x],
            vec![-4.0 * b * x, 2.0 * b],
        ];
        assert_matrix_close(&h, &expected, 1e-13);
    }
    // At the minimum the gradient vanishes and the Hessian is [[802, -400], [-400, 200]].
    let (_, g, h) = banana_hessian(1.0, 1.0, a, b);
    assert_eq!(g, (0.0, 0.0));
    assert_eq!(h, vec![vec![802.0, -400.0], vec![-400.0, 200.0]]);
}

/// Himmelblau's function on an array.
#[reverse(hessian)]
fn himmelblau(p: [f64; 2]) -> f64 {
    let (x, y) = (p[0], p[1]);
    (x * x + y - 11.0).powi(2) + (x + y * y - 7.0).powi(2)
}

#[test]
fn himmelblau_hessian_closed_form_and_diagonal() {
    for p in [[3.0, 2.0], [-2.805118, 3.131312], [0.0, 0.0], [1.5, -0.5]] {
        let (x, y) = (p[0], p[1]);
        let (v, g, h) = himmelblau_hessian(p);
        assert_eq!(v.to_bits(), himmelblau(p).to_bits());
        let (u, w) = (x * x + y - 11.0, x + y * y - 7.0);
        assert_all_close(&g, &[4.0 * x * u + 2.0 * w, 2.0 * u + 4.0 * y * w], 1e-14);
        let hxx = 12.0 * x * x + 4.0 * y - 42.0;
        let hyy = 4.0 * x + 12.0 * y * y - 26.0;
        let hxy = 4.0 * (x + y);
        assert_matrix_close(&h, &[vec![hxx, hxy], vec![hxy, hyy]], 1e-13);
        let (_, _, d) = himmelblau_hessian_diag(p);
        assert_all_close(&d, &[hxx, hyy], 1e-13);
    }
}

/// Beale's function on a slice, with a loop over its three terms.
#[reverse(hessian)]
fn beale(p: &[f64]) -> f64 {
    let c = [1.5, 2.25, 2.625];
    let mut s = 0.0;
    for i in 0..3 {
        let t = c[i] - p[0] + p[0] * p[1].powi(i as i32 + 1);
        s += t * t;
    }
    s
}

#[test]
fn beale_hessian_against_finite_differences_of_the_gradient() {
    for p in [[3.0, 0.5], [1.0, 1.0], [-0.5, 1.3]] {
        let (v, g, h) = beale_hessian(&p);
        assert_eq!(v.to_bits(), beale(&p).to_bits());
        assert_all_close(&g, &fd_grad(beale, &p), 1e-7);
        let fd = fd_hessian(|q| beale_grad(q).1, &p);
        assert_matrix_close(&h, &fd, 1e-6);
        // Symmetric up to rounding (two different H·v products).
        assert_close(h[0][1], h[1][0], 1e-14);
    }
    // The minimum (3, 1/2): zero gradient.
    let (_, g, _) = beale_hessian(&[3.0, 0.5]);
    assert!(g.iter().all(|d| d.abs() < 1e-14), "{g:?}");
}

/// log-sum-exp, stabilised by the maximum: its Hessian is diag(s) - s sᵀ.
#[reverse(hessian)]
fn logsumexp(x: &[f64]) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for &v in x {
        m = m.max(v);
    }
    let mut s = 0.0;
    for &v in x {
        s += (v - m).exp();
    }
    m + s.ln()
}

#[test]
fn logsumexp_hessian_is_the_softmax_jacobian() {
    let x = [0.5, -1.0, 2.0, 0.1];
    let (v, g, h) = logsumexp_hessian(&x);
    assert_eq!(v.to_bits(), logsumexp(&x).to_bits());
    let s = softmax(&x);
    assert_all_close(&g, &s, 1e-15);
    let (_, j) = softmax_jacobian(&x);
    assert_matrix_close(&h, &j, 1e-14);
}

/// Softmax cross-entropy of a linear model's logits, differentiated in the weights.
#[reverse(hessian, wrt(w))]
fn softmax_xent(w: &[f64], x: &[f64], label: usize) -> f64 {
    let classes = w.len() / x.len();
    let mut logits = vec![0.0; classes];
    for k in 0..classes {
        for i in 0..x.len() {
            logits[k] += w[k * x.len() + i] * x[i];
        }
    }
    let mut m = logits[0];
    for k in 1..classes {
        m = m.max(logits[k]);
    }
    let mut z = 0.0;
    for k in 0..classes {
        z += (logits[k] - m).exp();
    }
    m + z.ln() - logits[label]
}

#[test]
fn softmax_cross_entropy_hessian_is_a_kronecker_product() {
    let x = [0.5, -1.0];
    let w = [0.1, 0.2, -0.3, 0.4, 0.5, -0.6];
    let label = 1;
    let (v, g, h) = softmax_xent_hessian(&w, &x, label);
    assert_eq!(v.to_bits(), softmax_xent(&w, &x, label).to_bits());
    let logits: Vec<f64> = (0..3)
        .map(|k| w[2 * k] * x[0] + w[2 * k + 1] * x[1])
        .collect();
    let p = softmax(&logits);
    // ∂/∂w_{k,i} = (p_k - [k = label]) x_i; ∂² = (δ_kl p_k - p_k p_l) x_i x_j.
    for k in 0..3 {
        for i in 0..2 {
            let y = if k == label { 1.0 } else { 0.0 };
            assert_close(g[2 * k + i], (p[k] - y) * x[i], 1e-14);
            for l in 0..3 {
                for j in 0..2 {
                    let d = if k == l { p[k] } else { 0.0 };
                    assert_close(
                        h[2 * k + i][2 * l + j],
                        (d - p[k] * p[l]) * x[i] * x[j],
                        1e-14,
                    );
                }
            }
        }
    }
}

/// A quadratic form xᵀ A x with A an inactive row-major slice: H = A + Aᵀ.
#[reverse(hessian, wrt(x))]
fn quadratic_form(a: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x[i] * a[i * n + j] * x[j];
        }
    }
    s
}

#[test]
fn quadratic_form_hessian_and_hvp() {
    let a = [1.0, 2.0, 0.0, -1.0, 3.0, 0.5, 4.0, 0.0, 2.0];
    let x = [0.3, -0.2, 1.1];
    let (v, g, h) = quadratic_form_hessian(&a, &x);
    assert_eq!(v.to_bits(), quadratic_form(&a, &x).to_bits());
    for i in 0..3 {
        let gi: f64 = (0..3).map(|j| (a[i * 3 + j] + a[j * 3 + i]) * x[j]).sum();
        assert_close(g[i], gi, 1e-15);
        for j in 0..3 {
            assert_eq!(h[i][j], a[i * 3 + j] + a[j * 3 + i]);
        }
    }
    let u = [1.0, -2.0, 0.5];
    let (_, _, hv) = quadratic_form_hvp(&a, &x, &u);
    for i in 0..3 {
        assert_eq!(hv[i], (0..3).map(|j| h[i][j] * u[j]).sum::<f64>());
    }
}

/// Hessian-vector products against Hessian times vector and against finite differences of
/// the gradient along the vector (Pearlmutter's R-operator).
#[reverse(hessian)]
fn trig_energy(x: &[f64], k: f64) -> f64 {
    let mut e = 0.0;
    for i in 1..x.len() {
        e += k * (1.0 - (x[i] - x[i - 1]).cos());
    }
    e + 0.5 * k * k * x[0] * x[0]
}

#[test]
fn hessian_vector_product_against_finite_differences() {
    let x = [0.1, 0.7, -0.4, 1.2];
    let k = 1.7;
    let u = [0.3, -1.0, 0.25, 0.6];
    let (v, (gx, gk), (hx, hk)) = trig_energy_hvp(&x, k, &u, 0.5);
    assert_eq!(v.to_bits(), trig_energy(&x, k).to_bits());
    assert_eq!((gx.clone(), gk), trig_energy_grad(&x, k).1);
    // That gradient, whose differences the checks below take, in closed form:
    // ∂e/∂x_j = k sin(x_j - x_{j-1}) - k sin(x_{j+1} - x_j) (+ k² x_0 at j = 0), and
    // ∂e/∂k = Σ (1 - cos(x_i - x_{i-1})) + k x_0².
    for j in 0..4 {
        let mut expected = if j == 0 { k * k * x[0] } else { 0.0 };
        if j >= 1 {
            expected += k * (x[j] - x[j - 1]).sin();
        }
        if j + 1 < 4 {
            expected -= k * (x[j + 1] - x[j]).sin();
        }
        assert_close(gx[j], expected, 1e-14);
    }
    let gk_expected: f64 =
        (1..4).map(|i| 1.0 - (x[i] - x[i - 1]).cos()).sum::<f64>() + k * x[0] * x[0];
    assert_close(gk, gk_expected, 1e-14);
    let eps = 1e-6;
    let at = |s: f64| {
        let p: Vec<f64> = x.iter().zip(&u).map(|(a, b)| a + s * b).collect();
        trig_energy_grad(&p, k + s * 0.5).1
    };
    let ((up_x, up_k), (down_x, down_k)) = (at(eps), at(-eps));
    for i in 0..4 {
        assert_close(hx[i], (up_x[i] - down_x[i]) / (2.0 * eps), 1e-7);
    }
    assert_close(hk, (up_k - down_k) / (2.0 * eps), 1e-7);
    // And against the dense Hessian (over x then k).
    let (_, _, h) = trig_energy_hessian(&x, k);
    let w = [u[0], u[1], u[2], u[3], 0.5];
    for i in 0..4 {
        assert_close(hx[i], (0..5).map(|j| h[i][j] * w[j]).sum(), 1e-14);
    }
}

/// Newton's method with the generated Hessian (Rosenbrock from JAX's optimisation examples).
#[test]
fn newton_steps_with_the_generated_hessian() {
    let mut p = [-1.2, 1.0];
    for _ in 0..50 {
        let (_, (gx, gy), h) = banana_hessian(p[0], p[1], 1.0, 100.0);
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        let dx = (h[1][1] * gx - h[0][1] * gy) / det;
        let dy = (h[0][0] * gy - h[1][0] * gx) / det;
        p = [p[0] - dx, p[1] - dy];
    }
    assert!(
        (p[0] - 1.0).abs() < 1e-12 && (p[1] - 1.0).abs() < 1e-12,
        "{p:?}"
    );
}

/// `jacfwd(jacrev(f))` = `hessian(f)`: the forward Jacobian of a reverse gradient, by hand
/// through nesting, equals `NAME_hessian`.
#[reverse(hessian)]
fn banana_arr(p: [f64; 2]) -> f64 {
    (1.0 - p[0]).powi(2) + 100.0 * (p[1] - p[0] * p[0]).powi(2)
}

#[forward]
fn banana_gradient(p: [f64; 2]) -> [f64; 2] {
    let (_, g) = banana_arr_grad(p);
    [g[0], g[1]]
}

#[test]
fn jacfwd_of_jacrev_is_the_hessian() {
    let p = [0.3, -0.4];
    let (g, j) = banana_gradient_jacobian(p);
    let (_, (gx, gy), h) = banana_hessian(p[0], p[1], 1.0, 100.0);
    assert_eq!(g, [gx, gy]);
    assert_matrix_close(&j, &h, 1e-15);
    let (_, g2, h2) = banana_arr_hessian(p);
    assert_eq!(g2, g);
    assert_eq!(h2, j);
}

// =========================================================================================
// Nested derivatives: JAX `grad(grad(f))`, Siskind & Pearlmutter's perturbation confusion.

/// f(x) = x³ sin x, differentiable twice.
#[forward]
#[reverse(hessian)]
fn cubic_sin(x: f64) -> f64 {
    x * x * x * x.sin()
}

/// grad(grad(f)) written as a user would: the outer derivative of a function returning the
/// inner derivative, in both outer modes.
#[reverse]
fn cubic_sin_d1_rev(x: f64) -> f64 {
    let (_, d) = cubic_sin_grad(x);
    d
}

#[forward]
fn cubic_sin_d1_fwd(x: f64) -> f64 {
    let (_, d) = cubic_sin_grad(x);
    d
}

#[forward]
fn cubic_sin_d1_jvp(x: f64) -> f64 {
    let (_, d) = cubic_sin_jvp(x, 1.0);
    d
}

#[test]
fn grad_of_grad_closed_form() {
    for x in [-1.1, 0.0, 0.6, 2.4_f64] {
        let d1 = 3.0 * x * x * x.sin() + x * x * x * x.cos();
        let d2 = 6.0 * x * x.sin() + 6.0 * x * x * x.cos() - x * x * x * x.sin();
        let (v, g) = cubic_sin_d1_rev_grad(x);
        assert_eq!(v.to_bits(), cubic_sin_d1_rev(x).to_bits());
        assert_close(v, d1, 1e-14);
        assert_close(g, d2, 1e-13);
        let (v, t) = cubic_sin_d1_fwd_jvp(x, 1.0);
        assert_eq!(v.to_bits(), cubic_sin_grad(x).1.to_bits());
        assert_close(t, d2, 1e-13);
        let (_, t) = cubic_sin_d1_jvp_jvp(x, 1.0);
        assert_close(t, d2, 1e-13);
        let (_, _, h) = cubic_sin_hessian(x);
        assert_close(h[0][0], d2, 1e-13);
    }
}

/// Perturbation confusion, the other classic form: d/dx (x · d/dy (x y)) at y = 2 is
/// d/dx (x · x) = 2x (a confused system gives 3x or x).
#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
fn product(x: f64, y: f64) -> f64 {
    x * y
}

#[reverse]
fn confusion_product_r(x: f64) -> f64 {
    let (_, d) = product_grad(x, 2.0);
    x * d
}

#[forward]
fn confusion_product_f(x: f64) -> f64 {
    let (_, d) = product_jvp(x, 2.0, 1.0);
    x * d
}

#[test]
fn no_perturbation_confusion_with_a_product() {
    for x in [-3.0, 0.5, 7.0] {
        assert_eq!(confusion_product_r_grad(x), (x * x, 2.0 * x));
        assert_eq!(confusion_product_f_jvp(x, 1.0), (x * x, 2.0 * x));
    }
}

/// The perturbation-confusion test with the inner derivative taken inside a loop: the
/// outer derivative must still be exactly 1 per iteration.
#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
fn shift(x: f64, y: f64) -> f64 {
    x + y
}

#[reverse]
#[forward]
fn confusion_in_a_loop(x: f64, n: usize) -> f64 {
    let mut acc = 0.0;
    for k in 0..n {
        let (_, d) = shift_grad(x, k as f64);
        acc += x * d;
    }
    acc
}

#[test]
fn perturbation_confusion_is_exactly_one_per_iteration() {
    for n in [0, 1, 4] {
        assert_eq!(confusion_in_a_loop_grad(1.5, n), (1.5 * n as f64, n as f64));
        assert_eq!(
            confusion_in_a_loop_jvp(1.5, n, 1.0),
            (1.5 * n as f64, n as f64)
        );
    }
}

/// Siskind & Pearlmutter's "min over a max" flavour: an inner gradient step on y for a
/// fixed x, inside an outer objective; the outer derivative against finite differences.
#[forward(wrt(y))]
#[reverse(hessian, wrt(y))]
fn game(x: f64, y: f64) -> f64 {
    (x * y).sin() - 0.5 * y * y + x * x * y
}

#[reverse]
#[forward]
fn after_best_response(x: f64) -> f64 {
    let mut y = 0.0;
    for _ in 0..5 {
        let (_, dy) = game_grad(x, y);
        y += 0.5 * dy;
    }
    game(x, y)
}

fn after_best_response_plain(x: f64) -> f64 {
    let mut y = 0.0;
    for _ in 0..5 {
        let dy = x * (x * y).cos() - y + x * x;
        y += 0.5 * dy;
    }
    game(x, y)
}

#[test]
fn derivative_through_an_inner_optimisation() {
    for x in [-0.8, 0.3, 1.2] {
        let (v, g) = after_best_response_grad(x);
        assert_eq!(v.to_bits(), after_best_response(x).to_bits());
        assert_close(v, after_best_response_plain(x), 1e-14);
        let fd = fd_grad(|p| after_best_response_plain(p[0]), &[x]);
        assert_close(g, fd[0], 1e-7);
        let (fv, t) = after_best_response_jvp(x, 1.0);
        assert_eq!(fv.to_bits(), v.to_bits());
        assert_close(t, g, 1e-13);
    }
}

// =========================================================================================
// Higher-order functions: closures passed to annotated functions.

/// Simpson's rule with a function argument (Zygote's `quadgk`-style tests, in small).
#[forward]
#[reverse]
fn simpson<F: Fn(f64) -> f64>(f: F, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let x = a + i as f64 * h;
        if i % 2 == 1 {
            s += 4.0 * f(x);
        } else {
            s += 2.0 * f(x);
        }
    }
    s * h / 3.0
}

/// ∫₀ᵇ e^{k x} dx, with k captured.
#[forward]
#[reverse]
fn exp_integral(k: f64, b: f64) -> f64 {
    simpson(|x| (k * x).exp(), 0.0, b, 64)
}

#[test]
fn simpson_with_a_captured_rate() {
    let (k, b) = (0.7, 1.5_f64);
    let (v, (dk, db)) = exp_integral_grad(k, b);
    assert_eq!(v.to_bits(), exp_integral(k, b).to_bits());
    assert_close(v, ((k * b).exp() - 1.0) / k, 1e-9);
    // ∂/∂b = e^{kb}; ∂/∂k = (b e^{kb} k - (e^{kb} - 1)) / k² (up to the rule's error).
    assert_close(db, (k * b).exp(), 1e-8);
    assert_close(
        dk,
        (b * (k * b).exp() * k - ((k * b).exp() - 1.0)) / (k * k),
        1e-8,
    );
    let fd = fd_grad(|p| exp_integral(p[0], p[1]), &[k, b]);
    assert_all_close(&[dk, db], &fd, 1e-7);
    let (fv, t) = exp_integral_jvp(k, b, 0.3, -1.0);
    assert_eq!(fv.to_bits(), v.to_bits());
    assert_close(t, 0.3 * dk - db, 1e-13);
}

/// Gradient descent whose objective's derivative is a closure argument; the result's
/// derivative with respect to a parameter the closure captures.
#[forward]
#[reverse]
fn descend<G: Fn(f64) -> f64>(grad: G, x0: f64, rate: f64, steps: usize) -> f64 {
    let mut x = x0;
    for _ in 0..steps {
        x -= rate * grad(x);
    }
    x
}

/// argmin_x (x - t)² + x⁴/4, as a function of t.
#[forward]
#[reverse]
fn minimiser(t: f64) -> f64 {
    descend(|x| 2.0 * (x - t) + x * x * x, 0.0, 0.1, 300)
}

#[test]
fn derivative_of_an_argmin_through_an_optimiser() {
    let t = 0.8;
    let (x, d) = minimiser_grad(t);
    assert_eq!(x.to_bits(), minimiser(t).to_bits());
    assert!((2.0 * (x - t) + x * x * x).abs() < 1e-14);
    assert_close(d, 2.0 / (2.0 + 3.0 * x * x), 1e-12);
    assert_close(minimiser_jvp(t, 1.0).1, d, 1e-13);
}

/// A function argument of two floats applied along a slice (a fold, as `reduce`).
#[forward]
#[reverse]
fn fold<F: Fn(f64, f64) -> f64>(f: F, init: f64, xs: &[f64]) -> f64 {
    let mut acc = init;
    for &x in xs {
        acc = f(acc, x);
    }
    acc
}

/// A smooth maximum: log Σ e^{β x}/β by folding the soft-max of two values.
#[forward]
#[reverse]
fn smooth_max(beta: f64, xs: &[f64]) -> f64 {
    fold(
        |a, b| ((beta * a).exp() + (beta * b).exp()).ln() / beta,
        -1e3,
        xs,
    )
}

#[test]
fn fold_with_a_capturing_closure() {
    let xs = [0.3, 1.2, -0.5, 0.9];
    let beta = 2.0;
    let (v, (dbeta, dxs)) = smooth_max_grad(beta, &xs);
    assert_eq!(v.to_bits(), smooth_max(beta, &xs).to_bits());
    // ∂/∂x_i is the softmax of β x (the initial -1000 contributes e^{-2000} = 0).
    let e: Vec<f64> = xs.iter().map(|x| (beta * x).exp()).collect();
    let z: f64 = e.iter().sum();
    for i in 0..4 {
        assert_close(dxs[i], e[i] / z, 1e-14);
    }
    let f = |p: &[f64]| smooth_max(p[0], &p[1..]);
    let fd = fd_grad(f, &[beta, xs[0], xs[1], xs[2], xs[3]]);
    assert_close(dbeta, fd[0], 1e-7);
    let (_, t) = smooth_max_jvp(beta, &xs, 1.0, &[0.0; 4]);
    assert_close(t, dbeta, 1e-13);
}

/// A closure of integers passed to an inactive index-map argument from an annotated caller.
#[forward]
#[reverse]
fn gather_sum<G: Fn(usize) -> usize>(index: G, w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[index(i)] * w[i];
    }
    s
}

#[forward]
#[reverse]
fn reversed_dot(w: &[f64]) -> f64 {
    let n = w.len();
    gather_sum(|i| n - 1 - i, w)
}

#[test]
fn integer_closure_passed_to_an_inactive_argument() {
    let w = [1.0, 2.0, 3.0];
    // Σ w_{n-1-i} w_i = 2 (w0 w2) + w1²: ∂ = (2 w2, 2 w1, 2 w0).
    let (v, g) = reversed_dot_grad(&w);
    assert_eq!(v.to_bits(), reversed_dot(&w).to_bits());
    assert_eq!(g, vec![6.0, 4.0, 2.0]);
    assert_eq!(reversed_dot_jvp(&w, &[1.0, 0.0, 0.0]), (v, 6.0));
}

// =========================================================================================
// Whole-array assignment in forward mode.

/// Two buffers swapped by whole-array assignment each step (a leapfrog-like update).
#[forward]
#[reverse]
fn two_buffers(x: [f64; 2], steps: usize) -> [f64; 2] {
    let mut cur = x;
    let mut next = [0.0; 2];
    for _ in 0..steps {
        next[0] = cur[0] + 0.1 * cur[1];
        next[1] = cur[1] - 0.1 * cur[0].sin();
        cur = next;
    }
    cur
}

#[test]
fn whole_array_assignment() {
    let x = [0.4, -0.2];
    let (v, j) = two_buffers_jacobian(x, 5);
    assert_eq!(v, two_buffers(x, 5));
    let fd = fd_jacobian(|p| two_buffers([p[0], p[1]], 5).to_vec(), &x);
    assert_matrix_close(&j, &fd, 1e-7);
    let (fv, t) = two_buffers_jvp(x, 5, [1.0, 0.0]);
    assert_eq!(fv, v);
    assert_eq!(t, [j[0][0], j[1][0]]);
}

/// The right side read while the left is written (`cur = [cur[1], ..]`), a call's result,
/// and an array parameter's copy, under both backends and forward mode.
#[forward]
#[reverse]
fn half_step(s: [f64; 2]) -> [f64; 2] {
    [s[0] + 0.5 * s[1], s[1] - 0.5 * s[0] * s[0]]
}

#[forward]
#[reverse]
fn swaps_and_steps(x: [f64; 2], steps: usize) -> f64 {
    let mut cur = x;
    for k in 0..steps {
        cur = [cur[1] * 0.9, cur[0] + 0.1 * k as f64];
        cur = half_step(cur);
    }
    let mut last = [0.0; 2];
    if steps > 1 {
        last = cur;
    }
    last[0] * cur[1] + cur[0].sin()
}

#[reverse(cps)]
fn swaps_cps(x: [f64; 2], steps: usize) -> f64 {
    let mut cur = x;
    let mut next = [0.0; 2];
    for _ in 0..steps {
        next[0] = cur[1] * cur[0];
        next[1] = cur[0] - 0.3;
        cur = next;
        cur = [cur[1], cur[0]];
    }
    cur[0] * 2.0 + cur[1]
}

fn swaps_and_steps_plain(x: [f64; 2], steps: usize) -> f64 {
    let mut cur = x;
    for k in 0..steps {
        let t = [cur[1] * 0.9, cur[0] + 0.1 * k as f64];
        cur = [t[0] + 0.5 * t[1], t[1] - 0.5 * t[0] * t[0]];
    }
    let last = if steps > 1 { cur } else { [0.0; 2] };
    last[0] * cur[1] + cur[0].sin()
}

#[test]
fn whole_array_assignment_in_every_mode() {
    let x = [0.7, -0.3];
    for steps in [0, 1, 2, 5] {
        let f = |p: &[f64]| swaps_and_steps_plain([p[0], p[1]], steps);
        let (v, g) = swaps_and_steps_grad(x, steps);
        assert_eq!(v.to_bits(), swaps_and_steps(x, steps).to_bits());
        assert_eq!(v.to_bits(), f(&x).to_bits());
        let fd = fd_grad(f, &x);
        assert_all_close(&g, &fd, 1e-7);
        let (fv, t) = swaps_and_steps_jvp(x, steps, [0.25, -1.0]);
        assert_eq!(fv.to_bits(), v.to_bits());
        assert_close(t, 0.25 * g[0] - g[1], 1e-13);
        // The CPS backend.
        let (v, g) = swaps_cps_grad(x, steps);
        assert_eq!(v.to_bits(), swaps_cps(x, steps).to_bits());
        assert_all_close(&g, &fd_grad(|p| swaps_cps([p[0], p[1]], steps), &x), 1e-7);
    }
    // The reverse mode of `two_buffers`, through its whole-array copies.
    let (_, j) = two_buffers_jacobian(x, 5);
    for i in 0..2 {
        let mut seed = [0.0; 2];
        seed[i] = 1.0;
        let (_, g) = two_buffers_vjp(x, 5, seed);
        assert_all_close(&g, &j[i], 1e-13);
    }
}

/// Integer closures capturing a loop index and a length, typed and untyped.
#[forward]
#[reverse]
fn rotated_dots(w: &[f64], x: &[f64]) -> f64 {
    let n = w.len();
    let mut s = 0.0;
    for k in 0..n {
        s += gather_pair(|i| (i + k) % n, w, x);
    }
    s + gather_pair(|i: usize| i, w, x)
}

#[forward]
#[reverse]
fn gather_pair<G: Fn(usize) -> usize>(index: G, w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[index(i)] * x[i] * x[i];
    }
    s
}

fn rotated_dots_plain(w: &[f64], x: &[f64]) -> f64 {
    let n = w.len();
    let mut s = 0.0;
    for k in 0..n {
        for i in 0..n {
            s += w[(i + k) % n] * x[i] * x[i];
        }
    }
    for i in 0..n {
        s += w[i] * x[i] * x[i];
    }
    s
}

#[test]
fn integer_closures_capturing_a_loop_index() {
    let w = [1.0, -2.0, 0.5];
    let x = [0.3, 1.1, -0.7];
    let (v, (gw, gx)) = rotated_dots_grad(&w, &x);
    assert_eq!(v.to_bits(), rotated_dots(&w, &x).to_bits());
    assert_close(v, rotated_dots_plain(&w, &x), 1e-14);
    // Σ_k Σ_i w_{(i+k)%n} x_i² = (Σ w)(Σ x²): ∂/∂w_j = Σ x² + x_j², ∂/∂x_i = 2 x_i (Σ w + w_i).
    let (sw, sx): (f64, f64) = (w.iter().sum(), x.iter().map(|a| a * a).sum());
    for i in 0..3 {
        assert_close(gw[i], sx + x[i] * x[i], 1e-14);
        assert_close(gx[i], 2.0 * x[i] * (sw + w[i]), 1e-14);
    }
    let (tw, tx) = ([0.1, 0.2, 0.3], [-1.0, 0.5, 2.0]);
    let (fv, t) = rotated_dots_jvp(&w, &x, &tw, &tx);
    assert_eq!(fv.to_bits(), v.to_bits());
    let expected: f64 = (0..3).map(|i| gw[i] * tw[i] + gx[i] * tx[i]).sum();
    assert_close(t, expected, 1e-13);
}
