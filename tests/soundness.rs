//! Regression tests of the soundness issue: programs that once returned a wrong value or
//! gradient, or whose expansion did not compile. Each is checked against its closed form (and
//! finite differences where a closed form is long), its value bit for bit against the primal,
//! and through an annotated caller (the split companions are a second code path).

use revad::check;
use revad::reverse;

/// `a` and `b` have the same bits (so `-0.0` and `0.0` differ).
fn same_bits(a: f64, b: f64) {
    assert_eq!(
        a.to_bits(),
        b.to_bits(),
        "{a:?} and {b:?} differ in their bits"
    );
}

// ---- copy a variable, then overwrite the original -----------------------------------------

#[reverse]
fn copy_then_overwrite(a: f64, p: f64) -> f64 {
    let mut b = p.cos();
    let q = b;
    b = a * 2.0;
    b * a - q * a
}

#[reverse]
fn copy_then_overwrite_via(a: f64, p: f64) -> f64 {
    copy_then_overwrite(a, p)
}

#[reverse]
fn copy_then_overwrite_in_loop(a: f64, p: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for _ in 0..n {
        let mut b = p.cos();
        let q = b;
        b = a * 2.0;
        s += b * a - q * a;
    }
    s
}

#[test]
fn a_copy_keeps_the_old_value_in_both_code_paths() {
    let (a, p): (f64, f64) = (0.3, 0.2);
    // f = 2a² − a·cos p
    let (da, dp) = (4.0 * a - p.cos(), a * p.sin());
    for (v, (ga, gp)) in [
        copy_then_overwrite_grad(a, p),
        copy_then_overwrite_via_grad(a, p),
    ] {
        same_bits(v, copy_then_overwrite(a, p));
        assert!(
            (ga - da).abs() < 1e-15 && (gp - dp).abs() < 1e-15,
            "{ga} {gp}"
        );
    }
    let (v, (ga, gp)) = copy_then_overwrite_in_loop_grad(a, p, 3);
    same_bits(v, copy_then_overwrite_in_loop(a, p, 3));
    assert!((ga - 3.0 * da).abs() < 1e-14 && (gp - 3.0 * dp).abs() < 1e-14);
}

// ---- the float `Sum` starts from -0.0 -----------------------------------------------------

#[reverse]
fn empty_sum_atan2(w: &[f64], x: f64) -> f64 {
    w.iter()
        .filter(|&&t| t > 0.0)
        .map(|t| t * 2.0)
        .sum::<f64>()
        .atan2(-1.0)
        * x
}

#[reverse]
fn empty_sum_signum(w: &[f64], x: f64) -> f64 {
    let s = w.iter().sum::<f64>();
    x / s.signum()
}

#[reverse]
fn empty_sum_signum_via(w: &[f64], x: f64) -> f64 {
    empty_sum_signum(w, x)
}

#[test]
fn sums_of_no_items_are_negative_zero() {
    // atan2(-0.0, -1.0) = -π, so the value is -π·x and the derivative -π.
    let (v, (_, dx)) = empty_sum_atan2_grad(&[], 2.0);
    same_bits(v, empty_sum_atan2(&[], 2.0));
    same_bits(v, -std::f64::consts::PI * 2.0);
    same_bits(dx, -std::f64::consts::PI);
    let (v, (_, dx)) = empty_sum_atan2_grad(&[-1.0, -3.0], 2.0);
    same_bits(v, empty_sum_atan2(&[-1.0, -3.0], 2.0));
    same_bits(dx, -std::f64::consts::PI);
    for (v, (_, dx)) in [
        empty_sum_signum_grad(&[], 2.0),
        empty_sum_signum_via_grad(&[], 2.0),
    ] {
        assert_eq!((v, dx), (-2.0, -1.0));
    }
}

// ---- constants keep their type --------------------------------------------------------------

#[reverse]
fn annotated_constant(x: f64) -> f64 {
    let a: f64 = 0.4;
    a.sin() * x
}

#[reverse]
fn constant_pinned_by_a_path_call(x: f64) -> f64 {
    let p = 1.5;
    x * f64::exp(p)
}

#[reverse]
fn constant_from_if(x: f64, n: usize) -> f64 {
    x * f64::ln_1p(if n > 2 { 3.0 } else { 1.0 })
}

#[reverse]
fn constant_from_match(x: f64, n: usize) -> f64 {
    x * f64::ln_1p(match n {
        0 => 3.0,
        _ => 1.0,
    })
}

#[reverse]
#[allow(unused_braces, reason = "the block is the case under test")]
fn constant_from_block(x: f64) -> f64 {
    x * f64::ln_1p({ 3.0 })
}

#[reverse]
fn constant_from_tuple(x: f64) -> f64 {
    let t = (1.0, 2.0);
    x * f64::ln_1p(t.1)
}

#[reverse]
fn constants_via(x: f64, n: usize) -> f64 {
    annotated_constant(x)
        + constant_pinned_by_a_path_call(x)
        + constant_from_if(x, n)
        + constant_from_match(x, n)
        + constant_from_block(x)
        + constant_from_tuple(x)
}

#[test]
fn float_constants_keep_their_type() {
    let x = 0.7;
    let cases: [(f64, f64, f64); 6] = [
        (
            annotated_constant_grad(x).0,
            annotated_constant_grad(x).1,
            0.4f64.sin(),
        ),
        (
            constant_pinned_by_a_path_call_grad(x).0,
            constant_pinned_by_a_path_call_grad(x).1,
            1.5f64.exp(),
        ),
        (
            constant_from_if_grad(x, 3).0,
            constant_from_if_grad(x, 3).1,
            3f64.ln_1p(),
        ),
        (
            constant_from_match_grad(x, 0).0,
            constant_from_match_grad(x, 0).1,
            3f64.ln_1p(),
        ),
        (
            constant_from_block_grad(x).0,
            constant_from_block_grad(x).1,
            3f64.ln_1p(),
        ),
        (
            constant_from_tuple_grad(x).0,
            constant_from_tuple_grad(x).1,
            2f64.ln_1p(),
        ),
    ];
    for (v, d, slope) in cases {
        same_bits(v, x * slope);
        same_bits(d, slope);
    }
    let (v, d) = constants_via_grad(x, 3);
    same_bits(v, constants_via(x, 3));
    let total = 0.4f64.sin() + 1.5f64.exp() + 2.0 * 3f64.ln_1p() + 1f64.ln_1p() + 2f64.ln_1p();
    assert!((d - total).abs() < 1e-14, "{d} vs {total}");
}

// ---- the same variable passed twice -------------------------------------------------------

#[reverse]
fn scaled_sine(a: f64, b: f64) -> f64 {
    a * b.sin()
}

#[reverse]
fn same_scalar_twice(x: f64) -> f64 {
    scaled_sine(x, x)
}

#[reverse]
fn cross(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[1] - a[1] * b[0] + a[0] * b[0]
}

#[reverse]
fn same_slice_twice(w: &[f64]) -> f64 {
    cross(w, w)
}

#[reverse]
fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[reverse]
fn same_array_twice(a: [f64; 3]) -> f64 {
    dot3(a, a)
}

#[reverse]
fn same_array_twice_via(a: [f64; 3]) -> f64 {
    same_array_twice(a) * 0.5
}

#[test]
fn an_argument_passed_twice_gets_both_adjoints() {
    let x = 0.7;
    let (v, d) = same_scalar_twice_grad(x);
    same_bits(v, same_scalar_twice(x));
    assert!((d - (x.sin() + x * x.cos())).abs() < 1e-15);

    let w = [0.7, -0.3];
    let (v, g) = same_slice_twice_grad(&w);
    same_bits(v, same_slice_twice(&w));
    // f = w0² (the cross terms cancel)
    assert_eq!(g, vec![2.0 * w[0], 0.0]);

    let a = [0.7, -0.3, 2.0];
    let (v, g) = same_array_twice_grad(a);
    same_bits(v, same_array_twice(a));
    assert_eq!(g, [1.4, -0.6, 4.0]);
    let (v, g) = same_array_twice_via_grad(a);
    same_bits(v, same_array_twice_via(a));
    assert_eq!(g, a);
}

// ---- an early return with values that exist only in the guarded block ----------------------

#[reverse(wrt(x2))]
#[allow(
    clippy::if_same_then_else,
    reason = "the branch is the case under test"
)]
fn early_return_inactive_atan2(n: usize, w: &[f64], x0: f64, x2: f64) -> f64 {
    if n == 1 {
        return x0;
    }
    let mut a = w[0].atan2(w[0]);
    a -= if a > 0.0 { x2 } else { x2 };
    a
}

#[test]
fn partials_of_inactive_operations_are_not_emitted() {
    let w = [0.7, 0.3];
    for n in [0, 1, 2] {
        let (v, d) = early_return_inactive_atan2_grad(n, &w, 1.0, 2.0);
        same_bits(v, early_return_inactive_atan2(n, &w, 1.0, 2.0));
        assert_eq!(d, if n == 1 { 0.0 } else { -1.0 });
    }
}

// ---- by-value `mut` array parameters, and arrays passed by value ---------------------------

#[reverse]
fn mut_array_param(mut a: [f64; 4]) -> f64 {
    a[0] = a[1] * 2.0;
    a[0] * a[2] + a[3]
}

#[reverse]
fn mut_vec_param(mut v: Vec<f64>) -> f64 {
    v[0] = v[1] * 2.0;
    v[0] * v[2] + v[3]
}

#[reverse]
fn arrays_by_value_via(a: [f64; 4], v: Vec<f64>) -> f64 {
    mut_array_param(a) * a[0] + mut_vec_param(v)
}

#[test]
fn mut_array_parameters_are_local_copies() {
    let a = [1.0, 2.0, 3.0, 4.0];
    let (v, g) = mut_array_param_grad(a);
    same_bits(v, mut_array_param(a));
    assert_eq!(g, [0.0, 6.0, 4.0, 1.0]);
    let (v, g) = mut_vec_param_grad(a.to_vec());
    same_bits(v, mut_vec_param(a.to_vec()));
    assert_eq!(g, vec![0.0, 6.0, 4.0, 1.0]);
    let (v, (ga, gv)) = arrays_by_value_via_grad(a, a.to_vec());
    same_bits(v, arrays_by_value_via(a, a.to_vec()));
    assert_eq!(ga, [16.0, 6.0, 4.0, 1.0]);
    assert_eq!(gv, vec![0.0, 6.0, 4.0, 1.0]);
}

// ---- mixed precisions across a call, with the result's type written out --------------------

#[reverse]
fn doubled_in_f64(x: f32) -> f64 {
    (x * 2.0) as f64
}

#[reverse]
fn f32_calls_f64(x: f32) -> f32 {
    let y: f64 = doubled_in_f64(x);
    (y * 3.0) as f32
}

#[test]
fn a_call_may_return_another_precision() {
    let (v, d) = f32_calls_f64_grad(0.7);
    assert_eq!(v.to_bits(), f32_calls_f64(0.7).to_bits());
    assert_eq!(d, 6.0);
}

// ---- integer arrays are data -------------------------------------------------------------

#[reverse]
fn gather(w: &[f64]) -> f64 {
    let idx = [0usize, 2, 1];
    let mut s = 0.0;
    for &k in idx.iter() {
        s += w[k] * w[k] * (k as f64 + 1.0);
    }
    s
}

#[test]
fn integer_arrays_index_float_arrays() {
    let w = [0.5, -1.0, 2.0];
    let (v, g) = gather_grad(&w);
    same_bits(v, gather(&w));
    assert_eq!(g, vec![1.0, -4.0, 12.0]);
    check::gradient(gather, &w, &g).unwrap();
}

// ---- a recursive function that assigns its own parameter ---------------------------------

#[reverse]
fn assigns_its_parameter(mut x: f64, y: f64, n: usize) -> f64 {
    x = x * y + 0.1;
    if n == 0 {
        x.sin()
    } else {
        assigns_its_parameter(x, y * 0.9, n - 1) * x + y
    }
}

#[test]
fn an_assigned_parameter_keeps_its_new_value_in_the_reverse_sweep() {
    for n in 0..4 {
        let (x, y) = (0.7, 1.3);
        let (v, (dx, dy)) = assigns_its_parameter_grad(x, y, n);
        same_bits(v, assigns_its_parameter(x, y, n));
        check::gradient(|p| assigns_its_parameter(p[0], p[1], n), &[x, y], &[dx, dy]).unwrap();
    }
}

// ---- results of calls that borrow array parameters, and `&Vec<f64>` as `&[f64]` ------------

#[reverse]
fn dot2(w: &[f64], v: &[f64]) -> f64 {
    w[0] * v[0] + w[1] * v[1]
}

#[reverse]
fn intrinsic_of_a_call(v: Vec<f64>, a: [f64; 2]) -> f64 {
    dot2(&v, &v).sin() + f64::tanh(dot2(&a, &a)) + dot2(&a, &a) * dot2(&v, &a)
}

#[reverse]
#[allow(
    clippy::ptr_arg,
    reason = "`&Vec<f64>` passed on as `&[f64]` is the case under test"
)]
fn vec_ref_as_slice(r: &Vec<f64>) -> f64 {
    dot2(r, r)
}

#[test]
fn call_results_and_reference_arguments() {
    let (v, a) = (vec![0.3, -0.2], [0.5, 0.1]);
    let (value, (gv, ga)) = intrinsic_of_a_call_grad(v.clone(), a);
    same_bits(value, intrinsic_of_a_call(v.clone(), a));
    let mut p = v.clone();
    p.extend_from_slice(&a);
    let g: Vec<f64> = gv.iter().chain(ga.iter()).copied().collect();
    check::gradient(
        |p| intrinsic_of_a_call(p[..2].to_vec(), [p[2], p[3]]),
        &p,
        &g,
    )
    .unwrap();
    let (value, g) = vec_ref_as_slice_grad(&v);
    same_bits(value, vec_ref_as_slice(&v));
    assert_eq!(g, vec![0.6, -0.4]);
}

// ---- local arrays passed to callees ---------------------------------------------------------

#[reverse]
fn scaled_sine_of_pair(a: [f64; 2]) -> f64 {
    a[0] * a[1].sin()
}

#[reverse]
fn local_array_literal_to_callee(x: f64) -> f64 {
    let a = [x, 2.0 * x];
    scaled_sine_of_pair(a)
}

#[reverse]
fn collected_vec_to_callee(x: f64, w: &[f64]) -> f64 {
    let a: Vec<f64> = w.iter().map(|t| t * x).collect();
    cross(&a, &a)
}

#[reverse]
fn local_vec_in_loop_to_callee(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut h = vec![0.0; 2];
        h[0] = x * (i as f64);
        h[1] = x;
        s += cross(&h, &h);
    }
    s
}

#[reverse]
fn local_arrays_via(x: f64, w: &[f64]) -> f64 {
    local_array_literal_to_callee(x)
        + collected_vec_to_callee(x, w)
        + local_vec_in_loop_to_callee(x, 3)
}

#[test]
fn local_arrays_reach_callees_in_both_code_paths() {
    let x: f64 = 0.7;
    let w = [1.0, 2.0];
    // x·sin 2x
    let d1 = (2.0 * x).sin() + 2.0 * x * (2.0 * x).cos();
    let (v, d) = local_array_literal_to_callee_grad(x);
    same_bits(v, local_array_literal_to_callee(x));
    assert!((d - d1).abs() < 1e-15);
    // cross(a, a) = a0², a0 = w0·x
    let (v, (d, gw)) = collected_vec_to_callee_grad(x, &w);
    same_bits(v, collected_vec_to_callee(x, &w));
    assert!((d - 2.0 * w[0] * w[0] * x).abs() < 1e-15);
    assert!((gw[0] - 2.0 * w[0] * x * x).abs() < 1e-15 && gw[1] == 0.0);
    // Σ (i·x)² over i < 3 = 5x²
    let (v, d) = local_vec_in_loop_to_callee_grad(x, 3);
    same_bits(v, local_vec_in_loop_to_callee(x, 3));
    assert!((d - 10.0 * x).abs() < 1e-14);
    let (v, (d, _)) = local_arrays_via_grad(x, &w);
    same_bits(v, local_arrays_via(x, &w));
    let total = d1 + 2.0 * w[0] * w[0] * x + 10.0 * x;
    assert!((d - total).abs() < 1e-13, "{d} vs {total}");
}
