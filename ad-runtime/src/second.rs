//! What the functions `#[reverse(hessian)]` generates use: parameters turned into dual
//! numbers ([`Lift`]), results split into values and dual parts ([`Unlift`]), unit directions
//! ([`Basis`]) and flattened Hessian columns ([`Flatten`]).
//!
//! ```
//! use revad_runtime::second::{Lift, Unlift};
//! use revad_runtime::Dual;
//!
//! // x = 2 in the direction 1, w = [1, 2] in the direction [0, 1].
//! let x = Lift::lift(&2.0_f64, &1.0);
//! assert_eq!((x.re, x.eps), (2.0, 1.0));
//! let w = Lift::lift(&[1.0_f64, 2.0][..], &[0.0, 1.0][..]);
//! assert_eq!((w[1].re, w[1].eps), (2.0, 1.0));
//! // A gradient on dual numbers: its values, and its dual parts (H·v).
//! let (g, hv) = Unlift::unlift((x, w));
//! assert_eq!(g, (2.0, vec![1.0, 2.0]));
//! assert_eq!(hv, (1.0, vec![0.0, 1.0]));
//! ```

use crate::dual::Dual;
use crate::Float;

/// A parameter of a function turned into dual numbers: its value with a direction.
pub trait Lift {
    /// The same shape of dual numbers (`Dual<f64>` for `f64`, `Vec<Dual<f64>>` for `[f64]`).
    type Lifted;
    /// The value, with `tangent` as its dual part.
    fn lift(&self, tangent: &Self) -> Self::Lifted;
    /// The value, with a zero dual part (a constant).
    fn lift_const(&self) -> Self::Lifted;
}

macro_rules! lift {
    ($($t:ty),*) => {$(
        impl Lift for $t {
            type Lifted = Dual<$t>;
            #[inline]
            fn lift(&self, tangent: &Self) -> Dual<$t> {
                Dual::new(*self, *tangent)
            }
            #[inline]
            fn lift_const(&self) -> Dual<$t> {
                Dual::constant(*self)
            }
        }

        impl<const N: usize> Lift for [$t; N] {
            type Lifted = [Dual<$t>; N];
            #[inline]
            fn lift(&self, tangent: &Self) -> [Dual<$t>; N] {
                core::array::from_fn(|i| Dual::new(self[i], tangent[i]))
            }
            #[inline]
            fn lift_const(&self) -> [Dual<$t>; N] {
                self.map(Dual::constant)
            }
        }

        /// # Panics
        ///
        /// If the tangent has another length than the value.
        impl Lift for [$t] {
            type Lifted = Vec<Dual<$t>>;
            fn lift(&self, tangent: &Self) -> Vec<Dual<$t>> {
                assert_eq!(
                    self.len(),
                    tangent.len(),
                    "revad: the direction has {} entries for a parameter of {}",
                    tangent.len(),
                    self.len()
                );
                self.iter().zip(tangent).map(|(&x, &t)| Dual::new(x, t)).collect()
            }
            fn lift_const(&self) -> Vec<Dual<$t>> {
                self.iter().map(|&x| Dual::constant(x)).collect()
            }
        }

        impl Lift for Vec<$t> {
            type Lifted = Vec<Dual<$t>>;
            fn lift(&self, tangent: &Self) -> Vec<Dual<$t>> {
                self[..].lift(&tangent[..])
            }
            fn lift_const(&self) -> Vec<Dual<$t>> {
                self[..].lift_const()
            }
        }

    )*};
}

macro_rules! basis_and_flatten {
    ($($t:ty),*) => {$(
        impl Basis for $t {
            type Tangent = $t;
            #[inline]
            fn flat_len(&self) -> usize {
                1
            }
            #[inline]
            fn unit(&self, k: Option<usize>) -> $t {
                match k {
                    Some(_) => 1.0,
                    None => 0.0,
                }
            }
        }

        impl<const N: usize> Basis for [$t; N] {
            type Tangent = [$t; N];
            fn flat_len(&self) -> usize {
                N
            }
            fn unit(&self, k: Option<usize>) -> [$t; N] {
                core::array::from_fn(|i| if Some(i) == k { 1.0 } else { 0.0 })
            }
        }

        impl Basis for [$t] {
            type Tangent = Vec<$t>;
            fn flat_len(&self) -> usize {
                self.len()
            }
            fn unit(&self, k: Option<usize>) -> Vec<$t> {
                (0..self.len()).map(|i| if Some(i) == k { 1.0 } else { 0.0 }).collect()
            }
        }

        impl Basis for Vec<$t> {
            type Tangent = Vec<$t>;
            fn flat_len(&self) -> usize {
                self.len()
            }
            fn unit(&self, k: Option<usize>) -> Vec<$t> {
                self[..].unit(k)
            }
        }

        impl Flatten<$t> for $t {
            #[inline]
            fn flatten_into(&self, out: &mut Vec<$t>) {
                out.push(*self);
            }
        }

        impl<const N: usize> Flatten<$t> for [$t; N] {
            fn flatten_into(&self, out: &mut Vec<$t>) {
                out.extend_from_slice(self);
            }
        }

        impl Flatten<$t> for Vec<$t> {
            fn flatten_into(&self, out: &mut Vec<$t>) {
                out.extend_from_slice(self);
            }
        }
    )*};
}

lift!(f64, f32, Dual<f64>, Dual<f32>);
basis_and_flatten!(f64, f32);

impl<L: Lift + ?Sized> Lift for &L {
    type Lifted = L::Lifted;
    #[inline]
    fn lift(&self, tangent: &Self) -> L::Lifted {
        (**self).lift(tangent)
    }
    #[inline]
    fn lift_const(&self) -> L::Lifted {
        (**self).lift_const()
    }
}

/// A result on dual numbers split into its values and its dual parts.
pub trait Unlift {
    /// The same shape of plain floats.
    type Re;
    /// `(values, dual parts)`.
    fn unlift(self) -> (Self::Re, Self::Re);
}

impl<T: Float> Unlift for Dual<T> {
    type Re = T;
    #[inline]
    fn unlift(self) -> (T, T) {
        (self.re, self.eps)
    }
}

impl<T: Float, const N: usize> Unlift for [Dual<T>; N] {
    type Re = [T; N];
    #[inline]
    fn unlift(self) -> ([T; N], [T; N]) {
        (self.map(|d| d.re), self.map(|d| d.eps))
    }
}

impl<T: Float> Unlift for Vec<Dual<T>> {
    type Re = Vec<T>;
    fn unlift(self) -> (Vec<T>, Vec<T>) {
        self.into_iter().map(|d| (d.re, d.eps)).unzip()
    }
}

macro_rules! unlift_tuple {
    ($($name:ident $idx:tt),*) => {
        impl<$($name: Unlift),*> Unlift for ($($name,)*) {
            type Re = ($($name::Re,)*);
            #[inline]
            fn unlift(self) -> (Self::Re, Self::Re) {
                $(let $name = self.$idx.unlift();)*
                (($($name.0,)*), ($($name.1,)*))
            }
        }
    };
}

#[allow(non_snake_case)]
mod tuples {
    use super::Unlift;
    unlift_tuple!(A 0);
    unlift_tuple!(A 0, B 1);
    unlift_tuple!(A 0, B 1, C 2);
    unlift_tuple!(A 0, B 1, C 2, D 3);
    unlift_tuple!(A 0, B 1, C 2, D 3, E 4);
    unlift_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
    unlift_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    unlift_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
}

/// The entries of a parameter, flattened: how many, and the unit direction along one.
pub trait Basis {
    /// A direction for the parameter (a value of its owned type).
    type Tangent;
    /// The number of float entries.
    fn flat_len(&self) -> usize;
    /// The unit direction along entry `k`, or the zero direction for `None`.
    fn unit(&self, k: Option<usize>) -> Self::Tangent;
}

impl<B: Basis + ?Sized> Basis for &B {
    type Tangent = B::Tangent;
    fn flat_len(&self) -> usize {
        (**self).flat_len()
    }
    fn unit(&self, k: Option<usize>) -> B::Tangent {
        (**self).unit(k)
    }
}

/// A gradient-shaped value (a float, an array, a `Vec`, a tuple of these) appended entry by
/// entry to a flat `Vec`, in the order of [`Basis`].
pub trait Flatten<T> {
    /// Appends the entries to `out`.
    fn flatten_into(&self, out: &mut Vec<T>);
}

macro_rules! flatten_tuple {
    ($($name:ident $idx:tt),*) => {
        impl<T, $($name: Flatten<T>),*> Flatten<T> for ($($name,)*) {
            fn flatten_into(&self, out: &mut Vec<T>) {
                $(self.$idx.flatten_into(out);)*
            }
        }
    };
}

flatten_tuple!(A 0);
flatten_tuple!(A 0, B 1);
flatten_tuple!(A 0, B 1, C 2);
flatten_tuple!(A 0, B 1, C 2, D 3);
flatten_tuple!(A 0, B 1, C 2, D 3, E 4);
flatten_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
flatten_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
flatten_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// `a·x + y` on gradient-shaped values (a float, an array, a `Vec`): how the companions of
/// `NAME_grad` and `NAME_jvp` combine the parts of a result on dual numbers.
pub trait Axpy<T>: Sized {
    /// `a·x + y`, element by element.
    fn axpy(a: T, x: &Self, y: &Self) -> Self;
    /// `a·x`, element by element.
    fn scale(a: T, x: &Self) -> Self;
}

macro_rules! axpy {
    ($($t:ty),*) => {$(
        impl Axpy<$t> for $t {
            #[inline]
            fn axpy(a: $t, x: &$t, y: &$t) -> $t {
                a * x + y
            }
            #[inline]
            fn scale(a: $t, x: &$t) -> $t {
                a * x
            }
        }

        impl<const N: usize> Axpy<$t> for [$t; N] {
            fn axpy(a: $t, x: &Self, y: &Self) -> Self {
                core::array::from_fn(|i| a * x[i] + y[i])
            }
            fn scale(a: $t, x: &Self) -> Self {
                x.map(|v| a * v)
            }
        }

        impl Axpy<$t> for Vec<$t> {
            fn axpy(a: $t, x: &Self, y: &Self) -> Self {
                x.iter().zip(y).map(|(x, y)| a * x + y).collect()
            }
            fn scale(a: $t, x: &Self) -> Self {
                x.iter().map(|v| a * v).collect()
            }
        }
    )*};
}

axpy!(f64, f32);

/// A constant of the user's module in the generic copy that `#[reverse(hessian)]` makes: a
/// float constant (`const G: f64`) becomes the float type `T` of the copy, exactly; an
/// integer, `bool` or `char` constant stays what it is.
pub trait Lifted<T> {
    /// `T` for a float, `Self` otherwise.
    type Out;
    /// The converted value.
    fn lifted(self) -> Self::Out;
}

impl<T: Float> Lifted<T> for f64 {
    type Out = T;
    #[inline]
    fn lifted(self) -> T {
        T::from_f64(self)
    }
}

impl<T: Float> Lifted<T> for f32 {
    type Out = T;
    #[inline]
    fn lifted(self) -> T {
        T::from_f64(f64::from(self))
    }
}

/// An array of constants, element by element: `[f64; N]`, a table `[[f64; N]; M]`, integers.
impl<T, U: Lifted<T>, const N: usize> Lifted<T> for [U; N] {
    type Out = [U::Out; N];
    #[inline]
    fn lifted(self) -> [U::Out; N] {
        self.map(U::lifted)
    }
}

macro_rules! lifted_as_is {
    ($($t:ty),*) => {$(
        impl<T> Lifted<T> for $t {
            type Out = $t;
            #[inline]
            fn lifted(self) -> $t {
                self
            }
        }
    )*};
}

lifted_as_is!(usize, isize, u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, bool, char);
