//! Growing and reshaping float vectors: `Vec::new()`, `Vec::with_capacity`, `vec![a, b, c]`,
//! `push`, `pop`, `insert`, `remove`, `extend_from_slice`, `resize`, `truncate`, `clear`,
//! `swap`, `to_vec`, `clone`, reassignment, and `.len()` after growth, inside loops (with
//! `break` and early `return`), `if` arms and nested loops. Each gradient is checked against
//! a closed form and against central finite differences.
#![allow(
    clippy::needless_range_loop,
    clippy::vec_init_then_push,
    clippy::useless_vec,
    clippy::assign_op_pattern,
    reason = "these tests exercise the forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

/// Central finite differences of `f` agree with `grad`.
fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], grad: &[f64]) {
    check::gradient(f, x, grad).unwrap();
}

// ---- the classic buffer: push in a loop, then reduce -----------------------------------------

#[reverse]
fn buffer_sum(x: &[f64]) -> f64 {
    let mut buf = Vec::new();
    for i in 0..x.len() {
        buf.push(x[i] * x[i].sin());
    }
    buf.iter().sum()
}

#[reverse]
fn buffer_sum_via(x: &[f64]) -> f64 {
    buffer_sum(x)
}

#[test]
fn push_in_a_loop_then_sum() {
    let x = [0.3, -1.2, 2.0, 0.7];
    let (v, g) = buffer_sum_grad(&x);
    assert_eq!(v, buffer_sum(&x));
    for i in 0..x.len() {
        assert_relative_eq!(g[i], x[i].sin() + x[i] * x[i].cos(), max_relative = 1e-14);
    }
    fd(buffer_sum, &x, &g);
    assert_eq!(buffer_sum_via_grad(&x).1, g);
}

#[reverse]
fn buffer_by_index(x: &[f64], scale: f64) -> f64 {
    let mut buf: Vec<f64> = Vec::with_capacity(x.len());
    for &xi in x.iter() {
        buf.push(xi * scale);
    }
    let mut s = 0.0;
    for i in 0..buf.len() {
        s += buf[i] * buf[i];
    }
    s
}

#[test]
fn push_then_reduce_by_index_over_len() {
    let x = [0.5, -1.5, 2.5];
    let scale = 1.3;
    let (_, (gx, gs)) = buffer_by_index_grad(&x, scale);
    let sq: f64 = x.iter().map(|v| v * v).sum();
    for i in 0..3 {
        assert_relative_eq!(gx[i], 2.0 * x[i] * scale * scale, max_relative = 1e-14);
    }
    assert_relative_eq!(gs, 2.0 * scale * sq, max_relative = 1e-14);
    fd(
        |p| buffer_by_index(&p[..3], p[3]),
        &[0.5, -1.5, 2.5, 1.3],
        &[gx[0], gx[1], gx[2], gs],
    );
}

// ---- pop -----------------------------------------------------------------------------------

#[reverse]
fn pops(a: f64, b: f64, c: f64) -> f64 {
    let mut v = vec![a, b * b, c];
    let last = v.pop().unwrap();
    v.push(last * a);
    let top = v.pop().expect("not empty");
    v.pop();
    top + v.len() as f64 * v[0] * c
}

#[test]
fn pop_with_value_and_as_a_statement() {
    let (a, b, c) = (1.5, -0.5, 2.0);
    // v = [a, b², c]; top = c·a; v.pop() drops b²; result = c·a + 1·a·c = 2ac
    let (v, (da, db, dc)) = pops_grad(a, b, c);
    assert_eq!(v, pops(a, b, c));
    assert_relative_eq!(v, 2.0 * a * c);
    assert_eq!((da, db, dc), (2.0 * c, 0.0, 2.0 * a));
    fd(|p| pops(p[0], p[1], p[2]), &[a, b, c], &[da, db, dc]);
}

#[reverse]
fn pairwise_reduce(x: &[f64]) -> f64 {
    let mut stack = x.to_vec();
    while stack.len() > 1 {
        let a = stack.pop().unwrap();
        let b = stack.pop().unwrap();
        stack.push(a * b + a);
    }
    stack[0]
}

#[test]
fn pops_and_pushes_in_a_while_loop() {
    let x = [0.9, 1.1, -0.7, 1.3];
    let (v, g) = pairwise_reduce_grad(&x);
    assert_eq!(v, pairwise_reduce(&x));
    // r1 = x3·x2 + x3; r2 = r1·x1 + r1; r3 = r2·x0 + r2
    let (r1, r2) = (x[3] * x[2] + x[3], 0.0);
    let r2 = r2 + r1 * x[1] + r1;
    assert_relative_eq!(v, r2 * x[0] + r2, max_relative = 1e-14);
    assert_relative_eq!(g[0], r2, max_relative = 1e-14);
    assert_relative_eq!(g[1], r1 * (x[0] + 1.0), max_relative = 1e-14);
    assert_relative_eq!(
        g[2],
        x[3] * (x[1] + 1.0) * (x[0] + 1.0),
        max_relative = 1e-14
    );
    assert_relative_eq!(
        g[3],
        (x[2] + 1.0) * (x[1] + 1.0) * (x[0] + 1.0),
        max_relative = 1e-14
    );
    fd(pairwise_reduce, &x, &g);
}

// ---- insert and remove --------------------------------------------------------------------

#[reverse]
fn insert_remove(a: f64, b: f64, c: f64) -> f64 {
    let mut v: Vec<f64> = Vec::new();
    v.push(a);
    v.push(b);
    v.insert(1, c * c);
    // v = [a, c², b]
    let first = v.remove(0);
    // v = [c², b]
    v.remove(1);
    // v = [c²]
    v.insert(0, first * b);
    // v = [ab, c²]
    v[0] * v[1] + first
}

#[test]
fn insert_and_remove() {
    let (a, b, c) = (1.5, -0.5, 2.0);
    let (v, (da, db, dc)) = insert_remove_grad(a, b, c);
    assert_eq!(v, insert_remove(a, b, c));
    assert_relative_eq!(v, a * b * c * c + a);
    assert_relative_eq!(da, b * c * c + 1.0);
    assert_relative_eq!(db, a * c * c);
    assert_relative_eq!(dc, 2.0 * a * b * c);
    fd(
        |p| insert_remove(p[0], p[1], p[2]),
        &[a, b, c],
        &[da, db, dc],
    );
}

// ---- swap ------------------------------------------------------------------------------------

#[reverse]
fn swaps(x: [f64; 3], mut w: Vec<f64>) -> f64 {
    let mut a = x;
    a.swap(0, 2);
    w.swap(0, 1);
    let mut v = vec![a[0], a[1]];
    v.swap(0, 1);
    a[0] * w[0] + 3.0 * v[0] + v[1] * w[1] * w[1]
}

#[test]
fn swap_on_arrays_vecs_and_parameters() {
    let x = [1.0, 2.0, 3.0];
    let w = vec![0.5, -1.5];
    // a = [x2, x1, x0]; w = [w1, w0]; v = [x1, x2]
    // f = x2·w1 + 3·x1 + x2·w0²
    let (v, (gx, gw)) = swaps_grad(x, w.clone());
    assert_eq!(v, swaps(x, w.clone()));
    assert_relative_eq!(v, x[2] * w[1] + 3.0 * x[1] + x[2] * w[0] * w[0]);
    assert_eq!(gx, [0.0, 3.0, w[1] + w[0] * w[0]]);
    assert_eq!(gw, vec![2.0 * x[2] * w[0], x[2]]);
    fd(
        |p| swaps([p[0], p[1], p[2]], vec![p[3], p[4]]),
        &[1.0, 2.0, 3.0, 0.5, -1.5],
        &[gx[0], gx[1], gx[2], gw[0], gw[1]],
    );
}

// ---- truncate, clear, resize -------------------------------------------------------------

#[reverse]
fn reshape(x: &[f64], y: f64, k: usize) -> f64 {
    let mut v = x.to_vec();
    v.truncate(k);
    v.resize(k + 2, y * y);
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * (i as f64 + 1.0);
    }
    v.clear();
    v.resize(2, y);
    s + v[0] * v[1]
}

#[test]
fn truncate_resize_and_clear() {
    let x = [0.5, 1.5, -2.0, 4.0];
    let (y, k) = (0.75, 2);
    let (v, (gx, gy)) = reshape_grad(&x, y, k);
    assert_eq!(v, reshape(&x, y, k));
    // v = [x0, x1, y², y²]; s = x0 + 2x1 + 3y² + 4y²; then + y²
    assert_relative_eq!(v, x[0] + 2.0 * x[1] + 8.0 * y * y, max_relative = 1e-14);
    assert_eq!(gx, vec![1.0, 2.0, 0.0, 0.0]);
    assert_relative_eq!(gy, 16.0 * y, max_relative = 1e-14);
    let mut g = gx.clone();
    g.push(gy);
    fd(|p| reshape(&p[..4], p[4], k), &[0.5, 1.5, -2.0, 4.0, y], &g);
    // Resizing down is a truncation: the dropped elements get no adjoint.
    let (_, (gx, _)) = reshape_grad(&x, y, 4);
    assert_eq!(gx, vec![1.0, 2.0, 3.0, 4.0]);
}

// ---- extend_from_slice, to_vec, clone ---------------------------------------------------------

#[reverse]
fn extend(x: &[f64], a: f64) -> f64 {
    let local = [a, 2.0 * a];
    let mut v = vec![a * a];
    v.extend_from_slice(x);
    v.extend_from_slice(&local);
    let mut w: Vec<f64> = Vec::new();
    w.extend_from_slice(&v);
    w.extend_from_slice(&v);
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * w[i];
    }
    s
}

#[reverse]
fn extend_via(x: &[f64], a: f64) -> f64 {
    extend(x, a)
}

#[test]
fn extend_from_slices_arrays_and_vecs() {
    let x = [0.5, -1.0, 2.0];
    let a = 1.25;
    let (v, (gx, ga)) = extend_grad(&x, a);
    assert_eq!(v, extend(&x, a));
    // w = v ++ v, v = [a², x.., a, 2a]: s = 2(a⁴ + Σx² + a² + 4a²)
    for i in 0..3 {
        assert_relative_eq!(gx[i], 4.0 * x[i], max_relative = 1e-14);
    }
    assert_relative_eq!(ga, 2.0 * (4.0 * a * a * a + 10.0 * a), max_relative = 1e-14);
    fd(
        |p| extend(&p[..3], p[3]),
        &[0.5, -1.0, 2.0, a],
        &[gx[0], gx[1], gx[2], ga],
    );
}

#[reverse]
fn copies(x: &[f64], y: f64) -> f64 {
    let mut u = x.to_vec();
    u.push(y);
    let c = u.clone();
    u[0] = u[0] * y;
    u.push(c[0] * c[1]);
    let d = c.to_vec();
    u[0] + u[u.len() - 1] + d[d.len() - 1] * 2.0
}

#[reverse]
fn copies_via(x: &[f64], y: f64) -> f64 {
    copies(x, y)
}

#[test]
fn to_vec_and_clone_are_copies_with_their_own_adjoints() {
    let x = [0.5, -1.5];
    let y = 3.0;
    // u0 = x0·y, last = x0·x1, d_last = y: f = x0·y + x0·x1 + 2y
    let (v, (gx, gy)) = copies_grad(&x, y);
    assert_eq!(v, copies(&x, y));
    assert_relative_eq!(v, x[0] * y + x[0] * x[1] + 2.0 * y);
    assert_eq!(gx, vec![y + x[1], x[0]]);
    assert_eq!(gy, x[0] + 2.0);
    fd(
        |p| copies(&p[..2], p[2]),
        &[0.5, -1.5, y],
        &[gx[0], gx[1], gy],
    );
}

#[reverse]
fn literal(a: f64, b: f64) -> f64 {
    let v = vec![a * b, a.sin(), 2.0, b];
    v[0] + v[1] * v[3] + v[2]
}

#[test]
fn vec_literal() {
    let (a, b) = (0.7, -1.3);
    let (v, (da, db)) = literal_grad(a, b);
    assert_eq!(v, literal(a, b));
    assert_relative_eq!(da, b + a.cos() * b, max_relative = 1e-15);
    assert_relative_eq!(db, a + a.sin(), max_relative = 1e-15);
    fd(|p| literal(p[0], p[1]), &[a, b], &[da, db]);
}

// ---- control flow: break, if, nested loops, return, reassignment ------------------------------

#[reverse(wrt(x))]
fn grow_until(x: f64, limit: f64) -> f64 {
    let mut v = Vec::new();
    let mut t = x;
    loop {
        v.push(t);
        if t > limit {
            break;
        }
        t = t * 1.5 + 0.25;
        v.push(t * 0.5);
    }
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[test]
fn growth_inside_a_loop_with_break() {
    for x in [0.3, 1.0, 2.2, 9.0] {
        let (v, dx) = grow_until_grad(x, 4.0);
        assert_eq!(v, grow_until(x, 4.0));
        // Closed form by replaying the recurrence: each element is c·t_k, dt_k/dx = 1.5^k.
        let (mut t, mut dt, mut want) = (x, 1.0, 0.0);
        loop {
            want += 2.0 * t * dt;
            if t > 4.0 {
                break;
            }
            t = t * 1.5 + 0.25;
            dt *= 1.5;
            want += 2.0 * (t * 0.5) * (dt * 0.5);
        }
        assert_relative_eq!(dx, want, max_relative = 1e-14);
        fd(|p| grow_until(p[0], 4.0), &[x], &[dx]);
    }
}

#[reverse]
fn grow_in_branches(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = Vec::new();
    for i in 0..x.len() {
        if x[i] > 0.0 {
            v.push(x[i] * x[i]);
        } else {
            v.push(-x[i]);
            v.push(2.0 * x[i]);
            if v.len() > 4 {
                let t = v.pop().unwrap();
                v[0] = v[0] + t * 3.0;
            }
        }
    }
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * (i as f64 + 0.5);
    }
    s
}

#[test]
fn growth_inside_if_arms() {
    let x = [0.5, -1.0, 2.0, -0.25, -3.0, 1.5];
    let (v, g) = grow_in_branches_grad(&x);
    assert_eq!(v, grow_in_branches(&x));
    fd(grow_in_branches, &x, &g);
    // Replay: positions of each element, by hand.
    // x0>0: v=[x0²]; x1<0: v=[x0², -x1, 2x1]; x2>0: [.., x2²] (len 4);
    // x3<0: push -x3, 2x3 → len 6 > 4: pop 2x3, v0 += 6x3 → [x0²+6x3, -x1, 2x1, x2², -x3]
    // x4<0: push -x4, 2x4 → pop 2x4, v0 += 6x4 → [.., -x4]; x5>0: push x5².
    let w = |i: usize| i as f64 + 0.5;
    let want = [
        2.0 * x[0] * w(0),
        -w(1) + 2.0 * w(2),
        2.0 * x[2] * w(3),
        6.0 * w(0) - w(4),
        6.0 * w(0) - w(5),
        2.0 * x[5] * w(6),
    ];
    for i in 0..6 {
        assert_relative_eq!(g[i], want[i], max_relative = 1e-14);
    }
}

#[reverse]
fn rows(x: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for r in 0..n {
        let mut row = Vec::new();
        for c in 0..=r {
            row.push(x[c] * (r as f64 + 1.0));
        }
        let mut acc: Vec<f64> = Vec::new();
        acc.extend_from_slice(&row);
        acc.push(row[r] * row[0]);
        total += acc[acc.len() - 1] + acc[0];
    }
    total
}

#[test]
fn vecs_created_and_grown_inside_nested_loops() {
    let x = [0.5, -1.0, 2.0];
    let (v, g) = rows_grad(&x, 3);
    assert_eq!(v, rows(&x, 3));
    // Row r: row[c] = x_c (r+1); total += (r+1)² x_r x_0 + (r+1) x_0
    let mut want = [0.0; 3];
    for r in 0..3 {
        let k = (r + 1) as f64;
        want[r] += k * k * x[0];
        want[0] += k * k * x[r] + k;
    }
    for i in 0..3 {
        assert_relative_eq!(g[i], want[i], max_relative = 1e-14);
    }
    fd(|p| rows(p, 3), &x, &g);
}

#[reverse]
fn windows_by_reassignment(x: &[f64]) -> f64 {
    let mut win: Vec<f64> = Vec::new();
    let mut best = 0.0;
    for i in 0..x.len() {
        win.push(x[i]);
        if win.len() == 2 {
            best += win[0] * win[1];
            win = Vec::new();
        }
    }
    let tail = win.clone();
    win = tail;
    win.push(1.0);
    best + win[0]
}

#[test]
fn reassigning_a_vec() {
    let x = [0.5, -1.0, 2.0, 3.0, 0.25];
    let (v, g) = windows_by_reassignment_grad(&x);
    assert_eq!(v, windows_by_reassignment(&x));
    assert_relative_eq!(v, x[0] * x[1] + x[2] * x[3] + x[4]);
    assert_eq!(g, vec![x[1], x[0], x[3], x[2], 1.0]);
    fd(windows_by_reassignment, &x, &g);
}

#[reverse(wrt(x))]
fn early_return(x: &[f64], cap: f64) -> f64 {
    let mut seen = Vec::new();
    for i in 0..x.len() {
        seen.push(x[i] * x[i]);
        let s: f64 = seen.iter().sum();
        if s > cap {
            return s * seen[0];
        }
    }
    seen.len() as f64 * seen[seen.len() - 1]
}

#[test]
fn growth_before_an_early_return() {
    let x = [0.5, -1.0, 2.0, 3.0];
    let (v, g) = early_return_grad(&x, 3.0);
    assert_eq!(v, early_return(&x, 3.0));
    // Returns at i = 2: s = x0² + x1² + x2², times x0².
    let s = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    let a = x[0] * x[0];
    assert_relative_eq!(g[0], 2.0 * x[0] * a + s * 2.0 * x[0], max_relative = 1e-14);
    assert_relative_eq!(g[1], 2.0 * x[1] * a, max_relative = 1e-14);
    assert_relative_eq!(g[2], 2.0 * x[2] * a, max_relative = 1e-14);
    assert_eq!(g[3], 0.0);
    fd(|p| early_return(p, 3.0), &x, &g);
    let (_, g) = early_return_grad(&x, 100.0);
    assert_eq!(g, vec![0.0, 0.0, 0.0, 8.0 * x[3]]);
}

// ---- Vec parameters and results -------------------------------------------------------------

#[reverse]
fn grow_param(mut v: Vec<f64>, y: f64) -> f64 {
    v.push(v[0] * y);
    v.insert(0, y);
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[reverse]
fn grow_param_via(v: Vec<f64>, y: f64) -> f64 {
    grow_param(v, y)
}

#[test]
fn growing_a_mut_vec_parameter() {
    let v = vec![0.5, -2.0];
    let y = 1.5;
    let (val, (gv, gy)) = grow_param_grad(v.clone(), y);
    assert_eq!(val, grow_param(v.clone(), y));
    // s = y² + v0² + v1² + v0² y²
    assert_eq!(gv.len(), 2);
    assert_relative_eq!(gv[0], 2.0 * v[0] + 2.0 * v[0] * y * y);
    assert_relative_eq!(gv[1], 2.0 * v[1]);
    assert_relative_eq!(gy, 2.0 * y + 2.0 * v[0] * v[0] * y);
    assert_eq!(grow_param_via_grad(v.clone(), y).1, (gv.clone(), gy));
    fd(
        |p| grow_param(vec![p[0], p[1]], p[2]),
        &[0.5, -2.0, y],
        &[gv[0], gv[1], gy],
    );
}

#[reverse]
fn squares(x: &[f64], k: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..x.len() {
        if i != k {
            out.push(x[i] * x[i]);
        }
    }
    out
}

#[test]
fn a_grown_vec_as_the_result() {
    let x = [0.5, -1.0, 2.0];
    let seed = vec![1.0, 10.0];
    let (v, g) = squares_vjp(&x, 1, seed);
    assert_eq!(v, squares(&x, 1));
    assert_eq!(g, vec![2.0 * x[0], 0.0, 20.0 * x[2]]);
}

#[test]
#[should_panic(expected = "the seed has length 3 but the output has length 2")]
fn the_seed_of_a_grown_result_has_its_length() {
    let _ = squares_vjp(&[0.5, -1.0, 2.0], 1, vec![1.0, 1.0, 1.0]);
}

// ---- values overwritten after being pushed, f32 -------------------------------------------------

#[reverse]
fn overwritten(x: f64, y: f64) -> f64 {
    let mut t = x * y;
    let mut v = Vec::new();
    v.push(t);
    t = t.sin();
    v.push(t);
    v[0] = v[0] * v[1];
    t = 0.0;
    v.push(t);
    v[0] + v[1] + v[2]
}

#[test]
fn a_pushed_value_later_overwritten() {
    let (x, y) = (0.8, 1.1);
    let (v, (dx, dy)) = overwritten_grad(x, y);
    assert_eq!(v, overwritten(x, y));
    // f = xy·sin(xy) + sin(xy); df/du = sin u + u cos u + cos u at u = xy
    let u = x * y;
    let d = u.sin() + u * u.cos() + u.cos();
    assert_relative_eq!(dx, d * y, max_relative = 1e-14);
    assert_relative_eq!(dy, d * x, max_relative = 1e-14);
    fd(|p| overwritten(p[0], p[1]), &[x, y], &[dx, dy]);
}

#[reverse]
fn single_precision(x: f32, n: usize) -> f32 {
    let mut v: Vec<f32> = Vec::new();
    for i in 0..n {
        v.push(x * (i as f32 + 1.0));
    }
    let mut s = 0.0;
    for i in 0..4 {
        s += v[i] * v[i];
    }
    s
}

#[test]
fn f32_vectors() {
    let (v, dx) = single_precision_grad(0.5, 6);
    assert_eq!(v, single_precision(0.5, 6));
    // s = x² (1 + 4 + 9 + 16)
    assert_eq!(dx, 2.0 * 0.5 * 30.0);
}

// ---- more control flow: match, continue, while over the length, lengths read before growth ----

#[reverse(wrt(x))]
fn grow_by_kind(x: &[f64], kinds: &[u8]) -> f64 {
    let mut v: Vec<f64> = Vec::new();
    let mut kept = Vec::new();
    for i in 0..x.len() {
        let n = v.len();
        match kinds[i] {
            0 => v.push(x[i]),
            1 => {
                v.push(x[i] * x[i]);
                v.push(x[i]);
            }
            _ => {
                if n == 0 {
                    continue;
                }
                let t = v.pop().unwrap();
                kept.push(t * x[i]);
            }
        }
    }
    while v.len() < 6 {
        v.push(0.5);
    }
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * (i as f64 + 1.0);
    }
    for &k in kept.iter() {
        s += k * k;
    }
    s
}

#[test]
fn growth_in_match_arms_with_continue_and_a_while_over_the_length() {
    let x = [0.5, -1.0, 2.0, 3.0, -0.5, 1.5];
    let kinds = [2, 1, 0, 2, 2, 1];
    let (v, g) = grow_by_kind_grad(&x, &kinds);
    assert_eq!(v, grow_by_kind(&x, &kinds));
    // i0: skipped; i1: v=[x1², x1]; i2: v=[x1², x1, x2]; i3: pop x2, kept=[x2·x3];
    // i4: pop x1, kept=[x2x3, x1x4]; i5: v=[x1², x5², x5]; then padded to 6 with 0.5.
    // s = x1² + 2x5² + 3x5 + 4·0.5 + 5·0.5 + 6·0.5 + (x2x3)² + (x1x4)²
    let want = [
        0.0,
        2.0 * x[1] + 2.0 * x[1] * x[4] * x[4],
        2.0 * x[2] * x[3] * x[3],
        2.0 * x[3] * x[2] * x[2],
        2.0 * x[4] * x[1] * x[1],
        4.0 * x[5] + 3.0,
    ];
    for i in 0..6 {
        assert_relative_eq!(g[i], want[i], max_relative = 1e-14);
    }
    fd(|p| grow_by_kind(p, &kinds), &x, &g);
}

#[reverse]
fn copy_then_grow_both(x: f64, y: f64) -> f64 {
    let mut a = vec![x];
    let mut b = a.clone();
    let before = a.len();
    a.push(y * y);
    b.push(x * y);
    b.push(a[1]);
    let mut c = b.to_vec();
    c.swap(0, 2);
    a = c.clone();
    a.push(before as f64 * x);
    a[0] * a[3] + a[1] + b[0] * c[2]
}

#[test]
fn copies_grown_independently_and_reassigned() {
    let (x, y) = (0.7, -1.2);
    // a = [x, y²]; b = [x, xy, y²]; c = [y², xy, x]; a := c ++ [x]
    // f = y²·x + xy + x·x
    let (v, (dx, dy)) = copy_then_grow_both_grad(x, y);
    assert_eq!(v, copy_then_grow_both(x, y));
    assert_relative_eq!(v, y * y * x + x * y + x * x, max_relative = 1e-15);
    assert_relative_eq!(dx, y * y + y + 2.0 * x, max_relative = 1e-15);
    assert_relative_eq!(dy, 2.0 * x * y + x, max_relative = 1e-15);
    fd(|p| copy_then_grow_both(p[0], p[1]), &[x, y], &[dx, dy]);
}

#[reverse]
fn moving_indices(x: f64, y: f64, cut: bool) -> f64 {
    let mut v = vec![1.0, 2.0];
    let mut k = 0;
    v.insert(k, x);
    k += 2;
    v.insert(k, y * y);
    // v = [x, 1, y², 2]
    let mut j = 3;
    v.swap(k, j);
    j -= 3;
    // v = [x, 1, 2, y²]
    let r = v.remove(j);
    if cut {
        v.truncate(2);
        v.resize(3, r * y);
    }
    v[0] * v[2] + r
}

#[reverse]
fn moving_indices_via(x: f64, y: f64, cut: bool) -> f64 {
    moving_indices(x, y, cut)
}

#[test]
fn indices_changed_after_use_and_shrinking_in_a_branch() {
    let (x, y) = (1.5, -0.5);
    // v = [1, 2, y²], r = x: without the cut f = 1·y² + x; with it v = [1, 2, x·y], f = xy + x
    let (v, (dx, dy)) = moving_indices_grad(x, y, false);
    assert_eq!(v, moving_indices(x, y, false));
    assert_eq!((dx, dy), (1.0, 2.0 * y));
    let (v, (dx, dy)) = moving_indices_grad(x, y, true);
    assert_eq!(v, moving_indices(x, y, true));
    assert_eq!((dx, dy), (y + 1.0, x));
    for cut in [false, true] {
        let (_, g) = moving_indices_grad(x, y, cut);
        assert_eq!(moving_indices_via_grad(x, y, cut).1, g);
        fd(|p| moving_indices(p[0], p[1], cut), &[x, y], &[g.0, g.1]);
    }
}

#[reverse]
fn local_to_an_arm(x: f64, y: f64) -> (f64, Vec<f64>) {
    let mut s = x;
    let mut out = Vec::new();
    if x > 0.0 {
        let mut t = Vec::new();
        t.push(x * y);
        t.push(y);
        let last = t.pop().unwrap();
        s = t[0] * last;
        out.push(s);
    } else {
        out.push(y);
    }
    out.push(x);
    (s * 2.0, out)
}

#[test]
fn a_vec_local_to_an_if_arm_and_a_tuple_result() {
    let (x, y) = (1.5, -0.5);
    // s = x·y·y; outputs (2s, [s, x])
    let ((v, out), (dx, dy)) = local_to_an_arm_vjp(x, y, (1.0, vec![10.0, 100.0]));
    assert_eq!((v, out.clone()), local_to_an_arm(x, y));
    assert_eq!(out, vec![x * y * y, x]);
    assert_relative_eq!(dx, 12.0 * y * y + 100.0, max_relative = 1e-15);
    assert_relative_eq!(dy, 12.0 * 2.0 * x * y, max_relative = 1e-15);
    let ((_, _), (dx, dy)) = local_to_an_arm_vjp(-x, y, (1.0, vec![10.0, 100.0]));
    assert_eq!((dx, dy), (2.0 + 100.0, 10.0));
}

#[reverse]
fn widen(x: &[f64], n: usize) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for i in 0..n {
        y[i] = x[i % x.len()] * (i as f64 + 1.0);
    }
    y
}

#[reverse]
fn widen_chain(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for l in 0..3 {
        h = widen(&h, 3 - l);
    }
    h[0] + h[0] * x[1]
}

/// A `Vec` assigned a call's result of another length in a loop: the snapshot of the `Vec`
/// passed to the call has its own length (it used to take the final length, and panicked).
#[test]
fn a_vec_reassigned_from_calls_of_other_lengths() {
    let x = [2.0, 3.0];
    let (v, g) = widen_chain_grad(&x);
    assert_eq!(v, widen_chain(&x));
    // h[0] = x0 after the three calls: v = x0 + x0 x1.
    assert_eq!(g, [1.0 + x[1], x[0]]);
}
