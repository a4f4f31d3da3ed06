//! `#[reverse]`, `#[reverse(wrt(a, b))]`.

use proc_macro2::TokenStream;
use syn::ext::IdentExt as _;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

use crate::error::Errors;

/// The arguments of `#[reverse(...)]`.
#[derive(Default)]
pub(crate) struct Args {
    /// `wrt(a, b)`: the parameters to differentiate with respect to (all float parameters
    /// when absent).
    pub wrt: Option<Vec<Ident>>,
    /// `cps`: the backend that generates `NAME_vjp`.
    pub backend: Backend,
    /// `hessian`: also `NAME_hvp`, `NAME_hessian` and `NAME_hessian_diag` (forward over
    /// reverse, on a generic copy of the function).
    pub hessian: bool,
    /// `vector` (`#[revad::forward]` only): also `NAME_jvp_vec`, `N` tangents at once. The
    /// span of the argument, for errors.
    pub vector: Option<proc_macro2::Span>,
    /// `recompute`: the split companions keep only the arguments; `NAME::rev` runs the
    /// forward sweep again (see `codegen::tape::split`). The span of the argument, for errors.
    pub recompute: Option<proc_macro2::Span>,
    /// Where `cps`, `hessian` and `recompute` were written (for `#[revad::forward]`'s error
    /// about them).
    pub reverse_only: Option<proc_macro2::Span>,
    /// The hidden argument [`FORWARD_TOO`] that `#[revad::forward]`, expanded first, adds to the
    /// `#[reverse]` of the same function: the closures `#[reverse]` lifts need forward
    /// derivatives too.
    pub forward_too: bool,
    /// The hidden argument [`IN_IMPL`] that `#[revad::reverse]` on an inherent `impl` block
    /// adds to the attributes of its methods: the function is an associated function, even
    /// without a receiver or `Self` in its signature (which an attribute on the function
    /// alone could not tell from a free function).
    pub in_impl: bool,
    /// The hidden argument [`IMPL_GENERICS`] that `#[revad::reverse]` on a generic inherent
    /// `impl` block adds beside [`IN_IMPL`]: the block's generic parameters and `where`
    /// clause, in scope in the function and its generated items, whose float type parameters
    /// (`impl<T: Float> Model<T>`) are float types of the function like its own. `None` for a
    /// method whose block has no attribute: it cannot see the block's type parameters.
    pub impl_generics: Option<syn::Generics>,
}

/// The error at `cps` when the crate is built without its feature `cps`.
const NO_CPS_FEATURE: &str = "`#[reverse(cps)]` needs the feature `cps` of `revad`, which is off: \
    `revad = { version = \"0.1\", features = [\"cps\"] }` in Cargo.toml (it builds the stack-growing \
    crate `stacker`, which needs a C compiler); or remove `cps` to use the default backend";

/// See [`Args::forward_too`].
pub(crate) const FORWARD_TOO: &str = "__ad_forward_too";

/// See [`Args::in_impl`].
pub(crate) const IN_IMPL: &str = "__ad_in_impl";

/// See [`Args::impl_generics`].
pub(crate) const IMPL_GENERICS: &str = "__ad_impl_generics";

/// The hidden arguments that an attribute on a block gives those of its functions:
/// [`IN_IMPL`], and [`IMPL_GENERICS`] with `generics`, the block's (empty for a block that is
/// not generic, and for a trait's block, whose own type parameters are not taken as floats).
pub(crate) fn in_impl_arguments(generics: &syn::Generics) -> TokenStream {
    let in_impl = Ident::new(IN_IMPL, proc_macro2::Span::call_site());
    let impl_generics = Ident::new(IMPL_GENERICS, proc_macro2::Span::call_site());
    let where_clause = &generics.where_clause;
    quote::quote!(#in_impl, #impl_generics(#generics #where_clause))
}

/// Which backend generates `NAME_vjp`: the pipeline matches on it (`codegen::emit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Backend {
    /// Straight-line adjoint code with a value stack for loops (the default).
    #[default]
    Tape,
    /// Continuation-passing code with an adjoint cell per value (`#[reverse(cps)]`).
    Cps,
}

impl Args {
    /// Parses the attribute arguments, reporting every problem.
    pub(crate) fn from_tokens(cx: &Errors, tokens: TokenStream) -> Args {
        let mut args = Args::default();
        let metas = match Punctuated::<syn::Meta, Token![,]>::parse_terminated.parse2(tokens) {
            Ok(metas) => metas,
            Err(err) => {
                cx.push(err);
                return args;
            }
        };
        for meta in metas {
            match &meta {
                syn::Meta::List(list) if list.path.is_ident("wrt") => {
                    if args.wrt.is_some() {
                        cx.error(&list.path, "duplicate `wrt(...)` argument");
                        continue;
                    }
                    // (`Ident::parse_any`: `self` names a method's receiver.)
                    let names = Punctuated::<Ident, Token![,]>::parse_terminated_with;
                    match list.parse_args_with(|input: syn::parse::ParseStream<'_>| {
                        names(input, Ident::parse_any)
                    }) {
                        Ok(names) if names.is_empty() => cx.error(
                            list,
                            "`wrt()` names no parameter; list the parameters to differentiate, \
                             as in `wrt(x, y)`",
                        ),
                        Ok(names) => args.wrt = Some(names.into_iter().collect()),
                        Err(err) => cx.push(err),
                    }
                }
                syn::Meta::Path(path) if path.is_ident("cps") => {
                    if args.backend == Backend::Cps {
                        cx.error(path, "duplicate `cps` argument");
                    }
                    if !cfg!(feature = "cps") {
                        cx.error(path, NO_CPS_FEATURE);
                    }
                    args.backend = Backend::Cps;
                    args.reverse_only = Some(syn::spanned::Spanned::span(path));
                }
                syn::Meta::Path(path) if path.is_ident("vector") => {
                    if args.vector.is_some() {
                        cx.error(path, "duplicate `vector` argument");
                    }
                    args.vector = Some(syn::spanned::Spanned::span(path));
                }
                syn::Meta::Path(path) if path.is_ident("recompute") => {
                    if args.recompute.is_some() {
                        cx.error(path, "duplicate `recompute` argument");
                    }
                    args.recompute = Some(syn::spanned::Spanned::span(path));
                    args.reverse_only = Some(syn::spanned::Spanned::span(path));
                }
                syn::Meta::Path(path) if path.is_ident(FORWARD_TOO) => args.forward_too = true,
                syn::Meta::Path(path) if path.is_ident(IN_IMPL) => args.in_impl = true,
                syn::Meta::List(list) if list.path.is_ident(IMPL_GENERICS) => {
                    let generics = list.parse_args_with(|input: syn::parse::ParseStream<'_>| {
                        let mut generics: syn::Generics = input.parse()?;
                        generics.where_clause = input.parse()?;
                        Ok(generics)
                    });
                    match generics {
                        Ok(generics) => args.impl_generics = Some(generics),
                        Err(err) => cx.push(err),
                    }
                }
                syn::Meta::Path(path) if path.is_ident("hessian") => {
                    if args.hessian {
                        cx.error(path, "duplicate `hessian` argument");
                    }
                    args.hessian = true;
                    args.reverse_only = Some(syn::spanned::Spanned::span(path));
                }
                _ => cx.error(
                    meta.path(),
                    format!(
                        "unknown argument `{}`; expected `wrt(...)`, `cps`, `hessian`, `recompute` or (for #[revad::forward]) `vector`",
                        quote::ToTokens::to_token_stream(meta.path())
                            .to_string()
                            .replace(' ', "")
                    ),
                ),
            }
        }
        args
    }
}

/// The arguments of `#[revad::derivative(vjp = path, jvp = path)]`: the pullback, and the
/// optional forward rule.
pub(crate) struct DerivativeArgs {
    pub vjp: Option<syn::Path>,
    pub jvp: Option<syn::Path>,
    /// The hidden arguments of an annotated inherent `impl` block ([`Args::in_impl`],
    /// [`Args::impl_generics`]), as `#[reverse]` reads them; the rest is default.
    pub block: Args,
}

/// Whether `meta` is one of the hidden arguments that a block's attribute gives the
/// attributes of its functions ([`in_impl_arguments`]).
fn is_block_argument(meta: &syn::Meta) -> bool {
    meta.path().is_ident(IN_IMPL) || meta.path().is_ident(IMPL_GENERICS)
}

/// Parses `#[revad::derivative(..)]`'s arguments, reporting every problem.
pub(crate) fn derivative_args(cx: &Errors, tokens: TokenStream) -> DerivativeArgs {
    let mut args = DerivativeArgs {
        vjp: None,
        jvp: None,
        block: Args::default(),
    };
    let metas = match Punctuated::<syn::Meta, Token![,]>::parse_terminated.parse2(tokens.clone()) {
        Ok(metas) => metas,
        Err(err) => {
            cx.push(err);
            return args;
        }
    };
    let (block, metas): (Vec<&syn::Meta>, Vec<&syn::Meta>) =
        metas.iter().partition(|m| is_block_argument(m));
    args.block = Args::from_tokens(cx, quote::quote!(#(#block),*));
    for &meta in &metas {
        let slot = match meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("vjp") => Some(("vjp", &mut args.vjp)),
            syn::Meta::NameValue(nv) if nv.path.is_ident("jvp") => Some(("jvp", &mut args.jvp)),
            _ => None,
        };
        match (meta, slot) {
            (syn::Meta::NameValue(nv), Some((name, slot))) => match &nv.value {
                syn::Expr::Path(p) if slot.is_none() => *slot = Some(p.path.clone()),
                syn::Expr::Path(_) => {
                    cx.error(&nv.path, format!("duplicate `{name} = ...` argument"))
                }
                other => cx.error(
                    other,
                    format!("`{name}` takes the path of a function (`{name} = my_rule`)"),
                ),
            },
            (other, _) => cx.error(
                other.path(),
                format!(
                    "unknown argument `{}`; expected `vjp = pullback`, the function that \
                     returns the adjoints of the parameters from `(params.., output, seed)`, \
                     and optionally `jvp = rule`, the function that returns the output's \
                     tangent from `(params.., output, tangents..)`",
                    quote::ToTokens::to_token_stream(other.path())
                        .to_string()
                        .replace(' ', "")
                ),
            ),
        }
    }
    // (After an unknown argument, that error says what to write.)
    let known = |m: &syn::Meta| m.path().is_ident("vjp") || m.path().is_ident("jvp");
    if args.vjp.is_none() && metas.iter().all(|m| known(m)) {
        cx.error_at(
            proc_macro2::Span::call_site(),
            "#[revad::derivative] needs the pullback: `#[revad::derivative(vjp = my_pullback)]`",
        );
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(tokens: TokenStream) -> (Args, usize) {
        let cx = Errors::new();
        let args = Args::from_tokens(&cx, tokens);
        let n = match cx.check() {
            Ok(()) => 0,
            Err(err) => err.into_iter().count(),
        };
        (args, n)
    }

    #[test]
    fn empty_and_wrt() {
        assert!(parse(quote!()).0.wrt.is_none());
        let (args, errors) = parse(quote!(wrt(a, c)));
        assert_eq!(errors, 0);
        let names: Vec<String> = args.wrt.unwrap().iter().map(|i| i.to_string()).collect();
        assert_eq!(names, ["a", "c"]);
    }

    #[test]
    fn wrt_names_the_receiver() {
        let (args, errors) = parse(quote!(wrt(self, x)));
        assert_eq!(errors, 0);
        let names: Vec<String> = args.wrt.unwrap().iter().map(|i| i.to_string()).collect();
        assert_eq!(names, ["self", "x"]);
    }

    #[test]
    fn every_bad_argument_is_reported() {
        assert_eq!(parse(quote!(wtr(a), cps, cps, wrt())).1, 3);
    }

    #[test]
    fn cps_selects_the_backend() {
        assert_eq!(parse(quote!()).0.backend, Backend::Tape);
        let (args, errors) = parse(quote!(cps, wrt(x)));
        assert_eq!((args.backend, errors), (Backend::Cps, 0));
    }
}
