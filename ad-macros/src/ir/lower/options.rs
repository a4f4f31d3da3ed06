//! An element of an array of floats as an `Option`: `xs.get(i)`, `xs.first()`, `xs.last()`
//! in `if let Some(v) = ..` and `match` (as the `if` on `i < xs.len()` they stand for), and
//! taken apart in an expression (`.copied().unwrap_or(d)`, `.unwrap()`, ...).

use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;

use super::{strip, Lowerer};
use crate::ir::{FloatTy, Ty};

/// An element of an array of floats as an `Option` (`xs.get(i)`, `xs.first()`, `xs.last()`):
/// see [`Lowerer::element_access`].
struct ElementAccess {
    array: syn::Expr,
    /// The element exists: `i < xs.len()`, `!xs.is_empty()`.
    cond: syn::Expr,
    /// It does not: `i >= xs.len()`, `xs.is_empty()` (the negation, spelt without a `!` of
    /// a `!`, which clippy's `nonminimal_bool` would report at the user's call).
    missing: syn::Expr,
    index: syn::Expr,
    /// `0` of the element's type (`0.0`, `T::ZERO`).
    zero: syn::Expr,
    span: Span,
}

/// What [`Lowerer::element_option_value`] makes of an `Option` of an element taken apart.
pub(super) enum ElementValue {
    /// The value (`.unwrap_or(d)` and its kin); `by_ref` when the user's expression is a
    /// reference (`xs.get(i).unwrap_or(&d)`).
    Value { value: syn::Expr, by_ref: bool },
    /// `.unwrap()`, `.expect("..")`: the check that panics without an element, then the
    /// element; `by_ref` when it is a reference (no `.copied()`).
    Unwrapped {
        check: syn::Expr,
        element: syn::Expr,
        by_ref: bool,
    },
}

impl ElementValue {
    /// The user's expression is a reference to the element or the default (no `.copied()`),
    /// which `*` reads.
    pub(super) fn by_ref(&self) -> bool {
        match self {
            ElementValue::Value { by_ref, .. } | ElementValue::Unwrapped { by_ref, .. } => *by_ref,
        }
    }

    /// The value as one expression (`{ check; xs[i] }` for an unwrapped element).
    pub(super) fn into_expr(self) -> syn::Expr {
        match self {
            ElementValue::Value { value, .. } => value,
            ElementValue::Unwrapped { check, element, .. } => {
                syn::parse_quote_spanned!(element.span()=> { #check #element })
            }
        }
    }
}

/// The message for an `if let` that [`Lowerer::element_option`] does not take.
pub(super) const IF_LET: &str =
    "`if let` is supported by #[reverse] on an element of an array of floats \
     (`if let Some(v) = xs.get(i)`, `xs.first()`, `xs.last()`), on an `Option` that a name \
     or an iterator over one gives (`if let Some(m) = xs.iter().max_by(..)`, `.position(..)`, \
     `.reduce(..)`, `k`), and on the variants of an enum or `Option` in a parameter, field or \
     element with `#[derive(revad::Adjoint)]` (`if let Shape::Circle(r) = s`, `if let \
     Some(b) = layer.bias`) only; test the value instead (`if i < xs.len() { .. xs[i] .. }`)";

/// The message for an element's `Option` that [`Lowerer::element_option_value`] does not take.
pub(super) const ELEMENT_OPTION: &str = "#[reverse] reads an element's `Option` (`xs.get(i)`, \
     `xs.first()`, `xs.last()`, with an index `i` without calls or indexing), after \
     `.copied()` or `.map(|v| ..)` if any, with `.unwrap()`, `.expect(\"..\")`, \
     `.unwrap_or(d)`, `.unwrap_or_default()`, `.unwrap_or_else(|| d)`, or in \
     `if let Some(v) = ..` and `match`; bind the index first (`let k = idx[j];`) or test it \
     (`if i < xs.len() { .. xs[i] .. }`)";

impl Lowerer<'_> {
    /// `if let Some(v) = xs.get(i) { A } else { B }` (or `xs.first()`, `xs.last()`, and
    /// `Some(&v)`) for an array of floats `xs`, as the `if` it stands for:
    /// `if i < xs.len() { let v = &xs[i]; A } else { B }` (`!xs.is_empty()` and `xs[0]` or
    /// `xs[xs.len() - 1]`). `xs` is a name and `i` an expression without calls, so evaluating
    /// them twice reads the same values. `None` for any other `if let`.
    pub(super) fn element_option(
        &self,
        scrutinee: &syn::Expr,
        pat: &syn::Pat,
        then: &syn::Expr,
        els: Option<&syn::Expr>,
    ) -> Option<syn::Expr> {
        let ElementAccess {
            array,
            cond,
            index,
            span,
            ..
        } = self.element_access(scrutinee)?;
        // `Some(v)`: `v` refers to the element; `Some(&v)`: `v` is a copy of it.
        let syn::Pat::TupleStruct(some) = pat else {
            return None;
        };
        if !some.path.is_ident("Some") || some.qself.is_some() || some.elems.len() != 1 {
            return None;
        }
        let bind = element_binding(&some.elems[0], &array, &index, false, span)?;
        let els = els.map(|e| quote::quote!(else #e));
        Some(syn::parse_quote_spanned! {span=>
            if #cond {
                #bind
                #then
            } #els
        })
    }

    /// `xs.get(i)`, `xs.first()` or `xs.last()` for an array of floats `xs` (a name) and an
    /// index `i` without calls: the test that the element exists and its index, each
    /// evaluated as often as needed (they read the same values each time). `None` for any
    /// other expression.
    fn element_access(&self, expr: &syn::Expr) -> Option<ElementAccess> {
        let syn::Expr::MethodCall(call) = strip(expr) else {
            return None;
        };
        let (array, method) = access_of(call);
        let elem = match self.array_var(array).map(|v| &self.vars[v].ty) {
            Some(Ty::Array(info)) => info.elem?,
            _ => return None,
        };
        if call.turbofish.is_some() {
            return None;
        }
        let span = call.method.span();
        let zero: syn::Expr = match elem {
            FloatTy::Generic(t) => {
                let t = syn::Ident::new(t, span);
                syn::parse_quote_spanned!(span=> #t::ZERO)
            }
            _ => syn::parse_quote_spanned!(span=> 0.0),
        };
        let (cond, missing, index): (syn::Expr, syn::Expr, syn::Expr) =
            match (method, call.args.len()) {
                ("first", 0) => (
                    syn::parse_quote_spanned!(span=> !#array.is_empty()),
                    syn::parse_quote_spanned!(span=> #array.is_empty()),
                    syn::parse_quote_spanned!(span=> 0),
                ),
                ("last", 0) => (
                    syn::parse_quote_spanned!(span=> !#array.is_empty()),
                    syn::parse_quote_spanned!(span=> #array.is_empty()),
                    syn::parse_quote_spanned!(span=> #array.len() - 1),
                ),
                ("get", 1) if pure_index(&call.args[0]) => {
                    let i = &call.args[0];
                    (
                        syn::parse_quote_spanned!(span=> (#i) < #array.len()),
                        syn::parse_quote_spanned!(span=> (#i) >= #array.len()),
                        syn::parse_quote_spanned!(span=> #i),
                    )
                }
                _ => return None,
            };
        Some(ElementAccess {
            array: array.clone(),
            cond,
            missing,
            index,
            zero,
            span,
        })
    }

    /// Whether `call`, a method call that [`Lowerer::element_option_value`] does not take, is
    /// one on an element's `Option` (`xs.get(..)`, `xs.first()`, `xs.last()` of an array of
    /// floats, or `.copied()`, `.cloned()` of them), which the caller reports with
    /// [`ELEMENT_OPTION`].
    pub(super) fn on_element_option(&self, call: &syn::ExprMethodCall) -> bool {
        let option = match strip(&call.receiver) {
            syn::Expr::MethodCall(c) if c.method == "copied" || c.method == "cloned" => {
                &*c.receiver
            }
            other => other,
        };
        let syn::Expr::MethodCall(access) = strip(option) else {
            return false;
        };
        let (array, method) = access_of(access);
        let floats = self
            .array_var(array)
            .is_some_and(|v| matches!(&self.vars[v].ty, Ty::Array(info) if info.elem.is_some()));
        floats
            && matches!(
                (method, access.args.len()),
                ("get", 1) | ("first", 0) | ("last", 0)
            )
    }

    /// The `Option` of an element ([`Lowerer::element_access`]) taken apart by a method, as
    /// the expressions it stands for (`None` for any other method call):
    ///
    /// ```text
    /// xs.get(i).copied().unwrap_or(d)       { let o = d; if i < xs.len() { xs[i] } else { o } }
    /// xs.first().copied().unwrap_or_default()   if !xs.is_empty() { xs[0] } else { 0.0 }
    /// xs.last().copied().unwrap_or_else(|| e)   if !xs.is_empty() { xs[xs.len() - 1] } else { e }
    /// xs.get(i).unwrap()                    the check `if !(i < xs.len()) { panic!(..) }`
    ///                                       and the element `xs[i]`
    /// ```
    ///
    /// `.cloned()` reads as `.copied()`; without either, `unwrap_or(&d)` reads `d`.
    /// `unwrap()` and `expect("..")` panic with `Option`'s message when there is no element
    /// (the one of `expect` a string literal).
    pub(super) fn element_option_value(&self, call: &syn::ExprMethodCall) -> Option<ElementValue> {
        if call.turbofish.is_some() {
            return None;
        }
        // `.map(|v| body)`: the body with `v` bound to the element.
        let (option, map) = match strip(&call.receiver) {
            syn::Expr::MethodCall(m) if m.method == "map" && m.turbofish.is_none() => {
                match m.args.first() {
                    Some(syn::Expr::Closure(c))
                        if m.args.len() == 1 && c.inputs.len() == 1 && c.capture.is_none() =>
                    {
                        (&*m.receiver, Some(c))
                    }
                    _ => return None,
                }
            }
            other => (other, None),
        };
        let (option, copied) = match strip(option) {
            syn::Expr::MethodCall(c)
                if (c.method == "copied" || c.method == "cloned")
                    && c.args.is_empty()
                    && c.turbofish.is_none() =>
            {
                (&*c.receiver, true)
            }
            other => (other, false),
        };
        let ElementAccess {
            array,
            cond,
            missing,
            index,
            zero,
            span,
        } = self.element_access(option)?;
        let mut element: syn::Expr = syn::parse_quote_spanned!(span=> #array[#index]);
        // A reference to the element or the default, unless copied or mapped.
        let mut by_ref = !copied;
        if let Some(closure) = map {
            let param = match &closure.inputs[0] {
                syn::Pat::Type(t) => &*t.pat,
                other => other,
            };
            let bind = element_binding(param, &array, &index, copied, span)?;
            let body = &closure.body;
            element = syn::parse_quote_spanned!(span=> { #bind #body });
            by_ref = false;
        }
        let args: Vec<&syn::Expr> = call.args.iter().collect();
        let value: syn::Expr = match (call.method.to_string().as_str(), &args[..]) {
            ("unwrap", []) | ("expect", [_]) => {
                let message = match args.first() {
                    None => quote!("called `Option::unwrap()` on a `None` value"),
                    Some(syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    })) => quote!("{}", #s),
                    Some(_) => return None,
                };
                let check: syn::Expr = syn::parse_quote_spanned! {span=>
                    if #missing {
                        ::core::panic!(#message);
                    }
                };
                return Some(ElementValue::Unwrapped {
                    check,
                    element,
                    by_ref,
                });
            }
            ("unwrap_or", [d]) => {
                let d = if by_ref {
                    match strip(d) {
                        syn::Expr::Reference(r) if r.mutability.is_none() => (*r.expr).clone(),
                        _ => return None,
                    }
                } else {
                    (*d).clone()
                };
                // (Evaluated first, as the argument is, unless it is a literal or a name.)
                match strip(&d) {
                    syn::Expr::Lit(_) | syn::Expr::Path(_) => {
                        syn::parse_quote_spanned!(span=> if #cond { #element } else { #d })
                    }
                    _ => syn::parse_quote_spanned! {span=> {
                        let __ad_or = #d;
                        if #cond { #element } else { __ad_or }
                    }},
                }
            }
            ("unwrap_or_default", []) if !by_ref => {
                syn::parse_quote_spanned!(span=> if #cond { #element } else { #zero })
            }
            ("unwrap_or_else", [syn::Expr::Closure(c)]) if !by_ref && c.inputs.is_empty() => {
                let e = &c.body;
                syn::parse_quote_spanned!(span=> if #cond { #element } else { #e })
            }
            _ => return None,
        };
        Some(ElementValue::Value { value, by_ref })
    }

    /// `match xs.get(i) { Some(v) => A, None => B }` (the arms in either order, `_` for
    /// `None`, no guards): the `if` of [`Lowerer::element_option`].
    pub(super) fn element_option_match(&self, m: &syn::ExprMatch) -> Option<syn::Expr> {
        let [a, b] = &m.arms.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        if a.guard.is_some() || b.guard.is_some() {
            return None;
        }
        let none = |pat: &syn::Pat| match pat {
            syn::Pat::Ident(p) => p.ident == "None" && p.subpat.is_none() && p.by_ref.is_none(),
            syn::Pat::Path(p) => p.path.is_ident("None"),
            syn::Pat::Wild(_) => true,
            _ => false,
        };
        let (some, other) = match (none(&a.pat), none(&b.pat)) {
            (false, true) => (a, b),
            (true, false) => (b, a),
            _ => return None,
        };
        let block = |body: &syn::Expr| -> syn::Expr {
            match body {
                syn::Expr::Block(b) if b.label.is_none() => body.clone(),
                _ => syn::parse_quote_spanned!(body.span()=> { #body }),
            }
        };
        let els = block(&other.body);
        self.element_option(&m.expr, &some.pat, &block(&some.body), Some(&els))
    }
}

/// The `let` that binds `pat`, the pattern of `Some(pat)` or of `.map(|pat| ..)`, to the element
/// `array[index]`: `v` refers to it (`let v = &xs[i];`), `&v` is a copy, and after `.copied()`
/// `v` is a copy; `_` binds nothing. `None` for other patterns.
fn element_binding(
    pat: &syn::Pat,
    array: &syn::Expr,
    index: &syn::Expr,
    copied: bool,
    span: Span,
) -> Option<syn::Stmt> {
    let plain = |p: &syn::PatIdent| p.by_ref.is_none() && p.subpat.is_none();
    Some(match pat {
        syn::Pat::Ident(p) if plain(p) && copied => {
            syn::parse_quote_spanned!(span=> let #p = #array[#index];)
        }
        syn::Pat::Ident(p) if plain(p) && p.mutability.is_none() => {
            syn::parse_quote_spanned!(span=> let #p = &#array[#index];)
        }
        syn::Pat::Reference(r) if r.mutability.is_none() && !copied => match &*r.pat {
            syn::Pat::Ident(p) if plain(p) => {
                syn::parse_quote_spanned!(span=> let #p = #array[#index];)
            }
            _ => return None,
        },
        syn::Pat::Wild(_) => syn::parse_quote_spanned!(span=> let _ = ();),
        _ => return None,
    })
}

/// An index that reads the same value each time it is evaluated: names, literals, fields, and
/// arithmetic, casts and parentheses of them (no calls, no indexing, no blocks).
fn pure_index(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(p) => p.qself.is_none(),
        syn::Expr::Lit(_) => true,
        syn::Expr::Field(f) => pure_index(&f.base),
        syn::Expr::Paren(p) => pure_index(&p.expr),
        syn::Expr::Cast(c) => pure_index(&c.expr),
        syn::Expr::Binary(b) => {
            !matches!(
                b.op,
                syn::BinOp::AddAssign(_)
                    | syn::BinOp::SubAssign(_)
                    | syn::BinOp::MulAssign(_)
                    | syn::BinOp::DivAssign(_)
                    | syn::BinOp::RemAssign(_)
                    | syn::BinOp::BitXorAssign(_)
                    | syn::BinOp::BitAndAssign(_)
                    | syn::BinOp::BitOrAssign(_)
                    | syn::BinOp::ShlAssign(_)
                    | syn::BinOp::ShrAssign(_)
            ) && pure_index(&b.left)
                && pure_index(&b.right)
        }
        _ => false,
    }
}

/// The array and the access of `call`, an element's `Option`: `xs.get(i)`, `xs.first()` and
/// `xs.last()` as written, and the same of the iterator `xs.iter()`: `.nth(i)` (`get`),
/// `.next()` (`first`), `.last()`.
fn access_of(call: &syn::ExprMethodCall) -> (&syn::Expr, &'static str) {
    let method = call.method.to_string();
    if let syn::Expr::MethodCall(iter) = strip(&call.receiver) {
        if iter.method == "iter" && iter.args.is_empty() {
            let method = match method.as_str() {
                "nth" => "get",
                "next" => "first",
                "last" => "last",
                _ => "",
            };
            return (strip(&iter.receiver), method);
        }
    }
    let method = match method.as_str() {
        "get" => "get",
        "first" => "first",
        "last" => "last",
        _ => "",
    };
    (strip(&call.receiver), method)
}
