//! Gradient control: [`stop_gradient`], a value through which no derivative flows.
//!
//! At run time it is the identity on the value: `stop_gradient(x) == x` bit for bit. What it
//! stops is the derivative:
//!
//! - in code that `#[revad::reverse]` or `#[revad::forward]` differentiates, the macro
//!   recognises the call by its path (`revad::stop_gradient(..)`) and gives its result no
//!   adjoint and no tangent;
//! - on dual numbers ([`Dual`], [`DualVec`], nested or not), which generic code and the generic
//!   copy of `#[reverse(hessian)]` run on, this function sets every tangent to zero, at every
//!   nesting level, so that it stops forward-mode derivatives too.
//!
//! ```
//! use revad_runtime::{gradient::stop_gradient, Dual};
//!
//! // d/dx [x · sg(x)] at 3 = sg(x) = 3, not 2x = 6.
//! let x = Dual::variable(3.0_f64);
//! let y = x * stop_gradient(x);
//! assert_eq!((y.re, y.eps), (9.0, 3.0));
//! ```

use crate::{Dual, DualVec, Float};

/// A value whose derivative [`stop_gradient`] can drop: the floats, the dual numbers, and
/// fixed-size arrays of them. Implemented by every [`Float`].
#[diagnostic::on_unimplemented(
    message = "`revad::stop_gradient` takes a float or a fixed-size array of floats, not `{Self}`",
    label = "not a float or an array `[f64; N]` owned by value",
    note = "for a slice or a `Vec`, stop the gradient of each element, or copy it into an array"
)]
pub trait StopGradient: Copy {
    /// The same value, with no derivative: every tangent of a dual number zero.
    fn stop_gradient(self) -> Self;
}

impl StopGradient for f64 {
    #[inline]
    fn stop_gradient(self) -> Self {
        self
    }
}

impl StopGradient for f32 {
    #[inline]
    fn stop_gradient(self) -> Self {
        self
    }
}

impl<T: Float> StopGradient for Dual<T> {
    #[inline]
    fn stop_gradient(self) -> Self {
        Dual {
            re: self.re.stop_gradient(),
            eps: T::ZERO,
        }
    }
}

impl<T: Float, const N: usize> StopGradient for DualVec<T, N> {
    #[inline]
    fn stop_gradient(self) -> Self {
        DualVec {
            re: self.re.stop_gradient(),
            eps: [T::ZERO; N],
        }
    }
}

impl<T: StopGradient, const N: usize> StopGradient for [T; N] {
    #[inline]
    fn stop_gradient(self) -> Self {
        self.map(T::stop_gradient)
    }
}

/// `x`, through which no derivative flows (JAX's `stop_gradient`).
///
/// The value is `x`, bit for bit; its derivative is zero. In a function differentiated by
/// `#[revad::reverse]` (every backend) or `#[revad::forward]`, write it with its path,
/// `revad::stop_gradient(x)` (or under the name your manifest gives the crate): the macro
/// recognises it by that path. It takes a float or a fixed-size array of floats. On dual
/// numbers it zeroes every tangent, nested ones included.
///
/// ```
/// use revad_runtime::{gradient::stop_gradient, DualVec};
///
/// let x = DualVec::<f64, 2>::variable(2.0, 0);
/// let y = DualVec::<f64, 2>::variable(5.0, 1);
/// // ∇ [x · sg(y)] = (y, 0).
/// let z = x * stop_gradient(y);
/// assert_eq!((z.re, z.eps), (10.0, [5.0, 0.0]));
/// ```
#[inline]
pub fn stop_gradient<T: StopGradient>(x: T) -> T {
    x.stop_gradient()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_tangents_are_all_zero() {
        let x = Dual::new(Dual::new(2.0_f64, 1.0), Dual::new(1.0, 0.5));
        let s = stop_gradient(x);
        assert_eq!(
            (s.re.re, s.re.eps, s.eps.re, s.eps.eps),
            (2.0, 0.0, 0.0, 0.0)
        );
        let a = stop_gradient([x, x]);
        assert!(a
            .iter()
            .all(|d| d.re.re == 2.0 && d.re.eps == 0.0 && d.eps.eps == 0.0));
        assert_eq!(stop_gradient(-0.0_f32).to_bits(), (-0.0_f32).to_bits());
    }
}
