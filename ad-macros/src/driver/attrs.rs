//! The sibling-attribute protocol: `#[reverse]`, `#[revad::forward]` and
//! `#[revad::derivative]` on one function expand one after the other, each seeing the others
//! among the function's attributes. The first to expand marks the others with a hidden
//! argument (who declares the marker struct `NAME`; whether forward companions are needed
//! too), and a second attribute that would generate the same items is an error at it.

use proc_macro2::TokenStream;
use quote::quote;

use crate::parse;

/// The hidden argument that `#[reverse]` and `#[revad::derivative]` add to a `#[forward]`
/// attribute of the same function: they declare the marker struct `NAME` that holds the
/// forward companion, so `#[forward]` must not.
pub(super) const MARKER_DECLARED: &str = "__ad_marker_declared";

/// Adds [`MARKER_DECLARED`] to the `#[forward]` attribute of `func`, if it has one.
pub(super) fn mark_forward(func: &mut syn::ItemFn) {
    add_first_argument(&mut func.attrs, "forward", MARKER_DECLARED);
}

/// Adds [`parse::FORWARD_TOO`] to the `#[reverse]` attribute of `func`, if it has one.
pub(super) fn mark_reverse(func: &mut syn::ItemFn) {
    add_first_argument(&mut func.attrs, "reverse", parse::FORWARD_TOO);
}

/// Adds `parse::IN_IMPL` to the `#[reverse]`, `#[forward]` and `#[revad::derivative]`
/// attributes among `attrs`, those of a method of an inherent `impl` block with
/// `#[revad::reverse]`, with `parse::IMPL_GENERICS` (`parse::in_impl_arguments`) and the block's generic parameters and
/// `where` clause (`generics`).
pub(super) fn mark_in_impl(attrs: &mut [syn::Attribute], generics: &syn::Generics) {
    let marker = parse::in_impl_arguments(generics);
    for name in ["reverse", "forward", "derivative"] {
        add_first_arguments(attrs, name, &marker);
    }
}

/// Puts `marker` first among the arguments of the attribute `name` among `attrs`, if there is
/// one.
fn add_first_argument(attrs: &mut [syn::Attribute], name: &str, marker: &str) {
    let marker = syn::Ident::new(marker, proc_macro2::Span::call_site());
    add_first_arguments(attrs, name, &quote!(#marker));
}

/// Puts the arguments `marker` first among those of the attribute `name` among `attrs`, if
/// there is one.
fn add_first_arguments(attrs: &mut [syn::Attribute], name: &str, marker: &TokenStream) {
    for attr in attrs {
        if !is_named(attr, name) {
            continue;
        }
        let path = attr.path().clone();
        let tokens = match &attr.meta {
            syn::Meta::List(list) => {
                let args = &list.tokens;
                quote!(#marker, #args)
            }
            _ => quote!(#marker),
        };
        *attr = syn::parse_quote!(#[#path(#tokens)]);
    }
}

/// The arguments without [`MARKER_DECLARED`], and whether it was there.
pub(super) fn strip_marker(args: TokenStream) -> (TokenStream, bool) {
    use syn::parse::Parser;
    let parser = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
    let Ok(metas) = parser.parse2(args.clone()) else {
        return (args, false);
    };
    let declared = metas.iter().any(|m| m.path().is_ident(MARKER_DECLARED));
    let rest = metas.iter().filter(|m| !m.path().is_ident(MARKER_DECLARED));
    (quote!(#(#rest),*), declared)
}

/// Whether `attr` is `#[name]` or `#[path::name]`.
pub(super) fn is_named(attr: &syn::Attribute, name: &str) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == name)
}

/// The attributes of this crate, which generate the same items for a function.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Attribute {
    Reverse,
    Derivative,
}

impl Attribute {
    pub(super) fn of(attr: &syn::Attribute) -> Option<Attribute> {
        let last = attr.path().segments.last()?;
        if last.ident == "reverse" {
            Some(Attribute::Reverse)
        } else if last.ident == "derivative" {
            Some(Attribute::Derivative)
        } else {
            None
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Attribute::Reverse => "#[reverse]",
            Attribute::Derivative => "#[revad::derivative]",
        }
    }
}

/// A second `#[reverse]` or `#[revad::derivative]` on the function that `first` expands: both
/// would generate the same items. The first attribute to expand sees the others among the
/// function's attributes; it reports the clash at the second one and hands the function back
/// unchanged, so the second one expands as if it were alone.
pub(super) fn second_attribute(func: &syn::ItemFn, first: Attribute) -> Option<TokenStream> {
    let (attr, second) = func
        .attrs
        .iter()
        .find_map(|attr| Some((attr, Attribute::of(attr)?)))?;
    let name = &func.sig.ident;
    let message = if first == second {
        format!("`{name}` has {} twice; remove this one", second.name())
    } else {
        format!(
            "`{name}` already has {}; a function takes either #[reverse], which differentiates \
             its body, or #[revad::derivative], which uses a hand-written pullback",
            first.name()
        )
    };
    let err = syn::Error::new_spanned(attr, message).to_compile_error();
    Some(quote!(#err #func))
}

/// Removes `#[revad::checkpoint]` from the loops of `func`'s body, once lowering has read it:
/// the function is emitted as the user wrote it but for these attributes, which stable Rust
/// rejects on an expression (the generated `NAME_vjp` checkpoints the loop).
pub(super) fn strip_checkpoints(func: &mut syn::ItemFn) {
    use syn::visit_mut::VisitMut;
    struct Strip;
    impl VisitMut for Strip {
        fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
            f.attrs.retain(|a| !is_named(a, "checkpoint"));
            syn::visit_mut::visit_expr_for_loop_mut(self, f);
        }
        fn visit_expr_while_mut(&mut self, w: &mut syn::ExprWhile) {
            w.attrs.retain(|a| !is_named(a, "checkpoint"));
            syn::visit_mut::visit_expr_while_mut(self, w);
        }
        fn visit_expr_loop_mut(&mut self, l: &mut syn::ExprLoop) {
            l.attrs.retain(|a| !is_named(a, "checkpoint"));
            syn::visit_mut::visit_expr_loop_mut(self, l);
        }
        // (Items nested in the body are not the function's: they keep their attributes.)
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    Strip.visit_block_mut(&mut func.block);
}
