//! `let` and its patterns: bindings of names to variables, tuples and closures.

use super::*;

impl Lowerer<'_> {
    pub(super) fn lower_let(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) -> Value {
        if let Some(init) = &local.init {
            if let Some((else_token, _)) = &init.diverge {
                self.cx.error(
                    else_token,
                    "`let ... else` is not supported by #[reverse]; use `match` or `if` instead",
                );
                return Value::Error;
            }
        }
        let (pat, annot) = match &local.pat {
            syn::Pat::Type(typed) => (&*typed.pat, Some((*typed.ty).clone())),
            pat => (pat, None),
        };
        let Some(init) = &local.init else {
            self.cx.error(
                local,
                "a `let` without a value is not supported by #[reverse]; give the variable its \
                 first value where it is declared (`let x = ...;`)",
            );
            if let syn::Pat::Ident(p) = pat {
                self.bind(&p.ident, Binding::Poisoned);
            }
            return Value::Unit;
        };
        if annot.is_none() && self.bind_place(pat, &init.expr, out) {
            return Value::Unit;
        }
        // `let it = xs.iter().map(..);`: lowered where it is consumed (see `iter`).
        if let syn::Pat::Ident(p) = pat {
            let plain = p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none();
            if plain
                && annot.is_none()
                && self.mentions_float(&init.expr)
                && self.bindable_chain(&init.expr)
            {
                let chain = super::iter::BoundChain {
                    expr: std::rc::Rc::new((*init.expr).clone()),
                    scopes: std::rc::Rc::new(self.scopes.clone()),
                };
                self.bind(&p.ident, Binding::Chain(chain));
                return Value::Unit;
            }
        }
        let first_new = self.vars.len();
        let value = match self.lower_new_vec(&init.expr, annot.as_ref(), out) {
            Some(value) => value,
            None => self.lower_expr(&init.expr, out),
        };
        self.bind_pattern(pat, value, annot, first_new, out);
        Value::Unit
    }

    /// Binds `pat` to `value`: names get variables, tuples are taken apart.
    pub(super) fn bind_pattern(
        &mut self,
        pat: &syn::Pat,
        value: Value,
        annot: Option<syn::Type>,
        first_new: VarId,
        out: &mut Vec<Stmt>,
    ) {
        match (pat, value) {
            (syn::Pat::Ident(p), value) if p.by_ref.is_none() && p.subpat.is_none() => {
                let mutable = p.mutability.is_some();
                match value {
                    Value::Op(op) => {
                        let id = self.bind_operand(&p.ident, op, mutable, annot, first_new, out);
                        self.bind(&p.ident, Binding::Var(id));
                    }
                    Value::Tuple(items) => {
                        if mutable {
                            self.cx.error(p, "a mutable tuple is not supported by #[reverse]; bind each element to its own `let mut`");
                        }
                        let binding = self.tuple_binding(&p.ident, items, out);
                        self.bind(&p.ident, binding);
                    }
                    Value::Closure(closure) => self.bind(&p.ident, Binding::Closure(closure)),
                    Value::View(view) => self.bind(&p.ident, Binding::View(view)),
                    Value::Place(place) => self.bind(&p.ident, Binding::Place(place)),
                    Value::Error => self.bind(&p.ident, Binding::Poisoned),
                    Value::Unit | Value::Never => {
                        self.cx
                            .error(p, "this `let` binds `()`; #[reverse] expects a value");
                    }
                }
            }
            (syn::Pat::Wild(_), _) => {}
            (syn::Pat::Tuple(tuple), Value::Tuple(items)) if tuple.elems.len() == items.len() => {
                for (pat, item) in tuple.elems.iter().zip(items) {
                    let (pat, annot) = match pat {
                        syn::Pat::Type(typed) => (&*typed.pat, Some((*typed.ty).clone())),
                        pat => (pat, None),
                    };
                    self.bind_pattern(pat, item, annot, first_new, out);
                }
            }
            (syn::Pat::Tuple(tuple), value) if self.bind_parts(tuple, &value, out) => {}
            (syn::Pat::Slice(slice), Value::Op(Operand::Var(array)))
                if self.vars[array].ty.is_array() =>
            {
                self.bind_elements(slice, array, out)
            }
            (syn::Pat::Tuple(tuple), _) => self.cx.error(
                tuple,
                "#[reverse] can destructure a tuple written in place, as in \
                 `let (a, b) = (x, y);`, but not other values",
            ),
            (pat, _) => self.cx.error(
                pat,
                "this pattern is not supported by #[reverse]; bind the value to a name",
            ),
        }
    }

    /// `let [a, b, c] = x;` (or `[a, _, ..]`) for a float array `x`: each name is an element,
    /// `let a = x[0];`.
    fn bind_elements(&mut self, slice: &syn::PatSlice, array: VarId, out: &mut Vec<Stmt>) {
        let elem = match &self.vars[array].ty {
            Ty::Array(info) => Ty::Float(info.elem),
            _ => Ty::Float(None),
        };
        let last = slice.elems.len().saturating_sub(1);
        for (k, pat) in slice.elems.iter().enumerate() {
            match pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    let index = Operand::Lit(quote!(#k), LitKind::Int);
                    let rhs = Rhs::Index(array, crate::ir::Path::index(index));
                    let op = self.let_temp(out, rhs, elem.clone(), p.ident.span());
                    let first_new = self.vars.len() - 1;
                    let id = self.bind_operand(
                        &p.ident,
                        op,
                        p.mutability.is_some(),
                        None,
                        first_new,
                        out,
                    );
                    self.bind(&p.ident, Binding::Var(id));
                }
                syn::Pat::Wild(_) => {}
                syn::Pat::Rest(_) if k == last => {}
                other => self.cx.error(
                    other,
                    "#[reverse] takes a float array apart into names, `_` and a final `..` \
                     (`let [a, b, ..] = x;`); bind this element to a name",
                ),
            }
        }
    }

    /// `let name = op;`: reuses the temporary that computed `op` when there is one.
    pub(super) fn bind_operand(
        &mut self,
        ident: &Ident,
        op: Operand,
        mutable: bool,
        annot: Option<syn::Type>,
        first_new: VarId,
        out: &mut Vec<Stmt>,
    ) -> VarId {
        let annot_float = annot.as_ref().and_then(|t| self.sig.float_of(t));
        if let Operand::Var(t) = op {
            let fresh_temp = t >= first_new && self.vars[t].temp && self.vars[t].param.is_none();
            let last_defines = matches!(out.last(), Some(Stmt { kind: StmtKind::Let { var, .. }, .. }) if *var == t);
            // A `let mut` gets its own variable when the temporary is the output of an
            // operation whose reverse reads it (`x / y`, `x.exp()`): the mutable variable
            // will be overwritten.
            let reads_output = matches!(
                out.last(),
                Some(Stmt {
                    kind: StmtKind::Let {
                        rhs: Rhs::Binary(crate::ir::BinOp::Div, ..),
                        ..
                    },
                    ..
                })
            ) || matches!(
                out.last(),
                Some(Stmt { kind: StmtKind::Let { rhs: Rhs::Intrinsic(rule, _), .. }, .. }) if rule.reads_output
            );
            if fresh_temp && last_defines && !(mutable && reads_output) {
                self.rename_temp(t, ident, mutable);
                if let Some(Stmt {
                    kind: StmtKind::Let { ty, .. },
                    ..
                }) = out.last_mut()
                {
                    *ty = annot.as_ref().map(ToTokens::to_token_stream);
                }
                self.refine_declared(t, annot.as_ref(), annot_float);
                return t;
            }
        }
        let ty = self.ty_of(&op);
        let id = self.user_var(ident, ty, mutable);
        self.refine_declared(id, annot.as_ref(), annot_float);
        let ty = annot.as_ref().map(ToTokens::to_token_stream);
        out.push(Stmt {
            kind: StmtKind::Let {
                var: id,
                rhs: Rhs::Copy(op),
                ty,
            },
            span: ident.span(),
        });
        id
    }

    /// Uses a type annotation to settle the type of a new variable.
    pub(super) fn refine_declared(
        &mut self,
        id: VarId,
        annot: Option<&syn::Type>,
        float: Option<FloatTy>,
    ) {
        if let Some(t) = float {
            self.vars[id].ty = Ty::Float(Some(t));
        } else if let Some(ty) = annot {
            // A type that mentions a float (`Vec<f32>`, `Option<f64>`) may hold differentiated
            // values: it stays unknown rather than known-inactive.
            if matches!(self.vars[id].ty, Ty::Unknown) && !mentions_float_type(ty, self.sig) {
                self.vars[id].ty = inactive_param_ty(ty);
            }
        }
    }

    /// Binds each element of a tuple value to a variable, for `let t = (a, b);`.
    pub(super) fn tuple_binding(
        &mut self,
        ident: &Ident,
        items: Vec<Value>,
        out: &mut Vec<Stmt>,
    ) -> Binding {
        let mut bindings = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let name = Ident::new(&format!("{}_{}", ident, i), ident.span());
            match item {
                Value::Op(op) => {
                    let id = self.user_var(&name, self.ty_of(&op), false);
                    out.push(Stmt {
                        kind: StmtKind::Let {
                            var: id,
                            rhs: Rhs::Copy(op),
                            ty: None,
                        },
                        span: ident.span(),
                    });
                    bindings.push(Binding::Var(id));
                }
                Value::Tuple(inner) => bindings.push(self.tuple_binding(&name, inner, out)),
                Value::Closure(c) => bindings.push(Binding::Closure(c)),
                Value::View(v) => bindings.push(Binding::View(v)),
                Value::Place(p) => bindings.push(Binding::Place(p)),
                Value::Error => bindings.push(Binding::Poisoned),
                Value::Unit | Value::Never => {
                    self.cx
                        .error(ident, "a tuple element of type `()` is not supported");
                }
            }
        }
        Binding::Tuple(bindings)
    }
}
