//! `#[reverse]` on a trait and on an `impl Trait for Type` block: the derivatives of trait
//! methods; and on an inherent `impl Type` block, which only tells the attributes of its
//! functions that they are in one, and its generics (`inherent_block`).
//!
//! An attribute on a method sees only the method, and a trait impl may hold only the trait's
//! items; so the derivatives of a trait's methods are items of the trait, which the
//! attribute on the trait declares, and the attribute on each impl block defines:
//!
//! ```text
//! #[revad::reverse]                           #[revad::reverse]
//! trait Model {                               impl Model for Linear {
//!     #[reverse]                                  #[reverse]
//!     fn eval(&self, x: f64) -> f64;              fn eval(&self, x: f64) -> f64 { .. }
//!     #[reverse]                              }
//!     fn loss(&self, x: f64, y: f64) -> f64 { .. }
//! }
//! ```
//!
//! - On the trait, each method marked `#[reverse]` gets the items that `#[reverse]` generates
//!   beside a method (`NAME_vjp`, `NAME_grad`, the split companions `__ad_fwd_NAME` and
//!   `__ad_rev_NAME`): for a default method, with the default method's derivatives as their
//!   default bodies; for a required one, with bodies that fail to compile, when used, for an
//!   impl that does not differentiate the method. The trait gets `revad::Adjoint` as a
//!   supertrait (its derivatives take the adjoint of `self`) and a hidden constant without a
//!   default, `IMPL_NEEDS_REVAD_REVERSE` (`revad::__private::ImplInfo`), that only the
//!   attribute on an impl block defines (an impl without it is an error that names it): which
//!   of the block's methods it differentiates, which it writes without `#[reverse]`. A default
//!   method's derivatives check that the impl keeps the default (does not override it without
//!   `#[reverse]`): the derivative of another body is never given. These checks are inline
//!   `const` blocks, evaluated when the impl's derivative is instantiated (`cargo build`, not
//!   `cargo check`).
//! - The trait also gets a `macro_rules!` imported under its own name (in the macro
//!   namespace, so that whatever path names the trait names the macro too), which the
//!   attribute on each impl block expands to (`companions_macro`).
//! - On the impl block, each method marked `#[reverse]` expands as beside an inherent method,
//!   its items going into the trait impl; and, through the trait's macro, the type gets
//!   inherent copies of the split
//!   companions that call the trait's, which rustc prefers to the fallback that
//!   `codegen::method_fallbacks` declares in a caller for a method without derivatives (two
//!   traits with the method would be ambiguous for a concrete receiver). A generic receiver
//!   (`m: &M` with `M: Model`) reaches the trait's items through its bound.
//! - A method whose signature names a float type parameter of its trait or of its trait impl
//!   block (`trait Model<T: Float>`) is an error there (`block_float_in`): the block's
//!   generics are not passed to the method's attribute, which would take `T` for a type of
//!   the user's.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::parse::{ParseStream, Parser};

use super::attrs::{is_named, mark_in_impl};
use crate::parse;

/// Expands `#[reverse]` on a trait or a trait impl, or `None` for another item.
pub(super) fn block(args: &TokenStream, item: &TokenStream) -> Option<TokenStream> {
    let item: syn::Item = syn::parse2(item.clone()).ok()?;
    let args_error = (!args.is_empty()).then(|| {
        syn::Error::new_spanned(
            args,
            "#[reverse] on a trait or an impl block takes no arguments; give them to the \
             methods' own #[reverse(..)]",
        )
        .to_compile_error()
    });
    let expanded = match item {
        syn::Item::Trait(t) => trait_block(t),
        syn::Item::Impl(i) if i.trait_.is_some() => impl_block(i),
        syn::Item::Impl(i) => inherent_block(i),
        _ => return None,
    };
    Some(quote!(#args_error #expanded))
}

/// `#[reverse] impl Type { .. }`: the block as written, each `#[reverse]`, `#[forward]` and
/// `#[revad::derivative]` of its functions told that the function is in an `impl` block
/// (`parse::IN_IMPL`), which an attribute on an associated function without a receiver or
/// `Self` cannot see, and the block's generic parameters and `where` clause
/// (`parse::IMPL_GENERICS`: `impl<T: Float> Model<T>` makes `T` a float type of its
/// functions); they expand after this one, as on any method.
fn inherent_block(mut i: syn::ItemImpl) -> TokenStream {
    for item in &mut i.items {
        if let syn::ImplItem::Fn(f) = item {
            mark_in_impl(&mut f.attrs, &i.generics);
        }
    }
    quote!(#i)
}

/// The arguments of the method's `#[reverse(..)]`, taken off it, or `None` without one; an
/// error for another attribute of this crate, which does not take a trait's methods (taken
/// off too).
fn take_mark(attrs: &mut Vec<syn::Attribute>) -> Result<Option<TokenStream>, syn::Error> {
    for name in ["forward", "derivative"] {
        if let Some(k) = attrs.iter().position(|a| is_named(a, name)) {
            // (Taken off: it would expand on the method, and report more.)
            let attr = attrs.remove(k);
            let message = match name {
                // (An impl block's methods take it: `forward_items`.)
                "forward" => "#[revad::forward] does not take the methods of a trait's own \
                              declaration yet; put it on the methods of the trait's impl blocks \
                              (`value.NAME_jvp(..)` on the concrete type), or use #[reverse]"
                    .to_string(),
                _ => format!(
                    "#[revad::{name}] does not take a trait's methods yet; use #[reverse] \
                     (with #[revad::reverse] on the trait and on its impl blocks)"
                ),
            };
            return Err(syn::Error::new_spanned(attr, message));
        }
    }
    let Some(k) = attrs.iter().position(|a| is_named(a, "reverse")) else {
        return Ok(None);
    };
    let attr = attrs.remove(k);
    Ok(Some(match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    }))
}

/// The error at the first float type parameter of a trait or of a trait impl block
/// (`trait Model<T: Float>`, `impl<T: Float> Model<T> for Lin<T>`) that the signature of one
/// of its methods names: the attributes of a trait's methods are not given the block's
/// generics (a trait's type parameters are not taken as floats), so such a method would be
/// differentiated as if `T` were a type of the user's.
fn block_float_in(sig: &syn::Signature, generics: &syn::Generics) -> Option<syn::Error> {
    fn find(tokens: TokenStream, names: &[&syn::Ident]) -> Option<syn::Ident> {
        tokens.into_iter().find_map(|t| match t {
            proc_macro2::TokenTree::Ident(i) if names.contains(&&i) => Some(i),
            proc_macro2::TokenTree::Group(g) => find(g.stream(), names),
            _ => None,
        })
    }
    let floats = parse::float_like_params(generics);
    if floats.is_empty() {
        return None;
    }
    let inputs = &sig.inputs;
    let output = &sig.output;
    let ident = find(quote!(#inputs #output), &floats)?;
    Some(syn::Error::new_spanned(
        &ident,
        format!(
            "#[reverse] does not differentiate the methods of a trait generic over its float \
             type (`{ident}`) yet; write the trait and its impls for `f64` or `f32`"
        ),
    ))
}

/// The arguments of a method's `#[reverse(..)]` with `parse::IN_IMPL` first: a trait's
/// associated function without `self` or `Self` is one too. (The block's type parameters are
/// not passed: a generic trait's are not taken as floats.)
fn in_impl(args: TokenStream) -> TokenStream {
    let marker = parse::in_impl_arguments(&syn::Generics::default());
    quote!(#marker, #args)
}

/// The items of an expansion, parsed as items of a trait (`T = syn::TraitItem`) or an impl.
fn parse_items<T: syn::parse::Parse>(tokens: TokenStream) -> syn::Result<Vec<T>> {
    let parser = |input: ParseStream<'_>| {
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
        }
        Ok(items)
    };
    parser.parse2(tokens)
}

/// Whether `ty` is `f64` or `f32`.
fn is_float(output: &syn::ReturnType) -> bool {
    match output {
        syn::ReturnType::Type(_, ty) => match &**ty {
            syn::Type::Path(p) => {
                p.qself.is_none() && (p.path.is_ident("f64") || p.path.is_ident("f32"))
            }
            _ => false,
        },
        syn::ReturnType::Default => false,
    }
}

/// `#[reverse] trait Name { .. }`: see the module documentation.
fn trait_block(mut t: syn::ItemTrait) -> TokenStream {
    let mut errors = TokenStream::new();
    let mut items = Vec::new();
    let mut forwarders = Vec::new();
    let mut markers = TokenStream::new();
    let trait_name = t.ident.to_string();
    for item in std::mem::take(&mut t.items) {
        let syn::TraitItem::Fn(mut f) = item else {
            items.push(item);
            continue;
        };
        let args = match take_mark(&mut f.attrs) {
            Ok(Some(args)) => args,
            Ok(None) => {
                if t.generics.params.is_empty() {
                    let (marker, stand_ins) = unmarked_stand_ins(&t, &f.sig);
                    markers.extend(marker);
                    items.extend(stand_ins);
                }
                items.push(syn::TraitItem::Fn(f));
                continue;
            }
            Err(err) => {
                errors.extend(err.to_compile_error());
                items.push(syn::TraitItem::Fn(f));
                continue;
            }
        };
        if let Some(err) = block_float_in(&f.sig, &t.generics) {
            errors.extend(err.to_compile_error());
            items.push(syn::TraitItem::Fn(f));
            continue;
        }
        let name = f.sig.ident.clone();
        let required = f.default.is_none();
        // A required method's derivatives are declared from its signature: the expansion of
        // the method with a body standing in (whose items lose their bodies below).
        let block = match &f.default {
            Some(block) => block.clone(),
            None if is_float(&f.sig.output) => syn::parse_quote!({ 0.0 }),
            None => {
                let err = syn::Error::new_spanned(
                    &f.sig,
                    format!(
                        "#[reverse] on a required method of a trait takes one that returns \
                         `f64` or `f32`; give `{name}` a default body, or return a float"
                    ),
                );
                errors.extend(err.to_compile_error());
                items.push(syn::TraitItem::Fn(f));
                continue;
            }
        };
        let func = syn::ItemFn {
            attrs: f.attrs.clone(),
            vis: syn::Visibility::Inherited,
            sig: f.sig.clone(),
            block: Box::new(block),
        };
        let expanded = super::reverse(in_impl(args), quote!(#func));
        let generated = match parse_items::<syn::TraitItem>(expanded) {
            Ok(generated) => generated,
            Err(err) => {
                errors.extend(err.to_compile_error());
                items.push(syn::TraitItem::Fn(f));
                continue;
            }
        };
        let unquoted = name.to_string();
        let unquoted = unquoted.trim_start_matches("r#");
        for item in generated {
            let mut g = match item {
                syn::TraitItem::Fn(g) => g,
                other => {
                    items.push(other);
                    continue;
                }
            };
            let ident = g.sig.ident.to_string();
            if ident.starts_with("__ad_fwd_") || ident.starts_with("__ad_rev_") {
                forwarders.push(forwarder(&g.sig, &quote!($($tr)*)));
            }
            if g.sig.ident == name {
                // The method itself: as written when required, as expanded (with the marks
                // of sibling attributes) when it has a body.
                items.push(syn::TraitItem::Fn(if required { f.clone() } else { g }));
                continue;
            }
            let check = if required {
                let message = format!(
                    "an impl of `{trait_name}` does not differentiate `{unquoted}`, whose \
                     derivative is used: put #[reverse] on the impl's `{unquoted}`"
                );
                quote! {
                    const { ::core::assert!(Self::IMPL_NEEDS_REVAD_REVERSE.differentiates(#unquoted), #message) }
                    ::core::unreachable!()
                }
            } else {
                let message = format!(
                    "the derivative of `{unquoted}`, a default method of `{trait_name}`, is \
                     for impls that keep it: this impl writes its own `{unquoted}`, without \
                     #[reverse]; put #[reverse] on it"
                );
                let body = g
                    .default
                    .as_ref()
                    .map(|b| b.stmts.clone())
                    .unwrap_or_default();
                quote! {
                    const { ::core::assert!(Self::IMPL_NEEDS_REVAD_REVERSE.keeps_default(#unquoted), #message) }
                    #(#body)*
                }
            };
            g.attrs.retain(|a| !a.path().is_ident("inline"));
            g.attrs
                .push(syn::parse_quote!(#[allow(unused_variables, unreachable_code)]));
            g.default = Some(syn::parse_quote!({ #check }));
            g.semi_token = None;
            items.push(syn::TraitItem::Fn(g));
        }
    }
    // (Even without a method to differentiate: the impl blocks' attribute expects them.)
    items.push(syn::parse_quote! {
        /// Not public API: what the impl's `#[revad::reverse]` says of its methods (an impl
        /// without it misses this item: the error names what to write).
        #[doc(hidden)]
        const IMPL_NEEDS_REVAD_REVERSE: ::revad::__private::ImplInfo;
    });
    let adjoint: syn::TypeParamBound = syn::parse_quote!(::revad::Adjoint);
    let has = t.supertraits.iter().any(|b| match b {
        syn::TypeParamBound::Trait(b) => {
            b.path.segments.last().is_some_and(|s| s.ident == "Adjoint")
        }
        _ => false,
    });
    if !has {
        if t.colon_token.is_none() {
            t.colon_token = Some(Default::default());
        }
        t.supertraits.push(adjoint);
    }
    let companions = companions_macro(&t, &forwarders);
    t.items = items;
    quote!(#errors #t #markers #companions)
}

/// For a method of the trait without `#[reverse]` (`sig`), the split companions that a
/// differentiated caller reaches through a generic bound (`a.act(z)` with `A: Activation`),
/// which fail to compile where they are called, with an error that names the method; and the
/// `on_unimplemented` trait whose missing impl that error is (beside the trait, as visible as
/// it). A concrete receiver finds the caller's fallback first (`codegen::method_fallbacks`),
/// whose `&self` comes before these companions' `self: &&Self`, and whose error says the same.
///
/// ```text
/// fn __ad_fwd_act<'__ad_check, A1, S>(self: &&Self, _: A1, _: S) -> StandInResult
/// where &'__ad_check (): __ad_unmarked_Activation_act { unreachable!() }
/// ```
fn unmarked_stand_ins(
    t: &syn::ItemTrait,
    sig: &syn::Signature,
) -> (TokenStream, Vec<syn::TraitItem>) {
    let has_receiver = matches!(sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
    if !has_receiver {
        return (TokenStream::new(), Vec::new());
    }
    let name = &sig.ident;
    let unraw = name.to_string();
    let unraw = unraw.trim_start_matches("r#");
    let trait_name = &t.ident;
    let mixed = proc_macro2::Span::mixed_site();
    let marker = format_ident!("__ad_unmarked_{}_{}", trait_name, unraw);
    let message = crate::codegen::messages::fill(
        crate::codegen::messages::UNMARKED_TRAIT_METHOD,
        unraw,
        &trait_name.to_string(),
    );
    let vis = &t.vis;
    let declare = quote! {
        #[doc(hidden)]
        #[diagnostic::on_unimplemented(
            message = #message,
            label = "called with a differentiated argument"
        )]
        #[allow(non_camel_case_types)]
        #vis trait #marker {}
    };
    let fwd = crate::codegen::tokens::companion_ident(name, "fwd");
    let rev = crate::codegen::tokens::companion_ident(name, "rev");
    let arity = sig.inputs.len();
    let args: Vec<syn::Ident> = (1..arity).map(|i| format_ident!("A{}", i)).collect();
    let sinks: Vec<syn::Ident> = (0..arity).map(|i| format_ident!("K{}", i)).collect();
    let lifetime = syn::Lifetime::new("'__ad_check", mixed);
    let result = quote!(::revad::__private::StandInResult);
    let fwd: syn::TraitItem = syn::parse_quote! {
        #[doc(hidden)]
        #[allow(clippy::too_many_arguments, clippy::needless_lifetimes)]
        fn #fwd<#lifetime, #(#args,)* S>(self: &&Self, #(_: #args,)* _: S) -> #result
        where
            &#lifetime (): #marker,
        {
            ::core::unreachable!()
        }
    };
    let rev: syn::TraitItem = syn::parse_quote! {
        #[doc(hidden)]
        #[allow(clippy::too_many_arguments)]
        fn #rev<#(#args,)* S, #(#sinks),*>(
            self: &&Self,
            #(_: #args,)*
            _: #result,
            _: S,
            #(_: #sinks),*
        ) {
            ::core::unreachable!()
        }
    };
    (declare, vec![fwd, rev])
}

/// The macro that each annotated impl of the trait `t` expands to, `Trait! { [impl header]
/// [trait path] impl .. }`: the impl, and the type's inherent copies of the trait's split
/// companions (see `forwarder`): a `macro_rules!` imported under the trait's name, in the macro namespace, so
/// that the path by which an impl names the trait names it too (`use m::Model;` imports both).
///
/// ```text
/// macro_rules! __ad_impl_Model {
///     ([$($h:tt)*] [$($tr:tt)*] $($item:tt)*) => { $($item)* $($h)* { <forwarders> } }
/// }
/// pub(crate) use __ad_impl_Model as Model;
/// ```
fn companions_macro(t: &syn::ItemTrait, forwarders: &[TokenStream]) -> TokenStream {
    let name = format_ident!("__ad_impl_{}", t.ident);
    let ident = &t.ident;
    // (The forwarders of a generic trait would name its parameters, which an impl names
    // otherwise: such a trait's impls get none.)
    let body = match t.generics.params.is_empty() {
        true => quote!($($item)* $($h)* { #(#forwarders)* }),
        false => quote!($($item)*),
    };
    quote! {
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #name {
            ([$($h:tt)*] [$($tr:tt)*] $($item:tt)*) => { #body };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #name as #ident;
    }
}

/// The arithmetic operators of std whose impls `#[reverse]` differentiates (`impl Add for
/// V2`), by the trait's path (`Add`, `ops::Add`, `std::ops::Add`, `core::ops::Add`): the
/// trait's name.
fn operator_trait(path: &syn::Path) -> Option<&syn::Ident> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let last = names.last()?;
    let prefix = &names[..names.len() - 1];
    let operator = matches!(*last, "Add" | "Sub" | "Mul" | "Div" | "Neg");
    let std = matches!(prefix, [] | ["ops"] | ["std" | "core", "ops"]);
    let ident = &path.segments.last()?.ident;
    (operator && std).then_some(ident)
}

/// `#[reverse] impl Add for V2 { #[reverse] fn add(self, o: V2) -> V2 { .. } }` (or `Sub`,
/// `Mul`, `Div`, `Neg`): the method in the trait impl, and the items `#[reverse]` generates
/// beside it (`add_vjp`, the split companions `__ad_fwd_add` and `__ad_rev_add`) in an
/// inherent impl of the type, which callers reach as those of any method: `a + b` on a
/// struct of the user's is `a.add(b)` (`Lowerer::user_operator`). The trait is std's, which
/// has no `#[reverse]`: one impl of each operator per type is differentiated (the companions
/// of two would have one name).
fn operator_impl(mut i: syn::ItemImpl, operator: &syn::Ident) -> TokenStream {
    // (`impl Mul<V2> for f64`: the companions' inherent impl would be of a primitive type; the
    // struct's holds them, `left_operator_impl`.)
    if let syn::Type::Path(p) = &*i.self_ty {
        let primitive = p.qself.is_none()
            && p.path.get_ident().is_some_and(|t| {
                matches!(
                    t.to_string().as_str(),
                    "f32"
                        | "f64"
                        | "i8"
                        | "i16"
                        | "i32"
                        | "i64"
                        | "i128"
                        | "isize"
                        | "u8"
                        | "u16"
                        | "u32"
                        | "u64"
                        | "u128"
                        | "usize"
                )
            });
        let float = p.path.get_ident().is_some_and(|t| t == "f64" || t == "f32");
        if float && operator != "Neg" {
            return left_operator_impl(i, operator);
        }
        if primitive {
            let message = format!(
                "#[revad::reverse] differentiates `impl {operator}` on a struct of yours \
                 (`impl {operator}<f64> for V2`) and on a float with a struct of yours on the \
                 right (`impl {operator}<V2> for f64`), not on an integer; convert it first \
                 (`k as f64 * v`)"
            );
            let err = syn::Error::new_spanned(&i.self_ty, message).to_compile_error();
            // (The impl as written, without the methods' marks, which would expand alone.)
            for item in &mut i.items {
                if let syn::ImplItem::Fn(f) = item {
                    let _ = take_mark(&mut f.attrs);
                }
            }
            return quote!(#err #i);
        }
    }
    let mut errors = TokenStream::new();
    let mut items = Vec::new();
    let mut inherent = Vec::new();
    for item in std::mem::take(&mut i.items) {
        let syn::ImplItem::Fn(mut f) = item else {
            items.push(item);
            continue;
        };
        match forward_items(&mut f) {
            Ok(generated) => inherent.extend(generated),
            Err(err) => errors.extend(err),
        }
        let args = match take_mark(&mut f.attrs) {
            Ok(Some(args)) => args,
            Ok(None) => {
                items.push(syn::ImplItem::Fn(f));
                continue;
            }
            Err(err) => {
                errors.extend(err.to_compile_error());
                items.push(syn::ImplItem::Fn(f));
                continue;
            }
        };
        let func = syn::ItemFn {
            attrs: f.attrs.clone(),
            vis: f.vis.clone(),
            sig: f.sig.clone(),
            block: Box::new(f.block.clone()),
        };
        let expanded = super::reverse(in_impl(args), quote!(#func));
        match parse_items::<syn::ImplItem>(expanded) {
            Ok(generated) => {
                for item in generated {
                    match item {
                        syn::ImplItem::Fn(g) if g.sig.ident == f.sig.ident => {
                            items.push(syn::ImplItem::Fn(g))
                        }
                        // (Public: callers in other modules call them as the method.)
                        syn::ImplItem::Fn(mut g) => {
                            g.vis = syn::parse_quote!(pub);
                            inherent.push(syn::ImplItem::Fn(g));
                        }
                        other => inherent.push(other),
                    }
                }
            }
            Err(err) => {
                errors.extend(err.to_compile_error());
                items.push(syn::ImplItem::Fn(f));
            }
        }
    }
    i.items = items;
    let (impl_generics, _, where_clause) = i.generics.split_for_impl();
    let self_ty = &i.self_ty;
    quote! {
        #errors
        #i
        const _: () = {
            #[allow(unused_imports)]
            use ::core::ops::#operator as _;
            impl #impl_generics #self_ty #where_clause {
                #(#inherent)*
            }
        };
    }
}

/// `#[reverse] impl Mul<V2> for f64 { #[reverse] fn mul(self, v: V2) -> V2 { .. } }` (or
/// `Add`, `Sub`, `Div`, and `f32`): the impl as written, and, in an inherent impl of the
/// struct `V2`, the method `revad_left_mul(self, k: f64)` with the same body (`v` bound to
/// `self`, the float's `self` to `k`, `Self` to the float), differentiated as any method:
/// `k * v` in annotated code is `v.revad_left_mul(k)`. The float's impl itself cannot hold the
/// derivatives (no inherent impl of a primitive type).
fn left_operator_impl(mut i: syn::ItemImpl, operator: &syn::Ident) -> TokenStream {
    let float = quote::ToTokens::to_token_stream(&*i.self_ty);
    // The struct: the trait's type argument, `Mul<V2>`.
    let rhs = i
        .trait_
        .as_ref()
        .and_then(|(_, path, _)| match &path.segments.last()?.arguments {
            syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
                syn::GenericArgument::Type(t @ syn::Type::Path(_)) => Some(t.clone()),
                _ => None,
            },
            _ => None,
        });
    let Some(rhs) = rhs else {
        let err = syn::Error::new_spanned(
            &i.self_ty,
            format!(
                "#[revad::reverse] differentiates `impl {operator}<V2> for f64` with a struct of \
                 yours as the other operand (`k * v`)"
            ),
        )
        .to_compile_error();
        for item in &mut i.items {
            if let syn::ImplItem::Fn(f) = item {
                let _ = take_mark(&mut f.attrs);
            }
        }
        return quote!(#err #i);
    };
    let output = i.items.iter().find_map(|item| match item {
        syn::ImplItem::Type(t) if t.ident == "Output" => {
            Some(quote::ToTokens::to_token_stream(&t.ty))
        }
        _ => None,
    });
    let mut errors = TokenStream::new();
    let mut generated = Vec::new();
    for item in &mut i.items {
        let syn::ImplItem::Fn(f) = item else {
            continue;
        };
        let args = match take_mark(&mut f.attrs) {
            Ok(Some(args)) => args,
            Ok(None) => continue,
            Err(err) => {
                errors.extend(err.to_compile_error());
                continue;
            }
        };
        // `fn mul(self, v: V2) -> V2`: the other operand's pattern.
        let other = f.sig.inputs.iter().find_map(|a| match a {
            syn::FnArg::Typed(t) => Some(t.pat.clone()),
            syn::FnArg::Receiver(_) => None,
        });
        let by_value = f
            .sig
            .inputs
            .first()
            .is_some_and(|a| matches!(a, syn::FnArg::Receiver(r) if r.reference.is_none()));
        let Some(other) = other.filter(|_| by_value && f.sig.inputs.len() == 2) else {
            errors.extend(
                syn::Error::new_spanned(
                    &f.sig,
                    format!(
                        "#[reverse] differentiates `fn {}(self, v: ..)` of this impl",
                        f.sig.ident
                    ),
                )
                .to_compile_error(),
            );
            continue;
        };
        let left = syn::Ident::new("__revad_left", proc_macro2::Span::mixed_site());
        let name = syn::Ident::new(
            &crate::ir::names::left_operator_method(&f.sig.ident.to_string()),
            f.sig.ident.span(),
        );
        // `self` is the float and `Self` its type; `Self::Output` is the impl's `Output`.
        fn rename(
            tokens: TokenStream,
            left: &syn::Ident,
            float: &TokenStream,
            output: Option<&TokenStream>,
        ) -> TokenStream {
            let mut out = TokenStream::new();
            let mut iter = tokens.into_iter().peekable();
            while let Some(t) = iter.next() {
                match t {
                    proc_macro2::TokenTree::Ident(id) if id == "self" => out.extend(quote!(#left)),
                    proc_macro2::TokenTree::Ident(id) if id == "Self" => {
                        let rest: Vec<proc_macro2::TokenTree> = iter.clone().take(3).collect();
                        let is_output = matches!(&rest[..], [proc_macro2::TokenTree::Punct(a), proc_macro2::TokenTree::Punct(b), proc_macro2::TokenTree::Ident(o)] if a.as_char() == ':' && b.as_char() == ':' && o == "Output");
                        match (is_output, output) {
                            (true, Some(output)) => {
                                for _ in 0..3 {
                                    iter.next();
                                }
                                out.extend(output.clone());
                            }
                            _ => out.extend(float.clone()),
                        }
                    }
                    proc_macro2::TokenTree::Group(g) => {
                        let inner = rename(g.stream(), left, float, output);
                        let mut group = proc_macro2::Group::new(g.delimiter(), inner);
                        group.set_span(g.span());
                        out.extend(std::iter::once(proc_macro2::TokenTree::Group(group)));
                    }
                    t => out.extend(std::iter::once(t)),
                }
            }
            out
        }
        let stmts = &f.block.stmts;
        let body = rename(quote!(#(#stmts)*), &left, &float, output.as_ref());
        let ret = rename(
            quote::ToTokens::to_token_stream(&f.sig.output),
            &left,
            &float,
            output.as_ref(),
        );
        let attrs = f
            .attrs
            .iter()
            .filter(|a| !a.path().is_ident("doc") && !a.path().is_ident("inline"));
        let method: syn::ItemFn = match syn::parse2(quote! {
            #(#attrs)*
            fn #name(self, #left: #float) #ret {
                let #other = self;
                #body
            }
        }) {
            Ok(method) => method,
            Err(err) => {
                errors.extend(err.to_compile_error());
                continue;
            }
        };
        let expanded = super::reverse(in_impl(args), quote!(#method));
        match parse_items::<syn::ImplItem>(expanded) {
            Ok(items) => {
                for item in items {
                    match item {
                        // (Public: callers in other modules call them as the method.)
                        syn::ImplItem::Fn(mut g) => {
                            g.vis = syn::parse_quote!(pub);
                            g.attrs.push(syn::parse_quote!(#[doc(hidden)]));
                            generated.push(syn::ImplItem::Fn(g));
                        }
                        other => generated.push(other),
                    }
                }
            }
            Err(err) => errors.extend(err.to_compile_error()),
        }
    }
    quote! {
        #errors
        #i
        const _: () = {
            impl #rhs {
                #(#generated)*
            }
        };
    }
}

/// `#[reverse] impl Trait for Type { .. }`: see the module documentation.
fn impl_block(mut i: syn::ItemImpl) -> TokenStream {
    let Some((_, trait_path, _)) = i.trait_.clone() else {
        return quote!(#i);
    };
    if let Some(operator) = operator_trait(&trait_path) {
        let operator = operator.clone();
        return operator_impl(i, &operator);
    }
    let mut errors = TokenStream::new();
    let mut items = Vec::new();
    let mut differentiated = Vec::new();
    let mut plain = Vec::new();
    let mut inherent = Vec::new();
    for item in std::mem::take(&mut i.items) {
        let syn::ImplItem::Fn(mut f) = item else {
            items.push(item);
            continue;
        };
        let name = f.sig.ident.to_string();
        let name = name.trim_start_matches("r#").to_string();
        let marked = ["reverse", "forward"]
            .iter()
            .any(|n| f.attrs.iter().any(|a| is_named(a, n)));
        if let Some(err) = block_float_in(&f.sig, &i.generics).filter(|_| marked) {
            // (The method as written, its attributes taken off: one error.)
            errors.extend(err.to_compile_error());
            f.attrs
                .retain(|a| !is_named(a, "reverse") && !is_named(a, "forward"));
            plain.push(name);
            items.push(syn::ImplItem::Fn(f));
            continue;
        }
        match forward_items(&mut f) {
            Ok(generated) => inherent.extend(generated),
            Err(err) => errors.extend(err),
        }
        let args = match take_mark(&mut f.attrs) {
            Ok(Some(args)) => args,
            Ok(None) => {
                plain.push(name);
                items.push(syn::ImplItem::Fn(f));
                continue;
            }
            Err(err) => {
                errors.extend(err.to_compile_error());
                plain.push(name);
                items.push(syn::ImplItem::Fn(f));
                continue;
            }
        };
        let func = syn::ItemFn {
            attrs: f.attrs.clone(),
            vis: f.vis.clone(),
            sig: f.sig.clone(),
            block: Box::new(f.block.clone()),
        };
        let expanded = super::reverse(in_impl(args), quote!(#func));
        match parse_items::<syn::ImplItem>(expanded) {
            Ok(generated) => {
                items.extend(generated);
                differentiated.push(name);
            }
            Err(err) => {
                errors.extend(err.to_compile_error());
                plain.push(name);
                items.push(syn::ImplItem::Fn(f));
            }
        }
    }
    items.push(syn::parse_quote! {
        const IMPL_NEEDS_REVAD_REVERSE: ::revad::__private::ImplInfo = ::revad::__private::ImplInfo {
            differentiated: &[#(#differentiated),*],
            plain: &[#(#plain),*],
        };
    });
    i.items = items;
    // Through the trait's macro (`companions_macro`), by the trait's path: the impl, and the
    // type's inherent copies of the trait's split companions. (A trait without `#[reverse]`
    // has no macro: that is the one error, at the trait's name.)
    let mut macro_path = trait_path.clone();
    if let Some(last) = macro_path.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
    }
    let (impl_generics, _, where_clause) = i.generics.split_for_impl();
    let self_ty = &i.self_ty;
    let inherent = (!inherent.is_empty()).then(|| {
        quote! {
            impl #impl_generics #self_ty #where_clause {
                #(#inherent)*
            }
        }
    });
    quote! {
        #errors
        #macro_path! { [#[doc(hidden)] impl #impl_generics #self_ty #where_clause] [#trait_path] #i }
        #inherent
    }
}

/// For a method of a trait impl with `#[revad::forward(..)]` (taken off it): the items that
/// attribute generates beside the method (`NAME_jvp`, the companion `__ad_jvp_NAME`), public,
/// which go into an inherent impl of the type (a trait impl may hold only the trait's items):
/// `value.NAME_jvp(..)` on the concrete type. Forward mode differentiates a method whose
/// `self` `wrt(..)` leaves out (`codegen::forward::check`).
fn forward_items(f: &mut syn::ImplItemFn) -> Result<Vec<syn::ImplItem>, TokenStream> {
    let Some(k) = f.attrs.iter().position(|a| is_named(a, "forward")) else {
        return Ok(Vec::new());
    };
    let attr = f.attrs.remove(k);
    let args = match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    };
    // (The method alone: `#[reverse]`, if there, expands it into the trait impl.)
    let attrs = f
        .attrs
        .iter()
        .filter(|a| !is_named(a, "reverse") && !is_named(a, "derivative"))
        .cloned()
        .collect();
    let func = syn::ItemFn {
        attrs,
        vis: syn::parse_quote!(pub),
        sig: f.sig.clone(),
        block: Box::new(f.block.clone()),
    };
    let name = f.sig.ident.clone();
    let expanded = super::forward(in_impl(args), quote!(#func));
    let generated = parse_items::<syn::ImplItem>(expanded).map_err(|e| e.to_compile_error())?;
    Ok(generated
        .into_iter()
        .filter(|item| !matches!(item, syn::ImplItem::Fn(g) if g.sig.ident == name))
        .collect())
}

/// An inherent copy of the companion of signature `sig` of a trait's method, which calls the
/// trait's (`trait_path`): rustc takes a type's own methods before those of traits, so a call
/// on a concrete receiver finds this one, and not the fallback a caller declares for a method
/// without derivatives.
fn forwarder(sig: &syn::Signature, trait_path: &TokenStream) -> TokenStream {
    let mut sig = sig.clone();
    let mut args = Vec::new();
    for (k, input) in sig.inputs.iter_mut().enumerate() {
        match input {
            syn::FnArg::Receiver(_) => args.push(quote!(self)),
            syn::FnArg::Typed(t) => {
                let ident = format_ident!("__ad_a{}", k);
                *t.pat = syn::parse_quote!(#ident);
                args.push(quote!(#ident));
            }
        }
    }
    let name = &sig.ident;
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, clippy::too_many_arguments)]
        pub #sig {
            <Self as #trait_path>::#name(#(#args),*)
        }
    }
}
