//! What the reverse sweep of each operation reads: the primal values its partials need.
//!
//! A `+` needs nothing, `x * y` needs both factors, `x.sin()` needs `x`, `x.exp()` its output.
//! The planner restores exactly these values (from locals, by recomputation or from the
//! value stack); nothing else is stored.

use super::{BinOp, Operand, Rhs, VarId};
use crate::rules::Partial;

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
    match rhs {
        Rhs::Binary(op, a, b) => {
            let (a_active, b_active) = (is_active(a), is_active(b));
            let mut needs = Vec::new();
            match op {
                BinOp::Add | BinOp::Sub => {}
                BinOp::Mul => {
                    if a_active {
                        needs.push(Need::Operand(1));
                    }
                    if b_active {
                        needs.push(Need::Operand(0));
                    }
                }
                BinOp::Div => {
                    if a_active || b_active {
                        needs.push(Need::Operand(1));
                    }
                    if b_active {
                        needs.push(Need::Output);
                    }
                }
                BinOp::Rem => {
                    if b_active {
                        needs.extend([Need::Operand(0), Need::Operand(1)]);
                    }
                }
            }
            needs
        }
        Rhs::Intrinsic(rule, args) => {
            let any_active = args.iter().take(rule.arity).any(is_active);
            if !any_active || rule.partial == Partial::Zero {
                return Vec::new();
            }
            let mut needs: Vec<Need> = rule.reads_args.iter().map(|&i| Need::Operand(i)).collect();
            if rule.reads_output {
                needs.push(Need::Output);
            }
            needs
        }
        Rhs::Index(array, _) => {
            if active(*array) {
                vec![Need::Operand(0)]
            } else {
                Vec::new()
            }
        }
        // The callee's reverse sweep takes every argument again.
        Rhs::Call(call) => (0..call.args.len()).map(Need::Operand).collect(),
        Rhs::Copy(_)
        | Rhs::Neg(_)
        | Rhs::Cast(..)
        | Rhs::ArrayLit(_)
        | Rhs::ArrayRepeat(..)
        | Rhs::VecRepeat(..)
        | Rhs::Opaque(_) => Vec::new(),
    }
}
