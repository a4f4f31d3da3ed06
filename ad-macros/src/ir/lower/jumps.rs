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
}

/// The return slot and flag of a function with early `return`.
pub(super) struct RetCtx {
    pub(super) value: VarId,
    pub(super) flag: VarId,
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

    /// Declares the return slot and flag of a function with early `return`s.
    pub(super) fn start_returns(&mut self, out: &mut Vec<Stmt>) {
        let span = Span::call_site();
        let name = self.names.fixed("ret");
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
        self.ret = Some(RetCtx { value, flag });
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
        match (&ret.expr, &self.sig.ret) {
            // `return;` in a function whose results are its `&mut` parameters.
            (None, RetTy::Unit) => {}
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

    pub(super) fn lower_break(&mut self, brk: &syn::ExprBreak, out: &mut Vec<Stmt>) -> Jumps {
        if let Some(label) = &brk.label {
            self.cx.error(
                label,
                "labeled `break` is not supported by #[reverse]; use a flag to leave the outer \
                 loop",
            );
            return Jumps::default();
        }
        if let Some(expr) = &brk.expr {
            self.cx.error(
                expr,
                "`break` with a value is not supported by #[reverse]; assign the value to a \
                 variable declared before the loop, then `break`",
            );
            return Jumps::default();
        }
        if !self.jump_allowed(brk.break_token, "break") {
            return Jumps::default();
        }
        let Some(depth) = self.loops.len().checked_sub(1) else {
            self.cx.error(brk, "`break` outside of a loop");
            return Jumps::default();
        };
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
        Jumps {
            brk: [depth].into(),
            ..Jumps::default()
        }
    }

    pub(super) fn lower_continue(
        &mut self,
        cont: &syn::ExprContinue,
        out: &mut Vec<Stmt>,
    ) -> Jumps {
        if let Some(label) = &cont.label {
            self.cx.error(
                label,
                "labeled `continue` is not supported by #[reverse]; set a flag, `break` the \
                 inner loop, and `continue` the outer one when the flag is set",
            );
            return Jumps::default();
        }
        if !self.jump_allowed(cont.continue_token, "continue") {
            return Jumps::default();
        }
        let Some(depth) = self.loops.len().checked_sub(1) else {
            self.cx.error(cont, "`continue` outside of a loop");
            return Jumps::default();
        };
        let flag = match self.loops[depth].cont {
            Some(flag) => flag,
            None => {
                let flag = self.fresh("cont", Ty::Bool, true, cont.span());
                self.loops[depth].cont = Some(flag);
                flag
            }
        };
        self.set_flag(out, flag, cont.span());
        Jumps {
            cont: [depth].into(),
            ..Jumps::default()
        }
    }
}
