//! The CPS calling convention between annotated functions: `NAME::cps`, the companion a
//! caller under `#[reverse(cps)]` calls, takes the arguments, a cell per float argument
//! (where the callee adds the argument's adjoint) and the continuation. Its signature is
//! the same whatever the callee's backend; its body is the callee's own continuation-passing
//! code under `#[reverse(cps)]` (`cps::companion`), or for a function whose derivative is
//! its split companions (the tape backend, `#[revad::derivative]`) the forward part, the
//! continuation, then the reverse part into the cells ([`companion_via_split`]).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::parse::{ParamKind, RetTy, Signature};

/// The lints generated continuation-passing code allows: its declarations are uniform, not
/// minimal (`NAME_vjp` and the companions alike).
pub(super) fn allow_generated() -> TokenStream {
    quote! {
        #[allow(
            unused_mut,
            unused_variables,
            unused_assignments,
            unused_parens,
            unreachable_code,
            non_camel_case_types,
            clippy::all,
            reason = "generated continuation-passing code: declarations are uniform, not \
                      minimal, and a companion takes a stack, a cell per parameter and the \
                      continuation"
        )]
    }
}

/// The sink of parameter `i` of a CPS companion.
pub(super) fn sink_name(i: usize) -> syn::Ident {
    format_ident!("__ad_sink{}", i, span = Span::mixed_site())
}

/// The signature of `NAME::cps` (without the body), or `None` when the function does not
/// return a scalar or takes a function argument (callers only call functions that return a
/// scalar, and a call that passes a closure runs through the split companions).
///
/// ```text
/// fn cps<__R>(<params>, __ad_stack: &Cell<ValueStack>, <a cell argument per parameter>,
///             __ad_k: &mut dyn FnMut(&NumR<T>) -> __R) -> __R
/// ```
pub(super) fn companion_signature(func: &syn::ItemFn, sig: &Signature) -> Option<TokenStream> {
    let RetTy::Scalar(t) = &sig.ret else {
        return None;
    };
    if !sig.functions.is_empty() {
        return None;
    }
    let t = t.ident();
    let vis = &func.vis;
    let params = func.sig.inputs.iter();
    let stack = stack();
    let sinks = sig.params.iter().enumerate().map(|(i, p)| {
        let sink = sink_name(i);
        match &p.kind {
            ParamKind::Scalar(t) => {
                let t = t.ident();
                quote!(#sink: impl ::revad::__private::cps::CellArg<#t>)
            }
            ParamKind::Array { elem, .. } | ParamKind::Slice { elem } => {
                let t = elem.ident();
                quote!(#sink: impl ::revad::__private::cps::CellsArg<#t>)
            }
            ParamKind::Aggregate { .. } | ParamKind::Inactive => {
                quote!(_: ::revad::__private::Discard)
            }
        }
    });
    let k = format_ident!("__ad_k", span = Span::mixed_site());
    // The function's own generic parameters (lifetimes), then the continuation's result.
    let generics = func.sig.generics.params.iter();
    let where_clause = &func.sig.generics.where_clause;
    Some(quote! {
        #vis fn cps<#(#generics,)* __R>(
            #(#params,)*
            #stack: &::core::cell::Cell<::revad::__private::ValueStack>,
            #(#sinks,)*
            #k: &mut dyn FnMut(&::revad::__private::cps::NumR<#t>) -> __R,
        ) -> __R #where_clause
    })
}

/// `NAME::cps` for a function with `&mut` parameters: callers pass those by `&mut`, which
/// goes through the split companions (`Cps::call_split`), so this one is only named by a call
/// that does not type-check anyway; it exists so that the user's error is the only one.
pub(super) fn unreachable_companion(
    sig: &Signature,
    signature: &TokenStream,
) -> Option<TokenStream> {
    let aggregates = sig
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Aggregate { .. }))
        || matches!(sig.ret, RetTy::Aggregate(_));
    if !aggregates {
        sig.outputs().next()?;
    }
    let allow = allow_generated();
    Some(quote! {
        #allow
        #signature {
            ::core::unreachable!()
        }
    })
}

/// `NAME::cps` for a function whose derivative is its split companions (the tape backend,
/// `#[revad::derivative]`): `fwd`, the continuation with the result's cell, then `rev` into the
/// argument cells. Nothing without the feature `cps`: only a `#[reverse(cps)]` caller calls it,
/// and that attribute is an error without the feature.
pub(super) fn companion_via_split(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    if !cfg!(feature = "cps") {
        return TokenStream::new();
    }
    let Some(signature) = companion_signature(func, sig) else {
        return TokenStream::new();
    };
    if let Some(stub) = unreachable_companion(sig, &signature) {
        return stub;
    }
    let stack = stack();
    let k = format_ident!("__ad_k", span = Span::mixed_site());
    // Both sweeps take the arguments: a `Vec` passed by value is cloned for the first.
    let fwd_args = sig.params.iter().map(|p| {
        let name = &p.ident;
        let by_value_vec =
            matches!(p.kind, ParamKind::Slice { .. }) && !matches!(p.ty, syn::Type::Reference(_));
        if by_value_vec {
            quote!(::core::clone::Clone::clone(&#name))
        } else {
            quote!(#name)
        }
    });
    let rev_args = sig.params.iter().map(|p| &p.ident);
    let sinks = sig.params.iter().enumerate().map(|(i, p)| match p.kind {
        ParamKind::Inactive | ParamKind::Aggregate { .. } => quote!(::revad::__private::Discard),
        _ => {
            let sink = sink_name(i);
            quote!(#sink)
        }
    });
    let allow = allow_generated();
    quote! {
        /// For callers under `#[reverse(cps)]`: runs the continuation with the result's
        /// cell, then adds the adjoints of the parameters into the argument cells.
        #allow
        #signature {
            let mut __ad_st = #stack.take();
            let __ad_y = Self::fwd(#(#fwd_args,)* &mut __ad_st);
            #stack.set(__ad_st);
            let __ad_c = ::revad::__private::cps::NumR::single(__ad_y);
            let __ad_r = #k(&__ad_c);
            let mut __ad_st = #stack.take();
            Self::rev(#(#rev_args,)* ::revad::__private::seed_for(__ad_c.adjoint()), &mut __ad_st, #(#sinks),*);
            #stack.set(__ad_st);
            __ad_r
        }
    }
}

/// `__ad_stack`, a `Cell<ValueStack>` shared by the calls of the body.
pub(super) fn stack() -> syn::Ident {
    format_ident!("__ad_stack", span = Span::mixed_site())
}
