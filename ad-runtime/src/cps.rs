//! The dual type of the continuation-passing backend, `#[reverse(cps)]`.
//!
//! Wang et al., "Shift/Reset the Penultimate Backpropagator" (ICFP 2019), differentiate a
//! program by turning every operation into a call that computes its result, hands it to the
//! rest of the program (its continuation), and, when the continuation returns, adds its share
//! of the result's adjoint to the adjoints of its inputs. Their value-with-adjoint type is
//! Lantern's `NumR`; here it is [`NumR`]: a primal value and an adjoint cell.
//!
//! ```text
//! // for `let t = a * b;` followed by the rest of the body `k`
//! let t = a * b;                    // the primal, as the user wrote it
//! let __t = NumR::new(t);           // its adjoint cell, zero, on this stack frame
//! let r = k(&__t);                  // the continuation: the rest of the body
//! __a.add(__t.adjoint() * b);       // back from the continuation: this.d += y.d * that.x
//! __b.add(__t.adjoint() * a);
//! r
//! ```
//!
//! The cells live on the stack frames of the generated code (`Cell`, no heap, no global and
//! no thread-local tape): a frame stays alive while the rest of the computation runs inside
//! its continuation, which is what makes the adjoints available when the continuation
//! returns. The stack therefore grows with the number of operations executed inside loops;
//! [`grow`] (feature `cps`) extends it on demand (see the crate docs of `revad` for the cost
//! and the limits).
//!
#![cfg_attr(
    not(feature = "cps"),
    doc = "[`grow`]: https://docs.rs/revad-runtime/latest/revad_runtime/cps/fn.grow.html"
)]

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;

use crate::Float;

/// A primal value and its adjoint cell: the dual number of the CPS backend.
///
/// `NumR` is not `Clone`: the cell is the one place where the adjoint of one value
/// accumulates, so the generated code passes `&NumR` to everything that contributes to it.
///
/// ```
/// use revad_runtime::cps::NumR;
///
/// // y = x * x at x = 3, seeded with 1: the adjoint of x is 2 * 3.
/// let x = NumR::new(3.0_f64);
/// let y = NumR::new(x.value() * x.value());
/// y.add(1.0);
/// x.add(y.adjoint() * x.value());
/// x.add(y.adjoint() * x.value());
/// assert_eq!(x.adjoint(), 6.0);
/// ```
pub struct NumR<T> {
    x: T,
    d: Cell<T>,
}

impl<T: Float> NumR<T> {
    /// A value with a zero adjoint.
    #[inline(always)]
    pub fn new(x: T) -> NumR<T> {
        NumR {
            x,
            d: Cell::new(T::ZERO),
        }
    }

    /// A value whose adjoint receives exactly one contribution: the cell starts at `-0.0`,
    /// the identity of addition, so that the adjoint is that contribution bit for bit (with
    /// [`NumR::new`], `0.0 + -0.0` would make a negative zero positive).
    #[inline(always)]
    pub fn single(x: T) -> NumR<T> {
        NumR {
            x,
            d: Cell::new(-T::ZERO),
        }
    }

    /// The primal value.
    #[inline(always)]
    pub fn value(&self) -> T {
        self.x
    }

    /// The adjoint accumulated so far.
    #[inline(always)]
    pub fn adjoint(&self) -> T {
        self.d.get()
    }

    /// Adds `v` to the adjoint (`this.d += v`).
    #[inline(always)]
    pub fn add(&self, v: T) {
        self.d.set(self.d.get() + v);
    }

    /// Subtracts `v` from the adjoint (`this.d -= v`).
    #[inline(always)]
    pub fn sub(&self, v: T) {
        self.d.set(self.d.get() - v);
    }

    /// Replaces the adjoint (the adjoint of a variable stops at its assignment).
    #[inline(always)]
    pub fn set(&self, v: T) {
        self.d.set(v);
    }
}

impl<T: Float> fmt::Debug for NumR<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NumR")
            .field("x", &self.x)
            .field("d", &self.d.get())
            .finish()
    }
}

/// Runs `k`, the rest of the body, with `y` as its argument, then `back`, which accumulates
/// `y`'s adjoint into the adjoints of the operands: Lantern's `shift` for one operation.
/// `reset` is the outermost call, which seeds the output's adjoint.
///
/// ```
/// use revad_runtime::cps::{shift, NumR};
///
/// // d/dx (x * x) at x = 3, with the continuation seeding the output adjoint.
/// let x = NumR::new(3.0_f64);
/// let value = shift(
///     NumR::new(x.value() * x.value()),
///     |y| {
///         y.add(1.0); // reset: the seed
///         y.value()
///     },
///     |y| {
///         x.add(y.adjoint() * x.value());
///         x.add(y.adjoint() * x.value());
///     },
/// );
/// assert_eq!((value, x.adjoint()), (9.0, 6.0));
/// ```
#[inline(always)]
pub fn shift<T: Float, R>(
    y: NumR<T>,
    k: impl FnOnce(&NumR<T>) -> R,
    back: impl FnOnce(&NumR<T>),
) -> R {
    let r = k(&y);
    back(&y);
    r
}

/// Bytes of stack left below which [`grow`] (feature `cps`) moves on to a new segment.
///
#[cfg_attr(
    not(feature = "cps"),
    doc = "[`grow`]: https://docs.rs/revad-runtime/latest/revad_runtime/cps/fn.grow.html"
)]
pub const RED_ZONE: usize = 64 * 1024;

/// The size of each new stack segment [`grow`] (feature `cps`) allocates.
///
#[cfg_attr(
    not(feature = "cps"),
    doc = "[`grow`]: https://docs.rs/revad-runtime/latest/revad_runtime/cps/fn.grow.html"
)]
pub const SEGMENT: usize = 8 * 1024 * 1024;

/// Runs `f`, on a new stack segment if less than [`RED_ZONE`] bytes of stack are left.
///
/// The CPS backend calls this once per loop iteration: the frames of an iteration stay alive
/// until the reverse of that iteration, so a loop of `n` iterations holds `n` sets of frames.
/// With `grow` the loop runs until memory, not the thread's stack, is exhausted (with the
/// `stacker` crate, which allocates segments with the operating system's memory maps).
#[cfg(feature = "cps")]
#[inline(always)]
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// Adds to the adjoint cell of a scalar argument: the sink the CPS backend passes to the
/// split companion `g::rev` of a callee.
impl<T: Float> crate::call::ScalarSink<T> for &NumR<T> {
    type Reborrow<'b>
        = &'b NumR<T>
    where
        Self: 'b;
    #[inline]
    fn reborrow(&mut self) -> &NumR<T> {
        self
    }
    #[inline]
    fn add(&mut self, adjoint: T) {
        NumR::add(self, adjoint);
    }
}

/// The adjoint cells of an array argument, for the split companion `g::rev` of a callee.
#[derive(Debug)]
pub struct Cells<'a, 'b, T: Float>(pub &'a [&'b NumR<T>]);

impl<T: Float> crate::call::ArraySink<T> for Cells<'_, '_, T> {
    type Reborrow<'c>
        = Cells<'c, 'c, T>
    where
        Self: 'c;
    #[inline]
    fn reborrow(&mut self) -> Cells<'_, '_, T> {
        Cells(self.0)
    }
    #[inline]
    fn add_at(&mut self, index: usize, adjoint: T) {
        self.0[index].add(adjoint);
    }
    #[inline]
    fn add_all(&mut self, adjoint: &[T]) {
        assert_eq!(self.0.len(), adjoint.len(), "adjoint of another length");
        for (cell, v) in self.0.iter().zip(adjoint) {
            cell.add(*v);
        }
    }
}

/// What a caller passes for a scalar parameter of a CPS companion `g::cps`: the argument's
/// cell (`&NumR`), into which the callee accumulates directly, or [`Discard`] for an argument
/// the caller does not differentiate (the callee then accumulates into a cell of its own).
///
/// [`Discard`]: crate::call::Discard
pub trait CellArg<T>: crate::call::ScalarSink<T> {
    /// The cell to accumulate the parameter's adjoint in: the caller's, or `own`.
    fn cell<'a>(&'a self, own: &'a NumR<T>) -> &'a NumR<T>;
}

impl<T: Float> CellArg<T> for &NumR<T> {
    #[inline(always)]
    fn cell<'a>(&'a self, _own: &'a NumR<T>) -> &'a NumR<T> {
        self
    }
}

impl<T: Float> CellArg<T> for crate::call::Discard {
    #[inline(always)]
    fn cell<'a>(&'a self, own: &'a NumR<T>) -> &'a NumR<T> {
        own
    }
}

/// What a caller passes for an array parameter of a CPS companion `g::cps`: the cells of
/// the argument's elements ([`Cells`]) or [`Discard`](crate::call::Discard).
pub trait CellsArg<T>: crate::call::ArraySink<T> {
    /// The cells to accumulate the elements' adjoints in: the caller's, borrowed, or new ones
    /// made in `own` from `values` (referenced from `refs`).
    fn cells<'a>(
        &'a self,
        values: &[T],
        own: &'a mut Vec<NumR<T>>,
        refs: &'a mut Vec<&'a NumR<T>>,
    ) -> &'a [&'a NumR<T>];
}

impl<T: Float> CellsArg<T> for Cells<'_, '_, T> {
    #[inline]
    fn cells<'a>(
        &'a self,
        _values: &[T],
        _own: &'a mut Vec<NumR<T>>,
        _refs: &'a mut Vec<&'a NumR<T>>,
    ) -> &'a [&'a NumR<T>] {
        self.0
    }
}

impl<T: Float> CellsArg<T> for crate::call::Discard {
    fn cells<'a>(
        &'a self,
        values: &[T],
        own: &'a mut Vec<NumR<T>>,
        refs: &'a mut Vec<&'a NumR<T>>,
    ) -> &'a [&'a NumR<T>] {
        own.extend(values.iter().map(|v| NumR::new(*v)));
        let own: &'a Vec<NumR<T>> = own;
        refs.extend(own.iter());
        let refs: &'a Vec<&'a NumR<T>> = refs;
        refs
    }
}

/// The cells of a fixed-size array parameter, from the slice that [`CellsArg::cells`]
/// returns (its length is the array's).
pub fn array_of<X: Copy, const N: usize>(cells: &[X]) -> [X; N] {
    core::array::from_fn(|k| cells[k])
}

/// Fresh cells for the values of an array: the adjoint cells of an array parameter.
pub fn cells<T: Float>(values: &[T]) -> Vec<NumR<T>> {
    values.iter().map(|v| NumR::new(*v)).collect()
}

/// Fresh cells for the values of a fixed-size array.
pub fn cells_array<T: Float, const N: usize>(values: &[T; N]) -> [NumR<T>; N] {
    core::array::from_fn(|k| NumR::new(values[k]))
}

/// Cells for an array of the shape of `values`, starting at zero adjoints whatever the
/// values (their values are not read): the cells of an array argument passed a second time.
pub fn cells_zero<T: Float>(values: &[T]) -> Vec<NumR<T>> {
    cells(values)
}

/// References to the cells of an array, as the generated code holds them.
pub fn refs<T: Float>(cells: &[NumR<T>]) -> Vec<&NumR<T>> {
    cells.iter().collect()
}

/// The adjoints of an array's cells.
pub fn adjoints<T: Float>(cells: &[NumR<T>]) -> Vec<T> {
    cells.iter().map(NumR::adjoint).collect()
}

/// The adjoint of a whole array as one value, Lantern's `TensorR` gradient: for an array
/// parameter that only loops read, which run as the tape's loops do. Each loop takes the
/// adjoint, runs its reverse sweep on it and puts it back, so the array needs no cell per
/// element.
pub struct WholeAdjoint<V>(core::cell::Cell<Option<V>>);

impl<V> fmt::Debug for WholeAdjoint<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WholeAdjoint").finish_non_exhaustive()
    }
}

impl<V> WholeAdjoint<V> {
    /// Holds the adjoint `zero` (the parameter's zero adjoint).
    #[inline]
    pub fn new(zero: V) -> WholeAdjoint<V> {
        WholeAdjoint(core::cell::Cell::new(Some(zero)))
    }

    /// The adjoint, until [`put`](Self::put) gives it back.
    ///
    /// # Panics
    ///
    /// If it is taken twice without a `put` between (generated code never does).
    #[inline]
    pub fn take(&self) -> V {
        self.0
            .take()
            .expect("the adjoint of an array is taken once at a time")
    }

    /// Gives the adjoint back.
    #[inline]
    pub fn put(&self, adjoint: V) {
        self.0.set(Some(adjoint));
    }
}

/// The adjoints of the cells an array's elements have now (the generated code holds cells as
/// references): the adjoint of a `Vec` or slice that a loop's reverse sweep, run as the
/// tape's, starts from.
pub fn adjoints_of<T: Float>(cells: &[&NumR<T>]) -> Vec<T> {
    cells.iter().map(|c| c.adjoint()).collect()
}

/// `zero`, an adjoint array of the shape of `cells`, holding their adjoints: the adjoint
/// that a loop's reverse sweep, run as the tape's, starts from (the generated code holds
/// cells as references).
pub fn adjoints_into<T: Float, A: AsMut<[T]>>(mut zero: A, cells: &[&NumR<T>]) -> A {
    for (a, c) in zero.as_mut().iter_mut().zip(cells) {
        *a = c.adjoint();
    }
    zero
}

/// Sets each cell's adjoint to the element of `adjoints` at its index: the cells receive what
/// a loop's reverse sweep accumulated, starting from [`adjoints_of`] (so the sums are the
/// tape's, term for term).
pub fn set_adjoints<T: Float>(cells: &[&NumR<T>], adjoints: &[T]) {
    for (c, a) in cells.iter().zip(adjoints) {
        c.set(*a);
    }
}

/// A float array or `Vec` built from the adjoints of its elements' cells: the seed of a
/// callee's reverse sweep for an array result, typed like the result.
pub trait FromAdjoints<T>: Sized {
    /// The adjoints of `cells`, as this type.
    fn from_adjoints(cells: &[NumR<T>]) -> Self;

    /// The adjoints of `cells`, as the same type as `self`.
    fn like_adjoints(&self, cells: &[NumR<T>]) -> Self {
        Self::from_adjoints(cells)
    }
}

impl<T: Float, const N: usize> FromAdjoints<T> for [T; N] {
    fn from_adjoints(cells: &[NumR<T>]) -> Self {
        adjoints_array(cells)
    }
}

impl<T: Float> FromAdjoints<T> for Vec<T> {
    fn from_adjoints(cells: &[NumR<T>]) -> Self {
        adjoints(cells)
    }
}

/// The adjoints of `cells`, typed like the value whose type [`witness`] recorded (an array
/// or a `Vec`, as a callee returned it): the adjoint of an array that a statement run as the
/// tape's defines, for the callee's reverse sweep.
pub fn adjoints_as<T, V: FromAdjoints<T>>(_like: PhantomData<V>, cells: &[NumR<T>]) -> V {
    V::from_adjoints(cells)
}

/// The adjoints of `cells`, typed like `like` (see [`FromAdjoints`]).
pub fn adjoints_like<T, V: FromAdjoints<T>>(like: &V, cells: &[NumR<T>]) -> V {
    like.like_adjoints(cells)
}

/// The adjoints of an array's cells, as a fixed-size array.
pub fn adjoints_array<T: Float, const N: usize>(cells: &[NumR<T>]) -> [T; N] {
    core::array::from_fn(|k| cells[k].adjoint())
}

/// The type of the values `like()` would return (`like` is never called). With [`typed`],
/// it gives a continuation defined before the code that calls it the types of the values
/// carried into it, which the macro cannot spell: integers, iterators, user types.
#[inline(always)]
pub fn witness<S>(_like: impl FnOnce() -> S) -> PhantomData<S> {
    PhantomData
}

/// Pins the type of `value` to the one [`witness`] recorded.
#[inline(always)]
pub fn typed<S>(_value: &S, _witness: PhantomData<S>) {}

/// A continuation called at most once, behind the `FnMut` that a loop's `&mut dyn FnMut`
/// needs (the rest of the body after a loop may consume what it captured, such as the
/// continuation of an enclosing `if`).
#[derive(Debug)]
pub struct Once<K>(Option<K>);

impl<K> Once<K> {
    /// Wraps `k`.
    #[inline(always)]
    pub fn new(k: K) -> Once<K> {
        Once(Some(k))
    }

    /// Takes the continuation out; the generated code calls it once, when the loop ends.
    #[inline(always)]
    pub fn take(&mut self) -> K {
        match self.0.take() {
            Some(k) => k,
            None => unreachable!("a loop's continuation runs once"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{ArraySink, ScalarSink};

    #[test]
    fn cells_accumulate_through_sinks() {
        let x = NumR::new(2.0_f64);
        let mut sink = &x;
        sink.add(1.5);
        sink.reborrow().add(1.0);
        assert_eq!(x.adjoint(), 2.5);
        let cells = cells(&[1.0_f64, 2.0, 3.0]);
        let refs = refs(&cells);
        let mut sink = Cells(&refs);
        sink.add_at(1, 2.0);
        sink.reborrow().add_all(&[1.0, 1.0, 1.0]);
        assert_eq!(adjoints(&cells), [1.0, 3.0, 1.0]);
        assert_eq!(adjoints_array::<f64, 3>(&cells), [1.0, 3.0, 1.0]);
    }

    #[test]
    #[cfg(feature = "cps")]
    fn grow_survives_a_deep_recursion() {
        fn depth(n: u64) -> u64 {
            if n == 0 {
                0
            } else {
                grow(|| depth(n - 1) + 1)
            }
        }
        assert_eq!(depth(1_000_000), 1_000_000);
    }
}
