//! Walking the IR: the operands of each statement and the structure around it.

use super::{Block, Operand, Path, Rhs, Stmt, StmtKind, VarId};

impl Rhs {
    /// The operands of the right-hand side, in a fixed order (shared with `operands_mut`).
    pub(crate) fn operands(&self) -> Vec<&Operand> {
        match self {
            Rhs::Copy(a)
            | Rhs::Neg(a)
            | Rhs::Cast(a, _)
            | Rhs::ArrayRepeat(a, _)
            | Rhs::ToVec(a) => vec![a],
            Rhs::Binary(_, a, b) | Rhs::VecRepeat(a, b) => vec![a, b],
            Rhs::Intrinsic(_, args) | Rhs::ArrayLit(args) | Rhs::VecLit(args) => {
                args.iter().collect()
            }
            Rhs::StructLit(lit) => lit.fields.iter().map(|(_, a)| a).collect(),
            Rhs::Call(call) => call.args.iter().chain(call.path_operands()).collect(),
            Rhs::Index(_, path) => path.operands(),
            Rhs::Remove(_, i) => vec![i],
            Rhs::VecNew(cap) => cap.iter().collect(),
            Rhs::Opaque(_) | Rhs::Guard(_) | Rhs::Pop(_) | Rhs::Part(..) => Vec::new(),
        }
    }

    /// The operands of the right-hand side, mutably, in the order of `operands`.
    pub(crate) fn operands_mut(&mut self) -> Vec<&mut Operand> {
        match self {
            Rhs::Copy(a)
            | Rhs::Neg(a)
            | Rhs::Cast(a, _)
            | Rhs::ArrayRepeat(a, _)
            | Rhs::ToVec(a) => vec![a],
            Rhs::Binary(_, a, b) | Rhs::VecRepeat(a, b) => vec![a, b],
            Rhs::Intrinsic(_, args) | Rhs::ArrayLit(args) | Rhs::VecLit(args) => {
                args.iter_mut().collect()
            }
            Rhs::StructLit(lit) => lit.fields.iter_mut().map(|(_, a)| a).collect(),
            Rhs::Call(call) => {
                let paths = call.paths.iter_mut().flatten().flat_map(Path::operands_mut);
                let old = call.receiver_old.iter_mut();
                call.args.iter_mut().chain(paths).chain(old).collect()
            }
            Rhs::Index(_, path) => path.operands_mut(),
            Rhs::Remove(_, i) => vec![i],
            Rhs::VecNew(cap) => cap.iter_mut().collect(),
            Rhs::Opaque(_) | Rhs::Guard(_) | Rhs::Pop(_) | Rhs::Part(..) => Vec::new(),
        }
    }

    /// Every variable the right-hand side reads (operands, the indexed array, opaque reads).
    pub(crate) fn reads(&self) -> Vec<VarId> {
        let mut reads: Vec<VarId> = self
            .operands()
            .into_iter()
            .filter_map(Operand::var)
            .collect();
        match self {
            Rhs::Index(array, _) | Rhs::Pop(array) | Rhs::Remove(array, _) => reads.push(*array),
            Rhs::Opaque(opaque) => reads.extend(opaque.reads.iter().copied()),
            Rhs::Guard(flags) => reads.extend(flags.iter().copied()),
            Rhs::Part(tuple, _) => reads.push(*tuple),
            _ => {}
        }
        reads
    }

    /// Whether the reverse sweep may evaluate it again cheaply (no transcendental function,
    /// no call): copies, arithmetic, casts, indexing, cheap opaque expressions.
    pub(crate) fn is_cheap(&self) -> bool {
        match self {
            Rhs::Copy(_) | Rhs::Neg(_) | Rhs::Cast(..) | Rhs::Index(..) => true,
            // (A part moves out of the tuple: it is taken once.)
            Rhs::Part(..) => false,
            Rhs::Binary(op, ..) => !matches!(op, super::BinOp::Rem),
            Rhs::Opaque(opaque) => opaque.cheap,
            Rhs::Guard(_) => true,
            Rhs::Intrinsic(..)
            | Rhs::ArrayLit(_)
            | Rhs::ArrayRepeat(..)
            | Rhs::VecRepeat(..)
            | Rhs::VecNew(_)
            | Rhs::VecLit(_)
            | Rhs::StructLit(_)
            | Rhs::ToVec(_)
            | Rhs::Pop(_)
            | Rhs::Remove(..)
            | Rhs::Call(_) => false,
        }
    }
}

impl Stmt {
    /// The variables this statement writes (not counting its nested blocks): the variable a
    /// `let` defines is not a write (the `Vec` a `pop` or `remove` takes from is).
    pub(crate) fn writes(&self) -> Vec<VarId> {
        match &self.kind {
            StmtKind::Assign { var, .. } => vec![*var],
            StmtKind::IndexAssign { array, .. } => vec![*array],
            StmtKind::VecOp { vec, .. } => vec![*vec],
            StmtKind::Let {
                rhs: Rhs::Pop(v) | Rhs::Remove(v, _),
                ..
            } => vec![*v],
            StmtKind::Opaque { writes, .. } => writes.clone(),
            StmtKind::Let {
                rhs: Rhs::Call(call),
                ..
            } => call.writes().collect(),
            StmtKind::Let { .. } | StmtKind::If { .. } | StmtKind::Loop(_) => Vec::new(),
        }
    }
}

/// Context of a statement during a walk.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    /// Pre-order position of the statement.
    pub pos: usize,
    /// The block the statement is directly in.
    pub block: usize,
    /// The loops around it, innermost last: `(trips var, first pos, last pos)`.
    pub loops: Vec<(VarId, usize, usize)>,
}

/// Calls `f` on every statement in pre-order, with its [`Site`].
pub(crate) fn walk(block: &Block, f: &mut impl FnMut(&Stmt, &Site)) {
    let mut pos = 0;
    let mut loops = Vec::new();
    walk_block(block, &mut pos, &mut loops, f);
}

fn walk_block(
    block: &Block,
    pos: &mut usize,
    loops: &mut Vec<(VarId, usize, usize)>,
    f: &mut impl FnMut(&Stmt, &Site),
) {
    for stmt in &block.stmts {
        let site = Site {
            pos: *pos,
            block: block.id,
            loops: loops.clone(),
        };
        *pos += 1;
        f(stmt, &site);
        match &stmt.kind {
            StmtKind::If { then, els, .. } => {
                walk_block(then, pos, loops, f);
                walk_block(els, pos, loops, f);
            }
            StmtKind::Loop(l) => {
                let start = *pos;
                let end = start + count(&l.body);
                loops.push((l.trips, start, end));
                walk_block(&l.body, pos, loops, f);
                loops.pop();
            }
            _ => {}
        }
    }
}

/// The number of statements in `block`, nested ones included.
pub(crate) fn count(block: &Block) -> usize {
    block
        .stmts
        .iter()
        .map(|s| {
            1 + match &s.kind {
                StmtKind::If { then, els, .. } => count(then) + count(els),
                StmtKind::Loop(l) => count(&l.body),
                _ => 0,
            }
        })
        .sum()
}
