//! `return`, `break` and `continue`: flags set where the jump is, and guards around what
//! follows it, so that every block of the IR runs to its end (see the parent module).

use super::*;

/// Flags a statement may have set (it may have jumped).
#[derive(Clone, Debug, Default)]
pub(super) struct Jumps {
    pub(super) ret: bool,
    /// Loops (by depth in `Lowerer::loops`) it may `break` out of.
    pub(super) brk: BTreeSet<usize>,
    /// Loops it may `continue`.
    pub(super) cont: BTreeSet<usize>,
}

impl Jumps {
    pub(super) fn any(&self) -> bool {
        self.ret || !self.brk.is_empty() || !self.cont.is_empty()
    }

    pub(super) fn merge(&mut self, other: Jumps) {
        self.ret |= other.ret;
        self.brk.extend(other.brk);
        self.cont.extend(other.cont);
    }
}

/// The innermost loops being lowered.
pub(super) struct LoopCtx {
    pub(super) brk: Option<VarId>,
    pub(super) cont: Option<VarId>,
    pub(super) returns: bool,
    /// The loop's label (`'outer`, without the quote).
    pub(super) label: Option<String>,
    /// A `loop` (not `while` or `for`): the only loop a `break` may leave with a value.
    pub(super) infinite: bool,
    /// The `break`/`continue` flags of outer loops that a labeled jump inside this loop sets:
    /// this loop ends when one of them is set, like the loops between it and the target.
    pub(super) outer: Vec<VarId>,
    /// The slot of `break value`, created at the first such `break`.
    pub(super) value: Option<BreakSlot>,
    /// `Lowerer::in_value_branch` where the loop starts: a `break` or `continue` of this loop
    /// leaves no branch whose value is used unless it is inside one the loop is not.
    pub(super) value_branch: usize,
    /// The first variable created inside the loop: those below are declared before it.
    pub(super) first_var: VarId,
}

impl LoopCtx {
    pub(super) fn new(
        label: Option<String>,
        infinite: bool,
        value_branch: usize,
        first_var: VarId,
    ) -> LoopCtx {
        LoopCtx {
            brk: None,
            cont: None,
            returns: false,
            label,
            infinite,
            outer: Vec::new(),
            value: None,
            value_branch,
            first_var,
        }
    }
}

/// The variable a `loop` that `break`s with a value leaves its value in (`let mut __brkv;`,
/// declared before the loop by `lower_loop`), and the values assigned to it, with their types
/// and spans.
pub(super) struct BreakSlot {
    pub(super) var: VarId,
    pub(super) values: Vec<(Operand, Ty, Span)>,
}

/// The return slot and flag of a function with early `return`, or of a closure's call.
pub(super) struct RetCtx {
    /// The slot of the returned value (none for a closure's `return;`).
    pub(super) value: Option<VarId>,
    pub(super) flag: VarId,
    /// What a `return` gives back: nothing (`return;`), a float, or a function's result.
    pub(super) kind: RetKind,
}

/// What the `return`s of a function or closure give back.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum RetKind {
    /// The function's result (`Signature::ret`).
    Function,
    /// A closure's `return;`: the call's value is `()`.
    ClosureUnit,
    /// A closure's `return value;`: a float.
    ClosureFloat,
}

impl Lowerer<'_> {
    /// A generated `bool` flag declared `let mut flag = false;` in `out`.
    pub(super) fn flag(&mut self, out: &mut Vec<Stmt>, prefix: &str, span: Span) -> VarId {
        let var = self.fresh(prefix, Ty::Bool, true, span);
        out.push(Stmt {
            kind: StmtKind::Let {
                var,
                rhs: Rhs::Copy(Operand::Lit(quote!(false), LitKind::Bool)),
                ty: None,
            },
            span,
        });
        var
    }

    /// `flag = true;`
    pub(super) fn set_flag(&self, out: &mut Vec<Stmt>, flag: VarId, span: Span) {
        out.push(Stmt {
            kind: StmtKind::Assign {
                var: flag,
                op: crate::ir::AssignOp::Set,
                value: Operand::Lit(quote!(true), LitKind::Bool),
            },
            span,
        });
    }

    /// Declares the return slot and flag of a function with early `return`s, or of a call of
    /// a closure with `return`s (the slot only where the closure returns a float).
    pub(super) fn start_returns(&mut self, kind: RetKind, out: &mut Vec<Stmt>) {
        let span = Span::call_site();
        let name = match kind {
            RetKind::Function => self.names.fixed("ret"),
            RetKind::ClosureFloat => self.names.fresh("ret"),
            RetKind::ClosureUnit => {
                let flag = self.flag(out, "returned", span);
                self.ret = Some(RetCtx {
                    value: None,
                    flag,
                    kind,
                });
                return;
            }
        };
        let value = self.new_var(name, Ty::Float(None), true, span);
        out.push(Stmt {
            kind: StmtKind::Let {
                var: value,
                rhs: Rhs::Copy(Operand::Lit(quote!(0.0), LitKind::Float(None))),
                ty: None,
            },
            span,
        });
        let flag = self.flag(out, "returned", span);
        self.ret = Some(RetCtx {
            value: Some(value),
            flag,
            kind,
        });
    }

    /// `let __g = !(flag || ..);` for the flags `jumps` may have set.
    pub(super) fn guard(&mut self, jumps: &Jumps, out: &mut Vec<Stmt>, span: Span) -> Operand {
        let mut flags = Vec::new();
        if jumps.ret {
            if let Some(ret) = &self.ret {
                flags.push(ret.flag);
            }
        }
        for &depth in jumps.brk.iter() {
            if let Some(flag) = self.loops.get(depth).and_then(|l| l.brk) {
                flags.push(flag);
            }
        }
        for &depth in jumps.cont.iter() {
            if let Some(flag) = self.loops.get(depth).and_then(|l| l.cont) {
                flags.push(flag);
            }
        }
        let guard = self.fresh("g", Ty::Bool, false, span);
        out.push(Stmt {
            kind: StmtKind::Let {
                var: guard,
                rhs: Rhs::Guard(flags),
                ty: None,
            },
            span,
        });
        Operand::Var(guard)
    }

    pub(super) fn jump_allowed(&self, node: impl ToTokens, what: &str) -> bool {
        if self.in_value_branch > 0 {
            self.cx.error(
                node,
                format!(
                    "`{what}` inside an `if` or `match` whose value is used is not supported by \
                     #[reverse]; assign the value to a variable in each branch instead"
                ),
            );
            return false;
        }
        true
    }

    pub(super) fn lower_return(&mut self, ret: &syn::ExprReturn, out: &mut Vec<Stmt>) -> Jumps {
        if !self.jump_allowed(ret.return_token, "return") {
            return Jumps::default();
        }
        let kind = self.ret.as_ref().map_or(RetKind::Function, |r| r.kind);
        match (&ret.expr, &self.sig.ret) {
            // `return;` in a function whose results are its `&mut` parameters, or in a
            // closure that returns nothing.
            (None, RetTy::Unit) if kind == RetKind::Function => {}
            (None, _) if kind == RetKind::ClosureUnit => {}
            (None, _) if kind == RetKind::ClosureFloat => {
                self.cx.error(
                    ret,
                    "`return` without a value in a closure whose other `return`s give a value",
                );
                return Jumps::default();
            }
            (None, _) => {
                self.cx.error(
                    ret,
                    "`return` without a value in a function that returns a float",
                );
                return Jumps::default();
            }
            (Some(expr), _) => {
                let value = self.lower_expr(expr, out);
                self.assign_return(value, expr, out);
            }
        }
        let Some(ret_ctx) = &self.ret else {
            return Jumps::default();
        };
        let flag = ret_ctx.flag;
        self.set_flag(out, flag, ret.span());
        for l in self.loops.iter_mut() {
            l.returns = true;
        }
        Jumps {
            ret: true,
            ..Jumps::default()
        }
    }

    /// The loop a `break` or `continue` leaves: the innermost one, or the one with `label`.
    fn jump_target(
        &self,
        label: Option<&syn::Lifetime>,
        node: impl ToTokens,
        what: &str,
    ) -> Option<usize> {
        let Some(label) = label else {
            let depth = self.loops.len().checked_sub(1);
            if depth.is_none() {
                self.cx.error(node, format!("`{what}` outside of a loop"));
            }
            return depth;
        };
        let name = label.ident.to_string();
        let depth = self
            .loops
            .iter()
            .rposition(|l| l.label.as_deref() == Some(name.as_str()));
        // (A labeled block is rejected where it is.)
        if depth.is_none() && !self.block_labels.contains(&name) {
            self.cx.error(
                label,
                format!(
                    "`{what} '{name}` leaves no loop labeled `'{name}` here; #[reverse] supports \
                     labeled `loop`, `while` and `for` loops, not labeled blocks"
                ),
            );
        }
        depth
    }

    /// Whether a `break` or `continue` of the loop at `depth` is allowed here: it may not
    /// leave an `if` or `match` whose value is used.
    fn loop_jump_allowed(&self, depth: usize, node: impl ToTokens, what: &str) -> bool {
        if self.in_value_branch > self.loops[depth].value_branch {
            return self.jump_allowed(node, what);
        }
        true
    }

    /// Marks the loops inside the one at `depth` as ending when `flag` is set.
    fn leave_inner_loops(&mut self, depth: usize, flag: VarId) {
        for l in self.loops[depth + 1..].iter_mut() {
            if !l.outer.contains(&flag) {
                l.outer.push(flag);
            }
        }
    }

    pub(super) fn lower_break(&mut self, brk: &syn::ExprBreak, out: &mut Vec<Stmt>) -> Jumps {
        let Some(depth) = self.jump_target(brk.label.as_ref(), brk, "break") else {
            return Jumps::default();
        };
        if !self.loop_jump_allowed(depth, brk.break_token, "break") {
            return Jumps::default();
        }
        if let Some(expr) = &brk.expr {
            if !self.loops[depth].infinite {
                self.cx.error(
                    expr,
                    "`break` with a value leaves only a `loop` (not `while` or `for`)",
                );
                return Jumps::default();
            }
            let value = self.lower_expr(expr, out);
            self.assign_break_value(depth, value, expr, out);
        }
        // The flag is declared before the loop by `lower_loop`, which creates it on demand.
        let flag = match self.loops[depth].brk {
            Some(flag) => flag,
            None => {
                let flag = self.fresh("brk", Ty::Bool, true, brk.span());
                self.loops[depth].brk = Some(flag);
                flag
            }
        };
        self.set_flag(out, flag, brk.span());
        self.leave_inner_loops(depth, flag);
        Jumps {
            brk: [depth].into(),
            ..Jumps::default()
        }
    }

    /// `__brkv = value;` for `break value` out of the `loop` at `depth`.
    fn assign_break_value(
        &mut self,
        depth: usize,
        value: Value,
        expr: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let op = match value {
            Value::Op(op) => op,
            Value::Error | Value::Never | Value::Unit | Value::Panics => return,
            Value::Tuple(_) | Value::Closure(_) | Value::View(_) | Value::Place(_) => {
                self.cx.error(
                    expr,
                    "`break` with a tuple, slice or closure value is not supported by \
                     #[reverse]; assign the parts to variables declared before the loop, then \
                     `break`",
                );
                return;
            }
        };
        let ty = self.ty_of(&op);
        if ty.is_array() {
            self.cx.error(
                expr,
                "`break` with an array value is not supported by #[reverse]; assign the \
                 elements to an array declared before the loop, then `break`",
            );
            return;
        }
        let var = match &self.loops[depth].value {
            Some(slot) => slot.var,
            None => {
                let var = self.fresh("brkv", Ty::Unknown, true, expr.span());
                self.loops[depth].value = Some(BreakSlot {
                    var,
                    values: Vec::new(),
                });
                var
            }
        };
        if let Some(slot) = &mut self.loops[depth].value {
            slot.values.push((op.clone(), ty, expr.span()));
        }
        out.push(Stmt {
            kind: StmtKind::Assign {
                var,
                op: crate::ir::AssignOp::Set,
                value: op,
            },
            span: expr.span(),
        });
    }

    pub(super) fn lower_continue(
        &mut self,
        cont: &syn::ExprContinue,
        out: &mut Vec<Stmt>,
    ) -> Jumps {
        let Some(depth) = self.jump_target(cont.label.as_ref(), cont, "continue") else {
            return Jumps::default();
        };
        if !self.loop_jump_allowed(depth, cont.continue_token, "continue") {
            return Jumps::default();
        }
        let flag = match self.loops[depth].cont {
            Some(flag) => flag,
            None => {
                let flag = self.fresh("cont", Ty::Bool, true, cont.span());
                self.loops[depth].cont = Some(flag);
                flag
            }
        };
        self.set_flag(out, flag, cont.span());
        self.leave_inner_loops(depth, flag);
        Jumps {
            cont: [depth].into(),
            ..Jumps::default()
        }
    }
}

/// The statements of a function's body with each `if c { ..; return a; }` (no `else`, no other
/// `return` in it) at its top level made an `if` with an `else` that holds the statements
/// after it, and a final `return b;` made the tail `b`:
///
/// ```text
/// // Before                          // After
/// if x > 10.0 {                      if x > 10.0 {
///     return [x, x];                     [x, x]
/// }                                  } else {
/// [x * x, x]                             [x * x, x]
///                                    }
/// ```
///
/// so that a function returning an array or a tuple, which has no return slot, needs none.
/// `None` when a `return` stands anywhere else.
pub(super) fn returns_as_branches(stmts: &[syn::Stmt]) -> Option<Vec<syn::Stmt>> {
    let returns = |stmt: &syn::Stmt| {
        let block = syn::Block {
            brace_token: Default::default(),
            stmts: vec![stmt.clone()],
        };
        super::rename::contains_return(&block)
    };
    for (k, stmt) in stmts.iter().enumerate() {
        if !returns(stmt) {
            continue;
        }
        let mut out = stmts[..k].to_vec();
        match stmt {
            syn::Stmt::Expr(syn::Expr::Return(ret), _) if k + 1 == stmts.len() => {
                out.push(syn::Stmt::Expr((*ret.expr.clone()?).clone(), None));
            }
            syn::Stmt::Expr(syn::Expr::If(expr_if), _) if expr_if.else_branch.is_none() => {
                let (last, init) = expr_if.then_branch.stmts.split_last()?;
                let syn::Stmt::Expr(syn::Expr::Return(ret), _) = last else {
                    return None;
                };
                if init.iter().any(returns) {
                    return None;
                }
                let value = (*ret.expr.clone()?).clone();
                let mut then = init.to_vec();
                then.push(syn::Stmt::Expr(value, None));
                let rest = returns_as_branches(&stmts[k + 1..])?;
                let mut branched = expr_if.clone();
                branched.then_branch.stmts = then;
                let els = syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: syn::Block {
                        brace_token: Default::default(),
                        stmts: rest,
                    },
                };
                branched.else_branch = Some((Default::default(), Box::new(syn::Expr::Block(els))));
                out.push(syn::Stmt::Expr(syn::Expr::If(branched), None));
            }
            _ => return None,
        }
        return Some(out);
    }
    Some(stmts.to_vec())
}
