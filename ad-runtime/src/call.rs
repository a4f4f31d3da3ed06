//! What calls between differentiated functions need at run time.
//!
//! For each `#[reverse] fn g`, the macro also generates split companions: `g::fwd`, the
//! forward sweep, which pushes what its reverse needs to the caller's [`ValueStack`], and
//! `g::rev`, the reverse sweep, which pops it and adds the adjoints of `g`'s parameters into
//! the *sinks* the caller passes: `&mut f64` for a scalar, `&mut [f64]` for an array, the
//! adjoint `&mut A` for a type with an adjoint ([`AggregateSink`]), or [`Discard`] for an
//! argument the caller does not differentiate. A call chain of depth `d`
//! therefore costs `O(d)`: no callee is evaluated twice.
//!
//! Recursion: the gradient of a recursive function runs `fwd` recursively, then `rev`, one
//! frame per level each, so its depth limit is that of the function divided by the ratio of
//! their frames: it reaches about 1/2 to 1/3.5 of the function's own depth in release builds
//! and 1/3 in debug builds (`examples/recursion_depth.rs` measures it). To go deeper, run the
//! gradient on a thread with a bigger stack, with `std::thread::Builder::new().stack_size(..)`.
//! Two things keep the frames small: `rev` adds the adjoints of parameters straight into the
//! sinks and passes them on reborrowed (nothing is left to do after its last call, often a tail
//! call in release builds), and the value stack grows out of line.
//!
//! [`ValueStack`]: crate::ValueStack

use crate::Float;

/// Implemented by the marker that `#[reverse]` (or `#[revad::derivative]`) generates next to a
/// function; calling a function without one from `#[reverse]` code is a compile error.
///
/// Generated code requires it through a trait of the caller's own, whose
/// `#[diagnostic::on_unimplemented]` message names the function and says how to give it a
/// derivative (rustc reports that one); the message here is the fallback.
#[diagnostic::on_unimplemented(
    message = "this function has no derivative that #[reverse] can use",
    label = "called here with a differentiated argument"
)]
pub trait Differentiable {}

/// Fails to compile, with the message of [`Differentiable`], unless `F` has a derivative.
#[inline(always)]
pub fn require_derivative<F: Differentiable>() {}

/// Implemented by the marker of a function with a forward derivative (`#[revad::forward]`, a
/// `jvp` rule of `#[revad::derivative]`, `NAME_grad` and `NAME_jvp` of `#[reverse(hessian)]`);
/// calling a function without one from `#[revad::forward]` code is a compile error, required
/// like [`Differentiable`].
#[diagnostic::on_unimplemented(
    message = "this function has no forward derivative that #[revad::forward] can use",
    label = "called here from forward-mode code"
)]
pub trait ForwardDifferentiable {}

/// Fails to compile, with the message of [`ForwardDifferentiable`], unless `F` has a forward
/// derivative.
#[inline(always)]
pub fn require_forward<F: ForwardDifferentiable>() {}

/// Where the reverse sweep of a callee adds the adjoint of a scalar parameter: the caller's
/// adjoint as `&mut T`, or [`Discard`].
///
/// The reverse sweep adds each contribution to a parameter straight into its sink and passes
/// the sink on (reborrowed) to its own callees, instead of summing into a local and adding
/// that at the end: nothing is left to do after the last call, so a recursive reverse sweep
/// keeps no adjoint in its frame across the recursion (and in release builds the last call is
/// often a tail call).
pub trait ScalarSink<T> {
    /// The same sink, borrowed for a nested call. It has the same type up to lifetimes, so a
    /// recursive function instantiates its reverse sweep once.
    type Reborrow<'b>: ScalarSink<T>
    where
        Self: 'b;
    /// Borrows the sink for a nested call.
    fn reborrow(&mut self) -> Self::Reborrow<'_>;
    /// Adds `adjoint`.
    fn add(&mut self, adjoint: T);
}

impl<T: Float> ScalarSink<T> for &mut T {
    type Reborrow<'b>
        = &'b mut T
    where
        Self: 'b;
    #[inline]
    fn reborrow(&mut self) -> &mut T {
        self
    }
    #[inline]
    fn add(&mut self, adjoint: T) {
        **self += adjoint;
    }
}

/// Where the reverse sweep of a callee adds the adjoint of an array parameter: the caller's
/// adjoint as `&mut [T]`, or [`Discard`].
pub trait ArraySink<T> {
    /// The same sink, borrowed for a nested call. It has the same type up to lifetimes, so a
    /// recursive function instantiates its reverse sweep once.
    type Reborrow<'b>: ArraySink<T>
    where
        Self: 'b;
    /// Borrows the sink for a nested call.
    fn reborrow(&mut self) -> Self::Reborrow<'_>;
    /// Adds `adjoint` to element `index`.
    fn add_at(&mut self, index: usize, adjoint: T);
    /// Adds `adjoint` element by element.
    fn add_all(&mut self, adjoint: &[T]);
}

impl<T: Float> ArraySink<T> for &mut [T] {
    type Reborrow<'b>
        = &'b mut [T]
    where
        Self: 'b;
    #[inline]
    fn reborrow(&mut self) -> &mut [T] {
        self
    }
    #[inline]
    fn add_at(&mut self, index: usize, adjoint: T) {
        self[index] += adjoint;
    }
    #[inline]
    fn add_all(&mut self, adjoint: &[T]) {
        crate::adjoint::add_assign(self, adjoint);
    }
}

/// The sinks that own their elements' storage elsewhere: a fixed-size array's adjoint (a
/// field of a struct's adjoint, `&mut __adj_p.pos`) and a `Vec`'s (`&mut __adj_layer.w`),
/// as `&mut [T]`.
macro_rules! array_sink_as_slice {
    ($($(#[$doc:meta])* [$($generics:tt)*] $ty:ty;)*) => {$(
        $(#[$doc])*
        impl<$($generics)*> ArraySink<T> for &mut $ty {
            type Reborrow<'b>
                = &'b mut [T]
            where
                Self: 'b;
            #[inline]
            fn reborrow(&mut self) -> &mut [T] {
                &mut self[..]
            }
            #[inline]
            fn add_at(&mut self, index: usize, adjoint: T) {
                self[index] += adjoint;
            }
            #[inline]
            fn add_all(&mut self, adjoint: &[T]) {
                crate::adjoint::add_assign(&mut self[..], adjoint);
            }
        }
    )*};
}

array_sink_as_slice! {
    /// A fixed-size array's adjoint.
    [T: Float, const N: usize] [T; N];
    /// A `Vec`'s adjoint.
    [T: Float] Vec<T>;
}

/// The sink for an argument whose adjoint the caller does not need.
#[derive(Debug, Clone, Copy, Default)]
pub struct Discard;

impl<T> ScalarSink<T> for Discard {
    type Reborrow<'b> = Discard;
    #[inline]
    fn reborrow(&mut self) -> Discard {
        Discard
    }
    #[inline]
    fn add(&mut self, _: T) {}
}

impl<T> ArraySink<T> for Discard {
    type Reborrow<'b> = Discard;
    #[inline]
    fn reborrow(&mut self) -> Discard {
        Discard
    }
    #[inline]
    fn add_at(&mut self, _: usize, _: T) {}
    #[inline]
    fn add_all(&mut self, _: &[T]) {}
}

/// Where the reverse sweep of a callee adds the adjoint of a parameter of type `T` with
/// `#[derive(revad::Adjoint)]` (a struct, a nested container, `self`): the caller's adjoint
/// as `&mut T::Adj`, or [`Discard`] for an argument the caller does not differentiate (a
/// constant, a value computed from no differentiated input).
///
/// The reverse sweep adds into the adjoint in place, field by field (`adj.pos[0] += ..`), so
/// it asks for a place: the caller's adjoint, or for [`Discard`] zeros shaped like `value` in
/// `scratch`, which nobody reads. (The trait names `T`, not its adjoint, so that a parameter
/// type without an adjoint is one error, where the adjoint is asked for.)
pub trait AggregateSink<T: ?Sized> {
    /// The adjoint to add into: the caller's, or `scratch` set to zeros shaped like `value`.
    fn target<'a>(&'a mut self, scratch: &'a mut Option<T::Adj>, value: &T) -> &'a mut T::Adj
    where
        T: crate::Adjoint;

    /// Calls `add` with the caller's adjoint (not at all for [`Discard`]).
    fn add_with(&mut self, add: impl FnOnce(&mut T::Adj))
    where
        T: crate::Adjoint;
}

impl<T: ?Sized + crate::Adjoint> AggregateSink<T> for &mut T::Adj {
    #[inline]
    fn target<'a>(&'a mut self, _: &'a mut Option<T::Adj>, _: &T) -> &'a mut T::Adj {
        self
    }

    #[inline]
    fn add_with(&mut self, add: impl FnOnce(&mut T::Adj)) {
        add(self);
    }
}

impl<T: ?Sized> AggregateSink<T> for Discard {
    #[inline]
    fn target<'a>(&'a mut self, scratch: &'a mut Option<T::Adj>, value: &T) -> &'a mut T::Adj
    where
        T: crate::Adjoint,
    {
        scratch.insert(value.zero_adjoint())
    }

    #[inline]
    fn add_with(&mut self, _: impl FnOnce(&mut T::Adj))
    where
        T: crate::Adjoint,
    {
    }
}

/// The sink of a parameter that a callee does not differentiate because its `wrt(..)` leaves
/// it out (a struct or other type with fields): only [`Discard`], so that a caller that
/// differentiates the argument is told, instead of getting no derivative along it.
#[diagnostic::on_unimplemented(
    message = "this argument is differentiated, but the function called leaves its parameter out of `wrt(..)`",
    label = "the derivative along this argument would be lost",
    note = "add the parameter to the called function's `wrt(..)`, or leave the argument out of \
            this function's `wrt(..)`"
)]
pub trait Undifferentiated {}

impl Undifferentiated for Discard {}

/// The return type of a function with a derivative, named through its marker struct: a
/// caller that keeps an array result for its reverse sweep pops it as this type.
///
/// A function generic over a constant (`fn scale<const N: usize>(x: [f64; N]) -> [f64; N]`)
/// has no such type (it depends on `N`): a caller that needs it is told to write it.
#[diagnostic::on_unimplemented(
    message = "#[reverse] cannot name the type of the result of `{Self}` here: write it, \
               as `let r: [f64; 3] = {Self}(..);` for three floats",
    label = "the type of this call's result",
    note = "the result type of a function generic over a constant (`<const N: usize>`) \
            depends on the constant, which only rustc knows at the call"
)]
pub trait Returns {
    /// The function's return type.
    type Output;
}

/// The return type of a function with a derivative at the float type `F`: for a function
/// generic over `T: Float`, its return type with `T = F`; for any other, [`Returns::Output`].
/// A caller names the result's float type, which it knows, and not whether the callee is
/// generic, which it does not. (A callee without either is reported as [`Returns`]'s, which
/// the blanket impl below requires.)
pub trait ReturnsAt<F> {
    /// The function's return type at `F`.
    type Output;
}

impl<F, C: Returns> ReturnsAt<F> for C {
    type Output = C::Output;
}

/// The type of part `K` of a tuple (a caller's `let (a, b) = g(..);`).
pub trait PartOf<const K: usize> {
    /// The type of the part.
    type Part;
}

macro_rules! part {
    ($k:literal $t:ident; $($all:ident),*) => {
        impl<$($all),*> PartOf<$k> for ($($all,)*) {
            type Part = $t;
        }
    };
}

part!(0 A; A);
part!(0 A; A, B);
part!(1 B; A, B);
part!(0 A; A, B, C);
part!(1 B; A, B, C);
part!(2 C; A, B, C);
part!(0 A; A, B, C, D);
part!(1 B; A, B, C, D);
part!(2 C; A, B, C, D);
part!(3 D; A, B, C, D);
part!(0 A; A, B, C, D, E);
part!(1 B; A, B, C, D, E);
part!(2 C; A, B, C, D, E);
part!(3 D; A, B, C, D, E);
part!(4 E; A, B, C, D, E);

/// A float array or `Vec` pushed whole to the value stack
/// ([`push_slice`](crate::ValueStack::push_slice)) and popped as its own type.
pub trait Restore: Sized {
    /// Pops the value pushed last.
    fn restore(stack: &mut crate::ValueStack) -> Self;
}

impl<T: crate::stack::Record, const N: usize> Restore for [T; N] {
    #[inline]
    fn restore(stack: &mut crate::ValueStack) -> Self {
        stack.pop_array::<T, N>()
    }
}

impl<T: crate::stack::Record> Restore for Vec<T> {
    #[inline]
    fn restore(stack: &mut crate::ValueStack) -> Self {
        stack.pop_vec()
    }
}

/// Pops an array or `Vec` as the type `V` (see [`Restore`]).
#[inline]
pub fn restore<V: Restore>(stack: &mut crate::ValueStack) -> V {
    V::restore(stack)
}

/// Pops a method's array or `Vec` result as the type the method returns (see [`Restore`]):
/// `result` is never called, it only names that type, as a call of the method on
/// `receiver` (whose arguments diverge). A caller keeps a method's result this way where it
/// has no type written: a method has no marker struct to name its return type by.
#[inline]
pub fn restore_result<R: ?Sized, V: Restore>(
    stack: &mut crate::ValueStack,
    _receiver: &R,
    _result: impl FnOnce(&R) -> V,
) -> V {
    V::restore(stack)
}

/// Pops a value kept by [`push_any`](crate::ValueStack::push_any) as the type `V` that
/// `witness` returns: `witness` is never called, it only names that type, as a call whose
/// arguments are [`diverge`]d (`|| Point::new(diverge(), diverge())`). A caller keeps the
/// struct result of an associated function this way: it has no marker struct to name its
/// return type by, and the caller's code need not write it.
#[inline]
pub fn pop_returned<V: Send + 'static>(
    stack: &mut crate::ValueStack,
    _witness: impl FnOnce() -> V,
) -> V {
    stack.pop_any::<V>()
}

/// `*q = value`: the assignment of a whole struct (`b = b.step(dt);`) in differentiated code,
/// which `#[reverse]` calls through its companions [`__ad_fwd_assign`] and
/// [`__ad_rev_assign`].
#[inline]
pub fn assign<T>(q: &mut T, value: T) {
    *q = value;
}

/// The forward sweep of [`assign`]: keeps nothing (the assignment is linear).
#[doc(hidden)]
#[inline]
pub fn __ad_fwd_assign<T>(q: &mut T, value: T, _stack: &mut crate::ValueStack) {
    *q = value;
}

/// The reverse sweep of [`assign`]: the adjoint of the new value of `q` (`q_adj`, in-out)
/// goes to `value`'s, and `q`'s old value gets a zero adjoint (shaped like `value`).
#[doc(hidden)]
#[inline]
pub fn __ad_rev_assign<T: crate::Adjoint, V: AggregateSink<T>>(
    _q: (),
    value: T,
    _seed: (),
    _stack: &mut crate::ValueStack,
    q_adj: &mut T::Adj,
    mut value_adj: V,
) {
    let adj = core::mem::replace(q_adj, value.zero_adjoint());
    value_adj.add_with(|acc| T::accumulate(acc, &adj));
}

/// A value of any type, for a witness that is never called (see [`pop_returned`]).
///
/// # Panics
///
/// Always: nothing calls it.
#[inline]
pub fn diverge<T>() -> T {
    unreachable!("revad: a type witness is never called")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_popped_value_is_typed_by_its_witness() {
        #[derive(Clone, Debug, PartialEq)]
        struct P(f64, f64);
        let mut stack = crate::ValueStack::new();
        stack.push_any(P(1.0, 2.0));
        let p = pop_returned(&mut stack, || P(diverge(), diverge()));
        assert_eq!(p, P(1.0, 2.0));
    }

    #[test]
    fn sinks_accumulate_and_discard_ignores() {
        let mut x = 1.0_f64;
        let mut sink = &mut x;
        sink.add(2.5);
        sink.reborrow().add(1.0);
        assert_eq!(x, 4.5);
        let mut v = vec![0.0_f64; 3];
        let mut sink: &mut [f64] = &mut v[..];
        sink.add_at(1, 2.0);
        sink.reborrow().add_all(&[1.0, 1.0, 1.0]);
        assert_eq!(v, [1.0, 3.0, 1.0]);
        let mut d = Discard;
        ArraySink::<f64>::add_at(&mut d, 7, 1.0);
        ScalarSink::<f64>::add(&mut d, 1.0);
    }
}

/// Not public API: what `#[reverse]` on an `impl Trait for Type` block tells the derivatives
/// that a `#[reverse]` trait declares (the trait's associated constant
/// `IMPL_NEEDS_REVAD_REVERSE`, which the block defines): which methods the block
/// differentiates (`#[reverse]` on them) and which it writes without (overriding a default
/// method, perhaps a differentiated one).
///
/// The trait's derivatives of a method that an impl does not differentiate, and of a default
/// method that an impl overrides without `#[reverse]`, check it in an inline `const` block,
/// which fails to compile (when the impl's derivative is used) instead of giving the
/// derivative of another body.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ImplInfo {
    /// The methods of the block with `#[reverse]`.
    pub differentiated: &'static [&'static str],
    /// The methods of the block without it.
    pub plain: &'static [&'static str],
}

impl ImplInfo {
    /// Whether the block differentiates `name`.
    pub const fn differentiates(&self, name: &str) -> bool {
        contains(self.differentiated, name)
    }

    /// Whether the block keeps the trait's default method `name` (does not write it without
    /// `#[reverse]`).
    pub const fn keeps_default(&self, name: &str) -> bool {
        !contains(self.plain, name)
    }
}

/// Whether `names` holds `name` (a `const fn`: `==` on `str` is not one).
const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        let (a, b) = (names[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Whether `compare(a, b)` is [`Greater`](core::cmp::Ordering::Greater): the test of the loop
/// that `#[reverse]` makes of `max_by(compare)` and `min_by(compare)`, which calls the user's
/// closure where the iterator would. (A closure passed here gets its parameter types from
/// the bound; one called in place would not.)
///
/// ```
/// use revad_runtime::call::greater;
///
/// assert!(greater(|a: &f64, b: &f64| a.total_cmp(b), &2.0, &1.0));
/// assert!(!greater(|a: &&f64, b: &&f64| a.partial_cmp(b).unwrap(), &&1.0, &&1.0));
/// ```
#[inline]
pub fn greater<T: ?Sized, F: FnMut(&T, &T) -> core::cmp::Ordering>(
    mut compare: F,
    a: &T,
    b: &T,
) -> bool {
    compare(a, b) == core::cmp::Ordering::Greater
}

/// The permutation that `v.sort_by(cmp)` applies to `v`: `v` sorted is `perm.map(|i| v[i])`.
/// `#[reverse]` sorts in place this way, as a gather whose reverse scatters the adjoints back
/// (`v.sort_by(..)` and `v.sort_unstable_by(..)` of floats).
///
/// The indices are sorted by the same algorithm as the values, with the same comparisons
/// (`sort_by` for `sort_by`, `sort_unstable_by` for `sort_unstable_by`): the order of the
/// items that compare equal is the one the call on `v` gives.
///
/// ```
/// use revad_runtime::call::sort_permutation;
///
/// let v = [3.0_f64, -1.0, 2.0];
/// assert_eq!(sort_permutation(&v, |a, b| a.total_cmp(b), true), [1, 2, 0]);
/// ```
pub fn sort_permutation<T>(
    v: &[T],
    mut cmp: impl FnMut(&T, &T) -> core::cmp::Ordering,
    stable: bool,
) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..v.len()).collect();
    match stable {
        true => perm.sort_by(|&i, &j| cmp(&v[i], &v[j])),
        false => perm.sort_unstable_by(|&i, &j| cmp(&v[i], &v[j])),
    }
    perm
}

/// The position of the first item of `items` that `predicate` takes, as
/// `items.find(predicate)` finds it (the predicate sees `&item`): `#[reverse]` reads
/// `xs.iter().find(p).copied().unwrap_or(d)` as the element at this position.
///
/// ```
/// use revad_runtime::call::find_position;
///
/// let xs = [1.0_f64, 2.5, 3.0];
/// assert_eq!(find_position(xs.iter(), |&&v| v > 2.0), Some(1));
/// assert_eq!(find_position(xs.iter(), |&&v| v > 5.0), None);
/// ```
pub fn find_position<I: Iterator>(
    items: I,
    mut predicate: impl FnMut(&I::Item) -> bool,
) -> Option<usize> {
    let mut items = items;
    items.position(|item| predicate(&item))
}

/// A value of a type of the user's without derivatives, bound with its type in a loop
/// (`let a: Activation = ..;`), that the reverse sweep reads: kept whole on the value stack,
/// which needs a copy of it that outlives the call.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is kept for the reverse sweep of a loop by #[reverse], which needs it to \
               be `Clone + Send + 'static`",
    label = "a value of this type is read by the reverse sweep",
    note = "derive `Clone` for it, or compute the value outside the loop"
)]
pub trait KeptWhole: Clone + Send + 'static {}

impl<T: Clone + Send + 'static> KeptWhole for T {}

/// Pushes a copy of `value` (see [`KeptWhole`]), which the reverse sweep pops with
/// [`ValueStack::pop_any`](crate::ValueStack::pop_any).
///
/// ```
/// use revad_runtime::{call::keep_whole, ValueStack};
///
/// #[derive(Clone, Debug, PartialEq)]
/// enum Mode { A, B }
/// let mut stack = ValueStack::new();
/// keep_whole(&mut stack, &Mode::B);
/// assert_eq!(stack.pop_any::<Mode>(), Mode::B);
/// ```
#[inline]
pub fn keep_whole<T: KeptWhole>(stack: &mut crate::ValueStack, value: &T) {
    stack.push_any(value.clone());
}

/// Whether `value` is `None`: the test that `#[reverse]` makes of
/// `let Some(v) = xs.get(i) else { .. };` before it takes `v` from the same value, a call
/// rather than a method so that no lint of the user's code reads the generated test as theirs.
///
/// ```
/// use revad_runtime::call::is_none;
///
/// assert!(is_none(&[1.0_f64; 0].first()));
/// assert!(!is_none(&Some(2.0)));
/// ```
#[inline]
pub fn is_none<T>(value: &Option<T>) -> bool {
    value.is_none()
}
