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
//!     let __ck_mark = __stack.mark();
//!     ..the body's forward sweep (its pushes dropped: nobody pops them)..
//!     __stack.release(__ck_mark);
//!     __ck3.stepped((s,));
//! }
//! (s,) = __ck3.end();
//! // reverse sweep: steps n - 1 down to 0, recomputing states from the snapshots
//! while let Some((__ck_k, __ck_x, __ck_rev)) = __ck3.backward() {
//!     let (mut s,) = __ck_x;
//!     let i = __ck3.index(__ck_k);
//!     let __ck_mark = __stack.mark();
//!     ..the body's forward sweep..
//!     if __ck_rev { ..the body's reverse sweep (pops what the forward pushed).. }
//!     else { __stack.release(__ck_mark); __ck3.stepped((s,)); }
//! }
//! ```
//!
//! Reversing step `k` runs the same forward and reverse code as the loop without the
//! attribute, from the same state, in the same order (`n - 1` down to `0`): the gradient is
//! the same bit for bit. The adjoints of the state and of everything else the body reads are
//! the function's own adjoint locals, carried from one reversed step to the next as in that
//! loop. Only `NAME_vjp` checkpoints: the split companions (a call from another annotated
//! function), the CPS backend and forward mode run the loop as written.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::super::shared::{Emitter, Store};
use super::super::tokens::stack;
use crate::ir::{Checkpoint, Loop, LoopKind, StmtKind, VarId};

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
        let (schedule, k, x, mark) = names(c);
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
        let step = self.checkpoint_step(c);
        let stack = stack();
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
                #step
                #stack.release(#mark);
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
        let (schedule, k, x, mark) = names(c);
        let rev = format_ident!("__ck_rev", span = proc_macro2::Span::mixed_site());
        let names: Vec<&syn::Ident> = c.state.iter().map(|v| &self.body.vars[*v].name).collect();
        let step = self.checkpoint_step(c);
        let reverse = self.rev_block(&c.l.body, TokenStream::new());
        let stack = stack();
        quote! {
            while let ::core::option::Option::Some((#k, #x, #rev)) = #schedule.backward() {
                #step
                if #rev {
                    #reverse
                } else {
                    #stack.release(#mark);
                    #schedule.stepped((#(#names,)*));
                }
            }
        }
    }

    /// Step `k` from the state `x`: the state and the loop variable bound, the stack marked,
    /// the body's forward sweep.
    fn checkpoint_step(&self, c: &Checkpointed<'_>) -> TokenStream {
        let (schedule, k, x, mark) = names(c);
        let LoopKind::Range(r) = &c.l.kind else {
            return TokenStream::new();
        };
        let names = c.state.iter().map(|v| &self.body.vars[*v].name);
        let var = r.var.map(|v| {
            let name = &self.body.vars[v].name;
            quote!(let #name = #schedule.index(#k);)
        });
        let body = self.fwd_block(&c.l.body);
        let stack = stack();
        quote! {
            let (#(mut #names,)*) = #x;
            #var
            let #mark = #stack.mark();
            #body
        }
    }
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
