//! The attributes of the [`revad`](https://docs.rs/revad) crate: `#[reverse]`, `#[forward]`,
//! `#[derivative]` and `#[derive(Adjoint)]`.
//!
//! Depend on `revad`, not on this crate: `revad` re-exports these attributes with the runtime
//! that the generated code calls, and the generated code names that runtime through `revad`
//! (by the name the user's `Cargo.toml` gives it, or the path given with `crate = path`).
//!
//! # Layout
//!
//! Data flows one way, syntax → IR → analyses → backends, with a driver on top; no stage
//! reaches back into an earlier one, and no file imports another in a cycle (the test
//! `tests/module_graph.rs` fails on one).
//!
//! ```text
//! lib.rs        the entry points; krate.rs: the path to the runtime in the user's crate
//! driver/       #[reverse], #[forward], #[derivative]: parse → lower → analyse → backend;
//!               attrs.rs (attributes of one function), hessian.rs (#[reverse(hessian)]),
//!               traits.rs (#[reverse] on a trait and its impl blocks, on an inherent impl)
//! parse/        attribute arguments and the signature model (no emission)
//! ir/           the IR and its contract (mod.rs), lowering (lower/), and the analyses:
//!               types, activity, snapshot, needs, plan (the reverse sweep's storage),
//!               linear (each operation's local partials, as data)
//! rules.rs      the macro's view of the runtime's one list of intrinsics
//! codegen/      the backends: tape/ (default), cps, forward (+ jacobian), hessian,
//!               derivative (no backend imports another); and the layer they share:
//!               shared (the Emitter: primal statements, adjoint contributions), sweep
//!               (a block's forward and reverse sweeps, with inner.rs and checkpoint.rs:
//!               the tape's whole body, the CPS backend's loops), linear
//!               (the one interpreter of the partials), convention (the CPS companion of
//!               any callee), tokens (names, constants, spans: a leaf), inout, closures,
//!               generic, grow, messages
//! derive.rs     #[derive(Adjoint)]; lift.rs: the generic copy of #[reverse(hessian)]
//! error.rs      the one channel for errors (it cannot be dropped with errors in it)
//! test_support  the snapshot harness (tests only)
//! ```
//!
//! The backend of `NAME_vjp` (`#[reverse]`: tape, `#[reverse(cps)]`: CPS) is a value the
//! driver passes to `codegen::emit`; each backend checks its own limits (`cps::check`,
//! `forward::check`).
//!
//! To see what a stage produced:
//!
//! - the IR (`ir::print`, one statement per line, active variables marked `*`):
//!   `AD_IR=path/to/file.rs cargo test -p revad-macros ir_file -- --nocapture`;
//! - the expansion (pretty-printed): `AD_EXPAND=path/to/file.rs cargo test -p revad-macros
//!   expand_file -- --nocapture`;
//! - the expansion's size and the macro's time: `AD_EXPAND_STATS=path/to/file.rs cargo test
//!   -p revad-macros expansion_size -- --nocapture` (`benches/compile-time.sh` runs it).
//!
//! The first two print every `#[reverse]` function of the file. The fixtures `tests/expand/NAME.rs`
//! have snapshots of both, `NAME.ir` and `NAME.expanded.rs`; `AD_SNAPSHOTS=overwrite cargo
//! test -p revad-macros` rewrites them, and the diff is reviewed like code.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod codegen;
mod derive;
mod driver;
mod error;
mod ir;
mod krate;
mod lift;
mod parse;
mod rules;
#[cfg(test)]
mod test_support;

/// Differentiates a function in reverse mode at compile time.
///
/// Keeps the function unchanged and generates, with the same visibility:
///
/// - `NAME_vjp(<params>, seed, <seeds of the &mut params>) -> (R, G)`: the value and the
///   vector-Jacobian product, for any output of floats (`f64`, `f32`, `[f64; N]`,
///   `Vec<f64>`, tuples of these, structs and enums that derive `Adjoint`);
/// - `NAME_grad(<params>) -> (R, G)` when the output is a scalar: the value and the gradient;
/// - with `hessian`, `NAME_hvp`, `NAME_hessian` and `NAME_hessian_diag`.
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
/// what to write instead. The crate documentation of `revad` states the subset and gives
/// every generated function's signature.
///
/// # Traits
///
/// On a `trait` and on each `impl Trait for Type` block (an attribute on a method sees only
/// the method, and a trait impl may hold only the trait's items), with `#[reverse]` on the
/// methods to differentiate: the trait declares their derivatives (`NAME_vjp`, `NAME_grad`,
/// and hidden split companions) as its own items, each impl block defines them, and a
/// default method's are defined once, in the trait, for every impl that keeps it. Annotated
/// code calls the methods on a concrete type or through a generic bound (`fn fit<M:
/// Model>(m: &M, ..)`), dispatched statically. The attribute makes `revad::Adjoint` a
/// supertrait of the trait, and requires itself on every impl block of the trait.
///
/// ```
/// #[revad::reverse]
/// pub trait Model {
///     #[reverse]
///     fn eval(&self, x: f64) -> f64;
///
///     #[reverse]
///     fn loss(&self, x: f64, y: f64) -> f64 {
///         let e = self.eval(x) - y;
///         e * e
///     }
/// }
///
/// #[derive(Clone, revad::Adjoint)]
/// pub struct Scale {
///     pub k: f64,
/// }
///
/// #[revad::reverse]
/// impl Model for Scale {
///     #[reverse]
///     fn eval(&self, x: f64) -> f64 {
///         self.k * x
///     }
/// }
///
/// #[revad::reverse]
/// fn fit<M: Model>(m: &M, x: f64) -> f64 {
///     m.loss(x, 1.0)
/// }
///
/// let s = Scale { k: 2.0 };
/// let (value, (ds, dx, dy)) = s.loss_grad(1.5, 1.0); // e = k x - y = 2
/// assert_eq!((value, ds.k, dx, dy), (4.0, 6.0, 8.0, -4.0));
/// let (_, (ds, dx)) = fit_grad(&s, 1.5);
/// assert_eq!((ds.k, dx), (6.0, 8.0));
/// ```
///
/// # Inherent impl blocks
///
/// On an inherent `impl Type` block, it tells the `#[reverse]` and `#[revad::forward]` of the
/// block's functions that they are in an `impl` block: an associated function without `self`
/// and without `Self` in its signature or body looks like a free function to an attribute
/// that sees only the function, and needs it.
///
/// ```
/// pub struct Foo;
///
/// #[revad::reverse]
/// impl Foo {
///     #[revad::reverse]
///     pub fn sq(x: f64) -> f64 {
///         x * x
///     }
/// }
///
/// #[revad::reverse]
/// fn user(x: f64) -> f64 {
///     Foo::sq(x) + 1.0
/// }
///
/// assert_eq!(Foo::sq_grad(3.0), (9.0, 6.0));
/// assert_eq!(user_grad(3.0), (10.0, 6.0));
/// ```
///
/// # Options
///
/// `#[reverse(..)]` takes these, separated by commas, in any order:
///
/// - `wrt(a, b)`: differentiate with respect to the named parameters only (by default, every
///   parameter that carries floats). The others get no adjoint: the gradient holds the
///   adjoints of `a` and `b`, in parameter order. On a method, `wrt(self)` names the
///   receiver.
/// - `cps`: generate `NAME_vjp` with the continuation-passing backend (an adjoint cell per
///   value, the rest of the body as each operation's continuation) instead of the tape; the
///   same functions and the same numbers. It needs the feature `cps` of `revad` (`revad = {
///   version = "0.1", features = ["cps"] }`), which builds the crate `stacker`, whose
///   dependency `psm` compiles C; without the feature, `cps` is a compile error that says
///   so. Everything the tape takes, it takes.
/// - `hessian`: also generate `NAME_hvp(<params>, <directions>) -> (R, G, H·v)`,
///   `NAME_hessian(<params>) -> (R, G, Vec<Vec<F>>)` and `NAME_hessian_diag(<params>) -> (R,
///   G, Vec<F>)` (forward over reverse), and make `NAME_grad` and `NAME_jvp` callable from
///   other `#[reverse]` and `#[forward]` functions. For free functions with a float result
///   and float or float-array parameters by value or `&`.
/// - `recompute`: when another `#[reverse]` function calls this one, its tape keeps only the
///   arguments, and this function's forward sweep runs again in the caller's reverse sweep
///   (the same derivative, bit for bit, for about one more evaluation of this function): for
///   a callee whose values outweigh its arguments, called many times. Not on methods, on
///   functions with a `&mut` parameter or a function argument (a compile error at
///   `recompute`). `NAME_vjp` and `NAME_grad` are unchanged.
/// - `crate = path` (or `crate = "path"`): where the generated code finds `revad`, for a
///   crate that reaches it through a re-export (`crate = my_lib::revad`), as serde's
///   `#[serde(crate = "..")]`. Without it, the generated code names `revad` by the name the
///   user's `Cargo.toml` gives it (`autodiff = { package = "revad", version = "0.1" }` gives
///   `::autodiff`).
///
/// ```
/// #[revad::reverse(wrt(w))]
/// fn loss(w: &[f64], x: &[f64], y: f64) -> f64 {
///     let mut p = 0.0;
///     for i in 0..w.len() {
///         p += w[i] * x[i];
///     }
///     (p - y) * (p - y)
/// }
///
/// // One differentiated parameter: the gradient is its adjoint, bare.
/// let (value, dw) = loss_grad(&[1.0, 2.0], &[3.0, 4.0], 10.0);
/// assert_eq!(value, 1.0);
/// assert_eq!(dw, [6.0, 8.0]);
///
/// #[revad::reverse(cps, hessian)]
/// fn cube(x: f64) -> f64 {
///     x * x * x
/// }
///
/// assert_eq!(cube_grad(2.0), (8.0, 12.0));
/// assert_eq!(cube_hessian(2.0).2, [[12.0]]);
/// ```
///
/// In the body, `#[revad::checkpoint]` or `#[revad::checkpoint(snapshots = k)]` on a `for`
/// loop over a range makes `NAME_vjp` keep at most `k` states of the loop (64 by default)
/// and recompute the others (binomial checkpointing; see the crate docs of `revad`). The
/// attribute is removed from the function the macro emits.
///
/// ```
/// #[revad::reverse]
/// fn grow(x: f64, n: usize) -> f64 {
///     let mut s = x;
///     #[revad::checkpoint(snapshots = 3)]
///     for _ in 0..n {
///         s = 1.5 * s;
///     }
///     s
/// }
///
/// assert_eq!(grow_grad(2.0, 10), (2.0 * 1.5f64.powi(10), 1.5f64.powi(10)));
/// ```
#[proc_macro_attribute]
pub fn reverse(args: TokenStream, item: TokenStream) -> TokenStream {
    with_crate_path(args, item, driver::reverse)
}

/// Differentiates a function in forward mode at compile time.
///
/// Keeps the function unchanged and generates, with the same visibility:
///
/// - `NAME_jvp(<params>, <tangents>) -> (R, Ṙ)`: the value and the Jacobian-vector product,
///   the derivative of the output along a direction given by one tangent per differentiated
///   parameter, of the parameter's own type (`f64` for `f64`, `&[f64]` for `&[f64]`, `&mut
///   [f64]` for `&mut [f64]`, which it updates as the function updates the parameter). `Ṙ`
///   has the output's shape (`f64`, `[f64; N]`, `Vec<f64>`, tuples of these).
/// - `NAME_jacobian(<params>) -> (R, Vec<Vec<F>>)`: the dense Jacobian, row `i` the
///   derivatives of output entry `i`, column `k` those along input entry `k` (one `NAME_jvp`
///   per input entry, or, with `#[reverse]` on the function too and fewer outputs than
///   inputs, one `NAME_vjp` per output entry). For free, non-generic functions of floats and
///   float arrays or slices (by value or `&`) with a float, array or `Vec` result.
/// - with `vector`, `NAME_jvp_vec`.
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
/// differentiate with respect to structs or nested containers yet, nor call methods (a compile
/// error says so); a method whose `self` `wrt(..)` leaves out is differentiated in its other
/// parameters (`#[revad::forward(wrt(t))] fn at(&self, t: f64)`: `o.at_jvp(t, dt)`), in an
/// inherent impl and in a trait impl with `#[revad::reverse]` (whose `NAME_jvp` is then an
/// inherent function of the type).
///
/// # Options
///
/// `#[forward(..)]` takes these, separated by commas, in any order:
///
/// - `wrt(a, b)`: take tangents for the named parameters only (by default, every parameter
///   that carries floats); the others are constants.
/// - `vector`: also generate `NAME_jvp_vec<const N: usize>(<params>, <tangents>) -> (R, Ṙ)`,
///   `N` directions in one pass: each float of a tangent, and of `Ṙ`, is a
///   `revad::Lanes<F, N>` (lane `k` is direction `k`), so the primal runs once and the
///   tangent code on `N` lanes. Annotated callees need `vector` too.
/// - `crate = path` (or `crate = "path"`): where the generated code finds `revad`, as for
///   `#[reverse]`.
///
/// (`cps`, `hessian` and `recompute` are options of `#[reverse]`, an error here.)
///
/// ```
/// use revad::Lanes;
///
/// #[revad::forward(wrt(p), vector)]
/// fn scaled(p: [f64; 2], k: f64) -> f64 {
///     k * p[0] * p[1]
/// }
///
/// let (_, d) = scaled_jvp([2.0, 3.0], 10.0, [1.0, 0.0]);
/// assert_eq!(d, 30.0);
/// // Both unit directions at once: the gradient with respect to `p`.
/// let (_, d) = scaled_jvp_vec([2.0, 3.0], 10.0, [Lanes([1.0, 0.0]), Lanes([0.0, 1.0])]);
/// assert_eq!(d.0, [30.0, 20.0]);
/// assert_eq!(scaled_jacobian([2.0, 3.0], 10.0).1, [[30.0, 20.0]]);
/// ```
#[proc_macro_attribute]
pub fn forward(args: TokenStream, item: TokenStream) -> TokenStream {
    with_crate_path(args, item, driver::forward)
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
/// return `f64` or `f32` (or `T: Float`).
///
/// # Options
///
/// - `vjp = path` (required): the pullback, `fn(<params>, output, seed) -> <adjoints of the
///   float parameters>`.
/// - `jvp = path`: the forward rule, `fn(<params>, output, <tangents of the float
///   parameters>) -> <tangent of the output>`. With it, the attribute also generates
///   `NAME_jvp(<params>, <tangents>) -> (R, Ṙ)` and `#[forward]` code may call the function;
///   without it, a `#[forward]` caller is a compile error at the call.
/// - `crate = path` (or `crate = "path"`): where the generated code finds `revad`, as for
///   `#[reverse]`.
///
/// A rule written generic over `T: revad::Float` (the function too) runs on dual numbers, so
/// second derivatives and nested derivatives go through it.
///
/// ```
/// /// The forward rule: the parameters, the output, then the tangents of the float
/// /// parameters; returns the output's tangent.
/// fn softplus_tangent(x: f64, _out: f64, dx: f64) -> f64 {
///     dx / (1.0 + (-x).exp())
/// }
/// # fn softplus_pullback(x: f64, _out: f64, seed: f64) -> f64 {
/// #     seed / (1.0 + (-x).exp())
/// # }
///
/// #[revad::derivative(vjp = softplus_pullback, jvp = softplus_tangent)]
/// fn softplus(x: f64) -> f64 {
///     if x > 30.0 { x } else { x.exp().ln_1p() }
/// }
///
/// #[revad::forward]
/// fn loss(x: f64) -> f64 {
///     softplus(2.0 * x) * 3.0
/// }
///
/// let (_, d) = softplus_jvp(0.0, 1.0);
/// assert_eq!(d, 0.5);
/// let (_, d) = loss_jvp(0.0, 1.0);
/// assert_eq!(d, 3.0);
/// ```
#[proc_macro_attribute]
pub fn derivative(args: TokenStream, item: TokenStream) -> TokenStream {
    with_crate_path(args, item, driver::derivative)
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
/// - Unions are rejected: which field of a union holds its value is not known.
///
/// # Options
///
/// In `#[adjoint(..)]` on the type (one attribute or several):
///
/// - `name = Ident`: names the adjoint type (`#[adjoint(name = ParticleGrad)]`; an
///   identifier, not a string). By default, the type's name followed by `Adjoint`.
/// - `crate = path` (or `crate = "path"`): where the generated impl finds `revad`, as for
///   `#[reverse]`: for a crate that reaches `revad` through a re-export. Without it, `revad`
///   is named as the user's `Cargo.toml` names it.
///
/// ```
/// #[derive(revad::Adjoint)]
/// #[adjoint(name = SpringGrad)]
/// pub struct Spring {
///     pub k: f64,
///     pub rest: f64,
/// }
///
/// let g = SpringGrad { k: 1.0, rest: 0.0 };
/// assert_eq!(g.clone(), g);
/// ```
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
