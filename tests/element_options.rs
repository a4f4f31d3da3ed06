//! References to elements and the `Option`s of element access, as users write them:
//! `let v = &xs[i];`, `if let Some(v) = xs.get(i)`, `xs.first()`, `xs.last()`, and `match` on
//! them with `Some(v)` / `Some(&v)` and `None` or `_`, and the `Option`s taken apart in
//! expressions (`xs.get(i).copied().unwrap_or(d)`, `*xs.first().unwrap()`,
//! `xs.last().map(|v| ..).unwrap_or_default()`). Each gradient is compared with central finite
//! differences or a closed form, at indices inside and past the end, and on an empty slice.

use revad::{forward, reverse};

#[path = "common/fd.rs"]
mod fd;
use fd::{close_all, fd};

/// The reference to a float element is read as its value: through `*v`, in arithmetic, by a
/// method, and passed on to a function that takes `&f64`.
#[reverse]
fn twice_ref(v: &f64) -> f64 {
    v * 2.0
}

#[reverse]
fn element_refs(xs: &[f64], i: usize) -> f64 {
    let v = &xs[i];
    let w = &xs[0];
    *v * 3.0 + v * w + v.sin() + twice_ref(v) + w.max(xs[1])
}

#[test]
fn references_to_elements() {
    let x = [0.4, -1.3, 2.0, 0.9];
    for i in 0..x.len() {
        let (v, g) = element_refs_grad(&x, i);
        assert_eq!(v, element_refs(&x, i));
        close_all(&g, &fd(|y| element_refs(y, i), &x));
    }
}

/// In a loop: two neighbours by reference, compared and combined.
#[reverse]
fn rises(xs: [f64; 5]) -> f64 {
    let mut s = 0.0;
    for i in 1..5 {
        let a = &xs[i];
        let b = &xs[i - 1];
        if *a > *b {
            s += a * a;
        } else {
            s -= (*b).ln();
        }
    }
    s
}

#[test]
fn references_in_a_loop() {
    let x = [1.0, 3.0, 2.0, 5.0, 4.5];
    let (v, g) = rises_grad(x);
    assert_eq!(v, rises(x));
    // 9 - ln 3 + 25 - ln 5: d/dx1 = 6 - 1/3, d/dx3 = 10 - 1/5.
    close_all(&g, &[0.0, 6.0 - 1.0 / 3.0, 0.0, 10.0 - 0.2, 0.0]);
}

/// `if let` and `match` on `get`, `first` and `last`, with and without `else`, as values and
/// as statements.
#[reverse]
fn options(x: &[f64], i: usize) -> f64 {
    let last = if let Some(v) = x.last() { *v } else { 1.0 };
    let first = match x.first() {
        Some(&v) => v,
        None => 0.0,
    };
    let mut s = first * last;
    if let Some(v) = x.get(i + 1) {
        s += v.sin() * v;
    }
    let g = match x.get(i) {
        None => 2.0,
        Some(w) => w * w,
    };
    s + g
}

#[test]
fn options_of_element_access() {
    let x = [0.3, -0.7, 1.1, 0.5];
    for i in [0, 2, 3, 5] {
        let (v, g) = options_grad(&x, i);
        assert_eq!(v, options(&x, i));
        close_all(&g, &fd(|y| options(y, i), &x));
    }
    // Empty: `last` 1, `first` 0, no `get`: the value 2 and no gradient.
    let (v, g) = options_grad(&[], 0);
    assert_eq!(v, 2.0);
    assert!(g.is_empty());
    // One element: first = last = x0, and `get(0)` is it too: x0² + x0².
    let (v, g) = options_grad(&[1.5], 0);
    assert_eq!(v, 4.5);
    close_all(&g, &[6.0]);
}

/// `match` on `get` as the value of each iteration, past the end too.
#[reverse]
fn weighted_past_the_end(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..x.len() + 2 {
        s += match x.get(k) {
            Some(v) => v * (k as f64 + 1.0),
            _ => 0.5,
        };
    }
    s
}

#[test]
fn match_in_a_loop() {
    let x = [0.3, -0.7, 1.1, 0.5];
    let (v, g) = weighted_past_the_end_grad(&x);
    assert_eq!(v, weighted_past_the_end(&x));
    close_all(&g, &[1.0, 2.0, 3.0, 4.0]);
}

/// The `Option` of an element taken apart in expressions: a default (`unwrap_or`, evaluated
/// first as Rust does, `unwrap_or_default`, `unwrap_or_else`), `unwrap` and `expect` (copied,
/// dereferenced, bound, and read through the reference), and `map` before them.
#[reverse]
#[forward]
fn unwrapped(x: &[f64], w: f64, i: usize) -> f64 {
    let a = x.get(i).copied().unwrap_or(w * 0.5);
    let b = *x.get(i + 1).unwrap_or(&2.0);
    let c = x.last().cloned().unwrap_or_default();
    let d = x.get(i + 2).copied().unwrap_or_else(|| w.powi(2));
    let e = x.get(i).map(|v| v * w).unwrap_or(1.0);
    let f = x.first().map(|&v| v.sin()).unwrap_or_default();
    a * b + c * d + e + f
}

#[test]
fn options_taken_apart() {
    let x = [0.3, -0.7, 1.1, 0.5];
    let w = 1.3;
    for i in [0, 1, 2, 3, 4, 7] {
        let (v, (g, gw)) = unwrapped_grad(&x, w, i);
        assert_eq!(v, unwrapped(&x, w, i));
        let mut xw = x.to_vec();
        xw.push(w);
        let want = fd(|y| unwrapped(&y[..4], y[4], i), &xw);
        close_all(&[&g[..], &[gw]].concat(), &want);
        // Forward mode reads them the same way: the tangent along `w`.
        let (jv, jt) = unwrapped_jvp(&x, w, i, &[0.0; 4], 1.0);
        assert_eq!(jv, v);
        close_all(&[jt], &[want[4]]);
    }
    // Empty: every default, `w/2 · 2 + 0 · w² + 1 + 0`, so the derivative in `w` is 1.
    let (v, (g, gw)) = unwrapped_grad(&[], w, 0);
    assert_eq!(v, w + 1.0);
    assert!(g.is_empty());
    assert_eq!(gw, 1.0);
}

/// `unwrap` and `expect` on the element that is there: `first · last + get(1)` with the
/// reference bound (`let m = ..unwrap();`, then `*m` and `m.sin()`).
#[reverse]
fn ends(x: &[f64]) -> f64 {
    let first = *x.first().unwrap();
    let last = x.last().copied().expect("at least one element");
    let m = x.get(1).unwrap();
    first * last + *m * m.sin() + x.first().unwrap() * 3.0
}

#[test]
fn unwrap_and_expect() {
    let x = [0.4, -1.3, 2.0];
    let (v, g) = ends_grad(&x);
    assert_eq!(v, ends(&x));
    let m = x[1];
    close_all(&g, &[x[2] + 3.0, m.sin() + m * m.cos(), x[0]]);
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn unwrap_of_nothing_panics_as_rust_does() {
    let _ = ends_grad(&[]);
}

#[test]
#[should_panic(expected = "at least one element")]
fn expect_of_nothing_panics_with_its_message() {
    let _ = last_expected_grad(&[]);
}

/// `expect` as the first read of the function, so that its own message is the panic's.
#[reverse]
fn last_expected(x: &[f64]) -> f64 {
    x.last().copied().expect("at least one element") * 2.0
}

#[test]
fn expect_of_something() {
    assert_eq!(last_expected_grad(&[1.0, 4.0]), (8.0, vec![0.0, 2.0]));
}

/// `if let Some(m) = ..` of an `Option` an iterator over a name makes: the maximum, a
/// reduction, a position.
#[reverse]
fn if_let_of_iterator_options(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    if let Some(&m) = x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()) {
        s += m * 2.0;
    }
    if let Some(m) = x.iter().copied().reduce(f64::min) {
        s += m * w;
    }
    if let Some(i) = x.iter().position(|&v| v > 1.5) {
        s += x[i] * x[i];
    } else {
        s -= w;
    }
    s
}

#[test]
fn if_let_on_options_of_iterators() {
    // max 3 (·2), min 1 (·w), x[1] = 3 the first above 1.5
    let (v, (dx, dw)) = if_let_of_iterator_options_grad(&[1.0, 3.0, 2.0], 0.5);
    assert_eq!(v, 6.0 + 0.5 + 9.0);
    assert_eq!((dx, dw), (vec![0.5, 2.0 + 6.0, 0.0], 1.0));
    // None above 1.5: - w
    let (v, (dx, dw)) = if_let_of_iterator_options_grad(&[1.0, 0.3], 0.5);
    assert_eq!(v, 2.0 + 0.15 - 0.5);
    assert_eq!((dx, dw), (vec![2.0, 0.5], 0.3 - 1.0));
    let (v, (dx, dw)) = if_let_of_iterator_options_grad(&[], 0.5);
    assert_eq!((v, dx, dw), (-0.5, vec![], -1.0));
    let x = [0.2, -1.0, 1.7, 0.9];
    let (_, (dx, _)) = if_let_of_iterator_options_grad(&x, 0.5);
    close_all(&dx, &fd(|p| if_let_of_iterator_options(p, 0.5), &x));
}
