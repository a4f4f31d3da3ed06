//! Settles the types the generated code must spell out: the precision of every float value
//! (for values popped from the value stack and for casts) and the integer type of indices and
//! exponents.

use super::visit::walk;
use super::{Body, FloatTy, Operand, Rhs, Shape, StmtKind, Ty, VarId};

/// Resolves types in place. `default` is the precision of values nothing pins down.
pub(crate) fn resolve(body: &mut Body, default: FloatTy) {
    assign_roles(body);
    settle_float_operands(body);
    let mut links: Vec<(VarId, VarId)> = Vec::new();
    walk(&body.block, &mut |stmt, _| match &stmt.kind {
        StmtKind::Let { var, rhs, .. } => match rhs {
            Rhs::Copy(a)
            | Rhs::Neg(a)
            | Rhs::ArrayRepeat(a, _)
            | Rhs::VecRepeat(a, _)
            | Rhs::ToVec(a) => link(&mut links, *var, a),
            Rhs::Pop(v) | Rhs::Remove(v, _) => links.push((*var, *v)),
            Rhs::VecLit(items) => items.iter().for_each(|a| link(&mut links, *var, a)),
            Rhs::StructLit(_) => {}
            Rhs::VecNew(_) => {}
            Rhs::Binary(_, a, b) => {
                link(&mut links, *var, a);
                link(&mut links, *var, b);
            }
            Rhs::Intrinsic(rule, args) => {
                for a in args.iter().take(rule.arity) {
                    link(&mut links, *var, a);
                }
            }
            // (The floats of an aggregate may have different precisions.)
            Rhs::Index(array, _) if !is_aggregate(body, *array) => links.push((*var, *array)),
            Rhs::Index(..) => {}
            Rhs::ArrayLit(items) => items.iter().for_each(|a| link(&mut links, *var, a)),
            Rhs::Cast(..) | Rhs::Opaque(_) | Rhs::Guard(_) | Rhs::Call(_) | Rhs::Part(..) => {}
        },
        StmtKind::Assign { var, value, .. } => link(&mut links, *var, value),
        StmtKind::IndexAssign { array, value, .. } if !is_aggregate(body, *array) => {
            link(&mut links, *array, value)
        }
        StmtKind::VecOp { vec, op } => match op {
            crate::ir::VecOp::Extend { src, .. } => links.push((*vec, *src)),
            op => {
                if let Some(value) = op.value() {
                    link(&mut links, *vec, value);
                }
            }
        },
        StmtKind::If { phis, .. } => {
            for phi in phis {
                link(&mut links, phi.var, &phi.then);
                link(&mut links, phi.var, &phi.els);
            }
        }
        _ => {}
    });
    propagate(body, &links);
    // A call's result whose precision nothing settles but a cast `as T` to the precision of
    // the caller's floats (`(g(x) * 3.0) as f32` in an `f32` function) has the other
    // precision: a cast to the same type would do nothing.
    if cast_call_results(body, &links, default) {
        propagate(body, &links);
    }
    for var in &mut body.vars {
        match &mut var.ty {
            Ty::Float(t @ None) => *t = Some(default),
            Ty::Array(info) if info.elem.is_none() => info.elem = Some(default),
            _ => {}
        }
    }
}

/// A call's result of a type the macro does not know (`let k = scale();`, `s.unwrap_or(1.0)`)
/// that is an operand of float arithmetic or of a float intrinsic beside a float is a float: Rust
/// has no other operand for a float's `*` but a reference to one, and a wrong guess is a type
/// error where the value is stored (`push::<f64>(k)`), not a wrong number.
fn settle_float_operands(body: &mut Body) {
    let is_float = |body: &Body, op: &Operand| match op {
        Operand::Var(v) => body.vars[*v].ty.is_float(),
        Operand::Lit(_, kind) => matches!(kind, super::LitKind::Float(_)),
    };
    loop {
        let mut operands: Vec<Vec<Operand>> = Vec::new();
        walk(&body.block, &mut |stmt, _| match &stmt.kind {
            StmtKind::Let {
                rhs: Rhs::Binary(_, a, b),
                ..
            } => operands.push(vec![a.clone(), b.clone()]),
            StmtKind::Let {
                rhs: Rhs::Intrinsic(rule, args),
                ..
            } => operands.push(args.iter().take(rule.arity).cloned().collect()),
            StmtKind::Assign { var, value, .. } => {
                operands.push(vec![Operand::Var(*var), value.clone()])
            }
            _ => {}
        });
        // (Only a call's result or an element of a constant table, `TABLE[i]`, beside a
        // float: an element of an integer array, `for &v in w` with `w: &[i32]`, stays an
        // integer, whose use in float arithmetic rustc reports.)
        let mut calls = vec![false; body.vars.len()];
        walk(&body.block, &mut |stmt, _| {
            if let StmtKind::Let {
                var,
                rhs: Rhs::Opaque(opaque),
                ..
            } = &stmt.kind
            {
                let tokens: Vec<proc_macro2::TokenTree> = opaque.expr.clone().into_iter().collect();
                // (A table is indexed by integers only, and is no variable: `w[i]` of `w:
                // &[i32]` reads `w`; a part of a table's tuple, `item.0`, reads the item.)
                let table = |calls: &[bool]| {
                    opaque
                        .reads
                        .iter()
                        .all(|r| matches!(body.vars[*r].ty, Ty::Usize | Ty::I32) || calls[*r])
                };
                calls[*var] = match tokens.as_slice() {
                    [.., proc_macro2::TokenTree::Group(g)] => match g.delimiter() {
                        proc_macro2::Delimiter::Parenthesis => true,
                        proc_macro2::Delimiter::Bracket => table(&calls),
                        _ => false,
                    },
                    [.., proc_macro2::TokenTree::Punct(dot), proc_macro2::TokenTree::Literal(_)]
                        if dot.as_char() == '.' =>
                    {
                        table(&calls)
                    }
                    _ => false,
                };
            }
        });
        let mut changed = false;
        for ops in operands {
            if !ops.iter().any(|op| is_float(body, op)) {
                continue;
            }
            for op in ops {
                if let Operand::Var(v) = op {
                    if body.vars[v].ty == Ty::Unknown && calls[v] {
                        body.vars[v].ty = Ty::Float(None);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// Propagates known precisions along the links until nothing changes.
fn propagate(body: &mut Body, links: &[(VarId, VarId)]) {
    let mut changed = true;
    while changed {
        changed = false;
        for &(a, b) in links {
            let (ta, tb) = (float_of(&body.vars[a].ty), float_of(&body.vars[b].ty));
            match (ta, tb) {
                (Some(None), Some(Some(t))) => changed |= set_float(body, a, t),
                (Some(Some(t)), Some(None)) => changed |= set_float(body, b, t),
                _ => {}
            }
        }
    }
}

/// Settles the unsettled operands of casts to `default` that are linked to a call's result
/// as the other precision. Returns whether it settled any.
fn cast_call_results(body: &mut Body, links: &[(VarId, VarId)], default: FloatTy) -> bool {
    let unsettled = |body: &Body, v: VarId| float_of(&body.vars[v].ty) == Some(None);
    // The unsettled values linked to an unsettled call result.
    let mut from_call = vec![false; body.vars.len()];
    let mut casts = Vec::new();
    walk(&body.block, &mut |stmt, _| {
        if let StmtKind::Let { var, rhs, .. } = &stmt.kind {
            match rhs {
                Rhs::Call(_) => from_call[*var] = true,
                Rhs::Cast(Operand::Var(a), t) if *t == default => casts.push(*a),
                _ => {}
            }
        }
    });
    for (v, flag) in from_call.iter_mut().enumerate() {
        *flag &= unsettled(body, v);
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &(a, b) in links {
            if unsettled(body, a) && unsettled(body, b) && from_call[a] != from_call[b] {
                from_call[a] = true;
                from_call[b] = true;
                changed = true;
            }
        }
    }
    let other = match default {
        FloatTy::F32 => FloatTy::F64,
        FloatTy::F64 => FloatTy::F32,
        // (Nothing is cast to a type parameter: `as T` is not Rust.)
        FloatTy::Generic(_) => return false,
    };
    let mut settled = false;
    for a in casts {
        if from_call[a] && unsettled(body, a) {
            settled |= set_float(body, a, other);
        }
    }
    settled
}

fn link(links: &mut Vec<(VarId, VarId)>, var: VarId, op: &Operand) {
    if let Operand::Var(v) = op {
        links.push((var, *v));
    }
}

/// The precision of a float or float array type: `Some(None)` when not settled yet.
fn float_of(ty: &Ty) -> Option<Option<FloatTy>> {
    match ty {
        Ty::Float(t) => Some(*t),
        Ty::Array(info) => Some(info.elem),
        _ => None,
    }
}

fn set_float(body: &mut Body, var: VarId, t: FloatTy) -> bool {
    match &mut body.vars[var].ty {
        Ty::Float(slot @ None) => {
            *slot = Some(t);
            true
        }
        Ty::Array(info) if info.elem.is_none() => {
            info.elem = Some(t);
            true
        }
        _ => false,
    }
}

/// Indices and lengths are `usize`, `powi` exponents `i32`, conditions `bool`.
fn assign_roles(body: &mut Body) {
    let mut roles: Vec<(VarId, Ty)> = Vec::new();
    walk(&body.block, &mut |stmt, _| match &stmt.kind {
        StmtKind::Let { rhs, .. } => match rhs {
            Rhs::Index(_, path) => {
                for i in path.operands().into_iter().filter_map(Operand::var) {
                    roles.push((i, Ty::Usize));
                }
            }
            Rhs::VecRepeat(_, Operand::Var(i))
            | Rhs::Remove(_, Operand::Var(i))
            | Rhs::VecNew(Some(Operand::Var(i))) => roles.push((*i, Ty::Usize)),
            Rhs::Intrinsic(rule, args) if rule.int_exponent => {
                if let Some(Operand::Var(k)) = args.get(rule.arity) {
                    roles.push((*k, Ty::I32));
                }
            }
            _ => {}
        },
        StmtKind::IndexAssign { index, .. } => {
            for i in index.operands().into_iter().filter_map(Operand::var) {
                roles.push((i, Ty::Usize));
            }
        }
        StmtKind::If {
            cond: Operand::Var(c),
            ..
        } => roles.push((*c, Ty::Bool)),
        StmtKind::VecOp { op, .. } => {
            // Every operand but the value of the new elements is an index or a length.
            let value = op.value().and_then(Operand::var);
            for v in op.operands().into_iter().filter_map(Operand::var) {
                if Some(v) != value {
                    roles.push((v, Ty::Usize));
                }
            }
        }
        _ => {}
    });
    for var in body.vars.iter() {
        if let Ty::Array(info) = &var.ty {
            if let Shape::Len(Operand::Var(n)) = &info.shape {
                roles.push((*n, Ty::Usize));
            }
        }
    }
    // A read from an aggregate is taken to be a float until a role says otherwise (an
    // integer field used as an index).
    let mut loads = vec![false; body.vars.len()];
    walk(&body.block, &mut |stmt, _| {
        if let StmtKind::Let {
            var,
            rhs: Rhs::Index(array, _),
            ..
        } = &stmt.kind
        {
            loads[*var] = is_aggregate(body, *array);
        }
    });
    for (var, ty) in roles {
        let load = loads[var] && body.vars[var].ty == Ty::Float(None);
        if load || matches!(body.vars[var].ty, Ty::Unknown | Ty::Other) {
            body.vars[var].ty = ty;
        }
    }
}

/// Whether `var` is an aggregate (see `lower::places`).
fn is_aggregate(body: &Body, var: VarId) -> bool {
    matches!(&body.vars[var].ty, Ty::Array(info) if info.agg)
}
