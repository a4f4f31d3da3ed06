//! Function arguments of differentiated higher-order functions.
//!
//! A differentiated function may take a function argument (`fn integrate<F: Fn(f64) -> f64>(f:
//! F, a: f64, b: f64) -> f64`). The macro keeps the function as written and, in its generated
//! companions, replaces the bound `Fn(f64) -> f64` by [`ReverseFunction1`] (reverse mode) or
//! [`ForwardFunction1`] (forward mode): a call `f(x)` in the body becomes a call of the
//! argument's own split companions, so the derivative of what `f` computes flows through it.
//!
//! An annotated caller passes a closure literal (`integrate(|x| c * x * x, 0.0, 1.0)`): the
//! macro lifts the closure into a hidden annotated function whose extra parameters are the
//! variables it captures, and passes a value of a hidden struct implementing these traits. The
//! adjoints of the captured variables are added into [`Cell`]s the struct borrows (a
//! backpropagator adding into the adjoints of its free variables, as in Pearlmutter &
//! Siskind, TOPLAS 2008), and the caller adds them into its own adjoints after the call. The
//! traits are named by generated code only. Their values are `Copy` (captured values and
//! references to cells): a function argument passed on (`apply(f, x)`) is copied, so the
//! forward and the reverse sweep both pass it, and a recursive higher-order function keeps
//! one type.

use std::cell::Cell;

use crate::call::{ArraySink, ScalarSink};
use crate::{Float, ValueStack};

macro_rules! function_traits {
    ($($n:literal: $call:ident, $reverse:ident, $forward:ident ($($x:ident $s:ident $t:ident $k:ident),*);)*) => {$(
        #[doc = concat!(
            "A function of ", stringify!($n), " float argument(s), as the companions of a \
             differentiated higher-order function call it: its value."
        )]
        pub trait $call<T>: Copy {
            /// The function's value.
            fn call(f: &Self, $($x: T),*) -> T;
        }

        #[doc = concat!(
            "The split companions of a function of ", stringify!($n), " float argument(s), \
             for reverse mode (the bound `Fn` becomes in generated code)."
        )]
        #[diagnostic::on_unimplemented(
            message = "`{Self}` is not a function argument with a reverse derivative",
            label = "a plain closure or function here",
            note = "a generated `NAME_grad`/`NAME_vjp` calls its function argument's \
                    derivative: pass closures to this function from an annotated \
                    (`#[revad::reverse]`) function, which lifts them, and differentiate that"
        )]
        pub trait $reverse<T>: $call<T> {
            /// The forward sweep: the value, with what the reverse sweep needs pushed to
            /// `stack`.
            fn __ad_fwd_call(f: &Self, $($x: T,)* stack: &mut ValueStack) -> T;
            /// The reverse sweep: pops what the forward sweep pushed and adds the adjoints of
            /// the arguments, scaled by `seed`, into the sinks (and those of the captured
            /// variables into the function's own cells).
            #[allow(clippy::too_many_arguments)]
            fn __ad_rev_call<K, $($s: ScalarSink<T>),*>(
                f: &Self,
                $($x: T,)*
                seed: T,
                stack: &mut ValueStack,
                receiver: K,
                $($k: $s),*
            );
        }

        #[doc = concat!(
            "The forward companion of a function of ", stringify!($n), " float argument(s), \
             for forward mode (the bound `Fn` becomes in generated code)."
        )]
        #[diagnostic::on_unimplemented(
            message = "`{Self}` is not a function argument with a forward derivative",
            label = "a plain closure or function here",
            note = "a generated `NAME_jvp` calls its function argument's derivative: pass \
                    closures to this function from an annotated (`#[revad::forward]`) function, \
                    which lifts them, and differentiate that"
        )]
        pub trait $forward<T>: $call<T> {
            /// The value and its tangent, for the arguments' tangents (the tangents of the
            /// captured variables are the function's own).
            #[allow(clippy::too_many_arguments)]
            fn __ad_jvp_call<K>(f: &Self, $($x: T,)* receiver: K, $($t: T),*) -> (T, T);
        }

        /// A reference to a function argument is one (`apply(&f, x)` passes it on).
        impl<T, F: $call<T> + ?Sized> $call<T> for &F {
            #[inline]
            fn call(f: &Self, $($x: T),*) -> T {
                F::call(*f, $($x),*)
            }
        }

        impl<T, F: $reverse<T> + ?Sized> $reverse<T> for &F {
            #[inline]
            fn __ad_fwd_call(f: &Self, $($x: T,)* stack: &mut ValueStack) -> T {
                F::__ad_fwd_call(*f, $($x,)* stack)
            }
            #[inline]
            fn __ad_rev_call<K, $($s: ScalarSink<T>),*>(
                f: &Self,
                $($x: T,)*
                seed: T,
                stack: &mut ValueStack,
                receiver: K,
                $($k: $s),*
            ) {
                F::__ad_rev_call(*f, $($x,)* seed, stack, receiver, $($k),*)
            }
        }

        #[allow(unused_variables)]
        impl<T: Float> $call<T> for StandInFunction {
            fn call(f: &Self, $($x: T),*) -> T {
                unreachable!("a stand-in is never called: its caller does not compile")
            }
        }

        #[allow(unused_variables)]
        impl<T: Float> $reverse<T> for StandInFunction {
            fn __ad_fwd_call(f: &Self, $($x: T,)* stack: &mut ValueStack) -> T {
                unreachable!("a stand-in is never called: its caller does not compile")
            }
            fn __ad_rev_call<K, $($s: ScalarSink<T>),*>(
                f: &Self,
                $($x: T,)*
                seed: T,
                stack: &mut ValueStack,
                receiver: K,
                $($k: $s),*
            ) {
                unreachable!("a stand-in is never called: its caller does not compile")
            }
        }

        #[allow(unused_variables)]
        impl<T: Float> $forward<T> for StandInFunction {
            fn __ad_jvp_call<K>(f: &Self, $($x: T,)* receiver: K, $($t: T),*) -> (T, T) {
                unreachable!("a stand-in is never called: its caller does not compile")
            }
        }

        impl<T, F: $forward<T> + ?Sized> $forward<T> for &F {
            #[inline]
            fn __ad_jvp_call<K>(f: &Self, $($x: T,)* receiver: K, $($t: T),*) -> (T, T) {
                F::__ad_jvp_call(*f, $($x,)* receiver, $($t),*)
            }
        }
    )*};
}

/// Not public API: what generated code passes for a function passed by name that has no
/// derivative (not annotated), after the error that says so: it implements every function
/// trait, so that error is the only one.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct StandInFunction {}

function_traits! {
    1: Function1, ReverseFunction1, ForwardFunction1 (x0 S0 t0 s0);
    2: Function2, ReverseFunction2, ForwardFunction2 (x0 S0 t0 s0, x1 S1 t1 s1);
    3: Function3, ReverseFunction3, ForwardFunction3 (x0 S0 t0 s0, x1 S1 t1 s1, x2 S2 t2 s2);
    4: Function4, ReverseFunction4, ForwardFunction4
        (x0 S0 t0 s0, x1 S1 t1 s1, x2 S2 t2 s2, x3 S3 t3 s3);
}

/// The sink of a captured scalar: its adjoint cell, which the caller reads after the call.
impl<T: Float> ScalarSink<T> for &Cell<T> {
    type Reborrow<'b>
        = &'b Cell<T>
    where
        Self: 'b;
    #[inline]
    fn reborrow(&mut self) -> &Cell<T> {
        self
    }
    #[inline]
    fn add(&mut self, adjoint: T) {
        self.set(self.get() + adjoint);
    }
}

/// The sink of a captured array: its adjoint's cells.
impl<T: Float> ArraySink<T> for &[Cell<T>] {
    type Reborrow<'b>
        = &'b [Cell<T>]
    where
        Self: 'b;
    #[inline]
    fn reborrow(&mut self) -> &[Cell<T>] {
        self
    }
    #[inline]
    fn add_at(&mut self, index: usize, adjoint: T) {
        let cell = &self[index];
        cell.set(cell.get() + adjoint);
    }
    #[inline]
    fn add_all(&mut self, adjoint: &[T]) {
        assert_eq!(self.len(), adjoint.len(), "adjoint of another length");
        for (cell, &a) in self.iter().zip(adjoint) {
            cell.set(cell.get() + a);
        }
    }
}

/// The cells of a zeroed adjoint of `len` elements, for a captured array.
pub fn zero_cells<T: Float>(len: usize) -> Vec<Cell<T>> {
    (0..len).map(|_| Cell::new(T::ZERO)).collect()
}

/// The values of `cells`, to add into the caller's adjoint of a captured array.
pub fn cell_values<T: Float>(cells: &[Cell<T>]) -> Vec<T> {
    cells.iter().map(Cell::get).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_sinks_accumulate() {
        let c = Cell::new(1.0_f64);
        let mut sink = &c;
        ScalarSink::add(&mut sink, 2.5);
        ScalarSink::add(&mut ScalarSink::reborrow(&mut sink), 0.5);
        assert_eq!(c.get(), 4.0);
        let cells = zero_cells::<f64>(3);
        let mut sink: &[Cell<f64>] = &cells;
        ArraySink::add_at(&mut sink, 1, 2.0);
        ArraySink::add_all(&mut sink, &[1.0, 1.0, 1.0]);
        assert_eq!(cell_values(&cells), vec![1.0, 3.0, 1.0]);
    }
}
