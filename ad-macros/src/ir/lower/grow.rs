//! Growing and reshaping float vectors: `Vec::new()`, `Vec::with_capacity(n)`, `vec![a, b]`,
//! `push`, `pop().unwrap()`, `pop();`, `insert`, `remove`, `extend_from_slice`, `resize`,
//! `truncate`, `clear`, `swap`, `to_vec`, `clone`, and `v = ..` on a `Vec`.
//!
//! Each becomes a [`Rhs`] or a [`StmtKind::VecOp`]; an operation after which the reverse
//! sweep must restore the adjoint's old length first binds it (`let __n3 = v.len();`), a
//! value the planner keeps like any other. At the end, every `Vec` whose length the code
//! changes (or that starts empty, or copies such a `Vec`) gets its shape from its length at
//! the end of its block (`let __len4 = v.len();`, the last statement of that block): the
//! reverse of that block starts from an adjoint of that length.

use super::*;
use crate::ir::{ArrayInfo, Shape, Shrink, VecOp};

/// Why a growing operation inside a closure is rejected.
const IN_CLOSURE: &str = "growing or shrinking a float vector inside a closure is not supported \
     by #[reverse]; write a `for` loop instead of the closure";

impl Lowerer<'_> {
    /// `Vec::new()`, `Vec::with_capacity(n)` or `vec![]` as the value of a `let` annotated
    /// `annot` (if at all): an empty float `Vec`. `None` when `init` is something else, or the
    /// annotation names a vector of something other than floats.
    pub(super) fn lower_new_vec(
        &mut self,
        init: &syn::Expr,
        annot: Option<&syn::Type>,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let (cap, turbofish) = new_vec_call(strip(init))?;
        let elem = match (annot, turbofish) {
            (Some(ty), _) => Some(vec_elem(ty, self.sig)?),
            (None, Some(ty)) => Some(self.sig.float_of(ty)?),
            (None, None) => None,
        };
        let cap = cap.map(|n| self.lower_int_operand(n, Ty::Usize, out));
        let ty = Ty::Array(ArrayInfo {
            elem,
            shape: Shape::Len(Operand::Lit(quote!(0), LitKind::Int)),
            agg: false,
        });
        Some(Value::Op(self.let_temp(
            out,
            Rhs::VecNew(cap),
            ty,
            init.span(),
        )))
    }

    /// `vec![a, b, c]` (and `vec![]`): a `Vec` of float operands. `None` when the tokens are
    /// not a list of expressions.
    pub(super) fn lower_vec_literal(
        &mut self,
        mac: &syn::Macro,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let tokens = &mac.tokens;
        let array: syn::ExprArray = syn::parse2(quote!([#tokens])).ok()?;
        if array.elems.is_empty() {
            let ty = Ty::Array(ArrayInfo {
                elem: None,
                shape: Shape::Len(Operand::Lit(quote!(0), LitKind::Int)),
                agg: false,
            });
            return Some(Value::Op(self.let_temp(
                out,
                Rhs::VecNew(None),
                ty,
                mac.span(),
            )));
        }
        let int_literal = |e: &syn::Expr| {
            matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })
                if !matches!(i.suffix(), "f32" | "f64"))
        };
        if array.elems.iter().any(int_literal) {
            // Integer data: inactive, emitted as written.
            let e = syn::Expr::Macro(syn::ExprMacro {
                attrs: vec![],
                mac: mac.clone(),
            });
            return Some(self.opaque_value(&e, Ty::Other, out));
        }
        let mut elems = Vec::new();
        for e in &array.elems {
            match self.lower_expr(e, out) {
                Value::Op(op) => elems.push(op),
                Value::Error => return Some(Value::Error),
                _ => {
                    self.cx.error(e, "#[reverse] supports vectors of numbers");
                    return Some(Value::Error);
                }
            }
        }
        let elem = elems
            .iter()
            .map(|e| self.ty_of(e))
            .fold(Ty::Unknown, |a, b| expr_join(&a, &b));
        let elem = match elem {
            Ty::Float(t) => t,
            _ => None,
        };
        let len = proc_macro2::Literal::usize_unsuffixed(elems.len()).into_token_stream();
        let ty = Ty::Array(ArrayInfo {
            elem,
            shape: Shape::Len(Operand::Lit(len, LitKind::Int)),
            agg: false,
        });
        Some(Value::Op(self.let_temp(
            out,
            Rhs::VecLit(elems),
            ty,
            mac.span(),
        )))
    }

    /// `v.pop();` as a statement on a float `Vec`: `true` when `expr` is one (and was lowered).
    pub(super) fn lower_vec_stmt(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) -> bool {
        let syn::Expr::MethodCall(call) = strip(expr) else {
            return false;
        };
        if call.method != "pop" || !call.args.is_empty() {
            return false;
        }
        let Some(v) = self.array_var(&call.receiver) else {
            return false;
        };
        if self.growable(v, &call.method) {
            let old = self.old_len(v, out, expr.span());
            self.push_vec_op(
                v,
                VecOp::Shrink {
                    how: Shrink::Pop,
                    old,
                },
                expr.span(),
                out,
            );
        }
        true
    }

    /// A method call on a float array that grows, shrinks or reorders it, takes an element
    /// out, or copies it; `None` for other methods.
    pub(super) fn lower_vec_method(
        &mut self,
        expr: &syn::Expr,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let name = call.method.to_string();
        let span = expr.span();
        if name == "unwrap" || name == "expect" {
            // `v.pop().unwrap()`, `v.pop().expect("..")`
            let syn::Expr::MethodCall(inner) = strip(&call.receiver) else {
                return None;
            };
            if inner.method != "pop" || !inner.args.is_empty() {
                return None;
            }
            let v = self.array_var(&inner.receiver)?;
            for arg in &call.args {
                self.lower_expr(arg, out);
            }
            if !self.growable(v, &inner.method) {
                return Some(Value::Error);
            }
            let elem = self.elem_of(v);
            return Some(Value::Op(self.let_temp(
                out,
                Rhs::Pop(v),
                Ty::Float(elem),
                span,
            )));
        }
        let v = self.array_var(&call.receiver)?;
        if !is_vec_method(&name, call.args.len()) {
            return None;
        }
        Some(
            self.lower_vec_method_on(v, expr, call, out)
                .unwrap_or(Value::Error),
        )
    }

    /// The method `call` on the float array `v`; `None` after an error was reported. Methods
    /// of other names are left to the caller (`Value::Error` is never returned for them).
    fn lower_vec_method_on(
        &mut self,
        v: VarId,
        expr: &syn::Expr,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let name = call.method.to_string();
        let span = expr.span();
        let args: Vec<&syn::Expr> = call.args.iter().collect();
        let arity = |n: usize| args.len() == n;
        let value = match name.as_str() {
            "push" if arity(1) => {
                let a = self.vec_element(v, args[0], out)?;
                if self.growable(v, &call.method) {
                    self.push_vec_op(v, VecOp::Push(a), span, out);
                }
                Value::Unit
            }
            "insert" if arity(2) => {
                let i = self.lower_int_operand(args[0], Ty::Usize, out);
                let a = self.vec_element(v, args[1], out)?;
                if self.growable(v, &call.method) {
                    self.push_vec_op(v, VecOp::Insert(i, a), span, out);
                }
                Value::Unit
            }
            "extend_from_slice" if arity(1) => {
                let src = match strip(args[0]) {
                    syn::Expr::Reference(r) if r.mutability.is_none() => self.array_var(&r.expr),
                    other => self.array_var(other),
                };
                let Some(src) = src else {
                    self.cx.error(
                        args[0],
                        "#[reverse] extends a float vector from a float array, slice or `Vec` \
                         bound to a name (`v.extend_from_slice(&w)`); bind this value first",
                    );
                    return Some(Value::Error);
                };
                if self.growable(v, &call.method) {
                    let old = self.old_len(v, out, span);
                    self.push_vec_op(v, VecOp::Extend { src, old }, span, out);
                }
                Value::Unit
            }
            "resize" if arity(2) => {
                let len = self.lower_int_operand(args[0], Ty::Usize, out);
                let value = self.vec_element(v, args[1], out)?;
                if self.growable(v, &call.method) {
                    let old = self.old_len(v, out, span);
                    self.push_vec_op(v, VecOp::Resize { len, value, old }, span, out);
                }
                Value::Unit
            }
            "truncate" if arity(1) => {
                let n = self.lower_int_operand(args[0], Ty::Usize, out);
                if self.growable(v, &call.method) {
                    let old = self.old_len(v, out, span);
                    let how = Shrink::Truncate(n);
                    self.push_vec_op(v, VecOp::Shrink { how, old }, span, out);
                }
                Value::Unit
            }
            "clear" if arity(0) => {
                if self.growable(v, &call.method) {
                    let old = self.old_len(v, out, span);
                    let how = Shrink::Clear;
                    self.push_vec_op(v, VecOp::Shrink { how, old }, span, out);
                }
                Value::Unit
            }
            "swap" if arity(2) => {
                let i = self.lower_int_operand(args[0], Ty::Usize, out);
                let j = self.lower_int_operand(args[1], Ty::Usize, out);
                if self.closure_depth > 0 {
                    self.cx.error(&call.method, IN_CLOSURE);
                    return Some(Value::Error);
                }
                self.push_vec_op(v, VecOp::Swap(i, j), span, out);
                Value::Unit
            }
            "remove" if arity(1) => {
                let i = self.lower_int_operand(args[0], Ty::Usize, out);
                if !self.growable(v, &call.method) {
                    return Some(Value::Error);
                }
                let elem = self.elem_of(v);
                Value::Op(self.let_temp(out, Rhs::Remove(v, i), Ty::Float(elem), span))
            }
            "pop" if arity(0) => {
                self.cx.error(
                    &call.method,
                    "#[reverse] takes the last element of a float vector with \
                     `v.pop().unwrap()` (or `.expect(..)`), or drops it with `v.pop();` as a \
                     statement; it does not model the `Option` itself",
                );
                Value::Error
            }
            "to_vec" if arity(0) => {
                let elem = self.elem_of(v);
                let ty = Ty::Array(ArrayInfo {
                    elem,
                    shape: Shape::Len(Operand::Lit(quote!(0), LitKind::Int)),
                    agg: false,
                });
                Value::Op(self.let_temp(out, Rhs::ToVec(Operand::Var(v)), ty, span))
            }
            "clone" if arity(0) => {
                let ty = self.vars[v].ty.clone();
                Value::Op(self.let_temp(out, Rhs::Copy(Operand::Var(v)), ty, span))
            }
            // (`is_vec_method` lets only the names above through.)
            _ => return None,
        };
        Some(value)
    }

    /// `v = value;` for the float `Vec` `v`: `v.clear();` then, unless the value is
    /// `Vec::new()` or `Vec::with_capacity(n)`, `v.extend_from_slice(&value)`. `false` when
    /// `v` is not a `Vec` (a fixed-size array).
    pub(super) fn assign_vec(
        &mut self,
        expr: &syn::Expr,
        var: VarId,
        right: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        if !self.is_vec(var) {
            return false;
        }
        let span = expr.span();
        let src = if new_vec_call(strip(right)).is_some() {
            None
        } else {
            match self.lower_expr(right, out) {
                Value::Op(Operand::Var(w)) if self.vars[w].ty.is_array() => Some(w),
                // A call's result assigned to a `Vec` is an array (`h = layer.forward(&h);`).
                Value::Op(Operand::Var(w)) if self.array_result(w) => Some(w),
                Value::Error => return true,
                _ => {
                    self.cx.error(
                        right,
                        "#[reverse] assigns a float vector from another float array, slice \
                         or `Vec`, or from `Vec::new()`",
                    );
                    return true;
                }
            }
        };
        if !self.growable_at(var, span) {
            return true;
        }
        let old = self.old_len(var, out, span);
        self.push_vec_op(
            var,
            VecOp::Shrink {
                how: Shrink::Clear,
                old,
            },
            span,
            out,
        );
        if let Some(src) = src {
            let old = self.old_len(var, out, span);
            self.push_vec_op(var, VecOp::Extend { src, old }, span, out);
        }
        true
    }

    /// Whether `v` is a `Vec` (not a fixed-size array or a slice parameter).
    fn is_vec(&self, v: VarId) -> bool {
        match &self.vars[v].ty {
            Ty::Array(info) => match &info.shape {
                Shape::Fixed(_) => false,
                Shape::Like(p) => {
                    // A copy of a by-value `Vec` parameter, or of a `&mut Vec` one. (A
                    // call's result has the shape of itself: rustc knows whether it is a
                    // `Vec`, the macro does not, so it is not grown.)
                    let Some(index) = self.vars[*p].param else {
                        return false;
                    };
                    let param = &self.sig.params[index];
                    let vec = match &param.ty {
                        syn::Type::Reference(r) => {
                            r.mutability.is_some() && !matches!(&*r.elem, syn::Type::Slice(_))
                        }
                        _ => true,
                    };
                    matches!(param.kind, ParamKind::Slice { .. })
                        && vec
                        && self.vars[v].param.is_none()
                }
                Shape::Len(_) => true,
                Shape::Place(..) => false,
            },
            _ => false,
        }
    }

    /// Whether the length of `v` may change here: `v` is a `Vec` and the code is not in a
    /// closure; reports why not at `method`.
    fn growable(&self, v: VarId, method: &Ident) -> bool {
        self.growable_at(v, method.span())
    }

    fn growable_at(&self, v: VarId, span: Span) -> bool {
        if self.closure_depth > 0 {
            self.cx.error_at(span, IN_CLOSURE);
            return false;
        }
        if !self.is_vec(v) {
            self.cx.error_at(
                span,
                format!(
                    "#[reverse] can change the length of a local `Vec` (or of a `mut` `Vec` \
                     parameter), and `{}` is not one; copy it into a `Vec` first \
                     (`let mut v = w.to_vec();`)",
                    self.vars[v].name
                ),
            );
            return false;
        }
        true
    }

    /// The element type of the float array `v`.
    fn elem_of(&self, v: VarId) -> Option<FloatTy> {
        match &self.vars[v].ty {
            Ty::Array(info) => info.elem,
            _ => None,
        }
    }

    /// A float value stored into `v`: `None` after reporting a value that is not a number.
    fn vec_element(&mut self, v: VarId, arg: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Operand> {
        let value = self.lower_expr(arg, out);
        let op = self.number(value, arg, "#[reverse] stores numbers in float vectors")?;
        let float = match self.ty_of(&op) {
            Ty::Float(_) => true,
            Ty::Unknown => self.is_float_expr(arg) || matches!(op, Operand::Lit(..)),
            _ => false,
        };
        if !float {
            self.cx.error(
                arg,
                format!(
                    "#[reverse] takes `{}` for a vector of floats, and this value is not a \
                     float; give a vector of other values its type (`let v: Vec<usize> = \
                     Vec::new();`)",
                    self.vars[v].name
                ),
            );
            return None;
        }
        Some(op)
    }

    /// `let __nN = v.len();` before an operation whose reverse restores that length.
    fn old_len(&mut self, v: VarId, out: &mut Vec<Stmt>, span: Span) -> VarId {
        let name = &self.vars[v].name;
        let opaque = Opaque {
            expr: quote!(#name.len()),
            reads: vec![v],
            // `v` changes after it: the reverse sweep cannot evaluate it again.
            cheap: false,
            flows: Vec::new(),
            if_active: (span, String::new()),
        };
        self.let_opaque(out, "n", Ty::Usize, opaque, span)
    }

    fn push_vec_op(&mut self, vec: VarId, op: VecOp, span: Span, out: &mut Vec<Stmt>) {
        out.push(Stmt {
            kind: StmtKind::VecOp { vec, op },
            span,
        });
    }

    /// After lowering: every `Vec` whose length the body changes, that starts empty or as a
    /// copy `to_vec()`, or that copies such a `Vec`, takes the shape of its length at the end
    /// of the block that defines it, bound by a statement added there.
    pub(super) fn finish_growth(&mut self, stmts: &mut Vec<Stmt>) {
        let n = self.vars.len();
        let mut dynamic = vec![false; n];
        let mut copies: Vec<(VarId, VarId)> = Vec::new();
        let block = Block {
            id: 0,
            stmts: std::mem::take(stmts),
        };
        crate::ir::visit::walk(&block, &mut |stmt, _| match &stmt.kind {
            StmtKind::VecOp { vec, op } if !matches!(op, VecOp::Swap(..)) => dynamic[*vec] = true,
            StmtKind::Let { var, rhs, .. } => match rhs {
                Rhs::Pop(v) | Rhs::Remove(v, _) => dynamic[*v] = true,
                Rhs::VecNew(_) | Rhs::ToVec(_) => dynamic[*var] = true,
                Rhs::Copy(Operand::Var(a)) => copies.push((*var, *a)),
                _ => {}
            },
            _ => {}
        });
        *stmts = block.stmts;
        let mut changed = true;
        while changed {
            changed = false;
            for &(to, from) in &copies {
                // (An aggregate's adjoint is shaped by `zeros_like` of a place, not by its
                // length: `rows[i] = v.clone();`.)
                let vec = matches!(&self.vars[to].ty, Ty::Array(info) if !info.agg);
                if dynamic[from] && !dynamic[to] && vec {
                    dynamic[to] = true;
                    changed = true;
                }
            }
        }
        if dynamic.iter().any(|d| *d) {
            self.add_lengths(stmts, &dynamic);
        }
    }

    /// Appends `let __lenN = v.len();` to `stmts` for each dynamic `Vec` it defines, after
    /// doing the same in its nested blocks.
    fn add_lengths(&mut self, stmts: &mut Vec<Stmt>, dynamic: &[bool]) {
        let mut defined = Vec::new();
        for stmt in stmts.iter_mut() {
            match &mut stmt.kind {
                StmtKind::Let { var, .. } if dynamic[*var] && self.vars[*var].param.is_none() => {
                    defined.push(*var)
                }
                StmtKind::If { then, els, .. } => {
                    self.add_lengths(&mut then.stmts, dynamic);
                    self.add_lengths(&mut els.stmts, dynamic);
                }
                StmtKind::Loop(l) => self.add_lengths(&mut l.body.stmts, dynamic),
                _ => {}
            }
        }
        for v in defined {
            let span = self.vars[v].span;
            let name = self.vars[v].name.clone();
            let opaque = Opaque {
                expr: quote!(#name.len()),
                reads: vec![v],
                cheap: false,
                flows: Vec::new(),
                if_active: (span, String::new()),
            };
            let len = self.let_opaque(stmts, "len", Ty::Usize, opaque, span);
            if let Ty::Array(info) = &mut self.vars[v].ty {
                info.shape = Shape::Len(Operand::Var(len));
            }
        }
    }
}

/// Whether `name` with `arity` arguments is one of the methods `lower_vec_method_on` lowers.
fn is_vec_method(name: &str, arity: usize) -> bool {
    matches!(
        (name, arity),
        ("push" | "extend_from_slice" | "truncate" | "remove", 1)
            | ("insert" | "resize" | "swap", 2)
            | ("clear" | "pop" | "to_vec" | "clone", 0)
    )
}

/// `Vec::new()`, `Vec::with_capacity(n)` (with the capacity), `Vec::<T>::new()` (with `T`).
fn new_vec_call(expr: &syn::Expr) -> Option<(Option<&syn::Expr>, Option<&syn::Type>)> {
    let syn::Expr::Call(call) = expr else {
        return None;
    };
    let syn::Expr::Path(func) = &*call.func else {
        return None;
    };
    if func.qself.is_some() {
        return None;
    }
    let segments: Vec<&syn::PathSegment> = func.path.segments.iter().collect();
    let (ty, method) = match segments.as_slice() {
        [ty, method] => (*ty, *method),
        [std, vec_mod, ty, method]
            if (std.ident == "std" || std.ident == "alloc") && vec_mod.ident == "vec" =>
        {
            (*ty, *method)
        }
        _ => return None,
    };
    if ty.ident != "Vec" {
        return None;
    }
    let turbofish = match &ty.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    };
    match (method.ident.to_string().as_str(), call.args.len()) {
        ("new", 0) => Some((None, turbofish)),
        ("with_capacity", 1) => Some((call.args.first(), turbofish)),
        _ => None,
    }
}

/// The float element type of `Vec<f64>` / `Vec<f32>` / `Vec<T>`, `None` for any other type (`Vec<_>`
/// included: its elements may be anything).
fn vec_elem(ty: &syn::Type, sig: &crate::parse::Signature) -> Option<FloatTy> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    if last.ident != "Vec" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match a.args.first()? {
        syn::GenericArgument::Type(t) => sig.float_of(t),
        _ => None,
    }
}

fn expr_join(a: &Ty, b: &Ty) -> Ty {
    super::expr::join(a, b)
}
