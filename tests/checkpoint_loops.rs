//! `#[revad::checkpoint]` on a loop inside a `#[reverse]` function: `NAME_vjp` keeps at most
//! the budget's states of the loop and recomputes the others in its reverse sweep.
//!
//! Each function is written twice by a macro, with the attribute (under every budget from 1
//! to 8 snapshots, and the default) and without it: the primal and the gradient must have the
//! same bits for every `n` up to 8 (the reverse of a step runs the same code on the same
//! state), and the gradient must match an independent computation (a tangent recurrence
//! derived by hand, or central finite differences of the primal).

#![allow(
    clippy::type_complexity,
    clippy::ptr_arg,
    clippy::needless_range_loop,
    clippy::useless_vec,
    reason = "the functions are written as a user would, for the macro: `&mut Vec` and a `Vec` \
              state on purpose, index loops; the tables of generated functions have long types"
)]

use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
use bits::assert_same_bits_at;

/// The budgets each family is instantiated with (`None`: the attribute without argument).
macro_rules! budgets {
    ($family:ident) => {
        $family!(b1, 1);
        $family!(b2, 2);
        $family!(b3, 3);
        $family!(b4, 4);
        $family!(b5, 5);
        $family!(b6, 6);
        $family!(b7, 7);
        $family!(b8, 8);
    };
}

/// Central finite difference of `f` at `x`.
fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        (a - b).abs() <= tol * (1.0 + b.abs()),
        "{what}: {a} vs {b} (tolerance {tol})"
    );
}

// ---- a scalar state that reads an active parameter ----------------------------------------

mod scalar {
    use super::*;

    /// s_{k+1} = sin(s_k)·x + 0.1·i, s_0 = x; the loss is s_n².
    #[reverse]
    pub fn plain(x: f64, n: usize) -> f64 {
        let mut s = x;
        for i in 0..n {
            s = s.sin() * x + 0.1 * i as f64;
        }
        s * s
    }

    #[reverse]
    pub fn default_budget(x: f64, n: usize) -> f64 {
        let mut s = x;
        #[revad::checkpoint]
        for i in 0..n {
            s = s.sin() * x + 0.1 * i as f64;
        }
        s * s
    }

    macro_rules! family {
        ($name:ident, $k:tt) => {
            #[reverse]
            pub fn $name(x: f64, n: usize) -> f64 {
                let mut s = x;
                #[revad::checkpoint(snapshots = $k)]
                for i in 0..n {
                    s = s.sin() * x + 0.1 * i as f64;
                }
                s * s
            }
        };
    }
    budgets!(family);

    pub const ALL: [fn(f64, usize, f64) -> (f64, f64); 9] = [
        b1_vjp,
        b2_vjp,
        b3_vjp,
        b4_vjp,
        b5_vjp,
        b6_vjp,
        b7_vjp,
        b8_vjp,
        default_budget_vjp,
    ];

    /// d(s_n²)/dx by the tangent recurrence ṡ_{k+1} = cos(s_k)·x·ṡ_k + sin(s_k), ṡ_0 = 1.
    pub fn closed_form(x: f64, n: usize) -> f64 {
        let (mut s, mut ds) = (x, 1.0);
        for i in 0..n {
            ds = s.cos() * x * ds + s.sin();
            s = s.sin() * x + 0.1 * i as f64;
        }
        2.0 * s * ds
    }
}

#[test]
fn scalar_state_every_budget_same_bits_as_without_the_attribute() {
    for n in 0..=8 {
        for x in [0.7, -1.3, 2.1] {
            let want = scalar::plain_vjp(x, n, 1.0);
            for (b, vjp) in scalar::ALL.iter().enumerate() {
                let got = vjp(x, n, 1.0);
                assert_same_bits_at(got, want, (n, x, b + 1));
            }
            assert_same_bits_at(scalar::b3(x, n), scalar::plain(x, n), (n, x));
            close(want.1, scalar::closed_form(x, n), 1e-12, "closed form");
            close(
                want.1,
                central(|x| scalar::plain(x, n), x),
                1e-6,
                "finite differences",
            );
        }
    }
}

#[test]
fn scalar_state_long_loop_small_budget() {
    // 1000 steps under 3 snapshots: the gradient of the loop that keeps every state.
    let (x, n) = (0.9, 1000);
    let want = scalar::plain_grad(x, n);
    assert_same_bits_at(scalar::b3_grad(x, n), want, n);
    assert_same_bits_at(scalar::b1_grad(x, 50), scalar::plain_grad(x, 50), 50);
    close(want.1, scalar::closed_form(x, n), 1e-9, "closed form");
}

// ---- a fixed-array state, two parameters, a loop over `lo..hi` ----------------------------

mod oscillator {
    use super::*;

    /// A damped oscillator (symplectic Euler) with state [x, v] and parameters p = [ω², γ],
    /// from step `lo` to `hi`; the loss is x² + v.
    #[reverse]
    pub fn plain(s0: [f64; 2], p: [f64; 2], lo: usize, hi: usize) -> f64 {
        let mut s = s0;
        let dt = 0.01;
        for _ in lo..hi {
            let v = s[1] - dt * (p[0] * s[0] + p[1] * s[1]);
            s = [s[0] + dt * v, v];
        }
        s[0] * s[0] + s[1]
    }

    macro_rules! family {
        ($name:ident, $k:tt) => {
            #[reverse]
            pub fn $name(s0: [f64; 2], p: [f64; 2], lo: usize, hi: usize) -> f64 {
                let mut s = s0;
                let dt = 0.01;
                #[revad::checkpoint(snapshots = $k)]
                for _ in lo..hi {
                    let v = s[1] - dt * (p[0] * s[0] + p[1] * s[1]);
                    s = [s[0] + dt * v, v];
                }
                s[0] * s[0] + s[1]
            }
        };
    }
    budgets!(family);

    type Vjp = fn([f64; 2], [f64; 2], usize, usize, f64) -> (f64, ([f64; 2], [f64; 2]));
    pub const ALL: [Vjp; 8] = [
        b1_vjp, b2_vjp, b3_vjp, b4_vjp, b5_vjp, b6_vjp, b7_vjp, b8_vjp,
    ];

    /// The gradient by tangent recurrences along each of the four inputs.
    pub fn closed_form(s0: [f64; 2], p: [f64; 2], n: usize) -> ([f64; 2], [f64; 2]) {
        let dt = 0.01;
        let mut grads = [0.0; 4];
        for (j, g) in grads.iter_mut().enumerate() {
            let (mut s, mut ds) = (s0, [0.0; 2]);
            let mut dp = [0.0; 2];
            match j {
                0 | 1 => ds[j] = 1.0,
                _ => dp[j - 2] = 1.0,
            }
            for _ in 0..n {
                let v = s[1] - dt * (p[0] * s[0] + p[1] * s[1]);
                let dv = ds[1] - dt * (dp[0] * s[0] + p[0] * ds[0] + dp[1] * s[1] + p[1] * ds[1]);
                ds = [ds[0] + dt * dv, dv];
                s = [s[0] + dt * v, v];
            }
            *g = 2.0 * s[0] * ds[0] + ds[1];
        }
        ([grads[0], grads[1]], [grads[2], grads[3]])
    }
}

#[test]
fn array_state_every_budget_same_bits_and_closed_form() {
    let (s0, p) = ([1.0, -0.5], [4.0, 0.3]);
    for n in 0..=8 {
        let want = oscillator::plain_vjp(s0, p, 3, 3 + n, 1.0);
        for (b, vjp) in oscillator::ALL.iter().enumerate() {
            assert_same_bits_at(vjp(s0, p, 3, 3 + n, 1.0), want, (n, b + 1));
        }
        let (ds, dp) = oscillator::closed_form(s0, p, n);
        for (got, want) in want.1 .0.iter().chain(&want.1 .1).zip(ds.iter().chain(&dp)) {
            close(*got, *want, 1e-12, "closed form");
        }
    }
}

// ---- a loop that calls an annotated helper, with a state of two scalars -------------------

mod helper {
    use super::*;

    /// One step of a predator–prey map.
    #[reverse]
    pub fn next(a: f64, b: f64, r: f64) -> f64 {
        a + 0.05 * (r * a - a * b)
    }

    #[reverse]
    pub fn plain(a0: f64, b0: f64, r: f64, n: usize) -> f64 {
        let mut a = a0;
        let mut b = b0;
        for _ in 0..n {
            let a1 = next(a, b, r);
            b = next(b, -a, -0.5);
            a = a1;
        }
        a * b
    }

    macro_rules! family {
        ($name:ident, $k:tt) => {
            #[reverse]
            pub fn $name(a0: f64, b0: f64, r: f64, n: usize) -> f64 {
                let mut a = a0;
                let mut b = b0;
                #[revad::checkpoint(snapshots = $k)]
                for _ in 0..n {
                    let a1 = next(a, b, r);
                    b = next(b, -a, -0.5);
                    a = a1;
                }
                a * b
            }
        };
    }
    budgets!(family);

    type Vjp = fn(f64, f64, f64, usize, f64) -> (f64, (f64, f64, f64));
    pub const ALL: [Vjp; 8] = [
        b1_vjp, b2_vjp, b3_vjp, b4_vjp, b5_vjp, b6_vjp, b7_vjp, b8_vjp,
    ];
}

#[test]
fn loop_calling_an_annotated_helper_every_budget() {
    let (a0, b0, r) = (1.2, 0.4, 0.9);
    for n in 0..=8 {
        let want = helper::plain_vjp(a0, b0, r, n, 1.0);
        for (b, vjp) in helper::ALL.iter().enumerate() {
            assert_same_bits_at(vjp(a0, b0, r, n, 1.0), want, (n, b + 1));
        }
        let (da, db, dr) = want.1;
        close(da, central(|a| helper::b2(a, b0, r, n), a0), 1e-6, "d/da0");
        close(db, central(|b| helper::b2(a0, b, r, n), b0), 1e-6, "d/db0");
        close(dr, central(|r| helper::b2(a0, b0, r, n), r), 1e-6, "d/dr");
    }
}

// ---- state written through `&mut`: a `Vec` and a fixed array, with a nested inner loop ----

mod in_place {
    use super::*;

    /// Explicit Euler for ds/dt = -k·s·|s|, in place over a `Vec`; returns s[0].
    #[reverse]
    pub fn plain(state: &mut Vec<f64>, k: f64, steps: usize) -> f64 {
        let dt = 0.1;
        for _ in 0..steps {
            for i in 0..state.len() {
                state[i] = state[i] - dt * k * state[i] * state[i].abs();
            }
        }
        state[0]
    }

    macro_rules! family {
        ($name:ident, $k:tt) => {
            #[reverse]
            pub fn $name(state: &mut Vec<f64>, k: f64, steps: usize) -> f64 {
                let dt = 0.1;
                #[revad::checkpoint(snapshots = $k)]
                for _ in 0..steps {
                    for i in 0..state.len() {
                        state[i] = state[i] - dt * k * state[i] * state[i].abs();
                    }
                }
                state[0]
            }
        };
    }
    budgets!(family);

    type Vjp = fn(&mut Vec<f64>, f64, usize, f64, Vec<f64>) -> (f64, (Vec<f64>, f64));
    pub const ALL: [Vjp; 8] = [
        b1_vjp, b2_vjp, b3_vjp, b4_vjp, b5_vjp, b6_vjp, b7_vjp, b8_vjp,
    ];
}

#[test]
fn mut_vec_parameter_state_every_budget() {
    let (k, s0) = (0.7, vec![1.0, -2.0, 0.5]);
    for n in 0..=8 {
        let seeds = (1.0, vec![0.5, -1.0, 2.0]);
        let mut want_state = s0.clone();
        let want = in_place::plain_vjp(&mut want_state, k, n, seeds.0, seeds.1.clone());
        for (b, vjp) in in_place::ALL.iter().enumerate() {
            let mut state = s0.clone();
            let got = vjp(&mut state, k, n, seeds.0, seeds.1.clone());
            assert_same_bits_at((got, state), (want.clone(), want_state.clone()), (n, b + 1));
        }
        // d/dk of s[0] + (0.5, -1, 2)·s on return, by finite differences of the primal.
        let loss = |k: f64| {
            let mut s = s0.clone();
            let first = in_place::plain(&mut s, k, n);
            first + 0.5 * s[0] - s[1] + 2.0 * s[2]
        };
        close(want.1 .1, central(loss, k), 1e-6, "d/dk");
    }
}

mod rk4 {
    use super::*;

    /// RK4 for x'' = -ω²·x, state [x, v] updated in place.
    #[reverse]
    pub fn plain(state: &mut [f64; 2], omega: f64, dt: f64, steps: usize) {
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

    #[reverse]
    pub fn checkpointed(state: &mut [f64; 2], omega: f64, dt: f64, steps: usize) {
        let w2 = omega * omega;
        #[revad::checkpoint(snapshots = 3)]
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
}

#[test]
fn mut_array_parameter_state() {
    let (omega, dt) = (2.0, 0.05);
    for n in [0, 1, 2, 5, 40] {
        let seed = [1.0, 0.25];
        let mut a = [1.0, 0.0];
        let want = rk4::plain_vjp(&mut a, omega, dt, n, seed);
        let mut b = [1.0, 0.0];
        let got = rk4::checkpointed_vjp(&mut b, omega, dt, n, seed);
        assert_same_bits_at((got.1, b), (want.1, a), n);
        // x(t) ≈ cos(ωt): d/dω of x_n + v_n/4 against finite differences of the primal.
        let loss = |omega: f64| {
            let mut s = [1.0, 0.0];
            rk4::plain(&mut s, omega, dt, n);
            s[0] + 0.25 * s[1]
        };
        close(want.1 .1, central(loss, omega), 1e-6, "d/dω");
    }
}

// ---- a local `Vec` state, a generic float type, the loop variable as an index --------------

mod generic {
    use revad::{reverse, Float};

    /// A running weighted sum over a local `Vec`: h_{k+1}[j] = tanh(h_k[j]·w[i] + h_k[j-1]).
    #[reverse]
    pub fn plain<T: Float>(w: &[T], h0: T, n: usize) -> T {
        let mut h = vec![h0; 3];
        for i in 0..n {
            let prev = h[2];
            for j in 0..3 {
                let left = if j == 0 { prev } else { h[j - 1] };
                h[j] = (h[j] * w[i % w.len()] + left).tanh();
            }
        }
        h[0] + h[1] * h[2]
    }

    #[reverse]
    pub fn checkpointed<T: Float>(w: &[T], h0: T, n: usize) -> T {
        let mut h = vec![h0; 3];
        #[revad::checkpoint(snapshots = 2)]
        for i in 0..n {
            let prev = h[2];
            for j in 0..3 {
                let left = if j == 0 { prev } else { h[j - 1] };
                h[j] = (h[j] * w[i % w.len()] + left).tanh();
            }
        }
        h[0] + h[1] * h[2]
    }
}

#[test]
fn local_vec_state_generic_float() {
    let w = [0.5, -0.3, 0.9];
    for n in 0..=8 {
        let want = generic::plain_grad(&w[..], 0.4, n);
        assert_same_bits_at(generic::checkpointed_grad(&w[..], 0.4, n), want.clone(), n);
        let want32 = generic::plain_grad(&[0.5f32, -0.3, 0.9][..], 0.4f32, n);
        let got32 = generic::checkpointed_grad(&[0.5f32, -0.3, 0.9][..], 0.4f32, n);
        assert_same_bits_at(got32, want32, n);
        let dh0 = central(|h| generic::plain(&w[..], h, n), 0.4);
        close(want.1 .1, dh0, 1e-6, "d/dh0");
        for k in 0..3 {
            let dw = central(
                |x| {
                    let mut v = w;
                    v[k] = x;
                    generic::plain(&v[..], 0.4, n)
                },
                w[k],
            );
            close(want.1 .0[k], dw, 1e-6, "d/dw");
        }
    }
}

// ---- memory, and a caller ------------------------------------------------------------------

#[test]
fn the_tape_holds_one_step_not_the_loop() {
    // Without the attribute the loop keeps one f64 per step (800 kB for 10⁵ steps); with it,
    // the stack holds one step's values at a time, and the schedule at most 3 states.
    let (x, n) = (0.9, 100_000);
    revad::release_thread_buffers();
    let want = scalar::plain_grad(x, n);
    let unchecked = revad::thread_buffer_bytes();
    revad::release_thread_buffers();
    let got = scalar::b3_grad(x, n);
    let checked = revad::thread_buffer_bytes();
    assert_same_bits_at(got, want, n);
    assert!(unchecked >= 8 * n, "unchecked: {unchecked} bytes");
    assert!(checked <= 1024, "checkpointed: {checked} bytes");
}

/// A caller: the split companions of `scalar::b4` run its loop as written.
#[reverse]
fn caller(x: f64, n: usize) -> f64 {
    let y = scalar::b4(x, n);
    y * x
}

#[test]
fn called_from_another_annotated_function() {
    for n in [0, 1, 5, 8] {
        let x = 0.6;
        let (v, g) = caller_grad(x, n);
        let y = scalar::plain(x, n);
        assert_same_bits_at(v, y * x, n);
        close(g, scalar::closed_form(x, n) * x + y, 1e-12, "closed form");
    }
}

// ---- other ranges, an integer in the state, a state the code after the loop writes ---------

mod ranges {
    use super::*;

    macro_rules! pair {
        ($plain:ident, $checked:ident, $n:ident, $($range:tt)*) => {
            #[reverse]
            pub fn $plain(x: f64, $n: usize) -> f64 {
                let mut s = x;
                let mut count = 0usize;
                let mut c = 0.5;
                for i in $($range)* {
                    s = (s * c + x * i as f64).sin() + count as f64 * 1e-3;
                    count += 1;
                }
                c = 2.0;
                s * c + count as f64
            }

            #[reverse]
            pub fn $checked(x: f64, $n: usize) -> f64 {
                let mut s = x;
                let mut count = 0usize;
                let mut c = 0.5;
                #[revad::checkpoint(snapshots = 2)]
                for i in $($range)* {
                    s = (s * c + x * i as f64).sin() + count as f64 * 1e-3;
                    count += 1;
                }
                c = 2.0;
                s * c + count as f64
            }
        };
    }
    pair!(rev_plain, rev_checked, n, (0..n).rev());
    pair!(incl_plain, incl_checked, n, 1..=n);
    pair!(step_plain, step_checked, n, (0..3 * n).step_by(3));

    /// A loop that carries nothing (its body writes no variable declared before it).
    #[reverse]
    pub fn stateless(x: f64, n: usize) -> f64 {
        #[revad::checkpoint]
        for i in 0..n {
            let _t = x * i as f64;
        }
        x * x
    }
}

#[test]
fn rev_inclusive_and_step_by_ranges() {
    type Vjp = fn(f64, usize, f64) -> (f64, f64);
    let pairs: [(Vjp, Vjp, fn(f64, usize) -> f64); 3] = [
        (
            ranges::rev_plain_vjp,
            ranges::rev_checked_vjp,
            ranges::rev_plain,
        ),
        (
            ranges::incl_plain_vjp,
            ranges::incl_checked_vjp,
            ranges::incl_plain,
        ),
        (
            ranges::step_plain_vjp,
            ranges::step_checked_vjp,
            ranges::step_plain,
        ),
    ];
    for (plain, checked, primal) in pairs {
        for n in 0..=7 {
            let x = 0.8;
            let want = plain(x, n, 1.0);
            assert_same_bits_at(checked(x, n, 1.0), want, n);
            close(
                want.1,
                central(|x| primal(x, n), x),
                1e-6,
                "finite differences",
            );
        }
    }
    assert_eq!(ranges::stateless_grad(3.0, 5), (9.0, 6.0));
}

// ---- a derived struct in the state, stepped by an annotated helper through `&mut` ----------

mod particle {
    use super::*;

    /// A point mass on a line.
    #[derive(Clone, Debug, PartialEq, revad::Adjoint)]
    pub struct Particle {
        pub pos: f64,
        pub vel: f64,
        pub mass: f64,
    }

    #[reverse]
    pub fn kick(p: &mut Particle, f: f64, dt: f64) {
        p.vel += dt * (f - p.pos * p.pos) / p.mass;
        p.pos += dt * p.vel;
    }

    #[reverse]
    pub fn plain(p: &Particle, f: f64, n: usize) -> f64 {
        let mut q = Particle {
            pos: p.pos,
            vel: p.vel,
            mass: p.mass,
        };
        for _ in 0..n {
            kick(&mut q, f, 0.1);
        }
        q.pos * q.mass + q.vel
    }

    #[reverse]
    pub fn checked(p: &Particle, f: f64, n: usize) -> f64 {
        let mut q = Particle {
            pos: p.pos,
            vel: p.vel,
            mass: p.mass,
        };
        #[revad::checkpoint(snapshots = 2)]
        for _ in 0..n {
            kick(&mut q, f, 0.1);
        }
        q.pos * q.mass + q.vel
    }
}

#[test]
fn struct_state_stepped_by_a_helper() {
    let p = particle::Particle {
        pos: 0.3,
        vel: -0.2,
        mass: 1.5,
    };
    for n in 0..=7 {
        let (v, (dp, df)) = particle::plain_grad(&p, 2.0, n);
        let (w, (eq, eg)) = particle::checked_grad(&p, 2.0, n);
        assert_same_bits_at(w, v, n);
        assert_same_bits_at(
            [eq.pos, eq.vel, eq.mass, eg],
            [dp.pos, dp.vel, dp.mass, df],
            n,
        );
        close(
            df,
            central(|f| particle::plain(&p, f, n), 2.0),
            1e-6,
            "d/df",
        );
        let dpos = central(
            |x| {
                particle::plain(
                    &particle::Particle {
                        pos: x,
                        ..p.clone()
                    },
                    2.0,
                    n,
                )
            },
            p.pos,
        );
        close(dp.pos, dpos, 1e-6, "d/dpos");
    }
}

// ---- the other modes run the loop as written -----------------------------------------------

mod modes {
    use super::*;

    #[reverse(cps)]
    pub fn cps(x: f64, n: usize) -> f64 {
        let mut s = x;
        #[revad::checkpoint(snapshots = 2)]
        for i in 0..n {
            s = s.sin() * x + 0.1 * i as f64;
        }
        s * s
    }

    #[revad::forward]
    pub fn forward(x: f64, n: usize) -> f64 {
        let mut s = x;
        #[revad::checkpoint(snapshots = 2)]
        for i in 0..n {
            s = s.sin() * x + 0.1 * i as f64;
        }
        s * s
    }

    #[reverse(hessian)]
    pub fn hessian(x: f64, n: usize) -> f64 {
        let mut s = x;
        #[revad::checkpoint(snapshots = 2)]
        for i in 0..n {
            s = s.sin() * x + 0.1 * i as f64;
        }
        s * s
    }
}

#[test]
fn cps_forward_and_hessian_modes() {
    for n in 0..=6 {
        let x = 0.7;
        let want = scalar::plain_grad(x, n);
        assert_same_bits_at(modes::cps_grad(x, n), want, n);
        assert_same_bits_at(modes::hessian_grad(x, n), want, n);
        let (v, d) = modes::forward_jvp(x, n, 1.0);
        assert_same_bits_at(v, want.0, n);
        close(d, want.1, 1e-13, "forward mode");
        // The second derivative against finite differences of the gradient.
        let (_, _, h) = modes::hessian_hessian(x, n);
        let fd = central(|x| scalar::plain_grad(x, n).1, x);
        close(h[0][0], fd, 1e-6, "second derivative");
    }
}

// ---- a method -------------------------------------------------------------------------------

impl particle::Particle {
    /// The particle's position after `n` kicks, as a method with a checkpointed loop.
    #[reverse]
    fn drift(&self, f: f64, n: usize) -> f64 {
        let mut x = self.pos;
        let mut v = self.vel;
        #[revad::checkpoint(snapshots = 2)]
        for _ in 0..n {
            v += 0.1 * (f - x * x) / self.mass;
            x += 0.1 * v;
        }
        x
    }

    #[reverse]
    fn drift_plain(&self, f: f64, n: usize) -> f64 {
        let mut x = self.pos;
        let mut v = self.vel;
        for _ in 0..n {
            v += 0.1 * (f - x * x) / self.mass;
            x += 0.1 * v;
        }
        x
    }
}

#[test]
fn a_method_with_a_checkpointed_loop() {
    let p = particle::Particle {
        pos: 0.3,
        vel: -0.2,
        mass: 1.5,
    };
    for n in 0..=7 {
        let (v, (dp, df)) = p.drift_plain_grad(2.0, n);
        let (w, (eq, eg)) = p.drift_grad(2.0, n);
        assert_same_bits_at(w, v, n);
        assert_same_bits_at(
            [eq.pos, eq.vel, eq.mass, eg],
            [dp.pos, dp.vel, dp.mass, df],
            n,
        );
        close(df, central(|f| p.drift_plain(f, n), 2.0), 1e-6, "d/df");
    }
}

/// `#[revad::forward]` above `#[reverse]`: the checkpoint is still `NAME_vjp`'s.
#[revad::forward]
#[reverse]
fn both_attributes(x: f64, n: usize) -> f64 {
    let mut s = x;
    #[revad::checkpoint(snapshots = 2)]
    for i in 0..n {
        s = s.sin() * x + 0.1 * i as f64;
    }
    s * s
}

#[test]
fn forward_above_reverse_keeps_the_checkpoint() {
    let (x, n) = (0.9, 20_000);
    revad::release_thread_buffers();
    let got = both_attributes_grad(x, n);
    let held = revad::thread_buffer_bytes();
    assert_same_bits_at(got, scalar::plain_grad(x, n), n);
    assert!(held <= 1024, "checkpointed: {held} bytes");
    let (v, d) = both_attributes_jvp(x, n, 1.0);
    assert_same_bits_at(v, got.0, n);
    close(d, got.1, 1e-12, "forward mode");
}
