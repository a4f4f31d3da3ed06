//! `f32` end to end: parameters, literals, intrinsics, loops (values popped as `f32`),
//! arrays, calls, closures and custom derivatives, each against an `f64` reference.

use revad::{derivative, reverse};

#[path = "common/bits.rs"]
mod bits;
use bits::checked;

// Each function under test also has a thin caller, `NAME_via`: its gradient goes through the
// split companions of `NAME`, and must agree with `NAME_grad` bit for bit.

fn close(a: f32, b: f64) {
    let (a, b) = (a as f64, b);
    assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
}

#[reverse]
fn poly(x: f32, y: f32) -> f32 {
    let z = 2.0_f32 * x + x * x * y - 0.5;
    z.sin() + z.sqrt().ln() + f32::exp(-y)
}

#[reverse]
fn poly_via(x: f32, y: f32) -> f32 {
    poly(x, y)
}

#[test]
fn scalar_function_with_literals_and_intrinsics() {
    let (x, y) = (1.3_f32, 0.7_f32);
    let (_, (dx, dy)) = checked(poly(x, y), poly_grad(x, y), poly_via_grad(x, y));
    let (xd, yd) = (x as f64, y as f64);
    let z = 2.0 * xd + xd * xd * yd - 0.5;
    let dz = z.cos() + 0.5 / z;
    close(dx, dz * (2.0 + 2.0 * xd * yd));
    close(dy, dz * xd * xd - (-yd).exp());
}

#[reverse]
fn recurrence32(x0: f32, a: f32, n: usize) -> f32 {
    let mut x = x0;
    for _ in 0..n {
        x = x.sin() * a + x * 0.9;
        if x > 0.8 {
            x = x.sqrt();
        }
    }
    x
}

#[reverse]
fn recurrence32_via(x0: f32, a: f32, n: usize) -> f32 {
    recurrence32(x0, a, n)
}

#[test]
fn loop_carried_f32_values_go_through_the_stack() {
    let (x0, a, n) = (0.5_f32, 0.3_f32, 40);
    let (_, (dx, da)) = checked(
        recurrence32(x0, a, n),
        recurrence32_grad(x0, a, n),
        recurrence32_via_grad(x0, a, n),
    );
    // Forward mode by hand in f64 along the same branches.
    let (mut x, mut ddx, mut dda) = (x0 as f64, 1.0, 0.0);
    let a = a as f64;
    for _ in 0..n {
        let (s, c) = (x.sin(), x.cos());
        let nx = s * a + x * 0.9;
        ddx *= c * a + 0.9;
        dda = (c * a + 0.9) * dda + s;
        x = nx;
        if x as f32 > 0.8 {
            ddx *= 0.5 / x.sqrt();
            dda *= 0.5 / x.sqrt();
            x = x.sqrt();
        }
    }
    close(dx, ddx);
    close(da, dda);
}

#[reverse]
fn weighted32(w: &[f32], xs: [f32; 3]) -> f32 {
    let mut s = 0.0;
    for i in 0..3 {
        s += w[i] * xs[i].tanh();
    }
    s + xs.iter().map(|x| x * x).sum::<f32>()
}

#[reverse]
fn weighted32_via(w: &[f32], xs: [f32; 3]) -> f32 {
    weighted32(w, xs)
}

#[test]
fn f32_arrays_and_slices() {
    let w = [0.5_f32, -1.0, 2.0];
    let xs = [0.1_f32, 0.2, -0.3];
    let (_, (dw, dxs)) = checked(
        weighted32(&w, xs),
        weighted32_grad(&w, xs),
        weighted32_via_grad(&w, xs),
    );
    for i in 0..3 {
        close(dw[i], (xs[i] as f64).tanh());
        let t = (xs[i] as f64).tanh();
        close(dxs[i], w[i] as f64 * (1.0 - t * t) + 2.0 * xs[i] as f64);
    }
}

#[reverse]
fn inner32(x: f32) -> f32 {
    x.powi(3) * 0.5
}

#[derivative(vjp = halve_pullback)]
fn halve(x: f32) -> f32 {
    x / 2.0
}

fn halve_pullback(_x: f32, _out: f32, seed: f32) -> f32 {
    seed / 2.0
}

#[reverse]
fn outer32(x: f32) -> f32 {
    let f = |t: f32| inner32(t) + halve(t);
    f(x) * f(x + 1.0)
}

#[reverse]
fn outer32_via(x: f32) -> f32 {
    outer32(x)
}

#[test]
fn f32_calls_closures_and_custom_derivatives() {
    let x = 0.6_f32;
    let (_, d) = checked(outer32(x), outer32_grad(x), outer32_via_grad(x));
    let xd = x as f64;
    let f = |t: f64| 0.5 * t.powi(3) + t / 2.0;
    let df = |t: f64| 1.5 * t * t + 0.5;
    close(d, df(xd) * f(xd + 1.0) + f(xd) * df(xd + 1.0));
}
