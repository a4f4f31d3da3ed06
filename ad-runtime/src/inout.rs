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

/// What a `&mut` argument is passed as, chosen by the type of the callee's parameter (`Self`):
/// the reference itself (`&mut V`, `&mut [E]`), or a shared reference (`&V`, `&[E]`: Rust
/// coerces `&mut x` where a function takes `&x`). The caller cannot see the callee's
/// signature: its forward sweep passes `lend(&mut x, &mut slot)`, and for a shared reference
/// `slot` receives a copy of the value the callee reads, kept for the callee's reverse sweep
/// ([`keep_lent`], [`unlend`]). The callee does not write it, so the copy after the call is
/// the value at the call.
#[diagnostic::on_unimplemented(
    message = "this argument is passed by `&mut`, but the function takes `{Self}`",
    label = "passed by `&mut` here",
    note = "#[reverse] passes `&mut x` on to a parameter `&mut T` or `&T` (also `&mut [T]` or \
            `&[T]` for an array or a `Vec`)"
)]
pub trait Lend<'a, V> {
    /// What the caller keeps for the callee's reverse sweep: `()` for a `&mut` parameter.
    type Kept: Send + 'static;
    /// `value` as the parameter, keeping a copy in `slot` when the callee only reads it.
    fn lend(value: &'a mut V, slot: &mut Option<Self::Kept>) -> Self;
}

impl<'a, V> Lend<'a, V> for &'a mut V {
    type Kept = ();
    #[inline]
    fn lend(value: &'a mut V, _: &mut Option<()>) -> Self {
        value
    }
}

impl<'a, V: Clone + Send + 'static> Lend<'a, V> for &'a V {
    type Kept = V;
    #[inline]
    fn lend(value: &'a mut V, slot: &mut Option<V>) -> Self {
        *slot = Some(value.clone());
        value
    }
}

impl<'a, E> Lend<'a, Vec<E>> for &'a mut [E] {
    type Kept = ();
    #[inline]
    fn lend(value: &'a mut Vec<E>, _: &mut Option<()>) -> Self {
        value
    }
}

impl<'a, E, const N: usize> Lend<'a, [E; N]> for &'a mut [E] {
    type Kept = ();
    #[inline]
    fn lend(value: &'a mut [E; N], _: &mut Option<()>) -> Self {
        value
    }
}

impl<'a, E: Clone + Send + 'static> Lend<'a, Vec<E>> for &'a [E] {
    type Kept = Vec<E>;
    #[inline]
    fn lend(value: &'a mut Vec<E>, slot: &mut Option<Vec<E>>) -> Self {
        *slot = Some(value.clone());
        value
    }
}

impl<'a, E: Clone + Send + 'static, const N: usize> Lend<'a, [E; N]> for &'a [E] {
    type Kept = Vec<E>;
    #[inline]
    fn lend(value: &'a mut [E; N], slot: &mut Option<Vec<E>>) -> Self {
        *slot = Some(value.to_vec());
        value
    }
}

/// The parameter type of a stand-in for a callee without a derivative where it is passed a
/// `&mut` argument: it takes any, so that the missing derivative is the only error.
#[derive(Clone, Copy, Debug)]
pub struct StandInLent;

impl<'a, V> Lend<'a, V> for StandInLent {
    type Kept = ();
    #[inline]
    fn lend(_: &'a mut V, _: &mut Option<()>) -> Self {
        StandInLent
    }
}

impl<'a> Unlend<'a> for StandInLent {
    type Kept = ();
    #[inline]
    fn unlend(_: &mut crate::ValueStack, _: &'a mut Option<()>) -> Self {
        StandInLent
    }
}

/// A `&mut` argument in a call of a callee's forward sweep (see [`Lend`]).
#[inline]
pub fn lend<'a, V, T: Lend<'a, V>>(value: &'a mut V, slot: &mut Option<T::Kept>) -> T {
    T::lend(value, slot)
}

/// After the callee's forward sweep: pushes the copy [`lend`] kept, if any (so that it is
/// popped before the callee's reverse sweep pops its own values).
#[inline]
pub fn keep_lent<K: Send + 'static>(stack: &mut crate::ValueStack, slot: Option<K>) {
    if let Some(kept) = slot {
        stack.push_any(kept);
    }
}

/// What the caller's reverse sweep passes to the callee's for a `&mut` argument, chosen by
/// the type of the callee's parameter (`Self`): `()` for a `&mut` parameter, whose reverse
/// sweep pops its value on entry; the value at the call for a shared reference, which
/// [`keep_lent`] pushed.
#[diagnostic::on_unimplemented(
    message = "this argument is passed by `&mut`, but the function takes `{Self}`",
    label = "passed by `&mut` here",
    note = "#[reverse] passes `&mut x` on to a parameter `&mut T` or `&T` (also `&mut [T]` or \
            `&[T]` for an array or a `Vec`)"
)]
pub trait Unlend<'a> {
    /// What [`Lend`] kept: `()` for a `&mut` parameter.
    type Kept: Send + 'static;
    /// The parameter, from the kept value popped into `slot`.
    fn unlend(stack: &mut crate::ValueStack, slot: &'a mut Option<Self::Kept>) -> Self;
}

impl<'a> Unlend<'a> for () {
    type Kept = ();
    #[inline]
    fn unlend(_: &mut crate::ValueStack, _: &'a mut Option<()>) {}
}

impl<'a, V: Send + 'static> Unlend<'a> for &'a V {
    type Kept = V;
    #[inline]
    fn unlend(stack: &mut crate::ValueStack, slot: &'a mut Option<V>) -> Self {
        slot.insert(stack.pop_any::<V>())
    }
}

impl<'a, E: Send + 'static> Unlend<'a> for &'a [E] {
    type Kept = Vec<E>;
    #[inline]
    fn unlend(stack: &mut crate::ValueStack, slot: &'a mut Option<Vec<E>>) -> Self {
        slot.insert(stack.pop_any::<Vec<E>>())
    }
}

/// A `&mut` argument in a call of a callee's reverse sweep (see [`Unlend`]).
#[inline]
pub fn unlend<'a, T: Unlend<'a>>(
    stack: &mut crate::ValueStack,
    slot: &'a mut Option<T::Kept>,
) -> T {
    T::unlend(stack, slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_value_is_kept_only_for_a_shared_reference() {
        let mut stack = crate::ValueStack::new();
        let mut x = 1.5_f64;
        let mut slot = None;
        let r: &mut f64 = lend(&mut x, &mut slot);
        *r = 2.0;
        keep_lent(&mut stack, slot);
        let mut v = vec![1.0_f64, 2.0];
        let mut slot = None;
        let s: &[f64] = lend(&mut v, &mut slot);
        assert_eq!(s, [1.0, 2.0]);
        keep_lent(&mut stack, slot);
        let mut slot = None;
        let r: &f64 = lend(&mut x, &mut slot);
        assert_eq!(*r, 2.0);
        keep_lent(&mut stack, slot);
        // Popped last first, as the reverse sweep does.
        let mut slot = None;
        let r: &f64 = unlend(&mut stack, &mut slot);
        assert_eq!(*r, 2.0);
        let mut slot = None;
        let s: &[f64] = unlend(&mut stack, &mut slot);
        assert_eq!(s, [1.0, 2.0]);
        let mut slot = None;
        let () = unlend(&mut stack, &mut slot);
        assert!(stack.is_empty());
    }

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
