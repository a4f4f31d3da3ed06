//! The `#[reverse]` attribute of the [`ad`](https://docs.rs/ad) crate.
//!
//! Depend on `ad`, not on this crate: the generated code names runtime items through `::ad`.
//!
//! The pipeline (`expand`) reads the signature (`parse`), lowers the body to an IR in
//! A-normal form (`ir::lower`), analyses it (`ir::activity`, `ir::snapshot`, `ir::plan`) and
//! emits the adjoint code (`codegen`). Data flows one way; each stage reads only the output
//! of the previous one.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod codegen;
mod error;
mod expand;
mod ir;
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
/// `Vec<f64>` for `&[f64]`, `Vec<f64>` and `&Vec<f64>`. Parameters of other types
/// (integers, `bool`, user types) are inactive. `#[reverse(wrt(a, b))]` makes only the named
/// parameters active.
///
/// ```
/// use ad::reverse;
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
/// what to write instead. See the crate documentation of `ad` for the subset.
#[proc_macro_attribute]
pub fn reverse(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::reverse(args.into(), item.into()).into()
}
