//! Forward-mode dual numbers: [`Dual`] (a value and one tangent) and [`DualVec`] (a value and
//! `N` tangents).
//!
//! A dual number `a + a′ε` with `ε² = 0` carries a value and its derivative along one
//! direction through every operation: `(a + a′ε)(b + b′ε) = ab + (a′b + ab′)ε`, and
//! `f(a + a′ε) = f(a) + f′(a) a′ε` for an intrinsic `f`, whose `f′` comes from the one rule
//! table, [`crate::rules`]. Both types implement [`Float`], so a generic function
//! `fn f<T: Float>(x: T) -> T` runs on them unchanged, and they nest: `Dual<Dual<f64>>`
//! carries second derivatives. Each nesting level is a distinct type, so the tangents of two
//! levels can never be mixed up (no perturbation confusion; see [`crate::forward`]).
//!
//! ```
//! use revad_runtime::{Dual, Float};
//!
//! // d/dx (x sin x) = sin x + x cos x.
//! let x = Dual::variable(0.5_f64);
//! let y = x * x.sin();
//! assert_eq!(y.re, 0.5 * 0.5_f64.sin());
//! assert!((y.eps - (0.5_f64.sin() + 0.5 * 0.5_f64.cos())).abs() < 1e-15);
//! ```
//!
//! They implement `num-traits`' `Float` too (module `num`), so code written for `num-traits`
//! runs on them unannotated.
//!
//! Comparisons (`==`, `<`, ...) compare the values only, so branches follow the primal
//! computation, the usual convention of forward mode. The tangent of a piecewise-constant
//! function (`floor`, `signum`, ...) is zero, and at non-differentiable points the tangents
//! follow the conventions of [`crate::rules`].

use core::fmt;
use core::iter::{Product, Sum};
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use crate::accumulate::Accumulate;
use crate::adjoint::Adjoint;
use crate::inout::InOut;
use crate::rules;
use crate::stack::{Record, ValueStack};
use crate::Float;

mod num;

/// A forward-mode dual number: a value `re` and one tangent `eps` (its derivative along one
/// direction).
///
/// `T` is `f64`, `f32`, or a dual number itself: `Dual<Dual<f64>>` computes second
/// derivatives (forward over forward).
///
/// ```
/// use revad_runtime::{Dual, Float};
///
/// // Second derivative of x³ at 2: the tangent of the tangent, 6x = 12.
/// let x = Dual::new(Dual::variable(2.0_f64), Dual::constant(1.0));
/// let y = x * x * x;
/// assert_eq!((y.re.re, y.re.eps, y.eps.eps), (8.0, 12.0, 12.0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<T> {
    /// The value.
    pub re: T,
    /// The tangent: the derivative of the value along the seeded direction.
    pub eps: T,
}

/// A forward-mode dual number with `N` tangents: a value `re` and its derivatives `eps[k]`
/// along `N` directions at once (one forward pass gives a gradient of `N` inputs).
///
/// ```
/// use revad_runtime::{DualVec, Float};
///
/// // ∇(x y) at (3, 4) in one pass: (y, x).
/// let (x, y) = (DualVec::<f64, 2>::variable(3.0, 0), DualVec::variable(4.0, 1));
/// let z = x * y;
/// assert_eq!((z.re, z.eps), (12.0, [4.0, 3.0]));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DualVec<T, const N: usize> {
    /// The value.
    pub re: T,
    /// The tangents: `eps[k]` is the derivative of the value along direction `k`.
    pub eps: [T; N],
}

impl<T: Float> Dual<T> {
    /// The dual number `re + eps·ε`.
    #[inline]
    pub fn new(re: T, eps: T) -> Self {
        Dual { re, eps }
    }

    /// A constant: the tangent is zero.
    #[inline]
    pub fn constant(re: T) -> Self {
        Dual { re, eps: T::ZERO }
    }

    /// The variable to differentiate with respect to: the tangent is one.
    #[inline]
    pub fn variable(re: T) -> Self {
        Dual { re, eps: T::ONE }
    }

    /// The dual number of value `re` whose tangents are `f` of those of `self`.
    #[inline]
    fn map(self, re: T, f: impl Fn(T) -> T) -> Self {
        Dual {
            re,
            eps: f(self.eps),
        }
    }

    /// The dual number of value `re` whose tangents are `f` of those of `self` and `b`.
    #[inline]
    fn zip(self, b: Self, re: T, f: impl Fn(T, T) -> T) -> Self {
        Dual {
            re,
            eps: f(self.eps, b.eps),
        }
    }

    /// The dual number of value `re` whose tangents are `f` of those of `self`, `b` and `c`.
    #[inline]
    fn zip3(self, b: Self, c: Self, re: T, f: impl Fn(T, T, T) -> T) -> Self {
        Dual {
            re,
            eps: f(self.eps, b.eps, c.eps),
        }
    }

    /// Whether the value and the tangent are exactly zero, at every nesting level.
    #[inline]
    fn all_zero(self) -> bool {
        self.re.is_exact_zero() && self.eps.is_exact_zero()
    }
}

impl<T: Float, const N: usize> DualVec<T, N> {
    /// The dual number `re + Σ eps[k]·εₖ`.
    #[inline]
    pub fn new(re: T, eps: [T; N]) -> Self {
        DualVec { re, eps }
    }

    /// A constant: every tangent is zero.
    #[inline]
    pub fn constant(re: T) -> Self {
        DualVec {
            re,
            eps: [T::ZERO; N],
        }
    }

    /// Input number `k` of `N`: the tangent along direction `k` is one, the others zero.
    ///
    /// # Panics
    ///
    /// If `k >= N`.
    #[inline]
    #[track_caller]
    pub fn variable(re: T, k: usize) -> Self {
        let mut eps = [T::ZERO; N];
        eps[k] = T::ONE;
        DualVec { re, eps }
    }

    /// The dual number of value `re` whose tangents are `f` of those of `self`.
    #[inline]
    fn map(self, re: T, f: impl Fn(T) -> T) -> Self {
        DualVec {
            re,
            eps: self.eps.map(f),
        }
    }

    /// The dual number of value `re` whose tangents are `f` of those of `self` and `b`.
    #[inline]
    fn zip(self, b: Self, re: T, f: impl Fn(T, T) -> T) -> Self {
        DualVec {
            re,
            eps: core::array::from_fn(|k| f(self.eps[k], b.eps[k])),
        }
    }

    /// The dual number of value `re` whose tangents are `f` of those of `self`, `b` and `c`.
    #[inline]
    fn zip3(self, b: Self, c: Self, re: T, f: impl Fn(T, T, T) -> T) -> Self {
        DualVec {
            re,
            eps: core::array::from_fn(|k| f(self.eps[k], b.eps[k], c.eps[k])),
        }
    }

    /// Whether the value and every tangent are exactly zero, at every nesting level.
    #[inline]
    fn all_zero(self) -> bool {
        self.re.is_exact_zero() && self.eps.iter().all(|e| e.is_exact_zero())
    }
}

/// Zero, with zero tangents (as `#[derive(Default)]` gives `Dual`; the derive cannot build an
/// array of any length `N`).
impl<T: Float, const N: usize> Default for DualVec<T, N> {
    #[inline]
    fn default() -> Self {
        DualVec::constant(T::ZERO)
    }
}

/// `re + epsε`.
impl<T: fmt::Display> fmt::Display for Dual<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + {}ε", self.re, self.eps)
    }
}

/// `re + [eps₀, eps₁, ..]ε`.
impl<T: fmt::Display, const N: usize> fmt::Display for DualVec<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + [", self.re)?;
        for (k, e) in self.eps.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{e}")?;
        }
        f.write_str("]ε")
    }
}

/// The traits of [`Float`] and its supertraits, for `Dual<T>` and `DualVec<T, N>` alike: the
/// tangent arithmetic is written once, over the private `map`, `zip` and `zip3` of each type,
/// and every intrinsic's derivative comes from [`crate::rules`].
macro_rules! dual_impls {
    (@by_ref [$($gen:tt)*] $ty:ty, $op:ident $f:ident $assign:ident $fa:ident) => {
        impl<$($gen)*> $op<&$ty> for $ty {
            type Output = $ty;
            #[inline]
            fn $f(self, b: &$ty) -> $ty {
                $op::$f(self, *b)
            }
        }

        impl<$($gen)*> $op<$ty> for &$ty {
            type Output = $ty;
            #[inline]
            fn $f(self, b: $ty) -> $ty {
                $op::$f(*self, b)
            }
        }

        impl<$($gen)*> $op<&$ty> for &$ty {
            type Output = $ty;
            #[inline]
            fn $f(self, b: &$ty) -> $ty {
                $op::$f(*self, *b)
            }
        }

        impl<$($gen)*> $assign<&$ty> for $ty {
            #[inline]
            fn $fa(&mut self, b: &$ty) {
                $assign::$fa(self, *b)
            }
        }
    };
    ([$($gen:tt)*] $ty:ty, zero tangent: $zero:expr, record: |$s:ident, $stack:ident| $push:block $pop:block, scale: $scale:expr) => {
        impl<$($gen)*> PartialEq for $ty {
            /// Compares the values only (branches follow the primal computation).
            #[inline]
            fn eq(&self, other: &Self) -> bool {
                self.re == other.re
            }
        }

        impl<$($gen)*> PartialOrd for $ty {
            /// Compares the values only (branches follow the primal computation).
            #[inline]
            fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
                self.re.partial_cmp(&other.re)
            }
        }

        impl<$($gen)*> Add for $ty {
            type Output = Self;
            #[inline]
            fn add(self, b: Self) -> Self {
                self.zip(b, self.re + b.re, |ea, eb| ea + eb)
            }
        }

        impl<$($gen)*> Sub for $ty {
            type Output = Self;
            #[inline]
            fn sub(self, b: Self) -> Self {
                self.zip(b, self.re - b.re, |ea, eb| ea - eb)
            }
        }

        impl<$($gen)*> Neg for $ty {
            type Output = Self;
            #[inline]
            fn neg(self) -> Self {
                self.map(-self.re, |e| -e)
            }
        }

        impl<$($gen)*> Mul for $ty {
            type Output = Self;
            /// `(ab)′ = a′b + ab′`.
            #[inline]
            #[allow(clippy::suspicious_arithmetic_impl, reason = "the product rule adds two terms")]
            fn mul(self, b: Self) -> Self {
                let a = self;
                a.zip(b, a.re * b.re, |ea, eb| ea * b.re + a.re * eb)
            }
        }

        impl<$($gen)*> Div for $ty {
            type Output = Self;
            /// `(a/b)′ = (a′ - (a/b) b′) / b`: the partials `1/b` and `-out/b` of the reverse
            /// rule.
            #[inline]
            #[allow(clippy::suspicious_arithmetic_impl, reason = "the quotient rule")]
            fn div(self, b: Self) -> Self {
                let out = self.re / b.re;
                self.zip(b, out, |ea, eb| (ea - out * eb) / b.re)
            }
        }

        impl<$($gen)*> Rem for $ty {
            type Output = Self;
            #[inline]
            #[allow(clippy::suspicious_arithmetic_impl, reason = "the chain rule of `%`")]
            fn rem(self, b: Self) -> Self {
                let (da, db) = rules::d_rem(self.re, b.re);
                self.zip(b, self.re % b.re, |ea, eb| ea * da + eb * db)
            }
        }

        impl<$($gen)*> AddAssign for $ty {
            #[inline]
            fn add_assign(&mut self, b: Self) {
                *self = *self + b;
            }
        }

        impl<$($gen)*> SubAssign for $ty {
            #[inline]
            fn sub_assign(&mut self, b: Self) {
                *self = *self - b;
            }
        }

        impl<$($gen)*> MulAssign for $ty {
            #[inline]
            fn mul_assign(&mut self, b: Self) {
                *self = *self * b;
            }
        }

        impl<$($gen)*> DivAssign for $ty {
            #[inline]
            fn div_assign(&mut self, b: Self) {
                *self = *self / b;
            }
        }

        impl<$($gen)*> RemAssign for $ty {
            #[inline]
            fn rem_assign(&mut self, b: Self) {
                *self = *self % b;
            }
        }

        // Arithmetic through references (`&a * &b`, `a * &b`, `-&a`, `s += &v`), as on `f64`:
        // code over `.iter()` of dual numbers reads its items by reference.
        dual_impls!(@by_ref [$($gen)*] $ty, Add add AddAssign add_assign);
        dual_impls!(@by_ref [$($gen)*] $ty, Sub sub SubAssign sub_assign);
        dual_impls!(@by_ref [$($gen)*] $ty, Mul mul MulAssign mul_assign);
        dual_impls!(@by_ref [$($gen)*] $ty, Div div DivAssign div_assign);
        dual_impls!(@by_ref [$($gen)*] $ty, Rem rem RemAssign rem_assign);

        impl<$($gen)*> Neg for &$ty {
            type Output = $ty;
            #[inline]
            fn neg(self) -> $ty {
                -*self
            }
        }

        impl<$($gen)*> Sum for $ty {
            #[inline]
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::ZERO, |acc, x| acc + x)
            }
        }

        impl<'a, $($gen)*> Sum<&'a $ty> for $ty {
            #[inline]
            fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
                iter.fold(Self::ZERO, |acc, x| acc + *x)
            }
        }

        impl<$($gen)*> Product for $ty {
            #[inline]
            fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::ONE, |acc, x| acc * x)
            }
        }

        /// The value, then the tangents, each as a `T`; popped in the reverse order.
        impl<$($gen)*> Record for $ty {
            #[inline]
            fn push_to(self, $stack: &mut ValueStack) {
                let $s = self;
                $push
            }
            #[inline]
            #[track_caller]
            fn pop_from($stack: &mut ValueStack) -> Self {
                $pop
            }
            fn reserve_in(stack: &mut ValueStack, additional: usize) {
                T::reserve_in(stack, additional.saturating_mul($scale));
            }
        }

        /// The adjoint of a dual number is a dual number (forward over reverse).
        impl<$($gen)*> Adjoint for $ty {
            type Adj = Self;
            #[inline]
            fn zero_adjoint(&self) -> Self {
                Self::ZERO
            }
            #[inline]
            fn accumulate(acc: &mut Self, other: &Self) {
                *acc += *other;
            }
        }

        impl<$($gen)*> Accumulate for $ty {
            #[inline]
            fn accumulate(&mut self, other: &Self) {
                *self += *other;
            }
        }

        impl<$($gen)*> InOut for $ty {
            type Owned = Self;
            #[inline]
            fn entry(&self) -> Self {
                *self
            }
            #[inline]
            fn write_back(&mut self, value: &Self) {
                *self = *value;
            }
        }

        impl<$($gen)*> Float for $ty {
            const ZERO: Self = Self { re: T::ZERO, eps: $zero };
            const ONE: Self = Self { re: T::ONE, eps: $zero };
            const HALF: Self = Self { re: T::HALF, eps: $zero };
            const LN_2: Self = Self { re: T::LN_2, eps: $zero };
            const LN_10: Self = Self { re: T::LN_10, eps: $zero };

            #[inline]
            fn from_i32(k: i32) -> Self {
                Self::constant(T::from_i32(k))
            }
            #[inline]
            fn from_f64(x: f64) -> Self {
                Self::constant(T::from_f64(x))
            }
            /// The value only.
            #[inline]
            fn to_f64(self) -> f64 {
                self.re.to_f64()
            }
            #[inline]
            fn is_exact_zero(self) -> bool {
                self.all_zero()
            }
            #[inline]
            fn sin_cos(self) -> (Self, Self) {
                let (s, ds) = rules::sin_and_d(self.re);
                let (c, dc) = rules::cos_and_d(self.re);
                (self.map(s, |e| e * ds), self.map(c, |e| e * dc))
            }
            #[inline]
            fn powi(self, k: i32) -> Self {
                let d = rules::d_powi(self.re, k);
                self.map(self.re.powi(k), |e| rules::times_partial(e, d))
            }

            // The intrinsics of the one list whose shape the generator knows; the others below.
            crate::rules::intrinsics!(unary_duals);

            /// The tangent of a constant base or exponent contributes nothing, even where its
            /// partial is NaN or infinite (`(-2)ˣ` with a constant `x = 2` has the
            /// derivative `2·(-2)` in the base, not NaN from `ln(-2)`).
            #[inline]
            fn powf(self, y: Self) -> Self {
                let z = self.re.powf(y.re);
                let (dx, dy) = rules::d_powf(self.re, y.re, z);
                self.zip(y, z, |ex, ey| rules::times_partial(ex, dx) + rules::times_partial(ey, dy))
            }
            #[inline]
            fn hypot(self, y: Self) -> Self {
                let h = self.re.hypot(y.re);
                let (dx, dy) = rules::d_hypot(self.re, y.re, h);
                self.zip(y, h, |ex, ey| {
                    rules::times_partial(ex, dx) + rules::times_partial(ey, dy)
                })
            }
            #[inline]
            fn mul_add(self, b: Self, c: Self) -> Self {
                let (da, db, dc) = rules::d_mul_add(self.re, b.re);
                let out = self.re.mul_add(b.re, c.re);
                self.zip3(b, c, out, |ea, eb, ec| ea * da + eb * db + ec * dc)
            }
            #[inline]
            fn clamp(self, lo: Self, hi: Self) -> Self {
                let out = self.re.clamp(lo.re, hi.re);
                let (dx, dlo, dhi) = rules::d_clamp(self.re, lo.re, hi.re);
                self.zip3(lo, hi, out, |ex, elo, ehi| ex * dx + elo * dlo + ehi * dhi)
            }
        }
    };
}

/// The dual-number methods of the intrinsics, from the one list (`rules::intrinsics!`): the
/// value from `T`'s method, the tangent times the partial `rules::d_NAME` of the input
/// (`reads [0]`) or of the output (`out true`); zero for a piecewise-constant intrinsic
/// (`Zero`: no adjoint flows in reverse mode either); for two arguments whose partials read
/// both (`reads [0, 1] out false: Each`, as `atan2`, `max`), the sum of each tangent times its
/// partial. Through a partial that may be infinite (`finite false`) a zero tangent contributes
/// zero (`rules::times_partial`). Rows of other shapes (`powi`, `powf`, `hypot`, `mul_add`,
/// `clamp`) are written out in `dual_impls!`.
macro_rules! unary_duals {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($($arg:tt)*) reads [$($read:tt),*] out $out:tt:
            $kind:ident $(($rule:ident))?, fused $fused:tt, cheap $cheap:literal,
            finite $finite:tt;
    )*) => {$(
        unary_duals!(@one $name($($arg)*) [$($read),*] $out $kind $(($rule))?, $finite);
    )*};
    (@one $name:ident() [0] false One($rule:ident), $finite:tt) => {
        #[inline]
        fn $name(self) -> Self {
            let d = rules::$rule(self.re);
            self.map(self.re.$name(), |e| unary_duals!(@times $finite, e, d))
        }
    };
    (@one $name:ident() [] true One($rule:ident), $finite:tt) => {
        #[inline]
        fn $name(self) -> Self {
            let y = self.re.$name();
            let d = rules::$rule(y);
            self.map(y, |e| unary_duals!(@times $finite, e, d))
        }
    };
    (@one $name:ident() [] false Zero, $finite:tt) => {
        #[inline]
        fn $name(self) -> Self {
            let d = rules::d_step(self.re);
            self.map(self.re.$name(), |_| d)
        }
    };
    (@one $name:ident($b:ident) [0, 1] false Each($rule:ident), $finite:tt) => {
        #[inline]
        fn $name(self, $b: Self) -> Self {
            let (da, db) = rules::$rule(self.re, $b.re);
            self.zip($b, self.re.$name($b.re), |ea, eb| {
                unary_duals!(@times $finite, ea, da) + unary_duals!(@times $finite, eb, db)
            })
        }
    };
    (@one $($other:tt)*) => {};
    // A tangent through a partial: a zero one contributes zero where the partial may be
    // infinite (`rules::times_partial`).
    (@times true, $e:ident, $d:ident) => { $e * $d };
    (@times false, $e:ident, $d:ident) => { rules::times_partial($e, $d) };
}

dual_impls!(
    [T: Float] Dual<T>,
    zero tangent: T::ZERO,
    record: |s, stack| {
        s.re.push_to(stack);
        s.eps.push_to(stack);
    } {
        let eps = T::pop_from(stack);
        let re = T::pop_from(stack);
        Dual { re, eps }
    },
    scale: 2
);

dual_impls!(
    [T: Float, const N: usize] DualVec<T, N>,
    zero tangent: [T::ZERO; N],
    record: |s, stack| {
        s.re.push_to(stack);
        for e in s.eps {
            e.push_to(stack);
        }
    } {
        let mut eps = [T::ZERO; N];
        for e in eps.iter_mut().rev() {
            *e = T::pop_from(stack);
        }
        let re = T::pop_from(stack);
        DualVec { re, eps }
    },
    scale: N + 1
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_have_zero_tangents() {
        let d = <Dual<f64> as Float>::LN_2;
        assert_eq!((d.re, d.eps), (core::f64::consts::LN_2, 0.0));
        let v = <DualVec<f64, 2> as Float>::from_i32(3);
        assert_eq!((v.re, v.eps), (3.0, [0.0, 0.0]));
        assert_eq!(DualVec::<f64, 2>::default().eps, [0.0, 0.0]);
    }

    #[test]
    fn displays_value_and_tangent() {
        assert_eq!(Dual::new(1.5_f64, -2.0).to_string(), "1.5 + -2ε");
        assert_eq!(DualVec::new(1.0_f64, [2.0, 3.0]).to_string(), "1 + [2, 3]ε");
    }

    /// `(-2)^y` at a constant `y = 2` differentiates in the base only: `2·(-2) = -4`, not NaN
    /// (the exponent's partial `4 ln(-2)` is NaN and is multiplied by a zero tangent).
    #[test]
    fn powf_with_constant_exponent_ignores_its_nan_partial() {
        let y = Dual::variable(-2.0_f64).powf(Dual::constant(2.0));
        assert_eq!((y.re, y.eps), (4.0, -4.0));
        let y = Dual::constant(0.0_f64).powf(Dual::variable(0.5));
        assert_eq!((y.re, y.eps), (0.0, 0.0));
    }

    #[test]
    fn record_round_trips_nested_values() {
        let mut stack = ValueStack::new();
        let a = Dual::new(Dual::new(1.0_f64, 2.0), Dual::new(3.0, 4.0));
        let b = DualVec::new(5.0_f32, [6.0, 7.0]);
        stack.push(a);
        stack.push(8.0_f64);
        stack.push(b);
        assert_eq!(stack.bytes(), 5 * 8 + 3 * 4);
        let b2: DualVec<f32, 2> = stack.pop();
        assert_eq!((b2.re, b2.eps), (5.0, [6.0, 7.0]));
        assert_eq!(stack.pop::<f64>(), 8.0);
        let a2: Dual<Dual<f64>> = stack.pop();
        assert_eq!(
            [a2.re.re, a2.re.eps, a2.eps.re, a2.eps.eps],
            [1.0, 2.0, 3.0, 4.0]
        );
        assert!(stack.is_empty());
    }
}
