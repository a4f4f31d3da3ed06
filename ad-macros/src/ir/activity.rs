//! Activity analysis: which variables need an adjoint.
//!
//! A variable is *varied* if it depends on an active parameter, *useful* if the output
//! depends on it, and *active* if both (the standard definition; Hascoët & Pascual, Tapenade).
//! The analysis is flow-insensitive per variable: a mutable variable is varied if any of its
//! assignments is. Inactive code is emitted unchanged and gets no adjoint.

use super::visit::walk;
use super::{Body, Operand, Output, Rhs, Stmt, StmtKind, Ty, VarId};
use crate::error::Errors;
use crate::parse::Signature;

/// The result of the analysis, per variable.
#[derive(Clone, Debug)]
pub(crate) struct Activity {
    /// Varied, useful, and of a float type.
    pub active: Vec<bool>,
}

impl Activity {
    pub(crate) fn active(&self, var: VarId) -> bool {
        self.active.get(var).copied().unwrap_or(false)
    }

    /// Marks a variable added after the analysis (a snapshot of an active variable).
    pub(crate) fn push(&mut self, active: bool) {
        self.active.push(active);
    }

    pub(crate) fn active_op(&self, op: &Operand) -> bool {
        op.var().is_some_and(|v| self.active(v))
    }

    /// Whether `let var = rhs;` has reverse work: its result is active, or it is a call that
    /// writes an active variable through `&mut` (whose result may be `()`).
    pub(crate) fn live(&self, var: VarId, rhs: &Rhs) -> bool {
        self.active(var)
            || matches!(rhs, Rhs::Call(call)
                if call.writes().any(|w| self.active(w)) || call.parts.iter().any(|&p| self.active(p)))
    }
}

/// One edge of the dependence graph: `to` depends differentiably on `from`.
pub(crate) type Edge = (VarId, VarId);

/// Computes activity, and reports expressions the macro cannot differentiate that an active
/// value flows into.
pub(crate) fn analyse(cx: &Errors, body: &Body, sig: &Signature) -> Activity {
    let n = body.vars.len();
    let mut edges: Vec<Edge> = Vec::new();
    walk(&body.block, &mut |stmt, _| edges_of(stmt, &mut edges));

    let mut varied = vec![false; n];
    for (id, var) in body.vars.iter().enumerate() {
        if let Some(p) = var.param {
            // A function argument varies with the variables it captures (whatever `wrt`
            // says): its calls carry their derivatives (`revad_runtime::function`).
            varied[id] = sig.params[p].active || sig.params[p].function.is_some();
        }
    }
    fixpoint(&mut varied, &edges, |(to, from)| (from, to));

    let mut useful = vec![false; n];
    body_outputs(body, &mut |v| useful[v] = true);
    fixpoint(&mut useful, &edges, |(to, from)| (to, from));

    // A differentiated value must not flow into code whose derivative is unknown: an opaque
    // value that is used, or any opaque code with effects the macro cannot see (a method that
    // stores the value in a container, a call, a statement), used or not.
    let varied_float =
        |v: &VarId| varied[*v] && !matches!(body.vars[*v].ty, Ty::Usize | Ty::I32 | Ty::Bool);
    // The opaque code a differentiated value flows into, in the body's order; each is
    // reported unless it reads a value that an earlier one's error already explains (`match
    // o { .. }` after `let o = if c { Some(x) } else { None };`), through any assignment.
    // (The value it defines, where it is a `let`; what flows into it; its error.)
    type Found = (Option<VarId>, Vec<VarId>, (proc_macro2::Span, String));
    let mut found: Vec<Found> = Vec::new();
    walk(&body.block, &mut |stmt, _| match &stmt.kind {
        StmtKind::Let {
            var,
            rhs: Rhs::Opaque(opaque),
            ..
        } => {
            let flows_active = opaque.flows.iter().any(varied_float);
            let used = useful[*var] || useful_if_float(*var, &edges, &useful);
            if flows_active && (used || !opaque.cheap) {
                found.push((Some(*var), opaque.flows.clone(), opaque.if_active.clone()));
            }
        }
        StmtKind::Opaque {
            flows, if_active, ..
        } if flows.iter().any(varied_float) => found.push((None, flows.clone(), if_active.clone())),
        _ => {}
    });
    let mut explained = vec![false; n];
    for (var, flows, (span, msg)) in found {
        if !flows.iter().any(|v| explained[*v]) {
            cx.error_at(span, or_untyped(&msg));
        }
        if let Some(var) = var {
            explained[var] = true;
            fixpoint(&mut explained, &edges, |(to, from)| (from, to));
        }
    }
    let active = (0..n)
        .map(|v| varied[v] && useful[v] && matches!(body.vars[v].ty, Ty::Float(_) | Ty::Array(_)))
        .collect();
    Activity { active }
}

/// `msg`, or where the lowering gave none (the value of an opaque read was not expected to
/// carry a derivative), the one message for a value of a type the macro cannot see.
fn or_untyped(msg: &str) -> &str {
    match msg {
        "" => {
            "#[reverse] does not know the type of this value, which a derivative flows \
             through; declare the type of the variable it comes from (`let m: Vec<Vec<f64>> = \
             g(x);`, `let v: f64 = ..;`)"
        }
        msg => msg,
    }
}

/// Whether `var` is an operand of a useful computation (so dropping its derivative would
/// change the gradient).
fn useful_if_float(var: VarId, edges: &[Edge], useful: &[bool]) -> bool {
    edges.iter().any(|&(to, from)| from == var && useful[to])
}

/// Sets `flags[b]` for every edge (a, b) = `dir(edge)` with `flags[a]`, until stable.
fn fixpoint(flags: &mut [bool], edges: &[Edge], dir: impl Fn(Edge) -> Edge) {
    let mut changed = true;
    while changed {
        changed = false;
        for &edge in edges {
            let (a, b) = dir(edge);
            if flags[a] && !flags[b] {
                flags[b] = true;
                changed = true;
            }
        }
    }
}

/// The differentiable dependences a statement creates: `(defined, operand)`.
pub(crate) fn edges_of(stmt: &Stmt, edges: &mut Vec<Edge>) {
    let mut add = |to: VarId, op: &Operand| {
        if let Operand::Var(from) = op {
            edges.push((to, *from));
        }
    };
    match &stmt.kind {
        StmtKind::Let { var, rhs, .. } => match rhs {
            Rhs::Copy(a)
            | Rhs::Neg(a)
            | Rhs::Cast(a, _)
            | Rhs::ArrayRepeat(a, _)
            | Rhs::VecRepeat(a, _)
            | Rhs::ToVec(a) => add(*var, a),
            Rhs::Pop(v) | Rhs::Remove(v, _) => edges.push((*var, *v)),
            Rhs::VecLit(items) => items.iter().for_each(|a| add(*var, a)),
            Rhs::StructLit(lit) => lit.fields.iter().for_each(|(_, a)| add(*var, a)),
            Rhs::VecNew(_) => {}
            Rhs::Binary(_, a, b) => {
                add(*var, a);
                add(*var, b);
            }
            Rhs::Intrinsic(rule, args) => args.iter().take(rule.arity).for_each(|a| add(*var, a)),
            Rhs::ArrayLit(items) => items.iter().for_each(|a| add(*var, a)),
            Rhs::Call(call) => {
                call.args.iter().for_each(|a| add(*var, a));
                // A variable passed by `&mut` depends on every argument (itself included).
                for w in call.writes() {
                    call.args.iter().for_each(|a| add(w, a));
                }
            }
            Rhs::Index(array, _) => edges.push((*var, *array)),
            // Opaque values carry no derivative; `flows` records what would be lost, checked
            // separately. They still count as uses for the usefulness of their inputs below.
            Rhs::Opaque(opaque) => {
                for &from in &opaque.flows {
                    edges.push((*var, from));
                }
            }
            Rhs::Guard(_) => {}
            Rhs::Part(tuple, _) => edges.push((*var, *tuple)),
        },
        StmtKind::Assign { var, value, .. } => add(*var, value),
        StmtKind::IndexAssign { array, value, .. } => add(*array, value),
        StmtKind::VecOp { vec, op } => match op {
            super::VecOp::Extend { src, .. } => edges.push((*vec, *src)),
            op => {
                if let Some(value) = op.value() {
                    add(*vec, value);
                }
            }
        },
        StmtKind::If { phis, .. } => {
            for phi in phis {
                add(phi.var, &phi.then);
                add(phi.var, &phi.els);
            }
        }
        StmtKind::Loop(_) | StmtKind::Opaque { .. } => {}
    }
}

/// Calls `f` on every variable of the outputs: the return value and the values on return of
/// the `&mut` parameters.
pub(crate) fn body_outputs(body: &Body, f: &mut impl FnMut(VarId)) {
    output_vars(&body.output, f);
    body.writebacks.iter().for_each(|w| f(w.var));
}

/// Calls `f` on every variable of the output that carries a derivative (not on an
/// [`Output::Inactive`] value: a `bool` returned beside `&mut` outputs).
pub(crate) fn output_vars(output: &Output, f: &mut impl FnMut(VarId)) {
    match output {
        Output::Inactive(_) => {}
        Output::Scalar(op) => {
            if let Operand::Var(v) = op {
                f(*v);
            }
        }
        Output::ArrayVar(v) => f(*v),
        Output::Tuple(items) => items.iter().for_each(|o| output_vars(o, f)),
    }
}
