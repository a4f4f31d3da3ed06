//! Variables, scopes and blocks: the bookkeeping every other part of lowering uses.

use super::*;

impl Lowerer<'_> {
    pub(super) fn new_var(&mut self, name: Ident, ty: Ty, mutable: bool, span: Span) -> VarId {
        self.vars.push(Var {
            name,
            ty,
            mutable,
            param: None,
            deref: false,
            span,
            temp: true,
        });
        self.vars.len() - 1
    }

    /// A fresh temporary `__{prefix}N`.
    pub(super) fn fresh(&mut self, prefix: &str, ty: Ty, mutable: bool, span: Span) -> VarId {
        let name = self.names.fresh(prefix);
        self.new_var(name, ty, mutable, span)
    }

    /// A new variable for the user binding `ident` (not yet in scope).
    pub(super) fn user_var(&mut self, ident: &Ident, ty: Ty, mutable: bool) -> VarId {
        let name = self.names.user(ident);
        let id = self.new_var(name, ty, mutable, ident.span());
        self.vars[id].temp = false;
        id
    }

    /// Gives the temporary `id` the user's name `ident` (so `let z = x * y;` stays one line).
    pub(super) fn rename_temp(&mut self, id: VarId, ident: &Ident, mutable: bool) {
        let name = self.names.user(ident);
        self.vars[id].name = name;
        self.vars[id].mutable = mutable;
        self.vars[id].temp = false;
        self.vars[id].span = ident.span();
    }

    pub(super) fn bind(&mut self, ident: &Ident, binding: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(ident.to_string(), binding);
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name))
    }

    pub(super) fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub(super) fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// `if cond { then } else { els }` appended to `out`, with the `phis` of its value (none
    /// for a statement).
    pub(super) fn push_if(
        &mut self,
        cond: Operand,
        (then, els): (Vec<Stmt>, Vec<Stmt>),
        phis: Vec<crate::ir::Phi>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let then = self.new_block(then);
        let els = self.new_block(els);
        out.push(Stmt {
            kind: StmtKind::If {
                cond,
                then,
                els,
                phis,
            },
            span,
        });
    }

    pub(super) fn new_block(&mut self, stmts: Vec<Stmt>) -> Block {
        let id = self.blocks;
        self.blocks += 1;
        Block { id, stmts }
    }

    pub(super) fn ty_of(&self, op: &Operand) -> Ty {
        match op {
            Operand::Var(v) => self.vars[*v].ty.clone(),
            Operand::Lit(_, LitKind::Float(t)) => Ty::Float(*t),
            Operand::Lit(_, LitKind::Int) | Operand::Lit(_, LitKind::Unknown) => Ty::Unknown,
            Operand::Lit(_, LitKind::Bool) => Ty::Bool,
        }
    }

    /// Emits `let tmp = rhs;` and returns `tmp`.
    pub(super) fn let_temp(
        &mut self,
        out: &mut Vec<Stmt>,
        rhs: Rhs,
        ty: Ty,
        span: Span,
    ) -> Operand {
        let var = self.fresh("t", ty, false, span);
        out.push(Stmt {
            kind: StmtKind::Let { var, rhs, ty: None },
            span,
        });
        Operand::Var(var)
    }

    /// Emits `let tmp = <opaque>;` of type `ty`.
    pub(super) fn let_opaque(
        &mut self,
        out: &mut Vec<Stmt>,
        prefix: &str,
        ty: Ty,
        opaque: Opaque,
        span: Span,
    ) -> VarId {
        let var = self.fresh(prefix, ty, false, span);
        out.push(Stmt {
            kind: StmtKind::Let {
                var,
                rhs: Rhs::Opaque(opaque),
                ty: None,
            },
            span,
        });
        var
    }

    /// The operand of a value that must be a number: `None` after reporting `msg` at `node`,
    /// or silently for a value that is already an error.
    pub(super) fn number(&self, value: Value, node: impl ToTokens, msg: &str) -> Option<Operand> {
        match value {
            Value::Op(op) => Some(op),
            Value::Error => None,
            _ => {
                self.cx.error(node, msg);
                None
            }
        }
    }
}
