//! Closures passed to functions: lifted into hidden annotated functions.
//!
//! A closure literal passed to a function with a derivative (`integrate(|x| c * x * x, a,
//! b)`) cannot be inlined: the callee calls it. It becomes a hidden function whose last
//! parameters are the variables it captures (`fn __ad_closure_outer_0(x: f64, c: f64) -> f64
//! { c * x * x }`, differentiated like any annotated function), and the call passes the
//! captured variables as extra arguments, so their adjoints (and tangents) flow back through
//! the call like those of any argument. `codegen::closures` emits the function, the struct
//! that stands for the closure, and the call.

use std::collections::HashSet;

use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::closure::Closure;
use super::{Binding, Lowerer};
use crate::ir::{Capture, CaptureKind, Hoisted, Ty, VarId};

impl Lowerer<'_> {
    /// Lifts `closure`, passed to a function: the index of its [`Hoisted`] and the variables
    /// it captures, in order. `None` after an error.
    pub(super) fn hoist_closure(&mut self, closure: &Closure) -> Option<(usize, Vec<VarId>)> {
        let expr = &closure.expr;
        let span = expr.span();
        if self.sig.in_impl {
            self.cx.error_at(
                span,
                "#[reverse] passes closures to functions from free functions only; in a method, \
                 pass the values the closure captures to a free annotated function that builds \
                 it",
            );
            return None;
        }
        if let Some(asyncness) = &expr.asyncness {
            self.cx
                .error(asyncness, "async closures are not supported by #[reverse]");
            return None;
        }
        let float = self.sig.default_float;
        let float_ty = float.ident();
        let mut params = Vec::new();
        let mut bound = HashSet::new();
        for (k, input) in expr.inputs.iter().enumerate() {
            let (pat, ty) = match input {
                syn::Pat::Type(t) => (&*t.pat, t.ty.to_token_stream()),
                pat => (pat, quote!(#float_ty)),
            };
            // `|_, b| b * x`: an argument the body does not read, under a name of its own.
            if let syn::Pat::Wild(wild) = pat {
                let span = proc_macro2::Span::mixed_site().located_at(wild.underscore_token.span);
                params.push((syn::Ident::new(&format!("__ad_ignored{k}"), span), ty));
                continue;
            }
            let syn::Pat::Ident(p) = pat else {
                self.cx.error(
                    input,
                    "a closure passed to a function takes its arguments by name (`|x| ..`, `|x: \
                     f64| ..`)",
                );
                return None;
            };
            if p.by_ref.is_some() || p.subpat.is_some() {
                self.cx.error(
                    input,
                    "a closure passed to a function takes its arguments by name",
                );
                return None;
            }
            bound.insert(p.ident.to_string());
            params.push((p.ident.clone(), ty));
        }
        // The names the body reads that the closure's scope binds: its captures.
        let mut names = Names::default();
        names.visit_expr(&expr.body);
        let mut captures = Vec::new();
        let mut vars = Vec::new();
        for name in names.used {
            if bound.contains(&name.to_string()) || names.bound.contains(&name.to_string()) {
                continue;
            }
            let binding = closure
                .scopes
                .iter()
                .rev()
                .find_map(|scope| scope.get(&name.to_string()));
            let var = match binding {
                None => continue,
                Some(Binding::Var(v)) => *v,
                Some(Binding::Poisoned) => return None,
                Some(_) => {
                    self.cx.error(
                        &name,
                        format!(
                            "this closure is passed to a function, which #[reverse] lifts into a \
                             function of its own, and `{name}` (a closure, a tuple, a slice or a \
                             part of a value) cannot be passed to it; bind the floats it needs \
                             to variables of their own first, with their type (`let k: f64 = \
                             p.k;`: without it, `let` names the part)"
                        ),
                    );
                    return None;
                }
            };
            let kind = match self.capture_kind(var) {
                Some(kind) => kind,
                None => {
                    // (A parameter's type is written: a struct, a nested container or a
                    // `&mut`, which the lifted function cannot take with its derivative.)
                    let message = match self.vars[var].param {
                        Some(_) => format!(
                            "this closure is passed to a function, which #[reverse] lifts into \
                             a function of its own taking the captured `{name}`, and it takes \
                             floats, float arrays, integers and `bool`s only (not structs, \
                             nested containers or `&mut`); bind the floats the closure reads \
                             to variables of their own first (`let k: f64 = {name}.k;`) and capture \
                             those"
                        ),
                        None => format!(
                            "this closure is passed to a function, which #[reverse] lifts into \
                             a function of its own taking the captured `{name}`, and the macro \
                             does not know its type; annotate it (`let {name}: usize = ..`), \
                             or capture floats, float arrays, integers and `bool`s only"
                        ),
                    };
                    self.cx.error(&name, message);
                    return None;
                }
            };
            captures.push(Capture {
                ident: name.clone(),
                kind,
            });
            vars.push(var);
        }
        let index = self.hoisted.len();
        // (`__ad_closure_outer_0`; a closure in a closure: `__ad_closure_ad_closure_outer_0_0`.)
        let caller = self.sig.name.to_string();
        let caller = caller.trim_start_matches('_');
        let function = format_ident!("__ad_closure_{}_{}", caller, index, span = span);
        let object = format_ident!("__AdClosure_{}_{}", caller, index, span = span);
        self.hoisted.push(Hoisted {
            function,
            object,
            params,
            body: expr.body.to_token_stream(),
            captures,
            float,
            span,
        });
        Some((index, vars))
    }

    /// Whether `closure` computes integers (`|i| n - 1 - i`, `|i: usize| i % 3`), for an
    /// inactive function argument (`G: Fn(usize) -> usize`): it is then passed as written,
    /// not lifted. Its parameters are all of inactive types, or untyped with a body that
    /// reads an integer (a literal or an integer variable), no float, and calls nothing but
    /// `.len()`. A wrong guess either way is rustc's error at the call, never a derivative.
    pub(super) fn is_integer_closure(&self, closure: &syn::ExprClosure) -> bool {
        let mut typed = !closure.inputs.is_empty();
        for input in &closure.inputs {
            match input {
                syn::Pat::Type(t) if crate::parse::is_inactive_type(&t.ty) => {}
                syn::Pat::Type(_) => return false,
                _ => typed = false,
            }
        }
        if typed {
            return true;
        }
        let mut scan = IntegerScan {
            lowerer: self,
            calls: false,
            integer: false,
        };
        scan.visit_expr(&closure.body);
        scan.integer && !scan.calls && !self.is_float_expr(&closure.body)
    }

    /// How the captured variable `v` is passed to the lifted closure.
    fn capture_kind(&self, v: VarId) -> Option<CaptureKind> {
        let var = &self.vars[v];
        let default = self.sig.default_float;
        Some(match &var.ty {
            Ty::Float(t) => CaptureKind::Scalar(t.unwrap_or(default)),
            Ty::Array(info) if !info.agg => CaptureKind::Array(info.elem.unwrap_or(default)),
            Ty::Usize => CaptureKind::Other(quote!(usize)),
            Ty::I32 => CaptureKind::Other(quote!(i32)),
            Ty::Bool => CaptureKind::Other(quote!(bool)),
            // An integer nothing pinned down (`for k in 0..3`): `usize`, which the call then
            // gives it in the generated code (another integer type is rustc's error there).
            Ty::Unknown if var.param.is_none() => CaptureKind::Other(quote!(usize)),
            Ty::Other | Ty::Unknown => {
                let param = &self.sig.params[var.param?];
                match &param.ty {
                    syn::Type::Reference(r) if r.mutability.is_some() => return None,
                    syn::Type::Path(_) | syn::Type::Reference(_) => {
                        CaptureKind::Other(param.ty.to_token_stream())
                    }
                    _ => return None,
                }
            }
            Ty::Array(_) => return None,
        })
    }
}

/// The single-segment names a closure body reads, in order of first use, and the names it
/// binds itself (`let`, closure parameters, patterns).
#[derive(Default)]
struct Names {
    used: Vec<syn::Ident>,
    seen: HashSet<String>,
    bound: HashSet<String>,
}

impl<'ast> Visit<'ast> for Names {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none() {
            if let Some(ident) = p.path.get_ident() {
                if self.seen.insert(ident.to_string()) {
                    self.used.push(ident.clone());
                }
            }
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.bound.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // (`vec![x; n]`, `format!(..)`: the arguments may read variables.)
        if let Ok(args) = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }
}

/// What `is_integer_closure` looks for in a closure's body.
struct IntegerScan<'a, 'l> {
    lowerer: &'a Lowerer<'l>,
    calls: bool,
    integer: bool,
}

impl<'ast> Visit<'ast> for IntegerScan<'_, '_> {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.calls = true;
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, c: &'ast syn::ExprMethodCall) {
        self.calls |= c.method != "len";
        syn::visit::visit_expr_method_call(self, c);
    }

    fn visit_expr_macro(&mut self, m: &'ast syn::ExprMacro) {
        self.calls = true;
        syn::visit::visit_expr_macro(self, m);
    }

    fn visit_lit_int(&mut self, lit: &'ast syn::LitInt) {
        let suffix = lit.suffix();
        self.integer |= suffix != "f64" && suffix != "f32";
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(ident) = p.path.get_ident() {
            if let Some(Binding::Var(v)) = self.lowerer.lookup(&ident.to_string()) {
                self.integer |= matches!(self.lowerer.vars[*v].ty, Ty::Usize | Ty::I32);
            }
        }
        syn::visit::visit_expr_path(self, p);
    }
}
