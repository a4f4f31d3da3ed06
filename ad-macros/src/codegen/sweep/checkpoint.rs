//! A loop with `#[revad::checkpoint]` in `NAME_vjp`: binomial checkpointing
//! (`revad::checkpoint::Revolve`) of the loop's state, with the loop's own body as the step.
//!
//! The state is every mutable variable declared before the loop (the loop is a statement of
//! the function's body: lowering checks) that the loop or the code after it writes: what the
//! loop carries, and what it may read that changes later. The other variables the body reads
//! are parameters and immutable locals, still in scope and unchanged in the reverse sweep.
//!
//! ```text
//! // forward sweep: the primal steps, keeping at most `snapshots` states
//! let mut __ck3 = Revolve::new(0..n, 8, (Clone::clone(&s),));
//! while let Some((__ck_k, __ck_x)) = __ck3.forward() {
//!     let (mut s,) = __ck_x;
//!     let i = __ck3.index(__ck_k);
//!     ..the body's statements without the pushes of its block (an advance)..
//!     __ck3.stepped((s,));
//! }
//! (s,) = __ck3.end();
//! // reverse sweep: steps n - 1 down to 0, recomputing states from the snapshots
//! while let Some((__ck_k, __ck_x, __ck_rev)) = __ck3.backward() {
//!     let (mut s,) = __ck_x;
//!     let i = __ck3.index(__ck_k);
//!     if __ck_rev {
//!         ..the body's forward sweep, then its reverse sweep (as in a fused loop: the
//!           values its block saves stay in scope, neither pushed nor popped)..
//!     } else {
//!         ..an advance..
//!         __ck3.stepped((s,));
//!     }
//! }
//! ```
//!
//! An advance whose body pushes more than its block's saved values (a call, a branch, an
//! inner loop) runs the body's forward sweep between `let __ck_mark = __stack.mark();` and
//! `__stack.release(__ck_mark);`, which drops what it pushed.
//!
//! Reversing step `k` runs the same forward and reverse code as the loop without the
//! attribute, from the same state, in the same order (`n - 1` down to `0`), reading the
//! values its block saved where they were computed rather than through the stack: the
//! gradient is the same bit for bit. The adjoints of the state and of everything else the body reads are
//! the function's own adjoint locals, carried from one reversed step to the next as in that
//! loop. Only the sweeps with adjoints in locals checkpoint: `NAME_vjp` of both backends
//! (the CPS backend runs its loops with these sweeps) and the CPS companion `NAME::cps`; the
//! split companions (a call from another annotated function), forward mode and the Hessians
//! run the loop as written.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::super::shared::{Emitter, Store};
use super::super::tokens::stack;
use crate::ir::{Checkpoint, Loop, LoopKind, Rhs, StmtKind, VarId};

/// What the two sweeps of a checkpointed loop share.
pub(super) struct Checkpointed<'l> {
    l: &'l Loop,
    checkpoint: &'l Checkpoint,
    /// The loop's state (see the module's documentation).
    state: Vec<VarId>,
}

impl Emitter<'_> {
    /// The checkpointed loop `l`, when this emitter checkpoints it: in `NAME_vjp`, a loop of
    /// the function's body with `#[revad::checkpoint]`.
    pub(super) fn checkpointed<'l>(&self, l: &'l Loop) -> Option<Checkpointed<'l>> {
        let checkpoint = l.checkpoint.as_ref()?;
        if self.store != Store::Locals || !matches!(l.kind, LoopKind::Range(_)) {
            return None;
        }
        let stmts = &self.body.block.stmts;
        let at = stmts
            .iter()
            .position(|s| matches!(&s.kind, StmtKind::Loop(m) if std::ptr::eq(&**m, l)))?;
        let mut declared = Vec::new();
        for stmt in &stmts[..at] {
            match &stmt.kind {
                StmtKind::Let { var, .. } => declared.push(*var),
                StmtKind::If { phis, .. } => declared.extend(phis.iter().map(|p| p.var)),
                _ => {}
            }
        }
        let mut written = std::collections::HashSet::new();
        for stmt in &stmts[at..] {
            written.extend(stmt.writes());
            let mut nested = |s: &crate::ir::Stmt, _: &crate::ir::visit::Site| {
                written.extend(s.writes());
            };
            match &stmt.kind {
                StmtKind::If { then, els, .. } => {
                    crate::ir::visit::walk(then, &mut nested);
                    crate::ir::visit::walk(els, &mut nested);
                }
                StmtKind::Loop(m) => crate::ir::visit::walk(&m.body, &mut nested),
                _ => {}
            }
        }
        let state = declared
            .into_iter()
            .filter(|v| self.body.vars[*v].mutable && written.contains(v))
            .collect();
        Some(Checkpointed {
            l,
            checkpoint,
            state,
        })
    }

    /// The forward sweep of a checkpointed loop: its steps, keeping at most the budget of
    /// states, then the state after the loop.
    pub(super) fn checkpoint_forward(&self, c: &Checkpointed<'_>) -> TokenStream {
        let (schedule, k, x, _) = names(c);
        let LoopKind::Range(r) = &c.l.kind else {
            return TokenStream::new();
        };
        let range = &r.range.expr;
        let budget = match c.checkpoint.snapshots {
            Some(k) => quote!(#k),
            None => quote!(::revad::checkpoint::DEFAULT_SNAPSHOTS),
        };
        let names: Vec<&syn::Ident> = c.state.iter().map(|v| &self.body.vars[*v].name).collect();
        // (Located at the attribute: a state of a type that is not `Clone` is reported there.)
        let clones = names
            .iter()
            .map(|n| quote_spanned!(c.checkpoint.span=> ::core::clone::Clone::clone(&#n)));
        let (bind, advance) = (self.checkpoint_bind(c), self.checkpoint_advance(c));
        let lp = self.plan.loops.get(&c.l.trips).copied().unwrap_or_default();
        let trips = &self.body.vars[c.l.trips].name;
        let count = match (lp.count, self.plan.restore[c.l.trips]) {
            (false, _) => TokenStream::new(),
            (true, crate::ir::plan::Restore::Hoist) => quote!(#trips = #schedule.stats().steps;),
            (true, _) => quote!(let mut #trips = #schedule.stats().steps;),
        };
        let end = match names.is_empty() {
            true => quote!(let _ = #schedule.end();),
            false => quote!((#(#names,)*) = #schedule.end();),
        };
        quote! {
            let mut #schedule = ::revad::checkpoint::Revolve::new(#range, #budget, (#(#clones,)*));
            while let ::core::option::Option::Some((#k, #x)) = #schedule.forward() {
                #bind
                #advance
                #schedule.stepped((#(#names,)*));
            }
            #end
            #count
        }
    }

    /// The reverse sweep of a checkpointed loop.
    pub(super) fn checkpoint_reverse(&self, c: &Checkpointed<'_>) -> TokenStream {
        let lp = self.plan.loops.get(&c.l.trips).copied().unwrap_or_default();
        if !lp.rev_work {
            return TokenStream::new();
        }
        let (schedule, k, x, _) = names(c);
        let rev = format_ident!("__ck_rev", span = proc_macro2::Span::mixed_site());
        let names: Vec<&syn::Ident> = c.state.iter().map(|v| &self.body.vars[*v].name).collect();
        let (bind, advance) = (self.checkpoint_bind(c), self.checkpoint_advance(c));
        let step = self.fused_iteration(&c.l.body);
        quote! {
            while let ::core::option::Option::Some((#k, #x, #rev)) = #schedule.backward() {
                #bind
                if #rev {
                    #step
                } else {
                    #advance
                    #schedule.stepped((#(#names,)*));
                }
            }
        }
    }

    /// The state `x` and the loop variable of step `k` bound to the names the body uses.
    fn checkpoint_bind(&self, c: &Checkpointed<'_>) -> TokenStream {
        let (schedule, k, x, _) = names(c);
        let LoopKind::Range(r) = &c.l.kind else {
            return TokenStream::new();
        };
        let names = c.state.iter().map(|v| &self.body.vars[*v].name);
        let var = r.var.map(|v| {
            let name = &self.body.vars[v].name;
            quote!(let #name = #schedule.index(#k);)
        });
        quote! {
            let (#(mut #names,)*) = #x;
            #var
        }
    }

    /// A step run only for the state it leaves: the body's statements without the pushes of
    /// its block, when nothing else in it pushes (no call, no branch, no inner loop, no `Vec`
    /// operation); otherwise its forward sweep between a mark of the stack and its release.
    fn checkpoint_advance(&self, c: &Checkpointed<'_>) -> TokenStream {
        if straight(c.l) {
            let stmts = c.l.body.stmts.iter().map(|s| self.fwd_stmt(s));
            return quote!(#(#stmts)*);
        }
        let (_, _, _, mark) = names(c);
        let body = self.fwd_block(&c.l.body);
        let stack = stack();
        quote! {
            let #mark = #stack.mark();
            #body
            #stack.release(#mark);
        }
    }
}

/// Whether the body of the checkpointed loop `l` pushes nothing but its block's saved values
/// (no call, no branch, no inner loop, no `Vec` operation): then neither of its sweeps uses
/// the stack (see [`Emitter::checkpoint_advance`]).
pub(in crate::codegen) fn straight(l: &Loop) -> bool {
    l.body.stmts.iter().all(|s| match &s.kind {
        StmtKind::Let { rhs, .. } => !matches!(rhs, Rhs::Call(_) | Rhs::Pop(_) | Rhs::Remove(..)),
        StmtKind::Assign { .. } | StmtKind::IndexAssign { .. } | StmtKind::Opaque { .. } => true,
        StmtKind::If { .. } | StmtKind::Loop(_) | StmtKind::VecOp { .. } => false,
    })
}

/// The generated names of a checkpointed loop: its schedule (one per loop, named after its
/// trip counter), the step, the state and the stack's mark.
fn names(c: &Checkpointed<'_>) -> (syn::Ident, syn::Ident, syn::Ident, syn::Ident) {
    let site = proc_macro2::Span::mixed_site();
    (
        format_ident!("__ck{}", c.l.trips, span = site),
        format_ident!("__ck_k", span = site),
        format_ident!("__ck_x", span = site),
        format_ident!("__ck_mark", span = site),
    )
}
