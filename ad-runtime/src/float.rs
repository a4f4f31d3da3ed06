//! The [`Float`] trait: the scalar types (`f64`, `f32`) that `#[reverse]` differentiates.

/// A floating-point scalar that derivative rules are written for: `f64` or `f32`.
///
/// The trait forwards to the inherent methods of the primitive types, so that each rule in
/// [`crate::rules`] is written once for both precisions. It is sealed: no other type can
/// implement it.
pub trait Float:
    Copy
    + PartialOrd
    + core::fmt::Debug
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::Neg<Output = Self>
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
    /// Converts to `f64` exactly.
    fn to_f64(self) -> f64;
    /// `self.sin()`.
    fn sin(self) -> Self;
    /// `self.sin_cos()`.
    fn sin_cos(self) -> (Self, Self);
    /// `self.cos()`.
    fn cos(self) -> Self;
    /// `self.sinh()`.
    fn sinh(self) -> Self;
    /// `self.cosh()`.
    fn cosh(self) -> Self;
    /// `self.sqrt()`.
    fn sqrt(self) -> Self;
    /// `self.ln()`.
    fn ln(self) -> Self;
    /// `self.powi(k)`.
    fn powi(self, k: i32) -> Self;
    /// `self.powf(y)`.
    fn powf(self, y: Self) -> Self;
    /// `self.trunc()`.
    fn trunc(self) -> Self;
    /// `self.recip()`.
    fn recip(self) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
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
            fn sin(self) -> Self {
                $t::sin(self)
            }
            #[inline]
            fn sin_cos(self) -> (Self, Self) {
                $t::sin_cos(self)
            }
            #[inline]
            fn cos(self) -> Self {
                $t::cos(self)
            }
            #[inline]
            fn sinh(self) -> Self {
                $t::sinh(self)
            }
            #[inline]
            fn cosh(self) -> Self {
                $t::cosh(self)
            }
            #[inline]
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            #[inline]
            fn ln(self) -> Self {
                $t::ln(self)
            }
            #[inline]
            fn powi(self, k: i32) -> Self {
                $t::powi(self, k)
            }
            #[inline]
            fn powf(self, y: Self) -> Self {
                $t::powf(self, y)
            }
            #[inline]
            fn trunc(self) -> Self {
                $t::trunc(self)
            }
            #[inline]
            fn recip(self) -> Self {
                $t::recip(self)
            }
        }
    };
}

impl_float!(f64);
impl_float!(f32);
