//! Tokens every backend writes alike: the names of generated values (`__ad_c3`, the adjoint
//! cell of variable 3 under CPS, which the tape's companions also pass; `__stack`; the
//! companions of methods), the constants of a float type (`0.0`, `<T as ::revad::Float>::ZERO`),
//! and spans (generated tokens placed at the user's construct). A leaf of `codegen`: it
//! imports nothing of it, so every backend and the common layer can use it.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

use crate::ir::{AssignOp, FloatTy, VarId};

/// The adjoint cell of `v` (a `&NumR`, or for an array the array of its elements' cells).
pub(crate) fn cell_of(v: VarId) -> syn::Ident {
    format_ident!("__ad_c{}", v, span = Span::mixed_site())
}

/// A zero whose type rustc infers from its use: `0.0` for a primitive (an adjoint reset,
/// `__adj_x = 0.0;`), `<T as ::revad::Float>::ZERO` for a type parameter, which has no literals.
pub(crate) fn zero_untyped(t: FloatTy) -> TokenStream {
    match t {
        FloatTy::Generic(_) => constant(t, "ZERO"),
        FloatTy::F32 | FloatTy::F64 => quote!(0.0),
    }
}

/// `<T as ::revad::Float>::NAME` for the type parameter `t`.
pub(crate) fn constant(t: FloatTy, name: &str) -> TokenStream {
    let t = t.qualifier();
    let name = syn::Ident::new(name, Span::call_site());
    quote!(#t::#name)
}

/// The literal `1.0_f64` (or `_f32`, or `<T as ::revad::Float>::ONE`): the seed of `NAME_grad`.
pub(crate) fn one(t: FloatTy) -> TokenStream {
    let lit = match t {
        FloatTy::F64 => "1.0_f64",
        FloatTy::F32 => "1.0_f32",
        FloatTy::Generic(_) => return constant(t, "ONE"),
    };
    syn::LitFloat::new(lit, Span::call_site()).into_token_stream()
}

/// `expr` with its unsuffixed float literals suffixed with `t` (`[[0.0; 2]; 2]` becomes
/// `[[0.0_f64; 2]; 2]`), so that a value typed like it has a known element type; a type
/// parameter, which has no literals, leaves `expr` as it is.
pub(crate) fn typed_float_literals(expr: &TokenStream, t: FloatTy) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    let suffix = match t {
        FloatTy::F64 => "f64",
        FloatTy::F32 => "f32",
        FloatTy::Generic(_) => return expr.clone(),
    };
    expr.clone()
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), typed_float_literals(&g.stream(), t));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            TokenTree::Literal(l) => match syn::Lit::new(l.clone()) {
                syn::Lit::Float(f) if f.suffix().is_empty() => {
                    let lit = format!("{}_{suffix}", f.base10_digits());
                    TokenTree::Literal(syn::LitFloat::new(&lit, l.span()).token())
                }
                _ => TokenTree::Literal(l),
            },
            other => other,
        })
        .collect()
}

/// `__stack`, a `&mut ValueStack` in every generated function.
pub(crate) fn stack() -> syn::Ident {
    crate::ir::names::generated("stack")
}

/// The literal `0.0_f64` (or `_f32`, or `<T as ::revad::Float>::ZERO`).
pub(crate) fn zero(t: FloatTy) -> TokenStream {
    let lit = match t {
        FloatTy::F64 => "0.0_f64",
        FloatTy::F32 => "0.0_f32",
        FloatTy::Generic(_) => return constant(t, "ZERO"),
    };
    syn::LitFloat::new(lit, Span::call_site()).into_token_stream()
}

/// The name of a method's or associated function's companion `which` (`fwd`, `rev`, `cps`):
/// `__ad_fwd_energy`.
pub(crate) fn companion_ident(name: &syn::Ident, which: &str) -> syn::Ident {
    format_ident!("__ad_{}_{}", which, name, span = name.span())
}

/// Where the function's return type is written (its name when it has none).
pub(crate) fn return_span(func: &syn::ItemFn) -> Span {
    match &func.sig.output {
        syn::ReturnType::Type(_, ty) => syn::spanned::Spanned::span(&**ty),
        syn::ReturnType::Default => func.sig.ident.span(),
    }
}

/// Whether `lit` is a literal of the user's source, at its own span. [`at_user`] and
/// [`respan`] leave such a literal where it is: lints that read a literal's source text
/// (clippy's `zero_prefixed_literal`, `excessive_precision`) would otherwise read another
/// token's (the `0` of `0..=2` for the `2`).
fn written_by_user(lit: &proc_macro2::Literal) -> bool {
    lit.span().source_text() == Some(lit.to_string())
}

/// `tokens` at `span`, the span of the user's tokens, punctuation and brackets included (they
/// resolve nothing), identifiers only located there (they keep their resolution): a type error
/// in them is then reported like one in the user's tokens, and once with it.
pub(crate) fn at_user(tokens: TokenStream, span: Span) -> TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) if group.delimiter() == proc_macro2::Delimiter::None => {
                TokenTree::Group(group)
            }
            TokenTree::Group(group) => {
                let mut new =
                    proc_macro2::Group::new(group.delimiter(), at_user(group.stream(), span));
                new.set_span(span);
                TokenTree::Group(new)
            }
            TokenTree::Punct(mut punct) => {
                punct.set_span(span);
                TokenTree::Punct(punct)
            }
            TokenTree::Literal(lit) if written_by_user(&lit) => TokenTree::Literal(lit),
            TokenTree::Literal(mut lit) => {
                lit.set_span(span);
                TokenTree::Literal(lit)
            }
            TokenTree::Ident(mut ident) => {
                ident.set_span(ident.span().located_at(span));
                TokenTree::Ident(ident)
            }
        })
        .collect()
}

/// The user's `tokens` in an invisible group, which [`respan`] does not move.
pub(crate) fn user_tokens(tokens: TokenStream) -> TokenStream {
    let group = proc_macro2::Group::new(proc_macro2::Delimiter::None, tokens);
    proc_macro2::TokenTree::Group(group).into()
}

/// `tokens` placed at `span`: each token keeps its name resolution (identifiers keep their
/// hygiene) and takes the location. The user's tokens in an invisible group (a constant as
/// written, see [`user_tokens`], or a `macro_rules!` fragment) and the user's literals keep
/// their own location.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) if group.delimiter() == proc_macro2::Delimiter::None => {
                TokenTree::Group(group)
            }
            TokenTree::Group(group) => {
                let stream = respan(group.stream(), span);
                let mut new = proc_macro2::Group::new(group.delimiter(), stream);
                new.set_span(group.span().located_at(span));
                TokenTree::Group(new)
            }
            TokenTree::Punct(mut punct) => {
                punct.set_span(punct.span().located_at(span));
                TokenTree::Punct(punct)
            }
            TokenTree::Literal(lit) if written_by_user(&lit) => TokenTree::Literal(lit),
            TokenTree::Literal(mut lit) => {
                lit.set_span(lit.span().located_at(span));
                TokenTree::Literal(lit)
            }
            TokenTree::Ident(mut ident) => {
                ident.set_span(ident.span().located_at(span));
                TokenTree::Ident(ident)
            }
        })
        .collect()
}

/// The token of an assignment: `=`, `+=` or `-=`, at the user's.
pub(crate) fn assign_token(op: AssignOp, span: Span) -> TokenStream {
    match op {
        AssignOp::Set => quote_spanned!(span=> =),
        AssignOp::Add => quote_spanned!(span=> +=),
        AssignOp::Sub => quote_spanned!(span=> -=),
    }
}

/// Whether `tokens` contain the identifier `name`, in groups too.
/// Whether every mention of the identifier `name` in `tokens` is `name.len()`.
pub(crate) fn mentions_only_len(tokens: TokenStream, name: &str) -> bool {
    let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().all(|(k, t)| match t {
        proc_macro2::TokenTree::Ident(i) if i == name => matches!(
            &tokens[k + 1..],
            [proc_macro2::TokenTree::Punct(dot), proc_macro2::TokenTree::Ident(len), proc_macro2::TokenTree::Group(args), ..]
                if dot.as_char() == '.'
                    && len == "len"
                    && args.delimiter() == proc_macro2::Delimiter::Parenthesis
                    && args.stream().is_empty()
        ),
        proc_macro2::TokenTree::Group(g) => mentions_only_len(g.stream(), name),
        _ => true,
    })
}

pub(crate) fn mentions_ident(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions_ident(g.stream(), name),
        _ => false,
    })
}
