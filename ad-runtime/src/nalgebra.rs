//! `nalgebra`'s fixed-size matrices and vectors as active values (feature `nalgebra`).
//!
//! - [`Adjoint`] and [`Accumulate`] for `SMatrix<T, R, C>` (`Vector3<f64>`, `Matrix3<f32>`,
//!   ..): a parameter of such a type is an aggregate whose gradient is a matrix of the same
//!   type, zeros of the same shape to start.
//! - The derivative rules of their arithmetic, for the companions in [`crate::linalg`]: `+`,
//!   `-` (binary and unary) between matrices of one shape, `*` between matrices of matching
//!   shapes and between a matrix and a scalar, `/` by a scalar, `.dot`, `.cross` (3-vectors),
//!   `.norm`, `.norm_squared` and `.transpose`.
//!
//! For `T` = `f64` and `f32`: the two precisions `revad::Float` has.

use ::nalgebra::SMatrix;

use crate::linalg::{op, AdjSink, Arg, Binary, Unary};
use crate::{Accumulate, Adjoint};

macro_rules! matrices_of {
    ($t:ty) => {
        impl<const R: usize, const C: usize> Adjoint for SMatrix<$t, R, C> {
            type Adj = SMatrix<$t, R, C>;
            #[inline]
            fn zero_adjoint(&self) -> Self::Adj {
                SMatrix::zeros()
            }
            #[inline]
            fn accumulate(acc: &mut Self::Adj, other: &Self::Adj) {
                *acc += other;
            }
        }

        impl<const R: usize, const C: usize> Accumulate for SMatrix<$t, R, C> {
            #[inline]
            fn accumulate(&mut self, other: &Self) {
                *self += other;
            }
        }

        impl<const R: usize, const C: usize> Arg for SMatrix<$t, R, C> {
            type Value = Self;
            #[inline]
            fn value(self) -> Self {
                self
            }
        }

        impl<const R: usize, const C: usize> Arg for &SMatrix<$t, R, C> {
            type Value = SMatrix<$t, R, C>;
            #[inline]
            fn value(self) -> SMatrix<$t, R, C> {
                *self
            }
        }

        impl<const R: usize, const C: usize> AdjSink<SMatrix<$t, R, C>> for &mut SMatrix<$t, R, C> {
            #[inline]
            fn add_adjoint(&mut self, adjoint: SMatrix<$t, R, C>) {
                **self += adjoint;
            }
        }

        // c = a + b: a̅ += c̅, b̅ += c̅.
        impl<const R: usize, const C: usize> Binary<op::Add, SMatrix<$t, R, C>>
            for SMatrix<$t, R, C>
        {
            type Output = Self;
            #[inline]
            fn value(self, b: Self) -> Self {
                self + b
            }
            #[inline]
            fn adjoints(self, _: Self, seed: Self) -> (Self, Self) {
                (seed, seed)
            }
        }

        // c = a - b: a̅ += c̅, b̅ -= c̅.
        impl<const R: usize, const C: usize> Binary<op::Sub, SMatrix<$t, R, C>>
            for SMatrix<$t, R, C>
        {
            type Output = Self;
            #[inline]
            fn value(self, b: Self) -> Self {
                self - b
            }
            #[inline]
            fn adjoints(self, _: Self, seed: Self) -> (Self, Self) {
                (seed, -seed)
            }
        }

        // C = A B (A is R×K, B is K×C): A̅ += C̅ Bᵀ, B̅ += Aᵀ C̅ (Giles 2008, sec. 3.2).
        impl<const R: usize, const K: usize, const C: usize> Binary<op::Mul, SMatrix<$t, K, C>>
            for SMatrix<$t, R, K>
        {
            type Output = SMatrix<$t, R, C>;
            #[inline]
            fn value(self, b: SMatrix<$t, K, C>) -> SMatrix<$t, R, C> {
                self * b
            }
            #[inline]
            fn adjoints(
                self,
                b: SMatrix<$t, K, C>,
                seed: SMatrix<$t, R, C>,
            ) -> (Self, SMatrix<$t, K, C>) {
                (seed * b.transpose(), self.transpose() * seed)
            }
        }

        // c = a s: a̅ += s c̅, s̅ += ⟨c̅, a⟩.
        impl<const R: usize, const C: usize> Binary<op::Mul, $t> for SMatrix<$t, R, C> {
            type Output = Self;
            #[inline]
            fn value(self, s: $t) -> Self {
                self * s
            }
            #[inline]
            fn adjoints(self, s: $t, seed: Self) -> (Self, $t) {
                (seed * s, seed.dot(&self))
            }
        }

        // c = s a: s̅ += ⟨c̅, a⟩, a̅ += s c̅.
        impl<const R: usize, const C: usize> Binary<op::Mul, SMatrix<$t, R, C>> for $t {
            type Output = SMatrix<$t, R, C>;
            #[inline]
            fn value(self, a: SMatrix<$t, R, C>) -> SMatrix<$t, R, C> {
                a * self
            }
            #[inline]
            fn adjoints(
                self,
                a: SMatrix<$t, R, C>,
                seed: SMatrix<$t, R, C>,
            ) -> ($t, SMatrix<$t, R, C>) {
                (seed.dot(&a), seed * self)
            }
        }

        // c = a / s: a̅ += c̅ / s, s̅ -= ⟨c̅, a⟩ / s².
        impl<const R: usize, const C: usize> Binary<op::Div, $t> for SMatrix<$t, R, C> {
            type Output = Self;
            #[inline]
            fn value(self, s: $t) -> Self {
                self / s
            }
            #[inline]
            fn adjoints(self, s: $t, seed: Self) -> (Self, $t) {
                (seed / s, -seed.dot(&self) / (s * s))
            }
        }

        // c = ⟨a, b⟩ (the sum of the elementwise products, for matrices too): a̅ += c̅ b,
        // b̅ += c̅ a.
        impl<const R: usize, const C: usize> Binary<op::Dot, SMatrix<$t, R, C>>
            for SMatrix<$t, R, C>
        {
            type Output = $t;
            #[inline]
            fn value(self, b: Self) -> $t {
                self.dot(&b)
            }
            #[inline]
            fn adjoints(self, b: Self, seed: $t) -> (Self, Self) {
                (b * seed, self * seed)
            }
        }

        // c = a × b: ⟨c̅, a × b⟩ = ⟨a, b × c̅⟩ = ⟨b, c̅ × a⟩, so a̅ += b × c̅, b̅ += c̅ × a.
        impl Binary<op::Cross, SMatrix<$t, 3, 1>> for SMatrix<$t, 3, 1> {
            type Output = Self;
            #[inline]
            fn value(self, b: Self) -> Self {
                self.cross(&b)
            }
            #[inline]
            fn adjoints(self, b: Self, seed: Self) -> (Self, Self) {
                (b.cross(&seed), seed.cross(&self))
            }
        }

        // c = -a: a̅ -= c̅.
        impl<const R: usize, const C: usize> Unary<op::Neg> for SMatrix<$t, R, C> {
            type Output = Self;
            #[inline]
            fn value(self) -> Self {
                -self
            }
            #[inline]
            fn adjoint(self, seed: Self) -> Self {
                -seed
            }
        }

        // c = ‖a‖: a̅ += c̅ a / ‖a‖; at a = 0, where the norm has no derivative, 0 (the
        // convention of `rules` for `abs` and `sqrt` at 0: JAX's subgradient).
        impl<const R: usize, const C: usize> Unary<op::Norm> for SMatrix<$t, R, C> {
            type Output = $t;
            #[inline]
            fn value(self) -> $t {
                self.norm()
            }
            #[inline]
            fn adjoint(self, seed: $t) -> Self {
                let n = self.norm();
                if n == 0.0 {
                    SMatrix::zeros()
                } else {
                    self * (seed / n)
                }
            }
        }

        // c = ‖a‖²: a̅ += 2 c̅ a.
        impl<const R: usize, const C: usize> Unary<op::NormSquared> for SMatrix<$t, R, C> {
            type Output = $t;
            #[inline]
            fn value(self) -> $t {
                self.norm_squared()
            }
            #[inline]
            fn adjoint(self, seed: $t) -> Self {
                self * (2.0 * seed)
            }
        }

        // C = Aᵀ: A̅ += C̅ᵀ.
        impl<const R: usize, const C: usize> Unary<op::Transpose> for SMatrix<$t, R, C> {
            type Output = SMatrix<$t, C, R>;
            #[inline]
            fn value(self) -> SMatrix<$t, C, R> {
                self.transpose()
            }
            #[inline]
            fn adjoint(self, seed: SMatrix<$t, C, R>) -> Self {
                seed.transpose()
            }
        }
    };
}

matrices_of!(f64);
matrices_of!(f32);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg;
    use ::nalgebra::{Matrix2x3, Vector3};

    #[test]
    fn matrix_product_adjoints_match_the_closed_form() {
        let m = Matrix2x3::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
        let v = Vector3::new(0.5, -1.0, 2.0);
        let seed = ::nalgebra::Vector2::new(1.0, -2.0);
        let (mut dm, mut dv) = (Matrix2x3::zeros(), Vector3::zeros());
        linalg::__ad_rev_mul(m, &v, seed, (), &mut dm, &mut dv);
        assert_eq!(dm, seed * v.transpose());
        assert_eq!(dv, m.transpose() * seed);
    }

    #[test]
    fn scalar_product_adds_into_a_scalar_sink() {
        let a = Vector3::new(1.0, 2.0, 3.0);
        let (mut ds, mut da) = (0.0, Vector3::zeros());
        linalg::__ad_rev_mul(2.0, a, Vector3::new(1.0, 1.0, 1.0), (), &mut ds, &mut da);
        assert_eq!(ds, 6.0);
        assert_eq!(da, Vector3::new(2.0, 2.0, 2.0));
    }

    #[test]
    fn norm_at_zero_has_a_zero_adjoint() {
        let mut d = Vector3::new(0.0_f32, 0.0, 0.0);
        linalg::__ad_rev_norm(Vector3::<f32>::zeros(), 1.0, (), &mut d);
        assert_eq!(d, Vector3::zeros());
        assert_eq!(
            <Vector3<f32> as Adjoint>::zero_adjoint(&Vector3::new(1.0, 2.0, 3.0)),
            d
        );
    }
}
