//! The [`Float`] trait: the scalar types (`f64`, `f32`, and the dual numbers of forward mode)
//! that `#[reverse]` differentiates, and the bound of generic functions it differentiates
//! (`fn f<T: revad::Float>(x: T) -> T`).

use crate::accumulate::Accumulate;
use crate::adjoint::Adjoint;
use crate::inout::InOut;
use crate::stack::Record;

/// A floating-point scalar: `f64`, `f32`, or a forward-mode dual number of one of these
/// ([`Dual<T>`](crate::Dual), [`DualVec<T, N>`](crate::DualVec), nested to any depth).
///
/// It serves three purposes:
///
/// - The derivative rules in [`crate::rules`] are written once for both precisions over it,
///   and for dual numbers, which is what gives them derivatives of any order.
/// - The dual numbers run the rules: their intrinsics take their tangents from the rule table.
/// - It is the bound of generic functions under `#[reverse]`: a type parameter `T: Float` is a
///   float type of the function, so that one body serves both precisions (and dual numbers):
///
/// ```
/// use revad_runtime::Float;
///
/// /// Horner's scheme, for both precisions (under `#[revad::reverse]`, differentiated too).
/// fn poly<T: Float>(x: T, w: &[T]) -> T {
///     let mut acc = T::ZERO;
///     for i in 0..w.len() {
///         acc = acc * x + w[i];
///     }
///     acc.sin() * T::from_f64(0.5)
/// }
///
/// assert_eq!(poly(0.3_f64, &[1.0, 2.0]), (0.3_f64 + 2.0).sin() * 0.5);
/// assert_eq!(poly(0.3_f32, &[1.0, 2.0]), (0.3_f32 + 2.0).sin() * 0.5);
///
/// // On a dual number: the value and d/dx = 0.5 · 1 · cos(x + 2).
/// let y = poly(revad_runtime::Dual::variable(0.3_f64), &[Float::ONE, Float::from_f64(2.0)]);
/// assert_eq!(y.re, (0.3_f64 + 2.0).sin() * 0.5);
/// assert_eq!(y.eps, (0.3_f64 + 2.0).cos() * 0.5);
/// ```
///
/// In generic code, write constants as [`Float::ZERO`], [`Float::ONE`], `T::from_f64(0.5)` and
/// `T::from_i32(3)`, and the intrinsics as methods (`x.sin()`, `x.powi(2)`, `x.max(y)`): the
/// trait has a method for every intrinsic of the rule table ([`crate::rules::INTRINSICS`]).
/// For `f64` and `f32` each forwards to the inherent method of the same name; a dual number
/// computes its value with the method of `T` and its tangents from the rule table.
///
/// # `num-traits`
///
/// Every implementor implements `num_traits::Float` and `num_traits::FloatConst` too (the
/// primitives in `num-traits`, the dual numbers in [`crate::dual`], with the same values and
/// tangents), so code written for `num-traits` runs on all of them, and `#[reverse]` takes
/// `T: num_traits::Float` as it takes `T: Float` (the generated code adds `T: Float`). The
/// bridge is these implementations, not a supertrait: with `Float: num_traits::Float`, every
/// method both traits have (`x.sin()`, `x.max(y)`) would be ambiguous in a function bounded
/// by this trait.
///
/// # Not only primitives
///
/// The trait is sealed: `f64`, `f32`, [`Dual<T>`](crate::Dual) and
/// [`DualVec<T, N>`](crate::DualVec) (for any `T: Float`) implement it, so that generic code,
/// and the adjoint code generated for it, run on dual numbers (forward over reverse, forward
/// over forward). Therefore nothing may assume that a `T: Float` is a primitive, neither the
/// code `#[reverse]` generates for a generic function nor the rules: no `as T` casts, no float
/// literals of type `T` (`0.0`), no inherent items of the primitive types (`T::EPSILON`,
/// `T::MAX`); constants come from [`Float::ZERO`], [`Float::ONE`], [`Float::from_f64`] and
/// [`Float::from_i32`], and every operation from this trait and its supertraits. The
/// supertraits are those a dual number implements: arithmetic and compound assignment,
/// comparison (of the values only, for a dual number), sums, and the runtime traits generated
/// code needs ([`Record`] to keep values on the value stack, [`Adjoint`] and [`Accumulate`] for
/// its adjoint, which has the type of the value, [`InOut`] for `&mut` parameters, and
/// [`StopGradient`](crate::StopGradient) for `revad::stop_gradient`), and `Send + Sync +
/// 'static`, which every float and dual number is, so that containers of them are kept on the
/// value stack like a struct's values.
pub trait Float:
    Copy
    + PartialOrd
    + core::fmt::Debug
    + Default
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::Rem<Output = Self>
    + core::ops::Neg<Output = Self>
    + core::ops::AddAssign
    + core::ops::SubAssign
    + core::ops::MulAssign
    + core::ops::DivAssign
    + core::iter::Sum
    + for<'a> core::iter::Sum<&'a Self>
    + core::iter::Product
    + Record
    + Adjoint<Adj = Self>
    + Accumulate
    + InOut<Owned = Self>
    + crate::gradient::StopGradient
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// `0.5`.
    const HALF: Self;
    /// `ln 2`.
    const LN_2: Self;
    /// `ln 10`.
    const LN_10: Self;
    /// Converts a small integer exactly (exponents of `powi`).
    fn from_i32(k: i32) -> Self;
    /// Converts from `f64`, rounding for `f32`.
    fn from_f64(x: f64) -> Self;
    /// Converts to `f64` exactly (for a dual number, its value).
    fn to_f64(self) -> f64;
    /// Whether `self` is exactly zero (`0` or `-0`), and for a dual number whether its value
    /// and every tangent are, at every nesting level (`==` compares values only).
    ///
    /// Forward mode uses it to tell a constant's tangent, which contributes nothing even
    /// where a partial is NaN or infinite (`∂/∂y xʸ` at `x < 0`), from a variable's.
    fn is_exact_zero(self) -> bool;
    /// `self.sin_cos()`.
    fn sin_cos(self) -> (Self, Self);
    /// The total order of [`f64::total_cmp`] on the values (of a dual number, its value): the
    /// comparator `|a, b| a.total_cmp(b)` of a sort or a `max_by` in generic code, and in the
    /// copy of a function that `#[reverse(hessian)]` runs on dual numbers. (`f64` and `f32`
    /// call their own method of this name.)
    ///
    /// ```
    /// use revad_runtime::{Dual, Float};
    ///
    /// let (a, b) = (Dual::new(1.0, 5.0), Dual::new(2.0, -1.0));
    /// assert_eq!(Float::total_cmp(&a, &b), core::cmp::Ordering::Less);
    /// ```
    #[inline]
    fn total_cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.to_f64().total_cmp(&other.to_f64())
    }
    // One method per row of the one list of intrinsics: `fn sin(self) -> Self`, ..
    crate::rules::intrinsics!(float_methods);
}

/// The declarations of the intrinsics' methods, from the one list (`rules::intrinsics!`).
macro_rules! float_methods {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($($arg:ident $(: $argty:ty)?),*) reads $reads:tt out $out:literal:
            $kind:ident $(($rule:ident))?, fused $fused:tt,
            cheap $cheap:literal, finite $finite:literal;
    )*) => {$(
        #[doc = concat!("`self.", stringify!($name), "(", stringify!($($arg),*), ")`.")]
        $(#[$doc])*
        fn $name(self $(, $arg: crate::rules::arg_type!($($argty)?))*) -> Self;
    )*};
}
use float_methods;

/// The intrinsics' methods of `f64` or `f32`: each forwards to the inherent method.
macro_rules! forward_to_inherent {
    ([$t:ident] $(
        $(#[$doc:meta])*
        $name:ident($($arg:ident $(: $argty:ty)?),*) reads $reads:tt out $out:literal:
            $kind:ident $(($rule:ident))?, fused $fused:tt,
            cheap $cheap:literal, finite $finite:literal;
    )*) => {$(
        #[inline]
        fn $name(self $(, $arg: crate::rules::arg_type!($($argty)?))*) -> Self {
            $t::$name(self $(, $arg)*)
        }
    )*};
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
    impl<T: super::Float> Sealed for crate::Dual<T> {}
    impl<T: super::Float, const N: usize> Sealed for crate::DualVec<T, N> {}
}

macro_rules! impl_float {
    ($t:ident) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const HALF: Self = 0.5;
            const LN_2: Self = core::$t::consts::LN_2;
            const LN_10: Self = core::$t::consts::LN_10;
            #[inline]
            fn from_i32(k: i32) -> Self {
                k as $t
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn is_exact_zero(self) -> bool {
                self == 0.0
            }
            #[inline]
            fn sin_cos(self) -> (Self, Self) {
                $t::sin_cos(self)
            }
            crate::rules::intrinsics!(forward_to_inherent, $t);
        }
    };
}

impl_float!(f64);
impl_float!(f32);

/// Arithmetic of a float with a reference to one (`a * &b`, `s += &v`), as `f64` has it:
/// the generic copy that `#[reverse(hessian)]` makes of a function requires it of its float
/// type, so that code over `.iter()` (`x.iter().map(|a| a * a)`) runs on dual numbers too.
/// Implemented for every type that has the operations.
pub trait ArithByRef<'r>:
    Sized
    + 'r
    + core::ops::Add<&'r Self, Output = Self>
    + core::ops::Sub<&'r Self, Output = Self>
    + core::ops::Mul<&'r Self, Output = Self>
    + core::ops::Div<&'r Self, Output = Self>
    + core::ops::Rem<&'r Self, Output = Self>
    + core::ops::AddAssign<&'r Self>
    + core::ops::SubAssign<&'r Self>
    + core::ops::MulAssign<&'r Self>
    + core::ops::DivAssign<&'r Self>
    + core::ops::RemAssign<&'r Self>
{
}

impl<'r, T> ArithByRef<'r> for T where
    T: 'r
        + core::ops::Add<&'r T, Output = T>
        + core::ops::Sub<&'r T, Output = T>
        + core::ops::Mul<&'r T, Output = T>
        + core::ops::Div<&'r T, Output = T>
        + core::ops::Rem<&'r T, Output = T>
        + core::ops::AddAssign<&'r T>
        + core::ops::SubAssign<&'r T>
        + core::ops::MulAssign<&'r T>
        + core::ops::DivAssign<&'r T>
        + core::ops::RemAssign<&'r T>
{
}

/// Arithmetic of a reference to a float `T` (`&a * &b`, `&a + b`, `-&a`), as `&f64` has it;
/// see [`ArithByRef`].
pub trait RefArith<'r, T: 'r>:
    core::ops::Add<T, Output = T>
    + core::ops::Sub<T, Output = T>
    + core::ops::Mul<T, Output = T>
    + core::ops::Div<T, Output = T>
    + core::ops::Rem<T, Output = T>
    + core::ops::Add<&'r T, Output = T>
    + core::ops::Sub<&'r T, Output = T>
    + core::ops::Mul<&'r T, Output = T>
    + core::ops::Div<&'r T, Output = T>
    + core::ops::Rem<&'r T, Output = T>
    + core::ops::Neg<Output = T>
{
}

impl<'r, T: 'r, R> RefArith<'r, T> for R where
    R: core::ops::Add<T, Output = T>
        + core::ops::Sub<T, Output = T>
        + core::ops::Mul<T, Output = T>
        + core::ops::Div<T, Output = T>
        + core::ops::Rem<T, Output = T>
        + core::ops::Add<&'r T, Output = T>
        + core::ops::Sub<&'r T, Output = T>
        + core::ops::Mul<&'r T, Output = T>
        + core::ops::Div<&'r T, Output = T>
        + core::ops::Rem<&'r T, Output = T>
        + core::ops::Neg<Output = T>
{
}

#[cfg(test)]
mod tests {
    use super::Float;
    use crate::rules::INTRINSICS;

    /// Intrinsic `name` through the trait: `T::name(x, ..)`.
    fn through_trait<T: Float>(name: &str, x: T, y: T, z: T) -> T {
        match name {
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "asin" => x.asin(),
            "acos" => x.acos(),
            "atan" => x.atan(),
            "atan2" => x.atan2(y),
            "sinh" => x.sinh(),
            "cosh" => x.cosh(),
            "tanh" => x.tanh(),
            "asinh" => x.asinh(),
            "acosh" => (x + T::ONE).acosh(),
            "atanh" => x.atanh(),
            "exp" => x.exp(),
            "exp2" => x.exp2(),
            "exp_m1" => x.exp_m1(),
            "ln" => x.ln(),
            "ln_1p" => x.ln_1p(),
            "log" => x.log(y),
            "log2" => x.log2(),
            "log10" => x.log10(),
            "sqrt" => x.sqrt(),
            "cbrt" => x.cbrt(),
            "powi" => x.powi(3),
            "powf" => x.powf(y),
            "abs" => (-x).abs(),
            "hypot" => x.hypot(y),
            "max" => x.max(y),
            "min" => x.min(y),
            "mul_add" => x.mul_add(y, z),
            "clamp" => x.clamp(z, y),
            "recip" => x.recip(),
            "to_radians" => x.to_radians(),
            "to_degrees" => x.to_degrees(),
            "signum" => (-x).signum(),
            "floor" => (x * T::from_i32(7)).floor(),
            "ceil" => (x * T::from_i32(7)).ceil(),
            "round" => (x * T::from_i32(7)).round(),
            "trunc" => (x * T::from_i32(7)).trunc(),
            "fract" => (x * T::from_i32(7)).fract(),
            "copysign" => y.copysign(-x),
            "rem_euclid" => (-x).rem_euclid(y),
            other => panic!("`{other}` is in the rule table but not a method of `Float`"),
        }
    }

    /// The same intrinsic through the inherent method of `f64`.
    fn inherent(name: &str, x: f64, y: f64, z: f64) -> f64 {
        match name {
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "asin" => x.asin(),
            "acos" => x.acos(),
            "atan" => x.atan(),
            "atan2" => x.atan2(y),
            "sinh" => x.sinh(),
            "cosh" => x.cosh(),
            "tanh" => x.tanh(),
            "asinh" => x.asinh(),
            "acosh" => (x + 1.0).acosh(),
            "atanh" => x.atanh(),
            "exp" => x.exp(),
            "exp2" => x.exp2(),
            "exp_m1" => x.exp_m1(),
            "ln" => x.ln(),
            "ln_1p" => x.ln_1p(),
            "log" => x.log(y),
            "log2" => x.log2(),
            "log10" => x.log10(),
            "sqrt" => x.sqrt(),
            "cbrt" => x.cbrt(),
            "powi" => x.powi(3),
            "powf" => x.powf(y),
            "abs" => (-x).abs(),
            "hypot" => x.hypot(y),
            "max" => x.max(y),
            "min" => x.min(y),
            "mul_add" => x.mul_add(y, z),
            "clamp" => x.clamp(z, y),
            "recip" => x.recip(),
            "to_radians" => x.to_radians(),
            "to_degrees" => x.to_degrees(),
            "signum" => (-x).signum(),
            "floor" => (x * 7.0).floor(),
            "ceil" => (x * 7.0).ceil(),
            "round" => (x * 7.0).round(),
            "trunc" => (x * 7.0).trunc(),
            "fract" => (x * 7.0).fract(),
            "copysign" => y.copysign(-x),
            "rem_euclid" => (-x).rem_euclid(y),
            other => panic!("no inherent method for `{other}` in this test"),
        }
    }

    /// Every intrinsic of the rule table is a method of `Float` that forwards to the inherent
    /// method (so that generic code under `#[reverse]` can call it).
    #[test]
    fn every_intrinsic_is_a_forwarding_method() {
        let (x, y, z) = (0.3_f64, 1.7_f64, -0.4_f64);
        for row in INTRINSICS {
            let expected = inherent(row.name, x, y, z);
            assert_eq!(
                through_trait(row.name, x, y, z).to_bits(),
                expected.to_bits(),
                "{}",
                row.name
            );
            // `f32` forwards too (to its own method: close to the `f64` value).
            let single = through_trait(row.name, x as f32, y as f32, z as f32);
            assert!(
                (f64::from(single) - expected).abs() <= 1e-5 * expected.abs().max(1.0),
                "{}: f32 {single} against f64 {expected}",
                row.name
            );
        }
    }
}
