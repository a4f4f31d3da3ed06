//! `&mut` float parameters: inputs (their value on entry) and outputs (their value on return).
//!
//! The generated code of a function with a `&mut` float parameter `s` reads the value on
//! entry into a copy the body works on, and writes the copy back through the reference at the
//! end of the forward sweep:
//!
//! ```text
//! let __ad_mut_s = s;                              // the caller's `&mut [f64]`
//! let s = InOut::entry(&*__ad_mut_s);              // its value on entry (a `Vec<f64>`)
//! let mut s_1 = s.clone();                         // what the body writes
//! ...
//! InOut::write_back(&mut *__ad_mut_s, &s_1);       // the caller sees the writes
//! ```
//!
//! The seed of such a parameter (the adjoint of its value on return) is checked by
//! [`output_seed`]: a seed of zeros is accepted whatever its length, since `f_grad` passes
//! zeros of the length on entry and a `&mut Vec<f64>` may change length.

use crate::Float;

/// A type a `&mut` aggregate parameter (a user struct, `&mut self`, a nested container) can
/// point to: the body works on a clone, written back on return like [`InOut`]'s.
pub trait AggInOut {
    /// The value on entry, owned: a clone, or a `Vec` for a slice.
    type Owned: Clone + Send + 'static;
    /// A copy of the value.
    fn entry(&self) -> Self::Owned;
    /// Overwrites the value with `value`, the copy the body wrote.
    ///
    /// # Panics
    ///
    /// For a slice, if `value` has another length (a slice cannot change length).
    fn write_back(&mut self, value: &Self::Owned);
}

impl<T: Clone + Send + 'static> AggInOut for T {
    type Owned = T;
    #[inline]
    fn entry(&self) -> T {
        self.clone()
    }
    #[inline]
    fn write_back(&mut self, value: &T) {
        self.clone_from(value);
    }
}

impl<T: Clone + Send + 'static> AggInOut for [T] {
    type Owned = Vec<T>;
    #[inline]
    fn entry(&self) -> Vec<T> {
        self.to_vec()
    }
    #[inline]
    #[track_caller]
    fn write_back(&mut self, value: &Vec<T>) {
        self.clone_from_slice(value);
    }
}

/// A type a `&mut` float parameter can point to: a float, an array, a slice or a `Vec` of
/// floats.
pub trait InOut {
    /// The value on entry, owned: the float, the array, or a `Vec` for a slice or a `Vec`.
    type Owned;
    /// A copy of the value.
    fn entry(&self) -> Self::Owned;
    /// Overwrites the value with `value`, the copy the body wrote.
    ///
    /// # Panics
    ///
    /// For a slice, if `value` has another length (a slice cannot change length).
    fn write_back(&mut self, value: &Self::Owned);
}

impl InOut for f64 {
    type Owned = f64;
    #[inline]
    fn entry(&self) -> f64 {
        *self
    }
    #[inline]
    fn write_back(&mut self, value: &f64) {
        *self = *value;
    }
}

impl InOut for f32 {
    type Owned = f32;
    #[inline]
    fn entry(&self) -> f32 {
        *self
    }
    #[inline]
    fn write_back(&mut self, value: &f32) {
        *self = *value;
    }
}

impl<T: Float, const N: usize> InOut for [T; N] {
    type Owned = [T; N];
    #[inline]
    fn entry(&self) -> [T; N] {
        *self
    }
    #[inline]
    fn write_back(&mut self, value: &[T; N]) {
        *self = *value;
    }
}

impl<T: Float> InOut for [T] {
    type Owned = Vec<T>;
    #[inline]
    fn entry(&self) -> Vec<T> {
        self.to_vec()
    }
    #[inline]
    #[track_caller]
    fn write_back(&mut self, value: &Vec<T>) {
        self.copy_from_slice(value);
    }
}

impl<T: Float> InOut for Vec<T> {
    type Owned = Vec<T>;
    #[inline]
    fn entry(&self) -> Vec<T> {
        self.clone()
    }
    #[inline]
    fn write_back(&mut self, value: &Vec<T>) {
        self.clone_from(value);
    }
}

/// Checks the seed of a `&mut` array parameter (the adjoint of its value on return) against
/// `len`, the length of that value: true when the generated code must add it to the adjoint,
/// false for a seed of zeros of another length, which adds nothing.
///
/// # Panics
///
/// With a message naming the function and the parameter, if the lengths differ and the seed
/// is not all zeros.
#[inline]
#[track_caller]
pub fn output_seed<T: Float>(function: &str, param: &str, seed: &[T], len: usize) -> bool {
    if seed.len() == len {
        return true;
    }
    if seed.iter().any(|s| *s != T::ZERO) {
        panic!(
            "{function}: the seed of `{param}` has length {} but `{param}` has length {len} on \
             return",
            seed.len(),
        );
    }
    false
}

/// Where the reverse sweep of a callee finds the seed of a `&mut` scalar parameter (the
/// caller's adjoint of its value after the call) and puts the adjoint of its value before the
/// call: the caller's adjoint as `&mut T`, or [`Discard`](crate::call::Discard).
pub trait ScalarInOut<T> {
    /// The seed: the adjoint of the value after the call.
    fn seed(&self) -> T;
    /// Replaces it with the adjoint of the value before the call.
    fn set(&mut self, adjoint: T);
}

impl<T: Float> ScalarInOut<T> for &mut T {
    #[inline]
    fn seed(&self) -> T {
        **self
    }
    #[inline]
    fn set(&mut self, adjoint: T) {
        **self = adjoint;
    }
}

impl<T: Float> ScalarInOut<T> for crate::call::Discard {
    #[inline]
    fn seed(&self) -> T {
        T::ZERO
    }
    #[inline]
    fn set(&mut self, _: T) {}
}

/// [`ScalarInOut`] for a `&mut` array parameter: the caller's adjoint as `&mut [T]`, or
/// [`Discard`](crate::call::Discard), whose seed is empty (zero; see [`output_seed`]).
pub trait ArrayInOut<T> {
    /// The seed: the adjoint of the value after the call.
    fn seed(&self) -> &[T];
    /// Replaces it with the adjoint of the value before the call.
    ///
    /// # Panics
    ///
    /// If the lengths differ (a `Vec` that a callee grows is not supported through calls).
    fn set(&mut self, adjoint: &[T]);
}

impl<T: Float> ArrayInOut<T> for &mut [T] {
    #[inline]
    fn seed(&self) -> &[T] {
        self
    }
    #[inline]
    #[track_caller]
    fn set(&mut self, adjoint: &[T]) {
        if self.len() != adjoint.len() {
            panic!(
                "revad: a function called with a `&mut Vec` changed its length from {} to {}; \
                 #[reverse] differentiates that only in the function itself, not through a call",
                adjoint.len(),
                self.len()
            );
        }
        self.copy_from_slice(adjoint);
    }
}

impl<T: Float> ArrayInOut<T> for crate::call::Discard {
    #[inline]
    fn seed(&self) -> &[T] {
        &[]
    }
    #[inline]
    fn set(&mut self, _: &[T]) {}
}

/// What a caller passes to a callee's reverse sweep for an argument it passed by `&mut`:
/// `()`, since the callee's reverse sweep pops that parameter's value on entry. A callee
/// whose parameter is not `&mut` needs the value instead; that mismatch is this one error at
/// the call.
#[diagnostic::on_unimplemented(
    message = "this argument is passed by `&mut`, but the function takes `{Self}`",
    label = "passed by `&mut` here",
    note = "#[reverse] passes a `&mut` argument on as one the callee writes; for a function \
            that only reads it, pass a shared reference (`&*s`, `&v`)"
)]
pub trait PassedMut {
    /// The placeholder.
    fn placeholder() -> Self;
}

impl PassedMut for () {
    #[inline]
    fn placeholder() {}
}

/// The placeholder of a `&mut` argument in a call of a callee's reverse sweep (see
/// [`PassedMut`]).
#[inline]
pub fn passed_mut<T: PassedMut>() -> T {
    T::placeholder()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_and_write_back() {
        let mut x = 1.5_f64;
        let e = InOut::entry(&x);
        InOut::write_back(&mut x, &(e * 2.0));
        assert_eq!(x, 3.0);
        let mut v = vec![1.0_f32, 2.0];
        let s: &mut [f32] = &mut v;
        let mut copy = InOut::entry(&*s);
        copy[1] = 5.0;
        InOut::write_back(s, &copy);
        assert_eq!(v, [1.0, 5.0]);
        let mut grown = vec![1.0_f64];
        InOut::write_back(&mut grown, &vec![1.0, 2.0]);
        assert_eq!(grown, [1.0, 2.0]);
    }

    #[test]
    fn in_out_sinks() {
        let mut x = 2.0_f64;
        let mut sink = &mut x;
        assert_eq!(ScalarInOut::seed(&sink), 2.0);
        sink.set(5.0);
        assert_eq!(x, 5.0);
        let mut v = [1.0_f64, 2.0];
        let mut sink: &mut [f64] = &mut v;
        assert_eq!(ArrayInOut::seed(&sink), [1.0, 2.0]);
        sink.set(&[3.0, 4.0]);
        assert_eq!(v, [3.0, 4.0]);
        let d = crate::call::Discard;
        assert_eq!(ScalarInOut::<f64>::seed(&d), 0.0);
        assert!(ArrayInOut::<f64>::seed(&d).is_empty());
    }

    #[test]
    fn zero_seeds_of_any_length() {
        assert!(output_seed("f_vjp", "s", &[0.5_f64, 2.0], 2));
        assert!(!output_seed("f_vjp", "s", &[0.0_f64; 5], 2));
        let wrong = std::panic::catch_unwind(|| output_seed("f_vjp", "s", &[1.0_f64], 2));
        assert!(wrong.is_err());
    }
}
