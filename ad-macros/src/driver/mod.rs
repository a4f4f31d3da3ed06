//! The driver: for `#[reverse]`, `#[revad::forward]` and `#[revad::derivative]`, parse →
//! IR → analyses → the backend, and what happens on error (every error reported, the function
//! kept, stubs of the generated items so that callers add no errors of their own).
//!
//! - `attrs`: the protocol between attributes on one function;
//! - `hessian`: `#[reverse(hessian)]`, the generic copy of the function and the second-order
//!   items;
//! - `traits`: `#[reverse]` on a trait and on an `impl Trait for Type` block (the derivatives
//!   of trait methods), and on an inherent `impl` block (its functions are associated
//!   functions, `parse::IN_IMPL`, and its generics theirs, `parse::IMPL_GENERICS`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::error::Errors;
use crate::parse::functions::Mode;
use crate::{codegen, ir, parse};

mod attrs;
mod hessian;
mod traits;

use attrs::{
    is_named, mark_forward, mark_reverse, second_attribute, strip_checkpoints, strip_marker,
    Attribute,
};
use hessian::second_order;

/// Names the parameters written `_` (`fn f(_: f64, y: f64)`) `_0`, `_1`, .. by their
/// position: the generated functions pass every parameter on by name, and the body can no
/// more read `_1` than it could read `_`.
fn name_wildcards(func: &mut syn::ItemFn) {
    for (k, input) in func.sig.inputs.iter_mut().enumerate() {
        let syn::FnArg::Typed(typed) = input else {
            continue;
        };
        if let syn::Pat::Wild(wild) = &*typed.pat {
            // (Resolved at the call site, located at the `_`: a name of the expansion, which
            // lints of the user's code such as clippy's `just_underscores_and_digits` skip.)
            let span = proc_macro2::Span::call_site().located_at(wild.underscore_token.span);
            let ident = syn::Ident::new(&format!("_{k}"), span);
            *typed.pat = syn::Pat::Ident(syn::PatIdent {
                attrs: Vec::new(),
                by_ref: None,
                mutability: None,
                ident,
                subpat: None,
            });
        }
    }
}

/// Expands `#[reverse(args)] item`.
pub(crate) fn reverse(args: TokenStream, item: TokenStream) -> TokenStream {
    // If the item is not even a function, hand it back with the error, so the user's code
    // keeps its own diagnostics (tokio-macros' recovery).
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(err) => {
            if let Some(expanded) = traits::block(&args, &item) {
                return expanded;
            }
            let err = syn::Error::new(
                err.span(),
                "#[reverse] applies to a function (`fn`), a trait, or an `impl Trait for Type` block",
            );
            let err = err.to_compile_error();
            return quote!(#err #item);
        }
    };
    name_wildcards(&mut func);
    if let Some(clash) = second_attribute(&func, Attribute::Reverse) {
        return clash;
    }
    mark_forward(&mut func);
    parse::functions::name_impl_fn_params(&mut func);
    let cx = Errors::new();
    let mut args = parse::Args::from_tokens(&cx, args);
    args.in_impl |= names_self(&func);
    if let Some(span) = args.vector {
        cx.error_at(
            span,
            "`vector` is an argument of #[revad::forward] (`NAME_jvp_vec`); #[reverse] takes \
             `wrt(...)`, `cps` and `hessian`",
        );
    }
    let sig = parse::Signature::from_fn(&cx, &func, &args);
    if let Some(span) = args.recompute {
        check_recompute(&cx, &sig, span);
    }
    // The body is lowered even after a signature error, so its errors are reported too.
    let body = ir::lower::lower(&cx, &sig, &func.block, false);
    strip_checkpoints(&mut func);
    if !sig.valid {
        return fallback(&func, None, cx);
    }
    if has_duplicate_param(&sig) {
        // rustc reports the name bound twice (E0415); the generated code would only add
        // errors about names of its own.
        return fallback(&func, Some(&sig), cx);
    }
    let Some(mut body) = body else {
        return fallback(&func, Some(&sig), cx);
    };
    ir::types::resolve(&mut body, sig.default_float);
    // `NAME_vjp` differentiates the `wrt` parameters; the split companions every float
    // parameter (a caller may differentiate any argument).
    let Some((vjp_body, vjp_plan)) = analyse(&cx, body.clone(), &sig, false) else {
        return fallback(&func, Some(&sig), cx);
    };
    let split_sig = sig.all_active();
    let Some((split_body, split_plan)) = analyse(&cx, body, &split_sig, true) else {
        return fallback(&func, Some(&sig), cx);
    };
    let items = codegen::emit(
        (&func, &companion_fn(&func, &sig, Mode::Reverse)),
        &sig,
        (&vjp_body, &vjp_plan),
        (&split_sig, &split_body, &split_plan),
        args.backend,
    );
    let second = match args.hessian {
        true => second_order(&func, &sig, &vjp_body),
        false => TokenStream::new(),
    };
    let forward_too = args.forward_too || func.attrs.iter().any(|a| is_named(a, "forward"));
    let closures = codegen::closures::items(&vjp_body, &sig.generics, true, forward_too);
    quote! {
        #items
        #second
        #closures
    }
}

/// Expands `#[forward(args)] item`: `NAME_jvp` and the companion (`NAME::jvp`).
pub(crate) fn forward(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(err) => {
            let err = syn::Error::new(err.span(), "#[revad::forward] applies to a function (`fn`)");
            let err = err.to_compile_error();
            return quote!(#err #item);
        }
    };
    name_wildcards(&mut func);
    if let Some(attr) = func.attrs.iter().find(|a| is_named(a, "forward")) {
        let name = &func.sig.ident;
        let message = format!("`{name}` has #[revad::forward] twice; remove this one");
        let err = syn::Error::new_spanned(attr, message).to_compile_error();
        return quote!(#err #func);
    }
    if let Some(attr) = func.attrs.iter().find(|a| is_named(a, "derivative")) {
        let message = format!(
            "`{}` has #[revad::derivative]: give its forward derivative as a rule, \
             `#[revad::derivative(vjp = .., jvp = ..)]`, instead of #[revad::forward]",
            func.sig.ident
        );
        let err = syn::Error::new_spanned(attr, message).to_compile_error();
        return quote!(#err #func);
    }
    parse::functions::name_impl_fn_params(&mut func);
    // With `#[reverse]` too, that attribute reports the errors the two have in common.
    let reverse_too = func.attrs.iter().any(|a| is_named(a, "reverse"));
    mark_reverse(&mut func);
    let other = reverse_too || func.attrs.iter().any(|a| is_named(a, "derivative"));
    let (args, declared) = strip_marker(args);
    let marker = !other && !declared;
    let cx = Errors::for_attribute("#[revad::forward]");
    let mut args = parse::Args::from_tokens(&cx, args);
    args.in_impl |= names_self(&func);
    let vector = args.vector.is_some();
    if let Some(span) = args.reverse_only {
        cx.error_at(
            span,
            "`cps`, `hessian` and `recompute` are arguments of `#[revad::reverse]`; \
             #[revad::forward] takes only `wrt(...)` and `vector`",
        );
    }
    let sig = parse::Signature::from_fn(&cx, &func, &args);
    // (`NAME_jvp_vec` would call a function argument's vector companion, which a closure
    // passed to it has not: the caller's lifting of closures is for one tangent.)
    let function_param = sig.params.iter().find(|p| p.function.is_some());
    if let (Some(_), Some(f)) = (args.vector, function_param) {
        cx.error(
            &f.ident,
            "#[revad::forward(vector)] does not take function arguments yet; remove `vector` \
             (`NAME_jvp` takes one tangent), or write the function without one",
        );
        let errors = match cx.check() {
            Err(err) => err.to_compile_error(),
            Ok(()) => TokenStream::new(),
        };
        return quote!(#errors #func);
    }
    let body = ir::lower::lower(&cx, &sig, &func.block, true);
    // (Beside `#[reverse]`, expanded next, that attribute reads and removes them.)
    if !reverse_too {
        strip_checkpoints(&mut func);
    }
    let fail = |cx: Errors, sig: Option<&parse::Signature>| {
        let errors = match (reverse_too, cx.check()) {
            (false, Err(err)) => err.to_compile_error(),
            _ => TokenStream::new(),
        };
        let stubs = sig
            .map(|sig| {
                let func = companion_fn(&func, sig, Mode::Forward);
                codegen::forward::stubs(&func, sig, marker, vector)
            })
            .unwrap_or_default();
        quote! {
            #errors
            #func
            #stubs
        }
    };
    if !sig.valid || has_duplicate_param(&sig) {
        return fail(cx, Some(&sig).filter(|s| s.valid));
    }
    let Some(mut body) = body else {
        return fail(cx, Some(&sig));
    };
    ir::types::resolve(&mut body, sig.default_float);
    if let Some((span, what)) = codegen::forward::check(&body, &sig) {
        let message = format!(
            "#[revad::forward] does not differentiate {what} yet; use #[reverse] for this function"
        );
        // (Reported even beside `#[reverse]`: only forward mode lacks it.)
        let err = syn::Error::new(span, message).to_compile_error();
        let companion = companion_fn(&func, &sig, Mode::Forward);
        let stubs = codegen::forward::stubs(&companion, &sig, marker, vector);
        return quote!(#err #func #stubs);
    }
    let Some((jvp_body, jvp_plan)) = analyse_forward(&cx, body.clone(), &sig, false) else {
        return fail(cx, Some(&sig));
    };
    let split_sig = sig.all_active();
    let Some((split_body, split_plan)) = analyse_forward(&cx, body, &split_sig, true) else {
        return fail(cx, Some(&sig));
    };
    let items = codegen::forward::emit(
        &companion_fn(&func, &sig, Mode::Forward),
        &sig,
        (&jvp_body, &jvp_plan),
        (&split_sig, &split_body, &split_plan),
        marker,
        vector,
    );
    // (`NAME_vjp` exists when `#[reverse]` annotates the function too.)
    let jacobian = codegen::jacobian::jacobian(&func, &sig, reverse_too || declared);
    // (Beside `#[reverse]`, that attribute lifts the closures, for both modes.)
    let closures = match reverse_too || declared {
        true => TokenStream::new(),
        false => codegen::closures::items(&jvp_body, &sig.generics, false, true),
    };
    quote! {
        #func
        #items
        #jacobian
        #closures
    }
}

/// Activity, snapshots and the plan of the reverse sweep, or `None` after reporting errors.
fn analyse(
    cx: &Errors,
    mut body: ir::Body,
    sig: &parse::Signature,
    split: bool,
) -> Option<(ir::Body, ir::plan::Plan)> {
    let mut activity = ir::activity::analyse(cx, &body, sig);
    if cx.has_errors() {
        return None;
    }
    ir::snapshot::insert(&mut body, &mut activity);
    let plan = ir::plan::make(cx, &body, activity, split);
    if cx.has_errors() {
        return None;
    }
    Some((body, plan))
}

/// Activity for forward mode: no snapshots (the tangent code runs beside the primal and
/// reads every value where it is computed), and a plan only for the emitter's queries, whose
/// storage problems are the reverse sweep's, not forward mode's.
fn analyse_forward(
    cx: &Errors,
    body: ir::Body,
    sig: &parse::Signature,
    split: bool,
) -> Option<(ir::Body, ir::plan::Plan)> {
    let activity = ir::activity::analyse(cx, &body, sig);
    if cx.has_errors() {
        return None;
    }
    // (Its storage errors are dropped on purpose: forward mode stores nothing.)
    let storage = Errors::new();
    let plan = ir::plan::make(&storage, &body, activity, split);
    let _reverse_sweep_only = storage.check();
    Some((body, plan))
}

/// The function as the generated companions see it: its function arguments' `Fn` bounds are
/// the runtime's traits (the companions call them through those), for reverse or forward mode,
/// and its float type parameters are bounded by `::revad::Float` too (the user's bounds may be
/// `num_traits::Float` or arithmetic operators: `parse::require_float_bounds`).
fn companion_fn(func: &syn::ItemFn, sig: &parse::Signature, mode: Mode) -> syn::ItemFn {
    let mut func = parse::functions::companion_fn(func, &sig.functions, mode);
    parse::require_float_bounds(&mut func, sig);
    func
}

/// The function unchanged, every error, and stubs of the generated functions when the
/// signature is known (so call sites do not add "cannot find function" errors).
fn fallback(func: &syn::ItemFn, sig: Option<&parse::Signature>, cx: Errors) -> TokenStream {
    let errors = match cx.check() {
        Ok(()) => TokenStream::new(),
        Err(err) => err.to_compile_error(),
    };
    let stubs = sig
        .map(|sig| codegen::stubs(&companion_fn(func, sig, Mode::Reverse), sig))
        .unwrap_or_default();
    quote! {
        #errors
        #func
        #stubs
    }
}

/// Whether the body of `func` names `Self` (`Self::f(..)`), which makes it an associated
/// function even without a receiver or `Self` in its signature. (Not inside an item nested in
/// the body, whose `Self` is its own.)
fn names_self(func: &syn::ItemFn) -> bool {
    struct Find(bool);
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_item(&mut self, _: &'a syn::Item) {}
        fn visit_path(&mut self, path: &'a syn::Path) {
            self.0 |= path.segments.iter().any(|s| s.ident == "Self");
            syn::visit::visit_path(self, path);
        }
        fn visit_macro(&mut self, mac: &'a syn::Macro) {
            self.0 |= parse::mentions_self(&mac.tokens);
        }
    }
    let mut find = Find(false);
    syn::visit::Visit::visit_block(&mut find, &func.block);
    find.0
}

/// `#[reverse(recompute)]` on a function whose split companions can run its forward sweep
/// twice: a free function whose parameters can be copied (`Clone`), none of them `&mut` (the
/// forward sweep would write it again) or a function argument.
fn check_recompute(cx: &Errors, sig: &parse::Signature, span: proc_macro2::Span) {
    let why = if sig.in_impl {
        Some("a method or an associated function")
    } else if sig
        .params
        .iter()
        .any(|p| p.passing == parse::Passing::MutRef)
    {
        Some("a function with a `&mut` parameter (its forward sweep would write it twice)")
    } else if !sig.functions.is_empty() {
        Some("a function with a function argument")
    } else {
        None
    };
    if let Some(why) = why {
        cx.error_at(
            span,
            format!(
                "`recompute` is not supported on {why}: remove it (callers then keep what its \
                 reverse sweep reads)"
            ),
        );
    }
}

/// Whether two parameters have the same name.
fn has_duplicate_param(sig: &parse::Signature) -> bool {
    let params = &sig.params;
    (0..params.len()).any(|i| params[..i].iter().any(|p| p.ident == params[i].ident))
}

/// Expands `#[revad::derivative(vjp = pullback)] item`.
pub(crate) fn derivative(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(err) => {
            let err = syn::Error::new(
                err.span(),
                "#[revad::derivative] applies to a function (`fn`)",
            );
            let err = err.to_compile_error();
            return quote!(#err #item);
        }
    };
    name_wildcards(&mut func);
    if let Some(clash) = second_attribute(&func, Attribute::Derivative) {
        return clash;
    }
    mark_forward(&mut func);
    let cx = Errors::new();
    let parse::DerivativeArgs { vjp, jvp, block } = parse::derivative_args(&cx, args);
    let mut block = block;
    block.in_impl |= names_self(&func);
    if let Some(attr) = func.attrs.iter().find(|a| is_named(a, "forward")) {
        cx.error(
            attr,
            format!(
                "`{}` has #[revad::derivative]: give its forward derivative as a rule, \
                 `#[revad::derivative(vjp = .., jvp = ..)]`, instead of #[revad::forward]",
                func.sig.ident
            ),
        );
    }
    let sig = parse::Signature::from_fn(&cx, &func, &block);
    if let Some((_, p)) = sig.outputs().next() {
        cx.error(
            &p.ty,
            "#[revad::derivative] does not support `&mut` parameters; annotate the function with \
             #[reverse], or take the value and return the result",
        );
    } else if sig.valid && !matches!(sig.ret, parse::RetTy::Scalar(_)) {
        cx.error(
            &func.sig.output,
            "#[revad::derivative] supports functions that return `f64` or `f32`; for other \
             outputs, annotate the function with #[reverse]",
        );
    }
    for rule in vjp.iter().chain(&jvp) {
        let generated = [
            format!("{}_vjp", func.sig.ident),
            format!("{}_grad", func.sig.ident),
            format!("{}_jvp", func.sig.ident),
        ];
        if let Some(last) = rule.segments.last() {
            if generated.contains(&last.ident.to_string()) {
                cx.error(
                    rule,
                    format!(
                        "the rule is named like a function `#[revad::derivative]` generates \
                         (`{}`); name it differently, for example `{}_pullback` or `{}_tangent`",
                        last.ident, func.sig.ident, func.sig.ident
                    ),
                );
            }
        }
    }
    match (cx.check(), vjp) {
        (Ok(()), Some(vjp)) => {
            codegen::derivative::emit(&func, &sig.all_active(), &vjp, jvp.as_ref())
        }
        (Err(err), ..) => {
            let err = err.to_compile_error();
            quote!(#err #func)
        }
        _ => quote!(#func),
    }
}
