//! Reads of a local array that nothing writes after them: the reverse sweep reads the array
//! again instead of storing each element read. Each gradient is checked against a closed form
//! or central finite differences, and through the split companions (`NAME_via`), where the
//! array is not in scope and the reads are stored as before. The hazards: writes after the
//! reads (in a later loop, at a later iteration of the same loop, in an enclosing loop, by a
//! callee through `&mut`, by `push`/`pop`/`clear`/`resize`/`swap`, through a view or a
//! `&mut` binding), `&mut` parameters, and fields of a local struct.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    reason = "these tests exercise index loops and plain assignments on purpose"
)]

use approx::assert_relative_eq;
use revad::check;
use revad::reverse;

/// Central finite differences of `f` over `q ++ x` agree with `(gq, gx)`.
fn fd2(f: impl Fn(&[f64], &[f64]) -> f64, q: &[f64], x: &[f64], gq: &[f64], gx: &[f64]) {
    let n = q.len();
    let at: Vec<f64> = q.iter().chain(x).copied().collect();
    let grad: Vec<f64> = gq.iter().chain(gx).copied().collect();
    check::gradient(|p| f(&p[..n], &p[n..]), &at, &grad).unwrap();
}

/// The gradient through the split companions equals `f_grad`'s to rounding (14 digits).
fn assert_close(via: &[f64], ours: &[f64]) {
    assert_eq!(via.len(), ours.len());
    for (a, b) in via.iter().zip(ours) {
        assert_relative_eq!(a, b, max_relative = 1e-14, epsilon = 1e-14);
    }
}

fn q0() -> Vec<f64> {
    vec![0.3, -0.7, 0.2, 0.9, -0.1]
}

fn x0() -> Vec<f64> {
    vec![1.1, -0.4, 0.6, 0.25]
}

/// Checks `grad` (and `via`, the gradient through the split companions: the value bit for
/// bit, the gradient to rounding) against `f` and finite differences at `q0`, `x0`.
macro_rules! check_fd {
    ($f:ident, $grad:ident, $via:ident) => {{
        let (q, x) = (q0(), x0());
        let (v, (gq, gx)) = $grad(&q, &x);
        assert_eq!(v.to_bits(), $f(&q, &x).to_bits());
        let (w, (hq, hx)) = $via(&q, &x);
        assert_eq!(w.to_bits(), v.to_bits());
        // (To rounding: `f_vjp` fuses the last loop's reverse into its forward sweep.)
        assert_close(&hq, &gq);
        assert_close(&hx, &gx);
        fd2($f, &q, &x, &gq, &gx);
        (gq, gx)
    }};
}

// ---- the reproducer: written once, then only read ------------------------------------------

#[reverse]
fn exp_then_read(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += e[j] * x[i];
        }
    }
    s
}

#[reverse]
fn exp_then_read_via(q: &[f64], x: &[f64]) -> f64 {
    exp_then_read(q, x)
}

#[test]
fn written_once_then_read_matches_closed_form() {
    let (gq, gx) = check_fd!(exp_then_read, exp_then_read_grad, exp_then_read_via_grad);
    let (q, x) = (q0(), x0());
    let sx: f64 = x.iter().sum();
    let se: f64 = q.iter().map(|q| q.exp()).sum();
    for j in 0..q.len() {
        assert_relative_eq!(gq[j], q[j].exp() * sx, max_relative = 1e-14);
    }
    for i in 0..x.len() {
        assert_relative_eq!(gx[i], se, max_relative = 1e-14);
    }
}

/// The same with a nonlinear use of the element (its value is needed by `sin'`) and an
/// integer index array built locally (`x[idx[j]]`).
#[reverse]
fn read_through_index_array(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    let mut idx: Vec<usize> = vec![0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j] * q[j];
        idx[j] = (j * 3) % x.len();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            let k = idx[j];
            s += (e[j] * x[i]).sin() * x[k];
        }
    }
    s
}

#[reverse]
fn read_through_index_array_via(q: &[f64], x: &[f64]) -> f64 {
    read_through_index_array(q, x)
}

#[test]
fn nonlinear_reads_and_index_array_match_finite_differences() {
    check_fd!(
        read_through_index_array,
        read_through_index_array_grad,
        read_through_index_array_via_grad
    );
}

// ---- writes after the reads: the values read must be stored --------------------------------

/// Written again in a later loop.
#[reverse]
fn write_in_later_loop(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += e[j] * e[j] * x[i];
        }
    }
    for j in 0..q.len() {
        e[j] = e[j].sin() * x[0];
    }
    for j in 0..q.len() {
        s += e[j] * q[j];
    }
    s
}

#[reverse]
fn write_in_later_loop_via(q: &[f64], x: &[f64]) -> f64 {
    write_in_later_loop(q, x)
}

#[test]
fn write_in_a_later_loop() {
    check_fd!(
        write_in_later_loop,
        write_in_later_loop_grad,
        write_in_later_loop_via_grad
    );
}

/// Written at a later iteration of the loop that reads it (the element read at `j` is
/// overwritten at `j + 1`).
#[reverse]
fn write_at_later_iteration(q: &[f64], x: &[f64]) -> f64 {
    let n = q.len();
    let mut e = vec![0.0; n];
    for j in 0..n {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for j in 0..n {
        s += e[j] * e[j] * x[j % x.len()];
        e[(j + 1) % n] = e[(j + 1) % n] * q[j];
    }
    s
}

#[reverse]
fn write_at_later_iteration_via(q: &[f64], x: &[f64]) -> f64 {
    write_at_later_iteration(q, x)
}

#[test]
fn write_at_a_later_iteration_of_the_same_loop() {
    check_fd!(
        write_at_later_iteration,
        write_at_later_iteration_grad,
        write_at_later_iteration_via_grad
    );
}

/// Written in an enclosing loop, after the inner loop that reads it (and before it, at the
/// next outer iteration).
#[reverse]
fn write_in_enclosing_loop(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += e[j] * e[j] * x[i];
        }
        for j in 0..q.len() {
            e[j] = (e[j] * x[i]).sin();
        }
    }
    s
}

#[reverse]
fn write_in_enclosing_loop_via(q: &[f64], x: &[f64]) -> f64 {
    write_in_enclosing_loop(q, x)
}

#[test]
fn write_in_an_enclosing_loop() {
    check_fd!(
        write_in_enclosing_loop,
        write_in_enclosing_loop_grad,
        write_in_enclosing_loop_via_grad
    );
}

/// Written in the enclosing loop before the inner loop reads it.
#[reverse]
fn write_before_in_enclosing_loop(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    let mut s = 0.0;
    for i in 0..x.len() {
        e[i % q.len()] = q[i % q.len()].exp() * x[i];
        for j in 0..q.len() {
            s += e[j] * e[j] * x[i];
        }
    }
    s
}

#[reverse]
fn write_before_in_enclosing_loop_via(q: &[f64], x: &[f64]) -> f64 {
    write_before_in_enclosing_loop(q, x)
}

#[test]
fn write_before_the_reads_in_an_enclosing_loop() {
    check_fd!(
        write_before_in_enclosing_loop,
        write_before_in_enclosing_loop_grad,
        write_before_in_enclosing_loop_via_grad
    );
}

/// Scales `v` in place.
#[reverse]
fn scale(v: &mut [f64], a: f64) {
    for k in 0..v.len() {
        v[k] = v[k] * a;
    }
}

/// Written by a callee through `&mut` after the reads, at each outer iteration.
#[reverse]
fn write_by_callee(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += e[j] * e[j] * x[i];
        }
        scale(&mut e, x[i]);
    }
    for j in 0..q.len() {
        s += e[j] * e[j];
    }
    s
}

#[reverse]
fn write_by_callee_via(q: &[f64], x: &[f64]) -> f64 {
    write_by_callee(q, x)
}

#[test]
fn write_by_a_callee_through_mut() {
    check_fd!(
        write_by_callee,
        write_by_callee_grad,
        write_by_callee_via_grad
    );
}

/// `push`, `pop`, `swap`, `clear` and `resize` after the reads.
#[reverse]
fn grow_after_reads(q: &[f64], x: &[f64]) -> f64 {
    let mut e = Vec::new();
    for j in 0..q.len() {
        e.push(q[j].exp());
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..e.len() {
            s += e[j] * e[j] * x[i];
        }
        e.swap(0, 1);
        let z = e.pop().unwrap();
        e.push(z * x[i]);
    }
    for j in 0..e.len() {
        s += e[j].sin();
    }
    e.clear();
    e.resize(3, x[2]);
    for j in 0..e.len() {
        s += e[j] * e[j];
    }
    s
}

#[reverse]
fn grow_after_reads_via(q: &[f64], x: &[f64]) -> f64 {
    grow_after_reads(q, x)
}

#[test]
fn vec_growth_after_the_reads() {
    check_fd!(
        grow_after_reads,
        grow_after_reads_grad,
        grow_after_reads_via_grad
    );
}

/// Read in a loop that pushes: each read sees the last element pushed so far.
#[reverse]
fn push_while_reading(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![q[0]];
    let mut s = 0.0;
    for i in 0..x.len() {
        let last = e[e.len() - 1];
        s += last * last * x[i];
        e.push((last * x[i]).sin());
    }
    s
}

#[reverse]
fn push_while_reading_via(q: &[f64], x: &[f64]) -> f64 {
    push_while_reading(q, x)
}

#[test]
fn push_in_the_loop_that_reads() {
    check_fd!(
        push_while_reading,
        push_while_reading_grad,
        push_while_reading_via_grad
    );
}

/// Written through a sub-slice view after the reads.
#[reverse]
fn write_through_view(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += e[j] * e[j] * x[i];
        }
        let t = &mut e[1..];
        for k in 0..t.len() {
            t[k] = t[k] * x[i];
        }
    }
    s
}

#[reverse]
fn write_through_view_via(q: &[f64], x: &[f64]) -> f64 {
    write_through_view(q, x)
}

#[test]
fn write_through_a_view() {
    check_fd!(
        write_through_view,
        write_through_view_grad,
        write_through_view_via_grad
    );
}

/// Written through `iter_mut` after the reads.
#[reverse]
fn write_through_iter_mut(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += e[j] * e[j] * x[i];
        }
        for v in e.iter_mut() {
            *v = (*v * x[i]).cos();
        }
    }
    s
}

#[reverse]
fn write_through_iter_mut_via(q: &[f64], x: &[f64]) -> f64 {
    write_through_iter_mut(q, x)
}

#[test]
fn write_through_iter_mut_after_reads() {
    check_fd!(
        write_through_iter_mut,
        write_through_iter_mut_grad,
        write_through_iter_mut_via_grad
    );
}

/// Reassigned as a whole after the reads, and a copy written (the original unchanged).
#[reverse]
fn reassign_and_copy(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    let mut c = e.clone();
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += e[j] * e[j] * x[i] + c[j] * c[j];
        }
        c[i % q.len()] = x[i];
    }
    e = vec![x[0]; q.len()];
    for j in 0..q.len() {
        s += e[j] * e[j] * q[j];
    }
    s
}

#[reverse]
fn reassign_and_copy_via(q: &[f64], x: &[f64]) -> f64 {
    reassign_and_copy(q, x)
}

#[test]
fn reassigned_after_the_reads_and_a_written_copy() {
    check_fd!(
        reassign_and_copy,
        reassign_and_copy_grad,
        reassign_and_copy_via_grad
    );
}

/// Shadowed after the reads by another array of the same name.
#[reverse]
fn shadowed_after_reads(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += e[j] * e[j] * x[i];
        }
    }
    let e = vec![x[0] * 2.0; q.len()];
    for j in 0..q.len() {
        s += e[j] * e[j] * q[j];
    }
    s
}

#[reverse]
fn shadowed_after_reads_via(q: &[f64], x: &[f64]) -> f64 {
    shadowed_after_reads(q, x)
}

#[test]
fn shadowed_after_the_reads() {
    check_fd!(
        shadowed_after_reads,
        shadowed_after_reads_grad,
        shadowed_after_reads_via_grad
    );
}

/// An early `return` between the writes and the reads, and reads in an `if` arm.
#[reverse]
fn early_return_and_branch(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    if x[0] > 100.0 {
        return e[0];
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            for j in 0..q.len() {
                s += e[j] * e[j] * x[i];
            }
        } else {
            s += e[i % q.len()].sin();
        }
    }
    s
}

#[reverse]
fn early_return_and_branch_via(q: &[f64], x: &[f64]) -> f64 {
    early_return_and_branch(q, x)
}

#[test]
fn early_return_and_reads_in_branches() {
    check_fd!(
        early_return_and_branch,
        early_return_and_branch_grad,
        early_return_and_branch_via_grad
    );
}

// ---- `&mut` parameters ----------------------------------------------------------------------

/// A `&mut` parameter written, then read in a loop (a parameter is not read again: stored).
#[reverse]
fn mut_param_then_read(e: &mut [f64], x: &[f64]) -> f64 {
    for j in 0..e.len() {
        e[j] = e[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..e.len() {
            s += e[j] * e[j] * x[i];
        }
    }
    s
}

#[reverse]
fn mut_param_then_read_via(e: &mut [f64], x: &[f64]) -> f64 {
    mut_param_then_read(e, x)
}

#[test]
fn mut_parameter_written_then_read() {
    let (q, x) = (q0(), x0());
    let mut e = q.clone();
    let (v, (gq, gx)) = mut_param_then_read_grad(&mut e, &x);
    let mut primal = q.clone();
    assert_eq!(v.to_bits(), mut_param_then_read(&mut primal, &x).to_bits());
    assert_eq!(e, primal);
    let mut e2 = q.clone();
    let (w, (hq, hx)) = mut_param_then_read_via_grad(&mut e2, &x);
    assert_eq!((w.to_bits(), &hq, &hx), (v.to_bits(), &gq, &gx));
    let f = |q: &[f64], x: &[f64]| mut_param_then_read(&mut q.to_vec(), x);
    fd2(f, &q, &x, &gq, &gx);
    // s = Σ_i x_i Σ_j exp(2 q_j)
    let sx: f64 = x.iter().sum();
    for j in 0..q.len() {
        assert_relative_eq!(gq[j], 2.0 * (2.0 * q[j]).exp() * sx, max_relative = 1e-14);
    }
}

/// A `&mut` parameter read in a loop and written after it.
#[reverse]
fn mut_param_read_then_written(e: &mut [f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..e.len() {
            s += e[j] * e[j] * x[i];
        }
    }
    for j in 0..e.len() {
        e[j] = e[j].sin() * s;
    }
    s
}

#[test]
fn mut_parameter_read_then_written() {
    let (q, x) = (q0(), x0());
    let mut e = q.clone();
    let (v, (gq, gx)) = mut_param_read_then_written_vjp(&mut e, &x, 1.0, vec![0.0; q.len()]);
    assert_eq!(
        v.to_bits(),
        mut_param_read_then_written(&mut q.clone(), &x).to_bits()
    );
    let f = |q: &[f64], x: &[f64]| mut_param_read_then_written(&mut q.to_vec(), x);
    fd2(f, &q, &x, &gq, &gx);
}

// ---- fields of a local struct -----------------------------------------------------------------

#[derive(Clone, Debug, revad::Adjoint)]
/// Two buffers.
pub struct Buffers {
    /// Written once, then read.
    pub a: Vec<f64>,
    /// Written after its reads.
    pub b: Vec<f64>,
}

/// The fields of a local struct: `a` written once and read, `b` written after its reads.
#[reverse]
fn struct_fields(q: &[f64], x: &[f64]) -> f64 {
    let mut w = Buffers {
        a: vec![0.0; q.len()],
        b: vec![0.0; q.len()],
    };
    for j in 0..q.len() {
        w.a[j] = q[j].exp();
        w.b[j] = q[j].sin();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..q.len() {
            s += w.a[j] * w.a[j] * x[i] + w.b[j] * w.b[j];
        }
        w.b[i % q.len()] = x[i] * w.b[i % q.len()];
    }
    s
}

#[reverse]
fn struct_fields_via(q: &[f64], x: &[f64]) -> f64 {
    struct_fields(q, x)
}

#[test]
fn fields_of_a_local_struct() {
    check_fd!(struct_fields, struct_fields_grad, struct_fields_via_grad);
}

/// The fields of a local struct, written once, then only read.
#[reverse]
fn struct_read_only(q: &[f64], x: &[f64]) -> f64 {
    let mut w = Buffers {
        a: vec![0.0; q.len()],
        b: vec![0.0; q.len()],
    };
    for j in 0..q.len() {
        w.a[j] = q[j].exp();
        w.b[j] = q[j].sin();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..w.a.len() {
            s += w.a[j] * w.b[j] * x[i];
        }
    }
    s
}

#[reverse]
fn struct_read_only_via(q: &[f64], x: &[f64]) -> f64 {
    struct_read_only(q, x)
}

#[test]
fn fields_of_a_local_struct_written_once() {
    let (gq, gx) = check_fd!(
        struct_read_only,
        struct_read_only_grad,
        struct_read_only_via_grad
    );
    let (q, x) = (q0(), x0());
    let sx: f64 = x.iter().sum();
    for j in 0..q.len() {
        let d = q[j].exp() * (q[j].sin() + q[j].cos());
        assert_relative_eq!(gq[j], d * sx, max_relative = 1e-14);
    }
    let sab: f64 = q.iter().map(|q| q.exp() * q.sin()).sum();
    for i in 0..x.len() {
        assert_relative_eq!(gx[i], sab, max_relative = 1e-14);
    }
}

/// A `Vec` built by `push`, then walked by loops over `0..e.len()` (the reverse walks the
/// range again) that read it.
#[reverse]
fn pushed_then_read(q: &[f64], x: &[f64]) -> f64 {
    let mut e = Vec::new();
    for j in 0..q.len() {
        e.push(q[j] * q[j]);
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..e.len() {
            s += (e[j] * x[i]).sin();
        }
    }
    s
}

#[reverse]
fn pushed_then_read_via(q: &[f64], x: &[f64]) -> f64 {
    pushed_then_read(q, x)
}

#[test]
fn pushed_then_read_over_its_length() {
    check_fd!(
        pushed_then_read,
        pushed_then_read_grad,
        pushed_then_read_via_grad
    );
}
