//! What the reverse sweep of each operation reads: the primal values its partials need.
//!
//! A `+` needs nothing, `x * y` needs both factors, `x.sin()` needs `x`, `x.exp()` its output.
//! They are read off the one statement of each operation's partials, `ir::linear`. The
//! planner restores exactly these values (from locals, by recomputation or from the
//! value stack); nothing else is stored.

use super::linear::{linearize, Scale};
use super::{Operand, Rhs, VarId, VecOp};

/// A primal value the reverse of an operation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// The operand at this position of `Rhs::operands()`.
    Operand(usize),
    /// The output of the operation.
    Output,
}

/// What the reverse of `let out = rhs;` reads, when `out` is active and `active` says which
/// variables are.
pub(crate) fn rhs_needs(rhs: &Rhs, active: &dyn Fn(VarId) -> bool) -> Vec<Need> {
    let is_active = |op: &Operand| op.var().is_some_and(active);
    if let Some(terms) = linearize(rhs) {
        // What the partials of the terms into active operands mention (`ir::linear`).
        let operands = rhs.operands();
        let mut needs = Vec::new();
        let mut add = |need: Need| {
            if !needs.contains(&need) {
                needs.push(need);
            }
        };
        for term in terms {
            if !is_active(operands[term.operand]) {
                continue;
            }
            match (term.scale, rhs) {
                (Scale::Rule { .. }, Rhs::Intrinsic(rule, _)) => {
                    rule.reads_args.iter().for_each(|&i| add(Need::Operand(i)));
                    if rule.reads_output {
                        add(Need::Output);
                    }
                }
                (scale, _) => {
                    let (reads, output) = scale.reads();
                    reads.into_iter().for_each(|k| add(Need::Operand(k)));
                    if output {
                        add(Need::Output);
                    }
                }
            }
        }
        return needs;
    }
    match rhs {
        // Every index of the path (`q[0][j]` needs `j`, the second operand).
        Rhs::Index(array, path) => {
            if active(*array) {
                (0..path.operands().len()).map(Need::Operand).collect()
            } else {
                Vec::new()
            }
        }
        // The callee's reverse sweep takes every argument again, except those passed by
        // `&mut`: it pops their values before the call.
        Rhs::Call(call) => (0..call.args.len())
            .filter(|&k| !call.by_mut[k] || (call.method && k == 0))
            .chain(call.args.len()..call.args.len() + call.path_operands().len())
            .map(Need::Operand)
            .collect(),
        _ => Vec::new(),
    }
}

/// The variables the tape's reverse of `op` reads: indices and old lengths.
pub(crate) fn vec_op_reads(op: &VecOp) -> Vec<VarId> {
    match op {
        VecOp::Push(_) => Vec::new(),
        VecOp::Insert(i, _) => i.var().into_iter().collect(),
        VecOp::Swap(i, j) => i.var().into_iter().chain(j.var()).collect(),
        VecOp::Extend { old, .. } | VecOp::Resize { old, .. } | VecOp::Shrink { old, .. } => {
            vec![*old]
        }
    }
}
