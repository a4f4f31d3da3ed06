//! Split companions: what lets other `#[reverse]` functions call this one.
//!
//! For `fn g`, a marker struct named `g` (in the type namespace, beside the function) with
//! three associated functions:
//!
//! ```text
//! impl g {
//!     fn fwd(<params>, __stack: &mut ValueStack) -> R          // forward sweep; pushes
//!     fn rev(<params>, __seed, __stack, <one sink per param>)   // pops; reverse sweep
//!     fn cps<R>(<params>, __stack, <one cell per param>, k) -> R  // for CPS callers
//! }
//! ```
//!
//! `fwd` and `rev` come from the tape backend whatever backend `g` uses; `cps` from `g`'s
//! backend (`codegen::cps::companion`, or `companion_via_split` over `fwd` and `rev`).
//!
//! With `#[reverse(recompute)]`, `fwd` is the primal `g(..)` and pushes nothing, and `rev`
//! runs the forward sweep (on copies of its arguments, which the caller passes to both)
//! before the reverse sweep that pops what it pushed: a caller's tape keeps `g`'s arguments
//! only, and `g`'s own values live during its reverse sweep. The derivative is the same bit
//! for bit (the same code on the same values).
//!
//! Every float parameter is differentiated here, whatever `wrt` says: `wrt` shapes `g`'s own
//! gradient, but a caller needs the derivative along every argument it differentiates. A
//! struct or other aggregate that `wrt` leaves out is the exception: its type need not have
//! an adjoint, and a caller that differentiates the argument gets the error of
//! `Undifferentiated`.
//!
//! A recursive `g` recurses in `fwd` and then in `rev`, so their frames set the depth its
//! gradient reaches (about 1/2 of `g`'s own in release builds, 1/3 in debug builds; the
//! README's table and `examples/recursion_depth.rs`). `rev` adds into the sinks as it goes
//! (`ScalarSink::add(&mut __adj_x, ..)`) and passes them on reborrowed, so nothing stays in its
//! frame to be delivered after the recursive call.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::super::inout;
use super::super::shared::{Emitter, Store};
use super::super::tokens::stack;
use crate::ir::plan::Plan;
use crate::ir::Body;
use crate::parse::{ParamKind, Passing, Signature};

/// The marker struct and its `fwd`/`rev` for `func`, from a body planned in split mode.
/// `cps` is the CPS companion `NAME::cps`, which the backend provides.
pub(in crate::codegen) fn emit(
    func: &syn::ItemFn,
    sig: &Signature,
    body: &Body,
    plan: &Plan,
    cps: TokenStream,
) -> TokenStream {
    let e = Emitter::new(body, plan, sig, Store::Sinks);
    let name = &func.sig.ident;
    let vis = &func.vis;
    let generics = &func.sig.generics;
    let where_clause = &func.sig.generics.where_clause;
    let params = inout::fwd_params(func);
    let rev_params = inout::rev_params(sig, func);
    // As written: a function returning `()` has no `-> ()` and no `()` at the end.
    let ret = &func.sig.output;
    let stack = stack();
    let seed = crate::ir::names::generated("seed");
    let seed_ty = sig.ret.seed_type();
    let callees = super::super::callees_prelude(body, sig, false);
    let lent = func.sig.inputs.iter().any(inout::receiver_by_value);
    let prologue = inout::prologue_of(sig, body, lent);
    let rev_prologue = inout::rev_prologue(sig, body);
    let forward = e.fwd_block(&body.block);
    let epilogue = inout::fwd_epilogue(sig, body);
    let at_ret = super::super::tokens::return_span(func);
    let output = match &body.output {
        crate::ir::Output::Tuple(items) if items.is_empty() => TokenStream::new(),
        _ => super::super::tokens::respan(e.output_value(&body.output), at_ret),
    };
    let function = format!("{name}::rev");
    let seed_outputs = e.seed_writebacks(&inout::rev_seeds(sig), &function);
    let seed_output = e.seed(&function);
    let seeding = super::super::tokens::respan(quote!(#seed_output #seed_outputs), at_ret);
    let reverse = e.rev_block(&body.block, seeding);
    let deliver_entries = e.deliver_entries();

    // One sink per parameter: scalars get `impl ScalarSink`, arrays `impl ArraySink`,
    // inactive parameters `Discard`. The sink is the parameter's adjoint, which the reverse
    // sweep adds into as it goes, except for a scalar parameter that the body assigns: its
    // adjoint is a local, added to the sink at the end.
    let mut sinks = Vec::new();
    let mut deliver = Vec::new();
    let mut targets = Vec::new();
    for (i, param) in sig.params.iter().enumerate() {
        let adj = &e.adj[i];
        if param.passing == Passing::MutRef {
            // The caller's adjoint of the value after the call: the seed, replaced by the
            // adjoint of the value before it (`deliver_entries`).
            let sink = inout::sink(i);
            let t = param.kind.elem().ident();
            sinks.push(match &param.kind {
                ParamKind::Scalar(_) => quote!(mut #sink: impl ::revad::__private::ScalarInOut<#t>),
                ParamKind::Aggregate { ty } => {
                    let ty = crate::parse::adjoint_of(ty);
                    let at = param.type_span();
                    let reference = super::super::tokens::at_user(quote!(&mut #ty), at);
                    quote!(#sink: #reference)
                }
                _ => quote!(mut #sink: impl ::revad::__private::ArrayInOut<#t>),
            });
            continue;
        }
        match &param.kind {
            ParamKind::Scalar(t) if e.is_sink(i) => {
                let t = t.ident();
                sinks.push(quote!(mut #adj: impl ::revad::__private::ScalarSink<#t>));
            }
            ParamKind::Scalar(t) => {
                let t = t.ident();
                let sink = format_ident!("__sink_{}", i, span = proc_macro2::Span::mixed_site());
                sinks.push(quote!(mut #sink: impl ::revad::__private::ScalarSink<#t>));
                if plan.active(i) {
                    deliver.push(quote!(::revad::__private::ScalarSink::add(&mut #sink, #adj);));
                }
            }
            ParamKind::Array { elem, .. } | ParamKind::Slice { elem } => {
                let t = elem.ident();
                sinks.push(quote!(mut #adj: impl ::revad::__private::ArraySink<#t>));
            }
            // Left out by `wrt`: not differentiated, whatever the caller does with it (a
            // differentiated argument here is the error of `Undifferentiated`).
            ParamKind::Aggregate { .. } if !param.active => {
                sinks.push(quote!(_: impl ::revad::__private::Undifferentiated));
            }
            // The caller's adjoint (or zeros for `Discard`), added into in place
            // (`__adj_p.pos[0] += ..`):
            //
            //     mut __sink_1: impl AggregateSink<P>, ..
            //     let mut __revad_scratch_1: Option<<P as Adjoint>::Adj> = None;
            //     let __revad_adj_1: &mut <P as Adjoint>::Adj = AggregateSink::<P>::target(
            //         &mut __sink_1, &mut __revad_scratch_1, &p);
            //     let __adj_p = __revad_adj_1;
            //
            // A type without an adjoint is one error, that of the signature: every obligation
            // here is `P: Adjoint` at the parameter's type, with the user's hygiene (the two
            // locals of the adjoint's type too: rustc checks a local's type where it is bound),
            // and the first one reported there, `<P as Adjoint>::Adj`'s, stands for the others.
            ParamKind::Aggregate { ty } => {
                let at = param.type_span();
                let sink_ty = super::super::tokens::at_user(
                    quote!(impl ::revad::__private::AggregateSink<#ty>),
                    at,
                );
                let sink = inout::sink(i);
                let scratch = format_ident!("__revad_scratch_{}", i, span = at);
                let target = format_ident!("__revad_adj_{}", i, span = at);
                let ident = &param.ident;
                // (A receiver lent to the companion is a reference already.)
                let value = match lent && ident == "self" {
                    true => quote!(#ident),
                    false => quote!(&#ident),
                };
                sinks.push(quote!(mut #sink: #sink_ty));
                let adj_ty = crate::parse::adjoint_of(ty);
                let bind = quote::quote_spanned! {at=>
                    let mut #scratch: ::core::option::Option<#adj_ty> =
                        ::core::option::Option::None;
                    let #target: &mut #adj_ty = ::revad::__private::AggregateSink::<#ty>::target(
                        &mut #sink,
                        &mut #scratch,
                        #value,
                    );
                };
                targets.push(quote!(#bind let #adj = #target;));
            }
            ParamKind::Inactive => sinks.push(quote!(_: ::revad::__private::Discard)),
        }
    }
    let allow = quote! {
        #[allow(
            dead_code,
            unused_mut,
            unused_variables,
            unused_assignments,
            unreachable_code,
            clippy::too_many_arguments,
            reason = "generated adjoint code: declarations are uniform, not minimal, and the \
                      companions take a stack and a sink per parameter"
        )]
    };
    let inherited = super::super::inherited_attrs(func);
    if sig.in_impl {
        // Beside a method: associated functions, found by rustc from the receiver's type
        // (`recv.__ad_fwd_NAME(..)`) or the type (`Type::__ad_fwd_NAME(..)`).
        let fwd = super::super::tokens::companion_ident(name, "fwd");
        let rev = super::super::tokens::companion_ident(name, "rev");
        return quote! {
            #[doc(hidden)]
            #inherited
            #allow
            #vis fn #fwd #generics (#(#params,)* #stack: &mut ::revad::__private::ValueStack) #ret #where_clause {
                #callees
                #prologue
                #forward
                #epilogue
                #output
            }

            #[doc(hidden)]
            #inherited
            #allow
            #vis fn #rev #generics (#(#rev_params,)* #seed: #seed_ty, #stack: &mut ::revad::__private::ValueStack, #(#sinks),*) #where_clause {
                #callees
                #(#targets)*
                #rev_prologue
                #reverse
                #(#deliver)*
                #deliver_entries
            }
        };
    }
    let returns = super::super::returns(func);
    // (At the function's name: an error in a companion's signature, such as a parameter type
    // without an adjoint, is reported at the user's code.)
    let fwd_name = format_ident!("fwd", span = name.span());
    let rev_name = format_ident!("rev", span = name.span());
    let (fwd_body, rerun) = match sig.recompute {
        // `#[reverse(recompute)]`: `fwd` is the primal and keeps nothing; `rev` runs the
        // forward sweep on copies of the arguments (the caller passes them to `rev` too), and
        // its reverse pops what that pushed. (The driver rejects `&mut` parameters, methods
        // and function arguments.)
        true => {
            let primal = super::super::primal_path(func, sig);
            let args: Vec<&syn::Ident> = sig.params.iter().map(|p| &p.ident).collect();
            let fwd_body = quote! {
                let _ = #stack;
                #primal(#(#args),*)
            };
            let rerun = quote! {
                {
                    #(let #args = ::core::clone::Clone::clone(&#args);)*
                    #prologue
                    #forward
                }
            };
            (fwd_body, rerun)
        }
        false => (
            quote! {
                #callees
                #prologue
                #forward
                #epilogue
                #output
            },
            TokenStream::new(),
        ),
    };
    quote! {
        #[doc(hidden)]
        #inherited
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #inherited
        impl ::revad::__private::Differentiable for #name {}
        #returns

        #[doc(hidden)]
        #inherited
        #allow
        impl #name {
            /// The forward sweep of the function, for callers: pushes what `rev` pops.
            #vis fn #fwd_name #generics (#(#params,)* #stack: &mut ::revad::__private::ValueStack) #ret #where_clause {
                #fwd_body
            }

            /// The reverse sweep of the function, for callers: adds the adjoints of the
            /// parameters, scaled by the seed, into the sinks.
            #vis fn #rev_name #generics (#(#rev_params,)* #seed: #seed_ty, #stack: &mut ::revad::__private::ValueStack, #(#sinks),*) #where_clause {
                #callees
                #rerun
                #(#targets)*
                #rev_prologue
                #reverse
                #(#deliver)*
                #deliver_entries
            }

            #cps
        }
    }
}

/// The companions of a method whose body has errors, with `unreachable!()` bodies, so that
/// callers report nothing more.
pub(in crate::codegen) fn stub_methods(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = &func.sig.ident;
    let vis = &func.vis;
    let generics = &func.sig.generics;
    let where_clause = &func.sig.generics.where_clause;
    let params = inout::fwd_params(func);
    let rev_params = inout::rev_params(sig, func);
    let ret = &func.sig.output;
    let seed_ty = sig.ret.seed_type();
    let fwd = super::super::tokens::companion_ident(name, "fwd");
    let rev = super::super::tokens::companion_ident(name, "rev");
    let sinks = (0..sig.params.len()).map(|i| format_ident!("K{}", i));
    let sink_args = (0..sig.params.len()).map(|i| {
        let k = format_ident!("K{}", i);
        quote!(_: #k)
    });
    let lifetimes = generics.params.iter();
    quote! {
        #[doc(hidden)]
        #[allow(dead_code, unused_variables, clippy::all)]
        #vis fn #fwd #generics (#(#params,)* _: &mut ::revad::__private::ValueStack) #ret #where_clause {
            ::core::unreachable!()
        }
        #[doc(hidden)]
        #[allow(dead_code, unused_variables, clippy::all)]
        #vis fn #rev <#(#lifetimes,)* #(#sinks),*> (#(#rev_params,)* _: #seed_ty, _: &mut ::revad::__private::ValueStack, #(#sink_args),*) #where_clause {
            ::core::unreachable!()
        }
    }
}
