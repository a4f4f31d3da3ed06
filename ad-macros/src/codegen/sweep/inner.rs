//! Inner loops shaped for LLVM: bounds checks taken once before the loop, and the
//! loop-invariant element kept in a local: of the adjoints in the reverse sweep, of the
//! primal values in the forward sweep.
//!
//! ```text
//! // for `for j in 0..n { acc[i] += m[i * n + j] * x[j]; }`
//! if 0 < n {
//!     let x = &x[..n];                       // one check: `x[j]` below has none,
//!     let __adj_x = &mut __adj_x[..n];       // and LLVM vectorises the loop
//!     let mut __adj_acc_at_i = match __adj_acc.get(i) { Some(a) => *a, None => 0.0 };
//!     for j in (0..n).rev() { .. __adj_acc_at_i .. __adj_x[j] += .. }
//!     if let Some(a) = __adj_acc.get_mut(i) { *a = __adj_acc_at_i; }
//! }
//! ```
//!
//! Both are proved from the IR, conservatively ([`shape`]): a range loop `lo..hi` walked
//! downwards, whose bounds are literals or variables, without `break`, `continue`, `return`,
//! nested loops, opaque statements or calls.
//! - An array is resliced to `..hi` when every mention of it in the body is `a[j]` with the
//!   loop variable `j`, and the reverse of the body reads it (primal) or adds to its adjoint
//!   unconditionally (a statement of the body itself, not of an `if` in it). The first
//!   iteration, `j = hi - 1`, indexes it at `hi - 1`: the slice panics exactly where that
//!   index would have, and in a program whose forward sweep ran, never.
//! - The adjoint of an array is kept in a local when every mention of the array in the body
//!   is `a[i]` with one variable `i` that the body does not change: nothing else in the loop
//!   touches that adjoint. It is read with `get` and written back with `get_mut`, so the
//!   local never panics where the element accesses would not have.
//!
//! The reverse sweep already evaluates the range again (`(lo..hi).rev()`); the guard
//! `lo < hi` evaluates its bounds once more, which is why they must be plain.
//!
//! The forward sweep of an inner loop gets the same shapes ([`Emitter::forward_shape`]):
//!
//! ```text
//! // for `for j in 0..n { acc[i] += m[i * n + j] * x[j]; }`
//! if 0 < n {
//!     let m = &m[i * n..][..n];              // read as `m[j]`
//!     let x = &x[..n];
//!     let mut acc_at_i = acc[i];             // the sum in a register, not stored each step
//!     for j in 0..n { .. acc_at_i += __t4; }
//!     acc[i] = acc_at_i;
//! }
//! ```
//!
//! - Only for arrays every mention of which is an element access by a statement of the body
//!   itself, so that every iteration makes it: the slice `..hi` panics exactly when one of the
//!   iterations' accesses would have (the last one reaches furthest), and the read of `a[i]`
//!   before the loop exactly when the first iteration's would have. The panic comes before
//!   the iterations instead of during them, which nothing can observe: the body has no calls
//!   or opaque statements, and `&mut` parameters are written back after the forward sweep.
//! - The values are the same operations in the same order: the primal is bit for bit the
//!   same.

use proc_macro2::TokenStream;
use quote::quote;

use super::super::shared::Emitter;
use crate::ir::{Block, Loop, LoopKind, Operand, Path, Rhs, StmtKind, Ty, VarId, Walk};

/// What [`shape`] found for one reverse inner loop.
pub(super) struct Shaping {
    /// The bounds `lo`, `hi` of the range `lo..hi`.
    lo: TokenStream,
    hi: TokenStream,
    /// Arrays whose primal the reverse body reads, only at the loop variable or at `k`
    /// defined as `base + j`: resliced, with that `base` (and read at `j`, see `rebased`).
    primal: Vec<(VarId, Option<TokenStream>)>,
    /// Arrays whose adjoint the reverse body adds to, the same way: resliced.
    adjoint: Vec<(VarId, Option<TokenStream>)>,
    /// `(array, k, adjoint)`: the elements `a[k]`, `k = base + j`, read as `a[j]` in the
    /// slice of the primal (of the adjoint when `adjoint`).
    pub rebased: Vec<(VarId, VarId, bool)>,
    /// `(array, index)`: the adjoint element `__adj_a[i]` kept in a local.
    pub hoisted: Vec<(VarId, VarId)>,
    /// For each of `hoisted`: whether the loop changes the element (then written back).
    changes: Vec<bool>,
}

/// What [`Emitter::forward_shape`] found for one forward inner loop.
pub(super) struct ForwardShaping {
    /// The bounds `lo`, `hi` of the range `lo..hi`.
    lo: TokenStream,
    hi: TokenStream,
    /// Arrays the body only reads, at the loop variable or at `k` defined as `base + j`:
    /// resliced, with that `base`.
    read: Vec<(VarId, Option<TokenStream>)>,
    /// `(array, k)`: the elements `a[k]`, `k = base + j`, read as `a[j]` in the slice.
    pub rebased: Vec<(VarId, VarId)>,
    /// `(array, index, written)`: the element `a[i]` at an index the body does not change, in
    /// a local through the loop (written back after it when the body writes it).
    pub held: Vec<(VarId, VarId, bool)>,
}

/// One mention of a variable in a loop body: as the array of an element access at `path`
/// (`Some`), or otherwise; `top` when the statement is the body's own, not an `if`'s.
struct Mention<'b> {
    var: VarId,
    path: Option<&'b Path>,
    top: bool,
    /// For an element read `let t = a[..]`: `t`.
    read_into: Option<VarId>,
    /// An element write `a[..] op= v`.
    write: bool,
    /// An element write `a[..] = v`, whose reverse resets the element's adjoint.
    set: bool,
}

/// The mentions of variables in `block`, or `None` for a statement this pass does not
/// reason about (a nested loop, an opaque statement, a call, a `Vec` operation).
fn mentions<'b>(block: &'b Block, top: bool, out: &mut Vec<Mention<'b>>) -> Option<()> {
    let plain = |var: VarId| Mention {
        var,
        path: None,
        top,
        read_into: None,
        write: false,
        set: false,
    };
    for stmt in &block.stmts {
        match &stmt.kind {
            StmtKind::Let { var, rhs, .. } => {
                out.push(plain(*var));
                match rhs {
                    Rhs::Index(a, path) => {
                        out.push(Mention {
                            var: *a,
                            path: Some(path),
                            top,
                            read_into: Some(*var),
                            write: false,
                            set: false,
                        });
                        out.extend(
                            path.operands()
                                .into_iter()
                                .filter_map(|o| o.var().map(plain)),
                        );
                    }
                    Rhs::Call(_) | Rhs::Pop(_) | Rhs::Remove(..) => return None,
                    rhs => out.extend(rhs.reads().into_iter().map(plain)),
                }
            }
            StmtKind::Assign { var, value, .. } => {
                out.push(plain(*var));
                out.extend(value.var().map(plain));
            }
            StmtKind::IndexAssign {
                array,
                index,
                value,
                op,
            } => {
                out.push(Mention {
                    var: *array,
                    path: Some(index),
                    top,
                    read_into: None,
                    write: true,
                    set: matches!(op, crate::ir::AssignOp::Set),
                });
                out.extend(
                    index
                        .operands()
                        .into_iter()
                        .filter_map(|o| o.var().map(plain)),
                );
                out.extend(value.var().map(plain));
            }
            StmtKind::If {
                cond,
                then,
                els,
                phis,
            } => {
                out.extend(cond.var().map(plain));
                for p in phis {
                    out.push(plain(p.var));
                    out.extend(p.then.var().map(plain));
                    out.extend(p.els.var().map(plain));
                }
                mentions(then, false, out)?;
                mentions(els, false, out)?;
            }
            StmtKind::VecOp { .. } | StmtKind::Opaque { .. } | StmtKind::Loop(_) => return None,
        }
    }
    Some(())
}

/// A bound of a range the guard may evaluate again: a literal or a variable.
fn plain_bound(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        syn::Expr::Paren(p) => plain_bound(&p.expr),
        syn::Expr::Group(g) => plain_bound(&g.expr),
        _ => false,
    }
}

/// The bounds of the half-open range `base` (`lo..hi`), when both are plain.
fn plain_range(base: &TokenStream) -> Option<(syn::Expr, syn::Expr)> {
    let range: syn::ExprRange = syn::parse2(base.clone()).ok()?;
    let (Some(lo), Some(hi), syn::RangeLimits::HalfOpen(_)) =
        (range.start, range.end, &range.limits)
    else {
        return None;
    };
    (plain_bound(&lo) && plain_bound(&hi)).then_some((*lo, *hi))
}

/// What both shapings start from: a range loop `lo..hi` walked upwards by its variable `j`,
/// without exits, and the mentions of variables in its body.
struct Scan<'b> {
    j: VarId,
    lo: syn::Expr,
    hi: syn::Expr,
    found: Vec<Mention<'b>>,
}

/// The arrays that `found` indexes, each once.
fn indexed(found: &[Mention<'_>]) -> Vec<VarId> {
    let mut arrays: Vec<VarId> = found
        .iter()
        .filter(|m| m.path.is_some())
        .map(|m| m.var)
        .collect();
    arrays.sort_unstable();
    arrays.dedup();
    arrays
}

fn scan(l: &Loop) -> Option<Scan<'_>> {
    let LoopKind::Range(r) = &l.kind else {
        return None;
    };
    let (Some(j), Walk::Up(base)) = (r.var, &r.walk) else {
        return None;
    };
    if !l.exits.is_empty() || l.cont.is_some() {
        return None;
    }
    let (lo, hi) = plain_range(base)?;
    let mut found = Vec::new();
    mentions(&l.body, true, &mut found)?;
    Some(Scan { j, lo, hi, found })
}

/// The variables a loop's body defines or changes (not invariant, not to be resliced): `j`,
/// `extra`, and those its statements define or write (writing an element changes neither the
/// array's length nor its adjoint's binding).
fn changed_in(body: &Block, j: VarId, extra: &[VarId]) -> Vec<VarId> {
    let mut changed = extra.to_vec();
    changed.push(j);
    crate::ir::visit::walk(body, &mut |stmt, _| {
        if !matches!(stmt.kind, StmtKind::IndexAssign { .. }) {
            changed.extend(stmt.writes());
        }
        if let StmtKind::Let { var, .. } = &stmt.kind {
            changed.push(*var);
        }
        if let StmtKind::If { phis, .. } = &stmt.kind {
            changed.extend(phis.iter().map(|p| p.var));
        }
    });
    changed
}

impl Emitter<'_> {
    /// The shaping of the reverse of the range loop `l` (walked with `(lo..hi).rev()`), or
    /// `None` when there is nothing to do or nothing this pass can prove.
    pub(super) fn shape(&self, l: &Loop) -> Option<Shaping> {
        if self.in_cells() {
            return None;
        }
        let Scan {
            j,
            lo,
            hi,
            mut found,
        } = scan(l)?;
        let body = &l.body;
        // The recomputations at the start of the reverse of the body read like its
        // statements, unconditionally.
        let recomputes = self.plan.recomputes_of(body.id);
        for &v in recomputes {
            match self.plan.defs.get(&v) {
                Some(Rhs::Index(a, path)) => found.push(Mention {
                    var: *a,
                    path: Some(path),
                    top: true,
                    read_into: None,
                    write: false,
                    set: false,
                }),
                Some(Rhs::Call(_) | Rhs::Pop(_) | Rhs::Remove(..)) => return None,
                Some(rhs) => found.extend(rhs.reads().into_iter().map(|var| Mention {
                    var,
                    path: None,
                    top: true,
                    read_into: None,
                    write: false,
                    set: false,
                })),
                None => return None,
            }
        }
        let saves = self.plan.saves_of(body.id);
        let starts = self.plan.adj_starts_of(body.id);
        let extra: Vec<VarId> = saves.iter().chain(recomputes).copied().collect();
        let changed = changed_in(body, j, &extra);
        let arrays = indexed(&found);
        let mut shaping = Shaping {
            lo: quote!(#lo),
            hi: quote!(#hi),
            primal: Vec::new(),
            adjoint: Vec::new(),
            rebased: Vec::new(),
            hoisted: Vec::new(),
            changes: Vec::new(),
        };
        // `k = base + j` (or `j + base`), `base` pure and unchanged by the body.
        let offset = |k: VarId| -> Option<TokenStream> {
            if !recomputes.contains(&k) {
                return None;
            }
            let Some(Rhs::Opaque(o)) = self.plan.defs.get(&k) else {
                return None;
            };
            self.offset_base(o, j, &changed)
        };
        for a in arrays {
            if changed.contains(&a) || starts.contains(&a) || !self.flat_array(a) {
                continue;
            }
            let all: Vec<&Mention<'_>> = found.iter().filter(|m| m.var == a).collect();
            let index = |m: &Mention<'_>| match m.path.and_then(Path::single) {
                Some(Operand::Var(k)) => Some(*k),
                _ => None,
            };
            let Some(k) = index(all[0]) else {
                continue;
            };
            if all.iter().any(|m| index(m) != Some(k)) {
                continue;
            }
            let adjoint = self.plan.active(a) && !self.is_sink(a);
            let base = match k == j {
                true => Some(None),
                false => offset(k).map(Some),
            };
            if let Some(base) = base {
                // Only element reads; the primal when the reverse reads it, the adjoint when
                // the reverse adds to it.
                if all.iter().any(|m| m.write) {
                    continue;
                }
                let primal = recomputes
                    .iter()
                    .any(|v| matches!(self.plan.defs.get(v), Some(Rhs::Index(b, _)) if *b == a));
                let adds = all.iter().any(|m| {
                    m.top
                        && m.read_into
                            .is_some_and(|t| self.plan.active(t) && self.body.vars[t].ty.is_float())
                });
                if primal {
                    shaping.primal.push((a, base.clone()));
                }
                if adjoint && adds {
                    shaping.adjoint.push((a, base.clone()));
                }
                if k != j {
                    if primal {
                        shaping.rebased.push((a, k, false));
                    }
                    if adjoint && adds {
                        shaping.rebased.push((a, k, true));
                    }
                }
            } else if adjoint && !changed.contains(&k) {
                shaping.hoisted.push((a, k));
                // (The reverse of a read adds to the element, that of `a[i] = ..` resets it.)
                let changes = all.iter().any(|m| m.read_into.is_some() || m.set);
                shaping.changes.push(changes);
            }
        }
        let nothing =
            shaping.primal.is_empty() && shaping.adjoint.is_empty() && shaping.hoisted.is_empty();
        (!nothing).then_some(shaping)
    }

    /// `base` when `o` is `base + j` or `j + base` (`j` the loop variable), cheap, with `base`
    /// reading nothing in `changed` (what the loop's body changes).
    fn offset_base(
        &self,
        o: &crate::ir::Opaque,
        j: VarId,
        changed: &[VarId],
    ) -> Option<TokenStream> {
        if !o.cheap || o.reads.iter().any(|r| *r != j && changed.contains(r)) {
            return None;
        }
        let syn::Expr::Binary(b) = syn::parse2::<syn::Expr>(o.expr.clone()).ok()? else {
            return None;
        };
        if !matches!(b.op, syn::BinOp::Add(_)) {
            return None;
        }
        let j_name = self.body.vars[j].name.to_string();
        let is_j = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident(&j_name));
        let base = match (is_j(&b.left), is_j(&b.right)) {
            (false, true) => &b.left,
            (true, false) => &b.right,
            _ => return None,
        };
        (!super::super::tokens::mentions_ident(quote!(#base), &j_name)).then(|| quote!(#base))
    }

    /// The shaping of the forward sweep of the range loop `l` (walked as written), or `None`
    /// when there is nothing to do or nothing this pass can prove (see the module's doc):
    /// every mention of each array it shapes is an element access by a statement of the body
    /// itself (not of an `if` in it), so every iteration makes it and the first out of range
    /// is the one the reslicing or the read before the loop makes.
    pub(super) fn forward_shape(&self, l: &Loop) -> Option<ForwardShaping> {
        let Scan { j, lo, hi, found } = scan(l)?;
        let arrays = indexed(&found);
        let body = &l.body;
        let saves = self.plan.saves_of(body.id);
        let changed = changed_in(body, j, saves);
        // `k = base + j`, defined by a statement of the body.
        let offset = |k: VarId| -> Option<TokenStream> {
            let o = body.stmts.iter().find_map(|stmt| match &stmt.kind {
                StmtKind::Let {
                    var,
                    rhs: Rhs::Opaque(o),
                    ..
                } if *var == k => Some(o),
                _ => None,
            })?;
            self.offset_base(o, j, &changed)
        };
        let mut shaping = ForwardShaping {
            lo: quote!(#lo),
            hi: quote!(#hi),
            read: Vec::new(),
            rebased: Vec::new(),
            held: Vec::new(),
        };
        for a in arrays {
            if changed.contains(&a) || !self.flat_array(a) {
                continue;
            }
            let all: Vec<&Mention<'_>> = found.iter().filter(|m| m.var == a).collect();
            let index = |m: &Mention<'_>| match m.path.and_then(Path::single) {
                Some(Operand::Var(k)) if m.top => Some(*k),
                _ => None,
            };
            let Some(k) = index(all[0]) else {
                continue;
            };
            if all.iter().any(|m| index(m) != Some(k)) {
                continue;
            }
            let written = all.iter().any(|m| m.write);
            let base = match k == j {
                true => Some(None),
                false => offset(k).map(Some),
            };
            match base {
                Some(base) if !written => {
                    shaping.read.push((a, base));
                    if k != j {
                        shaping.rebased.push((a, k));
                    }
                }
                Some(_) => {}
                None if !changed.contains(&k) => shaping.held.push((a, k, written)),
                None => {}
            }
        }
        let nothing = shaping.read.is_empty() && shaping.held.is_empty();
        (!nothing).then_some(shaping)
    }

    /// The forward loop `for_loop` with the reslicing and the locals of `shaping`, whose names
    /// the loop's body was emitted with.
    pub(super) fn shaped_forward(
        &self,
        shaping: &ForwardShaping,
        for_loop: TokenStream,
    ) -> TokenStream {
        let (lo, hi) = (&shaping.lo, &shaping.hi);
        let (slices, reads, writes) = self.forward_parts(shaping);
        quote! {
            if #lo < #hi {
                #(#slices)* #(#reads)*
                #for_loop
                #(#writes)*
            }
        }
    }

    /// What a forward shaping puts around its loop: the slices of the arrays it reads, and
    /// for each element it holds, its read into a local before the loop and its write-back
    /// after it (when the loop writes it).
    fn forward_parts(
        &self,
        shaping: &ForwardShaping,
    ) -> (Vec<TokenStream>, Vec<TokenStream>, Vec<TokenStream>) {
        let slices = self.primal_slices(&shaping.read, &shaping.hi);
        let (reads, writes) = shaping
            .held
            .iter()
            .map(|&(a, i, written)| {
                let name = &self.body.vars[a].name;
                let index = &self.body.vars[i].name;
                let local = hoisted_name(name, index);
                let mutability = written.then(|| quote!(mut));
                let write = written.then(|| quote!(#name[#index] = #local;));
                (
                    quote!(let #mutability #local = #name[#index];),
                    quote!(#write),
                )
            })
            .unzip();
        (slices, reads, writes)
    }

    /// `let a = &a[..hi];` (or `&a[base..][..hi]`) for each primal array a shaped loop reads:
    /// the slice whose length the loop's bounds check once.
    fn primal_slices(
        &self,
        arrays: &[(VarId, Option<TokenStream>)],
        hi: &TokenStream,
    ) -> Vec<TokenStream> {
        arrays
            .iter()
            .map(|(a, base)| {
                let name = &self.body.vars[*a].name;
                match base {
                    None => quote!(let #name = &#name[..#hi];),
                    Some(base) => quote!(let #name = &#name[#base..][..#hi];),
                }
            })
            .collect()
    }

    /// A one-dimensional array of floats (not an aggregate, whose elements are not floats).
    fn flat_array(&self, a: VarId) -> bool {
        matches!(&self.body.vars[a].ty, Ty::Array(info) if info.elem.is_some() && !info.agg)
    }

    /// The reverse loop `for_loop` with the reslicing and the hoisting of `shaping`, whose
    /// names the loop's body was emitted with.
    pub(super) fn shaped_loop(&self, shaping: &Shaping, for_loop: TokenStream) -> TokenStream {
        let (lo, hi) = (&shaping.lo, &shaping.hi);
        let primal = self.primal_slices(&shaping.primal, hi);
        let (adjoint, reads, writes) = self.reverse_parts(shaping);
        quote! {
            if #lo < #hi {
                #(#primal)* #(#adjoint)* #(#reads)*
                #for_loop
                #(#writes)*
            }
        }
    }

    /// What a reverse shaping puts around its loop for the adjoints: the slices of those it
    /// adds to, and for each element it holds, its read into a local before the loop (`get`:
    /// zero where there is none) and its write-back after it (when the loop changes it).
    fn reverse_parts(
        &self,
        shaping: &Shaping,
    ) -> (Vec<TokenStream>, Vec<TokenStream>, Vec<TokenStream>) {
        let hi = &shaping.hi;
        let slices = shaping
            .adjoint
            .iter()
            .map(|(a, base)| {
                let adj = &self.adj[*a];
                match base {
                    None => quote!(let #adj = &mut #adj[..#hi];),
                    Some(base) => quote!(let #adj = &mut #adj[#base..][..#hi];),
                }
            })
            .collect();
        let (reads, writes) = shaping
            .hoisted
            .iter()
            .zip(&shaping.changes)
            .map(|(&(a, k), &changes)| {
                let adj = &self.adj[a];
                let local = hoisted_name(adj, &self.body.vars[k].name);
                let index = &self.body.vars[k].name;
                let zero = super::super::tokens::zero_untyped(self.float_of(a));
                let mutability = changes.then(|| quote!(mut));
                let write = changes.then(|| {
                    quote! {
                        if let ::core::option::Option::Some(__ad_e) = #adj.get_mut(#index) {
                            *__ad_e = #local;
                        }
                    }
                });
                (
                    quote! {
                        let #mutability #local = match #adj.get(#index) {
                            ::core::option::Option::Some(__ad_e) => *__ad_e,
                            ::core::option::Option::None => #zero,
                        };
                    },
                    quote!(#write),
                )
            })
            .unzip();
        (slices, reads, writes)
    }
}

/// The local that holds the adjoint element `__adj_a[i]` through a loop: `__adj_a_at_i`.
pub(super) fn hoisted_name(adj: &syn::Ident, index: &syn::Ident) -> syn::Ident {
    quote::format_ident!(
        "{}_at_{}",
        adj,
        index.to_string().trim_start_matches('_'),
        span = proc_macro2::Span::mixed_site()
    )
}

impl Emitter<'_> {
    /// A range loop fused into the iteration of a fused loop (`fuse::inner_loop`), walked
    /// upwards, each iteration's reverse right after its forward, with the shapes of both
    /// sweeps: the primal arrays resliced as the forward sweep's ([`Self::forward_shape`]),
    /// the adjoints as the reverse sweep's ([`Self::shape`]), each element held in a local
    /// through the loop, primal or adjoint. The adjoint of an array has the array's length, and
    /// it is resliced only where every iteration reads the array: its slice panics exactly
    /// when one of the iterations' reads would have, before them, which nothing observes (the
    /// body has no calls or opaque statements).
    pub(super) fn fused_inner_loop(&self, l: &Loop) -> TokenStream {
        let LoopKind::Range(r) = &l.kind else {
            return TokenStream::new();
        };
        let var = self.loop_var(r.var);
        let range = &r.range.expr;
        let forward = self.forward_shape(l);
        let reverse = self.shape(l);
        let Some(j) = r.var.filter(|_| forward.is_some() || reverse.is_some()) else {
            let iteration = self.fused_iteration(&l.body);
            return quote!(for #var in #range { #iteration });
        };
        let (lo, hi) = match (&forward, &reverse) {
            (Some(f), _) => (f.lo.clone(), f.hi.clone()),
            (None, Some(r)) => (r.lo.clone(), r.hi.clone()),
            (None, None) => return TokenStream::new(),
        };
        let mut rebased = self.rebased.clone();
        let mut primal_held = self.primal_held.clone();
        let (mut slices, mut reads, mut writes) = (Vec::new(), Vec::new(), Vec::new());
        if let Some(f) = &forward {
            rebased.extend(f.rebased.iter().map(|&(a, k)| (a, k, j, false)));
            primal_held.extend(f.held.iter().map(|&(a, i, _)| {
                let name = &self.body.vars[a].name;
                (a, i, hoisted_name(name, &self.body.vars[i].name))
            }));
            let (s, r, w) = self.forward_parts(f);
            slices.extend(s);
            reads.extend(r);
            writes.extend(w);
        }
        let mut held = self.held.clone();
        if let Some(shaping) = &reverse {
            // (The reverse reads the primal values the forward left in scope, or the arrays
            // as the forward's shaping has them: only the adjoints are rebased here.)
            rebased.extend(
                shaping
                    .rebased
                    .iter()
                    .filter(|&&(_, _, adj)| adj)
                    .map(|&(a, k, adj)| (a, k, j, adj)),
            );
            held.extend(
                shaping
                    .hoisted
                    .iter()
                    .map(|&(a, k)| (a, k, hoisted_name(&self.adj[a], &self.body.vars[k].name))),
            );
            let (s, r, w) = self.reverse_parts(shaping);
            slices.extend(s);
            reads.extend(r);
            writes.extend(w);
        }
        let within = Emitter {
            adj: self.adj.clone(),
            held,
            rebased,
            primal_held,
            ..*self
        };
        let iteration = within.fused_iteration(&l.body);
        quote! {
            if #lo < #hi {
                #(#slices)* #(#reads)*
                for #var in #range { #iteration }
                #(#writes)*
            }
        }
    }
}
