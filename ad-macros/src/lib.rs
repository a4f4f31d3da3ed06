//! The `#[reverse]` attribute of the [`revad`](https://docs.rs/revad) crate.
//!
//! Depend on `revad`, not on this crate: the generated code names runtime items through `::ad`.
//!
//! The pipeline (`expand`) reads the signature (`parse`), lowers the body to an IR in
//! A-normal form (`ir::lower`), analyses it (`ir::activity`, `ir::snapshot`; the tape's storage plan in `codegen::tape::plan`) and
//! emits the adjoint code (`codegen`). Data flows one way; each stage reads only the output
//! of the previous one. The intrinsic table is the runtime's, `revad_runtime::rules::INTRINSICS`,
//! read through `rules`. The backend (`#[reverse]`: tape, `#[reverse(cps)]`: CPS) is a value
//! the pipeline matches on in `codegen::emit`.
//!
//! To see what a stage produced:
//!
//! - the IR (`ir::print`, one statement per line, active variables marked `*`):
//!   `AD_IR=path/to/file.rs cargo test -p revad-macros ir_file -- --nocapture`;
//! - the expansion (pretty-printed): `AD_EXPAND=path/to/file.rs cargo test -p revad-macros
//!   expand_file -- --nocapture`.
//!
//! Both print every `#[reverse]` function of the file. The fixtures `tests/expand/NAME.rs`
//! have snapshots of both, `NAME.ir` and `NAME.expanded.rs`; `AD_SNAPSHOTS=overwrite cargo
//! test -p revad-macros` rewrites them, and the diff is reviewed like code.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod codegen;
mod derive;
mod error;
mod expand;
mod ir;
mod krate;
mod lift;
mod parse;
mod rules;

/// Differentiates a function in reverse mode at compile time.
///
/// Keeps the function unchanged and generates, with the same visibility:
///
/// - `NAME_vjp(<params>, seed) -> (R, G)`: the value and the vector-Jacobian product, for
///   any output of floats (`f64`, `f32`, `[f64; N]`, `Vec<f64>`, tuples of these);
/// - `NAME_grad(<params>) -> (R, G)` when the output is a scalar: the value and the gradient.
///
/// `G` holds the adjoint of each active parameter in order (a tuple when there are several,
/// the bare adjoint when there is one): `f64`/`f32` for scalars, `[f64; N]` for arrays,
/// `Vec<f64>` for `&[f64]`, `Vec<f64>` and `&Vec<f64>`, and `<T as revad::Adjoint>::Adj` for a
/// user type with `#[derive(revad::Adjoint)]`, a nested container or a tuple (`self` too: the
/// attribute applies to methods and associated functions). Integers, `bool`, `char` and
/// strings are inactive. `#[reverse(wrt(a, b))]` makes only the named parameters active; on
/// a method, `wrt(self)` names the receiver (`wrt(self, g)`: the receiver and `g`).
///
/// ```
/// use revad::reverse;
///
/// #[reverse]
/// fn f(x: f64, y: f64) -> f64 {
///     2.0 * x + x * x * y
/// }
///
/// let (value, (dx, dy)) = f_grad(3.0, 4.0);
/// assert_eq!(value, 42.0);
/// assert_eq!((dx, dy), (26.0, 9.0));
/// ```
///
/// Code outside the supported subset is a compile error at the offending construct, saying
/// what to write instead. See the crate documentation of `revad` for the subset.
#[proc_macro_attribute]
pub fn reverse(args: TokenStream, item: TokenStream) -> TokenStream {
    with_crate_path(args, item, expand::reverse)
}

/// Differentiates a function in forward mode at compile time.
///
/// Keeps the function unchanged and generates, with the same visibility,
/// `NAME_jvp(<params>, <tangents>) -> (R, Ṙ)`: the value and the Jacobian-vector product,
/// the derivative of the output along a direction given by one tangent per differentiated
/// parameter, of the parameter's own type (`f64` for `f64`, `&[f64]` for `&[f64]`, `&mut
/// [f64]` for `&mut [f64]`, which it updates as the function updates the parameter). `Ṙ` has
/// the output's shape (`f64`, `[f64; N]`, `Vec<f64>`, tuples of these).
///
/// ```
/// #[revad::forward]
/// fn f(x: f64, y: f64) -> f64 {
///     x * y + x.sin()
/// }
///
/// // Along (1, 0): ∂f/∂x = y + cos x.
/// let (value, dx) = f_jvp(2.0, 3.0, 1.0, 0.0);
/// assert_eq!(value, f(2.0, 3.0));
/// assert_eq!(dx, 3.0 + 2.0_f64.cos());
/// ```
///
/// The tangent code is straight-line code beside the primal, derived from the same statement
/// of local partials and the same rule table as `#[reverse]`'s reverse sweep: one pass costs
/// a small constant times the primal, with no stack and no heap beyond the primal's.
/// `#[revad::forward(wrt(a, b))]` takes tangents only for the named parameters. Annotated
/// functions call each other's forward derivatives (`#[revad::forward]` on the callee too).
/// `#[revad::forward]` and `#[reverse]` may both annotate a function. Forward mode does not
/// take structs, methods or nested containers yet (a compile error says so).
#[proc_macro_attribute]
pub fn forward(args: TokenStream, item: TokenStream) -> TokenStream {
    with_crate_path(args, item, expand::forward)
}

/// Registers a hand-written derivative for a function, like JAX's `custom_vjp`.
///
/// For a function the macro cannot differentiate (a call into a solver, a special function
/// with a known derivative) or should not (a numerically better formula):
///
/// ```
/// use revad::{derivative, reverse};
///
/// /// log(1 + e^x), computed stably; its derivative is the logistic function.
/// #[derivative(vjp = softplus_pullback)]
/// fn softplus(x: f64) -> f64 {
///     if x > 30.0 { x } else { x.exp().ln_1p() }
/// }
///
/// /// The pullback: the parameters, the output and the seed in; the adjoints out.
/// fn softplus_pullback(x: f64, _out: f64, seed: f64) -> f64 {
///     seed / (1.0 + (-x).exp())
/// }
///
/// #[reverse]
/// fn loss(x: f64) -> f64 {
///     softplus(2.0 * x) * 3.0
/// }
///
/// let (_, d) = loss_grad(0.25);
/// assert!((d - 6.0 / (1.0 + (-0.5f64).exp())).abs() < 1e-15);
/// ```
///
/// The pullback takes every parameter, then the output, then the seed (the adjoint of the
/// output), and returns the adjoints of the float parameters, scaled by the seed: the bare
/// adjoint when there is one float parameter, a tuple in parameter order otherwise (`Vec<f64>`
/// or `[f64; N]` for array parameters). `#[reverse]` code that calls the function uses the
/// pullback; `NAME_grad` and `NAME_vjp` are generated as for `#[reverse]`. The function must
/// return `f64` or `f32`.
#[proc_macro_attribute]
pub fn derivative(args: TokenStream, item: TokenStream) -> TokenStream {
    with_crate_path(args, item, expand::derivative)
}

/// Derives `revad::Adjoint` for a struct or an enum: generates its adjoint (gradient) type,
/// `NameAdjoint`, and the impl.
///
/// The adjoint type has the fields of the type (the same names, positions, visibilities and
/// variants), each of the adjoint type of the field's type, `<FieldTy as revad::Adjoint>::Adj`:
/// `f64` for `f64`, `[f64; 3]` for `[f64; 3]`, `Vec<f64>` for `Vec<f64>` and `&[f64]`,
/// `ParticleAdjoint` for a field of a type `Particle` that derives `Adjoint`, and the
/// zero-sized `revad::Zero` for inactive data (integers, `bool`, strings), which costs nothing.
/// It implements `Clone`, `Debug` and `PartialEq`, and has the visibility of the type.
///
/// ```
/// #[derive(Clone, revad::Adjoint)]
/// pub struct Particle {
///     pub pos: [f64; 3],
///     pub vel: [f64; 3],
///     pub mass: f64,
///     pub id: usize,
/// }
///
/// use revad::Adjoint;
///
/// let p = Particle { pos: [1.0, 2.0, 3.0], vel: [0.0; 3], mass: 2.0, id: 7 };
/// let mut grad: ParticleAdjoint = p.zero_adjoint();
/// assert_eq!(grad.pos, [0.0; 3]);
/// assert_eq!(grad.id, revad::Zero);
///
/// // `accumulate` adds field by field.
/// let step = ParticleAdjoint { pos: [1.0, 0.0, 0.0], vel: [0.0; 3], mass: 0.5, id: revad::Zero };
/// Particle::accumulate(&mut grad, &step);
/// Particle::accumulate(&mut grad, &step);
/// assert_eq!(grad.pos, [2.0, 0.0, 0.0]);
/// assert_eq!(grad.mass, 1.0);
/// ```
///
/// # The impl
///
/// For the struct above, the derive generates
///
/// ```text
/// pub struct ParticleAdjoint {
///     pub pos: <[f64; 3] as ::revad::Adjoint>::Adj,   // [f64; 3]
///     pub vel: <[f64; 3] as ::revad::Adjoint>::Adj,   // [f64; 3]
///     pub mass: <f64 as ::revad::Adjoint>::Adj,       // f64
///     pub id: <usize as ::revad::Adjoint>::Adj,       // revad::Zero
/// }
/// // Clone, Debug and PartialEq, field by field
///
/// impl ::revad::Adjoint for Particle {
///     type Adj = ParticleAdjoint;
///     // A zero of each field, of the field's shape (lengths of `Vec`s included).
///     fn zero_adjoint(&self) -> ParticleAdjoint { .. }
///     // `Adjoint::accumulate` of each field.
///     fn accumulate(acc: &mut ParticleAdjoint, other: &ParticleAdjoint) { .. }
/// }
/// ```
///
/// - Tuple structs get a tuple struct (`struct Pair(f64, Vec<f64>)` → `PairAdjoint(f64,
///   Vec<f64>)`), unit structs a unit struct.
/// - Enums get an enum with the same variants. `zero_adjoint` keeps the variant of the value;
///   `accumulate` panics, naming the type, when the two adjoints are different variants.
/// - Generic types get a generic adjoint type (`struct Layer<T> { w: Vec<T> }` →
///   `LayerAdjoint<T>`), with a bound `FieldTy: revad::Adjoint` for each field whose type names a
///   generic parameter (`where Vec<T>: revad::Adjoint`), on the adjoint type and on the impl;
///   a recursive field (`kids: Vec<Tree<T>>` in `Tree<T>`) needs none.
///   Lifetimes are kept: `struct View<'a> { xs: &'a [f64] }` → `ViewAdjoint<'a>`, whose `xs`
///   is a `Vec<f64>`.
/// - Recursive types work through a `Box` or a `Vec` (`Box<T>`'s adjoint is `Box<T::Adj>`).
/// - `#[adjoint(name = ParticleGrad)]` on the type names the adjoint type `ParticleGrad`.
/// - Unions are rejected: which field of a union holds its value is not known.
#[proc_macro_derive(Adjoint, attributes(adjoint))]
pub fn derive_adjoint(input: TokenStream) -> TokenStream {
    derive::adjoint(input.into()).into()
}

/// Runs an attribute's expansion on its arguments less `crate = path`, then names the runtime
/// by the path the user's crate has for it (`krate`). A malformed `crate = ..` is an error,
/// with the item kept as written.
fn with_crate_path(
    args: TokenStream,
    item: TokenStream,
    expand: impl FnOnce(proc_macro2::TokenStream, proc_macro2::TokenStream) -> proc_macro2::TokenStream,
) -> TokenStream {
    match krate::split_args(args.into()) {
        Ok((path, args)) => path.apply(expand(args, item.into())).into(),
        Err(err) => {
            let mut out = err.to_compile_error();
            out.extend(proc_macro2::TokenStream::from(item));
            out.into()
        }
    }
}
