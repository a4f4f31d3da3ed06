//! [`Lanes`]: `N` tangents of one value, the tangent type of `NAME_jvp_vec` (forward mode with
//! `N` directions at once, `#[revad::forward(vector)]`: the primal once, the tangent code on
//! `N` lanes).
//!
//! ```
//! use revad_runtime::Lanes;
//!
//! let d = Lanes([1.0, 0.0, 2.0]);
//! assert_eq!((d * 3.0 + d).0, [4.0, 0.0, 8.0]);
//! assert_eq!((-d / 2.0).0, [-0.5, -0.0, -1.0]);
//! ```

use core::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use crate::inout::InOut;
use crate::Float;

/// `N` tangents of one float: lane `k` is the derivative along the `k`-th direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes<T, const N: usize>(pub [T; N]);

impl<T: Float, const N: usize> Default for Lanes<T, N> {
    #[inline]
    fn default() -> Self {
        Lanes([T::ZERO; N])
    }
}

impl<T: Float, const N: usize> Lanes<T, N> {
    /// The same tangents in another float type (`as` between `f32` and `f64`).
    #[inline]
    pub fn cast<U: Float>(self) -> Lanes<U, N> {
        Lanes(self.0.map(|t| U::from_f64(t.to_f64())))
    }
}

impl<T: Float, const N: usize> Add for Lanes<T, N> {
    type Output = Self;
    #[inline]
    fn add(self, other: Self) -> Self {
        Lanes(core::array::from_fn(|k| self.0[k] + other.0[k]))
    }
}

impl<T: Float, const N: usize> Sub for Lanes<T, N> {
    type Output = Self;
    #[inline]
    fn sub(self, other: Self) -> Self {
        Lanes(core::array::from_fn(|k| self.0[k] - other.0[k]))
    }
}

impl<T: Float, const N: usize> Neg for Lanes<T, N> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Lanes(self.0.map(|t| -t))
    }
}

impl<T: Float, const N: usize> Mul<T> for Lanes<T, N> {
    type Output = Self;
    #[inline]
    fn mul(self, a: T) -> Self {
        Lanes(self.0.map(|t| t * a))
    }
}

impl<T: Float, const N: usize> Div<T> for Lanes<T, N> {
    type Output = Self;
    #[inline]
    fn div(self, a: T) -> Self {
        Lanes(self.0.map(|t| t / a))
    }
}

impl<T: Float, const N: usize> AddAssign for Lanes<T, N> {
    #[inline]
    fn add_assign(&mut self, other: Self) {
        *self = *self + other;
    }
}

impl<T: Float, const N: usize> SubAssign for Lanes<T, N> {
    #[inline]
    fn sub_assign(&mut self, other: Self) {
        *self = *self - other;
    }
}

/// Zero tangents on `N` lanes in the shape of a float array: `[Lanes; K]` for `[T; K]`,
/// `Vec<Lanes>` for a slice or a `Vec`.
pub trait LanesLike<const N: usize> {
    /// The tangents' type.
    type Out;
    /// Zero tangents of this shape.
    fn lanes_zero(&self) -> Self::Out;
}

impl<T: Float, const N: usize, const K: usize> LanesLike<N> for [T; K] {
    type Out = [Lanes<T, N>; K];
    fn lanes_zero(&self) -> Self::Out {
        [Lanes::default(); K]
    }
}

impl<T: Float, const N: usize> LanesLike<N> for [T] {
    type Out = Vec<Lanes<T, N>>;
    fn lanes_zero(&self) -> Self::Out {
        vec![Lanes::default(); self.len()]
    }
}

impl<T: Float, const N: usize> LanesLike<N> for Vec<T> {
    type Out = Vec<Lanes<T, N>>;
    fn lanes_zero(&self) -> Self::Out {
        vec![Lanes::default(); self.len()]
    }
}

impl<V: LanesLike<N> + ?Sized, const N: usize> LanesLike<N> for &V {
    type Out = V::Out;
    fn lanes_zero(&self) -> Self::Out {
        (**self).lanes_zero()
    }
}

/// Zero tangents on `N` lanes in the shape of `value` (see [`LanesLike`]).
#[inline]
pub fn lanes_zero<const N: usize, V: LanesLike<N> + ?Sized>(value: &V) -> V::Out {
    value.lanes_zero()
}

impl<T: Float, const N: usize> InOut for Lanes<T, N> {
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

impl<T: Float, const N: usize, const K: usize> InOut for [Lanes<T, N>; K] {
    type Owned = Self;
    fn entry(&self) -> Self {
        *self
    }
    fn write_back(&mut self, value: &Self) {
        *self = *value;
    }
}

/// # Panics
///
/// In `write_back`, if `value` has another length.
impl<T: Float, const N: usize> InOut for [Lanes<T, N>] {
    type Owned = Vec<Lanes<T, N>>;
    fn entry(&self) -> Self::Owned {
        self.to_vec()
    }
    fn write_back(&mut self, value: &Self::Owned) {
        self.copy_from_slice(value);
    }
}

impl<T: Float, const N: usize> InOut for Vec<Lanes<T, N>> {
    type Owned = Vec<Lanes<T, N>>;
    fn entry(&self) -> Self::Owned {
        self.clone()
    }
    fn write_back(&mut self, value: &Self::Owned) {
        self.clone_from(value);
    }
}
