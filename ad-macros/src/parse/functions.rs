//! Function parameters: `fn integrate<F: Fn(f64) -> f64>(f: F, ..)`.
//!
//! A type parameter bounded by `Fn(floats..) -> float` is the type of a function argument.
//! The primal keeps the bound; the generated companions replace it by the runtime's
//! `ReverseFunctionN` (reverse mode) or `ForwardFunctionN` (forward mode), whose split
//! companions a call `f(x)` in the body goes through (`revad_runtime::function`). An
//! `impl Fn(..) -> ..` parameter is first given a type parameter of its own, so that the
//! companions can name it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Type, TypeParamBound};

use crate::error::Errors;
use crate::ir::FloatTy;

/// The most arguments a function argument may take (the runtime has traits up to this).
pub(crate) const MAX_ARITY: usize = 4;

/// A type parameter that is the type of a function argument.
#[derive(Clone, Debug)]
pub(crate) struct FunctionType {
    /// Its name (`F`).
    pub ident: syn::Ident,
    /// How many float arguments the function takes.
    pub arity: usize,
    /// The float type of its arguments and result.
    pub float: FloatTy,
    /// Its bound was rejected (an error was reported): parameters of this type are too.
    pub rejected: bool,
    /// No float in its bound (`Fn(usize) -> usize`): an inactive parameter, called as
    /// written.
    pub inactive: bool,
    /// The function pointer type of the bound (`fn(f64) -> f64`), which implements it: the
    /// generated code names the primal with it.
    pub pointer: TokenStream,
}

/// Which companions a rewritten signature is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Reverse,
    Forward,
}

/// The `Fn(..) -> ..` bound among `bounds`, if there is one: the parenthesized arguments and
/// the output. `FnMut` and `FnOnce` are reported (a function argument is called any number of
/// times and must not change what later calls see).
pub(crate) fn fn_bound<'a>(
    cx: &Errors,
    bounds: impl IntoIterator<Item = &'a TypeParamBound>,
) -> Option<Result<&'a syn::ParenthesizedGenericArguments, ()>> {
    for bound in bounds {
        let TypeParamBound::Trait(t) = bound else {
            continue;
        };
        let Some(last) = t.path.segments.last() else {
            continue;
        };
        let syn::PathArguments::Parenthesized(args) = &last.arguments else {
            continue;
        };
        if last.ident == "FnMut" || last.ident == "FnOnce" {
            cx.error(
                &last.ident,
                format!(
                    "a function argument of a differentiated function must be `Fn`, not `{}`: \
                     the derivative calls it again, so it must not change what later calls see",
                    last.ident
                ),
            );
            return Some(Err(()));
        }
        if last.ident == "Fn" {
            return Some(Ok(args));
        }
    }
    None
}

/// Reads the bound `Fn(A..) -> R` of the type parameter `ident` into a [`FunctionType`]:
/// every argument and the result must be the same float type.
pub(crate) fn read(
    cx: &Errors,
    ident: &syn::Ident,
    args: &syn::ParenthesizedGenericArguments,
    float_of: impl Fn(&Type) -> Option<FloatTy>,
) -> Option<FunctionType> {
    let help = "differentiated functions take function arguments of floats to a float \
                (`F: Fn(f64) -> f64`, `F: Fn(T, T) -> T`)";
    let no_float = args.inputs.iter().all(|t| float_of(t).is_none())
        && match &args.output {
            syn::ReturnType::Type(_, ret) => float_of(ret).is_none(),
            syn::ReturnType::Default => true,
        };
    if no_float {
        return Some(FunctionType {
            inactive: true,
            rejected: false,
            pointer: pointer(args),
            ..rejected(ident)
        });
    }
    let syn::ReturnType::Type(_, ret) = &args.output else {
        cx.error(args, format!("{help}; this one returns `()`"));
        return None;
    };
    let Some(float) = float_of(ret) else {
        cx.error(ret, format!("{help}; this one returns another type"));
        return None;
    };
    for input in &args.inputs {
        if float_of(input) != Some(float) {
            cx.error(
                input,
                format!("{help}; this argument is not `{}`", float.ident()),
            );
            return None;
        }
    }
    if args.inputs.is_empty() || args.inputs.len() > MAX_ARITY {
        cx.error(args, format!("{help}, of 1 to {MAX_ARITY} arguments"));
        return None;
    }
    Some(FunctionType {
        ident: ident.clone(),
        arity: args.inputs.len(),
        float,
        rejected: false,
        inactive: false,
        pointer: pointer(args),
    })
}

/// A type parameter whose `Fn` bound was rejected: parameters of its type report nothing
/// more.
pub(crate) fn rejected(ident: &syn::Ident) -> FunctionType {
    FunctionType {
        ident: ident.clone(),
        arity: 0,
        float: FloatTy::F64,
        rejected: true,
        inactive: false,
        pointer: quote!(fn()),
    }
}

/// `fn(A..) -> R` for the bound `Fn(A..) -> R`.
fn pointer(args: &syn::ParenthesizedGenericArguments) -> TokenStream {
    let inputs = &args.inputs;
    let output = &args.output;
    quote!(fn(#inputs) #output)
}

/// Gives each `impl Fn(..) -> ..`, `&dyn Fn(..) -> ..` and `fn(..) -> ..` parameter of floats
/// a type parameter of its own (`__AdF0: Fn(f64) -> f64`, `?Sized` behind a reference), so
/// that generated code can name its type and call its derivative. Callers of the primal pass
/// what they passed before (a closure, a function, a trait object, a function pointer).
pub(crate) fn name_impl_fn_params(func: &mut syn::ItemFn) {
    let type_params: Vec<String> = func
        .sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    // Whether a function type mentions a float (`f64`, `f32`, a type parameter): one of
    // integers stays as written.
    let floaty = |tokens: TokenStream| {
        fn any(tokens: TokenStream, names: &[String]) -> bool {
            tokens.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => {
                    i == "f64" || i == "f32" || names.iter().any(|n| i == n)
                }
                proc_macro2::TokenTree::Group(g) => any(g.stream(), names),
                _ => false,
            })
        }
        any(tokens, &type_params)
    };
    let is_fn = |bounds: &syn::punctuated::Punctuated<TypeParamBound, syn::Token![+]>| {
        bounds.iter().any(|b| {
            matches!(b, TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| {
                matches!(s.arguments, syn::PathArguments::Parenthesized(_))
            }))
        })
    };
    let mut added = Vec::new();
    for input in &mut func.sig.inputs {
        let syn::FnArg::Typed(typed) = input else {
            continue;
        };
        // (A type passed through a `macro_rules!` fragment, `$t:ty`, arrives in an invisible
        // group.)
        fn ungrouped(mut ty: &mut Type) -> &mut Type {
            while let Type::Group(g) = ty {
                ty = &mut *g.elem;
            }
            ty
        }
        let (ty, reference) = match ungrouped(&mut typed.ty) {
            Type::Reference(r) if r.mutability.is_none() => (ungrouped(&mut r.elem), true),
            other => (other, false),
        };
        let name = format_ident!(
            "__AdF{}",
            added.len(),
            span = proc_macro2::Span::call_site()
        );
        let bound = match &*ty {
            // `impl Fn(f64) -> f64`.
            Type::ImplTrait(it) if is_fn(&it.bounds) => {
                let bounds = &it.bounds;
                quote!(#bounds)
            }
            // `&dyn Fn(f64) -> f64`: any function behind a reference.
            Type::TraitObject(to) if reference && is_fn(&to.bounds) => {
                let bounds = &to.bounds;
                if !floaty(quote!(#bounds)) {
                    continue;
                }
                quote!(#bounds + ?::core::marker::Sized)
            }
            // `fn(f64) -> f64`: any function.
            Type::BareFn(f)
                if !reference
                    && f.lifetimes.is_none()
                    && f.unsafety.is_none()
                    && f.abi.is_none()
                    && f.variadic.is_none() =>
            {
                let inputs = f.inputs.iter().map(|a| &a.ty);
                let output = &f.output;
                let bound = quote!(::core::ops::Fn(#(#inputs),*) #output);
                if !floaty(bound.clone()) {
                    continue;
                }
                bound
            }
            _ => continue,
        };
        added.push(quote!(#name: #bound));
        *ty = syn::parse_quote!(#name);
    }
    for param in added {
        func.sig.generics.params.push(syn::parse_quote!(#param));
    }
}

/// `func` with each `Fn(..) -> R` bound of `functions` replaced by the runtime trait of
/// `mode` (`::revad::__private::ReverseFunction1<R>`), for the generated companions.
pub(crate) fn companion_fn(
    func: &syn::ItemFn,
    functions: &[FunctionType],
    mode: Mode,
) -> syn::ItemFn {
    if functions.iter().all(|f| f.rejected || f.inactive) {
        return func.clone();
    }
    let mut func = func.clone();
    let replace =
        |ident: &syn::Ident,
         bounds: &mut syn::punctuated::Punctuated<TypeParamBound, syn::Token![+]>| {
            let Some(f) = functions
                .iter()
                .find(|f| &f.ident == ident && !f.rejected && !f.inactive)
            else {
                return;
            };
            let kind = match mode {
                Mode::Reverse => "ReverseFunction",
                Mode::Forward => "ForwardFunction",
            };
            let name = format_ident!("{}{}", kind, f.arity);
            let float = f.float.ident();
            let new: TokenStream = quote!(::revad::__private::#name<#float>);
            for bound in bounds.iter_mut() {
                let TypeParamBound::Trait(t) = bound else {
                    continue;
                };
                let fn_like = t.path.segments.last().is_some_and(|s| {
                    s.ident == "Fn" && matches!(s.arguments, syn::PathArguments::Parenthesized(_))
                });
                if fn_like {
                    *bound = syn::parse_quote!(#new);
                }
            }
        };
    for param in func.sig.generics.type_params_mut() {
        let ident = param.ident.clone();
        replace(&ident, &mut param.bounds);
    }
    if let Some(where_clause) = &mut func.sig.generics.where_clause {
        for predicate in &mut where_clause.predicates {
            let syn::WherePredicate::Type(t) = predicate else {
                continue;
            };
            let Type::Path(p) = &t.bounded_ty else {
                continue;
            };
            if let Some(ident) = p.path.get_ident().cloned() {
                replace(&ident, &mut t.bounds);
            }
        }
    }
    func
}

/// The function type parameter that `ty` (`F` or `&F`) names, if any.
pub(crate) fn function_of<'a>(
    ty: &Type,
    functions: &'a [FunctionType],
) -> Option<(&'a FunctionType, bool)> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => {
            function_of(&r.elem, functions).map(|(f, _)| (f, true))
        }
        Type::Group(g) => function_of(&g.elem, functions),
        Type::Paren(p) => function_of(&p.elem, functions),
        Type::Path(p) if p.qself.is_none() => {
            let ident = p.path.get_ident()?;
            functions
                .iter()
                .find(|f| &f.ident == ident)
                .map(|f| (f, false))
        }
        _ => None,
    }
}
