//! Calls between differentiated functions: composition across modules, recursion, mutual
//! recursion, and the tree product of Wang et al.
#![allow(
    clippy::needless_range_loop,
    reason = "these tests exercise index loops and plain assignments on purpose: they are the forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

#[path = "common/bits.rs"]
mod bits;
use bits::checked;

// Each function under test also has a thin caller, `NAME_via`: its gradient goes through the
// split companions of `NAME`, and must agree with `NAME_grad` bit for bit.

mod shapes {
    use revad::reverse;

    #[reverse]
    pub fn h(x: f64) -> f64 {
        x.sin() * x
    }

    pub mod deeper {
        use revad::reverse;

        #[reverse]
        pub fn scale(w: &[f64], k: f64) -> f64 {
            let mut s = 0.0;
            for i in 0..w.len() {
                s += w[i] * k;
            }
            s
        }
    }
}

#[reverse]
fn g(a: f64, b: f64) -> f64 {
    a * b + a.exp()
}

#[reverse]
fn composed(x: f64) -> f64 {
    g(shapes::h(x), x)
}

#[reverse]
fn composed_via(x: f64) -> f64 {
    composed(x)
}

#[test]
fn composition_across_modules() {
    for &x in &[0.3, -1.2, 2.0] {
        let (_, d) = checked(composed(x), composed_grad(x), composed_via_grad(x));
        // d/dx g(h(x), x) = (b + e^a) h'(x) + a with a = h(x), b = x.
        let (a, ha) = (x.sin() * x, x.cos() * x + x.sin());
        assert_relative_eq!(d, (x + a.exp()) * ha + a, max_relative = 1e-13);
        check::gradient(|p| composed(p[0]), &[x], &[d]).unwrap();
    }
}

#[reverse]
fn uses_path_call(w: &[f64], k: f64) -> f64 {
    let s = shapes::deeper::scale(w, k);
    s * s + crate::shapes::h(k)
}

#[reverse]
fn uses_path_call_via(w: &[f64], k: f64) -> f64 {
    uses_path_call(w, k)
}

#[test]
fn slices_passed_to_callees_receive_their_adjoints() {
    let w = [0.5, -1.0, 2.0];
    let (_, (dw, dk)) = checked(
        uses_path_call(&w, 1.5),
        uses_path_call_grad(&w, 1.5),
        uses_path_call_via_grad(&w, 1.5),
    );
    let mut at = w.to_vec();
    at.push(1.5);
    let mut grad = dw.clone();
    grad.push(dk);
    check::gradient(|p| uses_path_call(&p[..3], p[3]), &at, &grad).unwrap();
}

#[reverse]
fn pow_rec(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * pow_rec(x, n - 1)
    }
}

#[reverse]
fn pow_rec_via(x: f64, n: u32) -> f64 {
    pow_rec(x, n)
}

#[test]
fn recursive_power() {
    for n in 0..8 {
        let (v, d) = checked(
            pow_rec(1.3, n),
            pow_rec_grad(1.3, n),
            pow_rec_via_grad(1.3, n),
        );
        assert_relative_eq!(v, 1.3f64.powi(n as i32), max_relative = 1e-14);
        let expected = if n == 0 {
            0.0
        } else {
            n as f64 * 1.3f64.powi(n as i32 - 1)
        };
        assert_relative_eq!(d, expected, max_relative = 1e-14);
    }
}

#[reverse]
fn is_even_weighted(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        is_odd_weighted(x * 1.5, n - 1).sin()
    }
}

#[reverse]
fn is_odd_weighted(x: f64, n: u32) -> f64 {
    if n == 0 {
        x * x
    } else {
        is_even_weighted(x - 0.25, n - 1) * x
    }
}

#[reverse]
fn is_even_weighted_via(x: f64, n: u32) -> f64 {
    is_even_weighted(x, n)
}

#[reverse]
fn is_odd_weighted_via(x: f64, n: u32) -> f64 {
    is_odd_weighted(x, n)
}

#[test]
fn mutual_recursion() {
    for n in 0..6 {
        let (_, d) = checked(
            is_even_weighted(0.4, n),
            is_even_weighted_grad(0.4, n),
            is_even_weighted_via_grad(0.4, n),
        );
        check::gradient(|p| is_even_weighted(p[0], n), &[0.4], &[d]).unwrap();
        let (_, d) = checked(
            is_odd_weighted(0.4, n),
            is_odd_weighted_grad(0.4, n),
            is_odd_weighted_via_grad(0.4, n),
        );
        check::gradient(|p| is_odd_weighted(p[0], n), &[0.4], &[d]).unwrap();
    }
}

/// Wang et al. (ICFP 2019), sec. 4.4: the product over an implicit binary tree stored in
/// arrays: internal node `i` has children `2i + 1` and `2i + 2`; leaves are past `values`.
#[reverse]
fn tree(values: &[f64], leaves: &[f64], i: usize) -> f64 {
    if i >= values.len() {
        leaves[i - values.len()]
    } else {
        values[i] * tree(values, leaves, 2 * i + 1) * tree(values, leaves, 2 * i + 2)
    }
}

#[reverse]
fn tree_via(values: &[f64], leaves: &[f64], i: usize) -> f64 {
    tree(values, leaves, i)
}

#[test]
fn tree_product() {
    let values = [1.5, 0.5, 2.0];
    let leaves = [0.3, 1.1, -0.7, 0.9];
    let (v, (dv, dl)) = checked(
        tree(&values, &leaves, 0),
        tree_grad(&values, &leaves, 0),
        tree_via_grad(&values, &leaves, 0),
    );
    let product: f64 = values.iter().chain(&leaves).product();
    assert_relative_eq!(v, product, max_relative = 1e-14);
    // The derivative of a product with respect to a factor is the product of the others.
    for (k, &x) in values.iter().chain(&leaves).enumerate() {
        let d = if k < 3 { dv[k] } else { dl[k - 3] };
        assert_relative_eq!(d, product / x, max_relative = 1e-13);
    }
}

#[reverse]
fn chain_down(x: f64, depth: usize) -> f64 {
    if depth == 0 {
        x
    } else {
        chain_down(x, depth - 1).sin() * 0.5 + x * 1e-3
    }
}

#[reverse]
fn chain_down_via(x: f64, depth: usize) -> f64 {
    chain_down(x, depth)
}

#[test]
fn deep_recursion_is_linear_and_correct() {
    let (_, d) = checked(
        chain_down(0.7, 1000),
        chain_down_grad(0.7, 1000),
        chain_down_via_grad(0.7, 1000),
    );
    check::gradient(|p| chain_down(p[0], 1000), &[0.7], &[d]).unwrap();
}

#[reverse]
fn calls_in_a_loop(w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += g(w[i], s) + shapes::h(w[i]);
    }
    s
}

#[reverse]
fn calls_in_a_loop_via(w: &[f64]) -> f64 {
    calls_in_a_loop(w)
}

#[test]
fn calls_inside_loops() {
    let w = [0.2, -0.4, 0.6, 0.1];
    let (_, dw) = checked(
        calls_in_a_loop(&w),
        calls_in_a_loop_grad(&w),
        calls_in_a_loop_via_grad(&w),
    );
    check::gradient(calls_in_a_loop, &w, &dw).unwrap();
}
