//! [`Accumulate`]: `acc += other` on adjoints, named by the adjoint's type alone.
//!
//! Generated code adds whole adjoints of structs and nested containers (a seed into the
//! adjoint of a `&mut` parameter, the adjoint of a struct expression into its fields' values)
//! without knowing their types: `Accumulate::accumulate(&mut __adj_p, &seed)`. [`Adjoint`]'s
//! `accumulate` needs the value's type to be named; this trait is implemented by the adjoint
//! types themselves, so rustc finds it from the arguments. `#[derive(revad::Adjoint)]`
//! implements it for the adjoint structs it generates.
//!
//! [`Adjoint`]: crate::Adjoint

use crate::adjoint::Zero;

/// An adjoint that another of the same shape can be added to, element by element.
pub trait Accumulate {
    /// `self += other`.
    ///
    /// # Panics
    ///
    /// If the shapes differ (slices of different lengths, enums of different variants).
    fn accumulate(&mut self, other: &Self);
}

impl Accumulate for f64 {
    #[inline]
    fn accumulate(&mut self, other: &f64) {
        *self += *other;
    }
}

impl Accumulate for f32 {
    #[inline]
    fn accumulate(&mut self, other: &f32) {
        *self += *other;
    }
}

impl Accumulate for Zero {
    #[inline]
    fn accumulate(&mut self, _: &Zero) {}
}

impl Accumulate for () {
    #[inline]
    fn accumulate(&mut self, _: &()) {}
}

impl<A: Accumulate, const N: usize> Accumulate for [A; N] {
    #[inline]
    fn accumulate(&mut self, other: &[A; N]) {
        for (a, o) in self.iter_mut().zip(other) {
            a.accumulate(o);
        }
    }
}

impl<A: Accumulate> Accumulate for Vec<A> {
    #[inline]
    #[track_caller]
    fn accumulate(&mut self, other: &Vec<A>) {
        assert_eq!(
            self.len(),
            other.len(),
            "revad: adjoints of different lengths"
        );
        for (a, o) in self.iter_mut().zip(other) {
            a.accumulate(o);
        }
    }
}

impl<A: Accumulate> Accumulate for Box<A> {
    #[inline]
    fn accumulate(&mut self, other: &Box<A>) {
        (**self).accumulate(other);
    }
}

impl<A: Accumulate + Clone> Accumulate for Option<A> {
    #[inline]
    fn accumulate(&mut self, other: &Option<A>) {
        match (self.as_mut(), other) {
            (Some(a), Some(o)) => a.accumulate(o),
            (None, Some(o)) => *self = Some(o.clone()),
            (_, None) => {}
        }
    }
}

macro_rules! tuples {
    ($(($($name:ident $k:tt),+))*) => {$(
        impl<$($name: Accumulate),+> Accumulate for ($($name,)+) {
            #[inline]
            fn accumulate(&mut self, other: &Self) {
                $(self.$k.accumulate(&other.$k);)+
            }
        }
    )*};
}

tuples! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_nested_adjoints() {
        let mut acc = (vec![[1.0_f64, 2.0]], 0.5_f32, Zero, Some(1.0_f64));
        acc.accumulate(&(vec![[0.5, -2.0]], 1.5, Zero, Some(2.0)));
        assert_eq!(acc, (vec![[1.5, 0.0]], 2.0, Zero, Some(3.0)));
        let mut none: Option<f64> = None;
        none.accumulate(&Some(4.0));
        assert_eq!(none, Some(4.0));
    }

    #[test]
    #[should_panic(expected = "adjoints of different lengths")]
    fn different_lengths_panic() {
        vec![1.0_f64].accumulate(&vec![1.0, 2.0]);
    }
}
