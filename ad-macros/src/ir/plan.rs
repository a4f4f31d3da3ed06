//! The plan of the reverse sweep: how each value it reads is made available, where each
//! adjoint is declared, and how each loop is replayed.
//!
//! Every value a reverse rule reads (see `needs`) is restored in one of these ways:
//!
//! - **Live**: it is still in scope when the reverse sweep runs (straight-line code at the top
//!   of the function, parameters). Nothing is stored.
//! - **Regen**: the index of a `for` loop over a range whose bounds are available; the reverse
//!   loop walks the same range backwards.
//! - **Recompute**: a cheap operation (arithmetic, indexing into an array that is never
//!   written, or into a local array of the top level that nothing writes after the read) of
//!   available values, or a cheap intrinsic (`abs`, `min`, `floor`, ..) of values restored
//!   anyway, is evaluated again at the start of the reverse of its block. A transcendental
//!   (`exp`, `tanh`, `sin`, `ln`, `sqrt`, `powf`, ..) is stored instead: a push and a pop cost
//!   less than evaluating it again (measured: the gradient of a log-sum-exp loop 2.0× → 1.3×
//!   its primal, of a `tanh` loop 3.6× → 2.7×). Except a transcendental of values that are
//!   all stored anyway (the old `x` of the recurrence `x = x.sin() * a + x * b`): it is
//!   evaluated again, as a hand-written adjoint does, since storing it too doubles what each
//!   step keeps (one gradient of a 10⁷-step recurrence peaked at 159 MB resident, against
//!   81 MB for the hand adjoint).
//! - **Save**: inside a loop, it is pushed to the value stack at the end of its block and
//!   popped at the start of the reverse of that block.
//! - **Hoist**: in an `if` arm outside loops, it is assigned to a local declared at the top
//!   of the function (no heap).
//!
//! So a loop that only reads parameters and its index stores nothing (a dot product), nor
//! does one that reads a local array filled by an earlier loop (`e[j] = q[j].exp();`, then
//! `s += e[j] * x[i];`), and a
//! recurrence `x = x.sin() * a + x * b` stores one float per step (the old `x`).

use std::collections::HashMap;

use crate::error::Errors;
use crate::ir::activity::Activity;
use crate::ir::needs::{rhs_needs, Need};
use crate::ir::snapshot::Clobbers;
use crate::ir::{Block, BlockId, Body, LoopKind, Operand, Rhs, Shape, Stmt, StmtKind, Ty, VarId};

/// How the values of a block are kept for the reverse sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockMode {
    /// In scope when the reverse sweep runs.
    Live,
    /// An `if` arm outside loops: needed values go to locals declared at the top.
    Hoist,
    /// Inside a loop: needed values go to the value stack.
    Stack,
}

/// How a value the reverse sweep reads is made available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Restore {
    /// Not read by the reverse sweep.
    None,
    Live,
    Regen,
    Recompute,
    Save,
    Hoist,
}

/// Where an adjoint is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AdjDecl {
    /// No adjoint (inactive).
    None,
    /// `let mut __adj_v = 0.0;` at the start of the reverse of the defining block.
    AtStart,
    /// `let __adj_v = <contribution>;` at its only contribution.
    AtSite,
}

/// How a loop is reversed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LoopPlan {
    /// The body has reverse work (else the loop is absent from the reverse sweep).
    pub rev_work: bool,
    /// The reverse loop walks the same range backwards, binding the loop variable.
    pub regen: bool,
    /// The forward loop counts its trips.
    pub count: bool,
}

/// The plan for one function.
pub(crate) struct Plan {
    pub activity: Activity,
    pub block_mode: Vec<BlockMode>,
    pub def_block: Vec<Option<BlockId>>,
    pub restore: Vec<Restore>,
    /// Per loop, keyed by its trip-count variable.
    pub loops: HashMap<VarId, LoopPlan>,
    /// Per `if`, keyed by the id of its `then` block: whether it has reverse work.
    pub if_work: HashMap<BlockId, bool>,
    pub adj: Vec<AdjDecl>,
    /// Per block: variables pushed at its end (in definition order).
    pub saves: Vec<Vec<VarId>>,
    /// Per block: variables evaluated again at the start of its reverse (definition order).
    pub recomputes: Vec<Vec<VarId>>,
    /// Per block: adjoints declared at the start of its reverse.
    pub adj_starts: Vec<Vec<VarId>>,
    /// Variables hoisted to the top of the function.
    pub hoisted: Vec<VarId>,
    /// The right-hand side that defines each variable (for recomputation).
    pub defs: HashMap<VarId, Rhs>,
    /// The forward sweep uses the value stack.
    pub uses_stack: bool,
}

impl Plan {
    pub(crate) fn active(&self, v: VarId) -> bool {
        self.activity.active(v)
    }

    /// The variables the block `block` pushes at its end ([`Plan::saves`]).
    pub(crate) fn saves_of(&self, block: BlockId) -> &[VarId] {
        per_block(&self.saves, block)
    }

    /// The variables evaluated again at the start of the reverse of `block`.
    pub(crate) fn recomputes_of(&self, block: BlockId) -> &[VarId] {
        per_block(&self.recomputes, block)
    }

    /// The adjoints declared at the start of the reverse of `block`.
    pub(crate) fn adj_starts_of(&self, block: BlockId) -> &[VarId] {
        per_block(&self.adj_starts, block)
    }

    pub(crate) fn active_op(&self, op: &Operand) -> bool {
        self.activity.active_op(op)
    }
}

/// Makes the plan for `body`. `split` selects the mode of split companions, where nothing of
/// the forward sweep stays in scope. Reports the values the reverse sweep needs but the plan
/// cannot keep.
pub(crate) fn make(cx: &Errors, body: &Body, activity: Activity, split: bool) -> Plan {
    let n = body.vars.len();
    let mut planner = Planner {
        cx,
        body,
        clobbers: Clobbers::of(body),
        plan: Plan {
            activity,
            block_mode: vec![BlockMode::Stack; body.blocks.max(1)],
            def_block: vec![None; n],
            restore: vec![Restore::None; n],
            loops: HashMap::new(),
            if_work: HashMap::new(),
            adj: vec![AdjDecl::None; n],
            saves: vec![Vec::new(); body.blocks.max(1)],
            recomputes: vec![Vec::new(); body.blocks.max(1)],
            adj_starts: vec![Vec::new(); body.blocks.max(1)],
            hoisted: Vec::new(),
            defs: HashMap::new(),
            uses_stack: split || !body.callees.is_empty(),
        },
        def_pos: vec![usize::MAX; n],
        def_site: vec![None; n],
        pos: 0,
    };
    crate::ir::visit::walk(&body.block, &mut |stmt, site| match &stmt.kind {
        StmtKind::Let { var, .. } => planner.def_site[*var] = Some(site.clone()),
        // (A loop's range is read at the loop statement.)
        StmtKind::Loop(l) => planner.def_site[l.trips] = Some(site.clone()),
        _ => {}
    });
    let top = if split {
        BlockMode::Stack
    } else {
        BlockMode::Live
    };
    for (id, var) in body.vars.iter().enumerate() {
        if var.param.is_some() {
            planner.plan.def_block[id] = Some(0);
            planner.def_pos[id] = 0;
        }
    }
    planner.structure(&body.block, top);
    planner.decide_block(&body.block);
    planner.adjoints();
    planner.finish();
    planner.plan
}

struct Planner<'b> {
    cx: &'b Errors,
    body: &'b Body,
    clobbers: Clobbers,
    plan: Plan,
    /// Pre-order position of each variable's definition.
    def_pos: Vec<usize>,
    /// The site of each variable's defining `let` (loops around it included), and of each
    /// loop statement (keyed by its trip-count variable).
    def_site: Vec<Option<crate::ir::visit::Site>>,
    pos: usize,
}

fn block_work(block: &Block, activity: &Activity) -> bool {
    block.stmts.iter().any(|s| stmt_work(s, activity))
}

pub(crate) fn stmt_work(stmt: &Stmt, activity: &Activity) -> bool {
    match &stmt.kind {
        // Taking an element from an active `Vec` shortens its adjoint, used or not.
        StmtKind::Let {
            var,
            rhs: Rhs::Pop(v) | Rhs::Remove(v, _),
            ..
        } => activity.active(*var) || activity.active(*v),
        StmtKind::Let { var, rhs, .. } => activity.live(*var, rhs),
        StmtKind::Assign { var, .. } => activity.active(*var),
        StmtKind::IndexAssign { array, .. } => activity.active(*array),
        StmtKind::VecOp { vec, .. } => activity.active(*vec),
        StmtKind::Opaque { writes, .. } => writes.iter().any(|&w| activity.active(w)),
        StmtKind::If {
            then, els, phis, ..
        } => {
            phis.iter().any(|p| activity.active(p.var))
                || block_work(then, activity)
                || block_work(els, activity)
        }
        StmtKind::Loop(l) => block_work(&l.body, activity),
    }
}

/// A per-block table's entry (none for a block the table does not reach).
fn per_block(table: &[Vec<VarId>], block: BlockId) -> &[VarId] {
    table.get(block).map(Vec::as_slice).unwrap_or_default()
}

impl Planner<'_> {
    /// Records block modes and where each variable is defined.
    fn structure(&mut self, block: &Block, mode: BlockMode) {
        self.plan.block_mode[block.id] = mode;
        for stmt in &block.stmts {
            let pos = self.pos;
            self.pos += 1;
            match &stmt.kind {
                StmtKind::Let { var, rhs, .. } => {
                    self.define(*var, block.id, pos);
                    self.plan.defs.insert(*var, rhs.clone());
                }
                StmtKind::If {
                    then, els, phis, ..
                } => {
                    for phi in phis {
                        self.define(phi.var, block.id, pos);
                    }
                    let arm = if mode == BlockMode::Stack {
                        BlockMode::Stack
                    } else {
                        BlockMode::Hoist
                    };
                    self.structure(then, arm);
                    self.structure(els, arm);
                    self.plan
                        .if_work
                        .insert(then.id, stmt_work(stmt, &self.plan.activity));
                }
                StmtKind::Loop(l) => {
                    self.define(l.trips, block.id, pos);
                    if let LoopKind::Range(r) = &l.kind {
                        if let Some(v) = r.var {
                            self.define(v, l.body.id, pos);
                        }
                    }
                    self.structure(&l.body, BlockMode::Stack);
                }
                _ => {}
            }
        }
    }

    fn define(&mut self, var: VarId, block: BlockId, pos: usize) {
        self.plan.def_block[var] = Some(block);
        self.def_pos[var] = pos;
    }

    fn mode_of(&self, var: VarId) -> BlockMode {
        self.plan.def_block[var].map_or(BlockMode::Live, |b| self.plan.block_mode[b])
    }

    /// Decides how to restore every value the reverse sweep reads, in program order.
    fn decide_block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            if !stmt_work(stmt, &self.plan.activity) {
                self.skip(stmt);
                continue;
            }
            match &stmt.kind {
                StmtKind::Let {
                    rhs: Rhs::Remove(v, Operand::Var(i)),
                    ..
                } if self.plan.activity.active(*v) => {
                    let i = *i;
                    self.need(i);
                }
                StmtKind::Let { var, rhs, .. } => {
                    let activity = &self.plan.activity;
                    let needs = rhs_needs(rhs, &|v| activity.active(v));
                    let operands = rhs.operands();
                    for need in needs {
                        match need {
                            Need::Operand(i) => {
                                if let Some(Operand::Var(v)) = operands.get(i) {
                                    self.need(*v);
                                }
                            }
                            Need::Output => self.need(*var),
                        }
                    }
                    if let Ty::Array(info) = &self.body.vars[*var].ty {
                        match &info.shape {
                            Shape::Len(Operand::Var(len)) => self.need(*len),
                            // The adjoint of a call's array result is shaped like it.
                            Shape::Like(w) if self.body.vars[*w].param.is_none() => self.need(*w),
                            Shape::Place(w, path) => {
                                if self.body.vars[*w].param.is_none() {
                                    self.need(*w);
                                }
                                for i in path.operands().into_iter().filter_map(Operand::var) {
                                    self.need(i);
                                }
                            }
                            _ => {}
                        }
                    }
                    // A part nobody differentiates seeds the call's reverse with zeros of
                    // its shape.
                    if let Rhs::Call(call) = rhs {
                        for &p in &call.parts {
                            if !self.plan.activity.active(p) && self.body.vars[p].ty.is_array() {
                                self.need(p);
                            }
                        }
                    }
                }
                StmtKind::IndexAssign { index, .. } => {
                    for i in index.operands().into_iter().filter_map(Operand::var) {
                        self.need(i);
                    }
                }
                StmtKind::VecOp { op, .. } => {
                    for v in crate::ir::needs::vec_op_reads(op) {
                        self.need(v);
                    }
                }
                StmtKind::If {
                    cond, then, els, ..
                } => {
                    if let Operand::Var(c) = cond {
                        self.need(*c);
                    }
                    self.decide_block(then);
                    self.decide_block(els);
                }
                StmtKind::Loop(l) => {
                    let mut lp = LoopPlan {
                        rev_work: true,
                        ..LoopPlan::default()
                    };
                    if let LoopKind::Range(r) = &l.kind {
                        if r.range.reads.iter().all(|&v| self.free_read(v, l.trips)) {
                            lp.regen = true;
                            lp.count = !l.exits.is_empty() || reversed(r).is_none();
                            if let Some(v) = r.var {
                                self.plan.restore[v] = Restore::Regen;
                            }
                        }
                    }
                    if !lp.regen {
                        lp.count = true;
                    }
                    if lp.count {
                        self.need(l.trips);
                    }
                    self.plan.loops.insert(l.trips, lp);
                    self.decide_block(&l.body);
                }
                _ => {}
            }
        }
    }

    /// Records a loop without reverse work.
    fn skip(&mut self, stmt: &Stmt) {
        if let StmtKind::Loop(l) = &stmt.kind {
            self.plan.loops.insert(l.trips, LoopPlan::default());
        }
    }

    /// `var` is read by the reverse sweep.
    fn need(&mut self, var: VarId) {
        if self.plan.restore[var] != Restore::None {
            return;
        }
        if self.body.vars[var].ty.is_array() {
            // An array is read again where it is still in scope; it must still hold the same
            // values. (Whether it is modified after the call is checked by `snapshot`.)
            if self.body.vars[var].param.is_some() || self.mode_of(var) == BlockMode::Live {
                self.plan.restore[var] = Restore::Live;
            } else if self.mode_of(var) == BlockMode::Stack {
                // Inside a loop, or anywhere in split companions: the whole array is pushed
                // at the end of its block and popped at the start of its reverse.
                self.plan.restore[var] = Restore::Save;
                let typed = self.aggregate_typed(var);
                if matches!(&self.body.vars[var].ty, Ty::Array(info) if info.agg) && !typed {
                    let what = self.what(var);
                    self.cx.error_at(
                        self.body.vars[var].span,
                        format!(
                            "#[reverse] must keep {what} (a struct or nested container) for the \
                             reverse sweep (of a loop, or of a caller) but cannot name its type; \
                             bind it with its type (`let v: Vec2 = ..;`), build it from a \
                             struct expression or a call, or copy a parameter or a part of one \
                             at constant indices"
                        ),
                    );
                }
            } else if self.user_struct(var) {
                // A struct of the user's in an arm outside loops: pushed at the end of the arm
                // and popped at the start of its reverse, as in a loop (a local declared at
                // the top of the function would need a first value, `Default`).
                self.plan.restore[var] = Restore::Save;
            } else {
                // In an arm of a branch outside loops (or after an early `return`): declared
                // at the top of the function, assigned in the arm, read by the arm's reverse.
                self.plan.restore[var] = Restore::Hoist;
            }
            return;
        }
        if self.body.vars[var].param.is_some() || self.mode_of(var) == BlockMode::Live {
            self.plan.restore[var] = Restore::Live;
            return;
        }
        if self.recomputable(var) {
            self.plan.restore[var] = Restore::Recompute;
            return;
        }
        let storable = matches!(
            self.body.vars[var].ty,
            Ty::Float(_) | Ty::Usize | Ty::I32 | Ty::Bool
        ) || self.body.declared_type(var).is_some();
        let mode = self.mode_of(var);
        if !storable && mode == BlockMode::Stack {
            let what = self.what(var);
            self.cx.error_at(
                self.body.vars[var].span,
                format!(
                    "#[reverse] must store {what} for the reverse sweep but does not know its \
                     type; bind it with a type annotation (`let k: usize = ...;` or `: i32`, \
                     `: f64`)"
                ),
            );
        }
        self.plan.restore[var] = match mode {
            BlockMode::Hoist => Restore::Hoist,
            _ => Restore::Save,
        };
    }

    /// How a message names `var`: `` `name` ``, or "this value" for a temporary, whose name
    /// means nothing to the user (the span shows the value).
    fn what(&self, var: VarId) -> String {
        let name = self.body.vars[var].name.to_string();
        match name.starts_with("__") {
            true => "this value".to_string(),
            false => format!("`{name}`"),
        }
    }

    /// Whether codegen can name the type of the aggregate `var` to pop it: a parameter, a
    /// struct expression, a function's result, or a copy of one of these.
    fn aggregate_typed(&self, var: VarId) -> bool {
        // (A `let` that names the type: `let v: V2 = b.pos.scale(0.5);`.)
        if self.body.vars[var].param.is_some() || self.body.declared_type(var).is_some() {
            return true;
        }
        match self.plan.defs.get(&var) {
            Some(Rhs::StructLit(_) | Rhs::Part(..)) => true,
            Some(Rhs::Call(call)) => {
                let callee = &self.body.callees[call.callee];
                match &callee.rule {
                    // A rule of the runtime (`m * v`): typed when its aggregate operands are.
                    Some(_) => call.args.iter().all(|a| match a {
                        Operand::Var(w) if self.body.vars[*w].ty.is_array() => {
                            self.aggregate_typed(*w)
                        }
                        _ => true,
                    }),
                    // (An associated function's result, or a method's of a typed whole
                    // receiver, is named by a call of it: `codegen::tape`'s `witness`.)
                    None => match callee.kind {
                        crate::ir::CalleeKind::Function | crate::ir::CalleeKind::Associated => true,
                        // (Or of a part of one, `ps[i].pos.sub(..)`: see `witness`.)
                        crate::ir::CalleeKind::Method(_) => {
                            let indexed = call.paths.first().is_none_or(|path| {
                                path.as_ref().is_none_or(|path| {
                                    path.0
                                        .iter()
                                        .all(|s| !matches!(s, crate::ir::Step::Variant(_)))
                                })
                            });
                            let receiver = call.args.first().and_then(Operand::var);
                            indexed && receiver.is_some_and(|w| self.aggregate_typed(w))
                        }
                    },
                }
            }
            Some(Rhs::Copy(Operand::Var(w))) => self.aggregate_typed(*w),
            // A 2-D array of constants (`[[0.0; D]; T]`): typed like the constant.
            Some(Rhs::Opaque(opaque)) => {
                opaque.reads.is_empty() || self.body.witness(var).is_some()
            }
            // A copy of a part of a parameter at constant indices: named by the part.
            Some(Rhs::Index(root, path)) => {
                self.body.vars[*root].param.is_some()
                    && path
                        .operands()
                        .iter()
                        .all(|i| matches!(i, Operand::Lit(..)))
            }
            _ => false,
        }
    }

    /// Whether `var` is an aggregate that the reverse sweep can name the type of (see
    /// `aggregate_typed`), other than a constant nested array or a matrix made by a rule of the
    /// runtime (which have a first value of their own): a struct expression's value, a result
    /// of a function or method of the user's, a parameter's copy, or a copy of one of these.
    fn user_struct(&self, var: VarId) -> bool {
        if !matches!(&self.body.vars[var].ty, Ty::Array(info) if info.agg) {
            return false;
        }
        match self.plan.defs.get(&var) {
            Some(Rhs::Opaque(_)) => false,
            Some(Rhs::Call(call)) if self.body.callees[call.callee].rule.is_some() => false,
            Some(Rhs::Copy(Operand::Var(w))) => self.user_struct(*w),
            _ => self.aggregate_typed(var),
        }
    }

    /// Whether `var` can be evaluated again from values available in the reverse sweep.
    fn recomputable(&mut self, var: VarId) -> bool {
        if !self.clobbers.immutable(var) || self.body.vars[var].mutable {
            return false;
        }
        let Some(rhs) = self.plan.defs.get(&var).cloned() else {
            return false;
        };
        if let Rhs::Index(array, _) = &rhs {
            if !self.array_available(*array, Some(var)) {
                return false;
            }
        }
        let reads: Vec<VarId> = match &rhs {
            Rhs::Index(_, path) => path
                .operands()
                .into_iter()
                .filter_map(Operand::var)
                .collect(),
            other => other.reads(),
        };
        // A variable written after its definition may hold another value when the reverse
        // sweep evaluates `var` again (`let q = b; b = ..;`): only unchanging operands qualify
        // (an array, only if nothing writes it after this read: `unchanged_after`).
        if !reads
            .iter()
            .all(|&v| self.clobbers.immutable(v) || self.unchanged_after(v, var))
        {
            return false;
        }
        if rhs.is_cheap() {
            reads.iter().all(|&v| self.free_read(v, var))
        } else if matches!(&rhs, Rhs::Intrinsic(rule, _) if !rule.cheap) {
            // A transcendental costs more to evaluate again than a push and a pop, but storing
            // it next to the values it is computed from doubles what a step keeps: of values
            // that are all stored anyway (the old `x` of a recurrence `x = x.sin() * a + ..`),
            // it is evaluated again, so the step keeps what a hand-written adjoint keeps.
            !reads.is_empty() && reads.iter().all(|&v| self.plan.restore[v] == Restore::Save)
        } else if matches!(rhs, Rhs::Intrinsic(..) | Rhs::Binary(..)) {
            // An intrinsic of values that are restored anyway (the old `x` of a recurrence):
            // evaluating it again costs one call and saves a stack slot.
            reads
                .iter()
                .all(|&v| self.restored(v) || self.free_read(v, var))
        } else {
            false
        }
    }

    fn restored(&self, var: VarId) -> bool {
        self.plan.restore[var] != Restore::None
    }

    /// Whether the array `var` can be read in the reverse sweep as it was in the forward one
    /// (by the definition of `reader`, when given).
    fn array_available(&self, var: VarId, reader: Option<VarId>) -> bool {
        let immutable = self.clobbers.immutable(var)
            && !self.body.vars[var].mutable
            && (self.body.vars[var].param.is_some() || self.mode_of(var) == BlockMode::Live);
        immutable || reader.is_some_and(|r| self.unchanged_after(var, r))
    }

    /// Whether the array `var`, read by the definition of `reader`, still holds the values
    /// read there when the reverse sweep evaluates `reader` again: it is a local of the top
    /// level (in scope, never stored, when the reverse sweep runs; not in split companions,
    /// whose top level is stored too) and no statement after the read writes it, in program
    /// order or in a later iteration of a loop around the read. The reverse sweep runs the
    /// reverses of those statements first and writes no primal, so it finds the array as the
    /// forward sweep left it, which is as the read found it. A parameter written anywhere is
    /// left out: `rev` of a split companion receives it from its caller.
    fn unchanged_after(&self, var: VarId, reader: VarId) -> bool {
        let v = &self.body.vars[var];
        if !v.ty.is_array() || v.param.is_some() || self.mode_of(var) != BlockMode::Live {
            return false;
        }
        let Some(site) = self.def_site[reader].as_ref() else {
            return false;
        };
        !self.clobbers.clobbered(var, site)
    }

    /// `free` for `read`, an operand of the definition of `reader`: an array is available
    /// when nothing changes it after the read.
    fn free_read(&mut self, read: VarId, reader: VarId) -> bool {
        if self.body.vars[read].ty.is_array() && self.plan.restore[read] == Restore::None {
            return self.array_available(read, Some(reader));
        }
        self.free(read)
    }

    /// Makes `var` available without storing it, if possible (it is a parameter, live, or a
    /// cheap function of such values).
    fn free(&mut self, var: VarId) -> bool {
        match self.plan.restore[var] {
            Restore::Live | Restore::Regen | Restore::Recompute => return true,
            Restore::Save | Restore::Hoist => return true,
            Restore::None => {}
        }
        if self.body.vars[var].param.is_some() {
            if self.clobbers.immutable(var) {
                self.plan.restore[var] = Restore::Live;
                return true;
            }
            return false;
        }
        if self.body.vars[var].ty.is_array() {
            return self.array_available(var, None);
        }
        if !self.clobbers.immutable(var) || self.body.vars[var].mutable {
            return false;
        }
        if self.mode_of(var) == BlockMode::Live {
            self.plan.restore[var] = Restore::Live;
            return true;
        }
        let Some(rhs) = self.plan.defs.get(&var).cloned() else {
            return false;
        };
        if !rhs.is_cheap() {
            return false;
        }
        if let Rhs::Index(array, _) = &rhs {
            if !self.array_available(*array, Some(var)) {
                return false;
            }
        }
        let reads: Vec<VarId> = match &rhs {
            Rhs::Index(_, path) => path
                .operands()
                .into_iter()
                .filter_map(Operand::var)
                .collect(),
            other => other.reads(),
        };
        // As in `recomputable`: an operand written after `var`'s definition (`let t = m;
        // m += ..;`) is restored, if at all, with its later value.
        if !reads
            .iter()
            .all(|&v| self.clobbers.immutable(v) || self.unchanged_after(v, var))
        {
            return false;
        }
        if reads.iter().all(|&v| self.free_read(v, var)) {
            self.plan.restore[var] = Restore::Recompute;
            true
        } else {
            false
        }
    }

    /// Decides where each adjoint is declared.
    fn adjoints(&mut self) {
        let n = self.body.vars.len();
        // The one statement (site) contributing to each adjoint, if there is only one: its
        // reverse declares the adjoint as the sum of its contributions (`x * x` gives
        // `let __adj_x = __adj_t * x + __adj_t * x;`).
        let mut site_of: Vec<Option<usize>> = vec![None; n];
        let mut single = vec![true; n];
        let mut direct = vec![true; n];
        let activity = &self.plan.activity;
        let def_block = &self.plan.def_block;
        let mut contribute = |target: &Operand, site_block: BlockId, site_id: usize| {
            if let Operand::Var(v) = target {
                if activity.active(*v) {
                    match site_of[*v] {
                        None => site_of[*v] = Some(site_id),
                        Some(s) if s == site_id => {}
                        Some(_) => single[*v] = false,
                    }
                    // A block id past the last one marks a contribution through a sink
                    // (`&mut __adj_v`), which needs a declared adjoint.
                    if def_block[*v] != Some(site_block) {
                        direct[*v] = false;
                    }
                }
            }
        };
        let sink_block = usize::MAX;
        crate::ir::visit::walk(&self.body.block, &mut |stmt, site| {
            let id = site.pos * 3;
            match &stmt.kind {
                StmtKind::Let { var, rhs, .. } if activity.live(*var, rhs) => match rhs {
                    Rhs::Index(array, _) => contribute(&Operand::Var(*array), site.block, id),
                    Rhs::Intrinsic(rule, args) => {
                        if rule.partial != crate::rules::Partial::Zero {
                            args.iter()
                                .take(rule.arity)
                                .for_each(|a| contribute(a, site.block, id));
                        }
                    }
                    Rhs::Opaque(_) | Rhs::Guard(_) | Rhs::Part(..) => {}
                    Rhs::Call(call) => call.args.iter().for_each(|a| contribute(a, sink_block, id)),
                    other => other
                        .operands()
                        .into_iter()
                        .for_each(|a| contribute(a, site.block, id)),
                },
                StmtKind::Assign { var, value, .. } if activity.active(*var) => {
                    contribute(value, site.block, id)
                }
                StmtKind::IndexAssign { array, value, .. } if activity.active(*array) => {
                    contribute(value, site.block, id)
                }
                StmtKind::VecOp { vec, op } if activity.active(*vec) => match op {
                    crate::ir::VecOp::Extend { src, .. } => {
                        contribute(&Operand::Var(*src), site.block, id)
                    }
                    op => {
                        if let Some(value) = op.value() {
                            contribute(value, site.block, id)
                        }
                    }
                },
                StmtKind::If {
                    then, els, phis, ..
                } => {
                    for phi in phis.iter().filter(|p| activity.active(p.var)) {
                        contribute(&phi.then, then.id, id + 1);
                        contribute(&phi.els, els.id, id + 2);
                    }
                }
                _ => {}
            }
        });
        crate::ir::activity::body_outputs(self.body, &mut |v| {
            contribute(&Operand::Var(v), 0, usize::MAX)
        });
        for v in 0..n {
            if !activity.active(v) {
                continue;
            }
            let var = &self.body.vars[v];
            let scalar = var.ty.is_float();
            self.plan.adj[v] = if scalar
                && !var.mutable
                && site_of[v].is_some()
                && single[v]
                && direct[v]
                && self.clobbers.immutable(v)
            {
                AdjDecl::AtSite
            } else {
                AdjDecl::AtStart
            };
        }
    }

    /// Groups the decisions by block.
    fn finish(&mut self) {
        let mut order: Vec<VarId> = (0..self.body.vars.len()).collect();
        order.sort_by_key(|&v| (self.def_pos[v], v));
        for v in order {
            let Some(block) = self.plan.def_block[v] else {
                continue;
            };
            match self.plan.restore[v] {
                Restore::Save => {
                    self.plan.saves[block].push(v);
                    self.plan.uses_stack = true;
                }
                Restore::Recompute => self.plan.recomputes[block].push(v),
                Restore::Hoist => self.plan.hoisted.push(v),
                _ => {}
            }
            if self.plan.adj[v] == AdjDecl::AtStart {
                self.plan.adj_starts[block].push(v);
            }
        }
    }
}

/// The range of a loop walked the other way, when it is a plain range: `(a..b).rev()` for
/// `a..b` and `a..b` for `(a..b).rev()`; `None` for a `step_by`, which the reverse sweep
/// replays from its trip count instead.
pub(crate) fn reversed(r: &crate::ir::RangeLoop) -> Option<proc_macro2::TokenStream> {
    match &r.walk {
        crate::ir::Walk::Up(base) => Some(quote::quote!((#base).rev())),
        crate::ir::Walk::Down(base) => Some(base.clone()),
        crate::ir::Walk::Other => None,
    }
}
