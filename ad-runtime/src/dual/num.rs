//! The bridge to `num-traits`: [`Dual`] and [`DualVec`] implement [`num_traits::Float`] and
//! what it requires ([`Num`], [`NumCast`], [`ToPrimitive`], [`Zero`], [`One`]), and
//! [`FloatConst`], so that generic code written for `num-traits` runs in forward mode
//! without annotation:
//!
//! ```
//! use num_traits::Float;
//! use revad_runtime::Dual;
//!
//! /// Written for `num-traits`, as libraries are.
//! fn softplus<T: Float>(x: T) -> T {
//!     (T::one() + x.exp()).ln()
//! }
//!
//! // d/dx ln(1 + eˣ) = eˣ / (1 + eˣ).
//! let y = softplus(Dual::variable(0.5_f64));
//! assert_eq!(y.re, softplus(0.5_f64));
//! assert!((y.eps - 0.5_f64.exp() / (1.0 + 0.5_f64.exp())).abs() < 1e-15);
//! ```
//!
//! Each method of an intrinsic is the method of the library's [`Float`](crate::Float) (the
//! value from `T`, the tangent from the rule table), so that generic code gives the same
//! values and tangents through either trait. The others:
//!
//! - constants (`zero`, `one`, `epsilon`, `max_value`, `nan`, `PI`, ..) and conversions
//!   (`NumCast::from`, `from_str_radix`) are constants: their tangents are zero. Converting a
//!   dual number with `NumCast::from` therefore keeps its value only, as does
//!   [`ToPrimitive`] (`to_f64`): these leave the dual numbers, as `as f64` leaves a float;
//! - predicates (`is_nan`, `is_sign_negative`, `is_zero`, `classify`) and `integer_decode`
//!   read the value only, as comparisons do;
//! - `abs_sub` has the tangent of `x - y` where `x > y` and zero elsewhere (`fract` and
//!   `copysign` are intrinsics).

use num_traits::{Float as NumFloat, FloatConst, Num, NumCast, One, ToPrimitive, Zero};

use super::{Dual, DualVec};
use crate::Float;

/// The traits of `num-traits` for `Dual<T>` and `DualVec<T, N>` alike.
macro_rules! num_impls {
    ([$($gen:tt)*] $ty:ty) => {
        /// `0`, with zero tangents; `is_zero` reads the value only (as `==` does).
        impl<$($gen)*> Zero for $ty {
            #[inline]
            fn zero() -> Self {
                <Self as Float>::ZERO
            }
            #[inline]
            fn is_zero(&self) -> bool {
                self.re.is_zero()
            }
        }

        /// `1`, with zero tangents; `is_one` reads the value only (as `==` does).
        impl<$($gen)*> One for $ty {
            #[inline]
            fn one() -> Self {
                <Self as Float>::ONE
            }
            #[inline]
            fn is_one(&self) -> bool {
                self.re.is_one()
            }
        }

        /// A constant parsed from a string.
        impl<$($gen)*> Num for $ty {
            type FromStrRadixErr = T::FromStrRadixErr;
            #[inline]
            fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
                T::from_str_radix(s, radix).map(Self::constant)
            }
        }

        /// The value's conversions (the tangents are dropped, as by `as f64`).
        impl<$($gen)*> ToPrimitive for $ty {
            #[inline]
            fn to_i64(&self) -> Option<i64> {
                <T as ToPrimitive>::to_i64(&self.re)
            }
            #[inline]
            fn to_u64(&self) -> Option<u64> {
                <T as ToPrimitive>::to_u64(&self.re)
            }
            #[inline]
            fn to_i128(&self) -> Option<i128> {
                <T as ToPrimitive>::to_i128(&self.re)
            }
            #[inline]
            fn to_u128(&self) -> Option<u128> {
                <T as ToPrimitive>::to_u128(&self.re)
            }
            #[inline]
            fn to_f32(&self) -> Option<f32> {
                <T as ToPrimitive>::to_f32(&self.re)
            }
            #[inline]
            fn to_f64(&self) -> Option<f64> {
                <T as ToPrimitive>::to_f64(&self.re)
            }
        }

        /// A constant of the converted value (a dual number converted keeps its value only).
        impl<$($gen)*> NumCast for $ty {
            #[inline]
            fn from<P: ToPrimitive>(n: P) -> Option<Self> {
                <T as NumCast>::from(n).map(Self::constant)
            }
        }

        /// The constants of `T`, with zero tangents.
        #[allow(non_snake_case, reason = "the names of `num-traits`")]
        impl<$($gen)*> FloatConst for $ty {
            float_consts!(E FRAC_1_PI FRAC_1_SQRT_2 FRAC_2_PI FRAC_2_SQRT_PI FRAC_PI_2
                FRAC_PI_3 FRAC_PI_4 FRAC_PI_6 FRAC_PI_8 LN_10 LN_2 LOG10_E LOG2_E PI SQRT_2 TAU
                LOG10_2 LOG2_10);
        }

        /// Every intrinsic through the library's [`Float`] (the same values and tangents).
        impl<$($gen)*> NumFloat for $ty {
            // One method per row of the one list of intrinsics (`powi` included).
            crate::rules::intrinsics!(float_delegates);

            #[inline]
            fn sin_cos(self) -> (Self, Self) {
                <Self as Float>::sin_cos(self)
            }

            constants!(nan infinity neg_infinity neg_zero min_value min_positive_value
                max_value epsilon);

            #[inline]
            fn is_nan(self) -> bool {
                self.re.is_nan()
            }
            #[inline]
            fn is_infinite(self) -> bool {
                self.re.is_infinite()
            }
            #[inline]
            fn is_finite(self) -> bool {
                self.re.is_finite()
            }
            #[inline]
            fn is_normal(self) -> bool {
                self.re.is_normal()
            }
            #[inline]
            fn is_subnormal(self) -> bool {
                self.re.is_subnormal()
            }
            #[inline]
            fn classify(self) -> core::num::FpCategory {
                self.re.classify()
            }
            #[inline]
            fn is_sign_positive(self) -> bool {
                self.re.is_sign_positive()
            }
            #[inline]
            fn is_sign_negative(self) -> bool {
                self.re.is_sign_negative()
            }
            #[inline]
            fn integer_decode(self) -> (u64, i16, i8) {
                self.re.integer_decode()
            }

            /// `x - y` where `x > y`, else `0`.
            #[inline]
            fn abs_sub(self, other: Self) -> Self {
                let out = NumFloat::abs_sub(self.re, other.re);
                let active = self.re > other.re;
                self.zip(other, out, |ea, eb| if active { ea - eb } else { T::ZERO })
            }
        }
    };
}

/// The intrinsics of `num_traits::Float`, each through the method of the library's `Float`,
/// from the one list (`rules::intrinsics!`): a row the trait lacks fails to compile here.
macro_rules! float_delegates {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($($arg:ident $(: $argty:ty)?),*) reads $reads:tt out $out:literal:
            $kind:ident $(($rule:ident))?, fused $fused:tt,
            cheap $cheap:literal, finite $finite:literal;
    )*) => {$(
        float_delegates!(@one $name($($arg $(: $argty)?),*));
    )*};
    // (`rem_euclid` is a method of `num_traits::Euclid`, not of its `Float`.)
    (@one rem_euclid($($arg:tt)*)) => {};
    (@one $name:ident($($arg:ident $(: $argty:ty)?),*)) => {
        #[inline]
        fn $name(self $(, $arg: crate::rules::arg_type!($($argty)?))*) -> Self {
            <Self as Float>::$name(self $(, $arg)*)
        }
    };
}

/// Constants of `num_traits::Float`: `T`'s, with zero tangents.
macro_rules! constants {
    ($($name:ident)*) => {$(
        #[inline]
        fn $name() -> Self {
            Self::constant(<T as NumFloat>::$name())
        }
    )*};
}

/// The constants of `FloatConst`: `T`'s, with zero tangents.
macro_rules! float_consts {
    ($($name:ident)*) => {$(
        #[inline]
        fn $name() -> Self {
            Self::constant(<T as FloatConst>::$name())
        }
    )*};
}

num_impls!([T: Float + NumFloat + FloatConst] Dual<T>);
num_impls!([T: Float + NumFloat + FloatConst, const N: usize] DualVec<T, N>);
