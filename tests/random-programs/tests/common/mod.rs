//! The harness of the differential fuzzer: the scalar types the oracles run on, and the check.
//!
//! Every generated program is emitted from one model as the `#[revad::reverse]` function under
//! test, (for most programs) as the same function under `#[revad::reverse(cps)]`, whose
//! gradients must also equal the tape backend's bit for bit (see [`check`]), and as an oracle
//! generic over [`Real`]. The oracle runs on two scalars:
//!
//! - [`D64`] / [`D32`]: forward-mode dual numbers of the `num-dual` crate (one pass per input
//!   direction). Their arithmetic and most intrinsics are num-dual's; where num-dual computes
//!   the *value* differently from `std` (`/` multiplies by the reciprocal, `tan` divides
//!   `sin` by `cos`, `tanh`, `powi`, `powf`, `mul_add` without fusing), the value is taken from
//!   `std` and the derivative from the textbook partials below, so the oracle's value is the
//!   plain function's value bit for bit.
//! - [`A64`] / [`A32`]: the absolute-value dual: the value, and for one input the sum over all
//!   computation paths of the product of the absolute values of the local partials (each
//!   operation propagates `|∂| · |d|`). Rounding errors of a derivative computed either way
//!   are at most a small multiple of the unit roundoff times this sum.
//!
//! A gradient component passes when `|got - oracle| <= REL * |oracle| + ABS * absdual`, with
//! `REL = 1e-10, ABS = 1e-13` for `f64` (`ABS` is about 450 units of roundoff) and, for `f32`,
//! `REL = 1e-5, ABS = 5e-5` (about 420 units of `f32` roundoff: the same number of rounding
//! steps as for `f64`). Both add the smallest normal number of the type as an absolute floor
//! (gradients in the subnormal range round to a fixed spacing, not a relative one).
//!
//! At the points where a piecewise-smooth intrinsic has a kink the oracle uses the rule table's
//! conventions (`max`/`min` ties split 0.5/0.5 and a NaN argument is ignored, `abs'(0) = 1`,
//! `%` has partials `(1, -q)` for the integer `q` of `a % b = a - q b`), so a program that hits a tie exactly (say `h[0].max(h[1])` on a
//! fresh zero array) is still compared exactly.

#![allow(dead_code)]

use std::fmt::{Debug, Display, LowerExp};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, Sub, SubAssign};

use num_dual::{Dual32, Dual64, DualNum};

/// The float types of the programs, with what the harness needs of them.
pub trait Fl:
    Copy
    + Debug
    + Display
    + LowerExp
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + 'static
{
    /// The num-dual forward-mode scalar.
    type D: Real<F = Self>;
    /// The absolute-value dual.
    type A: Real<F = Self>;
    /// Relative tolerance of a gradient component.
    const REL: f64;
    /// Tolerance per unit of the absolute-value dual.
    const ABS: f64;
    /// An absolute floor: the smallest normal number. Below it, operations round to the
    /// fixed spacing of the subnormals (the `+ η` of the standard model of floating-point
    /// error), which the relative terms do not bound.
    const UNDERFLOW: f64;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// A dual number with this value and tangent.
    fn dual(self, eps: Self) -> Self::D;
    /// The tangent of a dual number.
    fn tangent(d: Self::D) -> Self;
    /// An absolute-value dual with this value and sum.
    fn absdual(self, eps: f64) -> Self::A;
    /// The sum of an absolute-value dual.
    fn abssum(a: Self::A) -> f64;
    /// As `f64`.
    fn to_f64(self) -> f64;
    /// The bits (of the `f64` conversion, which is exact).
    fn bits(self) -> u64 {
        self.to_f64().to_bits()
    }
    /// `ln 2`.
    fn ln2() -> Self;
    /// `ln 10`.
    fn ln10() -> Self;
    /// The intrinsics of `std`, under their own names.
    fn sin(self) -> Self;
    /// See `sin`.
    fn cos(self) -> Self;
    /// See `sin`.
    fn tan(self) -> Self;
    /// See `sin`.
    fn asin(self) -> Self;
    /// See `sin`.
    fn acos(self) -> Self;
    /// See `sin`.
    fn atan(self) -> Self;
    /// See `sin`.
    fn atan2(self, x: Self) -> Self;
    /// See `sin`.
    fn sinh(self) -> Self;
    /// See `sin`.
    fn cosh(self) -> Self;
    /// See `sin`.
    fn tanh(self) -> Self;
    /// See `sin`.
    fn asinh(self) -> Self;
    /// See `sin`.
    fn acosh(self) -> Self;
    /// See `sin`.
    fn atanh(self) -> Self;
    /// See `sin`.
    fn exp(self) -> Self;
    /// See `sin`.
    fn exp2(self) -> Self;
    /// See `sin`.
    fn exp_m1(self) -> Self;
    /// See `sin`.
    fn ln(self) -> Self;
    /// See `sin`.
    fn ln_1p(self) -> Self;
    /// See `sin`.
    fn log(self, b: Self) -> Self;
    /// See `sin`.
    fn log2(self) -> Self;
    /// See `sin`.
    fn log10(self) -> Self;
    /// See `sin`.
    fn sqrt(self) -> Self;
    /// See `sin`.
    fn cbrt(self) -> Self;
    /// See `sin`.
    fn recip(self) -> Self;
    /// See `sin`.
    fn to_radians(self) -> Self;
    /// See `sin`.
    fn to_degrees(self) -> Self;
    /// See `sin`.
    fn powi(self, n: i32) -> Self;
    /// See `sin`.
    fn powf(self, y: Self) -> Self;
    /// See `sin`.
    fn hypot(self, y: Self) -> Self;
    /// See `sin`.
    fn max(self, y: Self) -> Self;
    /// See `sin`.
    fn min(self, y: Self) -> Self;
    /// See `sin`.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// See `sin`.
    fn clamp(self, lo: Self, hi: Self) -> Self;
    /// See `sin`.
    fn abs(self) -> Self;
    /// See `sin`.
    fn signum(self) -> Self;
    /// See `sin`.
    fn floor(self) -> Self;
    /// See `sin`.
    fn ceil(self) -> Self;
    /// See `sin`.
    fn round(self) -> Self;
    /// See `sin`.
    fn trunc(self) -> Self;
    /// See `sin`.
    fn fract(self) -> Self;
    /// See `sin`.
    fn copysign(self, sign: Self) -> Self;
    /// See `sin`.
    fn rem_euclid(self, rhs: Self) -> Self;
    /// See `sin`.
    fn is_finite(self) -> bool;
    /// From a small integer.
    fn from_i32(n: i32) -> Self;
}

/// The scalar an oracle computes with: a float type's arithmetic and every intrinsic of the
/// rule table. The methods' default bodies give each operation's value (from `std`) and its
/// textbook partials to [`Real::lift`], which combines them with the arguments' tangents.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// The float type.
    type F: Fl;
    /// A constant.
    fn cst(x: Self::F) -> Self;
    /// The value.
    fn re(self) -> Self::F;
    /// The result of an operation: its value, and each argument with the local partial.
    fn lift(re: Self::F, parts: &[(Self, Self::F)]) -> Self;

    /// `sin`.
    fn sin(self) -> Self {
        let x = self.re();
        Self::lift(x.sin(), &[(self, x.cos())])
    }
    /// `cos`.
    fn cos(self) -> Self {
        let x = self.re();
        Self::lift(x.cos(), &[(self, -x.sin())])
    }
    /// `tan`.
    fn tan(self) -> Self {
        let x = self.re();
        let c = x.cos();
        Self::lift(x.tan(), &[(self, Self::F::ONE / (c * c))])
    }
    /// `asin`.
    fn asin(self) -> Self {
        let x = self.re();
        Self::lift(x.asin(), &[(self, (Self::F::ONE - x * x).sqrt().recip())])
    }
    /// `acos`.
    fn acos(self) -> Self {
        let x = self.re();
        Self::lift(x.acos(), &[(self, -(Self::F::ONE - x * x).sqrt().recip())])
    }
    /// `atan`.
    fn atan(self) -> Self {
        let x = self.re();
        Self::lift(x.atan(), &[(self, (Self::F::ONE + x * x).recip())])
    }
    /// `self.atan2(x)`.
    fn atan2(self, x: Self) -> Self {
        let (a, b) = (self.re(), x.re());
        let r2 = a * a + b * b;
        Self::lift(a.atan2(b), &[(self, b / r2), (x, -a / r2)])
    }
    /// `sinh`.
    fn sinh(self) -> Self {
        let x = self.re();
        Self::lift(x.sinh(), &[(self, x.cosh())])
    }
    /// `cosh`.
    fn cosh(self) -> Self {
        let x = self.re();
        Self::lift(x.cosh(), &[(self, x.sinh())])
    }
    /// `tanh`.
    fn tanh(self) -> Self {
        let x = self.re();
        let c = x.cosh();
        Self::lift(x.tanh(), &[(self, Self::F::ONE / (c * c))])
    }
    /// `asinh`.
    fn asinh(self) -> Self {
        let x = self.re();
        Self::lift(x.asinh(), &[(self, (x * x + Self::F::ONE).sqrt().recip())])
    }
    /// `acosh`.
    fn acosh(self) -> Self {
        let x = self.re();
        Self::lift(x.acosh(), &[(self, (x * x - Self::F::ONE).sqrt().recip())])
    }
    /// `atanh`.
    fn atanh(self) -> Self {
        let x = self.re();
        Self::lift(x.atanh(), &[(self, (Self::F::ONE - x * x).recip())])
    }
    /// `exp`.
    fn exp(self) -> Self {
        let y = self.re().exp();
        Self::lift(y, &[(self, y)])
    }
    /// `exp2`.
    fn exp2(self) -> Self {
        let y = self.re().exp2();
        Self::lift(y, &[(self, y * Self::F::ln2())])
    }
    /// `exp_m1`.
    fn exp_m1(self) -> Self {
        let x = self.re();
        Self::lift(x.exp_m1(), &[(self, x.exp())])
    }
    /// `ln`.
    fn ln(self) -> Self {
        let x = self.re();
        Self::lift(x.ln(), &[(self, x.recip())])
    }
    /// `ln_1p`.
    fn ln_1p(self) -> Self {
        let x = self.re();
        Self::lift(x.ln_1p(), &[(self, (Self::F::ONE + x).recip())])
    }
    /// `self.log(b)`.
    fn log(self, b: Self) -> Self {
        let (x, bb) = (self.re(), b.re());
        let lb = bb.ln();
        Self::lift(
            x.log(bb),
            &[(self, (x * lb).recip()), (b, -x.ln() / (bb * lb * lb))],
        )
    }
    /// `log2`.
    fn log2(self) -> Self {
        let x = self.re();
        Self::lift(x.log2(), &[(self, (x * Self::F::ln2()).recip())])
    }
    /// `log10`.
    fn log10(self) -> Self {
        let x = self.re();
        Self::lift(x.log10(), &[(self, (x * Self::F::ln10()).recip())])
    }
    /// `sqrt`.
    fn sqrt(self) -> Self {
        let y = self.re().sqrt();
        Self::lift(y, &[(self, (y + y).recip())])
    }
    /// `cbrt`.
    fn cbrt(self) -> Self {
        let y = self.re().cbrt();
        Self::lift(y, &[(self, (Self::F::from_i32(3) * y * y).recip())])
    }
    /// `recip`.
    fn recip(self) -> Self {
        let y = self.re().recip();
        Self::lift(y, &[(self, -y * y)])
    }
    /// `to_radians`: the partial is the constant the method multiplies by.
    fn to_radians(self) -> Self {
        Self::lift(self.re().to_radians(), &[(self, Self::F::ONE.to_radians())])
    }
    /// `to_degrees`: likewise.
    fn to_degrees(self) -> Self {
        Self::lift(self.re().to_degrees(), &[(self, Self::F::ONE.to_degrees())])
    }
    /// `powi`.
    fn powi(self, n: i32) -> Self {
        let x = self.re();
        let d = if n == 0 {
            Self::F::ZERO
        } else {
            Self::F::from_i32(n) * x.powi(n - 1)
        };
        Self::lift(x.powi(n), &[(self, d)])
    }
    /// `self.powf(y)` (the base is positive in the generated programs).
    fn powf(self, y: Self) -> Self {
        let (x, p) = (self.re(), y.re());
        let z = x.powf(p);
        Self::lift(z, &[(self, p * x.powf(p - Self::F::ONE)), (y, z * x.ln())])
    }
    /// `self.hypot(y)`.
    fn hypot(self, y: Self) -> Self {
        let (a, b) = (self.re(), y.re());
        let h = a.hypot(b);
        Self::lift(h, &[(self, a / h), (y, b / h)])
    }
    /// `self.max(y)`; a tie splits the tangent equally and a NaN argument is ignored (the rule
    /// table's conventions).
    fn max(self, y: Self) -> Self {
        let (a, b) = (self.re(), y.re());
        let half = Self::F::ONE / Self::F::from_i32(2);
        let (da, db) = if a > b {
            (Self::F::ONE, Self::F::ZERO)
        } else if a < b {
            (Self::F::ZERO, Self::F::ONE)
        } else if b.partial_cmp(&b).is_none() {
            (Self::F::ONE, Self::F::ZERO)
        } else if a.partial_cmp(&a).is_none() {
            (Self::F::ZERO, Self::F::ONE)
        } else {
            (half, half)
        };
        Self::lift(a.max(b), &[(self, da), (y, db)])
    }
    /// `self.min(y)`; a tie splits the tangent equally.
    fn min(self, y: Self) -> Self {
        let (a, b) = (self.re(), y.re());
        let half = Self::F::ONE / Self::F::from_i32(2);
        let (da, db) = if a < b {
            (Self::F::ONE, Self::F::ZERO)
        } else if a > b {
            (Self::F::ZERO, Self::F::ONE)
        } else if b.partial_cmp(&b).is_none() {
            (Self::F::ONE, Self::F::ZERO)
        } else if a.partial_cmp(&a).is_none() {
            (Self::F::ZERO, Self::F::ONE)
        } else {
            (half, half)
        };
        Self::lift(a.min(b), &[(self, da), (y, db)])
    }
    /// `self.mul_add(a, b)`, fused.
    fn mul_add(self, a: Self, b: Self) -> Self {
        let (x, y, z) = (self.re(), a.re(), b.re());
        Self::lift(x.mul_add(y, z), &[(self, y), (a, x), (b, Self::F::ONE)])
    }
    /// `self.clamp(lo, hi)` (`lo <= hi` in the generated programs), differentiated as JAX's
    /// `clip`, `min(max(x, lo), hi)`: each tie splits the tangent equally.
    fn clamp(self, lo: Self, hi: Self) -> Self {
        let (x, l, h) = (self.re(), lo.re(), hi.re());
        let half = Self::F::ONE / Self::F::from_i32(2);
        let split = |a: Self::F, b: Self::F| {
            if a > b {
                (Self::F::ONE, Self::F::ZERO)
            } else if a < b {
                (Self::F::ZERO, Self::F::ONE)
            } else {
                (half, half)
            }
        };
        let (dx, dl) = split(x, l);
        let m = if x < l { l } else { x };
        let (dh, dm) = split(m, h);
        Self::lift(x.clamp(l, h), &[(self, dm * dx), (lo, dm * dl), (hi, dh)])
    }
    /// `abs`, with `abs'(0) = 1`.
    fn abs(self) -> Self {
        let x = self.re();
        let d = if x >= Self::F::ZERO {
            Self::F::ONE
        } else {
            -Self::F::ONE
        };
        Self::lift(x.abs(), &[(self, d)])
    }
    /// `signum` (derivative 0).
    fn signum(self) -> Self {
        Self::lift(self.re().signum(), &[(self, Self::F::ZERO)])
    }
    /// `floor` (derivative 0).
    fn floor(self) -> Self {
        Self::lift(self.re().floor(), &[(self, Self::F::ZERO)])
    }
    /// `ceil` (derivative 0).
    fn ceil(self) -> Self {
        Self::lift(self.re().ceil(), &[(self, Self::F::ZERO)])
    }
    /// `round` (derivative 0).
    fn round(self) -> Self {
        Self::lift(self.re().round(), &[(self, Self::F::ZERO)])
    }
    /// `trunc` (derivative 0).
    fn trunc(self) -> Self {
        Self::lift(self.re().trunc(), &[(self, Self::F::ZERO)])
    }
    /// `fract`, `x - trunc(x)`: derivative 1.
    fn fract(self) -> Self {
        Self::lift(self.re().fract(), &[(self, Self::F::ONE)])
    }
    /// `copysign`: `x` or `-x`, whichever has the sign of `sign` (by its sign bit), with
    /// `abs'(0) = 1` as for `abs`.
    fn copysign(self, sign: Self) -> Self {
        let (x, s) = (self.re(), sign.re());
        // `|x|`'s slope times the sign `copysign` gives it.
        let slope = if x >= Self::F::ZERO {
            Self::F::ONE
        } else {
            -Self::F::ONE
        };
        let d = slope * Self::F::ONE.copysign(s);
        Self::lift(x.copysign(s), &[(self, d), (sign, Self::F::ZERO)])
    }
    /// `rem_euclid`: `a - q b` for the integer `q = (a - r) / b`.
    fn rem_euclid(self, rhs: Self) -> Self {
        let (a, b) = (self.re(), rhs.re());
        let r = a.rem_euclid(b);
        let q = ((a - r) / b).round();
        Self::lift(r, &[(self, Self::F::ONE), (rhs, -q)])
    }
}

macro_rules! scalars {
    ($f:ident, $dual:ident, $d:ident, $a:ident, $rel:expr, $abs:expr) => {
        impl Fl for $f {
            type D = $d;
            type A = $a;
            const REL: f64 = $rel;
            const ABS: f64 = $abs;
            const UNDERFLOW: f64 = $f::MIN_POSITIVE as f64;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn dual(self, eps: Self) -> $d {
                $d($dual::new(self, eps))
            }
            fn tangent(d: $d) -> Self {
                d.0.eps
            }
            fn absdual(self, eps: f64) -> $a {
                $a { re: self, eps }
            }
            fn abssum(a: $a) -> f64 {
                a.eps
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            fn ln2() -> Self {
                std::$f::consts::LN_2
            }
            fn ln10() -> Self {
                std::$f::consts::LN_10
            }
            fn sin(self) -> Self {
                $f::sin(self)
            }
            fn cos(self) -> Self {
                $f::cos(self)
            }
            fn tan(self) -> Self {
                $f::tan(self)
            }
            fn asin(self) -> Self {
                $f::asin(self)
            }
            fn acos(self) -> Self {
                $f::acos(self)
            }
            fn atan(self) -> Self {
                $f::atan(self)
            }
            fn atan2(self, x: Self) -> Self {
                $f::atan2(self, x)
            }
            fn sinh(self) -> Self {
                $f::sinh(self)
            }
            fn cosh(self) -> Self {
                $f::cosh(self)
            }
            fn tanh(self) -> Self {
                $f::tanh(self)
            }
            fn asinh(self) -> Self {
                $f::asinh(self)
            }
            fn acosh(self) -> Self {
                $f::acosh(self)
            }
            fn atanh(self) -> Self {
                $f::atanh(self)
            }
            fn exp(self) -> Self {
                $f::exp(self)
            }
            fn exp2(self) -> Self {
                $f::exp2(self)
            }
            fn exp_m1(self) -> Self {
                $f::exp_m1(self)
            }
            fn ln(self) -> Self {
                $f::ln(self)
            }
            fn ln_1p(self) -> Self {
                $f::ln_1p(self)
            }
            fn log(self, b: Self) -> Self {
                $f::log(self, b)
            }
            fn log2(self) -> Self {
                $f::log2(self)
            }
            fn log10(self) -> Self {
                $f::log10(self)
            }
            fn sqrt(self) -> Self {
                $f::sqrt(self)
            }
            fn cbrt(self) -> Self {
                $f::cbrt(self)
            }
            fn recip(self) -> Self {
                $f::recip(self)
            }
            fn to_radians(self) -> Self {
                $f::to_radians(self)
            }
            fn to_degrees(self) -> Self {
                $f::to_degrees(self)
            }
            fn powi(self, n: i32) -> Self {
                $f::powi(self, n)
            }
            fn powf(self, y: Self) -> Self {
                $f::powf(self, y)
            }
            fn hypot(self, y: Self) -> Self {
                $f::hypot(self, y)
            }
            fn max(self, y: Self) -> Self {
                $f::max(self, y)
            }
            fn min(self, y: Self) -> Self {
                $f::min(self, y)
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                $f::mul_add(self, a, b)
            }
            fn clamp(self, lo: Self, hi: Self) -> Self {
                $f::clamp(self, lo, hi)
            }
            fn abs(self) -> Self {
                $f::abs(self)
            }
            fn signum(self) -> Self {
                $f::signum(self)
            }
            fn floor(self) -> Self {
                $f::floor(self)
            }
            fn ceil(self) -> Self {
                $f::ceil(self)
            }
            fn round(self) -> Self {
                $f::round(self)
            }
            fn trunc(self) -> Self {
                $f::trunc(self)
            }
            fn fract(self) -> Self {
                $f::fract(self)
            }
            fn copysign(self, sign: Self) -> Self {
                $f::copysign(self, sign)
            }
            fn rem_euclid(self, rhs: Self) -> Self {
                $f::rem_euclid(self, rhs)
            }
            fn is_finite(self) -> bool {
                $f::is_finite(self)
            }
            fn from_i32(n: i32) -> Self {
                n as $f
            }
        }

        /// A num-dual forward-mode dual number (value and one tangent).
        #[derive(Clone, Copy, Debug)]
        pub struct $d(pub $dual);

        /// The absolute-value dual: the value, and the sum over computation paths of the
        /// products of the absolute local partials (for one input direction).
        #[derive(Clone, Copy, Debug)]
        pub struct $a {
            /// The value.
            pub re: $f,
            /// The sum of absolute path products.
            pub eps: f64,
        }

        impl Add for $d {
            type Output = Self;
            fn add(self, o: Self) -> Self {
                $d(self.0 + o.0)
            }
        }
        impl Sub for $d {
            type Output = Self;
            fn sub(self, o: Self) -> Self {
                $d(self.0 - o.0)
            }
        }
        impl Mul for $d {
            type Output = Self;
            fn mul(self, o: Self) -> Self {
                $d(self.0 * o.0)
            }
        }
        impl Neg for $d {
            type Output = Self;
            fn neg(self) -> Self {
                $d(-self.0)
            }
        }
        impl Div for $d {
            type Output = Self;
            /// num-dual divides as `a * (1 / b)`, which is not `a / b` bit for bit.
            fn div(self, o: Self) -> Self {
                let q = self.0.re / o.0.re;
                Self::lift(q, &[(self, 1.0 / o.0.re), (o, -q / o.0.re)])
            }
        }
        impl Rem for $d {
            type Output = Self;
            fn rem(self, o: Self) -> Self {
                let (a, b) = (self.0.re, o.0.re);
                Self::lift(a % b, &[(self, 1.0), (o, -((a - a % b) / b).round())])
            }
        }

        impl Add for $a {
            type Output = Self;
            fn add(self, o: Self) -> Self {
                $a {
                    re: self.re + o.re,
                    eps: self.eps + o.eps,
                }
            }
        }
        impl Sub for $a {
            type Output = Self;
            fn sub(self, o: Self) -> Self {
                $a {
                    re: self.re - o.re,
                    eps: self.eps + o.eps,
                }
            }
        }
        impl Mul for $a {
            type Output = Self;
            fn mul(self, o: Self) -> Self {
                Self::lift(self.re * o.re, &[(self, o.re), (o, self.re)])
            }
        }
        impl Neg for $a {
            type Output = Self;
            fn neg(self) -> Self {
                $a {
                    re: -self.re,
                    eps: self.eps,
                }
            }
        }
        impl Div for $a {
            type Output = Self;
            fn div(self, o: Self) -> Self {
                let q = self.re / o.re;
                Self::lift(q, &[(self, 1.0 / o.re), (o, -q / o.re)])
            }
        }
        impl Rem for $a {
            type Output = Self;
            fn rem(self, o: Self) -> Self {
                let (a, b) = (self.re, o.re);
                Self::lift(a % b, &[(self, 1.0), (o, -((a - a % b) / b).round())])
            }
        }

        scalars!(@assign $d);
        scalars!(@assign $a);

        impl Real for $d {
            type F = $f;
            fn cst(x: $f) -> Self {
                $d($dual::new(x, 0.0))
            }
            fn re(self) -> $f {
                self.0.re
            }
            fn lift(re: $f, parts: &[(Self, $f)]) -> Self {
                let mut eps = 0.0;
                for (x, d) in parts {
                    // The macro's convention (`rules::times_partial`): a zero partial
                    // contributes zero, even times an infinite or NaN tangent (`x.max(e.sqrt())`
                    // at `e = 0` where the `max` takes `x`). A NaN partial, or a non-zero one
                    // times a NaN tangent, still gives NaN, which fails every comparison.
                    if *d != 0.0 {
                        eps += d * x.0.eps;
                    }
                }
                $d($dual::new(re, eps))
            }
            // num-dual's own rules, where its value is `std`'s bit for bit.
            fn sin(self) -> Self {
                $d(self.0.sin())
            }
            fn cos(self) -> Self {
                $d(self.0.cos())
            }
            fn asin(self) -> Self {
                $d(self.0.asin())
            }
            fn acos(self) -> Self {
                $d(self.0.acos())
            }
            fn atan(self) -> Self {
                $d(self.0.atan())
            }
            fn atan2(self, x: Self) -> Self {
                $d(self.0.atan2(x.0))
            }
            fn sinh(self) -> Self {
                $d(self.0.sinh())
            }
            fn cosh(self) -> Self {
                $d(self.0.cosh())
            }
            fn asinh(self) -> Self {
                $d(self.0.asinh())
            }
            fn acosh(self) -> Self {
                $d(self.0.acosh())
            }
            fn atanh(self) -> Self {
                $d(self.0.atanh())
            }
            fn exp(self) -> Self {
                $d(self.0.exp())
            }
            fn exp2(self) -> Self {
                $d(self.0.exp2())
            }
            fn exp_m1(self) -> Self {
                $d(self.0.exp_m1())
            }
            fn ln(self) -> Self {
                $d(self.0.ln())
            }
            fn ln_1p(self) -> Self {
                $d(self.0.ln_1p())
            }
            fn log2(self) -> Self {
                $d(self.0.log2())
            }
            fn log10(self) -> Self {
                $d(self.0.log10())
            }
            fn sqrt(self) -> Self {
                $d(self.0.sqrt())
            }
            fn cbrt(self) -> Self {
                $d(self.0.cbrt())
            }
            fn recip(self) -> Self {
                $d(self.0.recip())
            }
        }

        impl Real for $a {
            type F = $f;
            fn cst(x: $f) -> Self {
                $a { re: x, eps: 0.0 }
            }
            fn re(self) -> $f {
                self.re
            }
            fn lift(re: $f, parts: &[(Self, $f)]) -> Self {
                let mut eps = 0.0;
                for (x, d) in parts {
                    // As the dual's `lift`: a zero partial contributes nothing.
                    if *d != 0.0 {
                        eps += f64::from(*d).abs() * x.eps;
                    }
                }
                $a { re, eps }
            }
        }
    };
    (@assign $t:ident) => {
        impl AddAssign for $t {
            fn add_assign(&mut self, o: Self) {
                *self = *self + o;
            }
        }
        impl SubAssign for $t {
            fn sub_assign(&mut self, o: Self) {
                *self = *self - o;
            }
        }
        impl MulAssign for $t {
            fn mul_assign(&mut self, o: Self) {
                *self = *self * o;
            }
        }
        impl DivAssign for $t {
            fn div_assign(&mut self, o: Self) {
                *self = *self / o;
            }
        }
    };
}

scalars!(f64, Dual64, D64, A64, 1e-10, 1e-13);
scalars!(f32, Dual32, D32, A32, 1e-5, 5e-5);

/// A gradient, flattened into the order of the flat inputs.
pub trait Flat<F> {
    /// Appends the components.
    fn push_to(&self, out: &mut Vec<F>);
}

macro_rules! flat_float {
    ($($f:ty),*) => {$(
        impl Flat<$f> for $f {
            fn push_to(&self, out: &mut Vec<$f>) {
                out.push(*self);
            }
        }
        impl<const N: usize> Flat<$f> for [$f; N] {
            fn push_to(&self, out: &mut Vec<$f>) {
                out.extend_from_slice(self);
            }
        }
        impl Flat<$f> for Vec<$f> {
            fn push_to(&self, out: &mut Vec<$f>) {
                out.extend_from_slice(self);
            }
        }
    )*};
}
flat_float!(f64, f32);

macro_rules! flat_tuple {
    ($($t:ident $i:tt),*) => {
        impl<F, $($t: Flat<F>),*> Flat<F> for ($($t,)*) {
            fn push_to(&self, out: &mut Vec<F>) {
                $(self.$i.push_to(out);)*
            }
        }
    };
}
flat_tuple!(A 0, B 1);
flat_tuple!(A 0, B 1, C 2);
flat_tuple!(A 0, B 1, C 2, D 3);
flat_tuple!(A 0, B 1, C 2, D 3, E 4);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, G 5);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, G 5, H 6);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, G 5, H 6, J 7);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, G 5, H 6, J 7, K 8);

/// A gradient as a flat vector.
pub fn flat<F, G: Flat<F>>(g: G) -> Vec<F> {
    let mut out = Vec::new();
    g.push_to(&mut out);
    out
}

/// `_grad` of a program, on flat inputs: the value, the gradient and the `&mut` buffers on
/// return, flattened.
pub type GradFn<F> = fn(&[F]) -> (F, Vec<F>, Vec<F>);
/// `_vjp` of a program, on flat inputs, the seed of the value and the flat seeds of the
/// `&mut` parameters: the value, the gradient and the buffers on return, flattened.
pub type VjpFn<F> = fn(&[F], F, &[F]) -> (F, Vec<F>, Vec<F>);
/// `_jvp` of a program under `#[revad::forward]`, on flat inputs `x` and flat tangents `t` (one
/// per input; those of inactive inputs are not passed): the value, its tangent, the `&mut`
/// buffers on return and their tangents, flattened.
pub type JvpFn<F> = fn(&[F], &[F]) -> (F, F, Vec<F>, Vec<F>);
/// An oracle on flat inputs of scalar `R`: the value and the `&mut` buffers on return.
pub type OracleFn<R> = fn(&[R]) -> (R, Vec<R>);

/// One generated program and how to call each of its emissions on flat inputs.
pub struct Case<F: Fl> {
    /// The name of the main function.
    pub name: &'static str,
    /// The source of the program (helpers and main function).
    pub source: &'static str,
    /// How the flat inputs `x` are passed.
    pub call: &'static str,
    /// The number of flat float inputs (the `&mut` parameters' values on entry included).
    pub inputs: usize,
    /// The flat indices of the active inputs, in the order of the gradient.
    pub active: &'static [usize],
    /// The points at which to check.
    pub points: &'static [&'static [F]],
    /// The output seed for `_vjp`.
    pub seed: F,
    /// The function returns `()` (its results are its `&mut` parameters; no `_grad`).
    pub unit: bool,
    /// The seeds of the `&mut` parameters' values on return for `_vjp`, flattened.
    pub out_seeds: &'static [F],
    /// The plain function: its value (0 for `()`) and the `&mut` buffers on return.
    pub plain: fn(&[F]) -> (F, Vec<F>),
    /// `_grad`, flattened, if the function returns a float.
    pub grad: Option<GradFn<F>>,
    /// `_vjp`, flattened.
    pub vjp: VjpFn<F>,
    /// `_grad` of the copy under `#[revad::reverse(cps)]`, flattened, if it has one.
    pub cps_grad: Option<GradFn<F>>,
    /// `_vjp` of the copy under `#[revad::reverse(cps)]`, flattened, if the program has one.
    pub cps_vjp: Option<VjpFn<F>>,
    /// `_jvp` of the program under `#[revad::forward]`, if it is under forward mode.
    pub jvp: Option<JvpFn<F>>,
    /// The oracle on num-dual numbers: the value and the buffers on return.
    pub dual: OracleFn<F::D>,
    /// The oracle on absolute-value duals.
    pub abs: OracleFn<F::A>,
}

/// `|got - want| <= tol`, false for NaN.
fn within(got: f64, want: f64, tol: f64) -> bool {
    matches!(
        (got - want).abs().partial_cmp(&tol),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    )
}

/// The gradients that `_grad` and `_vjp` of one backend return at one point.
struct Gradients<F> {
    grad: Vec<F>,
    vjp: Vec<F>,
}

/// What the oracle says about one active input `j`: the derivative of the value and of each
/// flat output of the `&mut` parameters, with their absolute-value duals' sums.
struct Want {
    j: usize,
    value: (f64, f64),
    outs: Vec<(f64, f64)>,
}

impl Want {
    /// The derivative of `s · value + Σ so_k · out_k` and its absolute-value sum.
    fn seeded<F: Fl>(&self, s: f64, so: &[F]) -> (f64, f64) {
        let mut w = s * self.value.0;
        let mut a = s.abs() * self.value.1;
        for (&(d, ad), &sk) in self.outs.iter().zip(so) {
            let sk = sk.to_f64();
            w += sk * d;
            a += sk.abs() * ad;
        }
        (w, a)
    }
}

/// The buffers on return must be the function's bit for bit.
fn same_buffers<F: Fl>(what: &str, got: &[F], want: &[F]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what} leaves {} values in the &mut parameters, the function {}",
            got.len(),
            want.len()
        ));
    }
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        if g.bits() != w.bits() {
            return Err(format!(
                "{what} leaves {g:e} in flat &mut output {k}, the function {w:e}"
            ));
        }
    }
    Ok(())
}

/// Checks one backend's `_grad` and `_vjp` at `x` against the function's value `primal` and
/// buffers `bufs`, and the oracle `want`. `what` names the backend's functions in a report.
#[allow(clippy::too_many_arguments)]
fn check_backend<F: Fl>(
    c: &Case<F>,
    x: &[F],
    primal: F,
    bufs: &[F],
    want: &[Want],
    what: &str,
    grad_fn: Option<GradFn<F>>,
    vjp_fn: VjpFn<F>,
) -> Result<Gradients<F>, String> {
    let mut grad = Vec::new();
    if let Some(grad_fn) = grad_fn {
        let (value, g, b) = grad_fn(x);
        grad = g;
        if value.bits() != primal.bits() {
            return Err(format!(
                "{what}_grad returns the value {value:e}, the function {primal:e}"
            ));
        }
        same_buffers(&format!("{what}_grad"), &b, bufs)?;
        if grad.len() != c.active.len() {
            return Err(format!(
                "{what}_grad returns {} gradient components, expected {}",
                grad.len(),
                c.active.len()
            ));
        }
        let zeros = vec![F::ZERO; c.out_seeds.len()];
        for (m, wa) in want.iter().enumerate() {
            let (w, a) = wa.seeded(1.0, &zeros);
            let got = grad[m].to_f64();
            let tol = F::REL * w.abs() + F::ABS * a + F::UNDERFLOW;
            if !within(got, w, tol) {
                return Err(format!(
                    "d/dx[{j}]: {what}_grad gives {got:e}, the oracle {w:e} (difference {:e}, \
                     tolerance {tol:e}, absolute-value dual {a:e})",
                    (got - w).abs(),
                    j = wa.j
                ));
            }
        }
    }
    let (value, vjp, b) = vjp_fn(x, c.seed, c.out_seeds);
    if !c.unit && value.bits() != primal.bits() {
        return Err(format!(
            "{what}_vjp returns the value {value:e}, the function {primal:e}"
        ));
    }
    same_buffers(&format!("{what}_vjp"), &b, bufs)?;
    if vjp.len() != c.active.len() {
        return Err(format!(
            "{what}_vjp returns {} gradient components, expected {}",
            vjp.len(),
            c.active.len()
        ));
    }
    let s = if c.unit { 0.0 } else { c.seed.to_f64() };
    for (m, wa) in want.iter().enumerate() {
        let (w, a) = wa.seeded(s, c.out_seeds);
        let got = vjp[m].to_f64();
        let tol = F::REL * w.abs() + F::ABS * a + F::UNDERFLOW;
        if !within(got, w, tol) {
            return Err(format!(
                "d/dx[{j}]: {what}_vjp(.., {s}, {so:?}) gives {got:e}, the oracle {w:e} \
                 (difference {:e}, tolerance {tol:e})",
                (got - w).abs(),
                j = wa.j,
                so = c.out_seeds,
            ));
        }
    }
    Ok(Gradients { grad, vjp })
}

/// The same float, bit for bit, except that `0.0` and `-0.0` count as equal (the backends
/// may add a zero contribution to an adjoint in a different order, or not at all).
fn same_bits<F: Fl>(a: F, b: F) -> bool {
    a.bits() == b.bits() || (a.to_f64() == 0.0 && b.to_f64() == 0.0)
}

/// Requires the CPS backend's gradients to be the tape backend's bit for bit (up to the sign
/// of a zero), or to rounding where the tape's `_vjp` fused its last loop's reverse sweep
/// into the forward one (the iterations add into an adjoint in the other order): within
/// `ABS` per unit of the absolute-value dual, which bounds the terms summed.
fn compare_backends<F: Fl>(
    c: &Case<F>,
    want: &[Want],
    tape: &Gradients<F>,
    cps: &Gradients<F>,
) -> Result<(), String> {
    let zeros = vec![F::ZERO; c.out_seeds.len()];
    let s = if c.unit { 0.0 } else { c.seed.to_f64() };
    for (kind, t, k) in [
        ("grad", &tape.grad, &cps.grad),
        ("vjp", &tape.vjp, &cps.vjp),
    ] {
        for (m, (&t, &k)) in t.iter().zip(k).enumerate() {
            let (_, a) = match kind {
                "grad" => want[m].seeded(1.0, &zeros),
                _ => want[m].seeded(s, c.out_seeds),
            };
            let tol = F::ABS * a + F::UNDERFLOW;
            if !same_bits(t, k) && !within(k.to_f64(), t.to_f64(), tol) {
                return Err(format!(
                    "d/dx[{j}]: programs_cps::{name}_{kind} gives {k:e} ({kb:#x}), the tape \
                     backend's {name}_{kind} {t:e} ({tb:#x}): the backends differ by {d:e} \
                     (tolerance {tol:e})",
                    j = c.active[m],
                    name = c.name,
                    kb = k.bits(),
                    tb = t.bits(),
                    d = (k.to_f64() - t.to_f64()).abs(),
                ));
            }
        }
    }
    Ok(())
}

/// A pseudo-random tangent for each of the `n` inputs, from the program's name and the
/// point: multiples of 1/64 in [-1, 1], exact in `f32` and `f64`.
fn tangent<F: Fl>(name: &str, point: usize, n: usize) -> Vec<F> {
    let mut state = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }) ^ (point as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            F::from_i32((state >> 57) as i32 - 64) / F::from_i32(64)
        })
        .collect()
}

/// Checks `_jvp` along the tangent `t` against the reverse mode: the value and the buffers
/// on return must be the function's bit for bit, and the identities `Σ gradient·t = ṙ`
/// (`_grad`, when the function returns a float) and `Σ vjp·t = s·ṙ + Σ s_k·ḃ_k` (`_vjp`
/// with the case's seeds) must hold, to twice the oracle's tolerance summed over the inputs
/// (`REL · Σ |oracle·t| + ABS · Σ |t|·absdual`).
fn check_jvp<F: Fl>(
    c: &Case<F>,
    x: &[F],
    t: &[F],
    (primal, bufs): (F, &[F]),
    want: &[Want],
    tape: &Gradients<F>,
    jvp: JvpFn<F>,
) -> Result<(), String> {
    let (value, dv, b, db) = jvp(x, t);
    if !c.unit && value.bits() != primal.bits() {
        return Err(format!(
            "{}_jvp returns the value {value:e}, the function {primal:e}",
            c.name
        ));
    }
    same_buffers(&format!("{}_jvp", c.name), &b, bufs)?;
    if db.len() != bufs.len() {
        return Err(format!(
            "{}_jvp returns {} tangents of the &mut parameters, expected {}",
            c.name,
            db.len(),
            bufs.len()
        ));
    }
    let (dv, s) = (dv.to_f64(), if c.unit { 0.0 } else { c.seed.to_f64() });
    let zeros = vec![F::ZERO; c.out_seeds.len()];
    let checks = [
        ("grad", &tape.grad, 1.0, &zeros[..]),
        ("vjp", &tape.vjp, s, c.out_seeds),
    ];
    for (kind, g, s, so) in checks {
        if g.is_empty() && !c.active.is_empty() {
            continue; // no `_grad` for a function returning `()`
        }
        let lhs: f64 = g
            .iter()
            .zip(c.active)
            .map(|(g, &j)| g.to_f64() * t[j].to_f64())
            .sum();
        let rhs = s * dv
            + so.iter()
                .zip(&db)
                .map(|(sk, d)| sk.to_f64() * d.to_f64())
                .sum::<f64>();
        let (mut mag, mut abs) = (0.0, 0.0);
        for wa in want {
            let (w, a) = wa.seeded(s, so);
            let tj = t[wa.j].to_f64().abs();
            mag += (w * tj).abs();
            abs += a * tj;
        }
        let tol = 2.0 * (F::REL * mag + F::ABS * abs) + F::UNDERFLOW;
        if !within(lhs, rhs, tol) {
            return Err(format!(
                "{name}_jvp along t = {t:?} gives {dv:e} (&mut tangents {db:?}): with the seeds                  of {name}_{kind} ({s}, {so:?}) that is {rhs:e}, but Σ {kind}·t = {lhs:e}                  (difference {:e}, tolerance {tol:e})",
                (lhs - rhs).abs(),
                name = c.name,
            ));
        }
    }
    Ok(())
}

/// Checks one program at each of its points: the tape backend's gradients against the
/// oracle, and, when the program has a CPS copy, the CPS backend's against the oracle (with
/// the same tolerance) and against the tape backend's (bit for bit, up to the sign of a zero,
/// or to rounding: see `compare_backends`).
/// For `&mut` parameters, the buffers on return must be the function's bit for bit, and the
/// gradient (their adjoints on entry included) must match the oracle's derivative of
/// `seed · value + Σ seed_k · out_k` for the case's seeds on the outputs.
pub fn check<F: Fl>(c: &Case<F>, seed: u64) -> Result<(), String> {
    for (point, &x) in c.points.iter().enumerate() {
        let fail = |what: String| {
            format!(
                "{} (generator seed {seed:#x}) at x = {x:?} (`{}`, f{}):\n  {what}\n{}",
                c.name,
                c.call,
                8 * std::mem::size_of::<F>(),
                c.source
            )
        };
        let (primal, bufs) = (c.plain)(x);
        for v in std::iter::once(&primal).chain(&bufs) {
            if !v.is_finite() || v.to_f64().abs() > 1e12 {
                return Err(fail(format!(
                    "a value or &mut output is {v:e}: the generator made a program that is \
                     not bounded (a generator bug)"
                )));
            }
        }
        // The oracle, one forward pass per active input.
        let mut want = Vec::new();
        for &j in c.active {
            let seedv = |i: usize| if i == j { F::ONE } else { F::ZERO };
            let xd: Vec<F::D> = x
                .iter()
                .enumerate()
                .map(|(i, &xi)| xi.dual(seedv(i)))
                .collect();
            let (o, ob) = (c.dual)(&xd);
            let same = o.re().bits() == primal.bits()
                && ob.len() == bufs.len()
                && ob.iter().zip(&bufs).all(|(d, b)| d.re().bits() == b.bits());
            if !same {
                return Err(fail(format!(
                    "the num-dual oracle computes the value {:e} and buffers {:?}, the \
                     function {primal:e} and {bufs:?} (a harness bug)",
                    o.re(),
                    ob.iter().map(|d| d.re()).collect::<Vec<_>>()
                )));
            }
            let xa: Vec<F::A> = x
                .iter()
                .enumerate()
                .map(|(i, &xi)| xi.absdual(if i == j { 1.0 } else { 0.0 }))
                .collect();
            let (a, ab) = (c.abs)(&xa);
            want.push(Want {
                j,
                value: (F::tangent(o).to_f64(), F::abssum(a)),
                outs: ob
                    .into_iter()
                    .zip(ab)
                    .map(|(d, a)| (F::tangent(d).to_f64(), F::abssum(a)))
                    .collect(),
            });
        }
        let tape =
            check_backend(c, x, primal, &bufs, &want, c.name, c.grad, c.vjp).map_err(fail)?;
        if let Some(jvp) = c.jvp {
            let t = tangent::<F>(c.name, point, c.inputs);
            check_jvp(c, x, &t, (primal, &bufs), &want, &tape, jvp).map_err(fail)?;
        }
        if let Some(vjp) = c.cps_vjp {
            let what = format!("programs_cps::{}", c.name);
            let cps =
                check_backend(c, x, primal, &bufs, &want, &what, c.cps_grad, vjp).map_err(fail)?;
            compare_backends(c, &want, &tape, &cps).map_err(fail)?;
        }
    }
    Ok(())
}

/// Checks every case; panics with the report of each failure.
pub fn run(seed: u64, f64s: &[Case<f64>], f32s: &[Case<f32>]) {
    let mut failures = Vec::new();
    let results = f64s
        .iter()
        .map(|c| check(c, seed))
        .chain(f32s.iter().map(|c| check(c, seed)));
    for r in results {
        match r {
            Ok(()) => {}
            Err(e) => failures.push(e),
        }
    }
    let total = f64s.len() + f32s.len();
    let cps = f64s.iter().filter(|c| c.cps_vjp.is_some()).count()
        + f32s.iter().filter(|c| c.cps_vjp.is_some()).count();
    let muts = f64s.iter().filter(|c| !c.out_seeds.is_empty()).count()
        + f32s.iter().filter(|c| !c.out_seeds.is_empty()).count();
    let units = f64s.iter().filter(|c| c.unit).count() + f32s.iter().filter(|c| c.unit).count();
    let jvps = f64s.iter().filter(|c| c.jvp.is_some()).count()
        + f32s.iter().filter(|c| c.jvp.is_some()).count();
    println!(
        "{total} programs, {cps} of them also under #[revad::reverse(cps)], {jvps} also under \
         #[revad::forward] (jvp·t = Σ grad·t), {muts} with &mut parameters ({units} returning ())"
    );
    assert!(
        failures.is_empty(),
        "{} of {total} programs ({cps} also under #[revad::reverse(cps)]) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
