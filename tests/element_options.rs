//! References to elements and the `Option`s of element access, as users write them:
//! `let v = &xs[i];`, `if let Some(v) = xs.get(i)`, `xs.first()`, `xs.last()`, and `match` on
//! them with `Some(v)` / `Some(&v)` and `None` or `_`. Each gradient is compared with central
//! finite differences, at indices inside and past the end, and on an empty slice.

use revad::reverse;

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
