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

use quote::quote;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::{Binding, Lowerer, Value};
use crate::ir::{Operand, Rhs, Stmt, StmtKind};

/// Why a closure call in a condition cannot be inlined: it runs only when the left operand
/// of `&&` / `||` lets it.
pub(super) const LAZY_AND_OR: &str = "#[reverse] inlines closures where they are called, and a \
     closure called on the right of `&&` or `||` runs only when the left side does not decide \
     the result; split the condition into nested `if`s (`if a { if f(x) > 0.0 { .. } }`; in a \
     loop, `break` on each part), or bind the call's value with `let` before the condition";

/// Why a closure call in a match guard cannot be inlined: it runs only when its arm's
/// pattern matches.
pub(super) const LAZY_GUARD: &str = "#[reverse] inlines closures where they are called, and a \
     closure called in a match guard runs only when the arm's pattern matches; bind the call's \
     value with `let` before the `match`, or test it in the arm's body";

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
        let saved = std::mem::replace(&mut self.scopes, (*closure.scopes).clone());
        let saved_loops = std::mem::take(&mut self.loops);
        self.push_scope();
        for (pat, arg) in expr.inputs.iter().zip(args) {
            self.bind_param(pat, arg, out);
        }
        self.closure_depth += 1;
        // A `return` leaves the call: a flag and a slot of the call's own, like a function's,
        // with the rest of the body guarded (see `jumps`).
        let returns = returns(&expr.body);
        let value = if let Some(kind) = returns {
            let saved_ret = self.ret.take();
            let saved_branch = std::mem::replace(&mut self.in_value_branch, 0);
            self.start_returns(kind, out);
            let stmts = match super::strip(&expr.body) {
                syn::Expr::Block(b) if b.label.is_none() => b.block.stmts.clone(),
                body => vec![syn::Stmt::Expr(body.clone(), None)],
            };
            self.push_scope();
            self.lower_stmts(&stmts, out, super::Tail::Return);
            self.pop_scope();
            let slot = self.ret.as_ref().and_then(|r| r.value);
            self.ret = saved_ret;
            self.in_value_branch = saved_branch;
            match slot {
                Some(slot) => Value::Op(Operand::Var(slot)),
                None => Value::Unit,
            }
        } else {
            match self.is_place_expr(&expr.body) {
                // `|p| p.pos` in a chain over aggregates: the part itself, which the next stage
                // reads (`.map(|v| v[0])`); a call in an expression reads it at once (`lower_expr`).
                true => match self.place_expr(&expr.body, out) {
                    Some(place) => Value::Place(place),
                    None => Value::Error,
                },
                false => self.lower_expr(&expr.body, out),
            }
        };
        self.closure_depth -= 1;
        self.scopes = saved;
        self.loops = saved_loops;
        value
    }

    /// Binds a closure parameter pattern to a value: `x`, `&x`, `(a, b)`, `x: f64`, `_`.
    pub(super) fn bind_param(&mut self, pat: &syn::Pat, value: Value, out: &mut Vec<Stmt>) {
        match (pat, value) {
            (syn::Pat::Type(typed), value) => self.bind_param(&typed.pat, value, out),
            // `|&(x, y)|` of an item of a chain over a slice of tuples or structs: the item
            // bound to a name, then `let (x, y) = *name;` (see `desugar::destructured_refs`).
            (syn::Pat::Reference(_), value) if !destructured(pat).1.is_empty() => {
                let (name, lets) = destructured(pat);
                self.bind_param(&name, value, out);
                for stmt in &lets {
                    if let syn::Stmt::Local(local) = stmt {
                        self.lower_let(local, out);
                    }
                }
            }
            // `|&x|` on an element taken by reference: `x` is the value, which the IR holds.
            (syn::Pat::Reference(r), value) => self.bind_param(&r.pat, value, out),
            // (Not a `&mut` parameter's copy: the name would be taken for the reference,
            // passed on by `&mut`, where the closure has the value.)
            (syn::Pat::Ident(p), Value::Op(Operand::Var(v)))
                if p.mutability.is_none() && p.subpat.is_none() && !self.mut_refs.contains(&v) =>
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
            (syn::Pat::Ident(p), Value::View(v)) => self.bind(&p.ident, Binding::View(v)),
            // An item of a chain over an aggregate: the closure reads the place.
            (syn::Pat::Ident(p), Value::Place(place))
                if p.mutability.is_none() && p.subpat.is_none() =>
            {
                self.bind(&p.ident, Binding::Place(place))
            }
            (syn::Pat::Ident(p), Value::Tuple(items)) => {
                let binding = self.tuple_binding(&p.ident, items, out);
                self.bind(&p.ident, binding);
            }
            (syn::Pat::Tuple(t), Value::Tuple(items)) if t.elems.len() == items.len() => {
                for (pat, item) in t.elems.iter().zip(items) {
                    self.bind_param(pat, item, out);
                }
            }
            // `|(x, y)|` of an item taken by reference (a chain over a slice of tuples): as
            // `|&(x, y)|`, which Rust's binding modes make it.
            (syn::Pat::Tuple(t), value @ (Value::Op(_) | Value::Place(_))) => {
                let pat: syn::Pat = syn::parse_quote_spanned!(t.paren_token.span.join()=> &#t);
                if destructured(&pat).1.is_empty() {
                    self.cx.error(t, CLOSURE_PARAM);
                    return;
                }
                self.bind_param(&pat, value, out)
            }
            (syn::Pat::Wild(_), _) => {}
            (pat, _) => self.cx.error(pat, CLOSURE_PARAM),
        }
    }
}

/// The one message for a closure parameter's pattern that `bind_param` does not take.
const CLOSURE_PARAM: &str = "#[reverse] cannot bind this closure parameter; use a name, `&name`, \
                             or a tuple of these";

impl Lowerer<'_> {
    /// Whether `func`, the callee of a call, is a closure: a name bound to one, a closure
    /// written in place, or a call that returns one.
    pub(super) fn is_closure_callee(&self, func: &syn::Expr) -> bool {
        match super::strip(func) {
            syn::Expr::Closure(_) => true,
            syn::Expr::Path(p) => matches!(
                p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
                Some(Binding::Closure(_))
            ),
            syn::Expr::Call(call) => self.is_closure_callee(&call.func),
            _ => false,
        }
    }

    /// Whether a call of the closure `func` (bound to a name, written in place, or returned
    /// by a call) may compute a float: an argument or a declared parameter type is a float,
    /// or its body mentions one (`(|i: usize| i + 1)(k)` does not). A float taken for an
    /// integer is an error where a derivative would flow through it, never a lost one.
    pub(super) fn closure_call_is_float(&self, func: &syn::Expr, args: &[&syn::Expr]) -> bool {
        let closure_is_float = |closure: &syn::ExprClosure| {
            closure.inputs.iter().any(|input| match input {
                syn::Pat::Type(typed) => self.sig.float_of(&typed.ty).is_some(),
                _ => false,
            }) || self.mentions_float(&closure.body)
        };
        if args.iter().any(|a| {
            self.is_float_expr(a) || self.is_float_subslice(a) || self.is_float_array_literal(a)
        }) {
            return true;
        }
        match super::strip(func) {
            syn::Expr::Closure(closure) => closure_is_float(closure),
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Binding::Closure(c)) => closure_is_float(&c.expr),
                    _ => false,
                }
            }
            syn::Expr::Call(call) => {
                let args: Vec<&syn::Expr> = call.args.iter().collect();
                self.closure_call_is_float(&call.func, &args)
            }
            _ => false,
        }
    }

    /// Whether `expr` calls a closure (outside the bodies of the closures it writes, which
    /// run later).
    pub(super) fn calls_closure(&self, expr: &syn::Expr) -> bool {
        use syn::visit::Visit;
        struct Finder<'l, 'a> {
            lowerer: &'l Lowerer<'a>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_, '_> {
            fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
                self.found |= self.lowerer.is_closure_callee(&call.func);
                syn::visit::visit_expr_call(self, call);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        }
        let mut finder = Finder {
            lowerer: self,
            found: false,
        };
        finder.visit_expr(expr);
        finder.found
    }

    /// Runs `then` on `expr`, an expression the macro emits as written (a condition, a
    /// comparison, a cast to an integer), after inlining the closures it calls: each call is
    /// lowered into `out`, in the order Rust evaluates them, and replaced in `expr` by a name
    /// bound to its value in a scope that lasts while `then` runs. Calls that run only
    /// sometimes (on the right of `&&` / `||`, or everywhere when `lazy` says why) cannot be
    /// inlined before the expression: a call of a named closure there is an error, and a
    /// closure written in place stays as written (the renamer emits it as Rust, with no
    /// derivative flowing out of the expression's killing construct).
    pub(super) fn with_closure_calls<R>(
        &mut self,
        expr: &syn::Expr,
        lazy: Option<&'static str>,
        out: &mut Vec<Stmt>,
        then: impl FnOnce(&mut Self, &syn::Expr, &mut Vec<Stmt>) -> R,
    ) -> R {
        if !self.calls_closure(expr) {
            return then(self, expr, out);
        }
        let mut expr = expr.clone();
        self.push_scope();
        Hoister {
            lowerer: self,
            out,
            lazy,
            count: 0,
        }
        .visit_expr_mut(&mut expr);
        let result = then(self, &expr, out);
        self.pop_scope();
        result
    }
}

/// Inlines the closure calls of an expression emitted as written (see `with_closure_calls`).
struct Hoister<'l, 'a, 'o> {
    lowerer: &'l mut Lowerer<'a>,
    out: &'o mut Vec<Stmt>,
    /// Why calls at this point run only sometimes, if they do.
    lazy: Option<&'static str>,
    count: usize,
}

impl Hoister<'_, '_, '_> {
    /// A fresh name, bound in the current scope, for the call `expr` is replaced by.
    fn bind(&mut self, expr: &mut syn::Expr, binding: Binding) {
        let ident = syn::Ident::new(
            &format!("__closure_call{}", self.count),
            proc_macro2::Span::call_site(),
        );
        self.count += 1;
        self.lowerer.bind(&ident, binding);
        *expr = syn::parse_quote!(#ident);
    }
}

impl VisitMut for Hoister<'_, '_, '_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        match expr {
            syn::Expr::Call(call) if self.lowerer.is_closure_callee(&call.func) => {
                if let Some(why) = self.lazy {
                    if matches!(super::strip(&call.func), syn::Expr::Closure(_)) {
                        // Written in place: emitted as written, which runs it when Rust would.
                        for arg in &mut call.args {
                            self.visit_expr_mut(arg);
                        }
                        return;
                    }
                    self.lowerer.cx.error(&call.func, why);
                    self.bind(expr, Binding::Poisoned);
                    return;
                }
                let call = expr.clone();
                let value = self.lowerer.lower_expr(&call, self.out);
                match value {
                    Value::Op(Operand::Var(v)) => self.bind(expr, Binding::Var(v)),
                    Value::Op(Operand::Lit(tokens, _)) => {
                        *expr = syn::Expr::Verbatim(quote!((#tokens)));
                    }
                    Value::Unit => *expr = syn::Expr::Verbatim(quote!(())),
                    Value::Tuple(items) => {
                        let ident = syn::Ident::new("__closure_tuple", call.span());
                        let binding = self.lowerer.tuple_binding(&ident, items, self.out);
                        self.bind(expr, binding);
                    }
                    Value::Closure(c) => self.bind(expr, Binding::Closure(c)),
                    Value::View(v) => self.bind(expr, Binding::View(v)),
                    Value::Place(p) => self.bind(expr, Binding::Place(p)),
                    Value::Error | Value::Never | Value::Panics => {
                        self.bind(expr, Binding::Poisoned)
                    }
                }
            }
            syn::Expr::Binary(bin) if matches!(bin.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                self.visit_expr_mut(&mut bin.left);
                let saved = self.lazy;
                self.lazy = Some(saved.unwrap_or(LAZY_AND_OR));
                self.visit_expr_mut(&mut bin.right);
                self.lazy = saved;
            }
            // A closure's body runs later (its names are its own); the other constructs are
            // rejected inside conditions by the renamer.
            syn::Expr::Closure(_)
            | syn::Expr::Block(_)
            | syn::Expr::If(_)
            | syn::Expr::Match(_)
            | syn::Expr::Loop(_)
            | syn::Expr::While(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Macro(_)
            | syn::Expr::Unsafe(_)
            | syn::Expr::Async(_)
            | syn::Expr::TryBlock(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }
}

/// The single-ident paths mentioned in `expr` (the candidates for captured variables).
pub(super) fn mentioned_names(expr: &syn::Expr) -> Vec<String> {
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

/// What the `return`s in a closure's `body` give back, if it has any: nothing where one is
/// `return;`, a float otherwise.
fn returns(body: &syn::Expr) -> Option<super::jumps::RetKind> {
    use syn::visit::Visit;
    struct Finder(Option<super::jumps::RetKind>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
            use super::jumps::RetKind;
            if r.expr.is_none() || self.0.is_none() {
                self.0 = Some(match r.expr {
                    None => RetKind::ClosureUnit,
                    Some(_) => RetKind::ClosureFloat,
                });
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(None);
    finder.visit_expr(body);
    finder.0
}

/// Whether the closure parameter `pat` binds a `mut` name (`|mut t: f64|`): a value of its
/// own, not a name for the argument's place.
pub(super) fn mut_param(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Type(typed) => mut_param(&typed.pat),
        syn::Pat::Ident(p) => p.mutability.is_some(),
        _ => false,
    }
}

/// `pat` with its reference patterns around destructuring ones named, and the `let`s that
/// destructure the names (see `desugar::destructured_refs`).
fn destructured(pat: &syn::Pat) -> (syn::Pat, Vec<syn::Stmt>) {
    let mut pat = pat.clone();
    let lets = super::desugar::destructured_refs(&mut pat);
    (pat, lets)
}
