//! Bit-for-bit comparison of floats and of the shapes `f_grad` and `f_vjp` return (scalars,
//! arrays, slices, `Vec`s and tuples of them), for the integration tests.
//!
//! `assert_eq!` is not enough to check that a gradient function returns the primal's value:
//! `0.0 == -0.0`, and `NaN != NaN`. The value of `f_grad`/`f_vjp` is computed by the same
//! operations as `f` and must have the same bits; a caller (`#[reverse] fn f_via(..) { f(..) }`)
//! goes through the split companions of `f`, a second code path that must give the same bits
//! again for the value, and the same gradient: bit for bit, or to rounding where `f_vjp`
//! fused its last loop's reverse sweep into the forward one (the companions cannot: their
//! forward part runs before the seed is known), which adds the iterations' contributions to
//! an adjoint first to last instead of last to first.
//!
//! Included with `#[path]` (it is not a test target of its own).

#![allow(dead_code, reason = "each includer uses a part")]

use std::fmt::Debug;

/// A value made of floats, compared by the bit patterns of its floats in order.
pub trait Bits: Debug {
    /// Appends the bit pattern of every float in `self`, in order.
    fn push_bits(&self, out: &mut Vec<u64>);

    /// Appends every float in `self`, in order, as an `f64` with its type's unit roundoff.
    fn push_floats(&self, out: &mut Vec<(f64, f64)>);

    /// Every float in `self`, in order, with its unit roundoff.
    fn floats(&self) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        self.push_floats(&mut out);
        out
    }

    /// The bit patterns of every float in `self`, in order.
    fn bits(&self) -> Vec<u64> {
        let mut out = Vec::new();
        self.push_bits(&mut out);
        out
    }
}

impl Bits for f64 {
    fn push_bits(&self, out: &mut Vec<u64>) {
        out.push(self.to_bits());
    }

    fn push_floats(&self, out: &mut Vec<(f64, f64)>) {
        out.push((*self, f64::EPSILON / 2.0));
    }
}

impl Bits for f32 {
    fn push_bits(&self, out: &mut Vec<u64>) {
        out.push(u64::from(self.to_bits()));
    }

    fn push_floats(&self, out: &mut Vec<(f64, f64)>) {
        out.push((f64::from(*self), f64::from(f32::EPSILON) / 2.0));
    }
}

impl<T: Bits + ?Sized> Bits for &T {
    fn push_bits(&self, out: &mut Vec<u64>) {
        (**self).push_bits(out);
    }

    fn push_floats(&self, out: &mut Vec<(f64, f64)>) {
        (**self).push_floats(out);
    }
}

impl<T: Bits> Bits for [T] {
    fn push_bits(&self, out: &mut Vec<u64>) {
        for x in self {
            x.push_bits(out);
        }
    }

    fn push_floats(&self, out: &mut Vec<(f64, f64)>) {
        for x in self {
            x.push_floats(out);
        }
    }
}

impl<T: Bits, const N: usize> Bits for [T; N] {
    fn push_bits(&self, out: &mut Vec<u64>) {
        self[..].push_bits(out);
    }

    fn push_floats(&self, out: &mut Vec<(f64, f64)>) {
        self[..].push_floats(out);
    }
}

impl<T: Bits> Bits for Vec<T> {
    fn push_bits(&self, out: &mut Vec<u64>) {
        self[..].push_bits(out);
    }

    fn push_floats(&self, out: &mut Vec<(f64, f64)>) {
        self[..].push_floats(out);
    }
}

macro_rules! tuple_bits {
    ($($t:ident . $i:tt),+) => {
        impl<$($t: Bits),+> Bits for ($($t,)+) {
            fn push_bits(&self, out: &mut Vec<u64>) {
                $(self.$i.push_bits(out);)+
            }

            fn push_floats(&self, out: &mut Vec<(f64, f64)>) {
                $(self.$i.push_floats(out);)+
            }
        }
    };
}

tuple_bits!(A.0);
tuple_bits!(A.0, B.1);
tuple_bits!(A.0, B.1, C.2);
tuple_bits!(A.0, B.1, C.2, D.3);

/// Panics unless `left` and `right` hold the same floats bit for bit (so `0.0` and `-0.0`
/// differ, and a NaN equals the same NaN).
#[track_caller]
pub fn assert_same_bits<T: Bits>(left: T, right: T) {
    compare(&left, &right, "", None);
}

/// [`assert_same_bits`], with `at` (the inputs, say) in the failure message.
#[track_caller]
pub fn assert_same_bits_at<T: Bits>(left: T, right: T, at: impl Debug) {
    compare(&left, &right, "", Some(&at));
}

#[track_caller]
fn compare<T: Bits>(left: &T, right: &T, what: &str, at: Option<&dyn Debug>) {
    let (l, r) = (left.bits(), right.bits());
    if l != r {
        let at = at.map_or(String::new(), |at| format!(" at {at:?}"));
        let first = l.iter().zip(&r).position(|(a, b)| a != b);
        panic!(
            "not bit-identical{what}{at}\n  left: {left:?}\n right: {right:?}\n  left bits: {l:x?}\n right bits: {r:x?}\n first difference at float {first:?} (lengths {} and {})",
            l.len(),
            r.len(),
        );
    }
}

/// Panics unless `left` and `right` hold the same floats to rounding: each pair has the same
/// bits, or differs by at most 1024 units of roundoff of the larger of the pair and the
/// largest float of both (the roundoff of summing the same terms in another order).
#[track_caller]
pub fn assert_same_to_rounding<T: Bits>(left: &T, right: &T, what: &str, at: Option<&dyn Debug>) {
    let (l, r) = (left.floats(), right.floats());
    let scale = l
        .iter()
        .chain(&r)
        .map(|(x, _)| x.abs())
        .filter(|x| x.is_finite())
        .fold(0.0, f64::max);
    let close = l.len() == r.len()
        && l.iter().zip(&r).all(|(&(a, u), &(b, _))| {
            a.to_bits() == b.to_bits()
                || (a.is_finite()
                    && b.is_finite()
                    && (a - b).abs() <= 1024.0 * u * a.abs().max(b.abs()).max(scale))
        });
    if !close {
        compare(left, right, what, at);
    }
}

/// Panics unless two results of gradient functions (`(value, gradient)`) have the same value
/// bit for bit and the same gradient to rounding (see [`assert_same_to_rounding`]): two
/// backends, or two code paths, where one may have fused a loop's reverse sweep.
#[track_caller]
pub fn assert_agree<V: Bits, G: Bits>(left: &(V, G), right: &(V, G)) {
    compare(&left.0, &right.0, " (the values)", None);
    assert_same_to_rounding(&left.1, &right.1, " (the gradients, to rounding)", None);
}

/// Checks the result `ours` of `f_grad` or `f_vjp` against the primal `f` called on the
/// same inputs (the value, bit for bit) and against `via`, the result of the same gradient
/// through a caller `f_via` (the value bit for bit, the gradient to rounding: see the module's
/// documentation); returns `ours`.
///
/// ```ignore
/// let (v, (dx, dy)) = checked(f(x, y), f_grad(x, y), f_via_grad(x, y));
/// ```
#[track_caller]
pub fn checked<V: Bits, G: Bits>(primal: V, ours: (V, G), via: (V, G)) -> (V, G) {
    check(&primal, &ours, &via, None);
    ours
}

/// [`checked`], with `at` (the inputs, say) in the failure message.
#[track_caller]
pub fn checked_at<V: Bits, G: Bits>(
    primal: V,
    ours: (V, G),
    via: (V, G),
    at: impl Debug,
) -> (V, G) {
    check(&primal, &ours, &via, Some(&at));
    ours
}

#[track_caller]
fn check<V: Bits, G: Bits>(primal: &V, ours: &(V, G), via: &(V, G), at: Option<&dyn Debug>) {
    compare(
        &ours.0,
        primal,
        " (the value of the gradient function against the primal)",
        at,
    );
    compare(
        &ours.0,
        &via.0,
        " (the value against that through a caller)",
        at,
    );
    assert_same_to_rounding(
        &ours.1,
        &via.1,
        " (the gradient against that through a caller, to rounding)",
        at,
    );
}
