//! Arrays, `Vec`s and tuples returned by annotated callees, indexed, iterated, returned or
//! taken apart by `let (a, b) = g(..)`, at the top level and inside loops (where the tape
//! backend keeps them for its reverse sweep), and the same array passed twice. Each gradient
//! is checked against a closed form or finite differences; `tests/cps-corpus` runs this file
//! under the CPS backend.
#![allow(
    clippy::needless_range_loop,
    clippy::let_and_return,
    reason = "index loops and a result bound before it is returned are forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

/// `[2 v0, v1 v2, sin v2]`.
#[reverse]
fn mix(v: [f64; 3]) -> [f64; 3] {
    [v[0] * 2.0, v[1] * v[2], v[2].sin()]
}

/// An array result, indexed.
#[reverse]
fn mix_indexed(v: [f64; 3]) -> f64 {
    let out = mix(v);
    out[0] + out[1] * out[2]
}

/// An array result, returned as the caller's own.
#[reverse]
fn mix_returned(v: [f64; 3]) -> [f64; 3] {
    let out = mix(v);
    out
}

#[test]
fn array_result_closed_form() {
    let v = [0.5, 1.5, -2.0];
    let (y, g) = mix_indexed_grad(v);
    assert_eq!(y.to_bits(), mix_indexed(v).to_bits());
    let (s, c) = (v[2].sin(), v[2].cos());
    assert_eq!(g[0], 2.0);
    assert_relative_eq!(g[1], v[2] * s, max_relative = 1e-15);
    assert_relative_eq!(g[2], v[1] * s + v[1] * v[2] * c, max_relative = 1e-15);
    for k in 0..3 {
        let mut seed = [0.0; 3];
        seed[k] = 1.0;
        let (y, g) = mix_returned_vjp(v, seed);
        assert_eq!(y, mix(v));
        let expected = [[2.0, 0.0, 0.0], [0.0, v[2], v[1]], [0.0, 0.0, c]][k];
        assert_eq!(g, expected);
    }
}

/// The squares of `w`, as a `Vec`.
#[reverse]
fn squares(w: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; w.len()];
    for i in 0..w.len() {
        out[i] = w[i] * w[i];
    }
    out
}

/// A `Vec` result indexed and iterated.
#[reverse]
fn weighted_squares(w: &[f64], c: &[f64]) -> f64 {
    let sq = squares(w);
    let mut s = 0.0;
    for i in 0..sq.len() {
        s += c[i] * sq[i];
    }
    for x in sq.iter() {
        s += x.sqrt();
    }
    s
}

#[test]
fn vec_result_closed_form() {
    let w = [1.0, -2.0, 3.0];
    let c = [0.5, 1.5, -1.0];
    let (y, (gw, gc)) = weighted_squares_grad(&w, &c);
    assert_eq!(y.to_bits(), weighted_squares(&w, &c).to_bits());
    for i in 0..3 {
        // d/dw (c w² + |w|) = 2 c w + sign(w)
        assert_relative_eq!(
            gw[i],
            2.0 * c[i] * w[i] + w[i].signum(),
            max_relative = 1e-15
        );
        assert_eq!(gc[i], w[i] * w[i]);
    }
}

/// Array results inside a loop: the tape keeps each one for its reverse sweep.
#[reverse]
fn iterated_mix(v: [f64; 3], n: usize) -> f64 {
    let mut s = 0.0;
    let mut x = v;
    for _ in 0..n {
        let out = mix(x);
        s += out[1];
        x[0] = out[2];
        x[1] = out[0] * 0.25;
        x[2] = out[1] * 0.5;
    }
    s + x[0] + x[1] + x[2]
}

#[test]
fn array_results_in_a_loop_against_finite_differences() {
    let f = |p: &[f64]| iterated_mix([p[0], p[1], p[2]], 4);
    let at = [0.3, 0.9, -0.7];
    let (y, g) = iterated_mix_grad([at[0], at[1], at[2]], 4);
    assert_eq!(y.to_bits(), f(&at).to_bits());
    check::gradient(f, &at, &g).unwrap();
}

/// Sine and cosine at once.
#[reverse]
fn sincos(x: f64) -> (f64, f64) {
    (x.sin(), x.cos())
}

/// A tuple result taken apart.
#[reverse]
fn polar(x: f64, r: f64) -> f64 {
    let (s, c) = sincos(x);
    r * s + c * c
}

/// A part left unused (`_`), and one used: only its adjoint flows.
#[reverse]
fn sine_only(x: f64) -> f64 {
    let (s, _) = sincos(x);
    3.0 * s
}

#[test]
fn tuple_result_closed_form() {
    let (x, r) = (0.3, 2.0);
    let (y, (gx, gr)) = polar_grad(x, r);
    assert_eq!(y.to_bits(), polar(x, r).to_bits());
    assert_relative_eq!(
        gx,
        r * x.cos() - 2.0 * x.cos() * x.sin(),
        max_relative = 1e-15
    );
    assert_eq!(gr, x.sin());
    let (_, g) = sine_only_grad(x);
    assert_eq!(g, 3.0 * x.cos());
}

/// The sum of `w` and the squares of its elements.
#[reverse]
fn sum_and_squares(w: &[f64]) -> (f64, Vec<f64>) {
    let mut sq = vec![0.0; w.len()];
    let mut s = 0.0;
    for i in 0..w.len() {
        sq[i] = w[i] * w[i];
        s += w[i];
    }
    (s, sq)
}

/// A tuple with a `Vec` part, in a loop.
#[reverse]
fn moments(w: &[f64], rounds: usize) -> f64 {
    let mut total = 0.0;
    for k in 0..rounds {
        let (s, sq) = sum_and_squares(w);
        let mut t = 0.0;
        for i in 0..sq.len() {
            t += sq[i];
        }
        total += s * t * (k as f64 + 1.0);
    }
    total
}

/// A tuple whose `Vec` part is not differentiated: the call's reverse gets zeros for it.
#[reverse]
fn sum_only(w: &[f64]) -> f64 {
    let (s, sq) = sum_and_squares(w);
    s * sq.len() as f64
}

#[test]
fn tuple_with_vec_part() {
    let w = [1.0, 2.0, 3.0];
    let (y, g) = moments_grad(&w, 3);
    assert_eq!(y.to_bits(), moments(&w, 3).to_bits());
    // Σ_k (k+1) · s t, s = Σw = 6, t = Σw² = 14: d/dw_i = 6 (t + 2 s w_i)
    for i in 0..3 {
        assert_eq!(g[i], 6.0 * (14.0 + 2.0 * 6.0 * w[i]));
    }
    let (y, g) = sum_only_grad(&w);
    assert_eq!(y, 18.0);
    assert_eq!(g, vec![3.0, 3.0, 3.0]);
}

/// A dot product.
#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// The same array passed twice.
#[reverse]
fn norm2(a: &[f64]) -> f64 {
    dot(a, a)
}

/// The same local array passed twice, built from a scalar.
#[reverse]
fn norm2_local(x: f64) -> f64 {
    let v = [x, 2.0 * x, x * x];
    dot(&v, &v)
}

#[test]
fn same_array_twice() {
    let a = [1.0, -2.0, 0.5];
    let (y, g) = norm2_grad(&a);
    assert_eq!(y, 5.25);
    assert_eq!(g, vec![2.0, -4.0, 1.0]);
    let x = 1.5;
    let (y, g) = norm2_local_grad(x);
    assert_eq!(y, x * x + 4.0 * x * x + x.powi(4));
    assert_eq!(g, 10.0 * x + 4.0 * x.powi(3));
}

/// `[2a, sin a]`.
#[reverse]
fn pair(a: f64) -> [f64; 2] {
    [a * 2.0, a.sin()]
}

/// An array result bound inside an `if` arm (fuzz finding 6).
#[reverse]
fn pair_in_arm(x: f64) -> f64 {
    let mut s = x;
    if x > 0.0 {
        let r = pair(x);
        s = r[1] * r[0];
    }
    s
}

/// An array result bound after an early `return` (fuzz finding 6).
#[reverse]
fn pair_after_return(x: f64) -> f64 {
    if x > 5.0 {
        return x;
    }
    let r = pair(x);
    r[1] * r[0]
}

/// A local array created in an arm and passed to a callee.
#[reverse]
fn local_in_arm(x: f64) -> f64 {
    let mut t = x;
    if x > 0.0 {
        let mut h = [0.0; 2];
        h[0] = x;
        h[1] = x * x;
        t = dot(&h, &h);
    }
    t
}

#[test]
fn arrays_created_in_arms() {
    for x in [0.7, -0.3, 6.0] {
        for (f, g) in [
            (
                pair_in_arm as fn(f64) -> f64,
                pair_in_arm_grad as fn(f64) -> (f64, f64),
            ),
            (pair_after_return, pair_after_return_grad),
            (local_in_arm, local_in_arm_grad),
        ] {
            let (v, d) = g(x);
            assert_eq!(v.to_bits(), f(x).to_bits());
            check::gradient(|p: &[f64]| f(p[0]), &[x], &[d]).unwrap();
        }
    }
}

/// A copy of a variable that is modified afterwards, in a function called through its split
/// companions (fuzz: the companion's reverse sweep evaluated `t1 = m0` again with `m0`'s later
/// value).
#[reverse]
fn copy_then_modify(a: f64) -> f64 {
    let mut m0 = a.sin();
    let t1 = m0;
    let m2 = a;
    m0 += 0.3;
    m0 * m2 + t1.exp()
}

#[reverse]
fn copy_then_modify_via(a: f64) -> f64 {
    copy_then_modify(a) * 2.0
}

#[test]
fn a_copy_keeps_its_value_through_split_companions() {
    let a = 0.3f64;
    let expected = a.cos() * a + (a.sin() + 0.3) + a.sin().exp() * a.cos();
    let (_, d) = copy_then_modify_grad(a);
    assert_relative_eq!(d, expected, max_relative = 1e-14);
    let (_, d) = copy_then_modify_via_grad(a);
    assert_relative_eq!(d, 2.0 * expected, max_relative = 1e-14);
}

/// `(a + b, a b)`.
#[reverse]
fn sum_prod(a: f64, b: f64) -> (f64, f64) {
    (a + b, a * b)
}

/// The same scalar passed twice to a callee with a tuple result.
#[reverse]
fn twice_into_a_tuple(x: f64) -> f64 {
    let (s, p) = sum_prod(x, x);
    s * p
}

#[test]
fn a_scalar_passed_twice_to_a_tuple_callee() {
    // 2x · x² = 2x³
    let (v, d) = twice_into_a_tuple_grad(1.5);
    assert_eq!((v, d), (2.0 * 1.5f64.powi(3), 6.0 * 1.5 * 1.5));
}

/// The same variable returned twice in a tuple: its adjoint is the sum of both parts' seeds
/// (found by the differential fuzzer: the second seed replaced the first, a wrong gradient).
#[revad::reverse]
fn same_twice(x: f64) -> (f64, f64) {
    let s = x * x;
    (s, s)
}

#[revad::reverse]
fn uses_both_parts(x: f64) -> f64 {
    let (a, b) = same_twice(x);
    a + 3.0 * b
}

#[revad::reverse]
fn nested_same(x: f64, y: f64) -> ((f64, f64), f64) {
    let s = x * y;
    ((s, x), s)
}

#[test]
fn a_variable_returned_twice_gets_both_seeds() {
    // s = x², seeds (1, 3): d/dx = 2x (1 + 3).
    assert_eq!(same_twice_vjp(1.5, (1.0, 3.0)).1, 12.0);
    assert_eq!(uses_both_parts_grad(1.5), (9.0, 12.0));
    // ((xy, x), xy) with seeds ((1, 2), 5): d/dx = 6y + 2, d/dy = 6x.
    let (_, (dx, dy)) = nested_same_vjp(2.0, 3.0, ((1.0, 2.0), 5.0));
    assert_eq!((dx, dy), (20.0, 12.0));
}

/// `a × b`.
#[reverse]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `|v|`.
#[reverse]
fn norm3(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// `x^2`.
#[reverse]
fn square(x: f64) -> f64 {
    x * x
}

/// `x / 2`.
#[reverse]
fn halve(x: f64) -> f64 {
    0.5 * x
}

/// An array result bound without its type and passed on whole: the macro cannot see that
/// `c` is an array, and takes it for an aggregate, whose code serves an array's.
#[reverse]
fn norm_of_cross(a: [f64; 3], b: [f64; 3]) -> f64 {
    let c = cross(a, b);
    norm3(c)
}

/// The same results passed straight on, nested.
#[reverse]
fn norm_of_crosses(a: [f64; 3], b: [f64; 3]) -> f64 {
    norm3(cross(cross(a, b), b)) + square(norm3(a))
}

/// Float results passed on whole, bound and nested: the aggregate's code serves a float's.
#[reverse]
fn halved_squares(x: f64, y: f64) -> f64 {
    let s = square(x);
    let h = halve(s);
    halve(h) * square(halve(square(y)))
}

#[test]
fn results_passed_on_whole() {
    let (a, b) = ([1.0, 2.0, 3.0], [0.5, -1.0, 2.0]);
    let flat = [a[0], a[1], a[2], b[0], b[1], b[2]];
    let split = |p: &[f64]| ([p[0], p[1], p[2]], [p[3], p[4], p[5]]);
    type Primal = fn([f64; 3], [f64; 3]) -> f64;
    type Grad = fn([f64; 3], [f64; 3]) -> (f64, ([f64; 3], [f64; 3]));
    let cases: [(Primal, Grad); 2] = [
        (norm_of_cross, norm_of_cross_grad),
        (norm_of_crosses, norm_of_crosses_grad),
    ];
    for (f, grad) in cases {
        let (v, (ga, gb)) = grad(a, b);
        assert_eq!(v.to_bits(), f(a, b).to_bits());
        let fd = check::finite_difference(|p| f(split(p).0, split(p).1), &flat);
        for (g, e) in ga.iter().chain(&gb).zip(&fd) {
            assert_relative_eq!(*g, *e, max_relative = 1e-7);
        }
    }
    // |a × b|: the gradient with respect to a is b × u, u = (a × b) / |a × b|.
    let (n, (ga, _)) = norm_of_cross_grad(a, b);
    let c = cross(a, b);
    let u = [c[0] / n, c[1] / n, c[2] / n];
    let bu = cross(b, u);
    for k in 0..3 {
        assert_relative_eq!(ga[k], bu[k], max_relative = 1e-14);
    }
    // x^2/4 * y^4/4: d/dx = x y^4 / 8, d/dy = x^2 y^3 / 4.
    let (x, y) = (0.7, 1.3);
    let (v, (gx, gy)) = halved_squares_grad(x, y);
    assert_eq!(v.to_bits(), halved_squares(x, y).to_bits());
    assert_relative_eq!(gx, x * y.powi(4) / 8.0, max_relative = 1e-14);
    assert_relative_eq!(gy, x * x * y.powi(3) / 4.0, max_relative = 1e-14);
}

/// `Σ a_i b_i`.
#[reverse]
fn dot_of(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Array literals as arguments, by value and by reference.
#[reverse]
fn literal_arguments(x: f64, y: f64) -> f64 {
    let c: [f64; 3] = cross([x, y, 1.0], [1.0, x, y]);
    c[0] * c[1] + c[2] + dot_of(&[x, y], &[y, 2.0])
}

#[test]
fn array_literals_as_arguments() {
    let (x, y) = (0.7, 1.3);
    let (v, (gx, gy)) = literal_arguments_grad(x, y);
    assert_eq!(v.to_bits(), literal_arguments(x, y).to_bits());
    let fd = check::finite_difference(|p| literal_arguments(p[0], p[1]), &[x, y]);
    assert_relative_eq!(gx, fd[0], max_relative = 1e-7);
    assert_relative_eq!(gy, fd[1], max_relative = 1e-7);
    // c = (y^2 - x, 1 - x y, x^2 - y), f = c0 c1 + c2 + x y + 2 y: d/dx = -c1 - y c0 + 2x + y.
    let (c0, c1) = (y * y - x, 1.0 - x * y);
    assert_relative_eq!(gx, -c1 - y * c0 + 2.0 * x + y, max_relative = 1e-14);
}

/// `x^2 + y^2` of a pair by reference.
#[reverse]
fn norm2_of(p: &[f64; 2]) -> f64 {
    p[0] * p[0] + p[1] * p[1]
}

/// `[x cos t, x sin t]`.
#[reverse]
fn polar_pair(x: f64, t: f64) -> [f64; 2] {
    [x * t.cos(), x * t.sin()]
}

/// `3 x` of a float by reference.
#[reverse]
fn thrice_ref(x: &f64) -> f64 {
    x * 3.0
}

/// Call results lent whole to functions that take references.
#[reverse]
fn lent_results(x: f64, t: f64) -> f64 {
    norm2_of(&polar_pair(x, t)) + thrice_ref(&square(t))
}

#[test]
fn results_lent_whole() {
    let (x, t) = (0.7, 1.3);
    let (v, (gx, gt)) = lent_results_grad(x, t);
    assert_eq!(v.to_bits(), lent_results(x, t).to_bits());
    // x^2 + 3 t^2.
    assert_relative_eq!(gx, 2.0 * x, max_relative = 1e-14);
    assert_relative_eq!(gt, 6.0 * t, max_relative = 1e-14);
}

/// `[x k, y k, z k]`.
#[reverse]
fn scaled3(v: [f64; 3], k: f64) -> [f64; 3] {
    [v[0] * k, v[1] * k, v[2] * k]
}

/// Results passed on whole in the last loop (its reverse runs fused with its forward): an
/// array result and a float one.
#[reverse]
fn crosses_in_a_loop(ps: &[[f64; 3]], b: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..ps.len() {
        let c = cross(ps[i], b);
        s += norm3(c) + square(halve(ps[i][0]));
    }
    s
}

/// Results passed on whole in a loop whose reverse runs after the whole forward sweep (the
/// loop carries `s` and `bb`, and more follows it): each iteration's results are kept for
/// the reverse, floats unboxed.
#[reverse]
fn crosses_carried(ps: &[[f64; 3]], b: [f64; 3], w: f64) -> f64 {
    let mut s = 0.0;
    let mut bb = b;
    for p in ps {
        let c = scaled3(cross(*p, bb), w);
        s = s * w + norm3(c);
        bb[0] += s;
        let d = halve(s);
        s += square(d);
    }
    let mut k = 0;
    while k < 2 {
        let e = square(s);
        s = halve(e) + w;
        k += 1;
    }
    s.sin()
}

#[test]
fn results_passed_on_whole_in_loops() {
    let ps = [[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, -0.4, 1.1]];
    let b = [0.2, 0.4, -0.7];
    let flat: Vec<f64> = ps.iter().flatten().chain(&b).copied().collect();
    let unflat = |p: &[f64]| {
        let ps: Vec<[f64; 3]> = p[..9].chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
        (ps, [p[9], p[10], p[11]])
    };
    let (v, (gps, gb)) = crosses_in_a_loop_grad(&ps, b);
    assert_eq!(v.to_bits(), crosses_in_a_loop(&ps, b).to_bits());
    let fd = check::finite_difference(
        |p| {
            let (ps, b) = unflat(p);
            crosses_in_a_loop(&ps, b)
        },
        &flat,
    );
    for (g, e) in gps.iter().flatten().chain(&gb).zip(&fd) {
        assert_relative_eq!(*g, *e, max_relative = 1e-7);
    }
    // One point: |p × b| + p0^2 / 4, whose gradient in b is u × p with u = (p × b) / |p × b|.
    let (v, (gp, gb)) = crosses_in_a_loop_grad(&ps[..1], b);
    let c = cross(ps[0], b);
    let n = norm3(c);
    assert_relative_eq!(v, n + ps[0][0] * ps[0][0] / 4.0, max_relative = 1e-15);
    let u = [c[0] / n, c[1] / n, c[2] / n];
    let up = cross(u, ps[0]);
    for k in 0..3 {
        assert_relative_eq!(gb[k], up[k], max_relative = 1e-12);
    }
    assert_relative_eq!(
        gp[0][0],
        cross(b, u)[0] + ps[0][0] / 2.0,
        max_relative = 1e-12
    );

    let w = 0.3;
    let mut flat = flat;
    flat.push(w);
    let (v, (gps, gb, gw)) = crosses_carried_grad(&ps, b, w);
    assert_eq!(v.to_bits(), crosses_carried(&ps, b, w).to_bits());
    let fd = check::finite_difference(
        |p| {
            let (ps, b) = unflat(p);
            crosses_carried(&ps, b, p[12])
        },
        &flat,
    );
    let ours: Vec<f64> = gps
        .iter()
        .flatten()
        .chain(&gb)
        .copied()
        .chain([gw])
        .collect();
    for (g, e) in ours.iter().zip(&fd) {
        assert_relative_eq!(*g, *e, max_relative = 1e-6);
    }
}

/// Results passed on whole in closures: a chain's `map` and `fold`, and a closure bound to a
/// name and called twice.
#[reverse]
fn crosses_in_closures(ps: &[[f64; 3]], b: [f64; 3]) -> f64 {
    let norms: f64 = ps.iter().map(|p| norm3(cross(*p, b))).sum();
    let g = |x: f64| {
        let h = halve(x);
        square(h)
    };
    ps.iter()
        .fold(g(norms), |acc, p| acc * norm3(cross(b, *p)) + g(p[1]))
}

#[test]
fn results_passed_on_whole_in_closures() {
    let ps = [[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, -0.4, 1.1]];
    let b = [0.2, 0.4, -0.7];
    let flat: Vec<f64> = ps.iter().flatten().chain(&b).copied().collect();
    let (v, (gps, gb)) = crosses_in_closures_grad(&ps, b);
    assert_eq!(v.to_bits(), crosses_in_closures(&ps, b).to_bits());
    let fd = check::finite_difference(
        |p| {
            let ps: Vec<[f64; 3]> = p[..9].chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
            crosses_in_closures(&ps, [p[9], p[10], p[11]])
        },
        &flat,
    );
    for (g, e) in gps.iter().flatten().chain(&gb).zip(&fd) {
        assert_relative_eq!(*g, *e, max_relative = 1e-7);
    }
    // No points: (0 / 2)^2, whose gradient in b is zero.
    assert_eq!(crosses_in_closures_grad(&[], b), (0.0, (vec![], [0.0; 3])));
}
