//! Code generation: from the planned IR to the items the user calls.
//!
//! In: the original function, its [`Signature`], the lowered [`Body`], its [`Plan`] and the
//! [`Backend`]. Out: the original function unchanged, `NAME_vjp` from the backend, for scalar
//! outputs `NAME_grad` (for others a `NAME_grad` whose use is an error that says what to use,
//! `no_grad`), and the split companions `NAME::fwd`/`NAME::rev` that callers use (always from
//! the tape backend: they are the calling convention between annotated functions, whatever
//! backend each uses). A body's callees without a derivative get stand-ins, so that the
//! missing derivative is one error at the call (`require`, `method_fallbacks`).
//!
//! - `tape/`: the tape backend (it follows the storage plan, `ir::plan`) and the split
//!   companions;
//! - `cps`: the continuation-passing backend;
//! - `shared`: what both emit alike, the primal statements and the adjoint contributions;
//! - `generic`: the constants of a float type parameter (`<T as ::revad::Float>::ZERO`);
//! - `derivative`: `#[revad::derivative]`;
//! - `forward`: `#[revad::forward]`'s `NAME_jvp` and companions; `jacobian`: `NAME_jacobian`;
//! - `hessian`: `#[reverse(hessian)]`'s second derivatives and the companions that nest;
//! - `messages`: the messages of the errors that name the user's item.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt as _;

use crate::ir::plan::Plan;
use crate::ir::Body;
use crate::parse::{RetTy, Signature};

pub(crate) mod closures;
mod convention;
pub(crate) mod cps;
pub(crate) mod derivative;
pub(crate) mod forward;
mod generic;
pub(crate) mod grow;
pub(crate) mod hessian;
mod inout;
pub(crate) mod jacobian;
mod linear;
pub(crate) mod messages;
mod shared;
mod sweep;
pub(crate) mod tape;
pub(crate) mod tokens;

pub(crate) use crate::parse::Backend;
pub(crate) use tokens::return_span;

/// The items generated for `func`: `plan` for `NAME_vjp`, `split` for the companions.
pub(crate) fn emit(
    (primal, func): (&syn::ItemFn, &syn::ItemFn),
    sig: &Signature,
    (body, plan): (&Body, &Plan),
    (split_sig, split_body, split_plan): (&Signature, &Body, &Plan),
    backend: Backend,
) -> TokenStream {
    let (vjp, cps_companion) = match backend {
        Backend::Tape => (
            tape::emit_vjp(func, sig, body, plan),
            convention::companion_via_split(func, split_sig),
        ),
        // (A struct parameter has no cells to take from a CPS caller: the companion for CPS
        // callers runs the split companions around the continuation, as a tape function's.)
        Backend::Cps
            if split_sig
                .params
                .iter()
                .any(|p| matches!(p.kind, crate::parse::ParamKind::Aggregate { .. })) =>
        {
            (
                cps::emit_vjp(func, sig, body, plan),
                convention::companion_via_split(func, split_sig),
            )
        }
        Backend::Cps => (
            cps::emit_vjp(func, sig, body, plan),
            cps::companion(func, split_sig, split_body, split_plan),
        ),
    };
    let grad = emit_grad(func, sig, false);
    let companions = tape::split::emit(func, split_sig, split_body, split_plan, cps_companion);
    let as_argument = closures::marker_impls(func, sig, false, true);
    quote! {
        #primal
        #vjp
        #grad
        #companions
        #as_argument
    }
}

/// `NAME_vjp` and `NAME_grad` with the right signatures and `unreachable!()` bodies, emitted
/// next to the errors when the body cannot be differentiated, so that callers do not get
/// "cannot find function" errors on top of the real one (thiserror's fallback).
pub(crate) fn stubs(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let vjp_sig = vjp_signature(func, sig);
    let vis = &func.vis;
    let grad = emit_grad(func, sig, true);
    let companions = stub_companions(func, sig);
    // (As in `emit`: `#[forward]` beside the function implements its traits of a function
    // argument over these, so an error here is not followed by one about them.)
    let as_argument = closures::marker_impls(func, sig, false, true);
    quote! {
        #[allow(unused_variables, clippy::diverging_sub_expression)]
        #vis #vjp_sig {
            ::core::unreachable!()
        }
        #grad
        #companions
        #as_argument
    }
}

/// For each parameter or result whose type is a single name that `#[reverse]` took for a
/// struct of the user's (`x: Real`, not a type parameter): a check that it is not a float by
/// another name (`type Real = f64;`), an error at the type that says to write the float type
/// (`expect_struct_type`). Empty when there is none.
pub(crate) fn struct_type_checks(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let generic = |ident: &syn::Ident| {
        ident == "Self" || func.sig.generics.type_params().any(|t| &t.ident == ident)
    };
    let named = |ty: &TokenStream| match syn::parse2::<syn::Ident>(ty.clone()) {
        Ok(ident) if !generic(&ident) => Some(ident),
        _ => None,
    };
    let mut types: Vec<syn::Ident> = sig
        .params
        .iter()
        .filter_map(|p| match &p.kind {
            crate::parse::ParamKind::Aggregate { ty } if !p.rejected => named(ty),
            _ => None,
        })
        .collect();
    if let crate::parse::RetTy::Aggregate(ty) = &sig.ret {
        types.extend(named(ty));
    }
    if types.is_empty() {
        return TokenStream::new();
    }
    let checks = types.iter().map(|ty| {
        quote::quote_spanned! {ty.span()=>
            ::revad::__private::expect_struct_type(
                (&::revad::__private::Named::<#ty>::new()).kind(),
            );
        }
    });
    quote! {{
        use ::revad::__private::{ByFloat as _, ByOther as _};
        #(#checks)*
    }}
}

/// The path of the primal function: `f`, `f::<T>` for a generic one (naming its type
/// parameters, which nothing else would infer), or `Self::f` for a method.
pub(crate) fn primal_path(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = &func.sig.ident;
    // (A function argument's type is named as a function pointer, which is `Fn`. The
    // arguments are the type and const parameters, in their order.)
    let types: Vec<TokenStream> = func
        .sig
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(t) => {
                Some(match sig.functions.iter().find(|f| f.ident == t.ident) {
                    Some(f) => f.pointer.clone(),
                    None => {
                        let ident = &t.ident;
                        quote!(#ident)
                    }
                })
            }
            syn::GenericParam::Const(c) => {
                let ident = &c.ident;
                Some(quote!(#ident))
            }
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let turbofish = (!types.is_empty()).then(|| quote!(::<#(#types),*>));
    match sig.in_impl {
        true => quote!(Self::#name #turbofish),
        false => quote!(#name #turbofish),
    }
}

/// The marker struct and companions of `func` with `unreachable!()` bodies: for a function
/// whose body has errors, and for one that callers cannot call yet (its `&mut` parameters).
fn stub_companions(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    if sig.in_impl {
        return tape::split::stub_methods(func, sig);
    }
    let vis = &func.vis;
    let name = &func.sig.ident;
    let output = &func.sig.output;
    let seed_ty = sig.ret.seed_type();
    let returns = returns(func);
    let (args, fwd_types, rev_types) = stub_params(func);
    let sinks: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("K{}", i))
        .collect();
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        impl ::revad::__private::Differentiable for #name {}
        #returns
        #[allow(dead_code, clippy::all)]
        impl #name {
            #vis fn fwd<#(#args,)* S>(#(_: #fwd_types,)* _: S) #output {
                ::core::unreachable!()
            }
            #vis fn rev<#(#args,)* S, #(#sinks),*>(#(_: #rev_types,)* _: #seed_ty, _: S, #(_: #sinks),*) {
                ::core::unreachable!()
            }
            #vis fn cps<#(#args,)* S, #(#sinks,)* T, R>(
                #(_: #fwd_types,)* _: S, #(_: #sinks,)*
                _: &mut dyn FnMut(&::revad::__private::cps::NumR<T>) -> R,
            ) -> R {
                ::core::unreachable!()
            }
        }
    }
}

/// The parameters of the stand-in companions of a function whose expansion failed: a type
/// parameter `A{i}` for each (any argument passes), except a reference parameter whose type
/// names none of the function's type parameters, which keeps its type (`&f64`, `&mut [f64]`;
/// in the reverse companion `()` for `&mut`), so that a caller's `&mut` argument, passed as
/// the parameter takes it (`lend`), finds one type. Returns the type parameters and the types
/// of the forward and reverse companions' parameters.
fn stub_params(func: &syn::ItemFn) -> (Vec<syn::Ident>, Vec<TokenStream>, Vec<TokenStream>) {
    let generic: Vec<String> = func
        .sig
        .generics
        .params
        .iter()
        .map(|p| match p {
            syn::GenericParam::Type(t) => t.ident.to_string(),
            syn::GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
            syn::GenericParam::Const(c) => c.ident.to_string(),
        })
        .collect();
    let mentions_generic = |ty: &syn::Type| {
        fn idents(tokens: TokenStream, out: &mut Vec<String>) {
            for t in tokens {
                match t {
                    proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                    proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                    _ => {}
                }
            }
        }
        let mut found = Vec::new();
        idents(quote!(#ty), &mut found);
        found
            .iter()
            .any(|i| generic.contains(i) || i == "impl" || i == "Self")
    };
    let (mut params, mut fwd, mut rev) = (Vec::new(), Vec::new(), Vec::new());
    let typed = func.sig.inputs.iter().filter_map(|arg| match arg {
        syn::FnArg::Typed(t) => Some(&*t.ty),
        syn::FnArg::Receiver(_) => None,
    });
    for (i, ty) in typed.enumerate() {
        match ty {
            syn::Type::Reference(r) if !mentions_generic(ty) && r.lifetime.is_none() => {
                fwd.push(quote!(#ty));
                rev.push(match r.mutability {
                    Some(_) => quote!(()),
                    None => quote!(#ty),
                });
            }
            _ => {
                let a = format_ident!("A{}", i);
                fwd.push(quote!(#a));
                rev.push(quote!(#a));
                params.push(a);
            }
        }
    }
    (params, fwd, rev)
}

/// `(R, G)`, located at the first aggregate parameter's type if there is one: a type without
/// an adjoint makes the tuple ill-formed, and rustc reports that at the tuple.
fn result_type(sig: &Signature, ret: &TokenStream, grad: &TokenStream) -> TokenStream {
    let tuple = quote!((#ret, #grad));
    let aggregate = sig
        .params
        .iter()
        .find(|p| p.active && matches!(p.kind, crate::parse::ParamKind::Aggregate { .. }));
    match aggregate {
        Some(p) => tokens::at_user(tuple, p.type_span()),
        None => tuple,
    }
}

/// `fn NAME_vjp(<params>, __seed: Ř) -> (R, G)`.
pub(crate) fn vjp_signature(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = format_ident!("{}_vjp", func.sig.ident, span = func.sig.ident.span());
    let generics = &func.sig.generics;
    let where_clause = &func.sig.generics.where_clause;
    let params = params(func);
    let seed = crate::ir::names::generated("seed");
    let seed_ty = sig.ret.seed_type();
    // A function returning `()` has no seed of its own, only those of its `&mut` parameters.
    let seed =
        (!matches!(sig.ret, RetTy::Unit | RetTy::Inactive)).then(|| quote!(#seed: #seed_ty,));
    let outputs = inout::seed_params(sig);
    let ret = match &func.sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let grad = sig.gradient_type();
    let result = result_type(sig, &ret, &grad);
    quote! {
        fn #name #generics (#(#params,)* #seed #(#outputs,)*) -> #result #where_clause
    }
}

/// The parameters as `name: Type`, without `mut` (for functions that only pass them on).
pub(crate) fn typed_params(sig: &Signature) -> Vec<TokenStream> {
    sig.params
        .iter()
        .map(|p| {
            let (name, ty) = (&p.ident, &p.ty);
            quote!(#name: #ty)
        })
        .collect()
}

/// The parameters of `func`, as written.
fn params(func: &syn::ItemFn) -> Vec<TokenStream> {
    func.sig.inputs.iter().map(|arg| quote!(#arg)).collect()
}

/// `NAME_grad(<params>) -> (R, G)` for scalar outputs: the vjp with seed 1, or for a `stub`
/// nothing (its parameters might not even be distinct names).
fn emit_grad(func: &syn::ItemFn, sig: &Signature, stub: bool) -> TokenStream {
    let RetTy::Scalar(float) = &sig.ret else {
        return no_grad(func, sig);
    };
    let ident = &func.sig.ident;
    let name = format_ident!("{}_grad", ident, span = ident.span());
    let vjp = format_ident!("{}_vjp", ident, span = ident.span());
    let vis = &func.vis;
    let generics = &func.sig.generics;
    let where_clause = &func.sig.generics.where_clause;
    // The parameters without `mut`: `f_grad` only passes them on. A receiver as written
    // (`&self`): `self: &Self` trips clippy's `needless_arbitrary_self_type` in user crates.
    let params = sig.params.iter().map(|p| match func.sig.receiver() {
        Some(receiver) if p.ident == "self" && receiver.colon_token.is_none() => {
            let (reference, mutability) = (&receiver.reference, &receiver.mutability);
            let (and, lifetime) = (
                reference.as_ref().map(|r| r.0),
                reference.as_ref().map(|r| &r.1),
            );
            let mutability = mutability.filter(|_| reference.is_some());
            let self_token = &receiver.self_token;
            quote!(#and #lifetime #mutability #self_token)
        }
        _ => {
            let (name, ty) = (&p.ident, &p.ty);
            quote!(#name: #ty)
        }
    });
    let args = sig.params.iter().map(|p| &p.ident);
    let ret = match &func.sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let grad = sig.gradient_type();
    let result = result_type(sig, &ret, &grad);
    let one = tokens::one(*float);
    let doc = grad_doc(func, sig);
    let inherited = inherited_attrs(func);
    let (allow, body) = if stub {
        (
            quote!(#[allow(unused_variables, clippy::diverging_sub_expression)]),
            quote!(::core::unreachable!()),
        )
    } else {
        // `&mut` parameters get zero seeds, made before the call borrows them.
        let zeros: Vec<syn::Ident> = sig.outputs().map(|(_, p)| inout::seed(&p.ident)).collect();
        let make = sig.outputs().map(|(_, p)| {
            let (seed, ident) = (inout::seed(&p.ident), &p.ident);
            quote!(let #seed = ::revad::__private::zeros_like(&*#ident);)
        });
        (TokenStream::new(), {
            let vjp = match sig.in_impl {
                true => quote!(Self::#vjp),
                false => quote!(#vjp),
            };
            let call = quote!(#vjp(#(#args,)* #one, #(#zeros),*));
            // (At an aggregate parameter's type, as the result type: see `result_type`.)
            let call =
                match sig.params.iter().find(|p| {
                    p.active && matches!(p.kind, crate::parse::ParamKind::Aggregate { .. })
                }) {
                    Some(p) => tokens::at_user(call, p.type_span()),
                    None => call,
                };
            quote! {
                #(#make)*
                #call
            }
        })
    };
    quote! {
        #[doc = #doc]
        #inherited
        #[inline]
        #[allow(
            dead_code,
            clippy::type_complexity,
            reason = "generated next to the function; callers may use either, and the gradient \
                      is a tuple of adjoints"
        )]
        #allow
        #vis fn #name #generics (#(#params),*) -> #result #where_clause {
            #body
        }
    }
}

/// For a function that does not return one float, which has no gradient: a `NAME_grad` whose
/// call is one error at the call that says what to use instead (`NAME_vjp`, `NAME_jacobian`),
/// rather than rustc's "cannot find function `NAME_grad`":
///
/// ```text
/// #[diagnostic::on_unimplemented(message = "`polar_grad` does not exist: ..")]
/// trait polar_grad {}
/// fn polar_grad<'__ad_check>(r: f64, t: f64) -> ([f64; 2], (f64, f64))
/// where &'__ad_check (): polar_grad { unreachable!() }
/// ```
///
/// The bound holds for no lifetime; it names a parameter, so it is checked at each use, not
/// where the function is defined. The trait shares the name in the type namespace. Not for
/// methods (an `impl` block cannot declare the trait).
fn no_grad(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    if sig.in_impl {
        return TokenStream::new();
    }
    let ident = &func.sig.ident;
    let name = format_ident!("{}_grad", ident, span = ident.span());
    let vis = &func.vis;
    let ret = match &func.sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let written = ret.to_string().replace(" ;", ";").replace("& ", "&");
    let message = messages::fill(messages::NO_GRAD, &ident.unraw().to_string(), &written);
    let label = format!("use `{ident}_vjp`, or `{ident}_jacobian` with `#[revad::forward]`");
    let note = format!(
        "a gradient is of a function that returns one float; for other outputs, \
         `{ident}_vjp(.., seed)` gives the vector-Jacobian product with a seed of the output's \
         type, and with `#[revad::forward]` beside `#[revad::reverse]`, `{ident}_jacobian` \
         gives the Jacobian"
    );
    let check = syn::Lifetime::new("'__ad_check", proc_macro2::Span::mixed_site());
    let mut generics = func.sig.generics.clone();
    generics.params.insert(0, syn::parse_quote!(#check));
    let predicates = generics.make_where_clause();
    predicates
        .predicates
        .push(syn::parse_quote!(&#check (): #name));
    let where_clause = &generics.where_clause;
    let params = sig.params.iter().map(|p| {
        let (name, ty) = (&p.ident, &p.ty);
        quote!(#name: #ty)
    });
    let result = result_type(sig, &ret, &sig.gradient_type());
    let inherited = inherited_attrs(func);
    quote! {
        #inherited
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        trait #name {}

        #inherited
        #[doc(hidden)]
        #[allow(
            dead_code,
            private_bounds,
            unused_variables,
            clippy::diverging_sub_expression,
            clippy::extra_unused_lifetimes,
            clippy::too_many_arguments,
            clippy::type_complexity
        )]
        #vis fn #name #generics (#(#params),*) -> #result #where_clause {
            ::core::unreachable!()
        }
    }
}

/// `impl Returns for NAME { type Output = R; }`: a caller that keeps an array result of the
/// function for its reverse sweep pops it as `R`. For a function generic over one float type
/// `T`, `impl<T: Float> ReturnsAt<T> for NAME { type Output = R; }`: the caller names the
/// result's float type (`ReturnsAt<f64>`, which every `Returns` implements). Not for a function
/// with lifetime parameters or several type parameters, whose return type may name parameters
/// an impl could not constrain.
pub(crate) fn returns(func: &syn::ItemFn) -> TokenStream {
    let name = &func.sig.ident;
    let ret = match &func.sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let inherited = inherited_attrs(func);
    let generics = &func.sig.generics;
    if generics.params.is_empty() {
        return quote! {
            #inherited
            impl ::revad::__private::Returns for #name {
                type Output = #ret;
            }
        };
    }
    let types: Vec<&syn::TypeParam> = generics.type_params().collect();
    match types.as_slice() {
        [t] if generics.params.len() == 1 => {
            let t = &t.ident;
            let where_clause = &generics.where_clause;
            quote! {
                #inherited
                impl #generics ::revad::__private::ReturnsAt<#t> for #name #where_clause {
                    type Output = #ret;
                }
            }
        }
        _ => TokenStream::new(),
    }
}

/// Names the active parameters for the generated docs: "`(∂f/∂x, ∂f/∂y)`".
pub(super) fn gradient_doc(func: &syn::ItemFn, sig: &Signature) -> String {
    let f = func.sig.ident.to_string();
    let parts: Vec<String> = sig
        .params
        .iter()
        .filter(|p| p.active)
        .map(|p| format!("∂{f}/∂{}", p.ident))
        .collect();
    match parts.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join(", ")),
    }
}

fn grad_doc(func: &syn::ItemFn, sig: &Signature) -> String {
    let f = func.sig.ident.to_string();
    format!(
        " The value and the gradient of [`{f}`]: returns `({f}(..), {})`.\n\n Generated by \
         `#[revad::reverse]`; the same as `{f}_vjp(.., 1.0)`.",
        gradient_doc(func, sig)
    )
}

fn vjp_doc(func: &syn::ItemFn, sig: &Signature) -> String {
    let f = func.sig.ident.to_string();
    format!(
        " The value of [`{f}`] and its vector-Jacobian product with `__seed` (the adjoint of \
         the output): returns `({f}(..), {})` scaled by the seed.{}\n\n Generated by \
         `#[revad::reverse]` as straight-line adjoint code (reverse mode).",
        gradient_doc(func, sig),
        outputs_doc(sig)
    )
}

/// For a function with `&mut` parameters: what their seeds and adjoints are.
pub(super) fn outputs_doc(sig: &Signature) -> String {
    let names: Vec<String> = sig
        .outputs()
        .map(|(_, p)| format!("`{}`", p.ident))
        .collect();
    if names.is_empty() {
        return String::new();
    }
    format!(
        "\n\n The `&mut` parameters {} are inputs and outputs: each has a seed of its own after \
         the output's (`__seed_NAME`, the adjoint of its value on return), is updated as \
         the function updates it, and its adjoint in the gradient is that of its value on \
         entry.",
        names.join(", ")
    )
}

/// The `const`, `static` and `use` items of the body, then, for a body that calls functions
/// with derivatives, a local module of fallbacks and an import of each callee, then the check
/// that each callee has a derivative.
///
/// ```text
/// mod __callees { ::revad::__callee_fallback!(__callee0, __callee0_result; A0; A0; K0); }  // stand-in
/// use __callees::*;            // a glob: shadowed by the import below when `g` has a
/// use g as __callee0;          // derivative (its marker struct is also named `g`)
/// { .. __require::<__callee0>(); }   // else: "`g` has no derivative", see `require`
/// ```
///
/// The fallback's `fwd`/`rev` accept anything, so the only error the user sees for a
/// callee without a derivative is the one from [`require`], at the call.
pub(crate) fn callees_prelude(body: &Body, sig: &Signature, check: bool) -> TokenStream {
    let enums = enum_aliases(body);
    let callees = callee_imports(body, sig, check);
    // (Methods are checked in the split companions: `method_fallbacks`.)
    let methods = method_fallbacks(body, !check);
    let items = &body.items;
    quote!(#(#items)* #enums #callees #methods)
}

/// For a body that calls methods (`recv.name(..)`, through `recv.__ad_fwd_name(..)` and
/// `recv.__ad_rev_name(..)`) or associated functions (`Type::name(..)`, through
/// `Type::__ad_fwd_name(..)`): a fallback for the companions of each, for one without them (not
/// annotated, or a trait's method), so that the missing derivative is one error at the call
/// that says so, and not rustc's "no method named `__ad_fwd_name`":
///
/// ```text
/// #[diagnostic::on_unimplemented(message = "`name` has no derivative: ..")]
/// trait __ad_no_derivative_name {}
/// trait __ad_method_name {
///     fn __ad_fwd_name<'__ad_check, A1, S>(&self, _: A1, _: S) -> StandInResult
///         where &'__ad_check (): __ad_no_derivative_name { unreachable!() }  // `check`
///     fn __ad_rev_name<A1, S, K0, K1>(&self, _: A1, _: StandInResult, _: S, _: K0, _: K1) { .. }
/// }
/// impl<T: ?Sized + ::revad::adjoint::Derived> __ad_method_name for T {}
/// ```
///
/// The bound holds for no lifetime, so a call of the fallback is the error, at the call (a
/// bound on `Self` would be reported at the generated receiver).
///
/// rustc looks for a method from the receiver's type outwards (`&&P`, `&P`, `P`), taking at
/// each step the type's own methods before those of traits. The fallback of a method is for
/// the types of `#[derive(revad::Adjoint)]` only (`Derived`, not implemented for references to
/// them), so rustc reaches it at the step where it finds the type's own companions, which it
/// prefers. An associated function's (`__ad_assoc_name`, without `self`) is for every type: a
/// path `Type::f` names the type's own `f` before a trait's.
///
/// The error is reported by one body only: the split companions (`check`), whose forward
/// sweep calls the companions of every method called with a differentiated argument (every
/// parameter is active there), and not `NAME_vjp` too.
fn method_fallbacks(body: &Body, check: bool) -> TokenStream {
    use crate::ir::CalleeKind;
    let mut seen: Vec<String> = Vec::new();
    let mut out = TokenStream::new();
    for callee in body.callees.iter().filter(|c| c.user) {
        let name = match &callee.kind {
            CalleeKind::Function => continue,
            CalleeKind::Method(name) => name.clone(),
            CalleeKind::Associated => match syn::parse2::<syn::Path>(callee.path.clone()) {
                Ok(path) => match path.segments.last() {
                    Some(last) => last.ident.clone(),
                    None => continue,
                },
                Err(_) => continue,
            },
        };
        // (One fallback per name: two would make a call ambiguous.)
        if seen.contains(&name.to_string()) {
            continue;
        }
        seen.push(name.to_string());
        let method = matches!(callee.kind, CalleeKind::Method(_));
        // A method named like a matrix's with a rule (`v.norm()`): the runtime's trait that
        // gives a matrix its companions (the user's own method comes first).
        let linalg = revad_runtime::linalg::METHOD_TRAITS
            .iter()
            .find(|(m, _)| method && name == m);
        if let Some((_, linalg)) = linalg {
            let linalg = format_ident!("{}", linalg);
            out.extend(quote! {
                #[allow(unused_imports)]
                use ::revad::__private::linalg::#linalg as _;
            });
        }
        // An operator of a struct of the user's (`a + b` as `a.add(b)`): std's trait, which
        // the generated code may call by the method's name.
        let name_text = name.to_string();
        // (`k * v` is `v.revad_left_mul(k)`: see `driver::traits::left_operator_impl`.)
        let left = crate::ir::names::left_operator_of(&name_text);
        let operator = match left.unwrap_or(&name_text) {
            "add" => Some("Add"),
            "sub" => Some("Sub"),
            "mul" => Some("Mul"),
            "div" => Some("Div"),
            "neg" => Some("Neg"),
            _ => None,
        };
        let operator = operator.filter(|_| method);
        if let (Some(operator), None) = (operator, left) {
            let operator = format_ident!("{}", operator);
            out.extend(quote! {
                #[allow(unused_imports)]
                use ::core::ops::#operator as _;
            });
        }
        let mixed = proc_macro2::Span::mixed_site();
        let fallback = match method {
            true => format_ident!("__ad_method_{}", name, span = mixed),
            false => format_ident!("__ad_assoc_{}", name, span = mixed),
        };
        let missing = format_ident!("__ad_no_derivative_{}", name, span = mixed);
        let fwd = tokens::companion_ident(&name, "fwd");
        let rev = tokens::companion_ident(&name, "rev");
        // A method's receiver is `&self`; the other arguments, and a sink for each argument.
        let (receiver, first) = match method {
            true => (Some(quote!(&self,)), 1),
            false => (None, 0),
        };
        let lent = lent_positions(body, callee);
        let (args, arg_types) = stand_in_args(&lent, first..callee.arity);
        let sinks: Vec<syn::Ident> = (0..callee.arity).map(|i| format_ident!("K{}", i)).collect();
        let message = match (left, operator) {
            (Some(_), Some(operator)) => messages::fill(
                messages::NO_LEFT_OPERATOR_DERIVATIVE,
                operator_symbol(operator),
                operator,
            ),
            _ => messages::fill(
                messages::NO_METHOD_DERIVATIVE,
                &name.unraw().to_string(),
                "",
            ),
        };
        let note = match operator {
            Some(operator) if left.is_some() => format!(
                "a float on the left of an operator on a struct of yours (`k * v`) is the \
                 method that `#[revad::reverse] impl {operator}<V2> for f64` gives the struct, \
                 with #[reverse] on its `{}`",
                operator.to_lowercase()
            ),
            Some(operator) => format!(
                "an operator on a struct of yours is its method (`a + b` is `a.add(b)`); put \
                 #[revad::reverse] on its `impl {operator} for ..` block and #[reverse] on \
                 its `{name}`"
            ),
            None => "#[reverse] calls the derivatives that `#[revad::reverse]` generates beside \
                     a method or an associated function of a type's own `impl` block (for an \
                     associated function without `self`, with `#[revad::reverse]` on the block \
                     too), and beside a trait's methods (with `#[revad::reverse]` on the trait \
                     and on its impl blocks)"
                .to_string(),
        };
        let lifetime = syn::Lifetime::new("'__ad_check", mixed);
        // An operator's fallback gives a value of the receiver's type (`Output = Self`, as
        // most are), so that its one error is the missing derivative.
        let sized = operator.map(|_| quote!(Self: ::core::marker::Sized,));
        let (lifetime, bound) = match check {
            true => (
                Some(quote!(#lifetime,)),
                Some(quote!(where #sized &#lifetime (): #missing)),
            ),
            false => (None, sized.map(|s| quote!(where #s))),
        };
        // (Its seed is the adjoint of that value, which the caller's `seed_for` then infers.)
        let (result, seed) = match operator {
            Some(_) => (quote!(Self), quote!(<Self as ::revad::Adjoint>::Adj)),
            None => (
                quote!(::revad::__private::StandInResult),
                quote!(::revad::__private::StandInResult),
            ),
        };
        let seed_bound = operator.map(|_| quote!(where Self: ::revad::Adjoint));
        let declare = check.then(|| {
            quote! {
                #[diagnostic::on_unimplemented(
                    message = #message,
                    label = "called with a differentiated argument",
                    note = #note
                )]
                #[allow(non_camel_case_types)]
                trait #missing {}
            }
        });
        let types = match method {
            true => quote!(::revad::adjoint::Derived),
            false => TokenStream::new(),
        };
        // (`v.revad_left_mul(k)` exists only where the float's impl has the attribute; the
        // reverse sweep names its result's type by a call of it.)
        let plain = left.map(|_| {
            quote! {
                fn #name(&self, _: ::revad::__private::StandInResult) -> Self
                where
                    Self: ::core::marker::Sized,
                {
                    ::core::unreachable!()
                }
            }
        });
        out.extend(quote! {
            #declare
            #[allow(non_camel_case_types, dead_code, clippy::all)]
            trait #fallback {
                #plain
                fn #fwd<#lifetime #(#args,)* S>(#receiver #(_: #arg_types,)* _: S)
                    -> #result
                #bound
                {
                    ::core::unreachable!()
                }
                fn #rev<#(#args,)* S, #(#sinks),*>(
                    #receiver
                    #(_: #arg_types,)*
                    _: #seed,
                    _: S,
                    #(_: #sinks),*
                ) #seed_bound {
                    ::core::unreachable!()
                }
            }
            impl<T: ?::core::marker::Sized + #types> #fallback for T {}
        });
    }
    out
}

/// The adjoint type of each enum the body matches on or builds, under a local name that a
/// pattern can use (a pattern cannot name a variant through a projection):
///
/// ```text
/// type __AdjShape = <Shape as ::revad::Adjoint>::Adj;
/// ```
pub(super) fn enum_aliases(body: &Body) -> TokenStream {
    let aliases = body.enums.iter().map(|e| {
        let (alias, ty) = (&e.alias, &e.enum_ty);
        quote! {
            // (The forward sweep reads no adjoint.)
            #[allow(dead_code)]
            type #alias = <#ty as ::revad::Adjoint>::Adj;
        }
    });
    quote!(#(#aliases)*)
}

fn callee_imports(body: &Body, sig: &Signature, check: bool) -> TokenStream {
    if body.callees.is_empty() {
        return TokenStream::new();
    }
    let module = format_ident!("__callees", span = proc_macro2::Span::mixed_site());
    // (Methods and associated functions are reached through their receiver or type.)
    let functions = || {
        body.callees
            .iter()
            .filter(|c| c.kind == crate::ir::CalleeKind::Function)
    };
    if functions().next().is_none() {
        return TokenStream::new();
    }
    let results = stand_in_results(body, sig);
    let fallbacks = body
        .callees
        .iter()
        .zip(results)
        .filter(|(c, _)| c.kind == crate::ir::CalleeKind::Function)
        .map(|(callee, result)| match result {
            Some(result) => stand_in(body, callee, &result),
            // (The facade's macro writes the same items, returning `StandInResult`; a callee
            // passed `&mut` arguments takes the runtime's `StandInLent` for them.)
            None => {
                let alias = &callee.alias;
                let (params, types) = stand_in_args(&lent_positions(body, callee), 0..callee.arity);
                let sinks = (0..callee.arity).map(|i| format_ident!("K{}", i));
                let result = format_ident!("{}_result", alias);
                quote!(::revad::__callee_fallback!(
                    #alias, #result; #(#params)*; #(#types),*; #(#sinks)*);)
            }
        });
    let imports = functions().map(|callee| {
        let (path, alias) = (import_path(&callee.path), &callee.alias);
        let check = check.then(|| require(callee, Needs::Reverse));
        quote! {
            #[allow(unused_imports)]
            use #path as #alias;
            #check
        }
    });
    quote! {
        mod #module {
            #(#fallbacks)*
        }
        #[allow(unused_imports)]
        use #module::*;
        #(#imports)*
    }
}

/// The stand-in for the function `callee` when it has no derivative (the glob import that
/// `use g as __callee0;` shadows when `g` has a marker), for a result the body uses as an
/// array: the facade's `__callee_fallback!` with the result type `result` instead of
/// `StandInResult`. Its companions accept anything and return `result`, so that the missing
/// derivative (`require`) is the only error.
///
/// ```text
/// pub struct __callee0 {}
/// impl Returns for __callee0 { type Output = Vec<f64>; }
/// impl __callee0 {
///     pub fn fwd<A0, S>(_: A0, _: S) -> Vec<f64> { unreachable!() }
///     pub fn rev<A0, S, K0>(_: A0, _: Vec<f64>, _: S, _: K0) { unreachable!() }
///     // `cps`, `jvp`, `jvp_vec` alike
/// }
/// ```
fn stand_in(body: &Body, callee: &crate::ir::Callee, result: &TokenStream) -> TokenStream {
    let alias = &callee.alias;
    let (args, types) = stand_in_args(&lent_positions(body, callee), 0..callee.arity);
    let sinks: Vec<syn::Ident> = (0..callee.arity).map(|i| format_ident!("K{}", i)).collect();
    quote! {
        #[allow(non_camel_case_types, dead_code)]
        pub struct #alias {}
        impl ::revad::__private::Returns for #alias {
            type Output = #result;
        }
        #[allow(dead_code, clippy::all)]
        impl #alias {
            pub fn fwd<#(#args,)* S>(#(_: #types,)* _: S) -> #result {
                ::core::unreachable!()
            }
            pub fn rev<#(#args,)* S, #(#sinks),*>(#(_: #types,)* _: #result, _: S, #(_: #sinks),*) {
                ::core::unreachable!()
            }
            pub fn cps<#(#args,)* S, #(#sinks,)* T, R>(
                #(_: #types,)* _: S, #(_: #sinks,)*
                _: &mut dyn FnMut(&::revad::__private::cps::NumR<T>) -> R,
            ) -> R {
                ::core::unreachable!()
            }
            pub fn jvp<#(#args,)* #(#sinks),*>(#(_: #types,)* #(_: #sinks),*) -> (#result, #result) {
                ::core::unreachable!()
            }
            pub fn jvp_vec<#(#args,)* #(#sinks),*>(#(_: #types,)* #(_: #sinks),*) -> (#result, #result) {
                ::core::unreachable!()
            }
        }
    }
}

/// Which arguments of `callee` some call of the body passes by `&mut` (a method's receiver
/// aside): its stand-in takes the runtime's `StandInLent` there, so that `lend` and `unlend`
/// pick one type and the missing derivative stays the only error.
fn lent_positions(body: &Body, callee: &crate::ir::Callee) -> Vec<bool> {
    let index = body.callees.iter().position(|c| std::ptr::eq(c, callee));
    let mut lent = vec![false; callee.arity];
    crate::ir::visit::walk(&body.block, &mut |stmt, _| {
        if let crate::ir::StmtKind::Let {
            rhs: crate::ir::Rhs::Call(call),
            ..
        } = &stmt.kind
        {
            if Some(call.callee) != index {
                return;
            }
            for (k, &by_mut) in call.by_mut.iter().enumerate() {
                if by_mut && !(call.method && k == 0) && k < lent.len() {
                    lent[k] = true;
                }
            }
        }
    });
    lent
}

/// The type parameters and the parameter types of a stand-in's arguments `range`: `A{i}`,
/// or the runtime's `StandInLent` for an argument passed by `&mut`.
fn stand_in_args(
    lent: &[bool],
    range: std::ops::Range<usize>,
) -> (Vec<syn::Ident>, Vec<TokenStream>) {
    let mut params = Vec::new();
    let mut types = Vec::new();
    for i in range {
        if lent.get(i) == Some(&true) {
            types.push(quote!(::revad::__private::StandInLent));
        } else {
            let a = format_ident!("A{}", i);
            types.push(quote!(#a));
            params.push(a);
        }
    }
    (params, types)
}

/// The result type of each callee's stand-in: `None` for `StandInResult`, which passes for a
/// float of any type, or for a callee whose result the body uses as a float `Vec` or array,
/// `Vec<f64>` (`Vec<f32>`), or `[f64; N]` where the body gives the type (`let w: [f64; 2] =
/// g(..);`, or the function returns the result as its `[f64; 2]`), which pass for that (not in
/// a function generic over its float type, whose `T` the stand-in's module cannot name).
fn stand_in_results(body: &Body, sig: &Signature) -> Vec<Option<TokenStream>> {
    let mut results = vec![None; body.callees.len()];
    // A fixed-size array of `f64` or `f32` with a literal length, which the module can name.
    let fixed = |ty: &syn::Type| match ty {
        syn::Type::Array(array)
            if crate::parse::float_of(&array.elem).is_some()
                && matches!(&array.len, syn::Expr::Lit(_)) =>
        {
            Some(quote!(#array))
        }
        _ => None,
    };
    let returned = match (&body.output, &sig.ret) {
        (crate::ir::Output::ArrayVar(v), RetTy::Array { elem, len }) => {
            let elem = elem.ident();
            syn::parse2::<syn::Type>(quote!([#elem; #len]))
                .ok()
                .and_then(|t| fixed(&t))
                .map(|t| (*v, t))
        }
        _ => None,
    };
    crate::ir::visit::walk(&body.block, &mut |stmt, _| {
        let crate::ir::StmtKind::Let {
            var,
            rhs: crate::ir::Rhs::Call(call),
            ty,
        } = &stmt.kind
        else {
            return;
        };
        let crate::ir::Ty::Array(info) = &body.vars[*var].ty else {
            return;
        };
        let elem = match info.elem {
            Some(crate::ir::FloatTy::F64) | None => quote!(f64),
            Some(crate::ir::FloatTy::F32) => quote!(f32),
            Some(crate::ir::FloatTy::Generic(_)) => return,
        };
        if info.agg {
            return;
        }
        let written = ty
            .as_ref()
            .and_then(|t| syn::parse2::<syn::Type>(t.clone()).ok())
            .and_then(|t| fixed(&t));
        let returned = returned
            .as_ref()
            .filter(|(v, _)| v == var)
            .map(|(_, t)| t.clone());
        results[call.callee] = Some(
            written
                .or(returned)
                .unwrap_or_else(|| quote!(::std::vec::Vec<#elem>)),
        );
    });
    results
}

/// The derivative a caller needs of the functions it calls.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Needs {
    /// Split companions (`#[reverse]`, `#[revad::derivative(vjp = ..)]`).
    Reverse,
    /// A forward companion (`#[revad::forward]`, `#[revad::derivative(jvp = ..)]`).
    Forward,
}

/// The check that the function `callee` (imported as its alias) has the derivative `needs`:
/// else one compile error at the call, whose message names the function and says how to give
/// it one. The message is the callee's own, so it is a trait of the caller's, implemented by
/// every function with the runtime's marker trait:
///
/// ```text
/// {
///     #[diagnostic::on_unimplemented(message = "`g` has no derivative: annotate it ..")]
///     trait __Derivative {}
///     impl<F: ?Sized + ::revad::__private::Differentiable> __Derivative for F {}
///     fn __require<F: ?Sized + __Derivative>() {}
///     __require::<__callee0>();        // at the user's `g`
/// }
/// ```
pub(crate) fn require(callee: &crate::ir::Callee, needs: Needs) -> TokenStream {
    let name = import_path(&callee.path).to_string().replace(' ', "");
    let missing = |template: &str| match messages::derivative_of(&name) {
        Some(f) => messages::fill(messages::NO_NESTED_DERIVATIVE, &name, f),
        None => messages::fill(template, &name, ""),
    };
    let (marker, message, label, note) = match needs {
        Needs::Reverse => (
            quote!(::revad::__private::Differentiable),
            missing(messages::NO_DERIVATIVE),
            "called with a differentiated argument",
            "`#[revad::derivative(vjp = ...)]` registers a hand-written pullback; a function \
             of another crate must be annotated in that crate",
        ),
        Needs::Forward => (
            quote!(::revad::__private::ForwardDifferentiable),
            missing(messages::NO_FORWARD_DERIVATIVE),
            "called from forward-mode code",
            "a function with `#[revad::reverse]` takes `#[revad::forward]` beside it",
        ),
    };
    let derivative = crate::ir::names::generated("Derivative");
    let require = crate::ir::names::generated("require");
    // The alias at the user's span, so the error points at the call.
    let mut at_call = callee.alias.clone();
    at_call.set_span(callee.span);
    quote! {
        {
            #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
            trait #derivative {}
            impl<F: ?::core::marker::Sized + #marker> #derivative for F {}
            fn #require<F: ?::core::marker::Sized + #derivative>() {}
            #require::<#at_call>();
        }
    }
}

/// The path a callee is imported by: as written, without the generic arguments of its last
/// segment (`poly` for `poly::<T>`), which the calls of its companions repeat instead
/// (`__callee0::fwd::<T>(..)`, see [`turbofish`]).
fn import_path(path: &TokenStream) -> TokenStream {
    match syn::parse2::<syn::Path>(path.clone()) {
        Ok(mut path) => {
            if let Some(last) = path.segments.last_mut() {
                last.arguments = syn::PathArguments::None;
            }
            quote!(#path)
        }
        Err(_) => path.clone(),
    }
}

/// The generic arguments written on a callee's path (`T` of `poly::<T>`), without the
/// turbofish, or nothing.
pub(crate) fn turbofish_args(path: &TokenStream) -> TokenStream {
    let Ok(path) = syn::parse2::<syn::Path>(path.clone()) else {
        return TokenStream::new();
    };
    match path.segments.last().map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(args)) => {
            let args = &args.args;
            quote!(#args)
        }
        _ => TokenStream::new(),
    }
}

/// The generic arguments written on a callee's path, as a turbofish (`::<T>` of
/// `poly::<T>`), or nothing.
pub(crate) fn turbofish(path: &TokenStream) -> TokenStream {
    let Ok(path) = syn::parse2::<syn::Path>(path.clone()) else {
        return TokenStream::new();
    };
    match path.segments.last().map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(args)) => {
            let args = &args.args;
            quote!(::<#args>)
        }
        _ => TokenStream::new(),
    }
}

/// The user's `#[allow(..)]` and `#[cfg(..)]` attributes of the function, repeated on each
/// generated item: the items take the same parameters (so the same lints fire on them), and
/// exist under the same configuration.
pub(crate) fn inherited_attrs(func: &syn::ItemFn) -> TokenStream {
    let attrs = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("allow") || a.path().is_ident("cfg"));
    quote!(#(#attrs)*)
}

/// The symbol of one of std's arithmetic operator traits (`Mul`: `*`).
fn operator_symbol(operator: &str) -> &'static str {
    match operator {
        "Add" => "+",
        "Sub" => "-",
        "Mul" => "*",
        "Div" => "/",
        _ => "-",
    }
}
