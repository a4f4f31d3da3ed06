//! Adjoints of growing vectors, for generated code.
//!
//! The reverse sweep keeps the adjoint of a float `Vec` as long as the `Vec` is at the same
//! point of the forward sweep: the reverse of `v.push(x)` pops the adjoint of the new element
//! into `x`'s, the reverse of `v.truncate(n)` pads the adjoint with zeros back to the old
//! length, and so on.
//!
//! ```
//! use revad_runtime::grow::{vec_pop_adjoint, vec_restore_len};
//!
//! // v = [a]; v.push(x); v.resize(4, y): the reverse, last first.
//! let mut adj_v = vec![1.0_f64, 2.0, 3.0, 4.0];
//! let adj_y = vec_restore_len(&mut adj_v, 2); // the two elements `resize` added
//! let adj_x = vec_pop_adjoint(&mut adj_v);
//! assert_eq!((adj_y, adj_x, adj_v), (7.0, 2.0, vec![1.0]));
//! ```

use crate::Float;

/// The adjoint of the last element, removed: the reverse of `v.push(x)`.
///
/// # Panics
///
/// If the adjoint is empty (generated code keeps it as long as the `Vec`).
#[inline]
#[track_caller]
pub fn vec_pop_adjoint<T: Float>(adj: &mut Vec<T>) -> T {
    match adj.pop() {
        Some(a) => a,
        None => panic!("revad: the adjoint of a Vec is shorter than the Vec"),
    }
}

/// Gives the adjoint its length `old` again: drops the elements past `old` and returns their
/// sum (the reverse of `resize` growing, of `extend_from_slice` into a constant), or pads it
/// with zeros (the reverse of `truncate`, `clear`, `pop`, `resize` shrinking) and returns
/// zero. The sum runs in index order, from zero.
#[inline]
pub fn vec_restore_len<T: Float>(adj: &mut Vec<T>, old: usize) -> T {
    let mut sum = T::ZERO;
    if adj.len() > old {
        for &a in &adj[old..] {
            sum += a;
        }
        adj.truncate(old);
    } else {
        adj.resize(old, T::ZERO);
    }
    sum
}

/// The reverse of `v.extend_from_slice(&w)`: adds the adjoints of the elements past `old` to
/// `src` (the adjoint of `w`) and drops them.
///
/// # Panics
///
/// If the lengths do not match.
#[inline]
#[track_caller]
pub fn vec_unextend<T: Float>(adj: &mut Vec<T>, old: usize, src: &mut [T]) {
    crate::adjoint::add_assign(src, &adj[old..]);
    adj.truncate(old);
}

/// The adjoints of the elements past `old`, taken out (the reverse of `extend_from_slice`
/// when the source's adjoint is a caller's sink).
#[inline]
pub fn vec_split_tail<T: Float>(adj: &mut Vec<T>, old: usize) -> Vec<T> {
    adj.split_off(old)
}

/// The sum of the adjoints of cells, in index order from zero, as [`vec_restore_len`] sums
/// (the CPS backend's reverse of `resize`).
#[inline]
pub fn cells_sum<T: Float>(cells: &[crate::cps::NumR<T>]) -> T {
    let mut sum = T::ZERO;
    for c in cells {
        sum += c.adjoint();
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restore_len_sums_or_pads() {
        let mut adj = vec![1.0_f64, 2.0, 3.0];
        assert_eq!(vec_restore_len(&mut adj, 1), 5.0);
        assert_eq!(adj, [1.0]);
        assert_eq!(vec_restore_len(&mut adj, 3), 0.0);
        assert_eq!(adj, [1.0, 0.0, 0.0]);
        let mut src = [10.0, 20.0];
        vec_unextend(&mut adj, 1, &mut src);
        assert_eq!((adj, src), (vec![1.0], [10.0, 20.0]));
        let mut adj = vec![1.0_f64, 2.0, 3.0];
        assert_eq!(vec_split_tail(&mut adj, 1), [2.0, 3.0]);
        assert_eq!(vec_pop_adjoint(&mut adj), 1.0);
    }
}
