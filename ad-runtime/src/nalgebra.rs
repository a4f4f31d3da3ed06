//! `nalgebra`'s fixed-size matrices and vectors as active values (feature `nalgebra`).
//!
//! - [`Adjoint`] and [`Accumulate`] for `SMatrix<T, R, C>` (`Vector3<f64>`, `Matrix3<f32>`,
//!   ..): a parameter of such a type is an aggregate whose gradient is a matrix of the same
//!   type, zeros of the same shape to start.
//! - The derivative rules of their arithmetic, for the companions in [`crate::linalg`]: `+`,
//!   `-` (binary and unary) between matrices of one shape, `*` between matrices of matching
//!   shapes and between a matrix and a scalar, `/` by a scalar, `.dot`, `.cross` (3-vectors),
//!   `.norm`, `.norm_squared` and `.transpose`.
//! - Their constructors from entries (`Vector3::new(x, y, z)`, `Matrix2::new(a, b, c, d)`, every
//!   shape of 1 to 6 rows and columns), for [`Entries`]: the adjoint of each argument is the
//!   entry of the result's adjoint in its place.
//!
//! For `T` = `f64` and `f32`: the two precisions `revad::Float` has.

use ::nalgebra::{SMatrix, Scalar};

use crate::linalg::{op, AdjSink, Arg, Binary, Entries, Unary};
use crate::{Accumulate, Adjoint, Float};

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

        impl<const R: usize, const C: usize> crate::linalg::Linalg for SMatrix<$t, R, C> {}

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

// M = SMatrix::new(e0, e1, ..) (the entries row by row): e̅k += entry k of M̅, in the same
// order.
macro_rules! entries {
    ($($r:literal $c:literal; $($e:ident $k:ident $s:ident),*;)*) => {$(
        impl<T: Float + Scalar> Entries<SMatrix<T, $r, $c>> {
            #[doc = concat!("`SMatrix::<T, ", stringify!($r), ", ", stringify!($c), ">::new(..)`: the primal constructor.")]
            #[inline]
            #[allow(clippy::too_many_arguments, clippy::new_ret_no_self)]
            pub fn new($($e: T),*) -> SMatrix<T, $r, $c> {
                SMatrix::<T, $r, $c>::new($($e),*)
            }

            /// The forward companion of `new`: nothing to record.
            #[inline]
            #[allow(clippy::too_many_arguments)]
            pub fn __ad_fwd_new<S>($($e: T,)* _stack: S) -> SMatrix<T, $r, $c> {
                SMatrix::<T, $r, $c>::new($($e),*)
            }

            /// The reverse companion of `new`: adds each entry of `seed`, row by row, to the
            /// adjoint of the argument in its place.
            #[inline]
            #[allow(clippy::too_many_arguments)]
            #[allow(unused_variables)]
            pub fn __ad_rev_new<S, $($k: AdjSink<T>),*>(
                $($e: T,)*
                seed: SMatrix<T, $r, $c>,
                _stack: S,
                $(mut $s: $k),*
            ) {
                // The transpose stores the entries row by row.
                let rows = seed.transpose();
                let mut entries = rows.iter().copied();
                $(
                    if let Some(d) = entries.next() {
                        $s.add_adjoint(d);
                    }
                )*
            }
        }
    )*};
}

entries! {
    1 1; e0 K0 k0;
    1 2; e0 K0 k0, e1 K1 k1;
    1 3; e0 K0 k0, e1 K1 k1, e2 K2 k2;
    1 4; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3;
    1 5; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4;
    1 6; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5;
    2 1; e0 K0 k0, e1 K1 k1;
    2 2; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3;
    2 3; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5;
    2 4; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7;
    2 5; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9;
    2 6; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11;
    3 1; e0 K0 k0, e1 K1 k1, e2 K2 k2;
    3 2; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5;
    3 3; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8;
    3 4; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11;
    3 5; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14;
    3 6; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17;
    4 1; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3;
    4 2; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7;
    4 3; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11;
    4 4; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15;
    4 5; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17, e18 K18 k18, e19 K19 k19;
    4 6; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17, e18 K18 k18, e19 K19 k19, e20 K20 k20, e21 K21 k21, e22 K22 k22, e23 K23 k23;
    5 1; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4;
    5 2; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9;
    5 3; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14;
    5 4; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17, e18 K18 k18, e19 K19 k19;
    5 5; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17, e18 K18 k18, e19 K19 k19, e20 K20 k20, e21 K21 k21, e22 K22 k22, e23 K23 k23, e24 K24 k24;
    5 6; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17, e18 K18 k18, e19 K19 k19, e20 K20 k20, e21 K21 k21, e22 K22 k22, e23 K23 k23, e24 K24 k24, e25 K25 k25, e26 K26 k26, e27 K27 k27, e28 K28 k28, e29 K29 k29;
    6 1; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5;
    6 2; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11;
    6 3; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17;
    6 4; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17, e18 K18 k18, e19 K19 k19, e20 K20 k20, e21 K21 k21, e22 K22 k22, e23 K23 k23;
    6 5; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17, e18 K18 k18, e19 K19 k19, e20 K20 k20, e21 K21 k21, e22 K22 k22, e23 K23 k23, e24 K24 k24, e25 K25 k25, e26 K26 k26, e27 K27 k27, e28 K28 k28, e29 K29 k29;
    6 6; e0 K0 k0, e1 K1 k1, e2 K2 k2, e3 K3 k3, e4 K4 k4, e5 K5 k5, e6 K6 k6, e7 K7 k7, e8 K8 k8, e9 K9 k9, e10 K10 k10, e11 K11 k11, e12 K12 k12, e13 K13 k13, e14 K14 k14, e15 K15 k15, e16 K16 k16, e17 K17 k17, e18 K18 k18, e19 K19 k19, e20 K20 k20, e21 K21 k21, e22 K22 k22, e23 K23 k23, e24 K24 k24, e25 K25 k25, e26 K26 k26, e27 K27 k27, e28 K28 k28, e29 K29 k29, e30 K30 k30, e31 K31 k31, e32 K32 k32, e33 K33 k33, e34 K34 k34, e35 K35 k35;
}

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
    fn constructor_arguments_are_the_entries_row_by_row() {
        let m = Entries::<::nalgebra::Matrix2x3<f64>>::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
        assert_eq!(m, Matrix2x3::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0));
        let seed = Matrix2x3::new(10.0, 20.0, 30.0, 40.0, 50.0, 60.0);
        let mut d = [0.0; 6];
        let [d0, d1, d2, d3, d4, d5] = &mut d;
        Entries::<Matrix2x3<f64>>::__ad_rev_new(
            1.0,
            2.0,
            3.0,
            4.0,
            5.0,
            6.0,
            seed,
            (),
            d0,
            d1,
            d2,
            d3,
            d4,
            d5,
        );
        assert_eq!(d, [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]);
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
