//! Compile-time reverse- and forward-mode automatic differentiation of ordinary Rust
//! functions, on stable Rust.
//!
//! ```sh
//! cargo add revad
//! ```
//!
//! or, in `Cargo.toml`:
//!
//! ```toml
//! [dependencies]
//! revad = "0.1"
//! ```
//!
//! Annotate a function with [`#[reverse]`](macro@reverse) and call the generated `NAME_grad`
//! (scalar outputs) or `NAME_vjp` (any float-carrying output, with an output seed):
//!
//! ```
//! use revad::reverse;
//!
//! #[reverse]
//! fn f(x: f64, y: f64) -> f64 {
//!     2.0 * x + x * x * y
//! }
//!
//! let (value, (dx, dy)) = f_grad(3.0, 4.0);
//! assert_eq!(value, f(3.0, 4.0));
//! assert_eq!((dx, dy), (2.0 + 2.0 * 3.0 * 4.0, 3.0 * 3.0));
//! let (_, (dx, dy)) = f_vjp(3.0, 4.0, 0.5); // scaled by the output's seed
//! assert_eq!((dx, dy), (13.0, 4.5));
//! ```
//!
//! The macro rewrites the body into straight-line adjoint code at compile time: no tape of
//! closures, no heap allocation for code without loops, no dynamic dispatch. The function
//! bodies it takes are those of [the supported subset](#the-supported-subset); anything else
//! is a compile error at the construct.
//!
//! # The attributes
//!
//! | attribute | options | generates |
//! |---|---|---|
//! | [`#[reverse]`](macro@reverse) | `wrt(a, b)`, `cps` (feature `cps`), `hessian`, `crate = path` | `NAME_vjp`, `NAME_grad`; with `hessian`, `NAME_hvp`, `NAME_hessian`, `NAME_hessian_diag` |
//! | [`#[forward]`](macro@forward) | `wrt(a, b)`, `vector`, `crate = path` | `NAME_jvp`, `NAME_jacobian`; with `vector`, `NAME_jvp_vec` |
//! | [`#[derivative]`](macro@derivative) | `vjp = path` (required), `jvp = path`, `crate = path` | `NAME_vjp`, `NAME_grad`; with `jvp`, `NAME_jvp` |
//! | [`#[derive(Adjoint)]`](macro@Adjoint) | `#[adjoint(name = Ident)]`, `#[adjoint(crate = path)]` | the adjoint type `NameAdjoint` and `impl Adjoint` |
//!
//! Each attribute's page lists what its options do. `#[reverse]` and `#[forward]` may both
//! annotate one function, in either order.
//!
//! Besides the attributes, this crate re-exports the runtime: the derivative [`rules`], the
//! [`ValueStack`] used by loops, the CPS dual type ([`cps`]), the forward-mode dual numbers
//! ([`Dual`], [`DualVec`], [`Lanes`], [`forward`](mod@forward)), the finite-difference
//! [`check`]er, and the [`Adjoint`] trait with the [`Zero`] adjoint of inactive data.
//!
#![doc = include_str!("../docs/generated.md")]
//!
//! # Features
//!
//! | feature | what it adds | build needs |
//! |---|---|---|
//! | `cps` | `#[reverse(cps)]`, the continuation-passing backend; `cps::grow` | the crate `stacker`, whose dependency `psm` compiles C: a C compiler |
//! | `nalgebra` | `nalgebra`'s fixed-size matrices and vectors as active values | `nalgebra` |
//!
//! The default features need no C compiler. The minimum supported Rust version is 1.85 for
//! the default features, 1.88 with `cps` and 1.89 with `nalgebra`.
//!
//! # Renaming the dependency: `crate = path`
//!
//! The generated code names this crate by the name your `Cargo.toml` gives it: with
//! `autodiff = { package = "revad", version = "0.1" }`, it calls `::autodiff::..`. A crate
//! that reaches `revad` through another crate's re-export (`my_lib::revad`), without depending
//! on it, says where it is with `crate = path` on each attribute, as serde's
//! `#[serde(crate = "..")]` does:
//!
//! ```
//! # // (In its own doc tests, `revad` is an `extern crate` item that must be public to be
//! # // re-exported; in a user's crate, `pub use revad;` needs nothing more.)
//! # pub extern crate revad;
//! mod my_lib {
//!     pub use revad;
//! }
//!
//! #[my_lib::revad::reverse(crate = crate::my_lib::revad)]
//! fn square(x: f64) -> f64 {
//!     x * x
//! }
//!
//! #[derive(my_lib::revad::Adjoint)]
//! #[adjoint(crate = crate::my_lib::revad)]
//! struct Point {
//!     x: f64,
//! }
//!
//! # fn main() {
//! assert_eq!(square_grad(3.0), (9.0, 6.0));
//! let p = Point { x: 1.0 };
//! let _: PointAdjoint = <Point as revad::Adjoint>::zero_adjoint(&p);
//! # }
//! ```
//!
//! # `&mut` parameters
//!
//! A `&mut` float parameter (`&mut f64`, `&mut [f64]`, `&mut Vec<f64>`, `&mut [f64; N]`, or
//! their `f32` forms) is an input, its value on entry, and an output, its value on return, as
//! Enzyme's `Duplicated` is. `NAME_vjp` takes one more seed per `&mut` parameter, after the
//! return value's (none for a function returning `()`, or a `bool` or an integer, which it may
//! return beside its `&mut` parameters and which carries no derivative): the adjoint of its
//! value on return.
//! It updates the parameter exactly as the function does, and the gradient holds the adjoint
//! of the parameter's value on entry. `NAME_grad` exists for scalar results and gives the
//! `&mut` parameters zero seeds. A `&f64` parameter is its value.
//!
//! ```
//! use revad::reverse;
//!
//! /// y = M x, written into an out-parameter.
//! #[reverse]
//! fn matvec(m: &[f64], x: &[f64], y: &mut [f64]) {
//!     for i in 0..y.len() {
//!         let mut acc = 0.0;
//!         for j in 0..x.len() {
//!             acc += m[i * x.len() + j] * x[j];
//!         }
//!         y[i] = acc;
//!     }
//! }
//!
//! let (m, x) = ([1.0, 2.0, 3.0, 4.0], [1.0, -1.0]);
//! let mut y = vec![0.0; 2];
//! // The seed ȳ = (1, 0): the gradient is (ȳ xᵀ, Mᵀ ȳ, the adjoint of y on entry).
//! let ((), (dm, dx, dy)) = matvec_vjp(&m, &x, &mut y, vec![1.0, 0.0]);
//! assert_eq!(y, [-1.0, -1.0]);
//! assert_eq!(dm, [1.0, -1.0, 0.0, 0.0]);
//! assert_eq!(dx, [1.0, 2.0]);
//! assert_eq!(dy, [0.0, 0.0]); // y is overwritten before it is read
//! ```
//!
//! # Two backends
//!
//! `#[reverse]` (the tape backend) emits a forward sweep followed by a reverse sweep, with a
//! typed value stack for what loops and calls must keep. `#[reverse(cps)]` (the
//! continuation-passing backend of Wang et al., "Shift/Reset the Penultimate
//! Backpropagator", ICFP 2019) gives every value an adjoint cell ([`cps::NumR`]) on the stack
//! frame that computes it, runs the rest of the body as that operation's continuation, and
//! accumulates the operation's contributions when the continuation returns. Both generate the
//! same `NAME_grad` and `NAME_vjp` and the same numbers, bit for bit:
//!
//! ```
//! #[revad::reverse(cps)]
//! fn g(x: f64, n: usize) -> f64 {
//!     let mut y = 1.0;
//!     for _ in 0..n {
//!         y = y * x + 1.0;
//!     }
//!     y
//! }
//!
//! #[revad::reverse]
//! fn g_tape(x: f64, n: usize) -> f64 {
//!     let mut y = 1.0;
//!     for _ in 0..n {
//!         y = y * x + 1.0;
//!     }
//!     y
//! }
//!
//! assert_eq!(g_grad(0.5, 10), g_tape_grad(0.5, 10));
//! ```
//!
//! The CPS backend's stack grows with the operations executed inside loops and recursive
//! calls: each iteration is one level of a local recursive function whose frames live until the reverse of that
//! iteration (its continuations are `&mut dyn FnMut` there: a new closure type per level
//! could not be monomorphised), and [`cps::grow`] (feature `cps`) extends the stack on demand, so a long loop
//! costs memory, not a crash. In straight-line code the continuation of an operation, called
//! exactly once, is emitted in place, so it compiles to plain arithmetic; the continuation of
//! an `if` is one closure, monomorphised, called from both arms. Prefer the tape backend for
//! long loops; [the README](https://github.com/revad-rs/revad#performance) measures both.
//!
//! # Generic functions
//!
//! A type parameter bounded by [`Float`] (`T: Float` or `T: revad::Float`, in the `<..>` list or
//! in a `where` clause, with other bounds or not) is a float type of the function: one body
//! serves `f64` and `f32`, and `NAME_grad`, `NAME_vjp` and the companions that callers use
//! are generic in the same way. Parameters of type `T`, `&T`, `[T; N]`, `&[T]`, `Vec<T>`,
//! `&mut T`, `&mut [T]` are active as their `f64` forms are, and `T`, `[T; N]`, `Vec<T>` and
//! tuples of these can be returned. Write constants as `T::ZERO`, `T::ONE`, `T::from_f64(0.5)`
//! and `T::from_i32(3)`, and intrinsics as methods (`x.sin()`, `x.powi(2)`, `x.max(y)`):
//!
//! ```
//! use revad::{reverse, Float};
//!
//! #[reverse]
//! fn poly<T: Float>(x: T, w: &[T]) -> T {
//!     let mut acc = T::ZERO;
//!     for i in 0..w.len() {
//!         acc = acc * x + w[i];
//!     }
//!     acc.sin() * T::from_f64(0.5)
//! }
//!
//! // Called from other annotated functions, generic or not, it composes.
//! #[reverse]
//! fn twice(x: f64) -> f64 {
//!     let w = [1.0, 2.0];
//!     poly(poly(x, &w), &w)
//! }
//!
//! let (v, (dx, dw)) = poly_grad(0.3_f64, &[1.0, 2.0]);
//! assert_eq!(v, 0.5 * 2.3_f64.sin());
//! assert_eq!((dx, dw[1]), (0.5 * 2.3_f64.cos(), 0.5 * 2.3_f64.cos()));
//! let (v, (dx, _)) = poly_grad(0.3_f32, &[1.0, 2.0]); // the same code, in f32
//! assert!((v - 0.5 * 2.3_f32.sin()).abs() < 1e-6 && (dx - 0.5 * 2.3_f32.cos()).abs() < 1e-6);
//! let (_, d) = twice_grad(0.3);
//! let a = 0.5 * 2.3_f64.sin();
//! assert!((d - 0.5 * (a + 2.0).cos() * 0.5 * 2.3_f64.cos()).abs() < 1e-15);
//! ```
//!
//! Type parameters not bounded by `Float` are rejected at the parameter. Const generic
//! parameters are taken (`fn norm<const N: usize>(x: [f64; N]) -> f64`: `norm_grad` at the
//! length of its argument). `T::from_f64(..)`
//! of a differentiated value is an error: it makes a constant, dropping the derivative.
//!
//! # User types: the `Adjoint` trait
//!
//! The gradient of a value has the shape of the value: a float for a float, an array for an
//! array, a `Vec` of the same length for a slice or a `Vec`. The trait [`Adjoint`] ("a value
//! that has an adjoint") states it in the type system, so that code generated for a value
//! whose type the macro cannot see can still name its adjoint:
//!
//! - `<T as Adjoint>::Adj` is the type of the adjoint of a `T`: `f64` for `f64`, `[f64; N]`
//!   for `[f64; N]`, `Vec<f64>` for `&[f64]` and `Vec<f64>`, a tuple of adjoints for a
//!   tuple, `Option<T::Adj>` for `Option<T>`;
//! - [`zero_adjoint`](Adjoint::zero_adjoint) gives an adjoint of zeros with the lengths of
//!   the value;
//! - [`accumulate`](Adjoint::accumulate) adds one adjoint into another, element by element,
//!   and panics when their lengths differ.
//!
//! Inactive data (integers, `bool`, `char`, strings) has the adjoint [`Zero`], a zero-sized
//! type: it takes no memory and adding it does nothing, so an integer field costs nothing in
//! a gradient.
//!
//! For a struct or an enum of your own, `#[derive(revad::Adjoint)]` generates the adjoint type,
//! `NameAdjoint`, with the same fields (names, positions, visibilities, variants), each of the
//! adjoint type of the field's type, and the impl. A field of a type that derives `Adjoint`
//! gets that type's adjoint, so types nest; generic types (`struct Layer<T>`) get a generic
//! adjoint type (`LayerAdjoint<T>`), and `#[adjoint(name = ..)]` on the type renames it.
//!
//! ```
//! use revad::{Adjoint, Zero};
//!
//! #[derive(Clone, revad::Adjoint)]
//! pub struct Particle {
//!     pub pos: [f64; 3],
//!     pub mass: f64,
//!     pub id: usize,
//! }
//!
//! #[derive(revad::Adjoint)]
//! pub struct System {
//!     pub particles: Vec<Particle>,
//!     pub coupling: f64,
//! }
//!
//! let system = System {
//!     particles: vec![Particle { pos: [1.0, 2.0, 3.0], mass: 2.0, id: 0 }; 2],
//!     coupling: 0.5,
//! };
//! // The adjoint has the fields of the value, with the value's lengths.
//! let mut grad: SystemAdjoint = system.zero_adjoint();
//! let first: &ParticleAdjoint = &grad.particles[0];
//! assert_eq!((first.pos, first.mass, first.id), ([0.0; 3], 0.0, Zero));
//! assert_eq!(grad.particles.len(), 2);
//!
//! // Accumulation adds field by field.
//! let mut step = system.zero_adjoint();
//! step.particles[1].pos[0] = 1.5;
//! step.coupling = -1.0;
//! System::accumulate(&mut grad, &step);
//! System::accumulate(&mut grad, &step);
//! assert_eq!(grad.particles[1].pos, [3.0, 0.0, 0.0]);
//! assert_eq!(grad.coupling, -2.0);
//! ```
//!
//! See [`macro@Adjoint`] for what the derive generates. (`Adjoint::accumulate` needs the
//! value's type; [`Accumulate`] adds two adjoints named by the adjoint's type alone, which is
//! what generated code calls; the derive implements both.)
//!
//! # Structs, methods and nested containers in `#[reverse]` code
//!
//! A parameter whose type is a user struct, a nested container (`&[[f64; 3]]`,
//! `Vec<Vec<f64>>`) or a tuple is differentiated through its `Adjoint`: its gradient is its
//! adjoint (a `ParticleAdjoint` for `&Particle`, a `Vec<ParticleAdjoint>` for `&[Particle]`).
//! The macro never needs the types: a read `p.pos[i]` in the body becomes
//! `__adj_p.pos[i] += ..` in the reverse sweep, and rustc checks both. Methods (`&self`,
//! `&mut self`, `self`) and associated functions in `impl` blocks are annotated like
//! functions, and call each other through their companions. (An associated function without
//! `self` and without `Self` in its signature or body needs `#[revad::reverse]` on its `impl`
//! block too: the attribute on the function alone cannot see that it is in one.)
//!
//! ```
//! use revad::reverse;
//!
//! #[derive(Clone, Debug, revad::Adjoint)]
//! pub struct Particle {
//!     pub pos: [f64; 2],
//!     pub vel: [f64; 2],
//!     pub mass: f64,
//! }
//!
//! impl Particle {
//!     #[reverse]
//!     pub fn kinetic(&self) -> f64 {
//!         0.5 * self.mass * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1])
//!     }
//!
//!     /// One explicit Euler step, in place.
//!     #[reverse]
//!     pub fn step(&mut self, dt: f64) {
//!         self.pos[0] += dt * self.vel[0];
//!         self.pos[1] += dt * self.vel[1];
//!     }
//! }
//!
//! /// The kinetic energy of every particle, plus the height of the first after a step.
//! #[reverse]
//! fn score(ps: &[Particle], dt: f64) -> f64 {
//!     let mut e = 0.0;
//!     for i in 0..ps.len() {
//!         e += ps[i].kinetic();
//!     }
//!     let mut first = ps[0].clone();
//!     first.step(dt);
//!     e + first.pos[1]
//! }
//!
//! let ps = vec![
//!     Particle { pos: [0.0, 1.0], vel: [1.0, 2.0], mass: 2.0 },
//!     Particle { pos: [3.0, 0.0], vel: [0.5, 0.0], mass: 4.0 },
//! ];
//! let (e, (dps, ddt)) = score_grad(&ps, 0.1);
//! assert_eq!(e, score(&ps, 0.1));
//! // ∂/∂vel of ½ m |v|² is m v; the step adds dt to ∂/∂vel[1] of the first particle.
//! assert_eq!(dps[0].vel, [2.0, 4.0 + 0.1]);
//! assert_eq!(dps[1].vel, [2.0, 0.0]);
//! assert_eq!(dps[0].pos, [0.0, 1.0]);
//! assert_eq!(dps[1].mass, 0.5 * 0.25);
//! assert_eq!(ddt, 2.0);
//! ```
//!
//! A `&mut` struct parameter (`&mut self` included) is an input and an output like a `&mut`
//! float: `step_vjp(&mut p, dt, seed)` takes the adjoint of the particle on return as its seed
//! and gives that of the particle on entry. The body works on a clone of it (so such a type
//! is `Clone + Send + 'static`), written back on return. The CPS backend, `#[reverse(cps)]`,
//! rejects aggregates for now.
//!
//! # `nalgebra` vectors and matrices (feature `nalgebra`)
//!
//! With the feature `nalgebra`, `nalgebra`'s fixed-size matrices and vectors (`SMatrix<f64, R,
//! C>`: `Vector3<f64>`, `Matrix3<f32>`, ..) are active values whose gradient is a matrix of the
//! same type. In the body, `a + b`, `a - b`, `-a`, `s * a`, `a * s`, `a / s`, `m * v`, `m * n`
//! and the methods `.dot(&b)`, `.cross(&b)`, `.norm()`, `.norm_squared()` and `.transpose()`
//! are differentiated by the runtime's rules (`revad_runtime::linalg`), not through `nalgebra`'s
//! code; `v[0]`, `v.x` read elements. An operation without a rule (a product of two vectors, `%`,
//! two user structs added) is a compile error at the operation; a method of your own type named
//! like one of these is taken for it, so name such a method otherwise.
//!
#![cfg_attr(feature = "nalgebra", doc = "```")]
#![cfg_attr(not(feature = "nalgebra"), doc = "```ignore")]
//! use nalgebra::{Matrix3, Vector3};
//!
//! #[revad::reverse]
//! fn bilinear(m: Matrix3<f64>, v: Vector3<f64>, w: Vector3<f64>) -> f64 {
//!     (m * v).dot(&w)
//! }
//!
//! let (m, v, w) = (Matrix3::identity() * 2.0, Vector3::new(1.0, 2.0, 3.0), Vector3::x());
//! let (y, (dm, dv, dw)) = bilinear_grad(m, v, w);
//! assert_eq!(y, 2.0);
//! assert_eq!(dm, w * v.transpose()); // ∂(wᵀ M v)/∂M = w vᵀ
//! assert_eq!(dv, m.transpose() * w);
//! assert_eq!(dw, m * v);
//! ```
//!
//! # Forward mode: dual numbers
//!
//! [`Dual<T>`](Dual) (a value and one tangent) and [`DualVec<T, N>`](DualVec) (`N` tangents)
//! implement [`Float`], so a generic function runs on them unchanged and gives derivatives in
//! forward mode; they nest (`Dual<Dual<f64>>` gives second derivatives). [`forward`](mod@forward) wraps
//! them for closures: `derivative`, `jvp`, `gradient`, `jacobian`, `hessian`.
//!
//! ```
//! use revad::{forward, Dual, Float};
//!
//! fn f<T: Float>(p: &[T]) -> T {
//!     T::from_f64(2.0) * p[0] * p[0] + T::from_f64(3.0) * p[0] * p[1]
//! }
//!
//! let (y, g) = forward::gradient(f::<Dual<f64>>, &[1.0, 2.0]);
//! assert_eq!((y, g), (8.0, vec![10.0, 3.0]));
//! let (_, _, h) = forward::hessian(f::<Dual<Dual<f64>>>, &[1.0, 2.0]);
//! assert_eq!(h, [[4.0, 3.0], [3.0, 0.0]]);
//! ```
//!
//! # Forward mode from the attribute: `#[forward]`
//!
//! [`#[forward]`](macro@forward) generates `NAME_jvp(params.., tangents..) -> (value, tangent)`, the
//! tangent code beside the primal (one tangent per differentiated parameter, of its type),
//! and, with `#[forward(vector)]`, `NAME_jvp_vec` on [`Lanes`] (`N` tangents at once);
//! `NAME_jacobian` gives the dense Jacobian, by forward mode or, when `#[reverse]` annotates
//! the function too and it has fewer outputs than inputs, by reverse mode.
//!
//! ```
//! #[revad::forward]
//! #[revad::reverse]
//! fn polar(p: [f64; 2]) -> [f64; 2] {
//!     [p[0] * p[1].cos(), p[0] * p[1].sin()]
//! }
//!
//! let (_, d) = polar_jvp([2.0, 0.0], [0.0, 1.0]);   // along the angle
//! assert_eq!(d, [0.0, 2.0]);
//! let (_, j) = polar_jacobian([2.0, 0.0]);
//! assert_eq!(j, [[1.0, 0.0], [0.0, 2.0]]);
//! ```
//!
//! # Second derivatives and derivatives of derivatives: `#[reverse(hessian)]`
//!
//! `#[reverse(hessian)]` adds `NAME_hvp` (the Hessian-vector product, by forward over
//! reverse: the reverse sweep of a generic copy of the function run on [`Dual`] numbers),
//! `NAME_hessian` and `NAME_hessian_diag`, and makes `NAME_grad` and `NAME_jvp` themselves
//! differentiable, so that an outer `#[reverse]` or `#[forward]` function can call them: all
//! four combinations of nested modes, with the inner function's other parameters (what a
//! closure would capture) differentiated through.
//!
//! ```
//! use revad::reverse;
//!
//! #[reverse(hessian)]
//! fn f(x: f64, y: f64) -> f64 {
//!     2.0 * x * x + 3.0 * x * y + 4.0 * y * y
//! }
//!
//! let (_, _, hv) = f_hvp(3.0, 4.0, 7.0, 8.0);
//! assert_eq!(hv, (52.0, 85.0));
//! assert_eq!(f_hessian(3.0, 4.0).2, [[4.0, 3.0], [3.0, 8.0]]);
//!
//! #[revad::forward(wrt(y))]
//! #[reverse(hessian, wrt(y))]
//! fn shift(x: f64, y: f64) -> f64 {
//!     x + y
//! }
//!
//! /// x · d/dy (x + y): its derivative is 1 at every x, in every combination.
//! #[reverse]
//! fn outer(x: f64) -> f64 {
//!     let (_, d) = shift_grad(x, 1.0);
//!     x * d
//! }
//!
//! #[revad::forward]
//! fn outer_fwd(x: f64) -> f64 {
//!     let (_, d) = shift_jvp(x, 1.0, 1.0);
//!     x * d
//! }
//!
//! assert_eq!(outer_grad(5.0), (5.0, 1.0));
//! assert_eq!(outer_fwd_jvp(5.0, 1.0), (5.0, 1.0));
//! ```
//!
//! # Higher-order functions: closures passed to annotated functions
//!
//! An annotated function may take function arguments (`F: Fn(f64) -> f64`, `impl Fn(f64, f64)
//! -> f64`, `&F`, `&dyn Fn(f64) -> f64`, `fn(f64) -> f64`, or over `T: Float`: 1 to 4 floats to
//! a float) and call them. An annotated
//! caller passes a closure, or an annotated function by name; the derivative flows into the
//! variables the closure captures, in both modes. The macro lifts the closure into a hidden
//! annotated function of its arguments and its captured variables.
//!
//! ```
//! #[revad::reverse]
//! #[revad::forward]
//! fn integrate<F: Fn(f64) -> f64>(f: F, a: f64, b: f64) -> f64 {
//!     let h = (b - a) / 4.0;
//!     let mut s = 0.0;
//!     for i in 0..4 {
//!         s += f(a + (i as f64 + 0.5) * h);
//!     }
//!     s * h
//! }
//!
//! /// ∫₀ᵇ c x dx = c b² / 2 (the midpoint rule is exact on lines).
//! #[revad::reverse]
//! #[revad::forward]
//! fn area(c: f64, b: f64) -> f64 {
//!     integrate(|x| c * x, 0.0, b)
//! }
//!
//! let (value, (dc, db)) = area_grad(3.0, 2.0);
//! assert_eq!((value, dc, db), (6.0, 2.0, 6.0));
//! assert_eq!(area_jvp(3.0, 2.0, 1.0, 0.0), (6.0, 2.0));
//! ```
//!
//! # Gradient control: `stop_gradient`
//!
//! [`stop_gradient`]`(x)` is `x` with no derivative, in every backend, in `#[forward]` and in
//! `#[reverse(hessian)]`; the macro knows it by its path, `revad::stop_gradient(..)`. `wrt(..)`
//! chooses the parameters of the gradient; `stop_gradient` cuts paths inside the body.
//!
//! ```
//! // ∂x [x·sg(x)·y] = x·y: the stopped factor is a constant of value x.
//! #[revad::reverse(wrt(x))]
//! #[revad::forward]
//! fn f(x: f64, y: f64) -> f64 {
//!     x * revad::stop_gradient(x) * y
//! }
//!
//! assert_eq!(f_grad(2.0, 3.0), (12.0, 6.0));
//! assert_eq!(f_jvp(2.0, 3.0, 1.0, 0.0), (12.0, 6.0));
//! ```
//!
//! # Long loops: checkpointing
//!
//! `#[revad::checkpoint(snapshots = k)]` (or `#[revad::checkpoint]`, 64 snapshots) on a `for`
//! loop over a range in an annotated function makes `NAME_vjp` keep at most `k` states of the
//! loop (its `mut` variables declared before it) and recompute the others from the nearest
//! one in the reverse sweep: the tape holds one step at a time, and the gradient is the one of
//! the loop without the attribute, bit for bit. Use it when the loop's tape does not fit in
//! memory; each step then runs a few times more (see the README's table). It goes on a loop
//! that is a statement of the function's body and does not `break`, `continue` or `return`;
//! elsewhere it is a compile error at the attribute.
//!
//! ```
//! #[revad::reverse]
//! fn decay(x0: f64, a: f64, n: usize) -> f64 {
//!     let mut x = x0;
//!     #[revad::checkpoint(snapshots = 8)]
//!     for _ in 0..n {
//!         x = x - 0.01 * a * x;
//!     }
//!     x
//! }
//!
//! // x_n = (1 - 0.01 a)^n x_0.
//! let (a, n) = (2.0, 10_000);
//! let (x_n, (dx0, _)) = decay_grad(1.0, a, n);
//! assert!((dx0 - (1.0 - 0.01 * a).powi(n as i32)).abs() < 1e-12 * dx0);
//! assert!((x_n - dx0).abs() < 1e-12 * dx0); // (x_0 = 1)
//! ```
//!
//! `#[revad::reverse(recompute)]` on a callee trades time for memory at the level of a call:
//! its callers keep only its arguments and run its forward sweep again in their reverse sweep.
//!
//! For a step that is a function of its own,
//! [`checkpoint::revolve`] reverses `n` steps of a loop holding at most a given number of
//! states (binomial checkpointing), recomputing the others: memory for a 10⁸-step simulation
//! in megabytes instead of gigabytes, for a few times the time. The step is an annotated
//! function and its reverse the generated `_vjp`; the gradient is the one of the loop that
//! keeps every state, bit for bit (`examples/checkpoint.rs`, and the table in the README).
//!
//! ```
//! use revad::checkpoint::{revolve, snapshots};
//!
//! #[revad::reverse]
//! fn step(x: f64, a: f64) -> f64 {
//!     x - 0.01 * a * x
//! }
//!
//! // x_n = (1 - 0.01 a)^n x_0: ∂x_0 = (1 - 0.01 a)^n.
//! let (a, n) = (2.0, 10_000);
//! let mut da = 0.0;
//! let (x_n, dx0, stats) = revolve(
//!     n,
//!     snapshots::<8>(),
//!     1.0,
//!     |_, x| step(*x, a),
//!     |_, x, adj| {
//!         let (_, (dx, d_a)) = step_vjp(*x, a, adj);
//!         da += d_a;
//!         dx
//!     },
//!     |_| 1.0,
//! );
//! let r = 1.0 - 0.01 * a;
//! assert!((dx0 - r.powi(n as i32)).abs() < 1e-12 * dx0);
//! assert!((da - n as f64 * -0.01 * x_n / r).abs() < 1e-9 * da.abs());
//! assert!(stats.max_snapshots <= 8);
//! ```
//!
#![doc = include_str!("../docs/subset.md")]
//!
#![cfg_attr(
    not(feature = "cps"),
    doc = "[`cps::grow`]: https://docs.rs/revad/latest/revad/cps/fn.grow.html"
)]
#![forbid(unsafe_code)]

pub use revad_macros::{derivative, forward, reverse, Adjoint};
pub use revad_runtime::stack::{
    release_thread_buffers, thread_buffer_bytes, MAX_THREAD_BUFFER_BYTES,
};
pub use revad_runtime::{
    adjoint, check, checkpoint, cps, forward, num_traits, rules, stop_gradient, Accumulate,
    Adjoint, Dual, DualVec, Float, Lanes, StopGradient, ValueStack, Zero,
};

/// Not public API: the stand-in for a function called from `#[reverse]` code, used when that
/// function has no derivative. Its `fwd` and `rev` accept anything, so the only error the
/// user sees is the one of `require_derivative` at the call.
#[doc(hidden)]
#[macro_export]
macro_rules! __callee_fallback {
    // The type parameters, then the type of each argument: a type parameter, or
    // `StandInLent` for an argument passed by `&mut` (`A1; StandInLent, A1`).
    ($name:ident, $result:ident; $($gen:ident)*; $($arg:ty),*; $($sink:ident)*) => {
        #[allow(non_camel_case_types, dead_code)]
        pub struct $name {}
        /// The stand-in's result: of any float type, so the missing derivative is the only
        /// error.
        #[allow(non_camel_case_types, dead_code)]
        pub type $result = $crate::__private::StandInResult;
        impl $crate::__private::Returns for $name {
            type Output = $result;
        }
        #[allow(dead_code, clippy::all)]
        impl $name {
            pub fn fwd<$($gen,)* S>($(_: $arg,)* _: S) -> $result {
                ::core::unreachable!()
            }
            pub fn rev<$($gen,)* S, $($sink),*>($(_: $arg,)* _: $result, _: S, $(_: $sink),*) {
                ::core::unreachable!()
            }
            pub fn cps<$($gen,)* S, $($sink,)* T, R>(
                $(_: $arg,)* _: S, $(_: $sink,)*
                _: &mut dyn FnMut(&$crate::__private::cps::NumR<T>) -> R,
            ) -> R {
                ::core::unreachable!()
            }
            pub fn jvp<$($gen,)* $($sink),*>($(_: $arg,)* $(_: $sink),*) -> ($result, $result) {
                ::core::unreachable!()
            }
            pub fn jvp_vec<$($gen,)* $($sink),*>($(_: $arg,)* $(_: $sink),*) -> ($result, $result) {
                ::core::unreachable!()
            }
        }
    };
}

/// Not public API: items that code generated by `#[reverse]` names. May change at any time.
#[doc(hidden)]
pub mod __private {
    pub use revad_runtime::accumulate::Accumulate;
    pub use revad_runtime::adjoint::{
        add_assign, check_seed_len, replay_rev, variant_mismatch, zeros_like,
    };
    pub use revad_runtime::call::{
        __ad_fwd_assign, __ad_rev_assign, assign, diverge, find_position, greater, is_none,
        keep_whole, pop_returned, require_derivative, require_forward, restore, restore_result,
        sort_permutation, AggregateSink, ArraySink, Differentiable, Discard, ForwardDifferentiable,
        ImplInfo, PartOf, Returns, ReturnsAt, ScalarSink, Undifferentiated,
    };
    pub use revad_runtime::cps;
    pub use revad_runtime::expect::{
        expect_array, expect_integer, expect_length, expect_pullback, expect_result,
        expect_struct_type, none_like, same_type, seed_for, ArrayResult, ByFloat, ByOther, Named,
        PullbackOf, ResultOf, SeedOf, StandInResult,
    };
    pub use revad_runtime::float::{ArithByRef, RefArith};
    pub use revad_runtime::function::{
        cell_values, zero_cells, ForwardFunction1, ForwardFunction2, ForwardFunction3,
        ForwardFunction4, Function1, Function2, Function3, Function4, ReverseFunction1,
        ReverseFunction2, ReverseFunction3, ReverseFunction4, StandInFunction,
    };
    pub use revad_runtime::grow::{
        cells_sum, vec_pop_adjoint, vec_restore_len, vec_split_tail, vec_unextend,
    };
    pub use revad_runtime::inout::{
        keep_lent, lend, output_seed, passed_mut, unlend, AggInOut, ArrayInOut, InOut, Lend,
        PassedMut, ScalarInOut, StandInLent, Unlend,
    };
    pub use revad_runtime::lanes::lanes_zero;
    pub use revad_runtime::linalg;
    pub use revad_runtime::rules;
    pub use revad_runtime::second::{Axpy, Basis, Flatten, Lift, Lifted, Unlift};
    pub use revad_runtime::view;
    pub use revad_runtime::ValueStack;
}
