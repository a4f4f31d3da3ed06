//! `#[reverse(hessian)]`: what the generic copy of the function (`lift`) cannot take, and the
//! second-order items (`NAME_hvp`, `NAME_hessian`, `NAME_hessian_diag`).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use super::reverse;
use crate::{codegen, ir, parse};

/// `#[reverse(hessian)]`: the generic copy of the function (`lift`), expanded like any
/// `#[reverse]` function, and `NAME_hvp`, `NAME_hessian`, `NAME_hessian_diag` that run its
/// `_vjp` on `revad::Dual` numbers.
pub(super) fn second_order(
    func: &syn::ItemFn,
    sig: &parse::Signature,
    body: &ir::Body,
) -> TokenStream {
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
    // (The copy takes every `f64` for a dual number: an `Option<f64>` of the caller's would
    // not be one.)
    if let Some(p) = sig.params.iter().find(|p| {
        matches!(p.kind, parse::ParamKind::Inactive) && mentions_float(p.ty.to_token_stream())
    }) {
        return reject(
            syn::spanned::Spanned::span(&p.ty),
            "parameters of floats and float arrays (not `Option`s or other wrappers of \
             floats; pass the float, or make the parameter a constant of the body)",
        );
    }
    // (An item cannot take the copy's float type parameter.)
    if let Some(item) = float_fn_item(&func.block) {
        return reject(
            syn::spanned::Spanned::span(&item.sig.ident),
            "a body without `fn` items of floats (write this one as a closure, `let sq = |v: \
             f64| v * v;`, or as a function of its own with `#[reverse(hessian)]`)",
        );
    }
    if sig.in_impl {
        return reject(
            syn::spanned::Spanned::span(&func.sig.ident),
            "a free function (not a method or an associated function)",
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
    // (`nalgebra`'s matrices have rules for `f64` and `f32`, not for dual numbers.)
    if let Some(callee) = body.callees.iter().find(|c| c.rule.is_some()) {
        return reject(
            callee.span,
            "floats and float arrays (not `nalgebra`'s vectors and matrices, whose rules are \
             for `f64` and `f32`)",
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
    // (The copy runs on dual numbers of the function's float type, which a cast cannot turn
    // into the other one.)
    if generic.is_none() {
        let other = match float {
            ir::FloatTy::F32 => "f64",
            _ => "f32",
        };
        if let Some(span) = cast_to(&func.block, other) {
            let message = format!(
                "#[reverse(hessian)] runs a copy of this function on dual numbers of its float \
                 type, which cannot be cast to `{other}`; write the function in one float type"
            );
            return syn::Error::new(span, message).to_compile_error();
        }
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

/// The constants (paths in upper case: `G`, `physics::G`) that the body uses as floats, in
/// operands of float arithmetic and intrinsics and values of floats (`G * x`, `G * 0.5`,
/// `let g = G;`): the generic copy of `#[reverse(hessian)]` converts them like literals.
pub(super) fn float_constants(body: &ir::Body) -> Vec<String> {
    use std::collections::HashMap;
    // The variables bound to an element of a constant array or table (`let t = W[i];`,
    // `let t = T[i][j];`), by array.
    let mut elements: HashMap<ir::VarId, String> = HashMap::new();
    ir::visit::walk(&body.block, &mut |stmt, _| {
        if let ir::StmtKind::Let {
            var,
            rhs: ir::Rhs::Opaque(op),
            ..
        } = &stmt.kind
        {
            if let Ok(index) = syn::parse2::<syn::Expr>(op.expr.clone()) {
                if let Some(name) = crate::lift::constant_element(&index) {
                    elements.insert(*var, name);
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
            // An element of a constant array used as a float: the array, listed as `W[]` (a
            // table as `T[][]`).
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
pub(super) fn float_to_integer_cast(body: &ir::Body) -> Option<proc_macro2::Span> {
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

/// Whether `tokens` name `f64` or `f32`.
fn mentions_float(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "f64" || i == "f32",
        proc_macro2::TokenTree::Group(g) => mentions_float(g.stream()),
        _ => false,
    })
}

/// A `fn` item in `block` (at any depth) whose signature names `f64` or `f32`.
fn float_fn_item(block: &syn::Block) -> Option<&syn::ItemFn> {
    use syn::visit::Visit;
    struct Find<'a>(Option<&'a syn::ItemFn>);
    impl<'a> Visit<'a> for Find<'a> {
        fn visit_item_fn(&mut self, item: &'a syn::ItemFn) {
            if self.0.is_none() && mentions_float(item.sig.to_token_stream()) {
                self.0 = Some(item);
            }
        }
    }
    let mut find = Find(None);
    find.visit_block(block);
    find.0
}

/// The span of a cast `e as TY` in `block` whose type is the path `ty` (`f64`), if any.
fn cast_to(block: &syn::Block, ty: &str) -> Option<proc_macro2::Span> {
    use syn::visit::Visit;
    struct Find<'t>(&'t str, Option<proc_macro2::Span>);
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr_cast(&mut self, cast: &'a syn::ExprCast) {
            if self.1.is_none() {
                if let syn::Type::Path(p) = &*cast.ty {
                    if p.qself.is_none() && p.path.is_ident(self.0) {
                        self.1 = Some(syn::spanned::Spanned::span(&cast.ty));
                    }
                }
            }
            syn::visit::visit_expr_cast(self, cast);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut find = Find(ty, None);
    find.visit_block(block);
    find.1
}
