//! Runtime support for the `revad` crate.
//!
//! Users depend on the facade crate `revad`, which re-exports everything here. This crate holds
//! the parts of reverse-mode differentiation that are ordinary library code rather than code
//! generation:
//!
//! - [`rules`]: the one table of intrinsic derivative rules (values and partials), with the
//!   conventions at non-differentiable points (JAX's, in float64). The macro crate depends on
//!   this one to read that table ([`rules::INTRINSICS`]); this crate does not depend on it.
//! - [`ValueStack`]: the typed stack that generated code uses to carry values from the forward
//!   sweep of a loop (or of a called function) to its reverse sweep.
//! - [`checkpoint`]: binomial checkpointing (revolve) of long loops under a snapshot budget:
//!   [`checkpoint::revolve`] over a step function, and [`checkpoint::Revolve`], the schedule
//!   that the code generated for `#[revad::checkpoint]` drives one step at a time.
//! - [`check`]: a central finite-difference gradient checker for tests and users.
//! - [`Adjoint`]: a value that has an adjoint (gradient): its type, a zero of the value's
//!   shape, and accumulation; implemented for floats, arrays, slices, `Vec`s, tuples,
//!   `Option`s and references, for user types by `#[derive(revad::Adjoint)]`, and with the
//!   zero-sized adjoint [`Zero`] for integers and other inactive data. The module [`adjoint`]
//!   also holds the helpers generated code uses to build and add adjoints.
//! - [`call`]: what calls between differentiated functions need (adjoint sinks, and the
//!   marker trait whose absence is the "has no derivative" compile error).
//! - [`inout`]: `&mut` float parameters, read on entry and written back on return.
//! - [`Dual`], [`DualVec`] ([`dual`]): forward-mode dual numbers, a value and one or `N`
//!   tangents, nestable (`Dual<Dual<f64>>` for second derivatives); they implement [`Float`],
//!   with every intrinsic's tangent from [`rules`], and `num-traits`' `Float` and `FloatConst`
//!   (so generic code written for `num-traits` runs on them).
//! - [`forward`]: forward mode for closures and generic functions (derivatives, JVPs,
//!   gradients, Jacobians, Hessians) over those dual numbers.
//! - [`function`]: function arguments of differentiated higher-order functions (the traits
//!   their companions call instead of `Fn`).
//! - [`cps`]: the dual type of the continuation-passing backend (`#[reverse(cps)]`): a value
//!   and its adjoint cell.
//! - [`grow`]: the reverse of the operations that grow or shrink a float `Vec`.
//! - [`expect`]: the types generated code expects but cannot see (a callee's result, a
//!   pullback's), checked with one error at the user's code.
//! - [`view`]: the index arithmetic of slices (`&x[a..b]`, chunks, windows), which generated
//!   code reads as elements of the base array, checked like Rust's slices.
//! - [`Float`] ([`float`]): the float types that generated code differentiates (`f64`, `f32`
//!   and the dual numbers), and the bound of generic functions (`T: Float`).
//! - [`stop_gradient`] ([`gradient`]): a value through which no derivative flows.
//! - [`Lanes`] ([`lanes`]): `N` tangents of one float, the tangents of `NAME_jvp_vec`.
//! - [`Accumulate`] ([`accumulate`]): adding one adjoint into another, named by the adjoint's
//!   type alone.
//! - [`second`]: what the functions `#[reverse(hessian)]` generates use.
//! - [`linalg`]: the derivative rules of vector and matrix operations; with the feature
//!   `nalgebra`, the module `nalgebra` implements them for `nalgebra`'s fixed-size matrices.
//!
//! Features: `cps` adds `cps::grow` (with the crate `stacker`, whose dependency `psm`
//! compiles C), `nalgebra` the module `nalgebra`. The default features need no C compiler.
#![forbid(unsafe_code)]

pub mod accumulate;
pub mod adjoint;
pub mod call;
pub mod check;
pub mod checkpoint;
pub mod cps;
pub mod dual;
pub mod expect;
pub mod float;
pub mod forward;
pub mod function;
pub mod gradient;
pub mod grow;
pub mod inout;
pub mod lanes;
pub mod linalg;
#[cfg(feature = "nalgebra")]
pub mod nalgebra;
pub mod rules;
pub mod second;
pub mod stack;
pub mod view;

pub use accumulate::Accumulate;
pub use adjoint::{Adjoint, Zero};
pub use dual::{Dual, DualVec};
pub use float::Float;
pub use gradient::{stop_gradient, StopGradient};
pub use lanes::Lanes;
pub use stack::ValueStack;

/// The crate `num-traits`, whose `Float` the dual numbers implement ([`dual`]) and whose
/// bounds `#[reverse]` and `#[forward]` take on generic functions (`T: num_traits::Float`).
pub use num_traits;
