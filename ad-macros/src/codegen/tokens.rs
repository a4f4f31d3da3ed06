//! Tokens every backend writes alike: the names of generated values (`__ad_c3`, the adjoint
//! cell of variable 3 under CPS, which the tape's companions also pass), and the constants
//! of a float type (`0.0`, `<T as ::revad::Float>::ZERO`). A leaf of `codegen`: it imports
//! nothing of it, so every backend and the common layer can use it.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{FloatTy, VarId};

/// The adjoint cell of `v` (a `&NumR`, or for an array the array of its elements' cells).
pub(crate) fn cell_of(v: VarId) -> syn::Ident {
    format_ident!("__ad_c{}", v, span = Span::mixed_site())
}

/// A zero whose type rustc infers from its use: `0.0` for a primitive (an adjoint reset,
/// `__adj_x = 0.0;`), `<T as ::revad::Float>::ZERO` for a type parameter, which has no literals.
pub(crate) fn zero_untyped(t: FloatTy) -> TokenStream {
    match t {
        FloatTy::Generic(_) => constant(t, "ZERO"),
        FloatTy::F32 | FloatTy::F64 => quote!(0.0),
    }
}

/// `<T as ::revad::Float>::NAME` for the type parameter `t`.
pub(crate) fn constant(t: FloatTy, name: &str) -> TokenStream {
    let t = t.qualifier();
    let name = syn::Ident::new(name, Span::call_site());
    quote!(#t::#name)
}
