//! Closures: values of the lowering, inlined where they are called.
//!
//! A closure is lowered at each call, in the scope it was created in, with its parameters
//! bound to the arguments. So a closure that captures an active variable adds to that
//! variable's adjoint directly: the free variables of a backpropagator receive their
//! adjoints, which is the point of Pearlmutter & Siskind (TOPLAS 2008, sec. 4).
//!
//! ```text
//! // Before                         // After (at the call `f(a)`)
//! let f = |x| x * w;               let __t0 = a * w;
//! let y = f(a);                    let y = __t0;
//! ```

use std::collections::HashMap;
use std::rc::Rc;

use syn::spanned::Spanned;

use super::{Binding, Lowerer, Value};
use crate::ir::{Operand, Rhs, Stmt, StmtKind};

/// A closure: its code and the scope it was created in.
#[derive(Clone)]
pub(super) struct Closure {
    pub expr: Rc<syn::ExprClosure>,
    pub scopes: Rc<Vec<HashMap<String, Binding>>>,
}

impl std::fmt::Debug for Closure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Closure")
    }
}

impl Lowerer<'_> {
    /// `|x| body` as a value. A `move` closure copies the mutable variables it mentions, as
    /// Rust does (later assignments to them do not change what the closure sees).
    pub(super) fn make_closure(&mut self, expr: &syn::ExprClosure, out: &mut Vec<Stmt>) -> Value {
        if let Some(asyncness) = &expr.asyncness {
            self.cx.error(
                asyncness,
                "async closures are not supported by #[reverse]; use a plain closure, or compute \
                 the value before the async code",
            );
        }
        if expr.capture.is_some() {
            let mut copies = Vec::new();
            for name in mentioned_names(&expr.body) {
                if let Some(Binding::Var(v)) = self.lookup(&name) {
                    let v = *v;
                    if self.vars[v].mutable {
                        let ty = self.vars[v].ty.clone();
                        let copy = self.fresh("cap", ty, true, expr.span());
                        out.push(Stmt {
                            kind: StmtKind::Let {
                                var: copy,
                                rhs: Rhs::Copy(Operand::Var(v)),
                                ty: None,
                            },
                            span: expr.span(),
                        });
                        copies.push((name, copy));
                    }
                }
            }
            self.push_scope();
            for (name, copy) in copies {
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(name, Binding::Var(copy));
                }
            }
            let closure = Closure {
                expr: Rc::new(expr.clone()),
                scopes: Rc::new(self.scopes.clone()),
            };
            self.pop_scope();
            return Value::Closure(closure);
        }
        Value::Closure(Closure {
            expr: Rc::new(expr.clone()),
            scopes: Rc::new(self.scopes.clone()),
        })
    }

    /// Inlines a call of `closure` with `args` (already lowered in the caller's scope).
    pub(super) fn apply_closure(
        &mut self,
        closure: &Closure,
        args: Vec<Value>,
        span: proc_macro2::Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let expr = &closure.expr;
        if expr.inputs.len() != args.len() {
            self.cx.error_at(
                span,
                format!(
                    "this closure takes {} arguments but is called with {}",
                    expr.inputs.len(),
                    args.len()
                ),
            );
            return Value::Error;
        }
        if let Some(span) = first_return(&expr.body) {
            self.cx.error_at(
                span,
                "`return` inside a closure is not supported by #[reverse]; make the returned \
                 value the closure's last expression",
            );
            return Value::Error;
        }
        let saved = std::mem::replace(&mut self.scopes, (*closure.scopes).clone());
        let saved_loops = std::mem::take(&mut self.loops);
        self.push_scope();
        for (pat, arg) in expr.inputs.iter().zip(args) {
            self.bind_param(pat, arg, out);
        }
        let value = self.lower_expr(&expr.body, out);
        self.scopes = saved;
        self.loops = saved_loops;
        value
    }

    /// Binds a closure parameter pattern to a value: `x`, `&x`, `(a, b)`, `x: f64`, `_`.
    pub(super) fn bind_param(&mut self, pat: &syn::Pat, value: Value, out: &mut Vec<Stmt>) {
        match (pat, value) {
            (syn::Pat::Type(typed), value) => self.bind_param(&typed.pat, value, out),
            // `|&x|` on an element taken by reference: `x` is the value, which the IR holds.
            (syn::Pat::Reference(r), value) => self.bind_param(&r.pat, value, out),
            (syn::Pat::Ident(p), Value::Op(Operand::Var(v)))
                if p.mutability.is_none() && p.subpat.is_none() =>
            {
                self.bind(&p.ident, Binding::Var(v));
            }
            (syn::Pat::Ident(p), Value::Op(op)) if p.subpat.is_none() => {
                let ty = self.ty_of(&op);
                let var = self.user_var(&p.ident, ty, p.mutability.is_some());
                out.push(Stmt {
                    kind: StmtKind::Let {
                        var,
                        rhs: Rhs::Copy(op),
                        ty: None,
                    },
                    span: p.ident.span(),
                });
                self.bind(&p.ident, Binding::Var(var));
            }
            (syn::Pat::Ident(p), Value::Closure(c)) => self.bind(&p.ident, Binding::Closure(c)),
            (syn::Pat::Ident(p), Value::Tuple(items)) => {
                let binding = self.tuple_binding(&p.ident, items, out);
                self.bind(&p.ident, binding);
            }
            (syn::Pat::Tuple(t), Value::Tuple(items)) if t.elems.len() == items.len() => {
                for (pat, item) in t.elems.iter().zip(items) {
                    self.bind_param(pat, item, out);
                }
            }
            (syn::Pat::Wild(_), _) => {}
            (pat, _) => self.cx.error(
                pat,
                "#[reverse] cannot bind this closure parameter; use a name, `&name`, or a tuple \
                 of these",
            ),
        }
    }
}

/// The single-ident paths mentioned in `expr` (the candidates for captured variables).
fn mentioned_names(expr: &syn::Expr) -> Vec<String> {
    use syn::visit::Visit;
    struct Names(Vec<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(ident) = p.path.get_ident() {
                self.0.push(ident.to_string());
            }
        }
    }
    let mut names = Names(Vec::new());
    names.visit_expr(expr);
    names.0.sort();
    names.0.dedup();
    names.0
}

/// The span of the first `return` in a closure body (not in nested closures).
fn first_return(expr: &syn::Expr) -> Option<proc_macro2::Span> {
    use syn::visit::Visit;
    struct Finder(Option<proc_macro2::Span>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
            self.0.get_or_insert(r.return_token.span);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut finder = Finder(None);
    finder.visit_expr(expr);
    finder.0
}
