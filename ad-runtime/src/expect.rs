//! Types the generated code expects but cannot see, checked at the user's code.
//!
//! Each check is an identity function whose bound, a trait with
//! `#[diagnostic::on_unimplemented]`, turns a type mismatch into one error at the user's code
//! that says what to write:
//!
//! - [`expect_result`]: `#[reverse]` does not see a callee's return type; it takes the
//!   precision of the caller's other floats, or the other precision when the result is cast
//!   to the caller's (`g(x) as f32` in `f32` code). When the callee returns another precision
//!   than that, the error is at the call.
//! - [`expect_array`]: a callee's result that `#[reverse]` takes for an array or a `Vec`
//!   from the caller's code (indexed or iterated: `g[0]`, `g.iter()`), at the call
//!   when it is a struct or a float.
//! - [`seed_for`]: the seed of that callee's reverse sweep, which keeps the error above the
//!   only one.
//! - [`expect_pullback`]: the result of a hand-written pullback of `#[revad::derivative]`, at
//!   the pullback.
//! - [`expect_length`]: a `.len()` that `#[reverse]` takes for a container's length, which
//!   carries no derivative, at the call when it returns anything but a `usize` (a method of
//!   the user's own named `len` that returns a float).
//! - [`expect_struct_type`]: a parameter's or result's type that `#[reverse]` takes for a
//!   struct of the user's by its name, at the type when it is a float by another name
//!   (`type Real = f64;`).

use crate::Float;

/// A callee's result where `#[reverse]` expects a value of type `T`.
#[diagnostic::on_unimplemented(
    message = "this call returns `{Self}`, but #[reverse] takes its result for `{T}`",
    label = "returns `{Self}`",
    note = "#[reverse] cannot see the callee's return type: bind the result to a variable \
            with its type, as in `let y: {Self} = g(..);`, and convert it with `as` if needed"
)]
pub trait ResultOf<T> {
    /// The value, unchanged.
    fn result(self) -> T;
}

impl<T> ResultOf<T> for T {
    #[inline]
    fn result(self) -> T {
        self
    }
}

/// `value` as the `T` the generated code expects (a compile error at the call otherwise).
/// `#[inline]`, not `always`: in debug builds an always-inlined helper adds its slots to every
/// frame of a recursive forward sweep.
#[inline]
pub fn expect_result<T, U: ResultOf<T>>(value: U) -> T {
    value.result()
}

/// A primitive integer: what `#[reverse]` takes arithmetic with an integer operand for
/// (`l.count / 2`, `self.n - 1`), which carries no derivative.
#[diagnostic::on_unimplemented(
    message = "this arithmetic has an integer operand, so #[reverse] takes it for integer \
               arithmetic, without a derivative; but it computes `{Self}`",
    label = "computes `{Self}`, not an integer",
    note = "an operator of a type of yours with an integer on one side is not differentiated; \
            convert the integer first (`v * (2 as f64)`) with an operator that is"
)]
pub trait Integer {}

macro_rules! integer {
    ($($t:ty)*) => { $(impl Integer for $t {})* };
}
integer!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);

/// `value`, which the generated code takes for an integer (a compile error otherwise).
#[inline]
pub fn expect_integer<T: Integer>(value: T) -> T {
    value
}

/// A callee's result where `#[reverse]` expects an array or a `Vec` (of floats, or nested).
#[diagnostic::on_unimplemented(
    message = "this call returns `{Self}`, but #[reverse] takes its result for an array",
    label = "returns `{Self}`",
    note = "#[reverse] cannot see the callee's return type and reads it from the caller's \
            code: a result that is indexed or iterated is taken for an array; bind the result \
            to a variable with its type, as in `let y: {Self} = g(..);`"
)]
pub trait ArrayResult {}

impl<T, const N: usize> ArrayResult for [T; N] {}

impl<T> ArrayResult for Vec<T> {}

/// `value`, which the generated code takes for an array (a compile error at the call
/// otherwise).
#[inline]
pub fn expect_array<V: ArrayResult>(value: V) -> V {
    value
}

/// A `.len()` whose result `#[reverse]` takes for a length (a `usize`, no derivative).
#[diagnostic::on_unimplemented(
    message = "this `.len()` returns `{Self}`, but #[reverse] takes every `.len()` for a \
               container's length, which has no derivative",
    label = "returns `{Self}`, not `usize`",
    note = "a method of your own named `len` that computes a float would lose its derivative; \
            give it another name (`length`, `norm`) and annotate it with #[reverse]"
)]
pub trait Length {}

impl Length for usize {}

/// `n`, which the generated code takes for a container's length (a compile error at the call
/// otherwise).
///
/// ```
/// assert_eq!(revad_runtime::expect::expect_length(vec![1.0, 2.0].len()), 2);
/// ```
#[inline]
pub fn expect_length<N: Length>(n: N) -> N {
    n
}

/// The adjoint of a call's result, as the seed of the callee's reverse sweep.
///
/// Between the same precisions this is the identity. Between different ones it converts with
/// `as`, which generated code only reaches after [`expect_result`] has already rejected the
/// call (the adjoint has the precision the macro assumed for the result): the conversion keeps
/// that error the only one.
pub trait SeedOf<T> {
    /// The seed.
    fn seed(self) -> T;
}

/// The same type: the identity (scalars, arrays and vectors alike).
impl<T> SeedOf<T> for T {
    #[inline]
    fn seed(self) -> T {
        self
    }
}

impl SeedOf<f32> for f64 {
    #[inline]
    fn seed(self) -> f32 {
        self as f32
    }
}

impl SeedOf<f64> for f32 {
    #[inline]
    fn seed(self) -> f64 {
        self as f64
    }
}

/// The result of the stand-in that generated code calls in place of a function without a
/// derivative (`revad::__callee_fallback!`): of any float type, and seeded by any, so that the
/// missing derivative is the only error, in code over `f64`, `f32` or a `T: Float` alike.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct StandInResult;

impl<T: Float> ResultOf<T> for StandInResult {
    fn result(self) -> T {
        unreachable!("a stand-in is never called: its caller does not compile")
    }
}

impl<T: Float> SeedOf<StandInResult> for T {
    fn seed(self) -> StandInResult {
        StandInResult
    }
}

/// `adjoint` as the seed type of the callee's reverse sweep (see [`SeedOf`]).
#[inline]
pub fn seed_for<T, U: SeedOf<T>>(adjoint: U) -> T {
    adjoint.seed()
}

/// The result of a hand-written pullback where `#[revad::derivative]` expects the adjoints `G`
/// of the function's float parameters.
#[diagnostic::on_unimplemented(
    message = "the pullback returns `{Self}`, but #[revad::derivative] expects `{G}`",
    label = "returns `{Self}`",
    note = "a pullback takes `(parameters.., output, seed)` and returns the adjoints of the \
            float parameters scaled by the seed: the bare adjoint for one float parameter, a \
            tuple of them in parameter order for several"
)]
pub trait PullbackOf<G> {
    /// The adjoints, unchanged.
    fn adjoints(self) -> G;
}

impl<G> PullbackOf<G> for G {
    #[inline]
    fn adjoints(self) -> G {
        self
    }
}

/// The result of a pullback as the adjoints `G` (a compile error at the pullback otherwise).
#[inline]
pub fn expect_pullback<G, U: PullbackOf<G>>(value: U) -> G {
    value.adjoints()
}

/// Makes rustc infer that `value` has the type of `like`: the reverse sweep pops a copy of a
/// part of a struct (`let q = ps[0].clone();`) whose type the macro cannot name, and names it
/// by the part it copies.
#[inline]
pub fn same_type<T: ?Sized>(_value: &T, _like: &T) {}

/// `None` of the type of `Some(*like)`: the slot of a `loop` that `break`s with a value of a
/// type the macro cannot name (an index), declared before the loop and typed by a variable
/// or a literal that the value is (`let k = loop { .. break i; };`).
#[inline]
pub fn none_like<T>(_like: &T) -> Option<T> {
    None
}

/// The type `T` of a parameter or result that `#[reverse]` took for a struct of the user's
/// (a single name it does not know: `x: Real`), for [`expect_struct_type`] to tell whether it is
/// a float by another name (`type Real = f64;`): `(&Named::<T>::new()).kind()` is
/// [`ByFloat::kind`] for a float and [`ByOther::kind`] for any other type (a method found
/// by value before one found by reference: the usual substitute for specialization).
///
/// ```
/// use revad_runtime::expect::{ByFloat as _, ByOther as _, FloatByAnotherName, Named, NotAFloat};
///
/// type Real = f64;
/// struct V2;
/// let _: FloatByAnotherName = (&Named::<Real>::new()).kind();
/// let _: NotAFloat = (&Named::<V2>::new()).kind();
/// ```
pub struct Named<T>(core::marker::PhantomData<T>);

impl<T> Named<T> {
    /// The witness of the type `T`.
    pub const fn new() -> Self {
        Named(core::marker::PhantomData)
    }
}

impl<T> Default for Named<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// [`Named`]'s kind for a float type.
pub trait ByFloat {
    /// [`FloatByAnotherName`].
    fn kind(&self) -> FloatByAnotherName;
}

impl<T: Float> ByFloat for Named<T> {
    fn kind(&self) -> FloatByAnotherName {
        FloatByAnotherName
    }
}

/// [`Named`]'s kind for any other type.
pub trait ByOther {
    /// [`NotAFloat`].
    fn kind(&self) -> NotAFloat;
}

impl<T> ByOther for &Named<T> {
    fn kind(&self) -> NotAFloat {
        NotAFloat
    }
}

/// A type [`Named`] found to be a float.
pub struct FloatByAnotherName;

/// A type [`Named`] found not to be a float.
pub struct NotAFloat;

/// The kind of a type that `#[reverse]` takes for a struct of the user's: not a float.
#[diagnostic::on_unimplemented(
    message = "#[reverse] takes this type for a struct of yours, but it is a float by another \
               name (`type Real = f64;`)",
    label = "a float: write `f64` or `f32` here",
    note = "#[reverse] reads the types of a signature by their names, and does not see through \
            a type alias; write the float type itself, or make the function generic over it \
            (`fn f<T: revad::Float>(x: T) -> T`)"
)]
pub trait StructType {}

impl StructType for NotAFloat {}

/// A check that a type `#[reverse]` took for a struct of the user's is not a float by another
/// name (see [`Named`]): a compile error at the type otherwise.
///
/// ```
/// use revad_runtime::expect::{expect_struct_type, ByFloat as _, ByOther as _, Named};
///
/// struct V2;
/// expect_struct_type((&Named::<V2>::new()).kind());
/// ```
#[inline]
pub fn expect_struct_type<K: StructType>(kind: K) {
    let _ = kind;
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_type_passes_through() {
        assert_eq!(super::expect_result::<f32, f32>(1.5), 1.5);
        assert_eq!(
            super::expect_result::<f64, f64>(-0.0).to_bits(),
            (-0.0f64).to_bits()
        );
    }
}
