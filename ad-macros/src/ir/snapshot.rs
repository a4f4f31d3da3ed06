//! Snapshots of mutable variables whose old value the reverse sweep needs.
//!
//! ```text
//! // Before                       // After
//! x = x.sin() * a;                let __x1 = x;
//!                                 let __t0 = __x1.sin();   // sin' reads the old x
//!                                 let __t1 = __t0 * a;
//!                                 x = __t1;
//! ```
//!
//! A read needs a snapshot when the variable may be written after it before the reverse
//! sweep runs: by a later statement, or by a later iteration of a loop around the read.

use std::collections::HashMap;

use super::activity::Activity;
use super::needs::{rhs_needs, Need};
use super::visit::{walk, Site};
use super::{Block, Body, Operand, Rhs, Stmt, StmtKind, VarId};

/// Inserts the snapshots into `body`, extending `activity` to the new variables. An array
/// passed to a call and modified before the reverse sweep reads it is copied at the call.
pub(crate) fn insert(body: &mut Body, activity: &mut Activity) {
    let clobbers = Clobbers::of(body);
    let mut pos = 0;
    let mut loops = Vec::new();
    let mut block = std::mem::replace(
        &mut body.block,
        Block {
            id: 0,
            stmts: Vec::new(),
        },
    );
    let mut inserter = Inserter {
        body,
        activity,
        clobbers: &clobbers,
    };
    inserter.block(&mut block, &mut pos, &mut loops);
    body.block = block;
}

/// Where each variable is written.
pub(crate) struct Clobbers {
    /// Pre-order positions of the writes of each variable (its defining `let` excluded).
    writes: Vec<Vec<usize>>,
    /// Position of the defining `let` of each variable (`None` for parameters).
    defs: Vec<Option<usize>>,
}

impl Clobbers {
    pub(crate) fn of(body: &Body) -> Clobbers {
        let n = body.vars.len();
        let mut writes = vec![Vec::new(); n];
        let mut defs = vec![None; n];
        walk(&body.block, &mut |stmt, site| {
            if let StmtKind::Let { var, .. } = &stmt.kind {
                defs[*var] = Some(site.pos);
            }
            for w in stmt.writes() {
                writes[w].push(site.pos);
            }
        });
        Clobbers { writes, defs }
    }

    /// Whether `var` is never written after its definition.
    pub(crate) fn immutable(&self, var: VarId) -> bool {
        self.writes.get(var).is_none_or(Vec::is_empty)
    }

    /// Whether `var`, read at `site`, may be written before the reverse sweep reads it.
    pub(crate) fn clobbered(&self, var: VarId, site: &Site) -> bool {
        let Some(writes) = self.writes.get(var) else {
            return false;
        };
        if writes.iter().any(|&w| w > site.pos) {
            return true;
        }
        let def = self.defs.get(var).copied().flatten();
        site.loops.iter().any(|&(_, start, end)| {
            let declared_inside = def.is_some_and(|d| d >= start && d < end);
            !declared_inside && writes.iter().any(|&w| w >= start && w < end)
        })
    }
}

struct Inserter<'b> {
    body: &'b mut Body,
    activity: &'b mut Activity,
    clobbers: &'b Clobbers,
}

impl Inserter<'_> {
    fn block(
        &mut self,
        block: &mut Block,
        pos: &mut usize,
        loops: &mut Vec<(VarId, usize, usize)>,
    ) {
        let old = std::mem::take(&mut block.stmts);
        let mut snaps: HashMap<VarId, VarId> = HashMap::new();
        for mut stmt in old {
            let site = Site {
                pos: *pos,
                block: block.id,
                loops: loops.clone(),
            };
            *pos += 1;
            let span = stmt.span;
            self.receiver_copy(&mut stmt, &site, &mut block.stmts);
            // The variables a call writes through `&mut`: an argument read from one of them
            // (`obj.bump(obj.fa)`) is read again by the callee's reverse sweep after the call
            // wrote it, so it is a snapshot even when nothing after the call writes it.
            let call_writes: Vec<VarId> = match &stmt.kind {
                StmtKind::Let {
                    rhs: Rhs::Call(call),
                    ..
                } => call.writes().collect(),
                _ => Vec::new(),
            };
            let needed = self.needed_operands(&mut stmt);
            for op in needed {
                let Operand::Var(m) = *op else { continue };
                let written_by_the_call = call_writes.contains(&m);
                if !self.body.vars[m].mutable
                    || !(written_by_the_call || self.clobbers.clobbered(m, &site))
                {
                    continue;
                }
                // (An array passed to a call and modified later is copied at the call: the
                // callee's reverse sweep reads it again, as it was.)
                let snap = match snaps.get(&m) {
                    Some(&snap) => snap,
                    None => {
                        let active = self.activity.active(m);
                        let snap = self.snapshot(m, &mut block.stmts, span, active);
                        snaps.insert(m, snap);
                        snap
                    }
                };
                *op = Operand::Var(snap);
            }
            for w in stmt.writes() {
                snaps.remove(&w);
            }
            match &mut stmt.kind {
                StmtKind::If { then, els, .. } => {
                    self.block(then, pos, loops);
                    self.block(els, pos, loops);
                    snaps.clear();
                }
                StmtKind::Loop(l) => {
                    let start = *pos;
                    let end = start + super::visit::count(&l.body);
                    loops.push((l.trips, start, end));
                    self.block(&mut l.body, pos, loops);
                    loops.pop();
                    snaps.clear();
                }
                _ => {}
            }
            block.stmts.push(stmt);
        }
    }

    /// The operands of `stmt` whose values its reverse reads (only for active statements).
    fn needed_operands<'s>(&self, stmt: &'s mut Stmt) -> Vec<&'s mut Operand> {
        let activity = &*self.activity;
        // The reverse of `insert`, `remove` and `swap` reads their indices.
        let removes_active = matches!(
            &stmt.kind,
            StmtKind::Let { rhs: Rhs::Remove(v, _), .. } if activity.active(*v)
        );
        if removes_active {
            if let StmtKind::Let {
                rhs: Rhs::Remove(_, index),
                ..
            } = &mut stmt.kind
            {
                return vec![index];
            }
            return Vec::new();
        }
        match &mut stmt.kind {
            StmtKind::Let { var, rhs, .. } if activity.live(*var, rhs) => {
                let needs = rhs_needs(rhs, &|v| activity.active(v));
                // (A method's receiver passed by `&mut` is read again only to find the
                // method: the call writes it, so it is never a snapshot.)
                let by_mut: Vec<bool> = match &*rhs {
                    Rhs::Call(c) => c.by_mut.clone(),
                    _ => Vec::new(),
                };
                let written = |i: usize| by_mut.get(i) == Some(&true);
                let positions: Vec<usize> = needs
                    .iter()
                    .filter_map(|n| match n {
                        Need::Operand(i) if !written(*i) => Some(*i),
                        _ => None,
                    })
                    .collect();
                rhs.operands_mut()
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| positions.contains(i))
                    .map(|(_, op)| op)
                    .collect()
            }
            StmtKind::IndexAssign { array, index, .. } if activity.active(*array) => {
                index.operands_mut()
            }
            StmtKind::VecOp {
                vec,
                op: super::VecOp::Insert(index, _),
            } if activity.active(*vec) => vec![index],
            StmtKind::VecOp {
                vec,
                op: super::VecOp::Swap(i, j),
            } if activity.active(*vec) => vec![i, j],
            _ => Vec::new(),
        }
    }

    /// For a method call whose receiver is passed by `&mut` (any `mut` receiver: the caller
    /// cannot tell `&self` from `&mut self`) and written again before the reverse sweep (by a
    /// later statement, or by the call itself in a later iteration): a copy taken before the
    /// call, for the callee's reverse sweep (`Call::receiver_old`). The copy carries no
    /// adjoint.
    fn receiver_copy(&mut self, stmt: &mut Stmt, site: &Site, stmts: &mut Vec<Stmt>) {
        let span = stmt.span;
        let StmtKind::Let { var, rhs, .. } = &mut stmt.kind else {
            return;
        };
        if !self.activity.live(*var, rhs) {
            return;
        }
        let Rhs::Call(call) = rhs else {
            return;
        };
        let Some(Operand::Var(m)) = call.args.first() else {
            return;
        };
        let m = *m;
        let by_mut = call.by_mut.first() == Some(&true);
        if !call.method
            || !by_mut
            || !self.body.vars[m].mutable
            || !self.clobbers.clobbered(m, site)
        {
            return;
        }
        // (Read only by the callee's reverse sweep, which adds into the receiver's adjoint.)
        let snap = self.snapshot(m, stmts, span, false);
        call.receiver_old = Some(Operand::Var(snap));
    }

    /// `let __m1 = m;` appended to `stmts`, active or not.
    fn snapshot(
        &mut self,
        m: VarId,
        stmts: &mut Vec<Stmt>,
        span: proc_macro2::Span,
        active: bool,
    ) -> VarId {
        let mut var = self.body.vars[m].clone();
        let base = var.name.to_string();
        let base = base.trim_start_matches('_');
        var.name = proc_macro2::Ident::new(
            &format!("__{base}_old{}", self.body.vars.len()),
            proc_macro2::Span::mixed_site(),
        );
        var.mutable = false;
        var.param = None;
        var.temp = true;
        self.body.vars.push(var);
        let snap = self.body.vars.len() - 1;
        // A `Vec` whose length changes has that length only where it was measured: the
        // snapshot's adjoint takes the snapshot's own length (the reverse sweep reads the
        // snapshot anyway). A snapshot of a `mut` aggregate copy keeps its shape.
        if let super::Ty::Array(info) = &mut self.body.vars[snap].ty {
            if matches!(info.shape, super::Shape::Len(_)) {
                info.shape = super::Shape::Like(snap);
            }
        }
        self.activity.push(active);
        stmts.push(Stmt {
            kind: StmtKind::Let {
                var: snap,
                rhs: Rhs::Copy(Operand::Var(m)),
                ty: None,
            },
            span,
        });
        snap
    }
}
