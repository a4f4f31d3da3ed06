//! The path under which the user's crate sees `revad`.
//!
//! Code generation names runtime items as `::revad::..`. [`CratePath::apply`] rewrites that
//! leading `::revad` into the path the user's crate has for the library, once, on the whole
//! output of an expansion:
//!
//! - `#[revad::reverse(crate = path)]` (or `#[adjoint(crate = path)]` on a derive): `path`, for
//!   a crate that reaches `revad` through a re-export (serde's `#[serde(crate = "..")]`);
//! - otherwise the name under which the caller's `Cargo.toml` depends on the `revad` package
//!   (`autodiff = { package = "revad", .. }` gives `::autodiff`), read by `proc-macro-crate`;
//! - otherwise `::revad`.
//!
//! ```text
//! // generated                                   // emitted, with `autodiff = { package = "revad" }`
//! <f64 as ::revad::Adjoint>::Adj                  <f64 as ::autodiff::Adjoint>::Adj
//! #[::revad::reverse(crate = ::revad)]           #[::autodiff::reverse(crate = ::autodiff)]
//! ```
//!
//! Attributes the macro emits on items it generates (the functions it lifts closures into)
//! say `crate = ::revad`, so their own expansion resolves to the same path.

use proc_macro2::{Delimiter, Group, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;

/// The name of the facade package, as generated code spells it.
const NAME: &str = "revad";

/// Where the runtime is, for one expansion.
pub(crate) enum CratePath {
    /// The user's crate sees the library at `::revad`: nothing to rewrite.
    Canonical,
    /// Another path: `::autodiff`, or one given with `crate = path`.
    Other(TokenStream),
}

impl CratePath {
    /// The path given with `crate = path`, else the name from the caller's manifest.
    fn resolve(explicit: Option<TokenStream>) -> CratePath {
        match explicit {
            Some(path) => CratePath::Other(path),
            None => match user_name() {
                Some(name) if name != NAME => {
                    let ident = syn::Ident::new(&name, Span::call_site());
                    CratePath::Other(quote::quote!(::#ident))
                }
                _ => CratePath::Canonical,
            },
        }
    }

    /// Rewrites every leading `::revad` of `tokens` into this path.
    pub(crate) fn apply(&self, tokens: TokenStream) -> TokenStream {
        match self {
            CratePath::Canonical => tokens,
            CratePath::Other(path) => rewrite(tokens, path),
        }
    }
}

/// The name under which the caller's manifest depends on the `revad` package, when it does.
/// The package's own examples, tests and doc tests see it as `revad` too.
pub(crate) fn user_name() -> Option<String> {
    match proc_macro_crate::crate_name(NAME) {
        Ok(proc_macro_crate::FoundCrate::Name(name)) => Some(name),
        Ok(proc_macro_crate::FoundCrate::Itself) => Some(NAME.to_string()),
        Err(_) => None,
    }
}

/// Splits `crate = path` (or `crate = "path"`) off an attribute's arguments. Returns the
/// crate path and the other arguments, or an error at a `crate = ..` that is not a path.
pub(crate) fn split_args(args: TokenStream) -> syn::Result<(CratePath, TokenStream)> {
    let mut explicit = None;
    let mut rest = TokenStream::new();
    for arg in top_level_args(args) {
        let mut tokens = arg.clone().into_iter();
        let is_crate = matches!(tokens.next(), Some(TokenTree::Ident(i)) if i == "crate")
            && matches!(tokens.next(), Some(TokenTree::Punct(p)) if p.as_char() == '=');
        if !is_crate {
            if !rest.is_empty() {
                rest.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
            }
            rest.extend(arg);
            continue;
        }
        let value: TokenStream = tokens.collect();
        let path = parse_path(value.clone())?;
        if explicit.is_some() {
            return Err(syn::Error::new_spanned(
                arg,
                "duplicate `crate = ..` argument",
            ));
        }
        explicit = Some(path.into_token_stream());
    }
    Ok((CratePath::resolve(explicit), rest))
}

/// The crate path given by `#[adjoint(crate = ..)]`'s value.
pub(crate) fn from_value(value: Option<syn::Path>) -> CratePath {
    CratePath::resolve(value.map(|p| p.into_token_stream()))
}

/// A path, written plain (`my_lib::revad`) or as a string (`"my_lib::revad"`).
pub(crate) fn parse_path(value: TokenStream) -> syn::Result<syn::Path> {
    let message = "`crate = ..` takes the path to the `revad` crate, as in `crate = my_lib::revad`";
    if let Ok(lit) = syn::parse2::<syn::LitStr>(value.clone()) {
        return lit
            .parse_with(syn::Path::parse_mod_style)
            .map_err(|_| syn::Error::new(lit.span(), message));
    }
    syn::parse::Parser::parse2(syn::Path::parse_mod_style, value.clone())
        .map_err(|_| syn::Error::new_spanned(value, message))
}

/// The arguments of an attribute, split at its top-level commas.
fn top_level_args(args: TokenStream) -> Vec<TokenStream> {
    let mut out = vec![TokenStream::new()];
    for tt in args {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push(TokenStream::new()),
            _ => out.last_mut().expect("never empty").extend([tt]),
        }
    }
    out.retain(|arg| !arg.is_empty());
    out
}

/// `tokens` with each `::revad` that starts a path replaced by `path`.
fn rewrite(tokens: TokenStream, path: &TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        if let Some(span) = leading_name(&trees, i) {
            out.extend(path.clone().into_iter().map(|mut tt| {
                tt.set_span(span);
                tt
            }));
            i += 3;
            continue;
        }
        out.push(match &trees[i] {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), rewrite(g.stream(), path));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            tt => tt.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}

/// The span of `revad` when `trees[i..]` starts with `::revad` and that `::` begins a path
/// (it does not follow a name or a `>`, as in `a::revad`).
fn leading_name(trees: &[TokenTree], i: usize) -> Option<Span> {
    let colon = |tt: Option<&TokenTree>, spacing: Spacing| matches!(tt, Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == spacing);
    if !colon(trees.get(i), Spacing::Joint) || !colon(trees.get(i + 1), Spacing::Alone) {
        return None;
    }
    let Some(TokenTree::Ident(name)) = trees.get(i + 2) else {
        return None;
    };
    if name != NAME {
        return None;
    }
    let prev = |back: usize| i.checked_sub(back).map(|j| &trees[j]);
    let continues_a_path = match prev(1) {
        // `a::revad`, `crate::revad`, `Self::revad`; not `as ::revad`, `dyn ::revad`.
        Some(TokenTree::Ident(prev)) => {
            ["self", "super", "crate", "Self"].iter().any(|k| prev == k)
                || syn::parse2::<syn::Ident>(prev.to_token_stream()).is_ok()
        }
        // `Vec<T>::revad`; not `-> ::revad` or `=> ::revad`.
        Some(TokenTree::Punct(p)) if p.as_char() == '>' => !matches!(
            prev(2),
            Some(TokenTree::Punct(q)) if (q.as_char() == '-' || q.as_char() == '=')
                && q.spacing() == Spacing::Joint
        ),
        Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::None,
        _ => false,
    };
    (!continues_a_path).then_some(name.span())
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn rewritten(tokens: TokenStream) -> String {
        CratePath::Other(quote!(::autodiff))
            .apply(tokens)
            .to_string()
    }

    #[test]
    fn leading_paths_are_rewritten_everywhere() {
        let out = rewritten(quote! {
            fn f(x: <f64 as ::revad::Adjoint>::Adj) -> ::revad::Zero { ::revad::g([::revad::h()]) }
            #[::revad::reverse(crate = ::revad)] fn k() {}
        });
        assert_eq!(out.matches("autodiff").count(), 6, "{out}");
        assert!(!out.contains("revad"), "{out}");
    }

    #[test]
    fn a_module_named_revad_inside_a_path_is_kept() {
        let out = rewritten(quote!(my::revad::f(); crate::revad::g(); Vec::<T>::revad; revad::h()));
        assert_eq!(out.matches("revad").count(), 4, "{out}");
        assert!(!out.contains("autodiff"), "{out}");
    }

    #[test]
    fn a_relative_crate_path_replaces_the_leading_colons() {
        let path = CratePath::Other(quote!(my_lib::ad));
        let out = path
            .apply(quote!(<T as ::revad::Float>::zero()))
            .to_string();
        assert_eq!(out.replace(' ', ""), "<Tasmy_lib::ad::Float>::zero()");
    }

    #[test]
    fn crate_is_split_off_the_other_arguments() {
        let (path, rest) = split_args(quote!(wrt(x), crate = "my::ad", cps)).unwrap();
        assert_eq!(rest.to_string().replace(' ', ""), "wrt(x),cps");
        assert!(matches!(path, CratePath::Other(p) if p.to_string().replace(' ', "") == "my::ad"));
        assert!(split_args(quote!(crate = 1)).is_err());
        assert!(split_args(quote!(crate = a, crate = b)).is_err());
    }
}
