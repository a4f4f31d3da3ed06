//! The local partials of every IR operation, stated once, as data.
//!
//! `let out = rhs;` is linearized into terms, one per operand that an adjoint (or a tangent)
//! flows through: the adjoint `d` of `out` contributes `scale(d)` to the operand. From this
//! one statement the backends derive their code, and the planner what the reverse reads:
//!
//! ```text
//! op            terms                                     reverse reads
//! a + b         a: d          b: d                        -
//! a - b         a: d          b: -d                       -
//! a * b         a: d * b      b: d * a                    b if a is active, a if b is
//! a / b         a: d / b      b: -(d * out / b)           b; out if b is active
//! a % b         a: d          b: d * rules::d_rem(a, b).1 a, b if b is active
//! -a            a: -d                                     -
//! a as f32      a: d as f64 (the operand's precision)     -
//! a.sin()       a: d * rules::d_sin(a)                    what the rule reads (rules table)
//! a.sqrt()      a: times_partial(d, rules::d_sqrt(out))   (a zero d gives zero: `finite`)
//! a.atan2(b)    a: d * p.0    b: d * p.1, p = rules::d_atan2(a, b)
//! ```
//!
//! The tape backend writes each term as `__adj_a += ..` in its reverse sweep, forward mode
//! as a sum of tangents (both through the one interpreter, `codegen::linear`), the CPS backend as `__ad_cN.add(..)` after the continuation, and
//! `ir::needs` reads the primal values a term mentions. Structural operations (copies of
//! arrays, indexing, array literals, calls) move adjoints without a partial and are handled
//! by each backend where it stores adjoints.

use super::{BinOp, Rhs};
use crate::rules::Partial;

/// How the adjoint `d` of the output is scaled on its way to one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    /// `d`.
    One,
    /// `-d`.
    MinusOne,
    /// `d * operand[k]`.
    Times(usize),
    /// `d / operand[k]`.
    Over(usize),
    /// `-(d * out / operand[k])`.
    MinusOutOver(usize),
    /// `d * rules::d_rem(operand[0], operand[1]).1`.
    RemQuotient,
    /// `d as T`, `T` the operand's precision.
    Cast,
    /// `d * p` where `p` is the intrinsic's partial: the one it returns (`part` `None`), or
    /// the element `k` of the tuple it returns (`Some(k)`). Where the partial may be infinite
    /// (`finite` false: `sqrt` at 0), a zero `d` contributes zero, not `0 · ∞ = NaN`
    /// (`rules::times_partial`).
    Rule { part: Option<usize>, finite: bool },
}

/// One operand's share of the output's adjoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Term {
    /// The position of the operand in `Rhs::operands()`.
    pub operand: usize,
    pub scale: Scale,
}

impl Scale {
    /// The primal values this partial reads, as positions in `Rhs::operands()`; `true` when
    /// it also reads the output. For `Rule`, the intrinsic's rule says (see `needs`).
    pub(crate) fn reads(self) -> (Vec<usize>, bool) {
        match self {
            Scale::One | Scale::MinusOne | Scale::Cast | Scale::Rule { .. } => (Vec::new(), false),
            Scale::Times(k) | Scale::Over(k) => (vec![k], false),
            Scale::MinusOutOver(k) => (vec![k], true),
            Scale::RemQuotient => (vec![0, 1], false),
        }
    }
}

/// The terms of `let out = rhs;` for the arithmetic operations: `None` for the structural
/// ones (copies, indexing, array literals, calls, opaque expressions).
pub(crate) fn linearize(rhs: &Rhs) -> Option<Vec<Term>> {
    let term = |operand, scale| Term { operand, scale };
    Some(match rhs {
        Rhs::Copy(_) | Rhs::ToVec(_) => vec![term(0, Scale::One)],
        Rhs::Neg(_) => vec![term(0, Scale::MinusOne)],
        Rhs::Cast(..) => vec![term(0, Scale::Cast)],
        Rhs::Binary(op, ..) => match op {
            BinOp::Add => vec![term(0, Scale::One), term(1, Scale::One)],
            BinOp::Sub => vec![term(0, Scale::One), term(1, Scale::MinusOne)],
            BinOp::Mul => vec![term(0, Scale::Times(1)), term(1, Scale::Times(0))],
            BinOp::Div => vec![term(0, Scale::Over(1)), term(1, Scale::MinusOutOver(1))],
            BinOp::Rem => vec![term(0, Scale::One), term(1, Scale::RemQuotient)],
        },
        Rhs::Intrinsic(rule, _) => match rule.partial {
            Partial::Zero => Vec::new(),
            Partial::One(_) => vec![term(
                0,
                Scale::Rule {
                    part: None,
                    finite: rule.finite,
                },
            )],
            Partial::Each(_) => (0..rule.arity)
                .map(|k| {
                    term(
                        k,
                        Scale::Rule {
                            part: Some(k),
                            finite: rule.finite,
                        },
                    )
                })
                .collect(),
        },
        Rhs::Index(..)
        | Rhs::ArrayLit(_)
        | Rhs::ArrayRepeat(..)
        | Rhs::VecRepeat(..)
        | Rhs::VecNew(_)
        | Rhs::VecLit(_)
        | Rhs::StructLit(_)
        | Rhs::Pop(_)
        | Rhs::Remove(..)
        | Rhs::Call(_)
        | Rhs::Opaque(_)
        | Rhs::Part(..)
        | Rhs::Guard(_) => return None,
    })
}
