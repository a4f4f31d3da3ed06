//! The pipeline of `#[reverse]`: parse → IR → analyses → codegen, and what happens on error.

use proc_macro2::TokenStream;
use quote::quote;

use crate::error::Errors;
use crate::{codegen, ir, parse};

/// Expands `#[reverse(args)] item`.
pub(crate) fn reverse(args: TokenStream, item: TokenStream) -> TokenStream {
    // If the item is not even a function, hand it back with the error, so the user's code
    // keeps its own diagnostics (tokio-macros' recovery).
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(err) => {
            let err = syn::Error::new(err.span(), "#[reverse] applies to a function (`fn`)");
            let err = err.to_compile_error();
            return quote!(#err #item);
        }
    };
    if let Some(clash) = second_attribute(&func, Attribute::Reverse) {
        return clash;
    }
    mark_forward(&mut func);
    parse::functions::name_impl_fn_params(&mut func);
    let cx = Errors::new();
    let args = parse::Args::from_tokens(&cx, args);
    if let Some(span) = args.vector {
        cx.error_at(
            span,
            "`vector` is an argument of #[revad::forward] (`NAME_jvp_vec`); #[reverse] takes \
             `wrt(...)`, `cps` and `hessian`",
        );
    }
    let sig = parse::Signature::from_syn(&cx, &func.sig, &args);
    // The body is lowered even after a signature error, so its errors are reported too.
    let body = ir::lower::lower(&cx, &sig, &func.block);
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
    if args.backend == parse::Backend::Cps {
        reject_aggregates_in_cps(&cx, &body, &sig);
        if cx.has_errors() {
            return fallback(&func, Some(&sig), cx);
        }
    }
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
        &func,
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

/// `#[reverse(hessian)]`: the generic copy of the function (`lift`), expanded like any
/// `#[reverse]` function, and `NAME_hvp`, `NAME_hessian`, `NAME_hessian_diag` that run its
/// `_vjp` on `revad::Dual` numbers.
fn second_order(func: &syn::ItemFn, sig: &parse::Signature, body: &ir::Body) -> TokenStream {
    let reject = |span: proc_macro2::Span, what: &str| {
        let message =
            format!("#[reverse(hessian)] needs {what}; remove `hessian` or rewrite the function");
        syn::Error::new(span, message).to_compile_error()
    };
    let parse::RetTy::Scalar(float) = sig.ret else {
        return reject(
            codegen::return_span(func),
            "a function that returns `f64` or `f32`",
        );
    };
    if let Some(p) = sig.params.iter().find(|p| {
        p.passing == parse::Passing::MutRef || matches!(p.kind, parse::ParamKind::Aggregate { .. })
    }) {
        return reject(
            syn::spanned::Spanned::span(&p.ty),
            "parameters of floats and float arrays passed by value or `&` (not `&mut`, not \
             structs or nested containers)",
        );
    }
    // A function generic over its float type (`fn f<T: Float>`) is its own generic copy; the
    // second derivatives are of its `f64` instance.
    let generic = match (sig.generics.as_slice(), func.sig.generics.params.len()) {
        ([t], 1) => Some(*t),
        ([], 0) => None,
        _ => {
            return reject(
                syn::spanned::Spanned::span(&func.sig.generics),
                "a function with no generic parameter but its float type (`fn f<T: \
                 revad::Float>`)",
            )
        }
    };
    if sig.in_impl {
        return reject(
            syn::spanned::Spanned::span(&func.sig.ident),
            "a free function (not a method or an associated function)",
        );
    }
    if let Some(span) = body.hoisted.first().map(|h| h.span).or_else(|| {
        sig.functions
            .first()
            .map(|f| syn::spanned::Spanned::span(&f.ident))
    }) {
        return reject(
            span,
            "a function without function arguments or closures passed to functions",
        );
    }
    if let Some(span) = float_to_integer_cast(body) {
        let message = "#[reverse(hessian)] runs a copy of this function on dual numbers, which \
                       cannot be cast to an integer; write `revad::Float::to_f64(x) as usize`";
        return syn::Error::new(span, message).to_compile_error();
    }
    // (Every float parameter active in the copy: the companions of `NAME_grad` need them all.)
    let (lifted, func, sig) = match generic {
        None => {
            let name = match float {
                ir::FloatTy::F32 => "f32",
                _ => "f64",
            };
            let floats = float_constants(body);
            (
                crate::lift::lift(func, name, &floats),
                func.clone(),
                sig.clone(),
            )
        }
        Some(t) => {
            let lifted = crate::lift::generic_copy(func);
            let (func, sig) = crate::lift::instance_f64(func, sig, t);
            (lifted, func, sig)
        }
    };
    let lifted_items = reverse(TokenStream::new(), quote!(#lifted));
    let wrappers = codegen::hessian::emit(&func, &sig);
    let companions = codegen::hessian::companions(&func, &sig);
    quote! {
        #lifted_items
        #wrappers
        #companions
    }
}

/// The hidden argument that `#[reverse]` and `#[revad::derivative]` add to a `#[forward]`
/// attribute of the same function: they declare the marker struct `NAME` that holds the
/// forward companion, so `#[forward]` must not.
const MARKER_DECLARED: &str = "__ad_marker_declared";

/// Adds [`MARKER_DECLARED`] to the `#[forward]` attribute of `func`, if it has one.
fn mark_forward(func: &mut syn::ItemFn) {
    for attr in &mut func.attrs {
        if !is_named(attr, "forward") {
            continue;
        }
        let marker = syn::Ident::new(MARKER_DECLARED, proc_macro2::Span::call_site());
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

/// Adds [`parse::FORWARD_TOO`] to the `#[reverse]` attribute of `func`, if it has one.
fn mark_reverse(func: &mut syn::ItemFn) {
    for attr in &mut func.attrs {
        if !is_named(attr, "reverse") {
            continue;
        }
        let marker = syn::Ident::new(parse::FORWARD_TOO, proc_macro2::Span::call_site());
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
    let args = parse::Args::from_tokens(&cx, args);
    let vector = args.vector.is_some();
    if let Some(span) = args.reverse_only {
        cx.error_at(
            span,
            "`cps` and `hessian` are arguments of `#[revad::reverse]`; #[revad::forward] takes only \
             `wrt(...)` and `vector`",
        );
    }
    let sig = parse::Signature::from_syn(&cx, &func.sig, &args);
    let body = ir::lower::lower(&cx, &sig, &func.block);
    let fail = |cx: Errors, sig: Option<&parse::Signature>| {
        let errors = match (reverse_too, cx.check()) {
            (false, Err(err)) => err.to_compile_error(),
            _ => TokenStream::new(),
        };
        let stubs = sig
            .map(|sig| codegen::forward::stubs(&func, sig, marker, vector))
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
    if let Some((span, what)) = reject_in_forward(&body, &sig) {
        let message = format!(
            "#[revad::forward] does not differentiate {what} yet; use #[reverse] for this function"
        );
        // (Reported even beside `#[reverse]`: only forward mode lacks it.)
        let err = syn::Error::new(span, message).to_compile_error();
        let stubs = codegen::forward::stubs(&func, &sig, marker, vector);
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
        &func,
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

/// The arguments without [`MARKER_DECLARED`], and whether it was there.
fn strip_marker(args: TokenStream) -> (TokenStream, bool) {
    use syn::parse::Parser;
    let parser = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
    let Ok(metas) = parser.parse2(args.clone()) else {
        return (args, false);
    };
    let declared = metas.iter().any(|m| m.path().is_ident(MARKER_DECLARED));
    let rest = metas.iter().filter(|m| !m.path().is_ident(MARKER_DECLARED));
    (quote!(#(#rest),*), declared)
}

/// The constants (paths in upper case: `G`, `physics::G`) that the body uses as floats, in
/// operands of float arithmetic and intrinsics and values of floats (`G * x`, `G * 0.5`,
/// `let g = G;`): the generic copy of `#[reverse(hessian)]` converts them like literals.
fn float_constants(body: &ir::Body) -> Vec<String> {
    use quote::ToTokens;
    use std::collections::HashMap;
    // The variables bound to an element of a constant array (`let t = W[i];`), by array.
    let mut elements: HashMap<ir::VarId, String> = HashMap::new();
    ir::visit::walk(&body.block, &mut |stmt, _| {
        if let ir::StmtKind::Let {
            var,
            rhs: ir::Rhs::Opaque(op),
            ..
        } = &stmt.kind
        {
            if let Ok(syn::Expr::Index(index)) = syn::parse2::<syn::Expr>(op.expr.clone()) {
                if let syn::Expr::Path(base) = &*index.expr {
                    if base.qself.is_none() && crate::lift::is_constant(&base.path) {
                        elements.insert(*var, format!("{}[]", base.to_token_stream()));
                    }
                }
            }
        }
    });
    let mut out: Vec<String> = Vec::new();
    let mut take = |op: &ir::Operand| {
        let names = match op {
            ir::Operand::Lit(tokens, ir::LitKind::Unknown | ir::LitKind::Float(_)) => {
                crate::lift::constants_in(tokens)
            }
            // An element of a constant array used as a float: the array, listed as `W[]`.
            ir::Operand::Var(v) => elements.get(v).cloned().into_iter().collect(),
            ir::Operand::Lit(..) => Vec::new(),
        };
        for name in names {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    };
    let is_float = |v: ir::VarId| matches!(body.vars[v].ty, ir::Ty::Float(_));
    ir::visit::walk(&body.block, &mut |stmt, _| match &stmt.kind {
        ir::StmtKind::Let { var, rhs, .. } if is_float(*var) => match rhs {
            ir::Rhs::Binary(_, a, b) => {
                take(a);
                take(b);
            }
            ir::Rhs::Neg(a) | ir::Rhs::Copy(a) => take(a),
            // (Not `powi`'s integer exponent.)
            ir::Rhs::Intrinsic(rule, args) => {
                let n = args.len() - usize::from(rule.int_exponent);
                args[..n].iter().for_each(&mut take);
            }
            _ => {}
        },
        ir::StmtKind::Assign { var, value, .. } if is_float(*var) => take(value),
        _ => {}
    });
    out
}

/// The first inactive expression that casts a float variable to an integer (`x as usize`),
/// which the generic copy of `#[reverse(hessian)]` cannot do (`__AdF as usize`).
fn float_to_integer_cast(body: &ir::Body) -> Option<proc_macro2::Span> {
    const INTEGERS: &[&str] = &[
        "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
    ];
    let casts_to_integer = |tokens: &TokenStream| {
        fn scan(tokens: TokenStream, after_as: &mut bool) -> bool {
            for t in tokens {
                match t {
                    proc_macro2::TokenTree::Ident(i) if *after_as => {
                        if INTEGERS.iter().any(|n| i == n) {
                            return true;
                        }
                        *after_as = false;
                    }
                    proc_macro2::TokenTree::Ident(i) => *after_as = i == "as",
                    proc_macro2::TokenTree::Group(g) => {
                        if scan(g.stream(), &mut false) {
                            return true;
                        }
                        *after_as = false;
                    }
                    _ => *after_as = false,
                }
            }
            false
        }
        scan(tokens.clone(), &mut false)
    };
    // The names of the float variables, as opaque code writes them.
    let floats: Vec<String> = body
        .vars
        .iter()
        .filter(|v| matches!(v.ty, ir::Ty::Float(_) | ir::Ty::Array(_)))
        .map(|v| v.name.to_string())
        .collect();
    fn mentions(tokens: &TokenStream, names: &[String]) -> bool {
        tokens.clone().into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => names.iter().any(|n| i == n),
            proc_macro2::TokenTree::Group(g) => mentions(&g.stream(), names),
            _ => false,
        })
    }
    let mut found = None;
    ir::visit::walk(&body.block, &mut |stmt, _| {
        let tokens = match &stmt.kind {
            ir::StmtKind::Let {
                rhs: ir::Rhs::Opaque(op),
                ..
            } => &op.expr,
            ir::StmtKind::Opaque { tokens, .. } => tokens,
            _ => return,
        };
        // (`revad::Float::to_f64(x) as usize`, the way to write it, is fine.)
        let converted = mentions(tokens, &["to_f64".to_owned()]);
        if found.is_none() && mentions(tokens, &floats) && casts_to_integer(tokens) && !converted {
            found = Some(stmt.span);
        }
    });
    found
}

/// Whether `attr` is `#[name]` or `#[path::name]`.
fn is_named(attr: &syn::Attribute, name: &str) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == name)
}

/// What forward mode does not differentiate yet (structs and other aggregates, methods): the
/// first such construct, with its description.
fn reject_in_forward(
    body: &ir::Body,
    sig: &parse::Signature,
) -> Option<(proc_macro2::Span, &'static str)> {
    let aggregates = "structs, tuples of arrays, nested containers or methods";
    if let Some(p) = sig
        .params
        .iter()
        .find(|p| matches!(p.kind, parse::ParamKind::Aggregate { .. }))
    {
        return Some((syn::spanned::Spanned::span(&p.ty), aggregates));
    }
    if let parse::RetTy::Aggregate(ty) = &sig.ret {
        return Some((syn::spanned::Spanned::span(ty), aggregates));
    }
    if let Some(var) = body
        .vars
        .iter()
        .find(|v| matches!(&v.ty, ir::Ty::Array(info) if info.agg))
    {
        return Some((var.span, aggregates));
    }
    body.callees
        .iter()
        .find(|c| matches!(c.kind, ir::CalleeKind::Method(_)))
        .map(|c| (c.span, aggregates))
}

/// The CPS backend keeps one cell per float; it has no cells for the floats of a struct or a
/// nested container yet.
fn reject_aggregates_in_cps(cx: &Errors, body: &ir::Body, sig: &parse::Signature) {
    if let Some(h) = body.hoisted.first() {
        cx.error_at(
            h.span,
            "#[reverse(cps)] does not pass closures to functions yet; use the default backend, \
             #[reverse]",
        );
    }
    let first = body
        .vars
        .iter()
        .find(|v| matches!(&v.ty, ir::Ty::Array(info) if info.agg));
    let method = body
        .callees
        .iter()
        .find(|c| c.kind != ir::CalleeKind::Function);
    // (A `&mut` to inactive data would be captured by several continuations.)
    let inactive_mut = sig.params.iter().find(|p| {
        matches!(p.kind, parse::ParamKind::Inactive)
            && matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_some())
    });
    if let Some(p) = inactive_mut {
        cx.error(
            &p.ty,
            "#[reverse(cps)] does not take `&mut` parameters of inactive data (a counter) yet; \
             use the default backend, #[reverse]",
        );
        return;
    }
    let span = match (first, &sig.ret, method) {
        (Some(var), _, _) => var.span,
        (None, parse::RetTy::Aggregate(ty), _) => syn::spanned::Spanned::span(ty),
        (None, _, Some(callee)) => callee.span,
        (None, _, None) => return,
    };
    cx.error_at(
        span,
        "#[reverse(cps)] does not differentiate structs, tuples, nested containers or method \
         calls yet; use the default backend, #[reverse]",
    );
}

/// Activity, snapshots and the plan of the reverse sweep, or `None` after reporting errors.
fn analyse(
    cx: &Errors,
    mut body: ir::Body,
    sig: &parse::Signature,
    split: bool,
) -> Option<(ir::Body, codegen::tape::plan::Plan)> {
    let mut activity = ir::activity::analyse(cx, &body, sig);
    if cx.has_errors() {
        return None;
    }
    ir::snapshot::insert(&mut body, &mut activity);
    let plan = codegen::tape::plan::make(cx, &body, activity, split);
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
) -> Option<(ir::Body, codegen::tape::plan::Plan)> {
    let activity = ir::activity::analyse(cx, &body, sig);
    if cx.has_errors() {
        return None;
    }
    let plan = codegen::tape::plan::make(&Errors::new(), &body, activity, split);
    Some((body, plan))
}

/// The function unchanged, every error, and stubs of the generated functions when the
/// signature is known (so call sites do not add "cannot find function" errors).
fn fallback(func: &syn::ItemFn, sig: Option<&parse::Signature>, cx: Errors) -> TokenStream {
    let errors = match cx.check() {
        Ok(()) => TokenStream::new(),
        Err(err) => err.to_compile_error(),
    };
    let stubs = sig.map(|sig| codegen::stubs(func, sig)).unwrap_or_default();
    quote! {
        #errors
        #func
        #stubs
    }
}

/// Whether two parameters have the same name.
fn has_duplicate_param(sig: &parse::Signature) -> bool {
    let params = &sig.params;
    (0..params.len()).any(|i| params[..i].iter().any(|p| p.ident == params[i].ident))
}

/// The attributes of this crate, which generate the same items for a function.
#[derive(Clone, Copy, PartialEq)]
enum Attribute {
    Reverse,
    Derivative,
}

impl Attribute {
    fn of(attr: &syn::Attribute) -> Option<Attribute> {
        let last = attr.path().segments.last()?;
        if last.ident == "reverse" {
            Some(Attribute::Reverse)
        } else if last.ident == "derivative" {
            Some(Attribute::Derivative)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
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
fn second_attribute(func: &syn::ItemFn, first: Attribute) -> Option<TokenStream> {
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
    if let Some(clash) = second_attribute(&func, Attribute::Derivative) {
        return clash;
    }
    mark_forward(&mut func);
    let cx = Errors::new();
    let parse::DerivativeArgs { vjp, jvp } = parse::derivative_args(&cx, args);
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
    let sig = parse::Signature::from_syn(&cx, &func.sig, &parse::Args::default());
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

#[cfg(test)]
pub(crate) mod snapshots {
    //! Expansion snapshots: `tests/expand/NAME.rs` expanded and pretty-printed must equal
    //! `tests/expand/NAME.expanded.rs`. `AD_SNAPSHOTS=overwrite cargo test -p revad-macros`
    //! rewrites the expected files; review the diff like code.

    use std::path::Path;

    use proc_macro2::TokenStream;

    /// The `#[reverse]` functions of `source`: the attribute's arguments and the function
    /// without the attribute.
    pub(crate) fn reverse_functions(source: &str) -> Vec<(TokenStream, syn::ItemFn)> {
        functions_with(source, "reverse")
    }

    /// The functions and methods of `source` with the attribute `name`, each with the
    /// attribute's arguments and without the attribute.
    fn functions_with(source: &str, name: &str) -> Vec<(TokenStream, syn::ItemFn)> {
        let file: syn::File = syn::parse_str(source).unwrap();
        let mut functions = Vec::new();
        // Functions, and the methods of `impl` blocks (as functions: the expansion is the same).
        let candidates = file.items.into_iter().flat_map(|item| match item {
            syn::Item::Fn(func) => vec![func],
            syn::Item::Impl(block) => block
                .items
                .into_iter()
                .filter_map(|item| match item {
                    syn::ImplItem::Fn(m) => Some(syn::ItemFn {
                        attrs: m.attrs,
                        vis: m.vis,
                        sig: m.sig,
                        block: Box::new(m.block),
                    }),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        });
        for mut func in candidates {
            let attr = func
                .attrs
                .iter()
                .position(|a| a.path().segments.last().is_some_and(|s| s.ident == name));
            let args = match attr.map(|i| func.attrs.remove(i)) {
                Some(attr) => match attr.meta {
                    syn::Meta::List(list) => list.tokens,
                    _ => TokenStream::new(),
                },
                None => continue,
            };
            functions.push((args, func));
        }
        functions
    }

    /// Every `#[reverse]` function of `source` expanded and pretty-printed.
    fn expand_source(source: &str) -> String {
        let mut items = Vec::new();
        // `#[forward]`'s items, without the function (which `#[reverse]`'s expansion shows).
        for (args, func) in functions_with(source, "forward") {
            let tokens = super::forward(args, quote::quote!(#func));
            let expanded: syn::File = syn::parse2(tokens).unwrap();
            items.extend(
                expanded.items.into_iter().filter(
                    |item| !matches!(item, syn::Item::Fn(f) if f.sig.ident == func.sig.ident),
                ),
            );
        }
        for (args, func) in reverse_functions(source) {
            let tokens = super::reverse(args, quote::quote!(#func));
            let expanded: syn::File = syn::parse2(tokens).unwrap();
            items.extend(expanded.items);
        }
        prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items,
        })
    }

    fn check(name: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
        let source = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        let actual = expand_source(&source);
        assert_snapshot(
            &dir.join(format!("{name}.expanded.rs")),
            &format!("expansion of {name}"),
            &actual,
        );
    }

    /// Compares `actual` with the snapshot at `path` (`what` names it in the failure), or
    /// rewrites the snapshot under `AD_SNAPSHOTS=overwrite`.
    pub(crate) fn assert_snapshot(path: &Path, what: &str, actual: &str) {
        if std::env::var_os("AD_SNAPSHOTS").is_some_and(|v| v == "overwrite") {
            std::fs::write(path, actual).unwrap();
            return;
        }
        let expected = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            expected == actual,
            "{what} changed; run with AD_SNAPSHOTS=overwrite and review.\n--- actual ---\n{actual}"
        );
    }

    /// A tool, not a check: `AD_EXPAND=path/to/file.rs cargo test -p revad-macros expand_file
    /// -- --nocapture` prints the expansion of the `#[reverse]` functions in that file.
    #[test]
    fn expand_file() {
        if let Some(path) = std::env::var_os("AD_EXPAND") {
            let source = read_tool_input(&path);
            println!("{}", expand_source(&source));
        }
    }

    /// The file a tool test was given. Tests run in `ad-macros/`; a relative path that is not
    /// found there is taken from the workspace root, where `cargo` was run.
    pub(crate) fn read_tool_input(path: &std::ffi::OsStr) -> String {
        let path = Path::new(path);
        let path = if path.exists() {
            path.to_path_buf()
        } else {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
        };
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
    }

    #[test]
    fn straight_line() {
        check("straight_line");
    }

    #[test]
    fn loops() {
        check("loops");
    }

    /// A chain of 40 doublings expands to 40 forward and 40 reverse lines: sharing is kept.
    #[test]
    fn sharing_chain() {
        check("sharing_chain");
    }

    #[test]
    fn calls() {
        check("calls");
    }

    #[test]
    fn closures() {
        check("closures");
    }

    /// A function argument called through its companions; a closure passed to a function,
    /// lifted into a hidden function, with its captured variables' adjoint cells.
    #[test]
    fn function_args() {
        check("function_args");
    }

    /// `&mut` and `&f64` parameters, a callee writing through `&mut`, a tuple result.
    #[test]
    fn mutation() {
        check("mutation");
    }

    /// The CPS backend on one function per construct.
    #[test]
    fn cps() {
        check("cps");
    }

    /// Views (sub-slices, `split_at`, chunks, windows, `iter().rev()`, `copy_from_slice`):
    /// index arithmetic on the base array, no copies.
    #[test]
    fn views() {
        check("views");
    }

    /// Growing and reshaping float vectors, both backends.
    #[test]
    fn vectors() {
        check("vectors");
    }

    /// The expansion of the fixture `tests/expand/{fixture}.rs`, as a function from a
    /// function's name to the text of its `NAME_vjp`.
    fn vjp_of(fixture: &str) -> impl Fn(&str) -> String {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
        let source = std::fs::read_to_string(dir.join(format!("{fixture}.rs"))).unwrap();
        let expanded = expand_source(&source);
        move |name: &str| {
            let start = expanded.find(&format!("fn {name}_vjp(")).unwrap();
            let end = start + expanded[start..].find("\n}\n").unwrap();
            expanded[start..end].to_string()
        }
    }

    /// A local array written by one loop and read by later ones is read again by the reverse
    /// sweep, not stored per read; written after the reads, the reads are stored.
    #[test]
    fn array_reads() {
        check("array_reads");
        let vjp = vjp_of("array_reads");
        let read_only = vjp("exp_then_read");
        // (The first loop stores its `exp`s: transcendentals are stored, not evaluated again.)
        assert!(!read_only.contains("__stack.push(__t5)"), "{read_only}");
        assert!(!read_only.contains("__stack.push(__j_2)"), "{read_only}");
        assert!(read_only.contains("let __t5 = e[__j_2];"), "{read_only}");
        assert!(
            read_only.contains("for __j_2 in (0..e.len()).rev()"),
            "{read_only}"
        );
        let written = vjp("written_after");
        assert!(written.contains("__stack.push(__t5);"), "{written}");
    }

    /// The last loop's reverse sweep fused into the forward sweep of `NAME_vjp`: nothing
    /// pushed, no second pass; scaled afterwards when more work follows the loop.
    #[test]
    fn fused_loops() {
        check("fused_loops");
        let vjp = vjp_of("fused_loops");
        for fused in ["dot", "mean_square", "log_sum_exp"] {
            let code = vjp(fused);
            assert!(!code.contains("(0..x.len()).rev()"), "{code}");
        }
        assert!(!vjp("dot").contains("__stack"));
        assert!(vjp("mean_square").contains("__adj_w *= __adj_s;"));
        assert!(vjp("log_sum_exp").contains("__adj_m += __adj_m_in_loop * __adj_s;"));
        assert!(vjp("compound").contains(".rev()"));
    }

    /// Structs, places, struct expressions, `&mut` structs, methods (the tape backend).
    #[test]
    fn structs() {
        check("structs");
    }

    /// Enums: `match` arms that bind variant fields (direct `match` reads, no clones),
    /// variant expressions, an enum result.
    #[test]
    fn enums() {
        check("enums");
    }

    #[test]
    fn forward() {
        check("forward");
    }

    /// Loops, slices and chains over aggregates: the items are places (`ps[__i1].mass`),
    /// nothing is copied.
    #[test]
    fn aggregate_loops() {
        check("aggregate_loops");
    }

    /// Generic functions over `revad::Float`: `T` and its constants where others have `f64`.
    #[test]
    fn generics() {
        check("generics");
    }
}
