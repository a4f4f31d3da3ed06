//! Rewrites of the user's syntax into forms the rest of the lowering takes, before any of it
//! is lowered (they read no lowering state): `let .. else` of a pure value, arrays by
//! `std::array::from_fn`, reference patterns around tuples, `for` loops over iterator chains
//! with closures.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::spanned::Spanned;

/// Methods whose chain from a name makes the same `Option` each time it is evaluated (a
/// `let .. else` evaluates its value twice: see `let_else`).
const PURE_OPTION_METHODS: &[&str] = &[
    "get",
    "first",
    "last",
    "copied",
    "cloned",
    "iter",
    "reduce",
    "max_by",
    "min_by",
    "max_by_key",
    "min_by_key",
    "position",
    "find",
    "checked_sub",
    "checked_add",
];

/// `let Some(m) = xs.get(i) else { return 0.0; };` (also `Some(&m)`, `Some(mut m)`) of a
/// value that is the same each time it is evaluated (a chain of [`PURE_OPTION_METHODS`] from
/// a name, or a name): `if xs.get(i).is_none() { return 0.0; }` then
/// `let m = xs.get(i).unwrap();` (`.copied()` for `&m`), which the `else` block's jump
/// guards. `None` for another `let`.
pub(super) fn let_else(local: &syn::Local) -> Option<[syn::Stmt; 2]> {
    let init = local.init.as_ref()?;
    let (_, diverge) = init.diverge.as_ref()?;
    let syn::Expr::Block(block) = &**diverge else {
        return None;
    };
    let syn::Pat::TupleStruct(some) = &local.pat else {
        return None;
    };
    if some.qself.is_some() || !some.path.is_ident("Some") || some.elems.len() != 1 {
        return None;
    }
    let plain = |p: &syn::PatIdent| p.by_ref.is_none() && p.subpat.is_none();
    let (name, copied) = match &some.elems[0] {
        syn::Pat::Ident(p) if plain(p) => (p, false),
        syn::Pat::Reference(r) if r.mutability.is_none() => match &*r.pat {
            syn::Pat::Ident(p) if plain(p) => (p, true),
            _ => return None,
        },
        _ => return None,
    };
    fn pure(expr: &syn::Expr) -> bool {
        match expr {
            syn::Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
            syn::Expr::Field(f) => pure(&f.base),
            syn::Expr::MethodCall(m) => {
                PURE_OPTION_METHODS.contains(&m.method.to_string().as_str())
                    && pure(&m.receiver)
                    && m.args.iter().all(|a| writes_nothing(a.to_token_stream()))
            }
            _ => false,
        }
    }
    // (An argument, a closure `|a, b| a.total_cmp(b)` say, that assigns, borrows mutably or
    // calls a macro may do something the second evaluation would do again.)
    fn writes_nothing(tokens: TokenStream) -> bool {
        let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
        tokens.iter().enumerate().all(|(k, t)| match t {
            proc_macro2::TokenTree::Ident(i) => i != "mut" && i != "unsafe",
            proc_macro2::TokenTree::Punct(p) if p.as_char() == '=' => {
                let before = k.checked_sub(1).and_then(|j| match &tokens[j] {
                    proc_macro2::TokenTree::Punct(q)
                        if q.spacing() == proc_macro2::Spacing::Joint =>
                    {
                        Some(q.as_char())
                    }
                    _ => None,
                });
                let after = match tokens.get(k + 1) {
                    Some(proc_macro2::TokenTree::Punct(q)) => Some(q.as_char()),
                    _ => None,
                };
                // (`==`, `!=`, `<=`, `>=`, `=>` compare or match; `=`, `+=`, .. assign.)
                matches!(before, Some('=' | '!' | '<' | '>'))
                    || (p.spacing() == proc_macro2::Spacing::Joint
                        && matches!(after, Some('=' | '>')))
            }
            proc_macro2::TokenTree::Punct(p) if p.as_char() == '!' => {
                !matches!(tokens.get(k + 1), Some(proc_macro2::TokenTree::Group(_)))
            }
            proc_macro2::TokenTree::Group(g) => writes_nothing(g.stream()),
            _ => true,
        })
    }
    let expr = &*init.expr;
    if !pure(expr) {
        return None;
    }
    let span = expr.span();
    let value: syn::Expr = match copied {
        true => syn::parse_quote_spanned!(span=> #expr.copied().unwrap()),
        false => syn::parse_quote_spanned!(span=> #expr.unwrap()),
    };
    let test: syn::Stmt =
        syn::parse_quote_spanned!(span=> if ::revad::__private::is_none(&#expr) #block);
    let attrs = &local.attrs;
    let bind: syn::Stmt = syn::parse_quote_spanned!(span=> #(#attrs)* let #name = #value;);
    Some([test, bind])
}

/// `std::array::from_fn(|i| body)` (also `array::from_fn`, `core::array::from_fn`) for a
/// `let` of the type `[T; N]`, `N` a literal: the array literal whose item `k` is
/// `{ let i = k; body }`, the closure's value at `k`, in order. `None` for another value.
pub(super) fn array_from_fn(ty: &syn::Type, init: &syn::Expr) -> Option<syn::Expr> {
    let syn::Type::Array(array) = ty else {
        return None;
    };
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(n),
        ..
    }) = &array.len
    else {
        return None;
    };
    let n: usize = n.base10_parse().ok()?;
    let syn::Expr::Call(call) = super::strip(init) else {
        return None;
    };
    let syn::Expr::Path(path) = super::strip(&call.func) else {
        return None;
    };
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let from_fn = matches!(
        names
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["std" | "core", "array", "from_fn"] | ["array", "from_fn"]
    );
    if !from_fn || path.qself.is_some() || call.args.len() != 1 || n > 64 {
        return None;
    }
    let syn::Expr::Closure(closure) = super::strip(&call.args[0]) else {
        return None;
    };
    let [param] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let body = &closure.body;
    // (A `return` or `?` in the closure's body leaves the closure, not the function.)
    fn leaves(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "return",
            proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
            proc_macro2::TokenTree::Group(g) => leaves(g.stream()),
            proc_macro2::TokenTree::Literal(_) => false,
        })
    }
    if leaves(body.to_token_stream()) {
        return None;
    }
    let items = (0..n).map(|k| {
        let k = syn::LitInt::new(&format!("{k}usize"), body.span());
        quote::quote_spanned!(body.span()=> { let #param = #k; #body })
    });
    Some(syn::parse_quote_spanned!(init.span()=> [#(#items),*]))
}

/// Replaces each `&(x, y)` (a reference pattern around a tuple, struct or slice pattern) in
/// `pat`, at its top or in a top-level tuple (`(i, &(x, y))` of `.enumerate()`), by a name of
/// its own, and returns `let (x, y) = *name;` for each: the same bindings, by copy, as the
/// reference pattern makes of a `Copy` value.
pub(super) fn destructured_refs(pat: &mut syn::Pat) -> Vec<syn::Stmt> {
    fn replace(pat: &mut syn::Pat, k: usize, lets: &mut Vec<syn::Stmt>) {
        let syn::Pat::Reference(r) = &*pat else {
            return;
        };
        if r.mutability.is_some()
            || !matches!(
                &*r.pat,
                syn::Pat::Tuple(_)
                    | syn::Pat::TupleStruct(_)
                    | syn::Pat::Struct(_)
                    | syn::Pat::Slice(_)
            )
        {
            return;
        }
        let span = r.and_token.span;
        let name = syn::Ident::new(&format!("__revad_item{k}"), span);
        let inner = &r.pat;
        lets.push(syn::parse_quote_spanned!(span=> let #inner = *#name;));
        *pat = syn::parse_quote_spanned!(span=> #name);
    }
    let mut lets = Vec::new();
    match pat {
        syn::Pat::Tuple(t) => {
            for (k, item) in t.elems.iter_mut().enumerate() {
                replace(item, k, &mut lets);
            }
        }
        pat => replace(pat, 0, &mut lets),
    }
    lets
}

/// The adaptors that a `for` loop's sequence cannot have but an iterator chain can: they take
/// closures.
const CHAIN_ADAPTORS: &[&str] = &["filter", "map", "filter_map", "flat_map"];

/// `for PAT in CHAIN { BODY }` whose chain has an adaptor of [`CHAIN_ADAPTORS`] (`for v in
/// xs.iter().filter(|v| **v > 0.0)`): `CHAIN.for_each(|PAT| BODY);`, which the iterator
/// chains lower (the closure runs on each item in order, as the body would). Only for a loop
/// without a label or attribute (the caller checks that the body does not `break`,
/// `continue` or `return`); `None` otherwise.
pub(super) fn chain_loop(f: &syn::ExprForLoop) -> Option<syn::Expr> {
    if f.label.is_some() || !f.attrs.is_empty() || !has_chain_adaptor(&f.expr) {
        return None;
    }
    let (pat, expr, body) = (&f.pat, &f.expr, &f.body);
    Some(syn::parse_quote_spanned!(f.for_token.span=> (#expr).for_each(|#pat| #body)))
}

/// Whether the method chain `expr` has one of [`CHAIN_ADAPTORS`].
pub(super) fn has_chain_adaptor(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::MethodCall(m) => {
            (m.args.len() == 1 && CHAIN_ADAPTORS.iter().any(|a| m.method == a))
                || has_chain_adaptor(&m.receiver)
        }
        syn::Expr::Paren(p) => has_chain_adaptor(&p.expr),
        syn::Expr::Group(g) => has_chain_adaptor(&g.expr),
        _ => false,
    }
}
