//! Lowering of `if`, `match`, blocks and loops.
//!
//! Three desugarings first: an `if` whose arms end in arrays produces the tuple of the
//! elements (`elementwise_if`), a `for` loop over a temporary array binds it to a name
//! (`bind_temporary_items`), and a `for` loop over `.flatten()` becomes two nested loops
//! (`unflatten_loop`). A condition that is a call writing through `&mut` (`if step(&mut x,
//! y)`, a callee returning `bool` beside its outputs) is made as a call before the test
//! (`cond`); in a `while`, the loop is desugared as for closures in the condition.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;

use super::{strip, Binding, Jumps, LoopCtx, Lowerer, Tail, Value};
use crate::ir::{
    Block, Checkpoint, LitKind, Loop, LoopKind, Opaque, Operand, Phi, RangeLoop, Rhs, Stmt,
    StmtKind, Ty, VarId, Walk,
};

/// The one message for a branch that panics beside a value other than a number or a flag.
const PANICKING_BRANCH: &str = "#[reverse] takes a branch that panics beside branches whose \
    value is a number or a `bool`; compute this value before the `if` or `match`, or panic in \
    a statement of its own";

/// How a `for` loop walks over an array.
struct Elements {
    array: VarId,
    /// The element is bound by reference (`for x in xs.iter()`): the user may write `*x`.
    by_ref: bool,
    enumerate: bool,
}

impl Lowerer<'_> {
    /// Lowers a block, `if` or `match` expression. `want` says whether its value is used.
    pub(super) fn lower_control(
        &mut self,
        expr: &syn::Expr,
        out: &mut Vec<Stmt>,
        want: bool,
    ) -> (Value, Jumps) {
        match expr {
            syn::Expr::Block(block) => {
                if let Some(label) = &block.label {
                    self.cx
                        .error(label, "labeled blocks are not supported by #[reverse]");
                    self.block_labels.push(label.name.ident.to_string());
                }
                self.push_scope();
                let tail = if want { Tail::Value } else { Tail::Discard };
                let result = self.lower_stmts(&block.block.stmts, out, tail);
                self.pop_scope();
                result
            }
            syn::Expr::If(expr_if) => self.lower_if(expr_if, out, want),
            syn::Expr::Match(expr_match) => self.lower_match(expr_match, out, want),
            _ => (Value::Unit, Jumps::default()),
        }
    }

    /// `let __c = cond;`: a condition is only branched on, so no derivative flows out of it.
    fn cond(&mut self, cond: &syn::Expr, out: &mut Vec<Stmt>) -> Operand {
        if let syn::Expr::Let(l) = cond {
            self.cx.error(l.let_token, super::options::IF_LET);
            return Operand::Lit(quote!(false), crate::ir::LitKind::Unknown);
        }
        // A call that writes through `&mut` (`if step(&mut x, y) { .. }`, a callee returning
        // `bool` beside its `&mut` outputs) is made before the branch, as if bound by `let`;
        // its result carries no derivative.
        if writing_call(cond) {
            let before = self.cx.count();
            return match self.lower_expr(cond, out) {
                Value::Op(Operand::Var(v)) if self.call_results.contains(&v) => {
                    self.vars[v].ty = Ty::Bool;
                    Operand::Var(v)
                }
                _ => {
                    // (Never a condition silently replaced: the error, if lowering gave none.)
                    if self.cx.count() == before {
                        self.cx.error(cond, WRITING_CALL_IN_CONDITION);
                    }
                    Operand::Lit(quote!(false), LitKind::Unknown)
                }
            };
        }
        if let Some(call) = find_writing_call(cond) {
            self.cx.error(call, WRITING_CALL_IN_CONDITION);
            return Operand::Lit(quote!(false), LitKind::Unknown);
        }
        // The closures it calls are inlined before it, as if bound by `let`.
        self.with_closure_calls(cond, None, out, |this, expr, out| {
            let mut opaque = this.opaque(expr);
            opaque.flows.clear();
            Operand::Var(this.let_opaque(out, "c", Ty::Bool, opaque, cond.span()))
        })
    }

    fn lower_if(
        &mut self,
        expr_if: &syn::ExprIf,
        out: &mut Vec<Stmt>,
        want: bool,
    ) -> (Value, Jumps) {
        if want {
            if let Some(desugared) = elementwise_if(expr_if) {
                return self.lower_control(&desugared, out, true);
            }
        }
        if let syn::Expr::Let(l) = &*expr_if.cond {
            let els = expr_if.else_branch.as_ref().map(|(_, e)| &**e);
            let then = syn::Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: expr_if.then_branch.clone(),
            });
            if let Some(desugared) = self.element_option(&l.expr, &l.pat, &then, els) {
                return self.lower_control(&desugared, out, want);
            }
            // `if let Shape::Circle(r) = s { .. } else { .. }` (`if let Some(b) = layer.bias`)
            // on a place of an aggregate: the `match` with the arm and `_ => else`, whose
            // bindings are places (see `enums`).
            if super::enums::binds(&l.pat) && self.is_place_expr(&l.expr) {
                let (pat, scrutinee) = (&l.pat, &l.expr);
                let els = match els {
                    Some(e) => quote!(#e),
                    None => quote!({}),
                };
                let desugared: syn::Expr = syn::parse_quote_spanned! {expr_if.if_token.span=>
                    match #scrutinee { #pat => #then, _ => #els }
                };
                return self.lower_control(&desugared, out, want);
            }
            // `if let Some(m) = xs.iter().max_by(..)`: the test, then the unwrapped value.
            if let Some(desugared) =
                super::desugar::if_let_some(&l.expr, &l.pat, &expr_if.then_branch, els)
            {
                return self.lower_control(&desugared, out, want);
            }
        }
        let cond = self.cond(&expr_if.cond, out);
        let tail = if want { Tail::Value } else { Tail::Discard };
        if want {
            self.in_value_branch += 1;
        }
        let mut then_stmts = Vec::new();
        self.push_scope();
        let (then_value, mut jumps) =
            self.lower_stmts(&expr_if.then_branch.stmts, &mut then_stmts, tail);
        self.pop_scope();
        let mut else_stmts = Vec::new();
        let (else_value, else_jumps) = match &expr_if.else_branch {
            Some((_, else_expr)) => match &**else_expr {
                syn::Expr::Block(_) | syn::Expr::If(_) => {
                    self.lower_control(else_expr, &mut else_stmts, want)
                }
                other => self.lower_expr_jumps(other, &mut else_stmts, want),
            },
            None => (Value::Unit, Jumps::default()),
        };
        if want {
            self.in_value_branch -= 1;
        }
        jumps.merge(else_jumps);
        let mut phis = Vec::new();
        let value = if want {
            self.phis(then_value, else_value, &mut phis, expr_if.span())
        } else {
            Value::Unit
        };
        self.push_if(
            cond,
            (then_stmts, else_stmts),
            phis,
            expr_if.if_token.span,
            out,
        );
        (value, jumps)
    }

    /// The tail of a function with `return`s when it is an `if` with an `else` (or a block):
    /// each arm ends in the result, assigned to the return slot there, so that an arm may
    /// `return` (`if c { return a; } else { return b; }`). `None` for other expressions.
    pub(super) fn lower_tail_branches(
        &mut self,
        expr: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<(Value, Jumps)> {
        match strip(expr) {
            syn::Expr::Block(block) if block.label.is_none() => {
                self.push_scope();
                let (_, jumps) = self.lower_stmts(&block.block.stmts, out, Tail::Return);
                self.pop_scope();
                Some((Value::Unit, jumps))
            }
            syn::Expr::If(expr_if) if ends_in_else(expr_if) => {
                let (_, else_expr) = expr_if.else_branch.as_ref()?;
                let cond = self.cond(&expr_if.cond, out);
                let mut then_stmts = Vec::new();
                self.push_scope();
                let (_, mut jumps) =
                    self.lower_stmts(&expr_if.then_branch.stmts, &mut then_stmts, Tail::Return);
                self.pop_scope();
                let mut else_stmts = Vec::new();
                let (_, else_jumps) = self.lower_tail_branches(else_expr, &mut else_stmts)?;
                jumps.merge(else_jumps);
                let arms = (then_stmts, else_stmts);
                self.push_if(cond, arms, Vec::new(), expr_if.if_token.span, out);
                Some((Value::Unit, jumps))
            }
            _ => None,
        }
    }

    /// Variables for the value of an `if`: `let v = if c { a } else { b };`.
    fn phis(&mut self, then: Value, els: Value, phis: &mut Vec<Phi>, span: Span) -> Value {
        match (then, els) {
            (Value::Panics, Value::Panics) => Value::Panics,
            // One branch panics: the other's value, joined with a stand-in nobody reads.
            (Value::Panics, value) => match self.stand_in(&value, span) {
                Some(stand_in) => self.phis(stand_in, value, phis, span),
                None => Value::Error,
            },
            (value, Value::Panics) => match self.stand_in(&value, span) {
                Some(stand_in) => self.phis(value, stand_in, phis, span),
                None => Value::Error,
            },
            (Value::Op(a), Value::Op(b)) => {
                let ty = super::expr::join(&self.ty_of(&a), &self.ty_of(&b));
                if ty.is_array() {
                    self.cx.error_at(
                        span,
                        "an `if` that produces an array is not supported by #[reverse]; assign \
                         the elements in each branch instead",
                    );
                    return Value::Error;
                }
                let var = self.fresh("t", ty, false, span);
                phis.push(Phi {
                    var,
                    then: a,
                    els: b,
                });
                Value::Op(Operand::Var(var))
            }
            (Value::Tuple(a), Value::Tuple(b)) if a.len() == b.len() => Value::Tuple(
                a.into_iter()
                    .zip(b)
                    .map(|(a, b)| self.phis(a, b, phis, span))
                    .collect(),
            ),
            (Value::Unit, Value::Unit) => Value::Unit,
            (Value::View(_), _) | (_, Value::View(_)) => {
                self.cx.error_at(
                    span,
                    "an `if` or `match` that produces a slice is not supported by #[reverse]; \
                     choose the bounds in the branches and slice once (`let a = if c { 1 } else \
                     { 2 }; let v = &x[a..];`)",
                );
                Value::Error
            }
            // Already reported (an error, or a jump in a branch whose value is used).
            (Value::Error | Value::Never, _) | (_, Value::Error | Value::Never) => Value::Error,
            _ => {
                self.cx.error_at(
                    span,
                    "the branches of this `if` produce values of different shapes",
                );
                Value::Error
            }
        }
    }

    /// A value of the shape of `value` for the branch that panics (`0.0`, `0`, `false`), which
    /// the join takes and nothing reads; `None` (an error) for a value of another kind.
    fn stand_in(&self, value: &Value, span: Span) -> Option<Value> {
        match value {
            Value::Op(op) => {
                let (tokens, kind) = match self.ty_of(op) {
                    Ty::Float(t) => (quote::quote!(0.0), crate::ir::LitKind::Float(t)),
                    Ty::Bool => (quote::quote!(false), crate::ir::LitKind::Bool),
                    Ty::Usize | Ty::I32 => (quote::quote!(0), crate::ir::LitKind::Int),
                    _ => {
                        self.cx.error_at(span, PANICKING_BRANCH);
                        return None;
                    }
                };
                Some(Value::Op(Operand::Lit(tokens, kind)))
            }
            Value::Tuple(items) => items
                .iter()
                .map(|item| self.stand_in(item, span))
                .collect::<Option<Vec<_>>>()
                .map(Value::Tuple),
            Value::Unit => Some(Value::Unit),
            Value::Error | Value::Never => Some(Value::Error),
            _ => {
                self.cx.error_at(span, PANICKING_BRANCH);
                None
            }
        }
    }

    /// `match` on an inactive value becomes a chain of `if`s on `matches!`; so does one on a
    /// place of an aggregate whose arms bind the fields of its variants (see `enums`).
    fn lower_match(
        &mut self,
        expr_match: &syn::ExprMatch,
        out: &mut Vec<Stmt>,
        want: bool,
    ) -> (Value, Jumps) {
        if expr_match.arms.is_empty() {
            self.cx.error(
                expr_match,
                "a `match` without arms is not supported by #[reverse]",
            );
            return (Value::Unit, Jumps::default());
        }
        let scrutinee = &expr_match.expr;
        if let Some(desugared) = self.element_option_match(expr_match) {
            return self.lower_control(&desugared, out, want);
        }
        // `match o { Some(k) => a, None => b }` on an `Option` that a name or an iterator over
        // one gives (`.position(..)`, `.max_by(..)`): the `if let` of `desugar::if_let_some`.
        // (On a place of an aggregate, `Some(b)` binds a place: `match layer.bias`, below.)
        if let Some(desugared) = some_or_none(expr_match).filter(|_| !self.is_place_expr(scrutinee))
        {
            return self.lower_control(&desugared, out, want);
        }
        // A `match` on a place of an aggregate whose arms bind its variants' fields (see
        // `enums`): each binding is a place, each test a pattern without bindings.
        let binding = expr_match
            .arms
            .iter()
            .any(|arm| super::enums::binds(&arm.pat));
        if binding && self.is_place_expr(scrutinee) {
            let mut index_stmts = Vec::new();
            let place = self.place_expr(scrutinee, &mut index_stmts);
            out.extend(index_stmts);
            let Some(place) = place else {
                return (Value::Error, Jumps::default());
            };
            let mut lowered = Vec::new();
            for arm in &expr_match.arms {
                let mut binds = Vec::new();
                if self.arm_bindings(&arm.pat, &place, &mut binds).is_none() {
                    return (Value::Error, Jumps::default());
                }
                let keep = match &arm.guard {
                    Some((_, guard)) => super::enums::idents_in(guard.to_token_stream()),
                    None => Vec::new(),
                };
                for (ident, _) in &binds {
                    if keep.contains(&ident.to_string())
                        && self.lookup(&ident.to_string()).is_some()
                    {
                        // The guard is emitted as written, in the function's scope.
                        self.cx.error(
                            ident,
                            "this binding is read by the arm's guard and has the name of a \
                             variable of the function; rename it",
                        );
                        return (Value::Error, Jumps::default());
                    }
                }
                let mut arm = arm.clone();
                arm.pat = super::enums::test_pattern(&arm.pat, &keep);
                let binds = binds
                    .into_iter()
                    .map(|(ident, place)| (ident, Binding::Place(place)))
                    .collect();
                lowered.push((arm, binds));
            }
            let subject = self.match_subject(scrutinee, out);
            return self.lower_arms(subject, &lowered, out, want);
        }
        let subject = self.match_subject(scrutinee, out);
        let arms: Vec<(syn::Arm, Vec<(syn::Ident, Binding)>)> = expr_match
            .arms
            .iter()
            .map(|arm| (self.bind_whole(arm, scrutinee), Vec::new()))
            .collect();
        self.lower_arms(subject, &arms, out, want)
    }

    /// `let __m = &(scrutinee);`, which the arms' tests read.
    fn match_subject(&mut self, scrutinee: &syn::Expr, out: &mut Vec<Stmt>) -> VarId {
        if let Some(call) = find_writing_call(scrutinee) {
            // (As in a condition, `cond`: the one message, and not that of `&mut` in an
            // expression.)
            self.cx.error(call, WRITING_CALL_IN_CONDITION);
            let opaque = self.opaque(&syn::parse_quote!(&()));
            return self.let_opaque(out, "m", Ty::Other, opaque, scrutinee.span());
        }
        self.with_closure_calls(scrutinee, None, out, |this, expr, out| {
            let mut opaque = this.opaque(&syn::parse_quote!(&(#expr)));
            opaque.flows.clear();
            this.let_opaque(out, "m", Ty::Other, opaque, scrutinee.span())
        })
    }

    /// The arms as `if`s on `matches!(*subject, pat)`; the last one runs when no earlier one
    /// matched. Each arm comes with the names its body binds (the fields of a variant).
    fn lower_arms(
        &mut self,
        subject: VarId,
        arms: &[(syn::Arm, Vec<(syn::Ident, Binding)>)],
        out: &mut Vec<Stmt>,
        want: bool,
    ) -> (Value, Jumps) {
        let Some(((first, first_binds), rest)) = arms.split_first() else {
            return (Value::Unit, Jumps::default());
        };
        if rest.is_empty() {
            // The last arm runs when no earlier one matched.
            return self.lower_arm_body(&first.body, first_binds, out, want);
        }
        let name = self.vars[subject].name.clone();
        let pat = &first.pat;
        let (tokens, mut reads) = match &first.guard {
            Some((_, guard)) => {
                let lazy = Some(super::closure::LAZY_GUARD);
                let guard =
                    self.with_closure_calls(guard, lazy, out, |this, expr, _| this.opaque(expr));
                let g = guard.expr;
                (
                    quote!(match *#name { #pat if #g => true, _ => false }),
                    guard.reads,
                )
            }
            // (`match`, not `matches!`, whose `$p:pat` does not take `..=-1`.)
            None => (
                quote!(match *#name { #pat => true, _ => false }),
                Vec::new(),
            ),
        };
        reads.push(subject);
        let opaque = Opaque {
            expr: tokens,
            reads,
            cheap: true,
            flows: Vec::new(),
            if_active: (first.pat.span(), String::new()),
        };
        let cond = Operand::Var(self.let_opaque(out, "c", Ty::Bool, opaque, first.pat.span()));
        if want {
            self.in_value_branch += 1;
        }
        let mut then_stmts = Vec::new();
        let (then_value, mut jumps) =
            self.lower_arm_body(&first.body, first_binds, &mut then_stmts, want);
        let mut else_stmts = Vec::new();
        let (else_value, else_jumps) = self.lower_arms(subject, rest, &mut else_stmts, want);
        if want {
            self.in_value_branch -= 1;
        }
        jumps.merge(else_jumps);
        let mut phis = Vec::new();
        let value = if want {
            self.phis(then_value, else_value, &mut phis, first.span())
        } else {
            Value::Unit
        };
        let then = self.new_block(then_stmts);
        let els = self.new_block(else_stmts);
        out.push(Stmt {
            kind: StmtKind::If {
                cond,
                then,
                els,
                phis,
            },
            span: first.pat.span(),
        });
        (value, jumps)
    }

    fn lower_arm_body(
        &mut self,
        body: &syn::Expr,
        binds: &[(syn::Ident, Binding)],
        out: &mut Vec<Stmt>,
        want: bool,
    ) -> (Value, Jumps) {
        self.push_scope();
        for (ident, binding) in binds {
            self.bind(ident, binding.clone());
        }
        let result = match body {
            // `_ => unreachable!()`: the arm never completes.
            syn::Expr::Macro(m)
                if want && super::checks::is_check(&m.mac) && super::checks::panics(&m.mac) =>
            {
                self.lower_check(&m.mac, out);
                (Value::Panics, Jumps::default())
            }
            syn::Expr::Block(_) | syn::Expr::If(_) | syn::Expr::Match(_) => {
                self.lower_control(body, out, want)
            }
            other => self.lower_expr_jumps(other, out, want),
        };
        self.pop_scope();
        result
    }

    /// `k => body` or `k if guard => body` binding the whole value of a scrutinee without
    /// calls (`match n { 0 => .., k if k % 2 == 0 => .. }`): the arm, its body
    /// `{ let k = scrutinee; body }` (the guard reads the test's own binding). Any other arm
    /// that binds a variable is an error (the arms become `matches!` tests).
    fn bind_whole(&self, arm: &syn::Arm, scrutinee: &syn::Expr) -> syn::Arm {
        // (`k @ 1..=3`: the test is the whole pattern, the body binds `k` alone.)
        let whole = match &arm.pat {
            syn::Pat::Ident(p)
                if p.by_ref.is_none()
                    && p.subpat
                        .as_ref()
                        .is_none_or(|(_, sub)| !super::enums::binds(sub)) =>
            {
                p.ident
                    .to_string()
                    .starts_with(|c: char| c.is_lowercase() || c == '_')
                    .then_some(p)
            }
            _ => None,
        };
        let Some(whole) = whole.filter(|_| super::desugar::pure_place(scrutinee)) else {
            self.reject_bindings(&arm.pat);
            return arm.clone();
        };
        let name = syn::PatIdent {
            subpat: None,
            ..whole.clone()
        };
        let body = &arm.body;
        let mut arm = arm.clone();
        arm.body = syn::parse_quote_spanned!(body.span()=> { let #name = #scrutinee; #body });
        arm
    }

    /// Match arms that bind variables are not supported (the arms become `matches!` tests).
    fn reject_bindings(&self, pat: &syn::Pat) {
        use syn::visit::Visit;
        struct Finder<'c, 'a>(&'c crate::error::Errors, std::marker::PhantomData<&'a ()>);
        impl<'ast> Visit<'ast> for Finder<'_, '_> {
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                let name = p.ident.to_string();
                // An uppercase name is a constant or a unit variant, not a binding.
                if p.subpat.is_some() || name.starts_with(|c: char| c.is_lowercase() || c == '_') {
                    self.0.error(
                        p,
                        "a `match` arm that binds a variable is supported by #[reverse] on \
                         the whole value (`k if ..`, `k @ 1..=3`), on an `Option` that a name \
                         or an iterator over one gives (`Some(k)` beside `None` or `_`), and \
                         on enums with `#[derive(revad::Adjoint)]` only; match on the value \
                         and bind it before the `match`",
                    );
                }
            }
        }
        Finder(self.cx, std::marker::PhantomData).visit_pat(pat);
    }

    // ---- loops ----------------------------------------------------------------------------

    /// Lowers a loop. Its value is that of its `break value`s (`Value::Unit` for none).
    pub(super) fn lower_loop(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) -> (Value, Jumps) {
        // `for &(x, y) in pts`: `for e in pts { let (x, y) = *e; .. }` (see
        // `desugar::destructured_refs`).
        if let syn::Expr::ForLoop(f) = expr {
            let mut f = f.clone();
            // `for (a, b) in pairs.iter()` (or `in &pairs`): the items are references, which
            // Rust's binding modes take apart as `&(a, b)`.
            let by_reference = match super::strip(&f.expr) {
                syn::Expr::MethodCall(m) => m.method == "iter" && m.args.is_empty(),
                syn::Expr::Reference(r) => r.mutability.is_none(),
                _ => false,
            };
            if let (true, syn::Pat::Tuple(t)) = (by_reference, &*f.pat) {
                let t = t.clone();
                *f.pat = syn::parse_quote_spanned!(t.paren_token.span.join()=> &#t);
            }
            let lets = super::desugar::destructured_refs(&mut f.pat);
            if !lets.is_empty() {
                f.body.stmts.splice(0..0, lets);
                return self.lower_loop(&syn::Expr::ForLoop(f), out);
            }
        }
        let none = (Value::Unit, Jumps::default());
        let (label, body, span) = match expr {
            syn::Expr::While(w) => (&w.label, &w.body, w.while_token.span),
            syn::Expr::Loop(l) => (&l.label, &l.body, l.loop_token.span),
            syn::Expr::ForLoop(f) => (&f.label, &f.body, f.for_token.span),
            _ => return none,
        };
        let attrs = match expr {
            syn::Expr::While(w) => &w.attrs,
            syn::Expr::Loop(l) => &l.attrs,
            syn::Expr::ForLoop(f) => &f.attrs,
            _ => return none,
        };
        let checkpoint = |a: &&syn::Attribute| {
            a.path()
                .segments
                .last()
                .is_some_and(|s| s.ident == "checkpoint")
        };
        let checkpoint = match attrs.iter().find(checkpoint) {
            Some(attr) => match self.checkpoint_of(attr, expr) {
                Some(c) => Some(c),
                None => return none,
            },
            None => None,
        };
        if let syn::Expr::While(w) = expr {
            let mut conjuncts = Vec::new();
            conjuncts_of(&w.cond, &mut conjuncts);
            if self.calls_closure(&w.cond) || conjuncts.iter().any(|c| writing_call(c)) {
                // The closures the condition calls are inlined as statements (and a call that
                // writes through `&mut` is made as one: see `cond`), which must run
                // before each test: `loop { if a {} else { break; } if b {} else { break; }
                // body }` for `while a && b { body }` (so `b` runs only when `a` holds).
                let stmts = &w.body.stmts;
                let desugared: syn::Expr = syn::parse_quote_spanned! {span=>
                    #label loop {
                        #(
                            if #conjuncts {} else {
                                break;
                            }
                        )*
                        #(#stmts)*
                    }
                };
                // The `break`s are the macro's, and leave a loop inside the branch: allowed in
                // a branch whose value is used when the body itself does not jump.
                let saved = self.in_value_branch;
                if !jumps_in(&w.body) {
                    self.in_value_branch = 0;
                }
                let (_, jumps) = self.lower_loop(&desugared, out);
                self.in_value_branch = saved;
                return (Value::Unit, jumps);
            }
        }
        if let syn::Expr::ForLoop(f) = expr {
            if let Some(desugared) = bind_temporary_items(f) {
                return self.lower_expr_jumps(&desugared, out, false);
            }
            // `for v in l.forward(x).iter()`: the call's result bound first.
            if let Some(desugared) = super::desugar::loop_over_call(f, &|e| self.is_float_expr(e)) {
                return self.lower_expr_jumps(&desugared, out, false);
            }
            const FLATTEN_BREAK: &str = "#[reverse] does not `break` out of a loop over \
                 `.flatten()`; write two nested loops (`for row in m.iter() { for x in \
                 row.iter() { .. } }`) and break out of both";
            if let Some(lowered) = self.lower_split_loop(unflatten_loop(f), FLATTEN_BREAK, out) {
                return lowered;
            }
            // `for (p, q) in ps.iter().zip(ps.iter().cycle().skip(1))` (a closed polygon's edges):
            // a loop over the indices (see `desugar::cyclic_zip_loop`).
            if let Some(desugared) = super::desugar::cyclic_zip_loop(f) {
                return self.lower_expr_jumps(&desugared, out, false);
            }
            // `for (t, w) in GAUSS` over a constant table of tuples: `for &(t, w) in
            // GAUSS.iter()`, the same items.
            if let (syn::Pat::Tuple(_), syn::Expr::Path(p)) = (&*f.pat, strip(&f.expr)) {
                if p.path
                    .get_ident()
                    .is_none_or(|i| self.lookup(&i.to_string()).is_none())
                {
                    let (label, pat, table, body) = (&f.label, &f.pat, &f.expr, &f.body);
                    let desugared: syn::Expr = syn::parse_quote_spanned! {f.for_token.span=>
                        #label for &#pat in #table.iter() #body
                    };
                    return self.lower_expr_jumps(&desugared, out, false);
                }
            }
            const CHAIN_BREAK: &str = "#[reverse] runs a loop over `a.chain(b)` as a loop over \
                 `a` then one over `b`, which a `break` cannot leave both of; set a flag and \
                 test it in a second loop, or loop over indices";
            if let Some(lowered) = self.lower_split_loop(unchain_loop(f), CHAIN_BREAK, out) {
                return lowered;
            }
            // `for v in xs.iter().filter(..) { .. }`: `xs.iter().filter(..).for_each(|v| ..)`;
            // with `break`, `continue` or `return`, a loop over `xs.iter()` that filters.
            if !jumps_in(&f.body) {
                if let Some(desugared) = super::desugar::chain_loop(f) {
                    return self.lower_expr_jumps(&desugared, out, false);
                }
            } else if let Some(desugared) = super::desugar::unfiltered_loop(f) {
                return self.lower_expr_jumps(&desugared, out, false);
            }
        }
        let mut prelude = Vec::new();
        // The write-backs of `iter_mut()` elements, after the body (see `iter_mut`).
        let mut epilogue = Vec::new();
        self.for_bindings.clear();
        let kind = match expr {
            syn::Expr::While(w) => {
                if let Some(desugared) = super::desugar::while_pop(w) {
                    return self.lower_expr_jumps(&desugared, out, false);
                }
                if let syn::Expr::Let(l) = &*w.cond {
                    self.cx.error(
                        l.let_token,
                        "`while let` is not supported by #[reverse]; write `loop { .. }` with a \
                         `match` that `break`s",
                    );
                    return none;
                }
                let mut cond = self.opaque(&w.cond);
                cond.flows.clear();
                LoopKind::While { cond }
            }
            syn::Expr::Loop(_) => LoopKind::Infinite,
            syn::Expr::ForLoop(f) if self.is_iter_mut(f) => {
                match self.for_iter_mut(f, &mut prelude, &mut epilogue) {
                    Some(kind) => kind,
                    None => return none,
                }
            }
            syn::Expr::ForLoop(f) => {
                self.push_scope();
                // Views, zips, reversed elements, chunks and windows (see `views`).
                let sequence = if super::iter::range_chain(&f.expr).is_none()
                    && self.elements(&f.expr).is_none()
                {
                    self.for_sequence(f, out, &mut prelude)
                } else {
                    None
                };
                let kind = match sequence {
                    Some(kind) => kind,
                    None => self.for_kind(f, &mut prelude),
                };
                self.pop_scope();
                match kind {
                    Some(kind) => kind,
                    None => return none,
                }
            }
            _ => return none,
        };
        // The loop variable and element bindings are in scope in the body only.
        self.push_scope();
        if let syn::Expr::ForLoop(f) = expr {
            if epilogue.is_empty() && !self.is_iter_mut(f) {
                self.rebind_for(f, &kind, &prelude);
            }
        }
        for (ident, binding) in std::mem::take(&mut self.for_bindings) {
            self.bind(&ident, binding);
        }
        let label_name = label.as_ref().map(|l| l.name.ident.to_string());
        let infinite = matches!(kind, LoopKind::Infinite);
        let first_var = self.vars.len();
        self.loops.push(LoopCtx::new(
            label_name,
            infinite,
            self.in_value_branch,
            first_var,
        ));
        let depth = self.loops.len() - 1;
        let mut stmts = prelude;
        let (_, mut jumps) = self.lower_stmts(&body.stmts, &mut stmts, Tail::Discard);
        // Unguarded: an element is written back after a `continue` or a `break` too.
        stmts.extend(epilogue);
        let ctx = self.loops.pop();
        self.pop_scope();
        let Some(ctx) = ctx else {
            return none;
        };
        jumps.brk.remove(&depth);
        jumps.cont.remove(&depth);
        let slot = ctx
            .value
            .and_then(|slot| self.declare_break_slot(slot, ctx.first_var, &mut stmts, out, span));
        let mut exits = Vec::new();
        for flag in [ctx.brk, ctx.cont].into_iter().flatten() {
            out.push(Stmt {
                kind: StmtKind::Let {
                    var: flag,
                    rhs: Rhs::Copy(Operand::Lit(quote!(false), LitKind::Bool)),
                    ty: None,
                },
                span,
            });
        }
        if let Some(brk) = ctx.brk {
            exits.push(brk);
        }
        if ctx.returns {
            if let Some(ret) = &self.ret {
                exits.push(ret.flag);
            }
        }
        // A labeled `break` or `continue` of an outer loop leaves this one too.
        for flag in ctx.outer {
            if !exits.contains(&flag) {
                exits.push(flag);
            }
        }
        if let Some(c) = &checkpoint {
            if !exits.is_empty() || ctx.cont.is_some() {
                self.cx.error(&c.tokens, CHECKPOINT_JUMPS);
            }
        }
        self.push_loop(kind, stmts, exits, ctx.cont, span, out);
        if let Some(StmtKind::Loop(l)) = out.last_mut().map(|s| &mut s.kind) {
            l.checkpoint = checkpoint;
        }
        let value = match slot {
            Some(slot) => self.read_break_slot(slot, out, span),
            None => Value::Unit,
        };
        (value, jumps)
    }

    /// Declares the slot of a loop's `break value`s before the loop: a float, `let mut
    /// __brkv = 0.0;`, when one of the values is a float (then all are: a `loop` has one
    /// type), and otherwise (an index, a value of a type the macro does not know) an
    /// inactive `Option`, which each `break` sets to `Some(value)` (rewriting the
    /// assignments `assign_break_value` made in `body`). The `Option` is typed where it is
    /// declared (every backend must know the type after the loop, and the CPS backend's
    /// code after the loop comes before the loop's body): by a value that is a literal or a
    /// variable declared before the loop (`none_like(&i)`), or by its type where the macro
    /// knows it (`None::<usize>`); `None` after an error where it is neither.
    fn declare_break_slot(
        &mut self,
        slot: super::jumps::BreakSlot,
        first_var: VarId,
        body: &mut [Stmt],
        out: &mut Vec<Stmt>,
        span: Span,
    ) -> Option<BreakValue> {
        let var = slot.var;
        let float = slot.values.iter().find_map(|(_, t, _)| match t {
            Ty::Float(p) => Some(*p),
            _ => None,
        });
        let typed_none = match float {
            Some(_) => TokenStream::new(),
            None => {
                // (A literal or a constant path: evaluating it again before the loop does
                // nothing; a call of a function that reads no variable could.)
                let hint = slot.values.iter().find_map(|(op, _, _)| match op {
                    Operand::Lit(tokens, _) if is_constant(tokens) => Some(tokens.clone()),
                    Operand::Lit(..) => None,
                    Operand::Var(v) if *v < first_var => {
                        let name = &self.vars[*v].name;
                        Some(quote!(#name))
                    }
                    Operand::Var(_) => None,
                });
                let known = slot.values.iter().find_map(|(_, t, _)| match t {
                    Ty::Usize => Some(quote!(usize)),
                    Ty::I32 => Some(quote!(i32)),
                    Ty::Bool => Some(quote!(bool)),
                    _ => None,
                });
                match (hint, known) {
                    (Some(hint), _) => quote!(::revad::__private::none_like(&#hint)),
                    (None, Some(t)) => quote!(::core::option::Option::None::<#t>),
                    (None, None) => {
                        let at = slot.values.first().map_or(span, |(_, _, s)| *s);
                        self.cx.error_at(
                            at,
                            "#[reverse] cannot tell the type of this `break` value before the \
                             loop; bind it with a type annotation first (`let k: usize = ...;` \
                             or `: f64`) and `break k`",
                        );
                        return None;
                    }
                }
            }
        };
        let rhs = match float {
            Some(precision) => {
                self.vars[var].ty = Ty::Float(precision);
                Rhs::Copy(Operand::Lit(quote!(0.0), LitKind::Float(precision)))
            }
            None => {
                self.vars[var].ty = Ty::Other;
                let name = self.vars[var].name.clone();
                let vars = &self.vars;
                let make = |value: &Operand, span: Span| {
                    let (tokens, flows) = match value {
                        Operand::Var(v) => {
                            let n = &vars[*v].name;
                            (quote!(#n), vec![*v])
                        }
                        Operand::Lit(tokens, _) => (tokens.clone(), Vec::new()),
                    };
                    StmtKind::Opaque {
                        tokens: quote!(#name = ::core::option::Option::Some(#tokens);),
                        writes: vec![var],
                        flows,
                        if_active: (
                            span,
                            "#[reverse] cannot tell that this `break` value is a float; bind it \
                             with a type annotation first (`let v: f64 = ...;`) and `break v`"
                                .to_string(),
                        ),
                    }
                };
                rewrite_assigns(body, var, &make);
                let reads = slot
                    .values
                    .iter()
                    .filter_map(|(op, _, _)| op.var())
                    .filter(|v| *v < first_var)
                    .collect();
                Rhs::Opaque(Opaque {
                    expr: typed_none,
                    reads,
                    cheap: false,
                    flows: Vec::new(),
                    if_active: (span, String::new()),
                })
            }
        };
        out.push(Stmt {
            kind: StmtKind::Let { var, rhs, ty: None },
            span,
        });
        Some(BreakValue {
            var,
            float: float.is_some(),
        })
    }

    /// The value of a loop that `break`s with one, after the loop: a copy of the slot (or
    /// the value in the `Option`: a `loop` ends only by a `break`, or by a `return`, after
    /// which nothing reads it).
    fn read_break_slot(&mut self, slot: BreakValue, out: &mut Vec<Stmt>, span: Span) -> Value {
        let var = slot.var;
        if slot.float {
            let ty = self.vars[var].ty.clone();
            return Value::Op(self.let_temp(out, Rhs::Copy(Operand::Var(var)), ty, span));
        }
        let name = self.vars[var].name.clone();
        let opaque = Opaque {
            expr: quote!(::core::option::Option::unwrap(#name)),
            reads: vec![var],
            cheap: false,
            flows: Vec::new(),
            if_active: (span, String::new()),
        };
        Value::Op(Operand::Var(self.let_opaque(
            out,
            "t",
            Ty::Unknown,
            opaque,
            span,
        )))
    }

    /// Appends a loop to `out`: the one place loops are built (`for`, `while`, `loop`, and
    /// the iterator chains of `iter`).
    pub(super) fn push_loop(
        &mut self,
        kind: LoopKind,
        body: Vec<Stmt>,
        exits: Vec<VarId>,
        cont: Option<VarId>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let trips = self.fresh("trips", Ty::Usize, true, span);
        let body = self.new_block(body);
        out.push(Stmt {
            kind: StmtKind::Loop(Box::new(Loop {
                kind,
                body,
                exits,
                cont,
                trips,
                checkpoint: None,
            })),
            span,
        });
    }

    /// Reads the iterator of a `for` loop. Element loops (`for x in xs.iter()`) become index
    /// loops whose body starts with `let x = xs[i];` (pushed to `prelude`).
    fn for_kind(&mut self, f: &syn::ExprForLoop, prelude: &mut Vec<Stmt>) -> Option<LoopKind> {
        if let Some(range) = super::iter::range_chain(&f.expr) {
            let var = match &*f.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    let ty = Ty::Unknown;
                    Some(self.user_var(&p.ident, ty, false))
                }
                syn::Pat::Wild(_) => None,
                other => {
                    self.cx.error(
                        other,
                        "a loop over a range binds its index to a name or `_`",
                    );
                    return None;
                }
            };
            let mut opaque = self.opaque(&f.expr);
            opaque.flows.clear();
            let walk = self.range_walk(&range);
            return Some(LoopKind::Range(RangeLoop {
                var,
                range: opaque,
                walk,
            }));
        }
        let Some(elements) = self.elements(&f.expr) else {
            if self.is_poisoned(&f.expr) {
                return None;
            }
            if super::desugar::has_chain_adaptor(&f.expr) && f.label.is_none() {
                self.cx.error(
                    &f.expr,
                    "#[reverse] runs a `for` loop over a chain with closures as the chain's \
                     `.for_each(..)`, or, where the body can `break`, `continue` or `return`, \
                     over the sequence before `.map(..)`, `.filter(..)`, `.copied()` and \
                     `.cloned()` (nothing else after them); loop over the elements (`for x in \
                     xs.iter()`) and test or map them in the body",
                );
                return None;
            }
            self.cx.error(
                &f.expr,
                "#[reverse] supports `for` loops over ranges (`a..b`, `(a..b).rev()`, \
                 `.step_by(k)`) and over arrays and slices (`xs.iter()`, `&xs`, `&xs[a..b]`, \
                 then `.skip(k)`, `.take(n)`, `.step_by(k)`, `.rev()`, `.enumerate()`, \
                 `.zip(ys)`, `.flatten()`; `xs.chunks(k)`, `xs.windows(k)`; `xs.iter_mut()`, \
                 then `.enumerate()` or `.zip(ys)`), and over `a.chain(b)` of these; iterate \
                 over indices (`for i in 0..xs.len()`) instead",
            );
            return None;
        };
        let (index_pat, elem_pat) = match (&*f.pat, elements.enumerate) {
            (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
            (pat, false) => (None, pat),
            (other, true) => {
                self.cx.error(
                    other,
                    "`enumerate()` gives pairs: write `for (i, x) in ...`",
                );
                return None;
            }
        };
        let index = match index_pat {
            Some(syn::Pat::Ident(p)) if p.subpat.is_none() => {
                self.user_var(&p.ident, Ty::Usize, false)
            }
            Some(syn::Pat::Wild(_)) | None => self.fresh("i", Ty::Usize, false, f.pat.span()),
            Some(other) => {
                self.cx.error(other, "bind the index to a name or `_`");
                return None;
            }
        };
        let (elem_ident, by_ref) = match elem_pat {
            syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                (Some(p.ident.clone()), elements.by_ref)
            }
            syn::Pat::Reference(r) => match &*r.pat {
                syn::Pat::Ident(p) if p.subpat.is_none() => (Some(p.ident.clone()), false),
                other => {
                    self.cx.error(other, "bind the element to a name");
                    return None;
                }
            },
            syn::Pat::Wild(_) => (None, false),
            other => {
                self.cx.error(
                    other,
                    "bind the element to a name, as in `for x in xs.iter()` or `for &x in xs`",
                );
                return None;
            }
        };
        if let Some(ident) = elem_ident {
            let array = elements.array;
            let elem_ty = match &self.vars[array].ty {
                Ty::Array(info) => Ty::Float(info.elem),
                _ => Ty::Unknown,
            };
            let float = elem_ty.is_float();
            let var = self.user_var(&ident, elem_ty, false);
            self.vars[var].deref = by_ref;
            let rhs = if float {
                Rhs::Index(array, crate::ir::Path::index(Operand::Var(index)))
            } else {
                let a = &self.vars[array].name;
                let i = &self.vars[index].name;
                Rhs::Opaque(Opaque {
                    expr: quote!(#a[#i]),
                    reads: vec![array, index],
                    cheap: true,
                    flows: vec![array],
                    if_active: (ident.span(), String::new()),
                })
            };
            prelude.push(Stmt {
                kind: StmtKind::Let { var, rhs, ty: None },
                span: ident.span(),
            });
        }
        let a = self.vars[elements.array].name.clone();
        let range = Opaque {
            expr: quote!(0..#a.len()),
            reads: vec![elements.array],
            cheap: true,
            flows: Vec::new(),
            if_active: (f.expr.span(), String::new()),
        };
        Some(LoopKind::Range(RangeLoop {
            var: Some(index),
            range,
            walk: Walk::Up(quote!(0..#a.len())),
        }))
    }

    /// Puts the loop variable and the element binding of a `for` loop in scope for its body.
    fn rebind_for(&mut self, f: &syn::ExprForLoop, kind: &LoopKind, prelude: &[Stmt]) {
        if let LoopKind::Range(range) = kind {
            if let Some(var) = range.var {
                let ident = match &*f.pat {
                    syn::Pat::Ident(p) => Some(p.ident.clone()),
                    syn::Pat::Tuple(t) => match t.elems.first() {
                        Some(syn::Pat::Ident(p)) => Some(p.ident.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(ident) = ident {
                    if !self.vars[var].temp {
                        self.bind(&ident, Binding::Var(var));
                    }
                }
            }
        }
        for stmt in prelude {
            if let StmtKind::Let { var, .. } = &stmt.kind {
                let var = *var;
                let name = element_ident(f);
                if let Some(name) = name {
                    self.bind(&name, Binding::Var(var));
                }
            }
        }
    }

    /// `xs.iter()`, `&xs`, `xs`, optionally followed by `.enumerate()`.
    fn elements(&self, expr: &syn::Expr) -> Option<Elements> {
        let (base, enumerate) = match strip(expr) {
            syn::Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() => {
                (strip(&m.receiver), true)
            }
            other => (other, false),
        };
        let (path, by_ref) = match base {
            syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => {
                (strip(&m.receiver), true)
            }
            syn::Expr::Reference(r) if r.mutability.is_none() => (strip(&r.expr), true),
            other => (other, false),
        };
        let syn::Expr::Path(p) = path else {
            return None;
        };
        let ident = p.path.get_ident()?;
        let Some(Binding::Var(array)) = self.lookup(&ident.to_string()) else {
            return None;
        };
        let array = *array;
        if self.is_aggregate(array) {
            // Its items are aggregates: places (see `views`).
            return None;
        }
        // A slice or a reference iterated by value still yields references.
        let by_ref = by_ref
            || self.vars[array].param.is_some_and(|i| {
                matches!(
                    self.sig.params.get(i).map(|p| &p.ty),
                    Some(syn::Type::Reference(_))
                )
            });
        Some(Elements {
            array,
            by_ref,
            enumerate,
        })
    }
}

/// An `if` whose arms end in array expressions of the same length (or in such `if`s), as an
/// `if` that produces the tuple of the elements (a branch's value is a scalar or a tuple of
/// them in the IR), then the array of them:
///
/// ```text
/// // Before                                  // After
/// let v = if c { [a, b] } else { [b, a] };   let v = {
///                                                let (__ad_e0, __ad_e1) =
///                                                    if c { (a, b) } else { (b, a) };
///                                                [__ad_e0, __ad_e1]
///                                            };
/// ```
///
/// Each arm runs as written, its elements evaluated in order.
fn elementwise_if(expr_if: &syn::ExprIf) -> Option<syn::Expr> {
    let (tupled, n) = tuple_if(expr_if)?;
    let span = expr_if.if_token.span;
    let names: Vec<syn::Ident> = (0..n)
        .map(|k| syn::Ident::new(&format!("__ad_e{k}"), Span::mixed_site().located_at(span)))
        .collect();
    Some(syn::parse_quote_spanned! {span=>
        {
            let (#(#names,)*) = #tupled;
            [#(#names),*]
        }
    })
}

/// `expr_if` with each arm's final array expression `[a, b]` made the tuple `(a, b)`, and the
/// length, when both arms end in arrays of the same length (or in `if`s that do).
fn tuple_if(expr_if: &syn::ExprIf) -> Option<(syn::ExprIf, usize)> {
    if matches!(&*expr_if.cond, syn::Expr::Let(_)) {
        return None;
    }
    let (then, n) = tuple_arm(&expr_if.then_branch)?;
    let els = match &expr_if.else_branch {
        Some((_, e)) => match &**e {
            syn::Expr::Block(b) if b.label.is_none() => {
                let (block, m) = tuple_arm(&b.block)?;
                (m == n).then_some(())?;
                syn::Expr::Block(syn::ExprBlock { block, ..b.clone() })
            }
            syn::Expr::If(inner) => {
                let (inner, m) = tuple_if(inner)?;
                (m == n).then_some(())?;
                syn::Expr::If(inner)
            }
            _ => return None,
        },
        None => return None,
    };
    let mut out = expr_if.clone();
    out.then_branch = then;
    if let Some((_, e)) = &mut out.else_branch {
        **e = els;
    }
    Some((out, n))
}

/// `block` with its final array expression made a tuple (see [`tuple_if`]), and its length.
fn tuple_arm(block: &syn::Block) -> Option<(syn::Block, usize)> {
    let (last, init) = block.stmts.split_last()?;
    let (tail, n) = match last {
        syn::Stmt::Expr(syn::Expr::Array(a), None) if !a.elems.is_empty() => {
            let elems = a.elems.iter();
            let tuple: syn::Expr =
                syn::parse_quote_spanned!(a.bracket_token.span.join()=> (#(#elems,)*));
            (tuple, a.elems.len())
        }
        syn::Stmt::Expr(syn::Expr::If(inner), None) => {
            let (inner, n) = tuple_if(inner)?;
            (syn::Expr::If(inner), n)
        }
        _ => return None,
    };
    let mut stmts = init.to_vec();
    stmts.push(syn::Stmt::Expr(tail, None));
    Some((
        syn::Block {
            brace_token: block.brace_token,
            stmts,
        },
        n,
    ))
}

/// A `for` loop over a temporary array (`for v in [a, b, c]`, `&[..]`, `[..].iter()`, then
/// adaptors) iterates it bound to a name, as a loop over a local array:
///
/// ```text
/// // Before                          // After
/// for v in [a, b, c] {               {
///     s += v * v;                        let __ad_items = [a, b, c];
/// }                                      for v in __ad_items { s += v * v; }
///                                    }
/// ```
///
/// The array is evaluated once, before the first iteration, as Rust does.
fn bind_temporary_items(f: &syn::ExprForLoop) -> Option<syn::Expr> {
    let span = f.expr.span();
    let items = syn::Ident::new("__ad_items", Span::mixed_site().located_at(span));
    let (iterated, literal) = replace_base_array(&f.expr, &items)?;
    let mut f = f.clone();
    *f.expr = iterated;
    Some(syn::parse_quote_spanned! {span=>
        {
            let #items = #literal;
            #f
        }
    })
}

/// `for pat in rows.flatten() { body }` (or `rows.flat_map(|r| items)`) as two nested loops,
/// the inner one with the label:
///
/// ```text
/// // Before                             // After
/// for x in m.iter().flatten() {         for __ad_row in m.iter() {
///     s += x * x;                           for x in __ad_row.iter() {
/// }                                             s += x * x;
///                                           }
///                                       }
/// ```
///
/// The inner loop iterates as the outer one does: `.iter()` for `m.iter()` and `&m`,
/// `.iter_mut()` for `m.iter_mut()` and `&mut m`, by value otherwise. A `continue` goes on
/// with the next item either way; a `break` of the loop would leave only the inner one, and
/// is returned as an error.
impl Lowerer<'_> {
    /// A loop that `unflatten_loop` or `unchain_loop` splits into loops: the loops lowered,
    /// or `message` at a `break` that would leave the loop it stands for; `None` for a loop
    /// neither splits.
    fn lower_split_loop(
        &mut self,
        split: Option<Result<syn::Expr, syn::ExprBreak>>,
        message: &str,
        out: &mut Vec<Stmt>,
    ) -> Option<(Value, Jumps)> {
        match split? {
            Ok(desugared) => Some(self.lower_expr_jumps(&desugared, out, false)),
            Err(brk) => {
                self.cx.error(brk, message);
                Some((Value::Unit, Jumps::default()))
            }
        }
    }
}

/// `for pat in a.chain(b) { body }` as `for pat in a { body } for pat in b { body }` (the
/// label on both; `a` a chain itself splits again): `Err` with a `break` that would leave the
/// loop, `None` for another loop.
fn unchain_loop(f: &syn::ExprForLoop) -> Option<Result<syn::Expr, syn::ExprBreak>> {
    let syn::Expr::MethodCall(m) = strip(&f.expr) else {
        return None;
    };
    if m.method != "chain" || m.args.len() != 1 {
        return None;
    }
    let label = f.label.as_ref().map(|l| l.name.ident.to_string());
    if let Some(brk) = breaks_of(&f.body, label.as_deref()) {
        return Some(Err(brk));
    }
    let (mut first, mut second) = (f.clone(), f.clone());
    *first.expr = (*m.receiver).clone();
    *second.expr = m.args[0].clone();
    Some(Ok(
        syn::parse_quote_spanned! {m.method.span()=> { #first #second } },
    ))
}

fn unflatten_loop(f: &syn::ExprForLoop) -> Option<Result<syn::Expr, syn::ExprBreak>> {
    let syn::Expr::MethodCall(m) = strip(&f.expr) else {
        return None;
    };
    let flat_map = m.method == "flat_map" && m.args.len() == 1;
    if !(m.method == "flatten" && m.args.is_empty() || flat_map) {
        return None;
    }
    // `rows.flat_map(|r| items)`: `for r in rows { for pat in items { .. } }`, when the body
    // does not name `r` (it would then read the row, not the name outside).
    let closure = match flat_map {
        true => match strip(&m.args[0]) {
            syn::Expr::Closure(c) if c.inputs.len() == 1 && c.capture.is_none() => {
                let syn::Pat::Ident(p) = &c.inputs[0] else {
                    return None;
                };
                let body = syn::Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: f.body.clone(),
                });
                if p.by_ref.is_some()
                    || p.subpat.is_some()
                    || super::closure::mentioned_names(&body).contains(&p.ident.to_string())
                {
                    return None;
                }
                Some((p.clone(), &*c.body))
            }
            _ => return None,
        },
        false => None,
    };
    let label = f.label.as_ref().map(|l| l.name.ident.to_string());
    if let Some(brk) = breaks_of(&f.body, label.as_deref()) {
        return Some(Err(brk));
    }
    let rows = &*m.receiver;
    let span = m.method.span();
    if let Some((row, items)) = closure {
        let mut inner_loop = f.clone();
        *inner_loop.expr = items.clone();
        return Some(Ok(syn::parse_quote_spanned! {span=>
            for #row in #rows {
                #inner_loop
            }
        }));
    }
    let row = syn::Ident::new("__ad_row", Span::mixed_site().located_at(span));
    let inner: syn::Expr = match strip(rows) {
        syn::Expr::MethodCall(r) if r.method == "iter" && r.args.is_empty() => {
            syn::parse_quote_spanned!(span=> #row.iter())
        }
        syn::Expr::Reference(r) if r.mutability.is_none() => {
            syn::parse_quote_spanned!(span=> #row.iter())
        }
        syn::Expr::MethodCall(r) if r.method == "iter_mut" && r.args.is_empty() => {
            syn::parse_quote_spanned!(span=> #row.iter_mut())
        }
        syn::Expr::Reference(_) => syn::parse_quote_spanned!(span=> #row.iter_mut()),
        _ => syn::parse_quote_spanned!(span=> #row),
    };
    let mut inner_loop = f.clone();
    *inner_loop.expr = inner;
    Some(Ok(syn::parse_quote_spanned! {span=>
        for #row in #rows {
            #inner_loop
        }
    }))
}

/// The first `break` in `body` that leaves the loop of `body` (labeled `label`): an
/// unlabeled one outside inner loops, or one with the label. (Closures are not searched.)
fn breaks_of(body: &syn::Block, label: Option<&str>) -> Option<syn::ExprBreak> {
    use syn::visit::Visit;
    struct Finder<'l> {
        label: Option<&'l str>,
        depth: usize,
        found: Option<syn::ExprBreak>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            let ours = match &b.label {
                None => self.depth == 0,
                Some(l) => Some(l.ident.to_string().as_str()) == self.label,
            };
            if ours && self.found.is_none() {
                self.found = Some(b.clone());
            }
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
            self.visit_expr(&e.expr);
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
            self.visit_expr(&e.cond);
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut finder = Finder {
        label,
        depth: 0,
        found: None,
    };
    finder.visit_block(body);
    finder.found
}

/// `expr` with its base (under `&`, parentheses and method calls) replaced by `name` when
/// the base is an array expression (`[a, b]`, `[x; N]`), and that array expression.
fn replace_base_array(expr: &syn::Expr, name: &syn::Ident) -> Option<(syn::Expr, syn::Expr)> {
    match expr {
        syn::Expr::Array(_) | syn::Expr::Repeat(_) => {
            Some((syn::parse_quote!(#name), expr.clone()))
        }
        syn::Expr::Paren(p) => replace_base_array(&p.expr, name),
        syn::Expr::Reference(r) if r.mutability.is_none() => {
            let (inner, literal) = replace_base_array(&r.expr, name)?;
            let mut r = r.clone();
            r.expr = Box::new(inner);
            Some((syn::Expr::Reference(r), literal))
        }
        syn::Expr::MethodCall(m) => {
            let (inner, literal) = replace_base_array(&m.receiver, name)?;
            let mut m = m.clone();
            m.receiver = Box::new(inner);
            Some((syn::Expr::MethodCall(m), literal))
        }
        _ => None,
    }
}

/// Whether `block` contains a `break`, `continue` or `return` (outside closures).
fn jumps_in(block: &syn::Block) -> bool {
    use syn::visit::Visit;
    let mut finder = JumpFinder(false);
    finder.visit_block(block);
    finder.0
}

/// Whether `expr` contains a `break`, `continue` or `return` (outside closures).
pub(super) fn expr_jumps(expr: &syn::Expr) -> bool {
    use syn::visit::Visit;
    let mut finder = JumpFinder(false);
    finder.visit_expr(expr);
    finder.0
}

struct JumpFinder(bool);

impl<'ast> syn::visit::Visit<'ast> for JumpFinder {
    fn visit_expr_break(&mut self, _: &'ast syn::ExprBreak) {
        self.0 = true;
    }
    fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
        self.0 = true;
    }
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}

/// The operands of a chain of `&&`: `[a, b, c]` for `a && (b && c)`.
fn conjuncts_of<'e>(expr: &'e syn::Expr, out: &mut Vec<&'e syn::Expr>) {
    match strip(expr) {
        syn::Expr::Binary(bin) if matches!(bin.op, syn::BinOp::And(_)) => {
            conjuncts_of(&bin.left, out);
            conjuncts_of(&bin.right, out);
        }
        _ => out.push(expr),
    }
}

fn element_ident(f: &syn::ExprForLoop) -> Option<syn::Ident> {
    let pat = match &*f.pat {
        syn::Pat::Tuple(t) if t.elems.len() == 2 => &t.elems[1],
        pat => pat,
    };
    match pat {
        syn::Pat::Ident(p) => Some(p.ident.clone()),
        syn::Pat::Reference(r) => match &*r.pat {
            syn::Pat::Ident(p) => Some(p.ident.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether an `if` (with its `else if`s) ends in an `else`.
fn ends_in_else(expr_if: &syn::ExprIf) -> bool {
    match &expr_if.else_branch {
        None => false,
        Some((_, e)) => match strip(e) {
            syn::Expr::If(inner) => ends_in_else(inner),
            _ => true,
        },
    }
}

/// The slot of a loop's `break value`s, declared before the loop.
struct BreakValue {
    var: VarId,
    float: bool,
}

/// Replaces the assignments `var = value;` in `stmts` (and the blocks in them) by `make`.
fn rewrite_assigns(stmts: &mut [Stmt], var: VarId, make: &impl Fn(&Operand, Span) -> StmtKind) {
    for stmt in stmts.iter_mut() {
        match &mut stmt.kind {
            StmtKind::Assign { var: v, value, .. } if *v == var => {
                stmt.kind = make(value, stmt.span);
            }
            StmtKind::If { then, els, .. } => {
                rewrite_assigns(&mut then.stmts, var, make);
                rewrite_assigns(&mut els.stmts, var, make);
            }
            StmtKind::Loop(l) => rewrite_assigns(&mut l.body.stmts, var, make),
            _ => {}
        }
    }
}

/// Whether `tokens` are a literal or a path (a constant), which may be evaluated again.
fn is_constant(tokens: &TokenStream) -> bool {
    matches!(
        syn::parse2::<syn::Expr>(tokens.clone()),
        Ok(syn::Expr::Lit(_) | syn::Expr::Path(_))
    )
}

/// The one message for a call that writes through `&mut` inside a condition.
const WRITING_CALL_IN_CONDITION: &str = "#[reverse] takes a call that writes through `&mut` as \
     a whole condition (`if step(&mut x, y) {..}`, `while step(&mut x, y) && .. {..}`); inside \
     one or in a `match`, bind its result first: `let done: bool = step(&mut x, y);`";

/// The first call with a `&mut place` argument inside `expr`, if any.
fn find_writing_call(expr: &syn::Expr) -> Option<&syn::Expr> {
    struct Find<'e>(Option<&'e syn::Expr>);
    impl<'e> syn::visit::Visit<'e> for Find<'e> {
        fn visit_expr(&mut self, expr: &'e syn::Expr) {
            if self.0.is_none() && writing_call(expr) {
                self.0 = Some(expr);
            }
            syn::visit::visit_expr(self, expr);
        }
        // (A closure's body runs elsewhere: the closure rules apply to it.)
        fn visit_expr_closure(&mut self, _: &'e syn::ExprClosure) {}
    }
    let mut find = Find(None);
    syn::visit::Visit::visit_expr(&mut find, expr);
    find.0
}

/// Whether `expr` is a call with a `&mut place` argument (`step(&mut x, y)`,
/// `m.step(&mut x)`).
fn writing_call(expr: &syn::Expr) -> bool {
    let writes =
        |arg: &syn::Expr| matches!(strip(arg), syn::Expr::Reference(r) if r.mutability.is_some());
    match strip(expr) {
        syn::Expr::Call(call) => call.args.iter().any(writes),
        syn::Expr::MethodCall(call) => call.args.iter().any(writes),
        _ => false,
    }
}

impl Lowerer<'_> {
    /// The checkpoint of `#[revad::checkpoint]` or `#[revad::checkpoint(snapshots = k)]` on
    /// the loop `expr`, or `None` after reporting why it cannot be.
    fn checkpoint_of(&self, attr: &syn::Attribute, expr: &syn::Expr) -> Option<Checkpoint> {
        let span = attr.span();
        match expr {
            syn::Expr::ForLoop(f) if super::iter::range_chain(&f.expr).is_some() => {}
            _ => {
                self.cx.error(attr, CHECKPOINT_RANGE);
                return None;
            }
        }
        let mut snapshots = None;
        match &attr.meta {
            syn::Meta::Path(_) => {}
            syn::Meta::List(list) => {
                use syn::parse::Parser;
                let parser =
                    syn::punctuated::Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated;
                let args = match parser.parse2(list.tokens.clone()) {
                    Ok(args) => args,
                    Err(err) => {
                        self.cx.error_at(err.span(), CHECKPOINT_ARGS);
                        return None;
                    }
                };
                for arg in &args {
                    // (A literal passed through `macro_rules!` arrives in an invisible group.)
                    let mut value = &arg.value;
                    while let syn::Expr::Group(g) = value {
                        value = &g.expr;
                    }
                    let value = match value {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(k),
                            ..
                        }) if arg.path.is_ident("snapshots") => k.base10_parse::<usize>().ok(),
                        _ => {
                            self.cx.error(arg, CHECKPOINT_ARGS);
                            return None;
                        }
                    };
                    match value {
                        Some(k) if k > 0 => snapshots = Some(k),
                        _ => {
                            self.cx.error(
                                &arg.value,
                                "a checkpoint budget needs at least one snapshot (the state \
                                 before the loop): `snapshots = 1` or more",
                            );
                            return None;
                        }
                    }
                }
            }
            syn::Meta::NameValue(_) => {
                self.cx.error(attr, CHECKPOINT_ARGS);
                return None;
            }
        }
        Some(Checkpoint {
            snapshots,
            span,
            tokens: attr.to_token_stream(),
        })
    }
}

/// Reports a checkpointed loop that is not a statement of the function's body (inside a
/// branch or another loop, or after an early `return`, which puts it under a guard).
pub(super) fn check_checkpoints(cx: &crate::error::Errors, body: &Block) {
    fn nested(cx: &crate::error::Errors, block: &Block) {
        for stmt in &block.stmts {
            match &stmt.kind {
                StmtKind::If { then, els, .. } => {
                    nested_in(cx, then);
                    nested_in(cx, els);
                }
                StmtKind::Loop(l) => nested_in(cx, &l.body),
                _ => {}
            }
        }
    }
    fn nested_in(cx: &crate::error::Errors, block: &Block) {
        crate::ir::visit::walk(block, &mut |stmt, _| {
            if let StmtKind::Loop(l) = &stmt.kind {
                if let Some(c) = &l.checkpoint {
                    cx.error(&c.tokens, CHECKPOINT_NESTED);
                }
            }
        });
    }
    nested(cx, body);
}

/// The messages of `#[revad::checkpoint]` on a loop it cannot checkpoint.
const CHECKPOINT_RANGE: &str = "#[revad::checkpoint] goes on a `for` loop over a range \
     (`for i in 0..n`, `for _ in lo..hi`): its reverse sweep recomputes step `k` from a stored \
     state and needs the number of steps before the loop starts";
const CHECKPOINT_ARGS: &str = "#[revad::checkpoint] takes no argument or `snapshots = k`, the \
     most states of the loop it keeps (an integer literal, at least 1)";
const CHECKPOINT_JUMPS: &str = "#[revad::checkpoint] does not checkpoint a loop that can \
     `break`, `continue` or `return`: its reverse sweep recomputes a step from a stored state and \
     needs every step to run to its end; compute the condition into a variable and skip the \
     rest of the body with `if`";
const CHECKPOINT_NESTED: &str = "#[revad::checkpoint] checkpoints a loop that is a statement \
     of the function's body, not one inside a branch or another loop or after an early \
     `return`; move the loop to the body (or into a `#[revad::reverse]` helper function that \
     the enclosing loop calls)";

/// `match o { Some(k) => a, None => b }` (the arms in either order, `_` for `None`; a guard on
/// `Some(k)` before `_`, whose arm then runs where the guard fails too) as `if let Some(k) = o
/// { a } else { b }`, when `desugar::if_let_some` takes that `if let`; `None` otherwise.
fn some_or_none(m: &syn::ExprMatch) -> Option<syn::Expr> {
    let [first, second] = m.arms.as_slice() else {
        return None;
    };
    // (A guard on the `Some` arm before `_`: `Some(k) if g => a, _ => b` is `if let Some(k) =
    // o { if g { a } else { b } } else { b }`.)
    let guarded =
        first.guard.is_some() && second.guard.is_none() && matches!(second.pat, syn::Pat::Wild(_));
    if (first.guard.is_some() && !guarded) || second.guard.is_some() {
        return None;
    }
    let is_some = |arm: &syn::Arm| match &arm.pat {
        syn::Pat::TupleStruct(ts) => super::enums::is_some_path(&ts.path),
        _ => false,
    };
    let is_none = |arm: &syn::Arm| match &arm.pat {
        syn::Pat::Ident(p) => p.ident == "None" && p.subpat.is_none() && p.by_ref.is_none(),
        syn::Pat::Path(p) => p.path.is_ident("None"),
        syn::Pat::Wild(_) => true,
        _ => false,
    };
    let (some, none) = match (is_some(first), is_some(second)) {
        (true, false) if is_none(second) => (first, second),
        (false, true) if is_none(first) => (second, first),
        _ => return None,
    };
    let block = |body: &syn::Expr| -> syn::Block {
        match body {
            syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.clone(),
            other => syn::parse_quote_spanned!(other.span()=> { #other }),
        }
    };
    let els = syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: block(&none.body),
    });
    // (The `_` arm's body runs where `Some(k)` binds `k` too: not where it reads a name the
    // pattern binds, which is another variable there.)
    if some.guard.is_some() {
        let mut names = Vec::new();
        super::desugar::collect_pat_names(&some.pat, &mut names);
        if super::desugar::reads_any(&none.body, &names) {
            return None;
        }
    }
    let then = match &some.guard {
        Some((_, guard)) => {
            let body = &some.body;
            syn::parse_quote_spanned!(guard.span()=> { if #guard { #body } else #els })
        }
        None => block(&some.body),
    };
    let mut pat = some.pat.clone();
    if let syn::Pat::TupleStruct(ts) = &mut pat {
        // (`if_let_some` reads `Some(k)` as written.)
        ts.path = syn::parse_quote_spanned!(ts.path.span()=> Some);
    }
    super::desugar::if_let_some(&m.expr, &pat, &then, Some(&els))
}
