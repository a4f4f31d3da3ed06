//! `&f64` and `&mut` float parameters in the generated functions (`revad::__private::InOut`).
//!
//! ```text
//! fn f_vjp(x: &f64, s: &mut [f64], __seed: f64, __seed_s: Vec<f64>) -> (f64, (f64, Vec<f64>)) {
//!     let x: f64 = *x;                                   // prologue: `&f64` is its value
//!     let __ad_mut_s = s;
//!     let s = ::revad::__private::InOut::entry(&*__ad_mut_s);   // `s` on entry (an input)
//!     let mut s_1 = s.clone();                           // the body's copy (lowering)
//!     ..forward sweep..
//!     ::revad::__private::InOut::write_back(&mut *__ad_mut_s, &s_1);   // `s` on return
//!     ..seeds: the output's, then `__seed_s` into the adjoint of `s_1`..
//!     ..reverse sweep..
//!     (value, (__adj_x, __adj_s))                        // `s`'s adjoint is on entry
//! }
//! ```

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use super::shared::Emitter;
use crate::ir::{Body, Operand};
use crate::parse::{ParamKind, Passing, Signature};

/// The reference a `&mut` parameter arrived as, once its name holds the value on entry.
pub(super) fn reference(param: &syn::Ident) -> syn::Ident {
    format_ident!("__ad_mut_{}", param, span = Span::mixed_site())
}

/// The name of the seed of the `&mut` parameter `param` in `NAME_vjp`.
pub(super) fn seed(param: &syn::Ident) -> syn::Ident {
    crate::ir::names::generated(&format!("seed_{param}"))
}

/// Binds each `&f64` parameter to its value and each `&mut` one to its value on entry; the
/// first statements of a function that runs the body's forward sweep.
pub(super) fn prologue(sig: &Signature, body: &Body) -> TokenStream {
    prologue_of(sig, body, false)
}

/// [`prologue`], for a method's companion that takes a receiver by value as `&self`
/// (`lent`, see [`fwd_params`]): the body's receiver is a clone.
pub(super) fn prologue_of(sig: &Signature, body: &Body, lent: bool) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, p) in sig.params.iter().enumerate() {
        let name = &body.vars[i].name;
        let ident = &p.ident;
        match (p.passing, &p.kind) {
            (Passing::Ref, ParamKind::Scalar(t)) => {
                let t = t.ident();
                out.extend(quote!(let #name: #t = *#ident;));
            }
            // The receiver, bound to the name the body uses (`let __self = self;`).
            (Passing::Value, _) if p.ident == "self" && lent => {
                out.extend(quote!(let #name = ::core::clone::Clone::clone(#ident);));
            }
            (Passing::Value, _) if p.ident == "self" => {
                out.extend(quote!(let #name = #ident;));
            }
            (Passing::MutRef, kind) if !p.rejected => {
                let reference = reference(ident);
                let entry = match kind {
                    ParamKind::Aggregate { .. } => quote!(::revad::__private::AggInOut::entry),
                    _ => quote!(::revad::__private::InOut::entry),
                };
                out.extend(quote! {
                    let #reference = #ident;
                    let #name = #entry(&*#reference);
                });
            }
            _ => {}
        }
    }
    out
}

/// Writes the body's copies back through the references: the end of the forward sweep.
pub(super) fn write_backs(sig: &Signature, body: &Body) -> TokenStream {
    let writes = body.writebacks.iter().map(|w| {
        let param = &sig.params[w.param];
        let reference = reference(&param.ident);
        let copy = &body.vars[w.var].name;
        match param.kind {
            ParamKind::Aggregate { .. } => {
                quote!(::revad::__private::AggInOut::write_back(&mut *#reference, &#copy);)
            }
            _ => quote!(::revad::__private::InOut::write_back(&mut *#reference, &#copy);),
        }
    });
    quote!(#(#writes)*)
}

/// Under the CPS backend the values on return exist only in the innermost continuation, which
/// cannot hold the `&mut` references (continuations are cloned into loops): it stores them
/// in cells, and the write-backs follow the run. Returns the cells' declarations, the stores
/// (in the continuation) and the write-backs (after the run).
pub(super) fn cps_write_backs(sig: &Signature, body: &Body) -> [TokenStream; 3] {
    let mut out = [TokenStream::new(), TokenStream::new(), TokenStream::new()];
    for w in &body.writebacks {
        let ident = &sig.params[w.param].ident;
        let reference = reference(ident);
        let slot = format_ident!("__ad_final_{}", ident, span = Span::mixed_site());
        let copy = &body.vars[w.var].name;
        out[0].extend(quote!(let #slot = &::core::cell::Cell::new(::core::option::Option::None);));
        out[1].extend(
            quote!(#slot.set(::core::option::Option::Some(::core::clone::Clone::clone(&#copy)));),
        );
        let write_back = match &sig.params[w.param].kind {
            ParamKind::Aggregate { .. } => quote!(::revad::__private::AggInOut::write_back),
            _ => quote!(::revad::__private::InOut::write_back),
        };
        out[2].extend(quote! {
            if let ::core::option::Option::Some(__ad_v) = #slot.take() {
                #write_back(&mut *#reference, &__ad_v);
            }
        });
    }
    out
}

/// The end of a forward sweep for callers (`NAME::fwd`): the write-backs, then the values on
/// entry pushed for `NAME::rev`, which pops them (`rev_prologue`) instead of taking them.
pub(super) fn fwd_epilogue(sig: &Signature, body: &Body) -> TokenStream {
    let stack = super::tokens::stack();
    let pushes = sig.outputs().map(|(i, p)| {
        let name = &body.vars[i].name;
        match &p.kind {
            ParamKind::Scalar(_) => quote!(#stack.push(#name);),
            ParamKind::Aggregate { .. } => quote!(#stack.push_any(#name);),
            _ => quote!(#stack.push_slice(&#name[..]);),
        }
    });
    let write_backs = write_backs(sig, body);
    quote!(#write_backs #(#pushes)*)
}

/// The start of `NAME::rev`: the values on entry of the `&mut` parameters, popped (last
/// first), and the `&f64` parameters' values.
pub(super) fn rev_prologue(sig: &Signature, body: &Body) -> TokenStream {
    let stack = super::tokens::stack();
    let pops = sig
        .outputs()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|(i, p)| {
            let name = &body.vars[i].name;
            match &p.kind {
                ParamKind::Scalar(t) => {
                    let t = t.ident();
                    quote!(let #name = #stack.pop::<#t>();)
                }
                ParamKind::Array { elem, len } => {
                    let t = elem.ident();
                    quote!(let #name: [#t; #len] = #stack.pop_array::<#t, { #len }>();)
                }
                ParamKind::Aggregate { ty } => quote! {
                    let #name = #stack.pop_any::<<#ty as ::revad::__private::AggInOut>::Owned>();
                },
                _ => {
                    let t = p.kind.elem().ident();
                    quote!(let #name = #stack.pop_vec::<#t>();)
                }
            }
        });
    let shared = sig
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match (p.passing, &p.kind) {
            (Passing::Ref, ParamKind::Scalar(t)) => {
                let (name, ident, t) = (&body.vars[i].name, &p.ident, t.ident());
                Some(quote!(let #name: #t = *#ident;))
            }
            (Passing::Value, _) if p.ident == "self" => {
                let (name, ident) = (&body.vars[i].name, &p.ident);
                Some(quote!(let #name = #ident;))
            }
            _ => None,
        });
    quote!(#(#pops)* #(#shared)*)
}

/// The parameters of `NAME::rev`: as written, except a `&mut` one, which the caller passes
/// as `()` (`rev` pops its value on entry).
pub(super) fn rev_params(sig: &Signature, func: &syn::ItemFn) -> Vec<TokenStream> {
    func.sig
        .inputs
        .iter()
        .zip(&sig.params)
        .map(|(arg, p)| match p.passing {
            _ if receiver_by_value(arg) => quote!(&self),
            // (Callers pass `&recv`, so that rustc finds the method; its value is popped.)
            Passing::MutRef if !p.rejected && p.ident == "self" => quote!(&self),
            Passing::MutRef if !p.rejected => {
                let ident = &p.ident;
                quote!(#ident: ())
            }
            _ => quote!(#arg),
        })
        .collect()
}

/// The parameters of a method's `__ad_fwd_NAME`: the function's, with a receiver taken by
/// value (`self`, `mut self`, `self: Self`) taken by reference instead. Callers call a
/// method's companions on `&recv` (`(&recv).__ad_fwd_NAME(..)`), so that rustc finds them at
/// the step of the receiver's dereferences where it finds the fallback for a method without
/// companions (`callees_prelude`); a companion taking `self` by value is found one step later,
/// after the fallback. The body works on a clone of the receiver (`prologue_of`).
pub(super) fn fwd_params(func: &syn::ItemFn) -> Vec<TokenStream> {
    func.sig
        .inputs
        .iter()
        .map(|arg| match receiver_by_value(arg) {
            true => quote!(&self),
            false => quote!(#arg),
        })
        .collect()
}

/// Whether `arg` is a receiver taken by value: `self`, `mut self` or `self: Self`.
pub(super) fn receiver_by_value(arg: &syn::FnArg) -> bool {
    match arg {
        syn::FnArg::Receiver(r) => {
            r.reference.is_none()
                && (r.colon_token.is_none()
                    || matches!(&*r.ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self")))
        }
        syn::FnArg::Typed(_) => false,
    }
}

/// The sink of the `&mut` parameter `i` in `NAME::rev`.
pub(super) fn sink(i: usize) -> syn::Ident {
    format_ident!("__sink_{}", i, span = Span::mixed_site())
}

/// The seeds of the `&mut` parameters in `NAME::rev`, read from their sinks.
pub(super) fn rev_seeds(sig: &Signature) -> Vec<TokenStream> {
    sig.outputs()
        .map(|(i, p)| {
            let sink = sink(i);
            match &p.kind {
                ParamKind::Scalar(_) => quote!(::revad::__private::ScalarInOut::seed(&#sink)),
                ParamKind::Aggregate { .. } => quote!((*#sink)),
                _ => quote!(::revad::__private::ArrayInOut::seed(&#sink)),
            }
        })
        .collect()
}

/// The seeds of the `&mut` parameters in `NAME_vjp`: its parameters `__seed_NAME`.
pub(super) fn vjp_seeds(sig: &Signature) -> Vec<TokenStream> {
    sig.outputs()
        .map(|(_, p)| {
            let seed = seed(&p.ident);
            quote!(#seed)
        })
        .collect()
}

/// The seed parameters of `NAME_vjp` after the output's: `__seed_s: Vec<f64>`.
pub(super) fn seed_params(sig: &Signature) -> Vec<TokenStream> {
    sig.outputs()
        .filter_map(|(_, p)| {
            let name = seed(&p.ident);
            let ty = p.kind.adjoint_type()?;
            Some(quote!(#name: #ty))
        })
        .collect()
}

impl Emitter<'_> {
    /// The end of `NAME::rev`: each `&mut` parameter's sink gets the adjoint of its value on
    /// entry (zero when the function overwrites it before reading it).
    pub(super) fn deliver_entries(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, p) in self.sig.outputs() {
            let sink = sink(i);
            let name = &self.body.vars[i].name;
            let active = self.plan.active(i) && self.plan.adj[i] != crate::ir::plan::AdjDecl::None;
            let adj = &self.adj[i];
            out.extend(match (&p.kind, active) {
                // (The caller's adjoint of the value after the call becomes that of the value
                // before it.)
                (ParamKind::Aggregate { .. }, true) => quote!(*#sink = #adj;),
                (ParamKind::Aggregate { .. }, false) => {
                    quote!(*#sink = ::revad::__private::zeros_like(&#name);)
                }
                (ParamKind::Scalar(_), true) => {
                    quote!(::revad::__private::ScalarInOut::set(&mut #sink, #adj);)
                }
                (ParamKind::Scalar(t), false) => {
                    let zero = super::tokens::zero(*t);
                    quote!(::revad::__private::ScalarInOut::set(&mut #sink, #zero);)
                }
                (_, true) => quote!(::revad::__private::ArrayInOut::set(&mut #sink, &#adj[..]);),
                (_, false) => quote! {
                    ::revad::__private::ArrayInOut::set(&mut #sink, &::revad::__private::zeros_like(&#name)[..]);
                },
            });
        }
        out
    }

    /// Adds the seeds of the `&mut` parameters (`seeds[k]` for the `k`-th) into the adjoints
    /// (or, in CPS mode, the cells) of their values on return.
    pub(super) fn seed_writebacks(&self, seeds: &[TokenStream], function: &str) -> TokenStream {
        let mut out = TokenStream::new();
        for (w, seed) in self.body.writebacks.iter().zip(seeds) {
            let v = w.var;
            if !self.plan.active(v) {
                continue;
            }
            // An aggregate's adjoint in the CPS backend is one value, taken and put back.
            if self.in_cells() && self.is_aggregate(v) {
                let local = Emitter {
                    adj: self.adj.clone(),
                    held: Vec::new(),
                    rebased: Vec::new(),
                    primal_held: Vec::new(),
                    store: super::shared::Store::Locals,
                    ..*self
                };
                let (adj, cell) = (&self.adj[v], super::tokens::cell_of(v));
                let add = local.contrib(&Operand::Var(v), seed.clone(), false);
                out.extend(quote!({ let mut #adj = #cell.take(); #add #cell.put(#adj); }));
                continue;
            }
            // (An aggregate's seed is checked by `Accumulate`, which panics at another length.)
            if !self.body.vars[v].ty.is_array() || self.is_aggregate(v) {
                out.extend(self.contrib(&Operand::Var(v), seed.clone(), false));
                continue;
            }
            let param = self.sig.params[w.param].ident.to_string();
            let len = match self.in_cells() {
                true => {
                    let cells = super::tokens::cell_of(v);
                    quote!(#cells.len())
                }
                false => {
                    let adj = &self.adj[v];
                    quote!(#adj.len())
                }
            };
            let add = self.contrib(&Operand::Var(v), seed.clone(), false);
            out.extend(quote! {
                if ::revad::__private::output_seed(#function, #param, &#seed[..], #len) {
                    #add
                }
            });
        }
        out
    }
}
