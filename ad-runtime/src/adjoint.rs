//! Adjoints of arrays and vectors, and the replay of loop indices, for generated code.
//!
//! The reverse sweep of `#[reverse]` keeps one adjoint per active value. For scalars that is a
//! local `f64`; for arrays it is an array or `Vec` of the same shape, created here.

use crate::Float;

/// A value whose adjoint has the same shape: scalars, `[T; N]`, `[T]` and `Vec<T>`.
///
/// The adjoint of a slice is a `Vec` of the same length (the gradient of `&[f64]` is a
/// `Vec<f64>`).
pub trait ZerosLike {
    /// The type of the adjoint: `T`, `[T; N]` or `Vec<T>`.
    type Adjoint;
    /// An adjoint of zeros with the shape of `self`.
    fn zeros_like(&self) -> Self::Adjoint;
}

impl ZerosLike for f64 {
    type Adjoint = f64;
    #[inline]
    fn zeros_like(&self) -> f64 {
        0.0
    }
}

impl ZerosLike for f32 {
    type Adjoint = f32;
    #[inline]
    fn zeros_like(&self) -> f32 {
        0.0
    }
}

impl<V: ZerosLike + ?Sized> ZerosLike for &V {
    type Adjoint = V::Adjoint;
    #[inline]
    fn zeros_like(&self) -> V::Adjoint {
        (**self).zeros_like()
    }
}

impl<T: Float, const N: usize> ZerosLike for [T; N] {
    type Adjoint = [T; N];
    #[inline]
    fn zeros_like(&self) -> [T; N] {
        [T::ZERO; N]
    }
}

impl<T: Float> ZerosLike for [T] {
    type Adjoint = Vec<T>;
    #[inline]
    fn zeros_like(&self) -> Vec<T> {
        vec![T::ZERO; self.len()]
    }
}

impl<T: Float> ZerosLike for Vec<T> {
    type Adjoint = Vec<T>;
    #[inline]
    fn zeros_like(&self) -> Vec<T> {
        vec![T::ZERO; self.len()]
    }
}

/// An adjoint of zeros with the shape of `value`; see [`ZerosLike`].
#[inline]
pub fn zeros_like<V: ZerosLike + ?Sized>(value: &V) -> V::Adjoint {
    value.zeros_like()
}

/// Adds `other` to `acc` element by element (the adjoint of a copy of an array).
///
/// # Panics
///
/// If the lengths differ.
#[inline]
#[track_caller]
pub fn add_assign<T: Float>(acc: &mut [T], other: &[T]) {
    assert_eq!(acc.len(), other.len(), "ad: adjoints of different lengths");
    for (a, &o) in acc.iter_mut().zip(other) {
        *a = *a + o;
    }
}

/// Checks that the seed given to a `_vjp` function has the length of the output.
///
/// # Panics
///
/// With a message naming the function if the lengths differ.
#[inline]
#[track_caller]
pub fn check_seed_len(function: &str, seed_len: usize, output_len: usize) {
    if seed_len != output_len {
        panic!("{function}: the seed has length {seed_len} but the output has length {output_len}");
    }
}

/// The first `trips` items of `range`, last first.
///
/// The reverse sweep of a `for` loop that may `break` uses this to visit the same indices as
/// the forward sweep, in the opposite order, without storing them. It works for every
/// iterator the macro accepts as a loop range (`a..b`, `a..=b`, `.rev()`, `.step_by(k)`),
/// whose `nth` takes constant time.
///
/// ```
/// let forward: Vec<i64> = (3_i64..20).step_by(4).take(3).collect();
/// let back: Vec<i64> = ad_runtime::adjoint::replay_rev((3_i64..20).step_by(4), 3).collect();
/// assert_eq!(forward, [3, 7, 11]);
/// assert_eq!(back, [11, 7, 3]);
/// ```
#[inline]
pub fn replay_rev<I: Iterator + Clone>(range: I, trips: usize) -> ReplayRev<I> {
    ReplayRev {
        range,
        remaining: trips,
    }
}

/// The iterator returned by [`replay_rev`].
#[derive(Debug, Clone)]
pub struct ReplayRev<I> {
    range: I,
    remaining: usize,
}

impl<I: Iterator + Clone> Iterator for ReplayRev<I> {
    type Item = I::Item;

    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        self.range.clone().nth(self.remaining)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_matches_forward_order_reversed() {
        let cases: Vec<(Vec<i32>, Vec<i32>)> = vec![
            ((0..10).collect(), replay_rev(0..10, 10).collect()),
            (
                (2..=9).rev().take(5).collect(),
                replay_rev((2..=9).rev(), 5).collect(),
            ),
            (
                (1..30).step_by(7).collect(),
                replay_rev((1..30).step_by(7), 5).collect(),
            ),
        ];
        for (mut forward, back) in cases {
            forward.reverse();
            assert_eq!(forward, back);
        }
    }

    #[test]
    fn zeros_have_the_shape_of_the_value() {
        assert_eq!(zeros_like(&[1.0_f64, 2.0, 3.0]), [0.0; 3]);
        assert_eq!(zeros_like(&vec![1.0_f32; 4]), vec![0.0_f32; 4]);
        let slice: &[f64] = &[1.0, 2.0];
        assert_eq!(zeros_like(slice), vec![0.0; 2]);
        assert_eq!(zeros_like(&2.5_f64), 0.0);
    }

    #[test]
    fn add_assign_adds_elementwise() {
        let mut acc = [1.0, 2.0];
        add_assign(&mut acc, &[0.5, -2.0]);
        assert_eq!(acc, [1.5, 0.0]);
    }

    #[test]
    #[should_panic(expected = "f_vjp: the seed has length 2 but the output has length 3")]
    fn seed_length_is_checked() {
        check_seed_len("f_vjp", 2, 3);
    }
}
