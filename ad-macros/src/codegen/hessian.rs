//! `#[reverse(hessian)]`: `NAME_hvp`, `NAME_hessian` and `NAME_hessian_diag`, forward over
//! reverse.
//!
//! `NAME_hvp` runs the `_vjp` of the function's generic copy (`crate::lift`) on
//! `revad::Dual<f64>` numbers whose dual parts are the direction `v`: the values of the reverse
//! sweep are the gradient, their dual parts the Hessian-vector product `H·v`, in one pass
//! that costs a small constant times `NAME_grad`.
//!
//! ```text
//! fn f_hvp(x: f64, w: &[f64], __tan_x: f64, __tan_w: &[f64]) -> (f64, (f64, Vec<f64>), (f64, Vec<f64>)) {
//!     let __l_x = ::revad::__private::Lift::lift(&x, &__tan_x);    // Dual::new(x, v_x)
//!     let __l_w = ::revad::__private::Lift::lift(&w, &__tan_w);    // Vec<Dual<f64>>
//!     let (__y, __g) = __ad_lifted_f_vjp::<::revad::Dual<f64>>(__l_x, &__l_w, ONE);
//!     let (__g, __hv) = ::revad::__private::Unlift::unlift(__g);   // values, dual parts
//!     (__y.re, __g, __hv)
//! }
//! ```
//!
//! `NAME_hessian` makes one `NAME_hvp` per input (the columns of `H`, which is symmetric),
//! `NAME_hessian_diag` keeps the diagonal of each.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::parse::{ParamKind, Signature};

/// The three functions for `func` (checked by the caller: scalar output, float parameters by
/// value or `&`, not generic, not a method).
pub(crate) fn emit(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let hvp = hvp(func, sig);
    let full = hessian(func, sig, false);
    let diag = hessian(func, sig, true);
    quote! {
        #hvp
        #full
        #diag
    }
}

fn is_ref(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(_))
}

fn float_param(kind: &ParamKind) -> bool {
    !matches!(kind, ParamKind::Inactive)
}

fn tangent_name(p: &syn::Ident) -> syn::Ident {
    format_ident!("__tan_{}", p, span = Span::mixed_site())
}

fn ret_float(func: &syn::ItemFn) -> TokenStream {
    match &func.sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(f64),
    }
}

/// How the arguments of the lifted function are made from the parameters.
enum Direction<'a> {
    /// Each differentiated parameter `p` along the parameter `__tan_p` (of its type);
    /// the others constant.
    Params,
    /// Along the parts of a gradient-shaped value (the seed of `NAME_grad`'s result): an
    /// owned `f64`, `[f64; N]` or `Vec<f64>` per differentiated parameter.
    Gradient(&'a TokenStream),
    /// Every float parameter `p` along `__tan_p` (the tangents of a `jvp` companion, which
    /// has one per float parameter).
    All,
}

/// The `let`s that make each float parameter a dual number along `direction`, and the
/// arguments of the lifted function.
fn lifted_args(sig: &Signature, direction: &Direction<'_>) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut lets = Vec::new();
    let wrt: Vec<usize> = (0..sig.params.len())
        .filter(|&i| sig.params[i].active)
        .collect();
    let args = sig
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = &p.ident;
            if !float_param(&p.kind) {
                return quote!(#name);
            }
            let l = format_ident!("__l_{}", name, span = Span::mixed_site());
            let tangent = match direction {
                Direction::Params if p.active => {
                    let t = tangent_name(name);
                    Some(quote!(&#t))
                }
                Direction::All => {
                    let t = tangent_name(name);
                    Some(quote!(&#t))
                }
                Direction::Gradient(g) if p.active => {
                    let part = part(g, wrt.len(), wrt.iter().position(|&w| w == i).unwrap_or(0));
                    // The owned part in the parameter's form (`&[f64]` for a slice).
                    Some(match (&p.kind, is_ref(&p.ty)) {
                        (ParamKind::Slice { .. }, true) if is_slice_ref(&p.ty) => {
                            quote!(&&(#part)[..])
                        }
                        (_, true) => quote!(&&(#part)),
                        (_, false) => quote!(&(#part)),
                    })
                }
                _ => None,
            };
            let value = match tangent {
                Some(t) => quote!(::revad::__private::Lift::lift(&#name, #t)),
                None => quote!(::revad::__private::Lift::lift_const(&#name)),
            };
            lets.push(quote!(let #l = #value;));
            match is_ref(&p.ty) {
                true => quote!(&#l),
                false => quote!(#l),
            }
        })
        .collect();
    (lets, args)
}

/// Whether `ty` is `&[T]`.
fn is_slice_ref(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Slice(_)))
}

/// Part `k` of `n` of a value shaped like a gradient: the value itself when `n` is 1.
fn part(value: &TokenStream, n: usize, k: usize) -> TokenStream {
    match n {
        1 => quote!(#value),
        _ => {
            let k = syn::Index::from(k);
            quote!(#value.#k)
        }
    }
}

/// The indices, among the float parameters, of the differentiated ones.
fn wrt_among_floats(sig: &Signature) -> (usize, Vec<usize>) {
    let floats: Vec<_> = sig.params.iter().filter(|p| float_param(&p.kind)).collect();
    let wrt = floats
        .iter()
        .enumerate()
        .filter(|(_, p)| p.active)
        .map(|(k, _)| k)
        .collect();
    (floats.len(), wrt)
}

/// The gradient of the differentiated parameters, from `all`, the gradient of every float
/// parameter (what the lifted function's `_vjp` returns).
fn select(sig: &Signature, all: &TokenStream) -> TokenStream {
    let (n, wrt) = wrt_among_floats(sig);
    let parts: Vec<TokenStream> = wrt.iter().map(|&k| part(all, n, k)).collect();
    match parts.as_slice() {
        [one] => one.clone(),
        many => quote!((#(#many,)*)),
    }
}

/// `__ad_lifted_NAME_vjp::<Dual<F>>(args.., ONE)`.
fn lifted_vjp(func: &syn::ItemFn, sig: &Signature, args: &[TokenStream]) -> TokenStream {
    let lifted = format_ident!("{}_vjp", crate::lift::lifted_name(&func.sig.ident));
    let float = sig.default_float.ident();
    quote! {
        #lifted::<::revad::Dual<#float>>(#(#args,)* <::revad::Dual<#float> as ::revad::Float>::ONE)
    }
}

fn hvp(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let ident = &func.sig.ident;
    let name = format_ident!("{}_hvp", ident, span = ident.span());
    let vis = &func.vis;
    let ret = ret_float(func);
    let grad = sig.gradient_type();
    let params = super::typed_params(sig);
    let tangents = sig.params.iter().filter(|p| p.active).map(|p| {
        let (t, ty) = (tangent_name(&p.ident), &p.ty);
        quote!(#t: #ty)
    });
    let (lifts, args) = lifted_args(sig, &Direction::Params);
    let call = lifted_vjp(func, sig, &args);
    let (g, hv) = (select(sig, &quote!(__g)), select(sig, &quote!(__hv)));
    let doc = format!(
        " The value, the gradient and the Hessian-vector product of [`{ident}`]: after the \
         parameters, the direction `v`, one tangent per differentiated parameter of its type; \
         returns `({ident}(..), ∇{ident}, H·v)`.\n\n Generated by `#[revad::reverse(hessian)]`: \
         forward over reverse, the reverse sweep run once on `revad::Dual` numbers (a small \
         constant times the cost of `{ident}_grad`)."
    );
    quote! {
        #[doc = #doc]
        #[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity)]
        #vis fn #name(#(#params,)* #(#tangents,)*) -> (#ret, #grad, #grad) {
            #(#lifts)*
            let (__y, __g) = #call;
            let (__g, __hv) = ::revad::__private::Unlift::unlift(__g);
            (__y.re, #g, #hv)
        }
    }
}

/// `NAME_hessian` (or with `diag`, `NAME_hessian_diag`): one `NAME_hvp` per input.
fn hessian(func: &syn::ItemFn, sig: &Signature, diag: bool) -> TokenStream {
    let ident = &func.sig.ident;
    let name = match diag {
        true => format_ident!("{}_hessian_diag", ident, span = ident.span()),
        false => format_ident!("{}_hessian", ident, span = ident.span()),
    };
    let hvp = format_ident!("{}_hvp", ident, span = ident.span());
    let grad = format_ident!("{}_grad", ident, span = ident.span());
    let vis = &func.vis;
    let ret = ret_float(func);
    let grad_ty = sig.gradient_type();
    let float = sig.default_float.ident();
    let params = super::typed_params(sig);
    // Each parameter passed again: a copy of a by-value one (a `Vec` would move).
    let pass: Vec<TokenStream> = sig
        .params
        .iter()
        .map(|p| {
            let name = &p.ident;
            match is_ref(&p.ty) {
                true => quote!(#name),
                false => quote!(::core::clone::Clone::clone(&#name)),
            }
        })
        .collect();
    let active: Vec<_> = sig.params.iter().filter(|p| p.active).collect();
    let lens = active.iter().map(|p| {
        let name = &p.ident;
        quote!(::revad::__private::Basis::flat_len(&#name))
    });
    let units = active.iter().enumerate().map(|(j, p)| {
        let name = &p.ident;
        let t = tangent_name(name);
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        let at = match is_ref(&p.ty) {
            true => quote!(&#t),
            false => quote!(#t),
        };
        (
            quote! {
                let #t = ::revad::__private::Basis::unit(
                    &#name,
                    __k.checked_sub(__offset).filter(|&__i| __i < __lens[#j]),
                );
                __offset += __lens[#j];
            },
            at,
        )
    });
    let (units, tangents): (Vec<TokenStream>, Vec<TokenStream>) = units.unzip();
    let (result, keep, out) = match diag {
        false => (
            quote!(::std::vec::Vec<::std::vec::Vec<#float>>),
            quote! {
                let mut __row = ::std::vec::Vec::with_capacity(__total);
                ::revad::__private::Flatten::flatten_into(&__hv, &mut __row);
                __out.push(__row);
            },
            "the Hessian, row by row",
        ),
        true => (
            quote!(::std::vec::Vec<#float>),
            quote! {
                __row.clear();
                ::revad::__private::Flatten::flatten_into(&__hv, &mut __row);
                __out.push(__row[__k]);
            },
            "the diagonal of the Hessian",
        ),
    };
    let scratch = diag.then(|| quote!(let mut __row = ::std::vec::Vec::with_capacity(__total);));
    let doc = format!(
        " The value, the gradient and {out} of [`{ident}`] over its differentiated parameters, \
         flattened in order (a scalar is one entry, an array or slice its elements).\n\n \
         Generated by `#[revad::reverse(hessian)]`: one `{ident}_hvp` per entry, so the cost is \
         the number of entries times a small constant times `{ident}_grad`: for small inputs."
    );
    let inherited = super::inherited_attrs(func);
    quote! {
        #[doc = #doc]
        #inherited
        #[allow(dead_code, clippy::type_complexity)]
        #vis fn #name(#(#params),*) -> (#ret, #grad_ty, #result) {
            let __lens = [#(#lens),*];
            let __total: usize = __lens.iter().sum();
            let (__value, __gradient) = #grad(#(#pass),*);
            let mut __out = ::std::vec::Vec::with_capacity(__total);
            #scratch
            for __k in 0..__total {
                let mut __offset = 0usize;
                #(#units)*
                let (_, _, __hv) = #hvp(#(#pass,)* #(#tangents),*);
                #keep
            }
            (__value, __gradient, __out)
        }
    }
}

/// The companions that make `NAME_grad` and `NAME_jvp` differentiable: marker structs of
/// those names (beside the functions, in the type namespace, as `NAME`'s is), whose
/// `fwd`/`rev` let `#[reverse]` code call them and whose `jvp` lets `#[revad::forward]` code
/// call them: derivatives of derivatives, in all four combinations.
///
/// Each is forward over reverse on the lifted copy (every float parameter `p`, with a
/// direction `ṗ`, as `Dual(p, ṗ)`; the `_vjp` seeded with 1 gives `Dual(∇f, H·ṗ)`):
///
/// ```text
/// NAME_grad::rev(p.., (s, ḡ), ..)    p̄ += s·∇f + H·ḡ           (ṗ = ḡ on the wrt parameters)
/// NAME_grad::jvp(p.., ṗ..)           ((f, ∇f), (∇f·ṗ, H·ṗ))
/// NAME_jvp::fwd(p.., v..)            (f, ∇f·v)                  (the lifted primal on Dual)
/// NAME_jvp::rev(p.., v.., (s, ṡ), ..) p̄ += s·∇f + ṡ·H·v,  v̄ += ṡ·∇f
/// NAME_jvp::jvp(p.., v.., ṗ.., v̇..)  the lifted primal on Dual<Dual>
/// ```
pub(crate) fn companions(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let grad = grad_companions(func, sig);
    let jvp = jvp_companions(func, sig);
    quote! {
        #grad
        #jvp
    }
}

/// The parameters of the float parameters' sinks in a `rev` (inactive ones: anything).
fn sink_params(
    sig: &Signature,
    prefix: &str,
    only_active: bool,
) -> (Vec<TokenStream>, Vec<syn::Ident>) {
    let mut params = Vec::new();
    let mut names = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        if only_active && !p.active {
            continue;
        }
        let sink = format_ident!("__{}{}", prefix, i, span = Span::mixed_site());
        let t = p.kind.elem().ident();
        params.push(match &p.kind {
            ParamKind::Scalar(_) => quote!(mut #sink: impl ::revad::__private::ScalarSink<#t>),
            ParamKind::Array { .. } | ParamKind::Slice { .. } => {
                quote!(mut #sink: impl ::revad::__private::ArraySink<#t>)
            }
            _ => quote!(#sink: impl ::core::marker::Sized),
        });
        names.push(sink);
    }
    (params, names)
}

/// `value` added into the sink of parameter `p`.
fn add_to_sink(p: &crate::parse::Param, sink: &syn::Ident, value: TokenStream) -> TokenStream {
    match &p.kind {
        ParamKind::Scalar(_) => quote!(::revad::__private::ScalarSink::add(&mut #sink, #value);),
        _ => quote!(::revad::__private::ArraySink::add_all(&mut #sink, &(#value)[..]);),
    }
}

/// The marker struct `name` with the impls every callee's marker has.
fn marker(func: &syn::ItemFn, name: &syn::Ident, output: TokenStream) -> TokenStream {
    let vis = &func.vis;
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        impl ::revad::__private::Differentiable for #name {}
        impl ::revad::__private::ForwardDifferentiable for #name {}
        impl ::revad::__private::Returns for #name {
            type Output = #output;
        }
    }
}

fn grad_companions(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let ident = &func.sig.ident;
    let name = format_ident!("{}_grad", ident, span = ident.span());
    let vis = &func.vis;
    let ret = ret_float(func);
    let grad_ty = sig.gradient_type();
    let params = super::typed_params(sig);
    let names: Vec<&syn::Ident> = sig.params.iter().map(|p| &p.ident).collect();
    let float = sig.default_float.ident();
    let seed = quote!(__seed);
    let ḡ = quote!(__seed.1);
    let (lifts_rev, args_rev) = lifted_args(sig, &Direction::Gradient(&ḡ));
    let call_rev = lifted_vjp(func, sig, &args_rev);
    let (sinks, sink_names) = sink_params(sig, "sink", false);
    let (n, _) = wrt_among_floats(sig);
    let mut adds = Vec::new();
    let mut k = 0;
    for (p, sink) in sig.params.iter().zip(&sink_names) {
        if !float_param(&p.kind) {
            continue;
        }
        let (re, eps) = (part(&quote!(__re), n, k), part(&quote!(__eps), n, k));
        adds.push(add_to_sink(
            p,
            sink,
            quote!(::revad::__private::Axpy::axpy(#seed.0, &#re, &#eps)),
        ));
        k += 1;
    }
    let tangents = tangent_params(sig);
    let (lifts_jvp, args_jvp) = lifted_args(sig, &Direction::All);
    let call_jvp = lifted_vjp(func, sig, &args_jvp);
    let (g, hv) = (select(sig, &quote!(__re)), select(sig, &quote!(__eps)));
    let declare = marker(func, &name, quote!((#ret, #grad_ty)));
    quote! {
        #declare
        #[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity, unused_mut)]
        impl #name {
            #vis fn fwd<__S>(#(#params,)* _: __S) -> (#ret, #grad_ty) {
                #name(#(#names),*)
            }
            #vis fn rev<__S>(
                #(#params,)*
                #seed: (#ret, #grad_ty),
                _: __S,
                #(#sinks,)*
            ) {
                let _: #float = #seed.0;
                #(#lifts_rev)*
                let (_, __g) = #call_rev;
                let (__re, __eps) = ::revad::__private::Unlift::unlift(__g);
                #(#adds)*
            }
            #vis fn jvp(#(#params,)* #(#tangents,)*) -> ((#ret, #grad_ty), (#ret, #grad_ty)) {
                #(#lifts_jvp)*
                let (__y, __g) = #call_jvp;
                let (__re, __eps) = ::revad::__private::Unlift::unlift(__g);
                ((__y.re, #g), (__y.eps, #hv))
            }
        }
    }
}

/// A tangent per parameter, for a `jvp` companion: of the parameter's type for a float one,
/// anything for the others.
fn tangent_params(sig: &Signature) -> Vec<TokenStream> {
    sig.params
        .iter()
        .map(|p| {
            let t = tangent_name(&p.ident);
            match float_param(&p.kind) {
                true => {
                    let ty = &p.ty;
                    quote!(#t: #ty)
                }
                false => quote!(#t: impl ::core::marker::Sized),
            }
        })
        .collect()
}

fn jvp_companions(func: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let ident = &func.sig.ident;
    let name = format_ident!("{}_jvp", ident, span = ident.span());
    let lifted = crate::lift::lifted_name(ident);
    let vis = &func.vis;
    let ret = ret_float(func);
    let float = sig.default_float.ident();
    let params = super::typed_params(sig);
    // `NAME_jvp`'s own tangents: one per differentiated parameter, of its type.
    let active: Vec<&crate::parse::Param> = sig.params.iter().filter(|p| p.active).collect();
    let v_params: Vec<TokenStream> = active
        .iter()
        .map(|p| {
            let (t, ty) = (tangent_name(&p.ident), &p.ty);
            quote!(#t: #ty)
        })
        .collect();
    // fwd: the lifted primal along v.
    let (lifts, args) = lifted_args(sig, &Direction::Params);
    // rev: the lifted vjp along v; p̄ += s·∇f + ṡ·H·v, v̄ += ṡ·∇f.
    let call_rev = lifted_vjp(func, sig, &args);
    let (p_sinks, p_sink_names) = sink_params(sig, "sink", false);
    let (v_sinks, v_sink_names) = sink_params(sig, "vsink", true);
    let (n, _) = wrt_among_floats(sig);
    let mut adds = Vec::new();
    let mut k = 0;
    for (p, sink) in sig.params.iter().zip(&p_sink_names) {
        if !float_param(&p.kind) {
            continue;
        }
        let (re, eps) = (part(&quote!(__re), n, k), part(&quote!(__eps), n, k));
        adds.push(add_to_sink(
            p,
            sink,
            quote!(::revad::__private::Axpy::axpy(
                __seed.0,
                &#re,
                &::revad::__private::Axpy::scale(__seed.1, &#eps),
            )),
        ));
        k += 1;
    }
    let mut v_adds = Vec::new();
    let mut k = 0;
    let mut v = 0;
    for p in &sig.params {
        if !float_param(&p.kind) {
            continue;
        }
        if p.active {
            let re = part(&quote!(__re), n, k);
            let sink = &v_sink_names[v];
            v_adds.push(add_to_sink(
                p,
                sink,
                quote!(::revad::__private::Axpy::scale(__seed.1, &#re)),
            ));
            v += 1;
        }
        k += 1;
    }
    // jvp: the lifted primal on Dual<Dual>: `Dual(Dual(p, v), Dual(ṗ, v̇))`.
    let mut lifts2 = Vec::new();
    let mut p_tangents = Vec::new();
    let mut v_tangents = Vec::new();
    let args2: Vec<TokenStream> = sig
        .params
        .iter()
        .map(|p| {
            let name = &p.ident;
            let dp = format_ident!("__dp_{}", name, span = Span::mixed_site());
            if !float_param(&p.kind) {
                p_tangents.push(quote!(#dp: impl ::core::marker::Sized));
                return quote!(#name);
            }
            let ty = &p.ty;
            p_tangents.push(quote!(#dp: #ty));
            let (inner, outer) = match p.active {
                true => {
                    let (v, dv) = (
                        tangent_name(name),
                        format_ident!("__dv_{}", name, span = Span::mixed_site()),
                    );
                    v_tangents.push(quote!(#dv: #ty));
                    (
                        quote!(::revad::__private::Lift::lift(&#name, &#v)),
                        quote!(::revad::__private::Lift::lift(&#dp, &#dv)),
                    )
                }
                false => (
                    quote!(::revad::__private::Lift::lift_const(&#name)),
                    quote!(::revad::__private::Lift::lift_const(&#dp)),
                ),
            };
            let l = format_ident!("__l_{}", name, span = Span::mixed_site());
            lifts2.push(quote! {
                let #l = ::revad::__private::Lift::lift(&#inner, &#outer);
            });
            match is_ref(&p.ty) {
                true => quote!(&#l),
                false => quote!(#l),
            }
        })
        .collect();
    let declare = marker(func, &name, quote!((#ret, #ret)));
    quote! {
        #declare
        #[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity, unused_mut)]
        impl #name {
            #vis fn fwd<__S>(#(#params,)* #(#v_params,)* _: __S) -> (#ret, #ret) {
                #(#lifts)*
                let __y = #lifted::<::revad::Dual<#float>>(#(#args),*);
                (__y.re, __y.eps)
            }
            #vis fn rev<__S>(
                #(#params,)*
                #(#v_params,)*
                __seed: (#ret, #ret),
                _: __S,
                #(#p_sinks,)*
                #(#v_sinks,)*
            ) {
                #(#lifts)*
                let (_, __g) = #call_rev;
                let (__re, __eps) = ::revad::__private::Unlift::unlift(__g);
                #(#adds)*
                #(#v_adds)*
            }
            #vis fn jvp(
                #(#params,)*
                #(#v_params,)*
                #(#p_tangents,)*
                #(#v_tangents,)*
            ) -> ((#ret, #ret), (#ret, #ret)) {
                #(#lifts2)*
                let __y = #lifted::<::revad::Dual<::revad::Dual<#float>>>(#(#args2),*);
                ((__y.re.re, __y.re.eps), (__y.eps.re, __y.eps.eps))
            }
        }
    }
}
