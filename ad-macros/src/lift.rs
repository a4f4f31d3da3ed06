//! The generic copy of a function that `#[reverse(hessian)]` differentiates on dual numbers.
//!
//! Second derivatives are forward over reverse: the reverse sweep of `f`, run on
//! `revad::Dual<f64>` instead of `f64`, carries the directional derivative of the gradient
//! along the dual parts (`H·v`). The reverse sweep is generated for a copy of `f` that is
//! generic over its float type, `__ad_lifted_f<__AdF: revad::Float>`, made here by rewriting
//! the syntax of `f` before the pipeline sees it:
//!
//! ```text
//! fn f(x: f64, w: &[f64]) -> f64 { 2.0 * x + w[0].sin() + (n as f64) }
//! // becomes
//! fn __ad_lifted_f<__AdF: ::revad::Float + Send + 'static>(x: __AdF, w: &[__AdF]) -> __AdF
//! where // (references multiply as on `f64`: `x.iter().map(|a| a * a)`)
//!     for<'r> __AdF: ArithByRef<'r>, for<'r> &'r __AdF: RefArith<'r, __AdF>,
//! {
//!     __AdF::from_f64(2.0) * x + w[0].sin()
//!         + __AdF::from_f64(n as f64)
//! }
//! ```
//!
//! The type `f64` becomes `__AdF` wherever it is written; a float literal, a cast `e as f64`
//! and a constant of `f64` (`f64::consts::PI`) become `from_f64` of the same value, which is
//! exact; a constant of the module (a path in upper case, `G`) goes through
//! `revad::__private::Lifted`, which converts a float one and keeps an integer one; `f64::sin(x)` becomes `__AdF::sin(x)`. Every other token keeps its span,
//! so an error in the copy (a cast of a float to an integer, a call of a function that is
//! not generic) is reported at the user's code.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;

/// The name of the generic copy of `name`.
pub(crate) fn lifted_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("__ad_lifted_{}", name, span = name.span())
}

/// The float type parameter of the copy.
pub(crate) fn float_param() -> syn::Ident {
    syn::Ident::new("__AdF", Span::call_site())
}

/// The generic copy of `func` (see the module documentation): `float` is the float type the
/// function is written in (`f64` or `f32`).
/// `floats` are the constants the body uses as floats (`G` in `G * x`), as their paths print.
pub(crate) fn lift(func: &syn::ItemFn, float: &str, floats: &[String]) -> syn::ItemFn {
    let mut lifted = func.clone();
    lifted.sig.ident = lifted_name(&func.sig.ident);
    let t = float_param();
    lifted
        .sig
        .generics
        .params
        // (`Send + 'static`: the reverse sweep of a loop keeps a local nested container or
        // struct of `__AdF`s boxed on the value stack.)
        .push(syn::parse_quote!(#t: ::revad::Float + ::core::marker::Send + 'static));
    // Code over `.iter()` multiplies references (`|a| a * a`), which `f64` allows.
    let where_clause = lifted.sig.generics.make_where_clause();
    where_clause
        .predicates
        .push(syn::parse_quote!(for<'__ad_r> #t: ::revad::__private::ArithByRef<'__ad_r>));
    where_clause.predicates.push(
        syn::parse_quote!(for<'__ad_r> &'__ad_r #t: ::revad::__private::RefArith<'__ad_r, #t>),
    );
    lifted.attrs.retain(|a| a.path().is_ident("allow"));
    lifted.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    let mut rewrite = Rewrite {
        float: float.to_owned(),
        floats: floats.to_vec(),
        name: func.sig.ident.clone(),
    };
    rewrite.visit_signature_mut(&mut lifted.sig);
    rewrite.visit_block_mut(&mut lifted.block);
    lifted
}

/// The generic copy of a function that is already generic over its float type: the function
/// itself under the copy's name.
pub(crate) fn generic_copy(func: &syn::ItemFn) -> syn::ItemFn {
    let mut copy = func.clone();
    copy.sig.ident = lifted_name(&func.sig.ident);
    copy.attrs.retain(|a| a.path().is_ident("allow"));
    copy.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    copy
}

/// The `f64` instance of a function generic over its float type `t` (`fn f<T: Float>`): its
/// signature with `T` replaced by `f64` and no generic parameter, for the functions of
/// `#[reverse(hessian)]`, which are of that instance.
pub(crate) fn instance_f64(
    func: &syn::ItemFn,
    sig: &crate::parse::Signature,
    t: crate::ir::FloatTy,
) -> (syn::ItemFn, crate::parse::Signature) {
    use crate::ir::FloatTy;
    use crate::parse::{ParamKind, RetTy};
    struct Instance(String);
    impl VisitMut for Instance {
        fn visit_type_path_mut(&mut self, ty: &mut syn::TypePath) {
            if ty.qself.is_none() && ty.path.get_ident().is_some_and(|i| *i == self.0) {
                ty.path = syn::parse_quote!(f64);
                return;
            }
            syn::visit_mut::visit_type_path_mut(self, ty);
        }
    }
    let name = t.ident().to_string();
    let mut func = func.clone();
    func.sig.generics = syn::Generics::default();
    Instance(name.clone()).visit_signature_mut(&mut func.sig);
    let float = |f: FloatTy| if f == t { FloatTy::F64 } else { f };
    let mut sig = sig.clone();
    for p in &mut sig.params {
        Instance(name.clone()).visit_type_mut(&mut p.ty);
        p.kind = match p.kind.clone() {
            ParamKind::Scalar(f) => ParamKind::Scalar(float(f)),
            ParamKind::Array { elem, len } => ParamKind::Array {
                elem: float(elem),
                len,
            },
            ParamKind::Slice { elem } => ParamKind::Slice { elem: float(elem) },
            other => other,
        };
    }
    if let RetTy::Scalar(f) = sig.ret {
        sig.ret = RetTy::Scalar(float(f));
    }
    sig.default_float = FloatTy::F64;
    sig.generics = Vec::new();
    (func, sig)
}

struct Rewrite {
    /// `f64` or `f32`.
    float: String,
    /// The constants used as floats (see [`lift`]).
    floats: Vec<String>,
    /// The function's name: a recursive call is the copy's (`f(x - 1.0)` in `f`).
    name: syn::Ident,
}

/// The constants (paths in upper case) inside `tokens`, as their paths print.
pub(crate) fn constants_in(tokens: &TokenStream) -> Vec<String> {
    struct Collect(Vec<String>);
    impl syn::visit::Visit<'_> for Collect {
        fn visit_expr_path(&mut self, p: &syn::ExprPath) {
            if p.qself.is_none() && is_constant(&p.path) {
                self.0.push(p.to_token_stream().to_string());
            }
        }
    }
    let mut collect = Collect(Vec::new());
    if let Ok(expr) = syn::parse2::<syn::Expr>(tokens.clone()) {
        syn::visit::Visit::visit_expr(&mut collect, &expr);
    }
    collect.0
}

/// Whether `path` names a constant by Rust's naming convention (`G`, `physics::DAMPING`,
/// `usize::MAX`): its last segment is in upper case.
pub(crate) fn is_constant(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|s| {
        let name = s.ident.to_string();
        name.chars().any(|c| c.is_ascii_uppercase())
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && s.arguments.is_none()
    })
}

impl Rewrite {
    /// `__AdF::from_f64(value)` of a value of the function's float type (of `f32` through
    /// `f64`, exactly).
    fn converted(&self, value: TokenStream) -> syn::Expr {
        let t = float_param();
        match self.float.as_str() {
            "f32" => syn::parse_quote!(#t::from_f64((#value) as f64)),
            _ => syn::parse_quote!(#t::from_f64(#value)),
        }
    }

    fn is_float(&self, path: &syn::Path) -> bool {
        path.get_ident().is_some_and(|i| *i == self.float)
    }

    /// Whether `path` is `f64::NAME`, `f64::consts::NAME`, `std::f64::consts::NAME` or
    /// `core::f64::consts::NAME`: a constant (or function) of the float type.
    fn float_item(&self, path: &syn::Path) -> Option<syn::Ident> {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let at = segments.iter().position(|s| *s == self.float)?;
        let prefix_ok = matches!(
            segments[..at]
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            [] | ["std"] | ["core"]
        );
        prefix_ok.then(|| path.segments.last().map(|s| s.ident.clone()))?
    }

    /// The tokens of `vec![..]` and `[..]`-like macros the pipeline reads, rewritten.
    fn rewrite_vec(&mut self, mac: &mut syn::Macro) {
        use syn::parse::Parser;
        use syn::punctuated::Punctuated;
        let tokens = mac.tokens.clone();
        // `vec![x; n]`
        let repeat = |input: syn::parse::ParseStream<'_>| {
            let value: syn::Expr = input.parse()?;
            let _: syn::Token![;] = input.parse()?;
            let len: syn::Expr = input.parse()?;
            Ok((value, len))
        };
        if let Ok((mut value, len)) = repeat.parse2(tokens.clone()) {
            self.visit_expr_mut(&mut value);
            mac.tokens = quote!(#value; #len);
            return;
        }
        if let Ok(mut items) =
            Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(tokens)
        {
            for item in items.iter_mut() {
                self.visit_expr_mut(item);
            }
            mac.tokens = items.into_token_stream();
        }
    }
}

impl VisitMut for Rewrite {
    fn visit_type_path_mut(&mut self, ty: &mut syn::TypePath) {
        if ty.qself.is_none() && self.is_float(&ty.path) {
            let mut t = float_param();
            t.set_span(ty.path.segments[0].ident.span());
            ty.path = syn::Path::from(t);
            return;
        }
        syn::visit_mut::visit_type_path_mut(self, ty);
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        match expr {
            // `v[1] -= x[0] * v[0];`: the right side bound first. (On `f64` the place is taken
            // after the value; an operator of a dual number takes it first, `&mut v[1]`, which
            // the value's read of `v` may not share.)
            syn::Expr::Binary(b)
                if crate::ir::lower::is_compound_assign(&b.op)
                    && matches!(&*b.left, syn::Expr::Index(_)) =>
            {
                syn::visit_mut::visit_expr_binary_mut(self, b);
                let (left, op, right) = (&b.left, &b.op, &b.right);
                let value = syn::Ident::new("__ad_rhs", Span::mixed_site());
                *expr = syn::parse_quote!({ let #value = #right; #left #op #value; });
                return;
            }
            syn::Expr::Lit(lit) => {
                // (`2.5`, `0.5f32`, and `10f64`, an integer literal of a float type.)
                let float = match &lit.lit {
                    syn::Lit::Float(_) => true,
                    syn::Lit::Int(i) => matches!(i.suffix(), "f32" | "f64"),
                    _ => false,
                };
                if float {
                    let value = lit.to_token_stream();
                    *expr = self.converted(value);
                }
                return;
            }
            // `z %= c`: `z = z % c` (the dual numbers' `%=` takes its right side by
            // reference).
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::RemAssign(_)) => {
                syn::visit_mut::visit_expr_binary_mut(self, b);
                let (left, right) = (&b.left, &b.right);
                *expr = syn::parse_quote!(#left = #left % (#right));
                return;
            }
            // A recursive call: the copy's.
            syn::Expr::Call(call) => {
                if let syn::Expr::Path(p) = &mut *call.func {
                    if p.qself.is_none() && p.path.is_ident(&self.name) {
                        let mut lifted = lifted_name(&self.name);
                        lifted.set_span(self.name.span());
                        p.path = syn::Path::from(lifted);
                    }
                }
            }
            syn::Expr::Cast(cast) => {
                let to_float = matches!(&*cast.ty, syn::Type::Path(p) if p.qself.is_none() && self.is_float(&p.path));
                if to_float {
                    // `n as f64` on an integer: its value, converted.
                    self.visit_expr_mut(&mut cast.expr);
                    let inner = &cast.expr;
                    let float = syn::Ident::new(&self.float, Span::call_site());
                    *expr = self.converted(quote!((#inner) as #float));
                    return;
                }
            }
            syn::Expr::Path(path) if path.qself.is_none() => {
                if self.float_item(&path.path).is_none() && is_constant(&path.path) {
                    // A constant of the module (`const G: f64`): one used as a float is
                    // converted like a literal; another goes through `revad::__private::Lifted`,
                    // which converts a float and keeps an integer.
                    let t = float_param();
                    let text = path.to_token_stream().to_string();
                    *expr = match self.floats.contains(&text) {
                        true => {
                            let float = syn::Ident::new(&self.float, Span::call_site());
                            self.converted(quote!((#path) as #float))
                        }
                        false => syn::parse_quote!(::revad::__private::Lifted::<#t>::lifted(#path)),
                    };
                    return;
                }
                if let Some(name) = self.float_item(&path.path) {
                    let is_const = name
                        .to_string()
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                    if is_const {
                        // The constant's value, converted exactly.
                        let float = syn::Ident::new(&self.float, Span::call_site());
                        let consts = path.path.segments.iter().any(|s| s.ident == "consts");
                        let value = match consts {
                            true => quote!(::core::#float::consts::#name),
                            false => quote!(#float::#name),
                        };
                        *expr = self.converted(value);
                    } else {
                        // `f64::sin` as a function: the trait's.
                        let t = float_param();
                        *expr = syn::parse_quote!(#t::#name);
                    }
                    return;
                }
            }
            // `W[i]` of a constant array of floats (listed as `W[]`), or `T[i][j]` of a
            // constant table (`T[][]`): the element, converted.
            syn::Expr::Index(_) => {
                if let Some(name) = constant_element(expr) {
                    if self.floats.contains(&name) {
                        let mut level = &mut *expr;
                        while let syn::Expr::Index(index) = level {
                            self.visit_expr_mut(&mut index.index);
                            level = &mut *index.expr;
                        }
                        let float = syn::Ident::new(&self.float, Span::call_site());
                        let value = quote!((#expr) as #float);
                        *expr = self.converted(value);
                        return;
                    }
                }
            }
            // `[x; N]`: the length is a constant expression of `usize`.
            syn::Expr::Repeat(repeat) => {
                self.visit_expr_mut(&mut repeat.expr);
                return;
            }
            syn::Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
                self.rewrite_vec(&mut mac.mac);
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        if mac.path.is_ident("vec") {
            self.rewrite_vec(mac);
        }
    }

    // Items nested in the body are not the function's code.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}

    // Patterns and const generic arguments are evaluated at compile time: a constant there
    // stays as written.
    // (The type of a binding, `let v: Vec<f64>`, is rewritten.)
    fn visit_pat_mut(&mut self, pat: &mut syn::Pat) {
        match pat {
            syn::Pat::Type(typed) => {
                self.visit_pat_mut(&mut typed.pat);
                self.visit_type_mut(&mut typed.ty);
            }
            syn::Pat::Tuple(tuple) => tuple.elems.iter_mut().for_each(|p| self.visit_pat_mut(p)),
            _ => {}
        }
    }

    fn visit_generic_argument_mut(&mut self, arg: &mut syn::GenericArgument) {
        if let syn::GenericArgument::Type(ty) = arg {
            self.visit_type_mut(ty);
        }
    }
}

/// For `W[i]` or `T[i][j]` on a constant (a path in upper case), its name with one `[]` per
/// index (`W[]`, `T[][]`): how `float_constants` lists the constant arrays whose elements
/// the body uses as floats.
pub(crate) fn constant_element(expr: &syn::Expr) -> Option<String> {
    let mut depth = 0;
    let mut base = expr;
    while let syn::Expr::Index(index) = base {
        depth += 1;
        base = &index.expr;
    }
    match base {
        syn::Expr::Path(path) if depth > 0 && path.qself.is_none() && is_constant(&path.path) => {
            Some(format!("{}{}", path.to_token_stream(), "[]".repeat(depth)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lifted(source: TokenStream) -> String {
        let func: syn::ItemFn = syn::parse2(source).unwrap();
        lift(&func, "f64", &[]).to_token_stream().to_string()
    }

    #[test]
    fn types_literals_casts_and_constants() {
        let out = lifted(quote! {
            fn f(x: f64, w: &[f64], n: usize) -> f64 {
                let v: Vec<f64> = vec![0.0; n];
                let c = f64::consts::PI * 2.5 + std::f64::consts::E + f64::EPSILON;
                f64::max(x, w[0]) * c + (n as f64) + v[0]
            }
        });
        let expected = quote! {
            #[doc(hidden)]
            fn __ad_lifted_f<__AdF: ::revad::Float + ::core::marker::Send + 'static>(
                x: __AdF,
                w: &[__AdF],
                n: usize
            ) -> __AdF
            where
                for<'__ad_r> __AdF: ::revad::__private::ArithByRef<'__ad_r>,
                for<'__ad_r> &'__ad_r __AdF: ::revad::__private::RefArith<'__ad_r, __AdF>
            {
                let v: Vec<__AdF> = vec![__AdF::from_f64(0.0); n];
                let c = __AdF::from_f64(::core::f64::consts::PI)
                    * __AdF::from_f64(2.5)
                    + __AdF::from_f64(::core::f64::consts::E)
                    + __AdF::from_f64(f64::EPSILON);
                __AdF::max(x, w[0]) * c
                    + (__AdF::from_f64((n) as f64))
                    + v[0]
            }
        };
        assert_eq!(out, expected.to_string());
    }
}
