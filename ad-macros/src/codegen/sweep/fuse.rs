//! Fusing the reverse sweep of a function's last loop into its forward sweep, in `NAME_vjp`
//! of both backends (the tape's around the whole body; the CPS backend's where it reaches
//! that loop, unscaled only, with the adjoints the cells hold once the seeds are in them).
//!
//! ```text
//! // for `let mut s = 0.0; for i in 0..n { s += w[i] * x[i]; } s`
//! let mut s = 0.0;
//! let mut __adj_w = zeros_like(&w);                  // the adjoints, declared before the loop
//! let mut __adj_s = 0.0; __adj_s += __seed;          // the seed, known before the loop
//! for i in 0..n {
//!     let __t0 = w[i]; let __t1 = x[i]; let __t2 = __t0 * __t1; s += __t2;   // forward
//!     let __adj_t2 = __adj_s; __adj_w[i] += __adj_t2 * __t1; ..              // its reverse
//! }
//! ```
//!
//! The loop's reverse sweep runs one iteration at a time, right after that iteration's
//! forward sweep, so it stores nothing and makes no second pass (a dot product's gradient
//! costs its primal: the adjoint's work fits in the latency of the sum). This is exact
//! when the adjoint of everything the loop carries from one iteration to the next is the same
//! in every iteration, known before the loop starts:
//!
//! - the loop is the last loop of the function's top block, and the statements after it
//!   only define new variables by cheap expressions of values the loop does not write (they
//!   run before it: the adjoints' declarations may read them, like a `Vec`'s length); so
//!   nothing of the reverse sweep runs after the loop, and the adjoints it reads are the
//!   seeds. Or more work follows, and the loop has one accumulator: see [`Scaled`];
//! - every active variable defined outside the loop that the loop writes is a float
//!   *accumulator*: written only by `v += e` / `v -= e`, and feeding no differentiable value
//!   in the loop (its adjoint stays the seed's); active arrays from outside are only read;
//! - no `&mut` parameter (their seeds and write-backs come after the forward sweep), and a
//!   `for` loop over a range without `break`, `continue` or `return`. Loops in its body push
//!   and pop as usual, within the iteration; its reverse walks them again right away, while
//!   their data is in cache. Or the body's last loop fuses too, when what follows it in the
//!   iteration only passes its accumulators' adjoints on ([`inner_loop`]: `total += s` after
//!   the row sum `s`): then each row is walked once.
//!
//! Each iteration's reverse then reads exactly the values the unfused reverse would have
//! restored for it: the values the iteration's block saved (its end-of-block values, still
//! in scope: neither pushed nor popped), recomputations (their operands are unchanged since
//! the read, as the plan checked), and values from before the loop (unchanged by it). Only
//! the order in which the iterations add into an adjoint changes (first to last instead of
//! last to first): the gradient agrees with the unfused one to rounding, not bit for bit.

use std::collections::HashSet;

use crate::ir::activity::{edges_of, output_vars};
use crate::ir::plan::{stmt_work, AdjDecl, BlockMode, Plan};
use crate::ir::{AssignOp, Block, BlockId, Body, Loop, LoopKind, Shape, Stmt, StmtKind, Ty, VarId};
use crate::parse::{Passing, Signature};

/// The loop whose reverse sweep fuses into the forward sweep.
pub(in crate::codegen) struct Fusion {
    /// Its position in the function's top block.
    pub at: usize,
    /// The positions of the statements after it that run before it: they only define
    /// variables, by cheap expressions of values that nothing after them changes, and have no
    /// reverse work (a `Vec`'s length, which an adjoint's declaration may read).
    pub hoisted: Vec<usize>,
    /// Set when statements with reverse work follow it (see [`Scaled`]).
    pub scaled: Option<Scaled>,
    /// Set when the statements after it, loops too, reverse before it runs (see
    /// [`pre_reversed`]): their reverse sweep runs first, then the loop fused, then their
    /// forward sweep.
    pub pre_reversed: bool,
    /// Whether the loop accumulates into arrays (`acc[i] += e`).
    pub arrays: bool,
}

/// A fused loop followed by statements with reverse work (`loss / n as f64`, `m + s.ln()`):
/// its one accumulator's adjoint is not known before the loop, but the loop's reverse sweep
/// is linear in it. So the loop's reverse runs with that adjoint `1`; once the statements
/// after the loop are reversed, what it added is multiplied by the accumulator's real
/// adjoint.
pub(in crate::codegen) struct Scaled {
    pub accumulator: VarId,
    /// The variables from outside the loop whose adjoints its reverse sweep adds to, and
    /// that nothing after the loop reads, writes or returns: their adjoints are multiplied in
    /// place.
    pub scale: Vec<VarId>,
    /// The other variables whose adjoints the loop's reverse sweep adds to: it adds into
    /// adjoints of their own (`__adj_x_in_loop`), added to theirs once multiplied.
    pub separate: Vec<VarId>,
    /// The variables whose adjoints are declared after the forward sweep of the statements
    /// after the loop: those these statements define, and those whose shapes read them.
    pub late: HashSet<VarId>,
}

/// The loop of the function's top block whose reverse sweep fuses into its forward sweep, if
/// there is one: the last loop, or with `pre_reverse` an earlier one with loops in its body
/// when the last has none and what follows reverses before it ([`pre_reversed`]: `acc[i] +=
/// m[i * n + j] * x[j]` in a double loop, then the sum of `acc`).
pub(in crate::codegen) fn tail_loop(
    body: &Body,
    plan: &Plan,
    sig: &Signature,
    pre_reverse: bool,
) -> Option<Fusion> {
    if sig.params.iter().any(|p| p.passing == Passing::MutRef)
        || !body.writebacks.is_empty()
        || plan.block_mode.first() != Some(&BlockMode::Live)
        || !plan.saves.first().is_none_or(Vec::is_empty)
    {
        return None;
    }
    let last = last_loop(body, plan);
    let stmts = &body.block.stmts;
    let nested = |at: usize| match &stmts[at].kind {
        StmtKind::Loop(l) => l
            .body
            .stmts
            .iter()
            .any(|s| matches!(s.kind, StmtKind::Loop(_))),
        _ => false,
    };
    if last.as_ref().is_some_and(|f| nested(f.at)) || !pre_reverse {
        return last;
    }
    let end = last.as_ref().map_or(stmts.len(), |f| f.at);
    (0..end)
        .rev()
        .filter(|&at| nested(at))
        .find_map(|at| pre_reversed(body, plan, at))
        .or(last)
}

/// The function's last loop, fused, when it can be (see the module's documentation).
fn last_loop(body: &Body, plan: &Plan) -> Option<Fusion> {
    let stmts = &body.block.stmts;
    let last = stmts.iter().rposition(|s| stmt_work(s, &plan.activity))?;
    let at = match &stmts[last].kind {
        StmtKind::Loop(_) => last,
        _ => stmts[..last]
            .iter()
            .rposition(|s| matches!(&s.kind, StmtKind::Loop(_)))?,
    };
    let StmtKind::Loop(l) = &stmts[at].kind else {
        return None;
    };
    let (accumulators, arrays) = fusable(body, plan, l)?;
    let tail = &stmts[at + 1..];
    let mut written = HashSet::new();
    let mut write = |s: &Stmt| written.extend(s.writes());
    crate::ir::visit::walk(&l.body, &mut |s, _| write(s));
    for stmt in tail {
        walk_stmt(stmt, &mut write);
    }
    let mut hoisted = Vec::new();
    let mut late = HashSet::new();
    for (k, stmt) in tail.iter().enumerate() {
        let inert = match &stmt.kind {
            StmtKind::Let { rhs, .. } => {
                rhs.is_cheap()
                    && !stmt_work(stmt, &plan.activity)
                    && stmt.writes().is_empty()
                    && rhs
                        .reads()
                        .iter()
                        .all(|r| !written.contains(r) && !late.contains(r))
            }
            _ => false,
        };
        if inert {
            hoisted.push(at + 1 + k);
            continue;
        }
        match &stmt.kind {
            StmtKind::Let { var, .. } => {
                late.insert(*var);
            }
            StmtKind::If { phis, .. } => late.extend(phis.iter().map(|p| p.var)),
            StmtKind::Loop(l) => {
                late.insert(l.trips);
            }
            _ => {}
        }
    }
    if hoisted.len() == tail.len() {
        return Some(Fusion {
            at,
            hoisted,
            scaled: None,
            pre_reversed: false,
            arrays: !arrays.is_empty(),
        });
    }
    let ([accumulator], []) = (accumulators.as_slice(), arrays.as_slice()) else {
        return None;
    };
    let inner = blocks_of(l);
    let mut scale: Vec<VarId> = feeds(&l.body)
        .into_iter()
        .filter(|&v| plan.active(v) && !inside(plan, &inner, v))
        .collect();
    scale.sort_unstable();
    // What the statements after the loop read, write or seed gets adjoints of its own.
    let mut touched = HashSet::new();
    let mut touch = |s: &Stmt| {
        touched.extend(s.writes());
        let mut edges = Vec::new();
        edges_of(s, &mut edges);
        touched.extend(edges.into_iter().flat_map(|(to, from)| [to, from]));
    };
    for stmt in tail {
        walk_stmt(stmt, &mut touch);
    }
    output_vars(&body.output, &mut |v| {
        touched.insert(v);
    });
    let float = float_of(body, *accumulator);
    let scalable = |v: &VarId| {
        float_of(body, *v) == float
            && match &body.vars[*v].ty {
                Ty::Float(_) => true,
                Ty::Array(info) => {
                    !info.agg
                        && matches!(info.shape, Shape::Fixed(_) | Shape::Len(_) | Shape::Like(_))
                }
                _ => false,
            }
    };
    // (Declared at the start of the reverse of the top block, so that they can be declared
    // before the loop; an adjoint whose shape reads a variable defined after the loop is
    // declared after it.)
    for &v in plan.adj_starts_of(body.block.id) {
        if shape_reads(body, v).iter().any(|r| late.contains(r)) {
            late.insert(v);
        }
    }
    let early = |v: &VarId| plan.adj[*v] == AdjDecl::AtStart && !late.contains(v);
    if !scale.iter().all(|v| scalable(v) && early(v)) || !early(accumulator) {
        return None;
    }
    let (separate, scale) = scale.into_iter().partition(|v| touched.contains(v));
    Some(Fusion {
        at,
        hoisted,
        scaled: Some(Scaled {
            accumulator: *accumulator,
            scale,
            separate,
            late,
        }),
        pre_reversed: false,
        arrays: false,
    })
}

/// In a block whose forward and reverse sweeps run in one scope (the iteration of a fused
/// loop, a checkpointed loop's step), the position of its last loop when that loop's reverse
/// fuses into its forward too, iteration by iteration (the row sums of `M x`: `let mut s =
/// 0.0; for j in 0..n { s += m[i * n + j] * x[j]; } total += s;`).
///
/// The loop must be fusable as a function's last loop is ([`fusable`]: what it carries from
/// one iteration to the next are accumulators, feeding nothing in it), and the statements
/// after it must be reversible before it runs ([`reverses_before`]: `v += e`, `v -= e` on
/// floats, `let`s without reverse work, linear ones whose partials read no value that the
/// loop or these statements write, `let t = 2.0 * s;`). Their reverse then gives the
/// accumulators' adjoints before the loop starts, and these stay the same through it. So the block runs
/// the forward sweep of the statements before the loop, declares its adjoints, reverses the
/// statements after the loop, runs the loop fused, then the forward sweep of the statements
/// after it and the reverse of those before: the reverse sweeps in their order, the loop's
/// reverse reading the values its forward left in scope, the statements after it moved past
/// a reverse sweep that reads none of what they write. (The iterations of the inner loop add
/// into an adjoint first to last, as the function's fused loop does.)
pub(in crate::codegen) fn inner_loop(body: &Body, plan: &Plan, block: &Block) -> Option<usize> {
    let stmts = &block.stmts;
    let at = stmts
        .iter()
        .rposition(|s| matches!(&s.kind, StmtKind::Loop(_)))?;
    let StmtKind::Loop(l) = &stmts[at].kind else {
        return None;
    };
    fusable(body, plan, l)?;
    reverses_before(body, plan, block, l, &stmts[at + 1..])?;
    // (The block's adjoints are declared before its recomputations then: none may be shaped
    // by a recomputed value.)
    let recomputed = plan.recomputes_of(block.id);
    let shaped_by_recomputed = plan
        .adj_starts_of(block.id)
        .iter()
        .any(|&v| shape_reads(body, v).iter().any(|r| recomputed.contains(r)));
    (!shaped_by_recomputed).then_some(at)
}

/// The blocks of the loops that [`inner_loop`] fuses in `block`, a block whose sweeps run in
/// one scope, and in theirs.
pub(in crate::codegen) fn inner_fused_blocks(
    body: &Body,
    plan: &Plan,
    block: &Block,
    out: &mut HashSet<BlockId>,
) {
    let Some(at) = inner_loop(body, plan, block) else {
        return;
    };
    if let StmtKind::Loop(l) = &block.stmts[at].kind {
        out.insert(l.body.id);
        inner_fused_blocks(body, plan, &l.body, out);
    }
}

/// Calls `f` on `stmt` and on every statement nested in it.
fn walk_stmt(stmt: &Stmt, f: &mut impl FnMut(&Stmt)) {
    f(stmt);
    let nested: Vec<&Block> = match &stmt.kind {
        StmtKind::If { then, els, .. } => vec![then, els],
        StmtKind::Loop(l) => vec![&l.body],
        _ => Vec::new(),
    };
    for block in nested {
        crate::ir::visit::walk(block, &mut |s, _| f(s));
    }
}

/// The variables the shape of `v`'s adjoint reads (a `Vec`'s length, the value it is shaped
/// like).
fn shape_reads(body: &Body, v: VarId) -> Vec<VarId> {
    match &body.vars[v].ty {
        Ty::Array(info) => match &info.shape {
            Shape::Fixed(_) => Vec::new(),
            Shape::Len(n) => n.var().into_iter().collect(),
            Shape::Like(p) => vec![*p],
            Shape::Place(p, path) => std::iter::once(*p)
                .chain(path.operands().into_iter().filter_map(|o| o.var()))
                .collect(),
        },
        _ => Vec::new(),
    }
}

/// The accumulators of the loop `l` when its reverse sweep can run iteration by iteration in
/// its forward sweep (see the module's documentation), floats and arrays of floats (`acc[i]
/// += e`: the reverse reads the element's adjoint and leaves it), or `None` when it cannot.
fn fusable(body: &Body, plan: &Plan, l: &Loop) -> Option<(Vec<VarId>, Vec<VarId>)> {
    // (A checkpointed loop is reversed by its schedule: see `checkpoint`.)
    if !matches!(l.kind, LoopKind::Range(_))
        || !l.exits.is_empty()
        || l.cont.is_some()
        || l.checkpoint.is_some()
    {
        return None;
    }
    // (A loop with loops in its body fuses too: each iteration's reverse is then a second
    // pass over its inner loops, made while their data is in cache. Measured on the row sums
    // of `M x`, n = 300, after the forward sweeps of inner loops were shaped: the gradient
    // 20% faster fused, in two runs each way; the MLP's batch loop within this VM's noise.)
    let inner = blocks_of(l);
    let mut fusable = true;
    let mut accumulators = Vec::new();
    let mut arrays = Vec::new();
    crate::ir::visit::walk(&l.body, &mut |stmt, _| {
        for w in stmt.writes() {
            if inside(plan, &inner, w) || !plan.active(w) {
                continue;
            }
            match &stmt.kind {
                StmtKind::Assign {
                    var,
                    op: AssignOp::Add | AssignOp::Sub,
                    value,
                } if *var == w && value.var() != Some(w) && body.vars[w].ty.is_float() => {
                    if !accumulators.contains(&w) {
                        accumulators.push(w);
                    }
                }
                StmtKind::IndexAssign {
                    array,
                    op: AssignOp::Add | AssignOp::Sub,
                    value,
                    ..
                } if *array == w
                    && value.var() != Some(w)
                    && matches!(&body.vars[w].ty, Ty::Array(info) if !info.agg && info.elem.is_some()) =>
                {
                    if !arrays.contains(&w) {
                        arrays.push(w);
                    }
                }
                _ => fusable = false,
            }
        }
    });
    let feeds = feeds(&l.body);
    let fed = accumulators
        .iter()
        .chain(&arrays)
        .any(|a| feeds.contains(a));
    (fusable && !fed).then_some((accumulators, arrays))
}

/// The loop at `at` of the function's top block, fused, with the statements after it
/// reversed before it runs: they are statements, and loops over ranges, whose reverse reads
/// no value that the loop or they write (the sum of `acc` after `acc[i] += ..`: the reverse of
/// `total += acc[i]` is `__adj_acc[i] += __adj_total`, which reads `i` only, regenerated by the
/// reverse loop's range). So their reverse gives the adjoints of what the loop accumulates
/// before it runs, and these stay the same through it. The forward sweep then runs the
/// statements before the loop, declares the adjoints, seeds them, reverses the statements
/// after the loop, runs the loop fused and then the forward sweep of the statements after it.
fn pre_reversed(body: &Body, plan: &Plan, at: usize) -> Option<Fusion> {
    let stmts = &body.block.stmts;
    let StmtKind::Loop(l) = &stmts[at].kind else {
        return None;
    };
    let (_, arrays) = fusable(body, plan, l)?;
    // (A float result: its seed is added into its adjoint, reading no value.)
    if !matches!(body.output, crate::ir::Output::Scalar(_)) {
        return None;
    }
    let written = reverses_before(body, plan, &body.block, l, &stmts[at + 1..])?;
    // (Nor may the top block recompute what the statements after the loop define: its
    // recomputations come before the loop.)
    let late = plan
        .recomputes_of(body.block.id)
        .iter()
        .any(|v| written.contains(v));
    (!late).then_some(Fusion {
        at,
        hoisted: Vec::new(),
        scaled: None,
        pre_reversed: true,
        arrays: !arrays.is_empty(),
    })
}

/// Whether the statements `tail` after the loop `l` in `block` can be reversed before the
/// loop runs, their forward sweep after it: each one's reverse reads no value that the loop
/// or they write ([`reverses_first`]), and the adjoints declared at the start of `block`'s
/// reverse have shapes that read none of these either (they are declared before the loop).
/// Returns what the loop and `tail` write or define.
fn reverses_before(
    body: &Body,
    plan: &Plan,
    block: &Block,
    l: &Loop,
    tail: &[Stmt],
) -> Option<HashSet<VarId>> {
    let mut written = HashSet::new();
    // (And those whose length may change: all but the arrays only written by element.)
    let mut resized = HashSet::new();
    let mut write = |s: &Stmt| {
        written.extend(s.writes());
        if !matches!(s.kind, StmtKind::IndexAssign { .. }) {
            resized.extend(s.writes());
        }
        match &s.kind {
            StmtKind::Let { var, .. } => {
                written.insert(*var);
                resized.insert(*var);
            }
            StmtKind::Loop(l) => {
                written.insert(l.trips);
                resized.insert(l.trips);
            }
            _ => {}
        }
    };
    crate::ir::visit::walk(&l.body, &mut |s, _| write(s));
    for stmt in tail {
        walk_stmt(stmt, &mut write);
    }
    // The values the reverse of the statements after the loop can read without their forward:
    // those nothing writes, and their loops' variables (the reverse loop binds them), and what
    // is recomputed from these.
    let mut regenerated = HashSet::new();
    let written = Written {
        all: written,
        resized,
    };
    let ok = tail
        .iter()
        .all(|s| reverses_first(body, plan, s, &written, &mut regenerated));
    let written = written.all;
    let late = plan
        .adj_starts_of(block.id)
        .iter()
        .any(|&v| shape_reads(body, v).iter().any(|r| written.contains(r)));
    (ok && !late).then_some(written)
}

/// What a fused loop and the statements after it write or define (`all`), and of these what
/// may change length (`resized`: all but the arrays written by element only).
struct Written {
    all: HashSet<VarId>,
    resized: HashSet<VarId>,
}

/// Whether the reverse of `stmt` (a statement after a fused loop, see [`reverses_before`]) reads
/// only values that `written` does not hold or that `regenerated` has: its partials', its
/// indices', its loop's range's and its recomputations' reads. Adds the loop variables and
/// recomputed values of the loops it walks to `regenerated`.
fn reverses_first(
    body: &Body,
    plan: &Plan,
    stmt: &Stmt,
    written: &Written,
    regenerated: &mut HashSet<VarId>,
) -> bool {
    let readable = |v: VarId, regenerated: &HashSet<VarId>| {
        !written.all.contains(&v) || regenerated.contains(&v)
    };
    let operands_readable = |ops: Vec<&crate::ir::Operand>, regenerated: &HashSet<VarId>| {
        ops.iter()
            .all(|o| o.var().is_none_or(|v| readable(v, regenerated)))
    };
    match &stmt.kind {
        StmtKind::Let { .. } if !stmt_work(stmt, &plan.activity) => true,
        StmtKind::Let { rhs, .. } => match rhs {
            crate::ir::Rhs::Index(_, path) => operands_readable(path.operands(), regenerated),
            crate::ir::Rhs::Intrinsic(..) => false,
            rhs if crate::ir::linear::linearize(rhs).is_some() => {
                let active = |v: VarId| plan.active(v);
                let operands = rhs.operands();
                crate::ir::needs::rhs_needs(rhs, &active)
                    .into_iter()
                    .all(|need| match need {
                        crate::ir::needs::Need::Output => false,
                        crate::ir::needs::Need::Operand(k) => operands
                            .get(k)
                            .is_some_and(|o| o.var().is_none_or(|v| readable(v, regenerated))),
                    })
            }
            _ => false,
        },
        StmtKind::Assign {
            var,
            op: AssignOp::Add | AssignOp::Sub,
            value,
        } => body.vars[*var].ty.is_float() && value.var() != Some(*var),
        StmtKind::IndexAssign {
            array,
            index,
            op: AssignOp::Add | AssignOp::Sub,
            value,
        } => value.var() != Some(*array) && operands_readable(index.operands(), regenerated),
        StmtKind::Loop(inner) => {
            let LoopKind::Range(r) = &inner.kind else {
                return false;
            };
            let lp = plan.loops.get(&inner.trips).copied().unwrap_or_default();
            if !inner.exits.is_empty()
                || inner.cont.is_some()
                || inner.checkpoint.is_some()
                || lp.count
                || crate::ir::plan::reversed(r).is_none()
                || r.range.reads.iter().any(|&v| {
                    // (`0..acc.len()` of an array written by element: its length is known.)
                    let length = !written.resized.contains(&v)
                        && crate::codegen::tokens::mentions_only_len(
                            r.range.expr.clone(),
                            &body.vars[v].name.to_string(),
                        );
                    !readable(v, regenerated) && !length
                })
                || !plan.saves_of(inner.body.id).is_empty()
            {
                return false;
            }
            regenerated.extend(r.var);
            for &v in plan.recomputes_of(inner.body.id) {
                let Some(rhs) = plan.defs.get(&v) else {
                    return false;
                };
                if matches!(
                    rhs,
                    crate::ir::Rhs::Call(_) | crate::ir::Rhs::Pop(_) | crate::ir::Rhs::Remove(..)
                ) || rhs.reads().iter().any(|&r| !readable(r, regenerated))
                {
                    return false;
                }
                regenerated.insert(v);
            }
            // (The adjoints its reverse declares must not be shaped by what is not there yet.)
            let shaped = plan.adj_starts_of(inner.body.id).iter().all(|&v| {
                shape_reads(body, v)
                    .iter()
                    .all(|&r| readable(r, regenerated))
            });
            shaped
                && inner
                    .body
                    .stmts
                    .iter()
                    .all(|s| reverses_first(body, plan, s, written, regenerated))
        }
        _ => false,
    }
}

/// The variables whose values flow, differentiably, into a value computed in `block`: those
/// whose adjoints its reverse sweep adds to.
fn feeds(block: &Block) -> HashSet<VarId> {
    let mut feeds = HashSet::new();
    crate::ir::visit::walk(block, &mut |stmt, _| {
        let mut edges = Vec::new();
        edges_of(stmt, &mut edges);
        feeds.extend(edges.into_iter().map(|(_, from)| from));
    });
    feeds
}

/// The float type of `v` (`None`: not settled).
fn float_of(body: &Body, v: VarId) -> Option<crate::ir::FloatTy> {
    match &body.vars[v].ty {
        Ty::Float(t) => *t,
        Ty::Array(info) => info.elem,
        _ => None,
    }
}

/// Whether `v` is defined inside the loop whose blocks are `inner`.
fn inside(plan: &Plan, inner: &HashSet<BlockId>, v: VarId) -> bool {
    plan.def_block[v].is_some_and(|b| inner.contains(&b))
}

/// The ids of the blocks of the loop `l`: its body and the blocks nested in it.
fn blocks_of(l: &Loop) -> HashSet<BlockId> {
    let mut out = HashSet::new();
    blocks(&l.body, &mut out);
    out
}

/// Whether `NAME_vjp` needs the value stack when the loop at `fused` (if any) is fused: not
/// when only that loop's block saved values (they stay in scope) and nothing is called. The
/// same holds for the body of a checkpointed loop (its reversed step runs forward then
/// reverse in one scope), unless its advance marks the stack to drop what its nested blocks
/// or calls pushed (see `checkpoint`).
pub(in crate::codegen) fn uses_stack(body: &Body, plan: &Plan, fused: Option<&Fusion>) -> bool {
    let mut in_scope = HashSet::new();
    let mut marks = false;
    for (at, stmt) in body.block.stmts.iter().enumerate() {
        let StmtKind::Loop(l) = &stmt.kind else {
            continue;
        };
        if l.checkpoint.is_some() && matches!(l.kind, LoopKind::Range(_)) {
            in_scope.insert(l.body.id);
            inner_fused_blocks(body, plan, &l.body, &mut in_scope);
            marks |= !super::checkpoint::straight(l);
        } else if fused.is_some_and(|f| f.at == at) {
            in_scope.insert(l.body.id);
            inner_fused_blocks(body, plan, &l.body, &mut in_scope);
        }
    }
    marks
        || plan.uses_stack
            && (!body.callees.is_empty()
                || plan
                    .saves
                    .iter()
                    .enumerate()
                    .any(|(block, saves)| !in_scope.contains(&block) && !saves.is_empty()))
}

/// The ids of `block` and of the blocks nested in it.
fn blocks(block: &Block, out: &mut HashSet<BlockId>) {
    out.insert(block.id);
    for stmt in &block.stmts {
        match &stmt.kind {
            StmtKind::If { then, els, .. } => {
                blocks(then, out);
                blocks(els, out);
            }
            StmtKind::Loop(l) => blocks(&l.body, out),
            _ => {}
        }
    }
}

impl crate::codegen::shared::Emitter<'_> {
    /// A range loop whose body runs its forward sweep then its reverse sweep: the values its
    /// block would save are still in scope, so they are neither pushed nor popped.
    pub(in crate::codegen) fn fused_loop(&self, l: &Loop) -> proc_macro2::TokenStream {
        let LoopKind::Range(r) = &l.kind else {
            return proc_macro2::TokenStream::new();
        };
        let var = self.loop_var(r.var);
        let range = &r.range.expr;
        let iteration = self.fused_iteration(&l.body);
        quote::quote!(for #var in #range { #iteration })
    }
}
