//! Rewrites of the user's syntax into forms the rest of the lowering takes, before any of it
//! is lowered (they read no lowering state): `let .. else` of a pure value, arrays by
//! `std::array::from_fn`, reference patterns around tuples, `for` loops over iterator chains
//! with closures.

use proc_macro2::{Span, TokenStream};
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
    let expr = &*init.expr;
    let (name, value) = some_binding(&local.pat, expr)?;
    let span = expr.span();
    let test: syn::Stmt =
        syn::parse_quote_spanned!(span=> if ::revad::__private::is_none(&#expr) #block);
    let attrs = &local.attrs;
    let bind: syn::Stmt = syn::parse_quote_spanned!(span=> #(#attrs)* let #name = #value;);
    Some([test, bind])
}

/// The statements of a function body whose result is `std::array::from_fn(|i| ..)` (of the
/// function's array type: the array literal `[{ let i = 0usize; .. }, ..]`, see
/// [`array_from_fn`]) or a 2-D array literal (`[[c, -s], [s, c]]`: bound by a `let` first,
/// which builds it, then returned). `None` for another body.
pub(super) fn array_result(
    block: &syn::Block,
    ret: &crate::parse::RetTy,
) -> Option<Vec<syn::Stmt>> {
    let (syn::Stmt::Expr(tail, None), init) = block.stmts.split_last()? else {
        return None;
    };
    let mut stmts = init.to_vec();
    let span = tail.span();
    if let crate::parse::RetTy::Array { elem, len } = ret {
        let elem = elem.ident();
        let ty: syn::Type = syn::parse_quote!([#elem; #len]);
        if let Some(items) = array_from_fn(&ty, tail) {
            stmts.push(syn::Stmt::Expr(items, None));
            return Some(stmts);
        }
    }
    let syn::Expr::Array(rows) = super::strip(tail) else {
        return None;
    };
    let nested = !rows.elems.is_empty()
        && rows
            .elems
            .iter()
            .all(|r| matches!(super::strip(r), syn::Expr::Array(_)));
    if !nested {
        return None;
    }
    let out = syn::Ident::new("__ad_out", proc_macro2::Span::mixed_site().located_at(span));
    stmts.push(syn::parse_quote_spanned!(span=> let #out = #tail;));
    stmts.push(syn::Stmt::Expr(
        syn::parse_quote_spanned!(span=> #out),
        None,
    ));
    Some(stmts)
}

/// `v.sort_by(cmp);`, `v.sort_unstable_by(cmp);` and `v.reverse();` of a sequence bound to
/// a name, as the gather of a permutation, whose adjoint scatters back:
///
/// ```text
/// // Before                 // After
/// v.sort_by(cmp);           { let perm = ::revad::__private::sort_permutation(&v, cmp, true);
///                             let old = v.to_vec();
///                             for k in 0..perm.len() { v[k] = old[perm[k]]; } }
/// ```
///
/// (The permutation is computed from the values by the same sort, and has no derivative.)
/// `None` for another statement.
pub(super) fn reordered_in_place(stmt: &syn::Stmt) -> Option<syn::Stmt> {
    let syn::Stmt::Expr(expr, Some(_)) = stmt else {
        return None;
    };
    let syn::Expr::MethodCall(call) = super::strip(expr) else {
        return None;
    };
    let v = match super::strip(&call.receiver) {
        syn::Expr::Path(p) if p.path.get_ident().is_some() => &call.receiver,
        _ => return None,
    };
    let span = call.method.span();
    let hidden =
        |name: &str| syn::Ident::new(name, proc_macro2::Span::mixed_site().located_at(span));
    let (perm, old, k, n) = (
        hidden("__ad_perm"),
        hidden("__ad_old"),
        hidden("__ad_slot"),
        hidden("__ad_len"),
    );
    let stable = match (call.method.to_string().as_str(), call.args.len()) {
        ("reverse", 0) => {
            return Some(syn::parse_quote_spanned! {span=>
                {
                    let #old = #v.to_vec();
                    let #n: usize = #old.len();
                    for #k in 0..#n {
                        #v[#k] = #old[#n - 1 - #k];
                    }
                }
            });
        }
        ("sort_by", 1) => true,
        ("sort_unstable_by", 1) => false,
        _ => return None,
    };
    let cmp = &call.args[0];
    Some(syn::parse_quote_spanned! {span=>
        {
            let #perm = ::revad::__private::sort_permutation(&#v, #cmp, #stable);
            let #old = #v.to_vec();
            for #k in 0..#perm.len() {
                #v[#k] = #old[#perm[#k]];
            }
        }
    })
}

/// `while let Some(v) = stack.pop() { .. }` (also `Some(mut v)`, `Some(&v)`-free) of a
/// sequence bound to a name: `while !stack.is_empty() { let v = stack.pop().unwrap(); .. }`,
/// the same iterations. `None` for another loop.
pub(super) fn while_pop(w: &syn::ExprWhile) -> Option<syn::Expr> {
    let syn::Expr::Let(l) = &*w.cond else {
        return None;
    };
    let syn::Pat::TupleStruct(some) = &*l.pat else {
        return None;
    };
    let [pat] = some.elems.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if !some.path.is_ident("Some")
        || !matches!(pat, syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none())
    {
        return None;
    }
    let syn::Expr::MethodCall(pop) = super::strip(&l.expr) else {
        return None;
    };
    let v = &pop.receiver;
    if pop.method != "pop"
        || !pop.args.is_empty()
        || !matches!(super::strip(v), syn::Expr::Path(p) if p.path.get_ident().is_some())
    {
        return None;
    }
    let (label, attrs, stmts) = (&w.label, &w.attrs, &w.body.stmts);
    let span = l.let_token.span;
    Some(syn::parse_quote_spanned! {span=>
        #(#attrs)*
        #label while !#v.is_empty() {
            let #pat = #v.pop().unwrap();
            #(#stmts)*
        }
    })
}

/// `xs.iter().find(p).copied().unwrap_or(d)` (also `.cloned()`, `.unwrap()`, `.expect(..)`,
/// of a sequence bound to a name: the element at the position of the
/// first item `p` takes, an index computed as written:
///
/// ```text
/// // Before                                   // After
/// xs.iter().find(|&&v| v > 1.0)               { let i = find_position(xs.iter(), |&&v| v > 1.0);
///     .copied().unwrap_or(0.0)                  if is_none(&i) { 0.0 } else { xs[i.unwrap()] } }
/// ```
///
/// `None` for another call.
pub(super) fn found_element(call: &syn::ExprMethodCall) -> Option<syn::Expr> {
    let default = match (call.method.to_string().as_str(), call.args.len()) {
        ("unwrap_or", 1) => Some(call.args[0].clone()),
        ("unwrap" | "expect", _) => None,
        _ => return None,
    };
    let syn::Expr::MethodCall(copied) = super::strip(&call.receiver) else {
        return None;
    };
    if !(copied.method == "copied" || copied.method == "cloned") || !copied.args.is_empty() {
        return None;
    }
    let syn::Expr::MethodCall(find) = super::strip(&copied.receiver) else {
        return None;
    };
    let syn::Expr::MethodCall(iter) = super::strip(&find.receiver) else {
        return None;
    };
    let xs = &iter.receiver;
    let named = matches!(super::strip(xs), syn::Expr::Path(p) if p.path.get_ident().is_some());
    if find.method != "find" || find.args.len() != 1 || iter.method != "iter" || !named {
        return None;
    }
    let span = find.method.span();
    let hidden =
        |name: &str| syn::Ident::new(name, proc_macro2::Span::mixed_site().located_at(span));
    let (found, p) = (hidden("__ad_found"), &find.args[0]);
    let (method, args) = (&call.method, &call.args);
    let element: syn::Expr = match default {
        // (`unwrap` of `None` panics as the user's call does.)
        None => syn::parse_quote_spanned!(span=> #xs[#found.#method(#args)]),
        Some(default) => syn::parse_quote_spanned! {span=>
            if ::revad::__private::is_none(&#found) {
                #default
            } else {
                #xs[#found.unwrap()]
            }
        },
    };
    Some(syn::parse_quote_spanned! {span=>
        {
            let #found: ::core::option::Option<usize> =
                ::revad::__private::find_position(#xs.iter(), #p);
            #element
        }
    })
}

/// A call that lends parts of a container or a struct mutably (`relax(&mut v[i], dt);`,
/// `let e = step(&mut s.x, h);`), as a statement or the value of a `let`: each part copied into
/// a local lent in its place, then written back, in the order Rust evaluates them:
///
/// ```text
/// // Before                       // After
/// relax(&mut v[i], dt);           { let mut p0 = v[i]; relax(&mut p0, dt); v[i] = p0; }
/// ```
///
/// (A part whose indices are names, literals or arithmetic of them, read and written at the
/// same place.) `None` for another statement.
pub(super) fn lent_parts(stmt: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
    fn pure_place(e: &syn::Expr) -> bool {
        match super::strip(e) {
            syn::Expr::Path(p) => p.path.get_ident().is_some(),
            syn::Expr::Field(f) => pure_place(&f.base),
            syn::Expr::Index(i) => pure_place(&i.expr) && pure_index(&i.index),
            _ => false,
        }
    }
    fn pure_index(e: &syn::Expr) -> bool {
        match super::strip(e) {
            syn::Expr::Path(p) => p.path.get_ident().is_some(),
            syn::Expr::Lit(_) => true,
            syn::Expr::Binary(b) => pure_index(&b.left) && pure_index(&b.right),
            _ => false,
        }
    }
    let part = |arg: &syn::Expr| match super::strip(arg) {
        syn::Expr::Reference(r)
            if r.mutability.is_some()
                && matches!(
                    super::strip(&r.expr),
                    syn::Expr::Index(_) | syn::Expr::Field(_)
                )
                && pure_place(&r.expr) =>
        {
            Some((*r.expr).clone())
        }
        _ => None,
    };
    let (call, local) = match stmt {
        syn::Stmt::Expr(e, Some(_)) => (e, None),
        syn::Stmt::Local(l) if l.init.as_ref().is_some_and(|i| i.diverge.is_none()) => {
            (&*l.init.as_ref()?.expr, Some(l))
        }
        _ => return None,
    };
    let mut call = super::strip(call).clone();
    let args = match &mut call {
        syn::Expr::Call(c) => &mut c.args,
        syn::Expr::MethodCall(m) => &mut m.args,
        _ => return None,
    };
    let mut lets: Vec<syn::Stmt> = Vec::new();
    let mut backs: Vec<syn::Stmt> = Vec::new();
    for (k, arg) in args.iter_mut().enumerate() {
        let Some(place) = part(arg) else {
            continue;
        };
        let span = arg.span();
        let lent = syn::Ident::new(
            &format!("__ad_borrowed{k}"),
            proc_macro2::Span::mixed_site().located_at(span),
        );
        lets.push(syn::parse_quote_spanned!(span=> let mut #lent = #place;));
        backs.push(syn::parse_quote_spanned!(span=> #place = #lent;));
        *arg = syn::parse_quote_spanned!(span=> &mut #lent);
    }
    if lets.is_empty() {
        return None;
    }
    let span = call.span();
    Some(match local {
        None => {
            let mut stmts = lets;
            stmts.push(syn::Stmt::Expr(call, Some(Default::default())));
            stmts.extend(backs);
            vec![syn::parse_quote_spanned!(span=> { #(#stmts)* })]
        }
        Some(l) => {
            let result = syn::Ident::new(
                "__ad_borrowed_result",
                proc_macro2::Span::mixed_site().located_at(span),
            );
            let (attrs, pat) = (&l.attrs, &l.pat);
            let mut stmts = lets;
            stmts.push(syn::parse_quote_spanned!(span=> let #result = #call;));
            stmts.extend(backs);
            stmts.push(syn::parse_quote_spanned!(span=> #(#attrs)* let #pat = #result;));
            stmts
        }
    })
}

/// `for (p, q) in xs.iter().zip(ys.iter().cycle().skip(k)) { .. }` (also without `.skip`, and
/// a sum, product or fold of the same zip, which runs as this loop): each item of `xs` with
/// the one `k` places on in `ys`, wrapping around, as the edges of a closed polygon:
///
/// ```text
/// // Before                                      // After
/// for (p, q) in xs.iter()                        for i in 0..min(xs.len(), ys.len() * xs.len()) {
///     .zip(ys.iter().cycle().skip(1)) { .. }         let p = &xs[i];
///                                                    let q = &ys[(i + 1) % ys.len()];
///                                                    ..
///                                                }
/// ```
///
/// (A `&p` pattern binds the element itself.) `None` for another loop.
pub(super) fn cyclic_zip_loop(f: &syn::ExprForLoop) -> Option<syn::Expr> {
    let syn::Pat::Tuple(pair) = &*f.pat else {
        return None;
    };
    let [left, right] = pair.elems.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let syn::Expr::MethodCall(zip) = super::strip(&f.expr) else {
        return None;
    };
    let named_iter = |e: &syn::Expr| -> Option<syn::Expr> {
        match super::strip(e) {
            syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => {
                matches!(super::strip(&m.receiver), syn::Expr::Path(p) if p.path.get_ident().is_some())
                    .then(|| (*m.receiver).clone())
            }
            _ => None,
        }
    };
    if zip.method != "zip" || zip.args.len() != 1 {
        return None;
    }
    let xs = named_iter(&zip.receiver)?;
    let (cycle, shift): (&syn::Expr, syn::Expr) = match super::strip(&zip.args[0]) {
        syn::Expr::MethodCall(m) if m.method == "skip" && m.args.len() == 1 => {
            let k = &m.args[0];
            let plain = matches!(super::strip(k), syn::Expr::Lit(_))
                || matches!(super::strip(k), syn::Expr::Path(p) if p.path.get_ident().is_some());
            if !plain {
                return None;
            }
            (&m.receiver, k.clone())
        }
        other => (other, syn::parse_quote!(0)),
    };
    let syn::Expr::MethodCall(cycle) = super::strip(cycle) else {
        return None;
    };
    if cycle.method != "cycle" || !cycle.args.is_empty() {
        return None;
    }
    let ys = named_iter(&cycle.receiver)?;
    let span = zip.method.span();
    let i = syn::Ident::new(
        "__ad_edge",
        proc_macro2::Span::mixed_site().located_at(span),
    );
    let bind = |pat: &syn::Pat, element: syn::Expr| -> Option<syn::Stmt> {
        Some(match pat {
            syn::Pat::Reference(r) if r.mutability.is_none() => {
                let inner = &r.pat;
                syn::parse_quote_spanned!(span=> let #inner = #element;)
            }
            syn::Pat::Ident(_) | syn::Pat::Wild(_) => {
                syn::parse_quote_spanned!(span=> let #pat = &#element;)
            }
            _ => return None,
        })
    };
    let first = bind(left, syn::parse_quote_spanned!(span=> #xs[#i]))?;
    let second = bind(
        right,
        syn::parse_quote_spanned!(span=> #ys[(#i + #shift) % #ys.len()]),
    )?;
    let (label, attrs, stmts) = (&f.label, &f.attrs, &f.body.stmts);
    Some(syn::parse_quote_spanned! {span=>
        #(#attrs)*
        #label for #i in 0..::core::cmp::min(#xs.len(), #ys.len() * #xs.len()) {
            #first
            #second
            #(#stmts)*
        }
    })
}

/// Whether `path` is one of the runtime's functions of positions, `sort_permutation` (see
/// [`reordered_in_place`]) or `find_position` ([`found_element`]): integers.
pub(super) fn is_sort_permutation(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    path.leading_colon.is_some()
        && matches!(
            names[..],
            ["revad", "__private", "sort_permutation" | "find_position"]
        )
}

/// The sequence `xs` of `xs.iter().enumerate().max_by(cmp)` (also `min_by`, `max_by_key`,
/// `min_by_key`, and `.copied()` or `.cloned()` before `enumerate`), with whether its items
/// are copied: an `Option` of an index and an item, whose index has no derivative.
pub(super) fn enumerated_pick(expr: &syn::Expr) -> Option<(&syn::Expr, bool)> {
    let syn::Expr::MethodCall(pick) = super::strip(expr) else {
        return None;
    };
    let picks = ["max_by", "min_by", "max_by_key", "min_by_key"];
    if !picks.iter().any(|p| pick.method == p) || pick.args.len() != 1 {
        return None;
    }
    let syn::Expr::MethodCall(enumerate) = super::strip(&pick.receiver) else {
        return None;
    };
    if enumerate.method != "enumerate" || !enumerate.args.is_empty() {
        return None;
    }
    let (iter, copied) = match super::strip(&enumerate.receiver) {
        syn::Expr::MethodCall(c) if c.method == "copied" || c.method == "cloned" => {
            (super::strip(&c.receiver), true)
        }
        other => (other, false),
    };
    match iter {
        syn::Expr::MethodCall(iter) if iter.method == "iter" && iter.args.is_empty() => {
            matches!(super::strip(&iter.receiver), syn::Expr::Path(p) if p.path.get_ident().is_some())
                .then_some((&*iter.receiver, copied))
        }
        _ => None,
    }
}

/// `let (i, v) = xs.iter().enumerate().max_by(cmp).unwrap();` (the arg max, also with
/// `.expect(..)`, `&v` or `_`): `let i = xs.iter().enumerate().max_by(cmp).map(|(i, _)|
/// i).unwrap();`, an index computed as written, then `let v = &xs[i];`. `None` for another
/// `let`.
pub(super) fn enumerated_pick_pattern(local: &syn::Local) -> Option<Vec<syn::Stmt>> {
    let syn::Pat::Tuple(tuple) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let syn::Expr::MethodCall(unwrap) = super::strip(&init.expr) else {
        return None;
    };
    if unwrap.method != "unwrap" && unwrap.method != "expect" {
        return None;
    }
    let (xs, copied) = enumerated_pick(&unwrap.receiver)?;
    let [index, item] = [tuple.elems.first()?, tuple.elems.get(1)?];
    if tuple.elems.len() != 2 {
        return None;
    }
    let span = init.expr.span();
    let hidden = syn::Ident::new(
        "__ad_index",
        proc_macro2::Span::mixed_site().located_at(span),
    );
    let (pick, args) = (&unwrap.receiver, &unwrap.args);
    let method = &unwrap.method;
    let index_expr: syn::Expr =
        syn::parse_quote_spanned!(span=> #pick.map(|(#hidden, _)| #hidden).#method(#args));
    let (index_name, bind_index) = match index {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (p.ident.clone(), true),
        syn::Pat::Wild(_) => (hidden.clone(), false),
        _ => return None,
    };
    let mut stmts: Vec<syn::Stmt> = Vec::new();
    match bind_index {
        true => stmts.push(syn::parse_quote_spanned!(span=> let #index = #index_expr;)),
        false => stmts.push(syn::parse_quote_spanned!(span=> let #index_name = #index_expr;)),
    }
    match item {
        syn::Pat::Wild(_) => {}
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            let value: syn::Expr = match copied {
                true => syn::parse_quote_spanned!(span=> #xs[#index_name]),
                false => syn::parse_quote_spanned!(span=> &#xs[#index_name]),
            };
            stmts.push(syn::parse_quote_spanned!(span=> let #item = #value;));
        }
        syn::Pat::Reference(r) if !copied => {
            let pat = &r.pat;
            stmts.push(syn::parse_quote_spanned!(span=> let #pat = #xs[#index_name];));
        }
        _ => return None,
    }
    Some(stmts)
}

/// `let [a, mut b, ..] = g(s);` of a call's (or method's) array result: `let parts = g(s);`
/// under a hidden name, then `let a = parts[0]; let mut b = parts[1];`, which the lowering
/// reads as an array result taken apart. `None` for another `let`.
pub(super) fn array_pattern_of_call(local: &syn::Local) -> Option<Vec<syn::Stmt>> {
    let syn::Pat::Slice(slice) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    if !matches!(
        super::strip(&init.expr),
        syn::Expr::Call(_) | syn::Expr::MethodCall(_)
    ) {
        return None;
    }
    let last = slice.elems.len().saturating_sub(1);
    let names = slice.elems.iter().enumerate().all(|(k, pat)| match pat {
        syn::Pat::Ident(p) => p.by_ref.is_none() && p.subpat.is_none(),
        syn::Pat::Wild(_) => true,
        syn::Pat::Rest(_) => k == last,
        _ => false,
    });
    if !names {
        return None;
    }
    let expr = &*init.expr;
    let span = expr.span();
    let parts = syn::Ident::new(
        "__ad_parts",
        proc_macro2::Span::mixed_site().located_at(span),
    );
    let attrs = &local.attrs;
    let mut stmts: Vec<syn::Stmt> =
        vec![syn::parse_quote_spanned!(span=> #(#attrs)* let #parts = #expr;)];
    for (k, elem) in slice.elems.iter().enumerate() {
        if let syn::Pat::Ident(_) = elem {
            stmts.push(syn::parse_quote_spanned!(elem.span()=> let #elem = #parts[#k];));
        }
    }
    Some(stmts)
}

/// `if let Some(m) = xs.iter().max_by(..) { A } else { B }` (also `Some(&m)`, `Some(mut m)`)
/// of a value that is the same each time it is evaluated (as for [`let_else`]):
/// `if !is_none(&xs.iter().max_by(..)) { let m = xs.iter().max_by(..).unwrap(); A } else { B
/// }`. `None` for another `if let`.
pub(super) fn if_let_some(
    scrutinee: &syn::Expr,
    pat: &syn::Pat,
    then: &syn::Block,
    els: Option<&syn::Expr>,
) -> Option<syn::Expr> {
    let (name, value) = some_binding(pat, scrutinee)?;
    let span = scrutinee.span();
    let stmts = &then.stmts;
    let els = els.map(|e| quote::quote!(else #e));
    Some(syn::parse_quote_spanned! {span=>
        if !::revad::__private::is_none(&#scrutinee) {
            let #name = #value;
            #(#stmts)*
        } #els
    })
}

/// For `Some(m)` (`Some(&m)`, `Some(mut m)`) matched against `expr`, a chain of
/// [`PURE_OPTION_METHODS`] from a name (or a name) whose arguments write nothing: the name
/// and the value it binds, `expr.unwrap()` (`expr.copied().unwrap()` for `&m`).
fn some_binding<'p>(pat: &'p syn::Pat, expr: &syn::Expr) -> Option<(&'p syn::PatIdent, syn::Expr)> {
    let syn::Pat::TupleStruct(some) = pat else {
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
    if !pure(expr) {
        return None;
    }
    let span = expr.span();
    let value: syn::Expr = match copied {
        true => syn::parse_quote_spanned!(span=> #expr.copied().unwrap()),
        false => syn::parse_quote_spanned!(span=> #expr.unwrap()),
    };
    Some((name, value))
}

/// `std::array::from_fn(|i| body)` (also `array::from_fn`, `core::array::from_fn`) for a
/// `let` of the type `[T; N]`, `N` a literal: the array literal whose item `k` is
/// `{ let i = k; body }`, the closure's value at `k`, in order. `None` for another value.
/// Whether `path` names `std::array::from_fn`.
pub(super) fn is_from_fn(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    matches!(
        names[..],
        ["std" | "core", "array", "from_fn"] | ["array", "from_fn"]
    )
}

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
    let from_fn = is_from_fn(&path.path);
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
/// `continue` or `return`), and not over `iter_mut()`, whose `for_each` is lowered as a `for`
/// loop; `None` otherwise.
pub(super) fn chain_loop(f: &syn::ExprForLoop) -> Option<syn::Expr> {
    if f.label.is_some()
        || !f.attrs.is_empty()
        || !has_chain_adaptor(&f.expr)
        || mentions_iter_mut(&f.expr)
    {
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

/// `let z;` (or `let z: T;`, `let mut z;`) followed by the statement that gives it its first
/// value: `z = e;`, an `if` whose branches each end in `z = e;`, a `match` whose arms each
/// do: `let z = e;`, `let z = if c { ..; e1 } else { ..; e2 };`, `let z = match x { P => e1,
/// .. };`. Only when nothing else in that statement names `z` (and no branch leaves by
/// `return` or a panic: the value of an `if` cannot, here). Rewrites every such pair of
/// `stmts`; `None` when there is none.
pub(super) fn deferred_lets(stmts: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
    let mut out = Vec::new();
    let mut changed = false;
    let mut k = 0;
    while k < stmts.len() {
        if let (syn::Stmt::Local(local), Some(next)) = (&stmts[k], stmts.get(k + 1)) {
            if let Some(rewritten) = deferred_let(local, next) {
                out.push(rewritten);
                changed = true;
                k += 2;
                continue;
            }
        }
        out.push(stmts[k].clone());
        k += 1;
    }
    changed.then_some(out)
}

/// `let z = VALUE;` for `let z;` and the statement `next` that assigns it (see
/// [`deferred_lets`]).
fn deferred_let(local: &syn::Local, next: &syn::Stmt) -> Option<syn::Stmt> {
    if local.init.is_some() || !local.attrs.is_empty() {
        return None;
    }
    let ident = match &local.pat {
        syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => &p.ident,
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => &p.ident,
            _ => return None,
        },
        _ => return None,
    };
    let expr = match next {
        syn::Stmt::Expr(e, _) => e,
        _ => return None,
    };
    let (value, assignments) = assigned_value(expr, ident)?;
    // (Nothing but the assignments names it: a read before them would not compile, another
    // write would be lost, and an outer `z` must not be reached.)
    if count_ident(expr.to_token_stream(), ident) != assignments {
        return None;
    }
    let mut local = local.clone();
    local.init = Some(syn::LocalInit {
        eq_token: Default::default(),
        expr: Box::new(value),
        diverge: None,
    });
    Some(syn::Stmt::Local(local))
}

/// The value that `expr` gives `ident` (`e` of `ident = e`; an `if` or a `match` whose
/// branches end in such assignments, or leave), and how many assignments make it.
fn assigned_value(expr: &syn::Expr, ident: &syn::Ident) -> Option<(syn::Expr, usize)> {
    match expr {
        syn::Expr::Assign(a) => match &*a.left {
            syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(ident) => {
                Some(((*a.right).clone(), 1))
            }
            _ => None,
        },
        syn::Expr::Block(b) if b.label.is_none() => {
            let (block, n) = assigned_block(&b.block, ident)?;
            let mut b = b.clone();
            b.block = block;
            Some((syn::Expr::Block(b), n))
        }
        syn::Expr::If(i) => {
            let (then, mut n) = assigned_block(&i.then_branch, ident)?;
            let (_, els) = i.else_branch.as_ref()?;
            let (els, m) = assigned_value(els, ident)?;
            n += m;
            let mut i = i.clone();
            i.then_branch = then;
            if let Some((_, e)) = &mut i.else_branch {
                **e = els;
            }
            Some((syn::Expr::If(i), n))
        }
        syn::Expr::Match(m) => {
            let mut m = m.clone();
            let mut n = 0;
            for arm in &mut m.arms {
                let (body, k) = assigned_value(&arm.body, ident)?;
                *arm.body = body;
                n += k;
            }
            Some((syn::Expr::Match(m), n))
        }
        _ => None,
    }
}

/// `block` with its last statement, `ident = e;`, replaced by the value `e`, and the number
/// of assignments.
fn assigned_block(block: &syn::Block, ident: &syn::Ident) -> Option<(syn::Block, usize)> {
    let (last, rest) = block.stmts.split_last()?;
    let syn::Stmt::Expr(expr, _) = last else {
        return None;
    };
    let (value, n) = assigned_value(expr, ident)?;
    let mut block = block.clone();
    block.stmts = rest.to_vec();
    block.stmts.push(syn::Stmt::Expr(value, None));
    Some((block, n))
}

/// How many times `tokens` name `ident`.
fn count_ident(tokens: TokenStream, ident: &syn::Ident) -> usize {
    tokens
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Ident(i) => usize::from(&i == ident),
            proc_macro2::TokenTree::Group(g) => count_ident(g.stream(), ident),
            _ => 0,
        })
        .sum()
}

/// Whether `expr` mentions `iter_mut()` or `&mut` (the loops `iter_mut` lowers).
pub(super) fn mentions_iter_mut(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Paren(p) => mentions_iter_mut(&p.expr),
        syn::Expr::Group(g) => mentions_iter_mut(&g.expr),
        syn::Expr::MethodCall(m) => {
            m.method == "iter_mut"
                || mentions_iter_mut(&m.receiver)
                || m.args.iter().any(mentions_iter_mut)
        }
        syn::Expr::Reference(r) => r.mutability.is_some(),
        _ => false,
    }
}

/// `fn` items among `stmts` that a closure can stand for: not generic, `async`, `const`,
/// `unsafe` or `extern`, taking no `self`, and calling neither themselves nor, through each
/// other, one another in a cycle. Each becomes `let name = |p: T, ..| -> R { body };` at the
/// start of the block (an item is visible in all of it), those a body calls before it, and
/// the other statements follow in order; `None` when there is no such item. A closure made
/// there sees the locals of the blocks around, where an item sees none: rustc rejects an item
/// that names one (E0434) in the function as written, which the macro emits too, and the
/// locals of the block itself come after the closures.
pub(super) fn nested_fns(stmts: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
    let fns: Vec<&syn::ItemFn> = stmts
        .iter()
        .filter_map(|s| match s {
            syn::Stmt::Item(syn::Item::Fn(f)) if closure_like(f) => Some(f),
            _ => None,
        })
        .collect();
    if fns.is_empty() {
        return None;
    }
    // Those whose calls of the others are all made: one at a time, in the order written.
    let calls: Vec<Vec<usize>> = fns
        .iter()
        .map(|f| {
            let body = f.block.to_token_stream();
            (0..fns.len())
                .filter(|&k| count_ident(body.clone(), &fns[k].sig.ident) > 0)
                .collect()
        })
        .collect();
    let mut order: Vec<usize> = Vec::new();
    while let Some(next) = (0..fns.len())
        .find(|&k| !order.contains(&k) && calls[k].iter().all(|c| *c != k && order.contains(c)))
    {
        order.push(next);
    }
    if order.is_empty() {
        return None;
    }
    let mut out: Vec<syn::Stmt> = order
        .iter()
        .map(|&k| {
            let f = fns[k];
            let name = &f.sig.ident;
            let inputs = f.sig.inputs.iter();
            let output = &f.sig.output;
            let block = &f.block;
            syn::parse_quote_spanned!(name.span()=> let #name = |#(#inputs),*| #output #block;)
        })
        .collect();
    let converted: Vec<&syn::Ident> = order.iter().map(|&k| &fns[k].sig.ident).collect();
    out.extend(stmts.iter().filter(|s| {
        !matches!(s, syn::Stmt::Item(syn::Item::Fn(f)) if converted.contains(&&f.sig.ident))
    }).cloned());
    Some(out)
}

/// Whether a closure can stand for the `fn` item `f` (see [`nested_fns`]); not one whose
/// parameters are all integers or other inactive types, which stays an item (see
/// [`inactive_fn`]).
fn closure_like(f: &syn::ItemFn) -> bool {
    let sig = &f.sig;
    !inactive_fn(f)
        && sig.constness.is_none()
        && sig.asyncness.is_none()
        && sig.unsafety.is_none()
        && sig.abi.is_none()
        && sig.variadic.is_none()
        && sig.generics.params.is_empty()
        && sig.generics.where_clause.is_none()
        && sig.inputs.iter().all(|input| match input {
            syn::FnArg::Typed(t) => !impl_trait(&t.ty),
            syn::FnArg::Receiver(_) => false,
        })
}

/// Whether `ty` is `impl Trait`, or a reference to one.
fn impl_trait(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::ImplTrait(_) => true,
        syn::Type::Reference(r) => impl_trait(&r.elem),
        syn::Type::Paren(p) => impl_trait(&p.elem),
        _ => false,
    }
}

/// Whether the `fn` item `f` takes only integers, `bool`s and other inactive values (no
/// `self`): its result has no derivative, and it stays an item, as written, which the
/// generated functions declare (recursive or generic ones too).
pub(super) fn inactive_fn(f: &syn::ItemFn) -> bool {
    f.sig.inputs.iter().all(|input| match input {
        syn::FnArg::Typed(t) => crate::parse::is_inactive_type(&t.ty),
        syn::FnArg::Receiver(_) => false,
    })
}

/// `for PAT in SEQ.ADAPTORS { BODY }` with only `map(f)`, `filter(p)`, `copied()` and
/// `cloned()` after a sequence `SEQ` that is no chain of them, for a body that may `break`,
/// `continue` or `return` (which `chain_loop`'s `for_each` cannot): the loop over `SEQ`
/// with each stage in the body, `for item in SEQ { let item = f(item); if !p(&item) {
/// continue; } let PAT = item; BODY }` (the label kept). `None` for another loop.
pub(super) fn unfiltered_loop(f: &syn::ExprForLoop) -> Option<syn::Expr> {
    if !f.attrs.is_empty() || mentions_iter_mut(&f.expr) {
        return None;
    }
    let mut stages = Vec::new();
    let mut seq = &*f.expr;
    while let syn::Expr::MethodCall(m) = super::strip(seq) {
        match (m.method.to_string().as_str(), m.args.len()) {
            ("map" | "filter", 1) | ("copied" | "cloned", 0) => stages.push(m),
            _ => break,
        }
        seq = &m.receiver;
    }
    if !stages
        .iter()
        .any(|m| m.method == "map" || m.method == "filter")
    {
        return None;
    }
    let span = f.for_token.span;
    let item = syn::Ident::new(
        "__ad_item",
        proc_macro2::Span::mixed_site().located_at(span),
    );
    let steps = stages.iter().rev().filter_map(|m| {
        let arg = m.args.first()?;
        Some(match m.method.to_string().as_str() {
            "map" => quote::quote_spanned!(m.method.span()=> let #item = (#arg)(#item);),
            _ => quote::quote_spanned!(m.method.span()=> if !(#arg)(&#item) { continue; }),
        })
    });
    // (`for &v in xs.iter().filter(..)`: `let v = item;`, the item read as a float.)
    let mut pat = &*f.pat;
    while let syn::Pat::Reference(r) = pat {
        pat = &r.pat;
    }
    let (label, stmts) = (&f.label, &f.body.stmts);
    Some(syn::parse_quote_spanned! {span=>
        #label for #item in #seq {
            #(#steps)*
            let #pat = #item;
            #(#stmts)*
        }
    })
}

/// `preds(w, xs).iter().zip(ys).map(..).sum()`, `layer.forward(&h).into_iter().map(..)`,
/// `y.iter().zip(softmax(x)).map(..)`: an iterator chain over the results of calls, as the
/// calls bound first, `({ let __ad_called = preds(w, xs); __ad_called.iter().zip(ys).map(..)
/// .sum() })`, which the chains over locals lower. A call is the receiver of the chain's
/// `iter()` or `into_iter()`, or the argument of a `zip` (`g(x)`, `&g(x)`, `g(x).iter()`; see
/// [`called`]). `None` when there is none.
pub(super) fn chain_on_call(
    call: &syn::ExprMethodCall,
    active: &dyn Fn(&syn::Expr) -> bool,
) -> Option<syn::Expr> {
    let mut chain = syn::Expr::MethodCall(call.clone());
    let mut taken = Vec::new();
    take_calls(&mut chain, call.method.span(), active, &mut taken);
    if taken.is_empty() {
        return None;
    }
    // (In the order Rust evaluates them: the receiver's call before a `zip`'s argument.)
    taken.reverse();
    let span = taken[0].1.span();
    let lets = taken
        .iter()
        .map(|(name, call)| quote::quote!(let #name = #call;));
    Some(syn::parse_quote_spanned!(span=> ({ #(#lets)* #chain })))
}

/// Replaces the calls of the chain `expr` that [`chain_on_call`] binds by names, innermost
/// last, and lists them with their names.
/// A `zip`'s argument, or the receiver of `into_iter()`, only where `active` says the call has
/// derivatives (a call of inactive data may give an iterator, `zip(s.split_whitespace())`,
/// which `.iter()` would not take).
fn take_calls(
    expr: &mut syn::Expr,
    span: Span,
    active: &dyn Fn(&syn::Expr) -> bool,
    taken: &mut Vec<(syn::Ident, syn::Expr)>,
) {
    let syn::Expr::MethodCall(m) = expr else {
        return;
    };
    let name = |k: usize| {
        let name = match k {
            0 => "__ad_called".to_owned(),
            k => format!("__ad_called{k}"),
        };
        syn::Ident::new(&name, Span::mixed_site().located_at(span))
    };
    if m.method == "zip" && m.args.len() == 1 {
        let arg = &mut m.args[0];
        // (`zip(g(x))`: `zip(&__ad_called)`, the items by reference, as the chains zip a
        // local.)
        if called(arg) && active(arg) {
            let name = name(taken.len());
            let call = std::mem::replace(arg, syn::parse_quote!(&#name));
            taken.push((name, call));
        }
        let call = match arg {
            syn::Expr::Reference(r) if r.mutability.is_none() && called(&r.expr) => {
                Some(&mut *r.expr)
            }
            syn::Expr::MethodCall(i)
                if (i.method == "iter" || (i.method == "into_iter" && active(&i.receiver)))
                    && i.args.is_empty()
                    && called(&i.receiver) =>
            {
                Some(&mut *i.receiver)
            }
            _ => None,
        };
        if let Some(call) = call {
            let name = name(taken.len());
            let call = std::mem::replace(call, syn::parse_quote!(#name));
            taken.push((name, call));
        }
    }
    if (m.method == "iter" || m.method == "into_iter") && m.args.is_empty() {
        if called(&m.receiver) && (m.method == "iter" || active(&m.receiver)) {
            let name = name(taken.len());
            let call = std::mem::replace(&mut *m.receiver, syn::parse_quote!(#name));
            taken.push((name, call));
        }
        return;
    }
    take_calls(&mut m.receiver, span, active, taken);
}

/// `for v in l.forward(x).iter() { .. }` (`for v in g(x)` where `active` says the call has
/// derivatives, `&g(x)`, then adaptors, a `zip` with a call's result): the loop over the calls' results bound first, `{ let __ad_called =
/// l.forward(x); for v in __ad_called.iter() { .. } }` (evaluated once, before the first
/// iteration, as Rust does). `None` for a loop over anything else.
pub(super) fn loop_over_call(
    f: &syn::ExprForLoop,
    active: &dyn Fn(&syn::Expr) -> bool,
) -> Option<syn::Expr> {
    let span = f.expr.span();
    let mut f = f.clone();
    let name = syn::Ident::new("__ad_called", Span::mixed_site().located_at(span));
    let mut taken = Vec::new();
    // (A call iterated as it is only where it has derivatives, `for v in layer.forward(x)`:
    // one of inactive data may give an iterator, `for w in s.split_whitespace()`, which no
    // `&` or `.iter()` says is a collection.)
    match &mut *f.expr {
        e if called(e) && active(e) => {
            taken.push((name.clone(), std::mem::replace(e, syn::parse_quote!(#name))))
        }
        syn::Expr::Reference(r) if r.mutability.is_none() && called(&r.expr) => taken.push((
            name.clone(),
            std::mem::replace(&mut *r.expr, syn::parse_quote!(#name)),
        )),
        e => take_calls(e, span, active, &mut taken),
    }
    if taken.is_empty() {
        return None;
    }
    taken.reverse();
    let lets = taken
        .iter()
        .map(|(name, call)| quote::quote!(let #name = #call;));
    Some(syn::parse_quote_spanned!(span=> { #(#lets)* #f }))
}

/// Whether `expr` is a call whose result a chain may iterate once bound: a function's (`g(..)`,
/// `Self::g(..)`; not a tuple struct's or variant's, nor `std::iter`'s) or a method's other
/// than an iterator's, a container's own (`clone`, `to_vec`, ...), a slice's or a float's.
fn called(expr: &syn::Expr) -> bool {
    match super::strip(expr) {
        syn::Expr::Call(c) => match super::strip(&c.func) {
            syn::Expr::Path(p) => {
                p.qself.is_none()
                    && !p.path.segments.iter().any(|s| s.ident == "iter")
                    && p.path.segments.last().is_some_and(|s| {
                        let name = s.ident.to_string();
                        name.starts_with(|c: char| c.is_lowercase() || c == '_')
                            && !ITERATOR_METHODS.contains(&name.as_str())
                    })
            }
            _ => false,
        },
        syn::Expr::MethodCall(m) => {
            let name = m.method.to_string();
            !ITERATOR_METHODS.contains(&name.as_str())
                && !super::views::SLICE_METHODS.contains(&name.as_str())
                && !crate::rules::is_float_method(&name)
                && !iterates(&m.receiver)
        }
        _ => false,
    }
}

/// Methods of iterators and of containers that give iterators or copies (none of them a
/// call [`called`] binds), and `std::iter`'s functions.
const ITERATOR_METHODS: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "clone",
    "to_vec",
    "to_owned",
    "as_slice",
    "as_ref",
    "borrow",
    "chars",
    "bytes",
    "lines",
    "drain",
    "keys",
    "values",
    "map",
    "filter",
    "filter_map",
    "flat_map",
    "flatten",
    "zip",
    "enumerate",
    "rev",
    "skip",
    "take",
    "step_by",
    "chain",
    "cycle",
    "copied",
    "cloned",
    "peekable",
    "inspect",
    "scan",
    "take_while",
    "skip_while",
    "windows",
    "chunks",
    "chunks_exact",
    "repeat",
    "once",
    "successors",
    "from_fn",
    "empty",
    "repeat_with",
];

/// Whether the method chain `expr` iterates: a method of [`ITERATOR_METHODS`] on the way down
/// its receivers.
fn iterates(expr: &syn::Expr) -> bool {
    match super::strip(expr) {
        syn::Expr::MethodCall(m) => {
            ITERATOR_METHODS.contains(&m.method.to_string().as_str()) || iterates(&m.receiver)
        }
        _ => false,
    }
}

/// The chain `call` with its `.filter_map(h)` written as `.filter(f).map(g)`, for a closure
/// `h` that says which items it keeps and what it makes of them: `|p| if c { Some(e) } else
/// { None }` (or the arms the other way round, `c` negated), `|p| c.then(|| e)` and
/// `|p| c.then_some(e)` with `e` of names, fields, literals and operators (which the
/// `filter` then evaluates only for the items kept, where `then_some` evaluated it for each
/// item: nothing in it can panic or differ). `f` is `|&p| c` (`|&p: &T| c`), `g` is `|p| e`.
/// `None` for any other chain.
pub(super) fn split_filter_map(call: &syn::ExprMethodCall) -> Option<syn::Expr> {
    fn split(closure: &syn::Expr) -> Option<(syn::Expr, syn::Expr)> {
        let syn::Expr::Closure(c) = super::strip(closure) else {
            return None;
        };
        let [pat] = c.inputs.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let (cond, value) = kept(tail(&c.body)?)?;
        // The filter's item is a reference to the item: `&p` (its bindings without `mut`).
        let mut by_ref = pat.clone();
        strip_mut(&mut by_ref);
        let filter: syn::Expr = match by_ref {
            syn::Pat::Type(t) => {
                let (p, ty) = (&t.pat, &t.ty);
                syn::parse_quote_spanned!(c.span()=> |&#p: &#ty| #cond)
            }
            p => syn::parse_quote_spanned!(c.span()=> |&#p| #cond),
        };
        let map: syn::Expr = syn::parse_quote_spanned!(c.span()=> |#pat| #value);
        Some((filter, map))
    }
    /// The expression a block of none but it ends in (`{ e }`), or `e` itself.
    fn tail(expr: &syn::Expr) -> Option<&syn::Expr> {
        match super::strip(expr) {
            syn::Expr::Block(b) if b.label.is_none() => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(e, None)] => tail(e),
                _ => None,
            },
            e => Some(e),
        }
    }
    /// `(c, e)` of `if c { Some(e) } else { None }` and its kin.
    fn kept(body: &syn::Expr) -> Option<(syn::Expr, syn::Expr)> {
        let some = |e: &syn::Expr| match tail(e)? {
            syn::Expr::Call(call) if call.args.len() == 1 => match super::strip(&call.func) {
                syn::Expr::Path(p) if super::enums::is_some_path(&p.path) => {
                    Some(call.args[0].clone())
                }
                _ => None,
            },
            _ => None,
        };
        let none =
            |e: &syn::Expr| matches!(tail(e), Some(syn::Expr::Path(p)) if p.path.is_ident("None"));
        match body {
            syn::Expr::If(i) => {
                let (_, els) = i.else_branch.as_ref()?;
                let then = syn::Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: i.then_branch.clone(),
                });
                let cond = &i.cond;
                if matches!(**cond, syn::Expr::Let(_)) {
                    return None;
                }
                if let (Some(e), true) = (some(&then), none(els)) {
                    return Some(((**cond).clone(), e));
                }
                if let (true, Some(e)) = (none(&then), some(els)) {
                    // (The `!` is the macro's: clippy's `neg_cmp_op_on_partial_ord` is not for
                    // the user's `if x < 0.0 { None } else { .. }`.)
                    let not = syn::Token![!](Span::mixed_site().located_at(cond.span()));
                    return Some((syn::parse_quote!(#not (#cond)), e));
                }
                None
            }
            syn::Expr::MethodCall(m) if m.method == "then" && m.args.len() == 1 => {
                let syn::Expr::Closure(c) = super::strip(&m.args[0]) else {
                    return None;
                };
                c.inputs
                    .is_empty()
                    .then(|| ((*m.receiver).clone(), (*c.body).clone()))
            }
            syn::Expr::MethodCall(m)
                if m.method == "then_some" && m.args.len() == 1 && plain(&m.args[0]) =>
            {
                Some(((*m.receiver).clone(), m.args[0].clone()))
            }
            _ => None,
        }
    }
    fn strip_mut(pat: &mut syn::Pat) {
        use syn::visit_mut::VisitMut;
        struct NoMut;
        impl VisitMut for NoMut {
            fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
                p.mutability = None;
                syn::visit_mut::visit_pat_ident_mut(self, p);
            }
        }
        NoMut.visit_pat_mut(pat);
    }
    fn replace(expr: &mut syn::Expr) -> Option<()> {
        let m = match expr {
            syn::Expr::Paren(p) => return replace(&mut p.expr),
            syn::Expr::Group(g) => return replace(&mut g.expr),
            syn::Expr::MethodCall(m) => m,
            _ => return None,
        };
        if m.method == "filter_map" && m.args.len() == 1 {
            let (filter, map) = split(&m.args[0])?;
            let (receiver, span) = (&m.receiver, m.method.span());
            *expr = syn::parse_quote_spanned!(span=> #receiver.filter(#filter).map(#map));
            return Some(());
        }
        replace(&mut m.receiver)
    }
    let mut chain = syn::Expr::MethodCall(call.clone());
    replace(&mut chain)?;
    Some(chain)
}

/// `layer.bias.unwrap_or(0.0)` and its kin on an `Option` that is a place of an aggregate (the
/// caller checks that): the `match` that binds the value as a place (see `enums`),
///
/// ```text
/// // Before                           // After
/// l.b.unwrap_or(d)                    match l.b { Some(__ad_some) => __ad_some, _ => d }
/// l.b.map_or(d, |b| x + b)            match l.b { Some(b) => x + b, _ => d }
/// l.b.unwrap()                        match l.b { Some(__ad_some) => __ad_some, _ => panic!(..) }
/// ```
///
/// also `.expect(m)`, `.unwrap_or_else(|| d)`, `.map_or_else(|| d, |b| e)` and
/// `.map(|b| e)` before `unwrap_or`, `unwrap_or_else`, `unwrap` or `expect`. `None` for any
/// other method.
pub(super) fn option_place_method(call: &syn::ExprMethodCall) -> Option<(syn::Expr, syn::Expr)> {
    /// `|| e`'s `e`.
    fn thunk(expr: &syn::Expr) -> Option<syn::Expr> {
        match super::strip(expr) {
            syn::Expr::Closure(c) if c.inputs.is_empty() => Some((*c.body).clone()),
            _ => None,
        }
    }
    /// `|b| e`'s `b` and `e` (a name alone, as `Option::map` gives the value).
    fn mapping(expr: &syn::Expr) -> Option<(syn::Pat, syn::Expr)> {
        match super::strip(expr) {
            syn::Expr::Closure(c) if c.inputs.len() == 1 => match &c.inputs[0] {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    Some((c.inputs[0].clone(), (*c.body).clone()))
                }
                _ => None,
            },
            _ => None,
        }
    }
    let span = call.method.span();
    let name = call.method.to_string();
    let own = syn::Ident::new("__ad_some", Span::mixed_site().located_at(span));
    // A default `unwrap_or` and `map_or` take by value is evaluated before the test, as Rust
    // does (it may panic, `xs[k]`), unless nothing in it can (`0.0`, `x * w`).
    let default = syn::Ident::new("__ad_default", Span::mixed_site().located_at(span));
    let eager = |value: &syn::Expr, desugared: syn::Expr| -> syn::Expr {
        match plain(value) {
            true => desugared,
            false => syn::parse_quote_spanned!(span=> { let #default = #value; #desugared }),
        }
    };
    let by_value = |value: &syn::Expr| -> syn::Expr {
        match plain(value) {
            true => value.clone(),
            false => syn::parse_quote!(#default),
        }
    };
    // The `None` arm's value.
    let none: syn::Expr = match (name.as_str(), call.args.len()) {
        ("unwrap_or", 1) => by_value(&call.args[0]),
        ("unwrap_or_else", 1) => thunk(&call.args[0])?,
        ("unwrap", 0) => syn::parse_quote_spanned!(span=>
            ::core::panic!("called `Option::unwrap()` on a `None` value")),
        ("expect", 1) => {
            let message = &call.args[0];
            syn::parse_quote_spanned!(span=> ::core::panic!("{}", #message))
        }
        ("map_or", 2) => {
            let (pat, body) = mapping(&call.args[1])?;
            let option = &call.receiver;
            let none = by_value(&call.args[0]);
            let desugared =
                syn::parse_quote_spanned!(span=> match #option { Some(#pat) => #body, _ => #none });
            return Some(((**option).clone(), eager(&call.args[0], desugared)));
        }
        ("map_or_else", 2) => {
            let (pat, body) = mapping(&call.args[1])?;
            let default = thunk(&call.args[0])?;
            let option = &call.receiver;
            return Some((
                (**option).clone(),
                syn::parse_quote_spanned!(span=> match #option { Some(#pat) => #body, _ => #default }),
            ));
        }
        _ => return None,
    };
    // (Only `unwrap_or`'s default is evaluated before the test.)
    let eager = |desugared: syn::Expr| match name.as_str() {
        "unwrap_or" => eager(&call.args[0], desugared),
        _ => desugared,
    };
    // `.map(|b| e)` first: the arm's value is `e` with `b` bound.
    if let syn::Expr::MethodCall(m) = super::strip(&call.receiver) {
        if m.method == "map" && m.args.len() == 1 {
            let (pat, body) = mapping(&m.args[0])?;
            let option = &m.receiver;
            let desugared =
                syn::parse_quote_spanned!(span=> match #option { Some(#pat) => #body, _ => #none });
            return Some(((**option).clone(), eager(desugared)));
        }
    }
    let option = &call.receiver;
    let desugared =
        syn::parse_quote_spanned!(span=> match #option { Some(#own) => #own, _ => #none });
    Some(((**option).clone(), eager(desugared)))
}

/// `let Neuron { w, b, .. } = self;` (`let Params { k, m } = *p;`, `let Vec2(x, y) = v;`): a
/// struct taken apart into its fields, one `let` each, from a value without calls:
///
/// ```text
/// // Before                              // After
/// let Neuron { w, b, .. } = self;        let w = &(self).w;     // (`&self`)
///                                        let b = &(self).b;
/// let Params { mut k, m: [a, c] } = *p;  let mut k = (*p).k;
///                                        let [a, c] = (*p).m;
/// ```
///
/// A name alone is a reference to its field when the value is a reference (`self` of `&self`,
/// a `&T` parameter: read as its value, as a reference to a float or an array is), as Rust's
/// binding modes give, and a copy otherwise, as Rust's move or copy gives (the value may be
/// written afterwards: the name keeps what it had); `mut k` is a copy, another pattern takes
/// the field's value apart. `reference` says whether an expression is a reference. `None`
/// for any other `let`.
pub(super) fn struct_pattern(
    local: &syn::Local,
    reference: &dyn Fn(&syn::Expr) -> bool,
) -> Option<Vec<syn::Stmt>> {
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let value = &init.expr;
    if !pure_place(value) {
        return None;
    }
    let fields: Vec<(syn::Member, &syn::Pat)> = match &local.pat {
        syn::Pat::Struct(s) if s.qself.is_none() && !super::enums::is_variant_path(&s.path) => s
            .fields
            .iter()
            .map(|f| (f.member.clone(), &*f.pat))
            .collect(),
        syn::Pat::TupleStruct(t)
            if t.qself.is_none()
                && !super::enums::is_variant_path(&t.path)
                && !super::enums::is_some_path(&t.path)
                && t.path.get_ident().is_some_and(|i| {
                    i.to_string().starts_with(|c: char| c.is_ascii_uppercase())
                }) =>
        {
            let mut fields = Vec::new();
            for (k, p) in t.elems.iter().enumerate() {
                if matches!(p, syn::Pat::Rest(_)) {
                    // (`let V3(.., z) = v;`: a field after `..` is counted from the end.)
                    if k + 1 < t.elems.len() {
                        return None;
                    }
                    break;
                }
                fields.push((syn::Member::Unnamed(syn::Index::from(k)), p));
            }
            fields
        }
        _ => return None,
    };
    // (`let Link { i, w } = links[i];` reads the old `i` for both fields: one `let` per field
    // would read the new one.)
    let mut names = Vec::new();
    collect_pat_names(&local.pat, &mut names);
    if reads_any(value, &names) {
        return None;
    }
    let mut stmts = Vec::new();
    for (member, pat) in fields {
        let span = pat.span();
        let stmt: syn::Stmt = match pat {
            syn::Pat::Wild(_) => continue,
            syn::Pat::Ident(p)
                if p.subpat.is_none()
                    && p.by_ref.is_none()
                    && p.mutability.is_none()
                    && reference(value) =>
            {
                let name = &p.ident;
                syn::parse_quote_spanned!(span=> let #name = &(#value).#member;)
            }
            pat => syn::parse_quote_spanned!(span=> let #pat = (#value).#member;),
        };
        stmts.push(stmt);
    }
    Some(stmts)
}

/// `xs.iter().fold(init, |acc, x| e)` whose initial value is an array, a vector or a struct
/// (`fold([0.0; 2], ..)`, `fold(x.to_vec(), |h, l| l.forward(&h))`): the `for` loop it stands
/// for, `{ let mut acc = init; for x in xs.iter() { acc = e; } acc }` (the chains fold numbers
/// and tuples of numbers themselves). `None` for another call, or a closure whose accumulator
/// is not a name.
pub(super) fn fold_as_loop(call: &syn::ExprMethodCall) -> Option<syn::Expr> {
    if call.method != "fold" || call.args.len() != 2 {
        return None;
    }
    let init = &call.args[0];
    let whole = match super::strip(init) {
        syn::Expr::Array(_) | syn::Expr::Repeat(_) | syn::Expr::Struct(_) => true,
        syn::Expr::Macro(m) => m.mac.path.is_ident("vec"),
        syn::Expr::MethodCall(m) => matches!(
            m.method.to_string().as_str(),
            "to_vec" | "to_owned" | "clone" | "collect"
        ),
        syn::Expr::Call(c) => matches!(super::strip(&c.func), syn::Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "new" || s.ident == "from")),
        _ => false,
    };
    if !whole {
        return None;
    }
    let syn::Expr::Closure(closure) = super::strip(&call.args[1]) else {
        return None;
    };
    let [acc, item] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    // (A `mut` accumulator written in place and returned, `|mut acc, x| { acc[0] += x; acc
    // }`, would be the loop's `acc = { acc[0] += x; acc };`, which #[reverse] does not take.)
    let acc = match acc {
        syn::Pat::Ident(p)
            if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() =>
        {
            &p.ident
        }
        _ => return None,
    };
    // (A `for` pattern has no type: `|acc, x: &f64|` loops with `x`.)
    let item = match item {
        syn::Pat::Type(t) => &*t.pat,
        item => item,
    };
    let (receiver, body, span) = (&call.receiver, &closure.body, call.method.span());
    // (The loop binds `acc` before it evaluates the sequence, and its body is no closure: not
    // where the sequence or the start reads the closure's names, `s.iter().fold(.., |s, a|
    // ..)`, nor where the body returns from the closure.)
    let mut names = vec![acc.to_string()];
    collect_pat_names(item, &mut names);
    if reads_any(receiver, &names) || reads_any(init, &names) || returns(body) {
        return None;
    }
    Some(syn::parse_quote_spanned! {span=>
        {
            let mut #acc = #init;
            for #item in #receiver {
                #acc = #body;
            }
            #acc
        }
    })
}

/// Whether `expr` (a place, see `is_place_expr`, or a `match` scrutinee) has no calls,
/// macros, blocks or assignments: evaluating it again gives the same place or value.
pub(super) fn pure_place(expr: &syn::Expr) -> bool {
    use syn::visit::Visit;
    struct Pure(bool);
    impl<'ast> Visit<'ast> for Pure {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            match e {
                syn::Expr::Call(_)
                | syn::Expr::MethodCall(_)
                | syn::Expr::Macro(_)
                | syn::Expr::Assign(_)
                | syn::Expr::Block(_)
                | syn::Expr::Closure(_) => self.0 = false,
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut pure = Pure(true);
    pure.visit_expr(expr);
    pure.0
}

/// Names, fields, literals, comparisons and parentheses only: nothing that can panic or write,
/// so evaluating it later, or not at all, is the same as evaluating it where it is written.
fn plain(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Field(f) => plain(&f.base),
        syn::Expr::Paren(p) => plain(&p.expr),
        // (Not `-`, nor arithmetic: an integer's overflows panic in a debug build.)
        syn::Expr::Unary(u) => !matches!(u.op, syn::UnOp::Neg(_)) && plain(&u.expr),
        syn::Expr::Binary(b) => {
            matches!(
                b.op,
                syn::BinOp::Eq(_)
                    | syn::BinOp::Ne(_)
                    | syn::BinOp::Lt(_)
                    | syn::BinOp::Le(_)
                    | syn::BinOp::Gt(_)
                    | syn::BinOp::Ge(_)
                    | syn::BinOp::And(_)
                    | syn::BinOp::Or(_)
            ) && plain(&b.left)
                && plain(&b.right)
        }
        _ => false,
    }
}

/// Whether `expr` reads one of `names`: as a path (`i`, not the field `self.i`), or in a
/// macro's tokens.
pub(super) fn reads_any(expr: &syn::Expr, names: &[String]) -> bool {
    use syn::visit::Visit;
    struct Reads<'n>(&'n [String], bool);
    impl<'ast> Visit<'ast> for Reads<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.1 |= self.0.contains(&i.to_string());
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let idents = super::enums::idents_in(m.tokens.clone());
            self.1 |= idents.iter().any(|i| self.0.contains(i));
        }
    }
    let mut r = Reads(names, false);
    r.visit_expr(expr);
    r.1
}

/// Whether `expr` has a `return` or a `?` outside closures.
fn returns(expr: &syn::Expr) -> bool {
    use syn::visit::Visit;
    struct Finds(bool);
    impl<'ast> Visit<'ast> for Finds {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Finds(false);
    f.visit_expr(expr);
    f.0
}

/// The names `pat` binds (and the constants it names), appended to `out`.
pub(super) fn collect_pat_names(pat: &syn::Pat, out: &mut Vec<String>) {
    use syn::visit::Visit;
    struct Names<'o>(&'o mut Vec<String>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    Names(out).visit_pat(pat);
}
