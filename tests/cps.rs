//! The CPS backend, `#[reverse(cps)]`, on the examples of Wang et al. (ICFP 2019) and the
//! free-variable example of Pearlmutter & Siskind: each gradient against its closed form,
//! finite differences, and the tape backend's gradient bit for bit. (Every other integration
//! test also runs under the CPS backend: see `tests/cps-corpus`.)

use approx::assert_relative_eq;
use revad::check;

#[path = "common/bits.rs"]
mod bits;
use bits::{assert_agree, assert_same_bits};

#[path = "common/both.rs"]
#[macro_use]
mod both;

#[path = "common/wang.rs"]
mod wang;
use wang::*;

#[path = "common/workloads.rs"]
mod workloads;

#[test]
fn two_x_plus_x_cubed() {
    for x in [-2.0, -0.5, 0.0, 0.75, 3.0] {
        let (v, d) = poly_grad(x);
        assert_same_bits(&(v, d), &poly_tape_grad(x));
        assert_eq!(v.to_bits(), poly(x).to_bits());
        assert_relative_eq!(d, 2.0 + 3.0 * x * x, max_relative = 1e-15);
        check::gradient(|v| poly(v[0]), &[x], &[d]).unwrap();
    }
    let (_, d) = poly_vjp(2.0, 0.5);
    assert_eq!(d, 0.5 * 14.0);
}

#[test]
fn if_shares_one_continuation() {
    for x in [-1.5, -0.25, 0.5, 2.0] {
        let (v, d) = branch_grad(x);
        assert_same_bits(&(v, d), &branch_tape_grad(x));
        let expected = if x > 0.0 { 3.0 * x * x } else { -2.0 };
        assert_relative_eq!(d, expected, max_relative = 1e-15);
        check::gradient(|v| branch(v[0]), &[x], &[d]).unwrap();
    }
}

#[test]
fn while_runs_as_the_tapes_loop() {
    for (x, n) in [(1.1, 0), (1.1, 1), (0.9, 5), (-1.3, 7), (1.0001, 10_000)] {
        let (v, (d,)) = power_grad(x, n).into_tuple();
        assert_same_bits(&power_grad(x, n), &power_tape_grad(x, n));
        assert_eq!(v.to_bits(), power(x, n).to_bits());
        let expected = if n == 0 {
            0.0
        } else {
            n as f64 * x.powi(n as i32 - 1)
        };
        assert_relative_eq!(d, expected, max_relative = 1e-11);
        if n <= 10 {
            // (x^10000 curves too fast for a finite difference.)
            check::gradient(|v| power(v[0], n), &[x], &[d]).unwrap();
        }
    }
}

#[test]
fn tree_recursion() {
    let values = [1.5, -0.5, 2.0, 0.25, 3.0, -1.0, 0.75];
    let x = 1.2;
    let (v, (dv, dx)) = tree_grad(&values, x, 0);
    assert_same_bits(&(v, (dv.clone(), dx)), &tree_tape_grad(&values, x, 0));
    // 7 internal nodes, 8 missing children: the product of the values times x^8.
    let product: f64 = values.iter().product();
    assert_relative_eq!(v, product * x.powi(8), max_relative = 1e-14);
    assert_relative_eq!(dx, 8.0 * product * x.powi(7), max_relative = 1e-14);
    for (k, dk) in dv.iter().enumerate() {
        assert_relative_eq!(*dk, v / values[k], max_relative = 1e-14);
    }
    let mut all = values.to_vec();
    all.push(x);
    let mut grad = dv.clone();
    grad.push(dx);
    check::gradient(|a| tree(&a[..7], a[7], 0), &all, &grad).unwrap();
}

#[test]
fn closure_free_variable_gets_its_adjoint() {
    for x in [-3.0, 0.0, 0.5, 4.0] {
        let (v, d) = free_variable_grad(x);
        assert_same_bits(&(v, d), &free_variable_tape_grad(x));
        assert_eq!(v, x * (x + 1.0));
        assert_relative_eq!(d, 2.0 * x + 1.0, max_relative = 1e-15);
    }
}

/// `(v, d)` as `(v, (d,))`, so the tests above read alike.
trait IntoTuple {
    fn into_tuple(self) -> (f64, (f64,));
}

impl IntoTuple for (f64, f64) {
    fn into_tuple(self) -> (f64, (f64,)) {
        (self.0, (self.1,))
    }
}

#[revad::reverse(cps)]
fn product(x: f64, y: f64) -> f64 {
    x * y
}

#[revad::reverse]
fn product_tape(x: f64, y: f64) -> f64 {
    x * y
}

/// `∂(x·y)/∂x = y = -0.0`: the tape backend declares that adjoint from its one contribution,
/// and the CPS backend's cell for it starts at `-0.0`, so both keep the sign.
#[test]
fn signs_of_zero_agree() {
    for (x, y) in [(2.0, -0.0), (-0.0, 3.0), (-0.0, -0.0), (0.0, -1.0)] {
        assert_same_bits(&product_grad(x, y), &product_tape_grad(x, y));
    }
    assert_eq!(product_grad(2.0, -0.0).1 .0.to_bits(), (-0.0f64).to_bits());
}

/// An element of a local array read before a block that stores new cells into the array
/// (the fuzzer's CPS 1: the array's cells are rebound in the block).
#[revad::reverse(cps)]
fn array_written_after_assign(x: f64) -> f64 {
    let mut m = x;
    let mut a = [0.0; 2];
    a[1] = x;
    m += a[1];
    a[0] = 1.0;
    m * a[0]
}

#[revad::reverse]
fn array_written_after_assign_tape(x: f64) -> f64 {
    let mut m = x;
    let mut a = [0.0; 2];
    a[1] = x;
    m += a[1];
    a[0] = 1.0;
    m * a[0]
}

#[revad::reverse]
fn weighted(a: f64, b: f64, w: &[f64]) -> f64 {
    a * w[0] + b * w[1] * a
}

/// The same variable passed twice: a cell of its own for the second argument, added in
/// after the call, so both backends round alike.
#[revad::reverse(cps)]
fn twice_passed(x: f64, w: &[f64]) -> f64 {
    weighted(x, x, w) + weighted(x.sin(), x, w)
}

#[revad::reverse]
fn twice_passed_tape(x: f64, w: &[f64]) -> f64 {
    weighted(x, x, w) + weighted(x.sin(), x, w)
}

#[test]
fn arrays_and_repeated_arguments_agree_with_the_tape() {
    for x in [-1.3, 0.0, 0.7, 2.5] {
        assert_same_bits(
            &array_written_after_assign_grad(x),
            &array_written_after_assign_tape_grad(x),
        );
        assert_eq!(array_written_after_assign_grad(x).1, 2.0);
        let w = [0.3, -1.7];
        assert_same_bits(&twice_passed_grad(x, &w), &twice_passed_tape_grad(x, &w));
        let (_, (dx, _)) = twice_passed_grad(x, &w);
        check::gradient(|v| twice_passed(v[0], &w), &[x], &[dx]).unwrap();
    }
}

/// The benchmark workloads, written once for both backends (`tests/common/workloads.rs`):
/// the CPS versions give the tape's gradients bit for bit, or to rounding where the tape
/// fuses the last loop's reverse sweep into the forward one.
#[test]
fn workloads_agree_with_the_tape() {
    use workloads::*;
    let (q, v) = ([0.3, -0.5, 0.7, 0.4], [1.5, -2.0, 0.25]);
    assert_same_bits(&rotate_x_cps_grad(q, v), &rotate_x_grad(q, v));
    let (w1, w2, xs, ys) = mlp_data(3, 4, 5);
    assert_agree(
        &mlp_loss_cps_grad(&w1, &w2, &xs, &ys, 3, 4),
        &mlp_loss_grad(&w1, &w2, &xs, &ys, 3, 4),
    );
    let n = 6;
    let m: Vec<f64> = (0..n * n).map(|k| (k as f64 * 0.37).sin()).collect();
    let x: Vec<f64> = (0..n).map(|k| 1.0 - k as f64 * 0.3).collect();
    // (The tape runs the sum's reverse first and the double loop fused.)
    assert_agree(&matvec_sum_cps_grad(&m, &x, n), &matvec_sum_grad(&m, &x, n));
    assert_same_bits(
        &recurrence_cps_grad(0.3, 0.9, 0.95, 1000),
        &recurrence_grad(0.3, 0.9, 0.95, 1000),
    );
}

/// A loop of 10^6 iterations under CPS: it runs as the tape's loop (nothing grows with the
/// iterations but the value stack), with the tape's gradient bit for bit, against the closed
/// form of `x^n`.
#[test]
fn a_long_loop_runs_without_stack_growth() {
    let (x, n) = (1.000_000_1, 1_000_000);
    let (v, (d,)) = power_grad(x, n).into_tuple();
    assert_same_bits(&power_grad(x, n), &power_tape_grad(x, n));
    assert_relative_eq!(v, x.powi(n as i32), max_relative = 1e-9);
    assert_relative_eq!(d, n as f64 * x.powi(n as i32 - 1), max_relative = 1e-9);
}

/// A generic function (over `revad::Float`, with a loop, a branch and a call of another
/// generic one) and one over `num_traits::Float`, under CPS, for `f64` and `f32`: against
/// finite differences and the closed form.
#[allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    reason = "the forms under test are written as users write them"
)]
mod generic {
    use approx::assert_relative_eq;
    use revad::{check, reverse, Float};

    #[reverse(cps)]
    fn g<T: Float>(x: T, w: &[T]) -> T {
        let mut s = x * x;
        for i in 0..w.len() {
            s = s + w[i] * x.sin();
        }
        if s > T::ZERO {
            s * x
        } else {
            s - x
        }
    }

    #[reverse(cps)]
    fn h<T: revad::num_traits::Float>(x: T, y: T) -> T {
        let a = x * y + x.exp();
        a.ln() * y
    }

    #[reverse(cps)]
    fn caller<T: Float>(x: T, w: &[T]) -> T {
        let a = g(x, w);
        a * x
    }

    #[test]
    fn generic_functions_under_cps() {
        let w = [0.5f64, 0.25, -1.0];
        for x in [0.7f64, -0.4] {
            let (v, (dx, dw)) = g_grad(x, &w);
            assert_eq!(v.to_bits(), g(x, &w).to_bits());
            let mut all = vec![x];
            all.extend(w);
            let mut grad = vec![dx];
            grad.extend(&dw);
            check::gradient(|p| g(p[0], &p[1..]), &all, &grad).unwrap();
            let (c, (cx, cw)) = caller_grad(x, &w);
            assert_eq!(c.to_bits(), (v * x).to_bits());
            assert_relative_eq!(cx, dx * x + v, max_relative = 1e-12);
            for k in 0..3 {
                assert_relative_eq!(cw[k], dw[k] * x, max_relative = 1e-12);
            }
            let (v32, (dx32, _)) = g_grad(x as f32, &[0.5f32, 0.25, -1.0]);
            assert_relative_eq!(v32 as f64, v, max_relative = 1e-5);
            assert_relative_eq!(dx32 as f64, dx, max_relative = 1e-4);
        }
        let (x, y) = (0.3f64, 1.2);
        let (_, (hx, hy)) = h_grad(x, y);
        let a = x * y + x.exp();
        assert_relative_eq!(hx, (y + x.exp()) / a * y, max_relative = 1e-14);
        assert_relative_eq!(hy, x / a * y + a.ln(), max_relative = 1e-14);
    }
}

/// Structs, methods and trait methods under CPS (since 2026-12): a statement that touches a
/// struct, and a method call, runs as the tape's (between the cells, with one adjoint for the
/// whole struct). Against closed forms, finite differences and the tape's gradient.
mod structs_and_methods {
    use super::bits::assert_same_bits;
    use approx::assert_relative_eq;
    use revad::{check, reverse};

    #[derive(Clone, Debug, PartialEq, revad::Adjoint)]
    pub struct Body {
        pub pos: [f64; 2],
        pub mass: f64,
    }

    #[reverse]
    pub trait Potential {
        #[reverse(cps)]
        fn energy(&self, b: &Body) -> f64;
    }

    #[derive(Clone, Debug, PartialEq, revad::Adjoint)]
    pub struct Spring {
        pub k: f64,
    }

    #[reverse]
    impl Potential for Spring {
        #[reverse(cps)]
        fn energy(&self, b: &Body) -> f64 {
            0.5 * self.k * (b.pos[0] * b.pos[0] + b.pos[1] * b.pos[1]) * b.mass
        }
    }

    impl Body {
        /// A method under CPS: the receiver's adjoint is one value.
        #[reverse(cps)]
        pub fn kinetic(&self, v: f64) -> f64 {
            let mut e = 0.0;
            for i in 0..2 {
                e += self.pos[i] * v;
            }
            0.5 * self.mass * e * e
        }
    }

    /// A struct built, read in a branch, passed to a method and to a generic trait method.
    #[reverse(cps)]
    fn total<P: Potential>(p: &P, x: f64, y: f64) -> f64 {
        let b = Body {
            pos: [x, y * 2.0],
            mass: x * x + 1.0,
        };
        let w = if x > 0.0 { b.mass * y } else { b.pos[1] };
        p.energy(&b) + b.kinetic(w) + b.pos[0].sin()
    }

    #[reverse]
    fn total_tape<P: Potential>(p: &P, x: f64, y: f64) -> f64 {
        let b = Body {
            pos: [x, y * 2.0],
            mass: x * x + 1.0,
        };
        let w = if x > 0.0 { b.mass * y } else { b.pos[1] };
        p.energy(&b) + b.kinetic(w) + b.pos[0].sin()
    }

    #[test]
    fn structs_methods_and_traits_under_cps() {
        let s = Spring { k: 1.5 };
        let b = Body {
            pos: [0.3, -0.8],
            mass: 2.0,
        };
        let (e, (ds, db)) = s.energy_grad(&b);
        let r2 = 0.09 + 0.64;
        assert_relative_eq!(e, 0.5 * 1.5 * r2 * 2.0, max_relative = 1e-15);
        assert_relative_eq!(ds.k, 0.5 * r2 * 2.0, max_relative = 1e-15);
        assert_relative_eq!(db.pos[0], 1.5 * 0.3 * 2.0, max_relative = 1e-15);
        assert_relative_eq!(db.pos[1], 1.5 * -0.8 * 2.0, max_relative = 1e-15);
        assert_relative_eq!(db.mass, 0.5 * 1.5 * r2, max_relative = 1e-15);
        let (k, (dk, dv)) = b.kinetic_grad(0.7);
        let sum = 0.3 - 0.8;
        assert_relative_eq!(k, 0.5 * 2.0 * (sum * 0.7f64).powi(2), max_relative = 1e-15);
        assert_relative_eq!(dv, 2.0 * sum * sum * 0.7, max_relative = 1e-14);
        assert_relative_eq!(dk.mass, 0.5 * (sum * 0.7f64).powi(2), max_relative = 1e-14);
        assert_relative_eq!(dk.pos[0], 2.0 * sum * 0.7 * 0.7, max_relative = 1e-14);
        for (x, y) in [(0.4, 0.9), (-0.6, 0.3)] {
            let (v, (_, dx, dy)) = total_grad(&s, x, y);
            assert_eq!(v.to_bits(), total(&s, x, y).to_bits());
            check::gradient(|p| total(&s, p[0], p[1]), &[x, y], &[dx, dy]).unwrap();
            let (tv, (_, tx, ty)) = total_tape_grad(&s, x, y);
            assert_same_bits(&(v, dx, dy), &(tv, tx, ty));
        }
    }
}

/// A closure passed from a CPS function to a tape function with a function argument (the call
/// runs as the tape's, through the callee's split companions), and a `&mut` counter under
/// CPS: bit for bit with the tape, against the closed form; the counter counts once per call.
mod closures_and_counters {
    use approx::assert_relative_eq;
    /// ∫ f over [a, b], midpoint rule, 100 steps (tape backend, a function argument).
    #[revad::reverse]
    fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
        let n = 100;
        let h = (b - a) / n as f64;
        let mut s = 0.0;
        for i in 0..n {
            s += f(a + (i as f64 + 0.5) * h);
        }
        s * h
    }

    #[revad::reverse(cps)]
    fn area(c: f64, b: f64) -> f64 {
        let k = c * 2.0;
        integrate(|x| k * x * x, 0.0, b) * c
    }

    #[revad::reverse]
    fn area_tape(c: f64, b: f64) -> f64 {
        let k = c * 2.0;
        integrate(|x| k * x * x, 0.0, b) * c
    }

    #[revad::reverse(cps)]
    fn counted(x: f64, calls: &mut usize) -> f64 {
        *calls += 1;
        let y = if x > 0.0 { x * x } else { -x };
        *calls += 1;
        y * x
    }

    #[test]
    fn closures_and_counters_under_cps() {
        let (v, (dc, db)) = area_grad(0.7, 1.3);
        let (tv, (tc, tb)) = area_tape_grad(0.7, 1.3);
        assert_eq!(v.to_bits(), tv.to_bits());
        assert_eq!(dc.to_bits(), tc.to_bits());
        assert_eq!(db.to_bits(), tb.to_bits());
        assert_relative_eq!(db, 2.0 * 0.7 * 1.3 * 1.3 * 0.7, max_relative = 1e-3);
        let mut calls = 0;
        let (v, dx) = counted_grad(0.5, &mut calls);
        assert_eq!(calls, 2);
        assert_eq!(v, 0.125);
        assert_eq!(dx, 0.75);
        let (_, dx) = counted_grad(-0.5, &mut calls);
        assert_eq!(calls, 4);
        assert_eq!(dx, 1.0);
    }
}

/// Structs under CPS at the edges of the bridge: a struct carried into an `if`'s continuation
/// (written after it), a slice of structs read in a loop, and a struct returned with its seed.
/// Bit for bit with the tape's gradients, and one against its closed form.
mod struct_edges {
    #[derive(Clone, Debug, revad::Adjoint)]
    pub struct P {
        pub x: f64,
        pub y: f64,
    }

    #[revad::reverse(cps)]
    fn carried(x: f64) -> f64 {
        let mut p = P { x: x * 2.0, y: x };
        let y = if x > 0.0 { x } else { -x };
        p.x = y * p.y;
        p.x * 2.0
    }

    #[revad::reverse]
    fn carried_tape(x: f64) -> f64 {
        let mut p = P { x: x * 2.0, y: x };
        let y = if x > 0.0 { x } else { -x };
        p.x = y * p.y;
        p.x * 2.0
    }

    #[revad::reverse(cps)]
    fn vec_of_structs(ps: &[P], s: f64) -> f64 {
        let mut t = 0.0;
        for p in ps {
            t += p.x * s + p.y.sin();
        }
        let q = &ps[0];
        t * q.x
    }

    #[revad::reverse]
    fn vec_of_structs_tape(ps: &[P], s: f64) -> f64 {
        let mut t = 0.0;
        for p in ps {
            t += p.x * s + p.y.sin();
        }
        let q = &ps[0];
        t * q.x
    }

    #[revad::reverse(cps)]
    fn returns_struct(a: f64) -> P {
        let mut p = P { x: a, y: a * a };
        if a > 1.0 {
            p.y = p.x.sin();
        }
        p
    }

    #[revad::reverse]
    fn returns_struct_tape(a: f64) -> P {
        let mut p = P { x: a, y: a * a };
        if a > 1.0 {
            p.y = p.x.sin();
        }
        p
    }

    #[test]
    fn struct_edges_agree_with_the_tape() {
        for x in [0.7f64, -0.3] {
            let a = carried_grad(x);
            let b = carried_tape_grad(x);
            assert_eq!(a.0.to_bits(), b.0.to_bits());
            assert_eq!(a.1.to_bits(), b.1.to_bits());
            // 2 |x| x, whose derivative is 4 |x|.
            assert_eq!(a.0, 2.0 * x.abs() * x);
            assert_eq!(a.1, 4.0 * x.abs());
        }
        let ps = vec![P { x: 0.3, y: 0.2 }, P { x: -0.5, y: 1.1 }];
        let (v, (dp, ds)) = vec_of_structs_grad(&ps, 1.5);
        let (tv, (tp, ts)) = vec_of_structs_tape_grad(&ps, 1.5);
        assert_eq!(v.to_bits(), tv.to_bits());
        assert_eq!(ds.to_bits(), ts.to_bits());
        for k in 0..2 {
            assert_eq!(dp[k].x.to_bits(), tp[k].x.to_bits());
            assert_eq!(dp[k].y.to_bits(), tp[k].y.to_bits());
        }
        for a in [0.5, 1.5] {
            let seed = PAdjoint { x: 0.25, y: -2.0 };
            let (p, d) = returns_struct_vjp(a, seed.clone());
            let (tp, td) = returns_struct_tape_vjp(a, seed);
            assert_eq!(p.y.to_bits(), tp.y.to_bits());
            assert_eq!(d.to_bits(), td.to_bits());
        }
    }

    #[derive(Clone, Debug, revad::Adjoint)]
    pub struct S {
        pub fa: f64,
        pub fb: f64,
        pub n: usize,
    }

    /// Writes without a reverse (a literal added to a field, an integer field counted), then
    /// a write with one: the struct keeps its adjoint through the first two.
    #[revad::reverse(cps)]
    fn counted_cps(x: f64, y: f64) -> f64 {
        let mut obj = S { fa: x, fb: y, n: 0 };
        obj.fa += 0.3;
        obj.n += 1;
        obj.fb -= 1.5;
        obj.fb *= obj.fa;
        obj.fa * obj.fb * obj.n as f64
    }

    #[revad::reverse]
    fn counted(x: f64, y: f64) -> f64 {
        let mut obj = S { fa: x, fb: y, n: 0 };
        obj.fa += 0.3;
        obj.n += 1;
        obj.fb -= 1.5;
        obj.fb *= obj.fa;
        obj.fa * obj.fb * obj.n as f64
    }

    /// CPS 5 in `fuzz-findings.md`: the gradient was zero.
    #[test]
    fn a_write_without_a_reverse() {
        let (x, y) = (2.0, 3.0);
        let (v, (dx, dy)) = counted_cps_grad(x, y);
        let (tv, (tx, ty)) = counted_grad(x, y);
        assert_eq!(
            [v, dx, dy].map(f64::to_bits),
            [tv, tx, ty].map(f64::to_bits)
        );
        // (x + 0.3)² (y - 1.5)
        let a = x + 0.3;
        approx::assert_relative_eq!(v, a * a * (y - 1.5), max_relative = 1e-15);
        approx::assert_relative_eq!(dx, 2.0 * a * (y - 1.5), max_relative = 1e-15);
        approx::assert_relative_eq!(dy, a * a, max_relative = 1e-15);
    }
}

/// Function arguments under CPS: a call through a function argument, one passed on to another
/// function, and one called in a loop, each bit for bit with the tape's and against its closed
/// form; and tuples with a struct in them returned, with their seeds.
mod function_args_and_tuples {
    use approx::assert_relative_eq;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    both! {
        /// `f(x) * x`.
        [] fn apply / apply_cps(f: impl Fn(f64) -> f64, x: f64) -> f64 {
            f(x) * x
        }
    }

    both! {
        /// `Σ f(x_i)` over a slice, then through `f` once more, passed on.
        [] fn sum_then_apply / sum_then_apply_cps(f: impl Fn(f64) -> f64 + Copy, xs: &[f64]) -> f64 {
            let mut s = 0.0;
            for &x in xs {
                s += f(x);
            }
            apply_cps(f, s) + s
        }
    }

    #[revad::reverse(cps)]
    fn composed<F: Fn(f64) -> f64>(f: &F, x: f64, n: usize) -> f64 {
        if n == 0 {
            x
        } else {
            let y = f(x);
            composed(f, y, n - 1)
        }
    }

    #[revad::reverse]
    fn via(k: f64, x: f64) -> f64 {
        apply_cps(|t| k * t.sin(), x) * k
    }

    #[revad::reverse]
    fn via_tape(k: f64, x: f64) -> f64 {
        apply(|t| k * t.sin(), x) * k
    }

    #[revad::reverse]
    fn sums(k: f64, xs: &[f64]) -> f64 {
        sum_then_apply_cps(|t| k * t * t, xs)
    }

    #[revad::reverse]
    fn sums_tape(k: f64, xs: &[f64]) -> f64 {
        sum_then_apply(|t| k * t * t, xs)
    }

    #[revad::reverse]
    fn composed_three(r: f64, x: f64) -> f64 {
        composed(&|t: f64| r * t * (1.0 - t), x, 3)
    }

    #[test]
    fn function_arguments_under_cps() {
        let (k, x) = (0.7, 1.3);
        let (v, (dk, dx)) = via_grad(k, x);
        let (tv, (tk, tx)) = via_tape_grad(k, x);
        assert_eq!(
            [v, dk, dx].map(f64::to_bits),
            [tv, tk, tx].map(f64::to_bits)
        );
        // k² x sin x.
        assert_eq!(v, k * x.sin() * x * k);
        assert_relative_eq!(dk, 2.0 * k * x * x.sin(), max_relative = 1e-14);
        assert_relative_eq!(dx, k * k * (x.sin() + x * x.cos()), max_relative = 1e-14);

        let xs = [0.5, -1.0, 2.0];
        let (v, (dk, dxs)) = sums_grad(k, &xs);
        let (tv, (tk, txs)) = sums_tape_grad(k, &xs);
        assert_eq!([v, dk].map(f64::to_bits), [tv, tk].map(f64::to_bits));
        assert_eq!(bits(&dxs), bits(&txs));
        // s = k Σ x², then k s² s + s = k s³ + s.
        let s: f64 = xs.iter().map(|x| k * x * x).sum();
        assert_relative_eq!(v, k * s * s * s + s, max_relative = 1e-14);
        let ds = 3.0 * k * s * s + 1.0;
        let q: f64 = xs.iter().map(|x| x * x).sum();
        assert_relative_eq!(dk, s * s * s + ds * q, max_relative = 1e-13);
        for (d, x) in dxs.iter().zip(xs) {
            assert_relative_eq!(*d, ds * 2.0 * k * x, max_relative = 1e-13);
        }

        // The logistic map three times; its derivative by the chain rule.
        let (r, x0) = (3.1, 0.3);
        let (v, (dr, dx0)) = composed_three_grad(r, x0);
        let (mut x, mut dx_dr, mut dx_dx0) = (x0, 0.0, 1.0);
        for _ in 0..3 {
            let slope = r * (1.0 - 2.0 * x);
            dx_dr = x * (1.0 - x) + slope * dx_dr;
            dx_dx0 *= slope;
            x = r * x * (1.0 - x);
        }
        assert_eq!(v, x);
        assert_relative_eq!(dr, dx_dr, max_relative = 1e-13);
        assert_relative_eq!(dx0, dx_dx0, max_relative = 1e-13);
    }

    #[derive(Clone, Debug, revad::Adjoint)]
    pub struct P {
        pub x: f64,
        pub y: f64,
    }

    both! {
        /// A struct and a float, in a tuple.
        [] fn split / split_cps(a: f64, b: f64) -> (P, f64) {
            let p = P { x: a * b, y: a.sin() };
            let s = p.x + b;
            (p, s * s)
        }
    }

    both! {
        /// A tuple nested in a tuple, the same scalar in two places.
        [] fn nested / nested_cps(a: f64) -> (f64, (P, f64)) {
            let p = P { x: a * a, y: 2.0 * a };
            let t = a.exp();
            (t, (p, t))
        }
    }

    #[test]
    fn tuples_with_structs_returned_under_cps() {
        let (a, b) = (0.4, 1.5);
        let seed = (PAdjoint { x: 0.5, y: -2.0 }, 3.0);
        let ((p, s), (da, db)) = split_cps_vjp(a, b, seed.clone());
        let ((tp, ts), (ta, tb)) = split_vjp(a, b, seed);
        assert_eq!(
            [p.x, p.y, s, da, db].map(f64::to_bits),
            [tp.x, tp.y, ts, ta, tb].map(f64::to_bits)
        );
        // 0.5 a b - 2 sin a + 3 (a b + b)².
        let u = a * b + b;
        assert_relative_eq!(
            da,
            0.5 * b - 2.0 * a.cos() + 6.0 * u * b,
            max_relative = 1e-14
        );
        assert_relative_eq!(db, 0.5 * a + 6.0 * u * (a + 1.0), max_relative = 1e-14);

        let seed = (1.5, (PAdjoint { x: -1.0, y: 0.25 }, 2.0));
        let ((t, (p, t2)), da) = nested_cps_vjp(a, seed.clone());
        let ((tt, (tp, tt2)), ta) = nested_vjp(a, seed);
        assert_eq!(
            [t, p.x, p.y, t2, da].map(f64::to_bits),
            [tt, tp.x, tp.y, tt2, ta].map(f64::to_bits)
        );
        // 3.5 eᵃ - a² + 0.5 a.
        assert_relative_eq!(da, 3.5 * a.exp() - 2.0 * a + 0.5, max_relative = 1e-14);
    }
}

/// The last loop of `NAME_vjp` runs fused under CPS as under the tape (each iteration's reverse
/// right after its forward): bit for bit with the tape's gradient, and against closed forms;
/// also when the loop runs in the continuation of an `if`.
#[allow(
    clippy::needless_range_loop,
    reason = "an index loop: the form whose reverse fuses"
)]
mod fused_last_loop {
    use approx::assert_relative_eq;

    both! {
        [] fn map_sum / map_sum_cps(xs: &[f64], ys: &[f64], w: f64) -> f64 {
            xs.iter().zip(ys).map(|(x, y)| (x * w).sin() * y).sum::<f64>()
        }
    }

    both! {
        /// `c Σ x_i²` after a branch, its length read after the loop.
        [] fn after_branch / after_branch_cps(xs: &[f64], a: f64) -> f64 {
            let c = if a > 0.0 { a * a } else { -a };
            let mut s = 0.0;
            for i in 0..xs.len() {
                s += c * xs[i] * xs[i];
            }
            let n = xs.len();
            let _ = n;
            s
        }
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn the_last_loop_runs_fused_under_cps() {
        let xs = [0.3, -1.2, 2.5, 0.8];
        let ys = [1.5, 0.25, -0.5, 2.0];
        let w = 0.8;
        let (v, (dxs, dys, dw)) = map_sum_cps_grad(&xs, &ys, w);
        let (tv, (txs, tys, tw)) = map_sum_grad(&xs, &ys, w);
        assert_eq!((v.to_bits(), dw.to_bits()), (tv.to_bits(), tw.to_bits()));
        assert_eq!((bits(&dxs), bits(&dys)), (bits(&txs), bits(&tys)));
        assert_eq!(v.to_bits(), map_sum(&xs, &ys, w).to_bits());
        let mut expected_dw = 0.0;
        for k in 0..xs.len() {
            let c = (xs[k] * w).cos();
            assert_relative_eq!(dxs[k], c * w * ys[k], max_relative = 1e-14);
            assert_relative_eq!(dys[k], (xs[k] * w).sin(), max_relative = 1e-14);
            expected_dw += c * xs[k] * ys[k];
        }
        assert_relative_eq!(dw, expected_dw, max_relative = 1e-14);

        for a in [1.5, -0.5] {
            let (v, (dxs, da)) = after_branch_cps_grad(&xs, a);
            let (tv, (txs, ta)) = after_branch_grad(&xs, a);
            assert_eq!((v.to_bits(), da.to_bits()), (tv.to_bits(), ta.to_bits()));
            assert_eq!(bits(&dxs), bits(&txs));
            let (c, dc) = if a > 0.0 {
                (a * a, 2.0 * a)
            } else {
                (-a, -1.0)
            };
            let q: f64 = xs.iter().map(|x| x * x).sum();
            assert_relative_eq!(v, c * q, max_relative = 1e-14);
            assert_relative_eq!(da, dc * q, max_relative = 1e-14);
            for (d, x) in dxs.iter().zip(xs) {
                assert_relative_eq!(*d, 2.0 * c * x, max_relative = 1e-14);
            }
        }
    }
}
