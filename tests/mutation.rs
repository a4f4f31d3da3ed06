//! `&mut` float parameters (inputs on entry, outputs on return, like Enzyme's `Duplicated`),
//! out-parameters of functions returning `()`, `&f64` parameters and by-value `mut`
//! parameters: the classic in-place programs of other AD tools' test suites, each checked
//! against a closed form or finite differences, and the primal (value and buffers) bit for
//! bit against the function itself. `tests/cps-corpus` runs this file under the CPS backend.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::manual_swap,
    clippy::ptr_arg,
    clippy::unnecessary_mut_passed,
    reason = "index loops, plain assignments, a swap written out, `&mut Vec<f64>` and `&mut x` \
              passed to a reader are forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

/// Insertion sort of `x` in place, then a weighted sum of the sorted values.
#[reverse]
fn sort_weighted(x: &mut [f64], w: &[f64]) -> f64 {
    for i in 1..x.len() {
        let mut j = i;
        while j > 0 && x[j - 1] > x[j] {
            let t = x[j - 1];
            x[j - 1] = x[j];
            x[j] = t;
            j -= 1;
        }
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += w[i] * x[i];
    }
    s
}

#[test]
fn insertion_sort_permutes_the_weights() {
    let x0 = [0.3, -1.2, 2.5, 0.7, -0.4];
    let w = [1.0, 2.0, 3.0, 4.0, 5.0];
    let mut primal = x0;
    let value = sort_weighted(&mut primal, &w);
    let mut x = x0;
    let (v, (gx, gw)) = sort_weighted_grad(&mut x, &w);
    assert_eq!(v.to_bits(), value.to_bits());
    assert_eq!(x, primal, "the buffer is sorted as by the function");
    assert_eq!(x, [-1.2, -0.4, 0.3, 0.7, 2.5]);
    // x0[k] lands at rank r(k): ∂/∂x0[k] = w[r(k)]; ∂/∂w = the sorted values.
    assert_eq!(gx, vec![3.0, 1.0, 5.0, 4.0, 2.0]);
    assert_eq!(gw, x.to_vec());
    // With a seed on the sorted buffer: ∂(seed · sorted)/∂x0[k] = seed[r(k)], plus the sum's.
    let mut x = x0;
    let seed = vec![10.0, 20.0, 30.0, 40.0, 50.0];
    let (_, (gx, _)) = sort_weighted_vjp(&mut x, &w, 0.0, seed);
    assert_eq!(gx, vec![30.0, 10.0, 50.0, 40.0, 20.0]);
}

/// One explicit Euler step of `ds/dt = -k s`, `steps` times, in place; returns `s[0]`.
#[reverse]
fn euler_decay(state: &mut Vec<f64>, k: f64, steps: usize) -> f64 {
    let dt = 0.1;
    for _ in 0..steps {
        for i in 0..state.len() {
            state[i] = state[i] - dt * k * state[i];
        }
    }
    state[0]
}

#[test]
fn euler_in_place_closed_form() {
    let (k, steps) = (0.5, 6);
    let factor: f64 = 1.0 - 0.1 * k;
    let mut s = vec![1.0, 2.0];
    let mut primal = s.clone();
    let value = euler_decay(&mut primal, k, steps);
    let (v, (gs, gk)) = euler_decay_grad(&mut s, k, steps);
    assert_eq!(v.to_bits(), value.to_bits());
    assert_eq!(s, primal);
    assert_relative_eq!(gs[0], factor.powi(steps as i32), max_relative = 1e-14);
    assert_eq!(gs[1], 0.0);
    // d/dk (1 - 0.1k)^n s0 = -0.1 n (1 - 0.1k)^(n-1) s0
    let dk = -0.1 * steps as f64 * factor.powi(steps as i32 - 1);
    assert_relative_eq!(gk, dk, max_relative = 1e-13);
    // A seed on the state on return: the adjoint of state[1] on entry, and of k.
    let mut s = vec![1.0, 2.0];
    let (_, (gs, gk)) = euler_decay_vjp(&mut s, k, steps, 0.0, vec![0.0, 3.0]);
    assert_relative_eq!(gs[1], 3.0 * factor.powi(steps as i32), max_relative = 1e-14);
    assert_relative_eq!(gk, 3.0 * 2.0 * dk, max_relative = 1e-13);
}

/// RK4 for the oscillator `x'' = -ω² x`, state `[x, v]`, updated in place; returns `()`.
#[reverse]
fn rk4_oscillator(state: &mut [f64; 2], omega: f64, dt: f64, steps: usize) {
    let w2 = omega * omega;
    for _ in 0..steps {
        let (x, v) = (state[0], state[1]);
        let (k1x, k1v) = (v, -w2 * x);
        let (k2x, k2v) = (v + 0.5 * dt * k1v, -w2 * (x + 0.5 * dt * k1x));
        let (k3x, k3v) = (v + 0.5 * dt * k2v, -w2 * (x + 0.5 * dt * k2x));
        let (k4x, k4v) = (v + dt * k3v, -w2 * (x + dt * k3x));
        state[0] = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        state[1] = v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
}

#[test]
fn rk4_in_place_against_finite_differences() {
    let steps = 40;
    let seed = [0.7, -1.3];
    // The function of (x0, v0, ω, dt) whose gradient the vjp gives: seed · state on return.
    let f = |p: &[f64]| {
        let mut s = [p[0], p[1]];
        rk4_oscillator(&mut s, p[2], p[3], steps);
        seed[0] * s[0] + seed[1] * s[1]
    };
    let at = [1.0, 0.5, 1.7, 0.05];
    let mut s = [at[0], at[1]];
    let ((), (gs, gw, gdt)) = rk4_oscillator_vjp(&mut s, at[2], at[3], steps, seed);
    let mut primal = [at[0], at[1]];
    rk4_oscillator(&mut primal, at[2], at[3], steps);
    assert_eq!(s, primal);
    check::gradient(f, &at, &[gs[0], gs[1], gw, gdt]).unwrap();
}

/// A matrix-vector product written into an out-parameter.
#[reverse]
fn matvec_into(m: &[f64], x: &[f64], y: &mut [f64]) {
    let n = x.len();
    for i in 0..y.len() {
        let mut acc = 0.0;
        for j in 0..n {
            acc += m[i * n + j] * x[j];
        }
        y[i] = acc;
    }
}

#[test]
fn matvec_out_parameter_closed_form() {
    let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let x = [0.5, -1.0, 2.0];
    let mut y = vec![9.0, 9.0];
    let ybar = vec![2.0, -3.0];
    let ((), (gm, gx, gy)) = matvec_into_vjp(&m, &x, &mut y, ybar.clone());
    assert_eq!(y, vec![0.5 - 2.0 + 6.0, 2.0 - 5.0 + 12.0]);
    // m̄ = ȳ xᵀ, x̄ = mᵀ ȳ, and y on entry is overwritten: ȳ₀ = 0.
    let gm_expected: Vec<f64> = (0..6).map(|k| ybar[k / 3] * x[k % 3]).collect();
    assert_eq!(gm, gm_expected);
    assert_eq!(gx, vec![2.0 - 12.0, 4.0 - 15.0, 6.0 - 18.0]);
    assert_eq!(gy, vec![0.0, 0.0]);
}

/// An accumulator passed by `&mut f64`: its value on entry flows through.
#[reverse]
fn accumulate(x: &[f64], acc: &mut f64) {
    for i in 0..x.len() {
        *acc += x[i] * x[i];
    }
    *acc = *acc * 0.5;
}

#[test]
fn scalar_out_parameter_passes_its_entry_adjoint() {
    let x = [1.0, 2.0, 3.0];
    let mut acc = 4.0;
    let ((), (gx, gacc)) = accumulate_vjp(&x, &mut acc, 2.0);
    assert_eq!(acc, 0.5 * (4.0 + 14.0));
    assert_eq!(gx, vec![2.0, 4.0, 6.0]);
    assert_eq!(gacc, 1.0);
}

/// Normalizes `v` in place and returns its norm before.
#[reverse]
fn normalize(v: &mut [f64; 3]) -> f64 {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    for i in 0..3 {
        v[i] /= n;
    }
    n
}

#[test]
fn normalize_in_place_closed_form() {
    let v0 = [1.0, 2.0, 2.0];
    let mut v = v0;
    let (n, g) = normalize_grad(&mut v);
    assert_eq!(n, 3.0);
    assert_eq!(v, [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]);
    // f_grad treats the seed of `v` on return as zero: ∇n = v0 / n.
    for i in 0..3 {
        assert_relative_eq!(g[i], v0[i] / 3.0, max_relative = 1e-15);
    }
    // Seed ū on u = v/|v|: the adjoint of v is (ū - u (u·ū)) / |v|.
    let ubar = [1.0, 0.0, -1.0];
    let mut v = v0;
    let (_, g) = normalize_vjp(&mut v, 0.0, ubar);
    let u = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
    let dot: f64 = (0..3).map(|i| u[i] * ubar[i]).sum();
    for i in 0..3 {
        assert_relative_eq!(g[i], (ubar[i] - u[i] * dot) / 3.0, max_relative = 1e-14);
    }
}

/// `&f64` and `&f32`-free `&[f64; N]` parameters are their values.
#[reverse]
fn by_reference(x: &f64, a: &[f64; 2], k: f64) -> f64 {
    let y = *x * a[0] + x.sin() * a[1];
    y * k
}

#[test]
fn shared_references_are_values() {
    let (v, (gx, ga, gk)) = by_reference_grad(&0.5, &[2.0, 3.0], 1.5);
    assert_eq!(v, by_reference(&0.5, &[2.0, 3.0], 1.5));
    assert_relative_eq!(gx, 1.5 * (2.0 + 0.5f64.cos() * 3.0), max_relative = 1e-15);
    assert_eq!(ga, [1.5 * 0.5, 1.5 * 0.5f64.sin()]);
    assert_relative_eq!(gk, 0.5 * 2.0 + 0.5f64.sin() * 3.0, max_relative = 1e-15);
}

/// By-value `mut` parameters of every kind, written in the body.
#[reverse]
fn mut_by_value(mut x: f64, mut a: [f64; 2], mut v: Vec<f64>, mut n: usize) -> f64 {
    x = x * x;
    a[0] = a[0] * x;
    v[1] = v[0] * a[0];
    n += 1;
    let mut s = 0.0;
    for i in 0..n {
        s += v[i % 2];
    }
    s + a[1]
}

#[test]
fn by_value_mut_parameters() {
    let f = |p: &[f64]| mut_by_value(p[0], [p[1], p[2]], vec![p[3], p[4]], 2);
    let at = [1.5, 0.5, 2.0, -1.0, 4.0];
    let (v, (gx, ga, gv)) = mut_by_value_grad(at[0], [at[1], at[2]], vec![at[3], at[4]], 2);
    assert_eq!(v.to_bits(), f(&at).to_bits());
    check::gradient(f, &at, &[gx, ga[0], ga[1], gv[0], gv[1]]).unwrap();
}

/// `f32` out-parameter.
#[reverse]
fn scale_f32(x: f32, out: &mut f32) -> f32 {
    *out = *out * x + x;
    x * 2.0
}

#[test]
fn f32_mut_parameter() {
    let mut out = 3.0_f32;
    let (v, (gx, gout)) = scale_f32_vjp(2.0, &mut out, 1.0, 10.0);
    assert_eq!(v, 4.0);
    assert_eq!(out, 8.0);
    assert_eq!(gx, 2.0 + 10.0 * (3.0 + 1.0));
    assert_eq!(gout, 20.0);
}

#[test]
#[should_panic(expected = "the seed of `state` has length 3 but `state` has length 2 on return")]
fn wrong_seed_length_panics() {
    let mut s = vec![1.0, 2.0];
    let _ = euler_decay_vjp(&mut s, 0.5, 2, 1.0, vec![1.0, 1.0, 1.0]);
}

/// One explicit Euler step of the oscillator `x'' = -ω² x`, in place.
#[reverse]
fn oscillator_step(state: &mut [f64], omega: f64, dt: f64) {
    let x = state[0];
    let v = state[1];
    state[0] = x + dt * v;
    state[1] = v - dt * omega * omega * x;
}

/// Calls the stepper on its own `&mut` parameter, passed on as it is.
#[reverse]
fn simulate(state: &mut [f64], omega: f64, steps: usize) -> f64 {
    for _ in 0..steps {
        oscillator_step(state, omega, 0.01);
    }
    state[0] * state[0] + state[1] * state[1]
}

#[test]
fn callee_with_mut_parameter_in_a_loop() {
    let steps = 50;
    let f = |p: &[f64]| {
        let mut s = [p[0], p[1]];
        simulate(&mut s, p[2], steps)
    };
    let at = [1.0, -0.5, 2.0];
    let mut s = vec![at[0], at[1]];
    let (v, (gs, gw)) = simulate_grad(&mut s, at[2], steps);
    assert_eq!(v.to_bits(), f(&at).to_bits());
    let mut primal = [at[0], at[1]];
    simulate(&mut primal, at[2], steps);
    assert_eq!(s, primal);
    check::gradient(f, &at, &[gs[0], gs[1], gw]).unwrap();
    // A seed on the state on return flows through every step.
    let g = |p: &[f64]| {
        let mut s = [p[0], p[1]];
        simulate(&mut s, p[2], steps);
        3.0 * s[0] - s[1]
    };
    let mut s = vec![at[0], at[1]];
    let (_, (gs, gw)) = simulate_vjp(&mut s, at[2], steps, 0.0, vec![3.0, -1.0]);
    check::gradient(g, &at, &[gs[0], gs[1], gw]).unwrap();
}

/// Writes `x, x², x³` into a buffer.
#[reverse]
fn fill_powers(x: f64, out: &mut [f64; 3]) {
    for i in 0..3 {
        out[i] = x.powi(i as i32 + 1);
    }
}

/// A local buffer filled by a callee through `&mut`.
#[reverse]
fn cubic(x: f64, c: &[f64]) -> f64 {
    let mut p = [0.0; 3];
    fill_powers(x, &mut p);
    c[0] * p[0] + c[1] * p[1] + c[2] * p[2]
}

#[test]
fn local_buffer_filled_by_a_callee() {
    let c = [1.5, -2.0, 0.5];
    let x = 1.3;
    let (v, (gx, gc)) = cubic_grad(x, &c);
    assert_eq!(v.to_bits(), cubic(x, &c).to_bits());
    assert_relative_eq!(
        gx,
        c[0] + 2.0 * c[1] * x + 3.0 * c[2] * x * x,
        max_relative = 1e-14
    );
    assert_eq!(gc, vec![x, x * x, x.powi(3)]);
}

/// Adds `x²` to an accumulator and returns `sin x`.
#[reverse]
fn bump(acc: &mut f64, x: f64) -> f64 {
    *acc += x * x;
    x.sin()
}

/// A scalar passed by `&mut` twice, with the call results used.
#[reverse]
fn bumped(x: f64, y: f64) -> f64 {
    let mut acc = y;
    let s = bump(&mut acc, x);
    let t = bump(&mut acc, s);
    acc * t
}

#[test]
fn scalar_mut_argument_closed_form() {
    let (x, y) = (0.7, 1.1);
    let (v, (gx, gy)) = bumped_grad(x, y);
    assert_eq!(v.to_bits(), bumped(x, y).to_bits());
    // acc = y + x² + sin²x, t = sin(sin x)
    let (s, t) = (x.sin(), x.sin().sin());
    let acc = y + x * x + s * s;
    let dt = s.cos() * x.cos();
    let dacc = 2.0 * x + 2.0 * s * x.cos();
    assert_relative_eq!(gx, dacc * t + acc * dt, max_relative = 1e-14);
    assert_relative_eq!(gy, t, max_relative = 1e-15);
}

/// Recursion through a `&mut` parameter: `s0 ← s0 k + s1`, `n` times.
#[reverse]
fn affine_rec(s: &mut [f64], k: f64, n: usize) {
    if n > 0 {
        s[0] = s[0] * k + s[1];
        affine_rec(s, k, n - 1);
    }
}

/// A local buffer handed to the recursive function in a loop, with a scalar carried along.
#[reverse]
fn affine_driver(x: f64) -> f64 {
    let mut a = x;
    let mut v = [x, 1.0];
    for _ in 0..3 {
        affine_rec(&mut v, a, 2);
        a = a * v[0];
    }
    a
}

#[test]
fn recursion_through_a_mut_parameter() {
    let (k, n) = (1.5, 3);
    let mut s = vec![1.0, 2.0];
    let ((), (gs, gk)) = affine_rec_vjp(&mut s, k, n, vec![1.0, 0.0]);
    // s0 k³ + s1 (k² + k + 1)
    assert_eq!(s, vec![k * k * k + 2.0 * (k * k + k + 1.0), 2.0]);
    assert_eq!(gs, vec![k * k * k, k * k + k + 1.0]);
    assert_relative_eq!(
        gk,
        3.0 * k * k + 2.0 * (2.0 * k + 1.0),
        max_relative = 1e-15
    );
    let f = |p: &[f64]| affine_driver(p[0]);
    let (v, g) = affine_driver_grad(0.7);
    assert_eq!(v.to_bits(), affine_driver(0.7).to_bits());
    check::gradient(f, &[0.7], &[g]).unwrap();
}

/// Steps the state and returns its energy before the step.
#[reverse]
fn step_energy(state: &mut [f64], dt: f64) -> f64 {
    let e = state[0] * state[0] + state[1] * state[1];
    let x = state[0];
    state[0] = x + dt * state[1];
    state[1] = state[1] - dt * x;
    e
}

/// The energy of a state, read only.
#[reverse]
fn energy(state: &[f64]) -> f64 {
    state[0] * state[0] + state[1] * state[1]
}

/// A `&mut` parameter passed on as it is to a callee that writes it (its result used), and by
/// `&*s` to one that reads it.
#[reverse]
fn energies(s: &mut [f64], dt: f64) -> f64 {
    let e0 = step_energy(s, dt);
    let e1 = step_energy(s, dt);
    e0 + 2.0 * e1 + 3.0 * energy(&*s)
}

#[test]
fn mut_parameter_passed_on_with_results_used() {
    let f = |p: &[f64]| {
        let mut s = [p[0], p[1]];
        energies(&mut s, p[2])
    };
    let at = [0.8, -0.3, 0.1];
    let mut s = vec![at[0], at[1]];
    let (v, (gs, gdt)) = energies_grad(&mut s, at[2]);
    assert_eq!(v.to_bits(), f(&at).to_bits());
    check::gradient(f, &at, &[gs[0], gs[1], gdt]).unwrap();
}

/// Scales a pair in place.
#[reverse]
fn scale_pair(p: &mut [f64], k: f64) {
    p[0] *= k;
    p[1] = p[1] * k + p[0];
}

/// A sub-slice passed by `&mut`: the callee writes part of the caller's buffer.
#[reverse]
fn scaled_middle(x: &[f64], k: f64) -> f64 {
    let mut v = [0.0; 4];
    for i in 0..4 {
        v[i] = x[i] * x[i];
    }
    scale_pair(&mut v[1..3], k);
    v[0] + v[1] * v[2] + v[3]
}

#[test]
fn sub_slice_passed_by_mut() {
    let f = |p: &[f64]| scaled_middle(&p[..4], p[4]);
    let at = [0.5, 1.5, -1.0, 2.0, 0.7];
    let (v, (gx, gk)) = scaled_middle_grad(&at[..4], at[4]);
    assert_eq!(v.to_bits(), f(&at).to_bits());
    check::gradient(f, &at, &[gx[0], gx[1], gx[2], gx[3], gk]).unwrap();
}

/// Grows a `&mut Vec<f64>` parameter: appends the square roots of the positive inputs.
#[reverse]
fn append_roots(x: &[f64], out: &mut Vec<f64>) {
    for i in 0..x.len() {
        if x[i] > 0.0 {
            out.push(x[i].sqrt() * out.len() as f64);
        }
    }
}

#[test]
fn growing_a_mut_vec_parameter() {
    let x = [4.0, -1.0, 9.0, 0.25];
    let mut out = vec![5.0];
    let seed = vec![1.0, 2.0, 3.0, 4.0];
    let ((), (gx, gout)) = append_roots_vjp(&x, &mut out, seed);
    let mut primal = vec![5.0];
    append_roots(&x, &mut primal);
    assert_eq!(out, primal);
    assert_eq!(out, vec![5.0, 2.0, 6.0, 1.5]);
    // out[k] = sqrt(x_i) · k for the k-th pushed element: d/dx = k / (2 sqrt x) times its seed.
    assert_eq!(
        gx,
        vec![2.0 * 1.0 / 4.0, 0.0, 3.0 * 2.0 / 6.0, 4.0 * 3.0 / 1.0]
    );
    assert_eq!(gout, vec![1.0]);
    // `f_grad`'s zero seeds have the length on entry: accepted.
    let mut out = vec![5.0];
    let ((), _) = append_roots_vjp(&x, &mut out, vec![0.0]);
}

/// `iter_mut()` zipped with a read sequence: writes an out-parameter element by element.
#[reverse]
fn squares_into(x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x.iter()) {
        *yi = 2.0 * xi * xi;
    }
}

/// `iter_mut()` on a `&mut` parameter, updating each element from its old value.
#[reverse]
fn double_all(y: &mut [f64]) {
    for v in y.iter_mut() {
        *v *= 2.0;
    }
}

/// `iter_mut().enumerate()` on a local array, with a `continue` before the element is
/// written and a read of the element after it.
#[reverse]
fn ramp(x: f64) -> f64 {
    let mut h = [0.0; 4];
    for (i, v) in h.iter_mut().enumerate() {
        if i == 2 {
            continue;
        }
        *v = x * (i as f64 + 1.0);
        *v += v.sin();
    }
    h[0] + h[1] * h[3] + h[2]
}

#[test]
fn iter_mut_loops() {
    let mut y = vec![0.0; 2];
    let ((), (gx, gy)) = squares_into_vjp(&[1.0, 3.0], &mut y, vec![1.0, -1.0]);
    assert_eq!(y, vec![2.0, 18.0]);
    assert_eq!(gx, vec![4.0, -12.0]);
    assert_eq!(gy, vec![0.0, 0.0]);
    let mut y = vec![1.0, 2.0];
    let ((), gy) = double_all_vjp(&mut y, vec![1.0, 3.0]);
    assert_eq!(y, vec![2.0, 4.0]);
    assert_eq!(gy, vec![2.0, 6.0]);
    let (v, g) = ramp_grad(0.4);
    assert_eq!(v.to_bits(), ramp(0.4).to_bits());
    let f = |p: &[f64]| ramp(p[0]);
    check::gradient(f, &[0.4], &[g]).unwrap();
}

/// A `&mut [f64]` parameter iterated as it is yields `&mut f64`s.
#[reverse]
fn halve_in_place(y: &mut [f64], k: f64) {
    for v in y {
        *v = *v * k * 0.5;
    }
}

#[test]
fn iterating_a_mut_parameter_writes_it() {
    let mut y = vec![2.0, 4.0];
    let ((), (gy, gk)) = halve_in_place_vjp(&mut y, 3.0, vec![1.0, 1.0]);
    assert_eq!(y, vec![3.0, 6.0]);
    assert_eq!(gy, vec![1.5, 1.5]);
    assert_eq!(gk, 1.0 + 2.0);
}

/// A `&mut f64` accumulator with an early `return` from inside a loop.
#[reverse]
fn accumulate_until(x: f64, acc: &mut f64, n: usize) -> f64 {
    for i in 0..n {
        *acc = *acc * x + 1.0;
        if *acc > 10.0 {
            return *acc * 2.0 + i as f64;
        }
    }
    *acc
}

/// `wrt` leaves a `&mut` parameter out of the gradient; its seed still counts.
#[reverse(wrt(x))]
fn scale_first(x: f64, s: &mut [f64; 2]) -> f64 {
    s[0] = s[0] * x;
    s[1] += x;
    s[0] + s[1]
}

/// A `&mut` parameter only read: its adjoint on entry is its seed plus what the body adds.
#[reverse]
fn read_through(x: f64, r: &mut f64) -> f64 {
    x * *r
}

/// Two outputs of different precisions, returning `()`.
#[reverse]
fn two_outputs(a: &mut f64, b: &mut Vec<f32>, k: f32) {
    *a = *a * 2.0;
    b[0] = b[0] * k + (*a as f32);
}

#[test]
fn early_return_wrt_read_only_and_two_outputs() {
    for at in [[1.5, 0.5], [3.0, 2.0]] {
        // Seed 1 on the result and 3 on `acc` on return.
        let g = |p: &[f64]| {
            let mut a = p[1];
            let v = accumulate_until(p[0], &mut a, 5);
            v + 3.0 * a
        };
        let mut a = at[1];
        let (v, (gx, ga)) = accumulate_until_vjp(at[0], &mut a, 5, 1.0, 3.0);
        let mut primal = at[1];
        assert_eq!(
            v.to_bits(),
            accumulate_until(at[0], &mut primal, 5).to_bits()
        );
        assert_eq!(a, primal);
        check::gradient(g, &at, &[gx, ga]).unwrap();
    }
    let mut s = [2.0, 3.0];
    let (v, gx) = scale_first_vjp(1.5, &mut s, 1.0, [1.0, 0.0]);
    assert_eq!((v, s), (3.0 + 4.5, [3.0, 4.5]));
    assert_eq!(gx, 2.0 + 1.0 + 2.0);
    let mut r = 4.0;
    let (v, (gx, gr)) = read_through_vjp(0.5, &mut r, 1.0, 10.0);
    assert_eq!((v, gx, gr), (2.0, 4.0, 0.5 + 10.0));
    let mut a = 1.5;
    let mut b = vec![2.0f32, 7.0];
    let ((), (ga, gb, gk)) = two_outputs_vjp(&mut a, &mut b, 3.0, 1.0, vec![1.0, 0.0]);
    assert_eq!((a, b), (3.0, vec![9.0, 7.0]));
    assert_eq!((ga, gb, gk), (2.0 + 2.0, vec![3.0, 0.0], 2.0));
}

/// `fill` resets a buffer to one value.
#[reverse]
fn fill_then_bump(x: f64, y: &mut [f64]) {
    y.fill(x * 2.0);
    y[1] += x;
}

/// `iter_mut().for_each(..)`, plain and enumerated.
#[reverse]
fn scale_and_ramp(y: &mut [f64], k: f64) {
    y.iter_mut().for_each(|v| *v *= k);
    y.iter_mut().enumerate().for_each(|(i, v)| {
        if i > 0 {
            *v += k * i as f64;
        }
    });
}

#[test]
fn fill_and_for_each_over_iter_mut() {
    let mut y = vec![9.0; 3];
    let ((), (gx, gy)) = fill_then_bump_vjp(1.5, &mut y, vec![1.0, 2.0, 3.0]);
    assert_eq!(y, vec![3.0, 4.5, 3.0]);
    assert_eq!((gx, gy), (2.0 * 6.0 + 2.0, vec![0.0; 3]));
    let mut y = vec![1.0, 2.0, 3.0];
    let ((), (gy, gk)) = scale_and_ramp_vjp(&mut y, 2.0, vec![1.0, 1.0, 1.0]);
    assert_eq!(y, vec![2.0, 6.0, 10.0]);
    assert_eq!((gy, gk), (vec![2.0, 2.0, 2.0], 6.0 + 3.0));
}

/// `w[0] v[0] + w[1] v[1]`.
#[reverse]
fn dot2(w: &[f64], v: &[f64]) -> f64 {
    w[0] * v[0] + w[1] * v[1]
}

/// A `&mut` parameter read by a callee inside an arm, then written (fuzz finding 7).
#[reverse]
fn read_in_arm_then_write(x: f64, s: &mut [f64]) -> f64 {
    let mut t = x;
    if x > 0.0 {
        t = dot2(&*s, &*s);
    }
    s[0] *= x;
    t + s[0]
}

/// `x²`.
#[reverse]
fn sq(a: f64) -> f64 {
    a * a
}

/// `*o` as the whole argument of a call (fuzz finding 8).
#[reverse]
fn square_of_out(x: f64, o: &mut f64) -> f64 {
    sq(*o) + x
}

/// A call result bound by `let mut` and passed by `&mut` (fuzz finding 9).
#[reverse]
fn bump_a_result(x0: f64, x1: f64) -> f64 {
    let mut m0 = sq(x0);
    let t5 = bump(&mut m0, x1);
    m0 * t5
}

/// `&*a` of a `&mut [f64; 2]` in an `if` condition (fuzz finding 10).
#[reverse]
fn condition_on_mut_array(x: f64, a: &mut [f64; 2]) -> f64 {
    if dot2(&*a, &*a) < x {
        x * a[0]
    } else {
        2.0 * x
    }
}

#[test]
fn fuzz_findings_7_to_10() {
    for x in [0.7, -0.3] {
        let f = |p: &[f64]| {
            let mut s = [p[1], p[2]];
            read_in_arm_then_write(p[0], &mut s)
        };
        let mut s = vec![1.5, -0.5];
        let (v, (gx, gs)) = read_in_arm_then_write_grad(x, &mut s);
        assert_eq!(v.to_bits(), f(&[x, 1.5, -0.5]).to_bits());
        check::gradient(f, &[x, 1.5, -0.5], &[gx, gs[0], gs[1]]).unwrap();
    }
    let mut o = 3.0;
    let (v, (gx, go)) = square_of_out_grad(1.0, &mut o);
    assert_eq!((v, gx, go), (10.0, 1.0, 6.0));
    // `bump` adds x1² to m0 = x0² and returns sin x1: (x0² + x1²) sin x1.
    let (x0, x1) = (2.0f64, 3.0f64);
    let (v, (g0, g1)) = bump_a_result_grad(x0, x1);
    assert_eq!(v.to_bits(), bump_a_result(x0, x1).to_bits());
    assert_relative_eq!(g0, 2.0 * x0 * x1.sin(), max_relative = 1e-15);
    let d1 = 2.0 * x1 * x1.sin() + (x0 * x0 + x1 * x1) * x1.cos();
    assert_relative_eq!(g1, d1, max_relative = 1e-14);
    for (x, expected) in [
        (10.0, (30.0, 3.0, [10.0, 0.0])),
        (1.0, (2.0, 2.0, [0.0, 0.0])),
    ] {
        let mut a = [3.0, 0.5];
        let (v, (gx, ga)) = condition_on_mut_array_grad(x, &mut a);
        assert_eq!((v, gx, ga), expected);
    }
}

/// An early `return;` in a function whose result is an out-parameter.
#[reverse]
fn clipped_square(x: f64, out: &mut f64) {
    if x > 2.0 {
        *out = 4.0;
        return;
    }
    *out = x * x;
}

#[test]
fn early_return_without_a_value() {
    for (x, value, dx) in [(1.5, 2.25, 3.0), (3.0, 4.0, 0.0)] {
        let mut out = 0.0;
        let ((), (gx, gout)) = clipped_square_vjp(x, &mut out, 1.0);
        assert_eq!((out, gx, gout), (value, dx, 0.0));
    }
}

/// A `&mut` slice passed twice to a callee that reads it (fuzz finding CPS 3).
#[reverse]
fn norm_of_mut(x0: f64, s: &mut [f64]) -> f64 {
    dot2(&*s, &*s) * x0
}

#[test]
fn mut_slice_passed_twice_to_a_reader() {
    let mut s = vec![1.0, 2.0];
    let (v, (gx, gs)) = norm_of_mut_grad(3.0, &mut s);
    assert_eq!((v, gx, gs), (15.0, 5.0, vec![6.0, 12.0]));
}

/// A closure whose parameter receives a `&mut` parameter's value (`f(*om)`) and passes it to
/// a callee: the callee gets the value (found by the differential fuzzer: the parameter's name
/// was taken for the reference and passed by `&mut`).
#[revad::reverse]
fn closure_param_from_mut_ref_callee(a: f64, b: f64) -> f64 {
    a * b.sin()
}

#[revad::reverse]
fn closure_param_from_mut_ref(x: f64, om: &mut f64) -> f64 {
    let f = |c1: f64, c2: f64| closure_param_from_mut_ref_callee(c2, x) * c1;
    let t = f(x * 2.0, *om);
    *om *= 3.0;
    t
}

#[test]
fn closure_parameter_bound_to_a_mut_parameter_value() {
    let (x, om0) = (0.7, 1.3);
    let mut om = om0;
    let value = closure_param_from_mut_ref(x, &mut om);
    // t = om0 · sin(x) · 2x; om ← 3 om0.
    assert!((value - om0 * x.sin() * 2.0 * x).abs() < 1e-15);
    assert_eq!(om, 3.0 * om0);
    let mut om = om0;
    let (v, dx, dom) = {
        let (v, (dx, dom)) = closure_param_from_mut_ref_vjp(x, &mut om, 1.0, 0.0);
        (v, dx, dom)
    };
    assert!((v - value).abs() < 1e-15);
    assert!(
        (dx - om0 * (x.cos() * 2.0 * x + x.sin() * 2.0)).abs() < 1e-12,
        "{dx}"
    );
    assert!((dom - x.sin() * 2.0 * x).abs() < 1e-12, "{dom}");
}

// ---------------------------------------------------------------------------------------
// `&mut x` passed where the callee takes `&x` (Rust's coercion): the call passes it as the
// callee's parameter takes it, and keeps a copy for the callee's reverse sweep only then.

/// `x^2`, read through a shared reference.
#[reverse]
pub fn square_of(x: &f64) -> f64 {
    x * x
}

/// The sum of squares of a slice.
#[reverse]
pub fn sum_sq(xs: &[f64]) -> f64 {
    xs.iter().map(|v| v * v).sum()
}

/// `a_0 a_1 + a_2`, of an array by reference.
#[reverse]
pub fn mixed3(a: &[f64; 3]) -> f64 {
    a[0] * a[1] + a[2]
}

/// The weighted sum of a `Vec` by reference.
#[reverse]
pub fn weighted(v: &Vec<f64>, w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * w * (i as f64 + 1.0);
    }
    s
}

/// Locals passed by `&mut` to readers, then written again.
#[reverse]
pub fn lent_locals(x: f64) -> f64 {
    let mut y = x * 2.0;
    let a = square_of(&mut y);
    y += 1.0;
    let mut arr = [x, x * x, 3.0];
    let b = mixed3(&mut arr);
    arr[0] = 5.0 * x;
    let c = sum_sq(&mut arr);
    let mut v = vec![x, 1.0];
    let d = weighted(&mut v, x);
    v[1] = x * x;
    a + y + b + c + d + v[1]
}

/// [`lent_locals`] with the references shared, as a user would first write it.
fn lent_locals_plain(x: f64) -> f64 {
    let y = x * 2.0;
    let a = y * y;
    let arr = [x, x * x, 3.0];
    let b = arr[0] * arr[1] + arr[2];
    let arr = [5.0 * x, x * x, 3.0];
    let c: f64 = arr.iter().map(|v| v * v).sum();
    let d = x * x + x * 2.0;
    a + y + 1.0 + b + c + d + x * x
}

#[test]
fn mut_locals_passed_to_shared_reference_parameters() {
    for x in [0.5, 1.5, -2.0] {
        let (v, dx) = lent_locals_grad(x);
        assert_eq!(v, lent_locals(x));
        assert_relative_eq!(v, lent_locals_plain(x), max_relative = 1e-14);
        // d/dx of 4x^2 + 2x + 1 + x^3 + 3 + 25x^2 + x^4 + 9 + x^2 + 2x + x^2.
        let closed = 8.0 * x + 2.0 + 3.0 * x * x + 50.0 * x + 4.0 * x.powi(3) + 4.0 * x + 2.0;
        assert_relative_eq!(dx, closed, max_relative = 1e-13);
    }
}

/// A `&mut f64` parameter passed on to a reader, then written.
#[reverse]
pub fn lent_scalar_parameter(s: &mut f64, x: f64) -> f64 {
    let a = square_of(s);
    *s = *s * x;
    a + *s
}

#[test]
fn mut_scalar_parameter_passed_to_a_shared_reference() {
    let (s0, x) = (1.5, 3.0);
    let mut s = s0;
    let (v, (ds, dx)) = lent_scalar_parameter_grad(&mut s, x);
    let mut t = s0;
    assert_eq!(v, lent_scalar_parameter(&mut t, x));
    assert_eq!(s, t);
    assert_eq!(s, s0 * x);
    // f = s^2 + s x; the seed of s on return is zero.
    assert_eq!(ds, 2.0 * s0 + x);
    assert_eq!(dx, s0);
}

/// A `&mut [f64]` parameter read by a helper in a loop that writes it.
#[reverse]
pub fn lent_slice_in_a_loop(xs: &mut [f64], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += sum_sq(xs);
        xs[i] *= w;
    }
    s
}

/// [`lent_slice_in_a_loop`] on a copy.
fn lent_slice_in_a_loop_plain(xs: &[f64], w: f64) -> f64 {
    let mut xs = xs.to_vec();
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += xs.iter().map(|v| v * v).sum::<f64>();
        xs[i] *= w;
    }
    s
}

#[test]
fn mut_slice_parameter_passed_to_a_reader_in_a_loop() {
    let x0 = [0.5, -1.25, 2.0];
    let w = 1.5;
    let mut xs = x0;
    let (v, (dxs, dw)) = lent_slice_in_a_loop_grad(&mut xs, w);
    assert_eq!(v, lent_slice_in_a_loop(&mut x0.clone(), w));
    assert_eq!(xs, [x0[0] * w, x0[1] * w, x0[2] * w]);
    let h = 1e-6;
    for k in 0..3 {
        let (mut a, mut b) = (x0, x0);
        a[k] += h;
        b[k] -= h;
        let fd =
            (lent_slice_in_a_loop_plain(&a, w) - lent_slice_in_a_loop_plain(&b, w)) / (2.0 * h);
        assert_relative_eq!(dxs[k], fd, max_relative = 1e-7);
    }
    let fd = (lent_slice_in_a_loop_plain(&x0, w + h) - lent_slice_in_a_loop_plain(&x0, w - h))
        / (2.0 * h);
    assert_relative_eq!(dw, fd, max_relative = 1e-7);
}

/// `for (o, &x) in out.iter_mut().zip(xs)`: the other side bound by value with `&x`.
#[reverse]
fn running_products(xs: &[f64]) -> f64 {
    let mut out = vec![0.0; xs.len()];
    let mut run = 1.0;
    for (o, &x) in out.iter_mut().zip(xs) {
        run *= x;
        *o = run;
    }
    out.iter().sum()
}

/// The same into a `&mut` parameter, `&x` of `xs.iter()`.
#[reverse]
fn add_scaled_squares(xs: &[f64], ys: &mut [f64], k: f64) -> f64 {
    for (y, &x) in ys.iter_mut().zip(xs.iter()) {
        *y += k * x * x;
    }
    ys.iter().sum()
}

#[test]
fn iter_mut_zipped_with_a_side_bound_by_value() {
    let x = [1.0, 2.0, 3.0];
    // 1 + x0 x1 + x0 x1 x2
    let (v, g) = running_products_grad(&x);
    assert_eq!(v, running_products(&x));
    assert_eq!(g, [1.0 + 2.0 + 6.0, 1.0 + 3.0, 2.0]);
    check::gradient(running_products, &x, &g).unwrap();
    let mut y = [1.0, 1.0, 1.0];
    let (v, (dx, dy, dk)) = add_scaled_squares_vjp(&x, &mut y, 0.5, 1.0, vec![0.0; 3]);
    assert_eq!(y, [1.5, 3.0, 5.5]);
    assert_eq!(v, 10.0);
    assert_eq!((dx, dy, dk), (vec![1.0, 2.0, 3.0], vec![1.0; 3], 14.0));
}
