//! The memory a thread keeps between gradients: the buffers of its value stack stay for the
//! next gradient up to `revad::MAX_THREAD_BUFFER_BYTES`, and `revad::release_thread_buffers`
//! frees them. (Each test runs on a thread of its own, so each sees only its own buffers.)

use revad::{release_thread_buffers, reverse, thread_buffer_bytes, MAX_THREAD_BUFFER_BYTES};

/// `x0 aⁿ`, by `n` multiplications: each step stores its `x` (8 bytes) for the reverse sweep.
#[reverse]
fn power(x0: f64, a: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        x *= a;
    }
    x
}

/// `power`'s value and gradient in closed form: `x0 aⁿ`, `(aⁿ, n x0 aⁿ⁻¹)`.
fn power_closed_form(x0: f64, a: f64, n: usize) -> (f64, (f64, f64)) {
    let n_f = n as f64;
    (
        x0 * a.powf(n_f),
        (a.powf(n_f), n_f * x0 * a.powf(n_f - 1.0)),
    )
}

fn assert_close(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs(),
        "{what}: {got} against the closed form {want}"
    );
}

fn check_power(x0: f64, a: f64, n: usize, rel: f64) {
    let (value, (dx0, da)) = power_grad(x0, a, n);
    let (v, (gx0, ga)) = power_closed_form(x0, a, n);
    assert_close("value", value, v, rel);
    assert_close("d/dx0", dx0, gx0, rel);
    assert_close("d/da", da, ga, rel);
    // The gradient's value is the function's, bit for bit (the same `n` products).
    assert_eq!(power(x0, a, n), value);
}

#[test]
fn a_long_gradient_leaves_at_most_the_bound() {
    release_thread_buffers();
    // 10⁷ steps: about 80 MB of stored values (134 MB of capacity as the stack grows).
    let n = 10_000_000;
    check_power(1.5, 1.0 - 1e-7, n, 1e-6);
    let kept = thread_buffer_bytes();
    assert!(kept <= MAX_THREAD_BUFFER_BYTES, "{kept} bytes kept");
    // The stack was trimmed down to the bound, not freed: a smaller gradient next reuses it.
    assert!(kept > MAX_THREAD_BUFFER_BYTES / 2, "{kept} bytes kept");
    release_thread_buffers();
    assert_eq!(thread_buffer_bytes(), 0);
    // The next gradient works as before, on fresh buffers.
    check_power(1.5, 1.0 - 1e-7, 1000, 1e-12);
    assert!(thread_buffer_bytes() >= 8000);
}

#[test]
fn a_small_gradient_repeated_reuses_its_buffers() {
    release_thread_buffers();
    check_power(0.5, 1.001, 10_000, 1e-12);
    let kept = thread_buffer_bytes();
    // Room for the 10⁴ stored values, kept for the next call, within the bound.
    assert!(kept >= 80_000, "{kept} bytes kept");
    assert!(kept <= MAX_THREAD_BUFFER_BYTES, "{kept} bytes kept");
    for n in [10_000, 5000, 1, 10_000] {
        check_power(0.5, 1.001, n, 1e-12);
        // The same capacity: nothing grew, nothing was released.
        assert_eq!(thread_buffer_bytes(), kept);
    }
}

#[test]
fn a_gradient_without_loops_keeps_nothing() {
    #[reverse]
    fn area(w: f64, h: f64) -> f64 {
        w * h
    }
    release_thread_buffers();
    assert_eq!(area_grad(3.0, 2.0), (6.0, (2.0, 3.0)));
    assert_eq!(thread_buffer_bytes(), 0);
}

#[test]
fn a_million_step_gradient_fits_under_the_bound() {
    // The size of the benchmark `recurrence_1e6`: 8 MB of values, kept whole, reused.
    release_thread_buffers();
    check_power(1.5, 1.0 - 1e-7, 1_000_000, 1e-8);
    let kept = thread_buffer_bytes();
    assert!(kept >= 8_000_000, "{kept} bytes kept");
    assert!(kept <= MAX_THREAD_BUFFER_BYTES, "{kept} bytes kept");
    check_power(1.5, 1.0 - 1e-7, 1_000_000, 1e-8);
    assert_eq!(thread_buffer_bytes(), kept);
}

/// `x_{k+1} = sin(x_k) a + x_k b`, `n` steps: each step stores its old `x` (8 bytes) and
/// evaluates `sin(x)` again in the reverse sweep, as a hand-written adjoint does, rather
/// than store it too (16 bytes a step, twice the hand adjoint's peak memory).
#[reverse]
fn sine_map(x0: f64, a: f64, b: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        x = x.sin() * a + x * b;
    }
    x
}

/// `sine_map`'s value and gradient by the tangent recurrence, carried along by hand:
/// `dx' = (a cos x + b) dx + sin x da + x db`, one sweep per input.
fn sine_map_tangents(x0: f64, a: f64, b: f64, n: usize) -> (f64, (f64, f64, f64)) {
    let (mut x, mut d) = (x0, [1.0, 0.0, 0.0]);
    for _ in 0..n {
        let slope = a * x.cos() + b;
        d = [slope * d[0], slope * d[1] + x.sin(), slope * d[2] + x];
        x = x.sin() * a + x * b;
    }
    (x, (d[0], d[1], d[2]))
}

#[test]
fn a_recurrence_keeps_one_float_per_step() {
    release_thread_buffers();
    let n = 100_000;
    let (x0, a, b) = (0.5, 1e-3, 1.0 - 1e-6);
    let (value, (dx0, da, db)) = sine_map_grad(x0, a, b, n);
    let (v, (tx0, ta, tb)) = sine_map_tangents(x0, a, b, n);
    assert_eq!(value, sine_map(x0, a, b, n));
    assert_close("value", value, v, 1e-12);
    assert_close("d/dx0", dx0, tx0, 1e-9);
    assert_close("d/da", da, ta, 1e-9);
    assert_close("d/db", db, tb, 1e-9);
    // 8 bytes a step: the buffer grew by doubling to under twice that (two floats a step,
    // 1.6 MB of values, would need 2 MiB).
    let kept = thread_buffer_bytes();
    assert!(kept >= 8 * n, "{kept} bytes kept");
    assert!(kept < 16 * n, "{kept} bytes kept");
}
