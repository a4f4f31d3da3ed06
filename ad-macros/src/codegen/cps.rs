//! The continuation-passing backend, `#[reverse(cps)]`: shift/reset by closure passing
//! (Wang et al., ICFP 2019: the construction of section 3, loops as in section 3.5).
//!
//! Every active value gets an adjoint cell, an `revad::cps::NumR` on the stack frame where it
//! is computed. Each operation computes its primal value (the same statement as the tape's
//! forward sweep), runs the rest of the body, its continuation, and when that returns adds
//! its contributions to its operands' cells (the same contributions as the tape's reverse
//! sweep, from the one interpreter of the partials, `codegen::linear`):
//!
//! ```text
//! // let z = x * y; z.sin()                    // under #[reverse(cps)]
//! let z = x * y;
//! let __ad_c2 = NumR::new(z);
//! let __ad_r = {                                // the continuation of `*`
//!     let __t0 = z.sin();
//!     let __ad_c3 = NumR::new(__t0);
//!     let __ad_r = { __ad_c3.add(__seed); __t0 };   // reset: seed the output
//!     let __adj_t0 = __ad_c3.adjoint();
//!     __ad_c2.add(__adj_t0 * rules::d_sin(z));
//!     __ad_r
//! };
//! let __adj_z = __ad_c2.adjoint();
//! __ad_c0.add(__adj_z * y);
//! __ad_c1.add(__adj_z * x);
//! __ad_r
//! ```
//!
//! Consecutive operations share one continuation block (the continuation of a `let` of a
//! fresh variable is the statements after it, so the back parts of a run of them go after
//! the run, last first); an assignment starts a new block, because it shadows the variable
//! that earlier back parts read. Variables are never mutated in place except arrays, whose
//! elements the back parts do not read (they capture the cells they add to).
//!
//! - `if`: the rest of the body becomes one continuation closure `__ad_kN`, defined before
//!   the branch and called at the end of both arms with the values they computed (the phis,
//!   and every variable the arms or the rest write): the rest is not duplicated.
//! - Loops run as the tape backend runs them: its forward sweep (pushing what the reverse
//!   reads to the value stack), the rest of the body, then its reverse sweep, with the
//!   adjoints of the loop's values in locals (see `bridged`). That is the continuation of an
//!   iteration defunctionalised (Wang et al., section 3.5: a tape is the CPS continuation as
//!   data): what it needs of its frame is its saved values, and "call the continuation of
//!   iteration k" is "pop and run the reverse of iteration k". The loop meets the cells at
//!   its boundary: the adjoints of the variables it touches start from their cells and go
//!   back into them. So a loop keeps what the tape keeps, and nothing grows with its
//!   iterations but the value stack.
//! - Statements that touch a struct, a tuple or a nested container, and method calls, run
//!   the same way, one statement at a time (`bridged`): the aggregate's adjoint is one value,
//!   a `revad::cps::WholeAdjoint` (its `Adjoint` type), which the statement's reverse takes
//!   and puts back.
//! - Calls go through the callee's CPS companion `g::cps`, which every annotated function
//!   has: the rest of the body is the continuation the callee runs with its result's cell,
//!   and the callee adds into the arguments' cells when the continuation returns. For a
//!   function under `#[reverse(cps)]` the companion is its body in CPS (`companion`); for a
//!   tape function or an `#[revad::derivative]` it runs `g::fwd`, the continuation, then
//!   `g::rev` (`companion_via_split`). Tape callers call CPS functions through their split
//!   companions, which the tape backend generates for every function. Recursion is therefore
//!   CPS too: the continuations of nested calls run nested, each under `revad::cps::grow`
//!   (calls in a loop go through the callees' split companions, as the tape's do).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use super::convention::{
    allow_generated, companion_signature, sink_name, stack, unreachable_companion,
};
use super::shared::{Emitter, Store};
use super::tokens::cell_of;
use crate::ir::plan::{AdjDecl, Plan};
use crate::ir::{
    AssignOp, Block, Body, FloatTy, LoopKind, Operand, Output, Rhs, Shape, Stmt, StmtKind, Ty,
    VarId,
};
use crate::parse::{ParamKind, Signature};

fn fresh(prefix: &str, n: usize) -> syn::Ident {
    format_ident!("__ad_{}{}", prefix, n, span = Span::mixed_site())
}

/// What follows a block: code that ends it by invoking the enclosing continuation, and the
/// variables that code reads (a continuation must own them, not borrow them).
#[derive(Clone)]
struct Tail {
    /// The seeding of the output's cells (`NAME_vjp`'s: its seed is a parameter, known
    /// before the body runs; empty in a companion, whose seed is its continuation's).
    seed: TokenStream,
    tokens: TokenStream,
    reads: Vec<VarId>,
}

impl Tail {
    fn emit(&self) -> TokenStream {
        let (seed, tokens) = (&self.seed, &self.tokens);
        quote!(#seed #tokens)
    }
}

/// `NAME_vjp` under the CPS backend.
pub(super) fn emit_vjp(
    func: &syn::ItemFn,
    sig: &Signature,
    body: &Body,
    plan: &Plan,
) -> TokenStream {
    let e = Emitter::new(body, plan, sig, Store::Cells);
    let whole = loop_only_arrays(body, sig);
    // (Only unscaled: the statements after the loop have no reverse work, so the adjoints of
    // what the loop touches are their seeds before it runs; and into floats only, whose cells
    // the seeds reach.)
    let fused = super::sweep::fuse::tail_loop(body, plan, sig, false)
        .filter(|f| f.scaled.is_none() && !f.arrays)
        .map(|f| &body.block.stmts[f.at]);
    let c = Cps {
        e,
        counter: std::cell::Cell::new(0),
        whole,
        fused,
    };
    let vis = &func.vis;
    let signature = super::vjp_signature(func, sig);
    let doc = format!(
        " The value of [`{f}`] and its vector-Jacobian product with `__seed` (the adjoint of \
         the output): returns `({f}(..), {})` scaled by the seed.{}\n\n Generated by \
         `#[revad::reverse(cps)]`: continuation-passing code with an adjoint cell per value on \
         the stack (reverse mode).",
        super::gradient_doc(func, sig),
        super::outputs_doc(sig),
        f = func.sig.ident
    );
    let callees = super::callees_prelude(body, sig, true);

    let prologue = super::inout::prologue(sig, body);
    let params = c.param_cells();
    let at_ret = super::tokens::return_span(func);
    let seed_name = crate::ir::names::generated("seed");
    let function = format!("{}_vjp", func.sig.ident);
    let seed = c.seed_output(&body.output, quote!(#seed_name), &sig.ret, &function);
    let seed_outputs =
        c.e.seed_writebacks(&super::inout::vjp_seeds(sig), &function);
    let [finals, store_finals, write_backs] = super::inout::cps_write_backs(sig, body);
    let output = c.e.output_value(&body.output);
    let mut reads = output_vars(&body.output);
    reads.extend(body.writebacks.iter().map(|w| w.var));
    let tail = Tail {
        seed: super::tokens::respan(seed, at_ret),
        tokens: super::tokens::respan(quote!(#store_finals #seed_outputs #output), at_ret),
        reads,
    };
    let run = c.stmts(&body.block.stmts, &tail);
    // The value stack, for the calls and the statements run as the tape's that use it.
    let stack = stack();
    let stack_decl = super::tokens::mentions_ident(run.clone(), &stack.to_string())
        .then(|| quote!(let #stack = &::revad::__private::ValueStack::reused_cell();));
    let gradient = super::tokens::respan(c.gradient(), at_ret);
    let primal = super::primal_path(func, sig);
    let struct_types = super::struct_type_checks(func, sig);
    let inherited = super::inherited_attrs(func);
    let out = fresh("out", 0);
    // (A result of the wrong type is a mismatch at the return type, not at the attribute.)
    let out_at_ret = super::tokens::respan(quote!(#out), at_ret);
    let allow = allow_generated();
    quote! {
        #[doc = #doc]
        #inherited
        #allow
        #[allow(dead_code, reason = "generated next to the function; callers may use either")]
        #vis #signature {
            let _ = #primal;
            #struct_types
            #callees
            #stack_decl
            #prologue
            #finals
            #params
            let #out = { #run };
            #write_backs
            (#out_at_ret, #gradient)
        }
    }
}

/// `NAME::cps` for a function under `#[reverse(cps)]`: the body in continuation-passing
/// style, with the parameters' cells from the caller and the caller's continuation at the
/// end. `body` and `plan` are those of the split companions (every float parameter active).
pub(super) fn companion(
    func: &syn::ItemFn,
    sig: &Signature,
    body: &Body,
    plan: &Plan,
) -> TokenStream {
    let Some(signature) = companion_signature(func, sig) else {
        return TokenStream::new();
    };
    if let Some(stub) = unreachable_companion(sig, &signature) {
        return stub;
    }
    let c = Cps {
        e: Emitter::new(body, plan, sig, Store::Cells),
        counter: std::cell::Cell::new(0),
        whole: Vec::new(),
        fused: None,
    };
    let callees = super::callees_prelude(body, sig, false);
    let prologue = super::inout::prologue(sig, body);
    let params = c.param_cells_from_sinks();
    let k = format_ident!("__ad_k", span = Span::mixed_site());
    let at_ret = super::tokens::return_span(func);
    // The continuation gets a cell of the output's own; its adjoint is the seed.
    let o = format_ident!("__ad_o", span = Span::mixed_site());
    let seed =
        c.e.seed_output(&body.output, quote!(#o.adjoint()), &sig.ret, "");
    let value = c.e.output_value(&body.output);
    let tail = Tail {
        seed: TokenStream::new(),
        tokens: super::tokens::respan(
            quote! {
                let #o = &::revad::__private::cps::NumR::single(#value);
                let __ad_r = #k(#o);
                #seed
                __ad_r
            },
            at_ret,
        ),
        reads: output_vars(&body.output),
    };
    let run = c.stmts(&body.block.stmts, &tail);
    let allow = allow_generated();
    quote! {
        /// For callers under `#[reverse(cps)]`: the function in continuation-passing style,
        /// adding the adjoints of the parameters into the argument cells.
        #allow
        #signature {
            #callees
            #prologue
            #params
            ::revad::__private::cps::grow(|| { #run })
        }
    }
}

fn output_vars(output: &Output) -> Vec<VarId> {
    match output {
        Output::Scalar(op) | Output::Inactive(op) => op.var().into_iter().collect(),
        Output::ArrayVar(v) => vec![*v],
        Output::Tuple(items) => items.iter().flat_map(output_vars).collect(),
    }
}

/// The variables a block writes, nested blocks included.
fn written(stmts: &[Stmt], out: &mut Vec<VarId>) {
    for stmt in stmts {
        for w in stmt.writes() {
            if !out.contains(&w) {
                out.push(w);
            }
        }
        match &stmt.kind {
            StmtKind::If { then, els, .. } => {
                written(&then.stmts, out);
                written(&els.stmts, out);
            }
            StmtKind::Loop(l) => written(&l.body.stmts, out),
            _ => {}
        }
    }
}

/// The array parameters (read-only slices and fixed-size arrays) that no statement outside
/// the loops mentions, nor the output: only loops read them, so their adjoints need no cell
/// per element (see `Cps::whole`).
fn loop_only_arrays(body: &Body, sig: &Signature) -> Vec<VarId> {
    let mut used = output_vars(&body.output);
    used.extend(body.writebacks.iter().map(|w| w.var));
    mentions_in(&body.block.stmts, &mut used, false);
    sig.params
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            let read_only = match &p.ty {
                syn::Type::Reference(r) => r.mutability.is_none(),
                _ => true,
            };
            matches!(p.kind, ParamKind::Slice { .. } | ParamKind::Array { .. })
                && read_only
                && !used.contains(i)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Every variable `stmts` read or write, nested blocks, ranges and conditions included.
fn mentions(stmts: &[Stmt], out: &mut Vec<VarId>) {
    mentions_in(stmts, out, true);
}

/// [`mentions`], with or without the loops (their ranges and bodies) among `stmts`.
fn mentions_in(stmts: &[Stmt], out: &mut Vec<VarId>, loops: bool) {
    let mut add = |v: VarId| {
        if !out.contains(&v) {
            out.push(v);
        }
    };
    for stmt in stmts {
        stmt.writes().into_iter().for_each(&mut add);
        match &stmt.kind {
            StmtKind::Let { rhs, .. } => rhs.reads().into_iter().for_each(&mut add),
            StmtKind::Assign { value, .. } => value.var().into_iter().for_each(&mut add),
            StmtKind::IndexAssign { index, value, .. } => index
                .operands()
                .into_iter()
                .chain([value])
                .filter_map(Operand::var)
                .for_each(&mut add),
            StmtKind::VecOp { op, .. } => {
                op.operands()
                    .into_iter()
                    .filter_map(Operand::var)
                    .for_each(&mut add);
                if let crate::ir::VecOp::Extend { src, .. } = op {
                    add(*src);
                }
            }
            StmtKind::Opaque { flows, .. } => flows.iter().copied().for_each(&mut add),
            StmtKind::If {
                cond,
                then,
                els,
                phis,
            } => {
                cond.var().into_iter().for_each(&mut add);
                phis.iter()
                    .flat_map(|p| [p.then.var(), p.els.var()])
                    .flatten()
                    .for_each(&mut add);
                let mut nested = Vec::new();
                mentions_in(&then.stmts, &mut nested, loops);
                mentions_in(&els.stmts, &mut nested, loops);
                nested.into_iter().for_each(&mut add);
            }
            StmtKind::Loop(_) if !loops => {}
            StmtKind::Loop(l) => {
                match &l.kind {
                    LoopKind::While { cond } => cond.reads.iter().copied().for_each(&mut add),
                    LoopKind::Range(r) => r.range.reads.iter().copied().for_each(&mut add),
                    LoopKind::Infinite => {}
                }
                let mut nested = Vec::new();
                mentions(&l.body.stmts, &mut nested);
                nested.into_iter().for_each(&mut add);
            }
        }
    }
}

/// The trip-count variables of the loops among `stmts`, nested ones included.
fn trip_counts(stmts: &[Stmt], out: &mut Vec<VarId>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::If { then, els, .. } => {
                trip_counts(&then.stmts, out);
                trip_counts(&els.stmts, out);
            }
            StmtKind::Loop(l) => {
                out.push(l.trips);
                trip_counts(&l.body.stmts, out);
            }
            _ => {}
        }
    }
}

/// The variables a block declares, nested blocks included.
fn declared(stmts: &[Stmt], out: &mut Vec<VarId>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Let { var, .. } => out.push(*var),
            StmtKind::If {
                then, els, phis, ..
            } => {
                out.extend(phis.iter().map(|p| p.var));
                declared(&then.stmts, out);
                declared(&els.stmts, out);
            }
            StmtKind::Loop(l) => {
                if let LoopKind::Range(r) = &l.kind {
                    out.extend(r.var);
                }
                declared(&l.body.stmts, out);
            }
            _ => {}
        }
    }
}

struct Cps<'a> {
    e: Emitter<'a>,
    counter: std::cell::Cell<usize>,
    /// The array parameters that only loops read (`NAME_vjp` only): their adjoint is one
    /// value, `revad::cps::WholeAdjoint`, which each loop takes, runs its reverse sweep on and
    /// puts back, instead of a cell per element.
    whole: Vec<VarId>,
    /// The loop of the top block whose reverse sweep runs fused into its forward sweep, as
    /// the tape's `NAME_vjp` runs it (`sweep::fuse`; `NAME_vjp` only, whose seed is known
    /// before the loop).
    fused: Option<&'a Stmt>,
}

impl Cps<'_> {
    /// The seeding of the output's cells: a struct's seed goes into its one adjoint, as the
    /// tape adds it into a local (taken from its cell and put back), alone or as a part of a
    /// tuple; the other parts as the cells take them.
    fn seed_output(
        &self,
        output: &Output,
        seed: TokenStream,
        ret: &crate::parse::RetTy,
        function: &str,
    ) -> TokenStream {
        match (output, ret) {
            (Output::ArrayVar(v), _) if self.aggregate(*v) && self.active(*v) => {
                let tape = Emitter::new(self.e.body, self.e.plan, self.e.sig, Store::Locals);
                let (adj, cell) = (&tape.adj[*v], cell_of(*v));
                let add = tape.seed_output(output, seed, ret, function);
                quote!({ let mut #adj = #cell.take(); #add #cell.put(#adj); })
            }
            (Output::Tuple(items), crate::parse::RetTy::Tuple(types)) => {
                let seeds = items.iter().zip(types).enumerate().map(|(k, (item, ty))| {
                    let k = syn::Index::from(k);
                    self.seed_output(item, quote!(#seed.#k), ty, function)
                });
                quote!(#(#seeds)*)
            }
            _ => self.e.seed_output(output, seed, ret, function),
        }
    }

    fn next(&self) -> usize {
        let n = self.counter.get();
        self.counter.set(n + 1);
        n
    }

    fn active(&self, v: VarId) -> bool {
        self.e.plan.active(v)
    }

    fn name(&self, v: VarId) -> &syn::Ident {
        &self.e.body.vars[v].name
    }

    /// Whether `v` is a struct, a tuple or a nested container (an aggregate of floats).
    fn aggregate(&self, v: VarId) -> bool {
        matches!(&self.e.body.vars[v].ty, Ty::Array(info) if info.agg)
    }

    /// Whether `call` passes a function argument of this function on (`apply(f, x)`): a
    /// callee's CPS companion takes none.
    fn passes_function(&self, call: &crate::ir::Call) -> bool {
        call.args.iter().filter_map(Operand::var).any(|v| {
            self.e.body.vars[v]
                .param
                .is_some_and(|i| self.e.sig.params[i].function.is_some())
        })
    }

    /// Whether `call` passes inactive data by `&mut` (a counter, or a `&mut` parameter of
    /// inactive data): the continuations of CPS calls would each need it.
    fn lends_inactive(&self, call: &crate::ir::Call) -> bool {
        let mut_param = |v: VarId| {
            self.e.body.vars[v].param.is_some_and(|i| {
                matches!(&self.e.sig.params[i].ty, syn::Type::Reference(r) if r.mutability.is_some())
            })
        };
        call.args.iter().zip(&call.by_mut).any(|(a, m)| match a {
            Operand::Var(v) => !self.active(*v) && (*m || mut_param(*v)),
            Operand::Lit(..) => *m,
        })
    }

    /// Whether `stmt` runs as the tape's sweeps do (see [`Cps::bridged`]): a loop, a call of a
    /// method, or a statement that touches an active aggregate.
    fn needs_bridge(&self, stmt: &Stmt) -> bool {
        match &stmt.kind {
            StmtKind::Loop(_) => true,
            // A method; a closure or a function argument passed; a counter lent; a struct
            // passed, differentiated or not (a callee's CPS companion takes none of these); a
            // struct returned. (A call with a tuple result runs with its parts.)
            StmtKind::Let {
                var,
                rhs: Rhs::Call(call),
                ..
            } => {
                self.e.body.callees[call.callee].kind != crate::ir::CalleeKind::Function
                    || !call.closures.is_empty()
                    || self.passes_function(call)
                    || self.lends_inactive(call)
                    || call
                        .args
                        .iter()
                        .filter_map(Operand::var)
                        .any(|v| self.aggregate(v))
                    || (call.parts.is_empty() && self.active(*var) && self.aggregate(*var))
            }
            // (The parts of a tuple result go with their call.)
            StmtKind::Let {
                rhs: Rhs::Part(..), ..
            } => false,
            _ => {
                let mut m = Vec::new();
                mentions(std::slice::from_ref(stmt), &mut m);
                if let StmtKind::Let { var, .. } = &stmt.kind {
                    m.push(*var);
                }
                m.iter().any(|v| self.active(*v) && self.aggregate(*v))
            }
        }
    }

    fn float(&self, v: VarId) -> FloatTy {
        self.e.float_of(v)
    }

    /// A new cell for a value of the scalar `v`: starting at `-0.0`, the identity of addition,
    /// when `v`'s adjoint has exactly one contribution (where the tape backend declares the
    /// adjoint with that contribution, `let __adj_v = c;`), and at `0.0` otherwise (where the
    /// tape backend accumulates into `0.0`), so that both backends give the same bits, signs of
    /// zeros included.
    fn new_cell(&self, v: VarId, value: TokenStream) -> TokenStream {
        if self.e.plan.adj[v] == AdjDecl::AtSite {
            quote!(&::revad::__private::cps::NumR::single(#value))
        } else {
            quote!(&::revad::__private::cps::NumR::new(#value))
        }
    }

    /// The length of a fixed-size array variable (its cells are an array), or `None` for a
    /// `Vec` or slice (its cells are a `Vec`).
    fn fixed_len(&self, v: VarId) -> Option<TokenStream> {
        let var = &self.e.body.vars[v];
        if let Some(p) = var.param {
            return match &self.e.sig.params[p].kind {
                ParamKind::Array { len, .. } => Some(len.clone()),
                _ => None,
            };
        }
        match &var.ty {
            Ty::Array(info) => match &info.shape {
                Shape::Fixed(n) => Some(n.clone()),
                Shape::Like(w) if *w != v => self.fixed_len(*w),
                _ => None,
            },
            _ => None,
        }
    }

    /// The type of the cells of an active variable, with the lifetime `lt` (`'b`, or nothing
    /// for an elided one).
    fn cell_type(&self, v: VarId, lt: &TokenStream) -> TokenStream {
        if self.aggregate(v) || self.whole.contains(&v) {
            return quote!(&#lt ::revad::__private::cps::WholeAdjoint<_>);
        }
        let t = self.float(v).ident();
        if self.e.body.vars[v].ty.is_array() {
            match self.fixed_len(v) {
                Some(n) => quote!([&#lt ::revad::__private::cps::NumR<#t>; #n]),
                None => quote!(::std::vec::Vec<&#lt ::revad::__private::cps::NumR<#t>>),
            }
        } else {
            quote!(&#lt ::revad::__private::cps::NumR<#t>)
        }
    }

    /// Cells of the parameters: one per scalar, one per element of an array.
    fn param_cells(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, p) in self.e.sig.params.iter().enumerate() {
            if !self.active(i) {
                continue;
            }
            let name = self.name(i);
            let cell = cell_of(i);
            if self.whole.contains(&i) {
                out.extend(quote! {
                    let #cell = &::revad::__private::cps::WholeAdjoint::new(
                        ::revad::__private::zeros_like(&#name));
                });
                continue;
            }
            match &p.kind {
                ParamKind::Scalar(_) => {
                    let new = self.new_cell(i, quote!(#name));
                    out.extend(quote!(let #cell = #new;));
                }
                ParamKind::Array { .. } => {
                    let own = fresh("p", i);
                    out.extend(quote! {
                        let #own = ::revad::__private::cps::cells_array(&#name);
                        let mut #cell = #own.each_ref();
                    });
                }
                ParamKind::Slice { .. } => {
                    let own = fresh("p", i);
                    out.extend(quote! {
                        let #own = ::revad::__private::cps::cells(&#name[..]);
                        let mut #cell = ::revad::__private::cps::refs(&#own);
                    });
                }
                ParamKind::Aggregate { .. } => {
                    let tape = Emitter::new(self.e.body, self.e.plan, self.e.sig, Store::Locals);
                    let zero = tape.adjoint_zero(i);
                    out.extend(quote! {
                        let #cell = &::revad::__private::cps::WholeAdjoint::new(#zero);
                    });
                }
                ParamKind::Inactive => {}
            }
        }
        out
    }

    /// Cells of the parameters of a CPS companion: the caller's (`CellArg`, `CellsArg`), or
    /// the companion's own for an argument the caller does not differentiate.
    fn param_cells_from_sinks(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, p) in self.e.sig.params.iter().enumerate() {
            if !self.active(i) {
                continue;
            }
            let name = self.name(i);
            let cell = cell_of(i);
            let own = fresh("p", i);
            let refs = fresh("refs", i);
            let sink = sink_name(i);
            match &p.kind {
                ParamKind::Scalar(_) => {
                    let new = self.new_cell(i, quote!(#name));
                    out.extend(quote! {
                        let #own = #new;
                        let #cell = ::revad::__private::cps::CellArg::cell(&#sink, #own);
                    });
                }
                ParamKind::Array { len, .. } => out.extend(quote! {
                    let mut #own = ::std::vec::Vec::new();
                    let mut #refs = ::std::vec::Vec::new();
                    let mut #cell = ::revad::__private::cps::array_of::<_, { #len }>(
                        ::revad::__private::cps::CellsArg::cells(&#sink, &#name[..], &mut #own, &mut #refs),
                    );
                }),
                // The caller's cells, borrowed: a parameter is never written.
                ParamKind::Slice { .. } => out.extend(quote! {
                    let mut #own = ::std::vec::Vec::new();
                    let mut #refs = ::std::vec::Vec::new();
                    let #cell = ::revad::__private::cps::CellsArg::cells(&#sink, &#name[..], &mut #own, &mut #refs);
                }),
                ParamKind::Aggregate { .. } | ParamKind::Inactive => {}
            }
        }
        out
    }

    /// The gradient: the adjoints in the parameters' cells.
    fn gradient(&self) -> TokenStream {
        let adjoints: Vec<TokenStream> = self
            .e
            .sig
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.active)
            .map(|(i, p)| {
                let name = self.name(i);
                if !self.active(i) || self.e.plan.adj[i] == AdjDecl::None {
                    return match &p.kind {
                        ParamKind::Scalar(t) => super::tokens::zero(*t),
                        _ => quote!(::revad::__private::zeros_like(&#name)),
                    };
                }
                let own = fresh("p", i);
                let cell = cell_of(i);
                if self.whole.contains(&i) || matches!(p.kind, ParamKind::Aggregate { .. }) {
                    return quote!(#cell.take());
                }
                match &p.kind {
                    ParamKind::Scalar(_) => quote!(#cell.adjoint()),
                    ParamKind::Array { .. } => {
                        quote!(::revad::__private::cps::adjoints_array(&#own))
                    }
                    _ => quote!(::revad::__private::cps::adjoints(&#own)),
                }
            })
            .collect();
        match adjoints.as_slice() {
            [one] => one.clone(),
            many => quote!((#(#many,)*)),
        }
    }

    // ---- statements -------------------------------------------------------------------------

    /// `stmts` followed by `tail`, as the body of a block whose value is the continuation's
    /// result.
    fn stmts(&self, stmts: &[Stmt], tail: &Tail) -> TokenStream {
        // A run of statements that do not shadow anything: their forward parts, then the rest,
        // then their back parts, last first.
        let mut forward = TokenStream::new();
        let mut backs: Vec<TokenStream> = Vec::new();
        let mut i = 0;
        while i < stmts.len() {
            let stmt = &stmts[i];
            if self.needs_bridge(stmt) {
                break;
            }
            match &stmt.kind {
                StmtKind::Let {
                    var,
                    rhs: rhs @ Rhs::Call(_),
                    ..
                } if self.e.plan.activity.live(*var, rhs) => break,
                StmtKind::Let { var, rhs, ty } => {
                    let (fwd, back) = self.let_stmt(*var, rhs, ty.as_ref(), stmt.span);
                    forward.extend(fwd);
                    // Located at the user's statement, as the tape's reverse sweep is: a type
                    // error in the user's operands shows there, not at the attribute.
                    backs.push(super::tokens::respan(back, stmt.span));
                    i += 1;
                }
                StmtKind::IndexAssign { .. } => {
                    let (fwd, back) = self.index_assign(stmt);
                    forward.extend(fwd);
                    backs.push(super::tokens::respan(back, stmt.span));
                    i += 1;
                }
                StmtKind::VecOp { vec, op } => {
                    let (fwd, back) = self.vec_op(*vec, op, stmt.span);
                    forward.extend(fwd);
                    backs.push(super::tokens::respan(back, stmt.span));
                    i += 1;
                }
                _ => break,
            }
        }
        let rest = if i == stmts.len() {
            tail.emit()
        } else {
            let stmt = &stmts[i];
            let after = &stmts[i + 1..];
            match &stmt.kind {
                // (A call with a tuple result runs with the parts that follow it.)
                StmtKind::Let {
                    rhs: Rhs::Call(call),
                    ..
                } if self.needs_bridge(stmt) && !call.parts.is_empty() => {
                    let n = (1 + call.parts.len()).min(stmts.len() - i);
                    self.bridged(&stmts[i..i + n], &stmts[i + n..], tail)
                }
                _ if self.needs_bridge(stmt) => {
                    self.bridged(std::slice::from_ref(stmt), after, tail)
                }
                StmtKind::Assign { var, op, value } => {
                    self.assign(*var, *op, value, stmt.span, after, tail)
                }
                StmtKind::Opaque { tokens, writes, .. } => self.opaque(tokens, writes, after, tail),
                StmtKind::If {
                    cond,
                    then,
                    els,
                    phis,
                } => self.branch(stmt, cond, then, els, phis, after, tail),
                StmtKind::Let {
                    var,
                    rhs: Rhs::Call(call),
                    ty,
                } if self.through_split(*var, call) => {
                    self.call_split(*var, call, ty.as_ref(), stmt.span, after, tail)
                }
                StmtKind::Let {
                    var,
                    rhs: Rhs::Call(call),
                    ty,
                } => self.call(*var, call, ty.as_ref(), stmt.span, after, tail),
                StmtKind::Let { .. }
                | StmtKind::IndexAssign { .. }
                | StmtKind::VecOp { .. }
                | StmtKind::Loop(_) => {
                    unreachable!()
                }
            }
        };
        let backs: Vec<TokenStream> = backs.into_iter().filter(|b| !b.is_empty()).collect();
        if backs.is_empty() {
            return quote!(#forward #rest);
        }
        let r = fresh("r", self.next());
        let backs = backs.iter().rev();
        let rebind = self.rebind_cells(&self.written_arrays(&stmts[i..]));
        quote! {
            #forward
            let #r = { #rebind #rest };
            #(#backs)*
            #r
        }
    }

    /// A `let`: the primal statement and its cell (forward), and its contributions (back).
    fn let_stmt(
        &self,
        var: VarId,
        rhs: &Rhs,
        ty: Option<&TokenStream>,
        span: Span,
    ) -> (TokenStream, TokenStream) {
        if let Rhs::Pop(vec) | Rhs::Remove(vec, _) = rhs {
            if self.active(*vec) {
                return self.take(var, *vec, rhs, ty, span);
            }
        }
        let v = &self.e.body.vars[var];
        let name = &v.name;
        let annotation = match ty {
            Some(t) => Some(quote!(: #t)),
            None => self.e.constant_type(var, rhs),
        };
        let mutability = v.mutable.then(|| quote!(mut));
        let binding = super::tokens::respan(quote!(let #mutability #name #annotation =), span);
        if !self.active(var) {
            let rhs = self.e.fwd_rhs(var, rhs, span);
            return (quote!(#binding #rhs;), TokenStream::new());
        }
        let cell = cell_of(var);
        let t = self.float(var).ident();
        let primal = self.e.fwd_rhs(var, rhs, span);
        let primal = quote!(#binding #primal;);
        if v.ty.is_array() {
            // Fresh cells for the elements of a new array.
            let own = fresh("o", var);
            let cells = match self.fixed_len(var) {
                Some(_) => quote! {
                    let #own = ::revad::__private::cps::cells_array(&#name);
                    let mut #cell = #own.each_ref();
                },
                None => quote! {
                    let #own = ::revad::__private::cps::cells(&#name[..]);
                    let mut #cell = ::revad::__private::cps::refs(&#own);
                },
            };
            let (capture, back) = match rhs {
                Rhs::Copy(Operand::Var(a)) | Rhs::ToVec(Operand::Var(a)) if self.active(*a) => {
                    let from = fresh("a", self.next());
                    let a_cell = cell_of(*a);
                    (
                        quote!(let #from = ::core::clone::Clone::clone(&#a_cell);),
                        quote! {
                            for (__c, __o) in #from.iter().zip(#own.iter()) {
                                __c.add(__o.adjoint());
                            }
                        },
                    )
                }
                Rhs::ArrayLit(items) | Rhs::VecLit(items) => {
                    let adds = items.iter().enumerate().filter_map(|(k, item)| {
                        let Operand::Var(i) = item else { return None };
                        if !self.active(*i) {
                            return None;
                        }
                        let c = cell_of(*i);
                        Some(quote!(#c.add(#own[#k].adjoint());))
                    });
                    (TokenStream::new(), quote!(#(#adds)*))
                }
                Rhs::ArrayRepeat(Operand::Var(x), _) | Rhs::VecRepeat(Operand::Var(x), _)
                    if self.active(*x) =>
                {
                    let c = cell_of(*x);
                    (
                        TokenStream::new(),
                        quote!(#c.add(#own.iter().map(|__o| __o.adjoint()).sum::<#t>());),
                    )
                }
                _ => (TokenStream::new(), TokenStream::new()),
            };
            return (quote!(#capture #primal #cells), back);
        }
        let new_cell = self.new_cell(var, quote!(#name));
        let new_cell = quote!(let #cell = #new_cell;);
        if let Rhs::Index(array, index) = rhs {
            if !self.active(*array) {
                return (quote!(#primal #new_cell), TokenStream::new());
            }
            let element = fresh("e", var);
            let a_cell = cell_of(*array);
            let index = self.e.path(index);
            return (
                quote!(#primal #new_cell let #element = #a_cell #index;),
                quote!(#element.add(#cell.adjoint());),
            );
        }
        let adj = &self.e.adj[var];
        let contributions = self.e.rev_rhs(var, rhs, span);
        let back = if contributions.is_empty() {
            TokenStream::new()
        } else {
            quote!(let #adj = #cell.adjoint(); #contributions)
        };
        (quote!(#primal #new_cell), back)
    }

    /// A call of a function with a derivative, through its CPS companion `g::cps`: the rest
    /// of the body is the continuation the callee runs with the result's cell, and the callee
    /// adds into the arguments' cells when it returns.
    ///
    /// ```text
    /// let mut __ad_once3 = Once::new(|__ad_res3: &NumR<f64>| {
    ///     let y: f64 = __ad_res3.value();
    ///     let __ad_c5 = &NumR::single(y);
    ///     let __ad_r = { <the rest> };
    ///     __ad_res3.add(__ad_c5.adjoint());
    ///     __ad_r
    /// });
    /// g::cps(x, __ad_stack, __ad_c0, &mut |r| (__ad_once3.take())(r))
    /// ```
    fn call(
        &self,
        var: VarId,
        call: &crate::ir::Call,
        ty: Option<&TokenStream>,
        span: Span,
        after: &[Stmt],
        tail: &Tail,
    ) -> TokenStream {
        let callee = &self.e.body.callees[call.callee];
        let alias = &callee.alias;
        let stack = stack();
        let n = self.next();
        let once = fresh("once", n);
        let res = fresh("res", n);
        let r = fresh("r", n);
        let cell = cell_of(var);
        let t = self.float(var).ident();
        let name = self.name(var);
        // Arrays that the rest of the body may change are passed as they were at the call
        // (the rest owns them), and so are the cells of array arguments.
        let mut captures = TokenStream::new();
        let mut before = TokenStream::new();
        let mut after_call = TokenStream::new();
        let mut args = self.e.call_args(call, false);
        let mut sinks = Vec::new();
        for (k, arg) in call.args.iter().enumerate() {
            let Operand::Var(a) = arg else {
                sinks.push(quote!(::revad::__private::Discard));
                continue;
            };
            let array = self.e.body.vars[*a].ty.is_array();
            if array && self.e.body.vars[*a].mutable {
                let saved = fresh("arg", self.next());
                let a_name = self.name(*a);
                captures.extend(quote!(let #saved = ::core::clone::Clone::clone(&#a_name);));
                args[k] = if call.by_ref[k] {
                    quote!(&#saved)
                } else {
                    quote!(::core::clone::Clone::clone(&#saved))
                };
            }
            if !self.active(*a) {
                sinks.push(quote!(::revad::__private::Discard));
                continue;
            }
            let a_cell = cell_of(*a);
            if call.args[..k].contains(arg) {
                let (decl, sink, add) = self.duplicate_cell(*a, n, k);
                before.extend(decl);
                sinks.push(sink);
                after_call.extend(add);
                continue;
            }
            if array && self.e.body.vars[*a].mutable {
                // The rest may replace elements' cells: pass them as they are at the call.
                let saved = fresh("cells", self.next());
                captures.extend(quote!(let #saved = ::core::clone::Clone::clone(&#a_cell);));
                sinks.push(quote!(::revad::__private::cps::Cells(&#saved[..])));
            } else if array {
                sinks.push(quote!(::revad::__private::cps::Cells(&#a_cell[..])));
            } else {
                sinks.push(quote!(#a_cell));
            }
        }
        let mut carried = self.carried(&[], after, tail);
        carried.vars.retain(|v| *v != var);
        let pattern = self.pattern(&carried);
        let values = self.values(&carried);
        let annotation = match ty {
            Some(t) => quote!(: #t),
            None => quote!(: #t),
        };
        let mutability = self.e.body.vars[var].mutable.then(|| quote!(mut));
        let binding = super::tokens::respan(quote!(let #mutability #name #annotation =), span);
        let new_cell = self.new_cell(var, quote!(#name));
        let rest = self.stmts(after, tail);
        let rebind = self.rebind_cells(&carried.vars);
        // At the user's call: a mismatch with the callee's parameters shows there.
        let invoke = super::tokens::respan(
            quote! {
                #alias::cps(
                    #(#args,)* #stack, #(#sinks,)*
                    &mut |#res| ::revad::__private::cps::grow(|| (#once.take())(#res)),
                )
            },
            span,
        );
        quote! {
            #captures
            #before
            let mut #once = ::revad::__private::cps::Once::new(|#res: &::revad::__private::cps::NumR<#t>| {
                let #pattern = #values;
                #rebind
                #binding #res.value();
                let #cell = #new_cell;
                let #r = { #rest };
                #res.add(#cell.adjoint());
                #r
            });
            // The continuations of nested calls run nested too (the deepest call's result
            // reaches the rest of every level in turn): each may need a new stack segment.
            let #r = #invoke;
            #after_call
            #r
        }
    }

    /// Whether a call goes through the callee's split companions rather than its CPS
    /// companion, which only returns a scalar and writes nothing.
    fn through_split(&self, var: VarId, call: &crate::ir::Call) -> bool {
        // (A value of the user's type, `Power::Square` or a copy of one, may be for a
        // parameter of a struct or an enum, whose callee's CPS companion is a stub: its split
        // companions take it.)
        let user_value = |a: &Operand| match a {
            Operand::Lit(_, crate::ir::LitKind::Unknown) => true,
            Operand::Var(v) => matches!(self.e.body.vars[*v].ty, Ty::Other | Ty::Unknown),
            _ => false,
        };
        call.by_mut.contains(&true)
            || !call.parts.is_empty()
            || self.e.body.vars[var].ty.is_array()
            || call.args.iter().any(user_value)
    }

    /// A call that passes variables by `&mut`, or returns an array or a tuple, through the
    /// callee's split companions (its CPS companion has no way to hand back new cells, or
    /// cells of an array): `fwd` writes the variables, which get fresh cells for the rest of
    /// the body, and the result (or each part of it) gets cells; then `rev` turns the
    /// adjoints of the new cells (and of the result's) into adjoints of the old ones.
    ///
    /// ```text
    /// let mut __ad_st = __ad_stack.take();
    /// let y = g::fwd(&mut x, &mut buf, &mut __ad_st);    __ad_stack.set(__ad_st);
    /// let __ad_was_x = __ad_c1;  let __ad_c1 = &NumR::new(x);       // and for `buf`'s cells
    /// let __ad_c2 = &NumR::new(y);
    /// let __ad_r = { <the rest> };
    /// let mut __ad_in_x = __ad_c1.adjoint();  let mut __ad_in_buf = adjoints(..);
    /// g::rev(passed_mut(), passed_mut(), __ad_c2.adjoint(), &mut __ad_st, &mut __ad_in_x,
    ///        &mut __ad_in_buf[..]);
    /// __ad_was_x.add(__ad_in_x);  ..                      // into the old cells
    /// ```
    fn call_split(
        &self,
        var: VarId,
        call: &crate::ir::Call,
        ty: Option<&TokenStream>,
        span: Span,
        after: &[Stmt],
        tail: &Tail,
    ) -> TokenStream {
        let callee = &self.e.body.callees[call.callee];
        let alias = &callee.alias;
        let stack = stack();
        let n = self.next();
        let r = fresh("r", n);
        let name = self.name(var);
        let mut fwd_args = self.e.call_args(call, false);
        let mut rev_args = self.e.call_args(call, true);
        // `&mut` arguments as the callee's parameters take them (`&mut x` or `&x`).
        let st = quote!(&mut __ad_st);
        let lent = super::shared::lend_args(call, &mut fwd_args, false, &st);
        let unlent = super::shared::lend_args(call, &mut rev_args, true, &st);
        let mut captures = TokenStream::new();
        let mut renew = TokenStream::new();
        let mut seeds = TokenStream::new();
        let mut deliver = TokenStream::new();
        let mut sinks = Vec::new();
        for (k, arg) in call.args.iter().enumerate() {
            let Operand::Var(a) = arg else {
                sinks.push(quote!(::revad::__private::Discard));
                continue;
            };
            let a = *a;
            let array = self.e.body.vars[a].ty.is_array();
            let a_name = self.name(a);
            let a_cell = cell_of(a);
            if call.by_mut[k] {
                if !self.active(a) {
                    sinks.push(quote!(::revad::__private::Discard));
                    continue;
                }
                let was = format_ident!("__ad_was{}_{}", n, k, span = Span::mixed_site());
                let own = format_ident!("__ad_new{}_{}", n, k, span = Span::mixed_site());
                let adj_in = format_ident!("__ad_in{}_{}", n, k, span = Span::mixed_site());
                if array {
                    captures.extend(quote!(let #was = ::core::clone::Clone::clone(&#a_cell);));
                    renew.extend(quote! {
                        let #own = ::revad::__private::cps::cells(&#a_name[..]);
                        for (__c, __o) in #a_cell.iter_mut().zip(#own.iter()) {
                            *__c = __o;
                        }
                    });
                    seeds.extend(quote! {
                        let mut #adj_in: ::std::vec::Vec<_> =
                            #own.iter().map(|__c| __c.adjoint()).collect();
                    });
                    sinks.push(quote!(&mut #adj_in[..]));
                    deliver.extend(quote! {
                        for (__c, __v) in #was.iter().zip(#adj_in.iter()) {
                            __c.add(*__v);
                        }
                    });
                } else {
                    let t = self.float(a).ident();
                    captures.extend(quote!(let #was = #a_cell;));
                    renew.extend(quote! {
                        let #own = ::revad::__private::cps::NumR::<#t>::new(#a_name);
                        let #a_cell = &#own;
                    });
                    seeds.extend(quote!(let mut #adj_in = #own.adjoint();));
                    sinks.push(quote!(&mut #adj_in));
                    deliver.extend(quote!(#was.add(#adj_in);));
                }
                continue;
            }
            if self.active(a) && call.args[..k].contains(arg) {
                let (decl, sink, add) = self.duplicate_cell(a, n, k);
                captures.extend(decl);
                sinks.push(sink);
                deliver.extend(add);
                continue;
            }
            if array && self.e.body.vars[a].mutable {
                // The rest may change it: the reverse sweep gets it as it was at the call.
                let saved = fresh("arg", self.next());
                captures.extend(quote!(let #saved = ::core::clone::Clone::clone(&#a_name);));
                rev_args[k] = if call.by_ref[k] {
                    quote!(&#saved)
                } else {
                    quote!(::core::clone::Clone::clone(&#saved))
                };
            }
            if !self.active(a) {
                sinks.push(quote!(::revad::__private::Discard));
                continue;
            }
            if array {
                let saved = fresh("cells", self.next());
                captures.extend(quote!(let #saved = ::core::clone::Clone::clone(&#a_cell);));
                sinks.push(quote!(::revad::__private::cps::Cells(&#saved[..])));
            } else {
                sinks.push(quote!(#a_cell));
            }
        }
        let annotation = match ty {
            Some(t) => Some(quote!(: #t)),
            None => self.e.float_annotation(var),
        };
        let mutability = self.e.body.vars[var].mutable.then(|| quote!(mut));
        let binding = super::tokens::respan(quote!(let #mutability #name #annotation =), span);
        // The result's cells, or for a tuple, its parts (the `let`s that follow the call).
        let mut result_cells = TokenStream::new();
        let (seed, after) = if call.parts.is_empty() {
            (self.result_cells(var, &mut result_cells), after)
        } else {
            let n_parts = call.parts.len().min(after.len());
            let mut seeds = Vec::new();
            for stmt in &after[..n_parts] {
                if let StmtKind::Let { var: p, rhs, .. } = &stmt.kind {
                    let (p_name, rhs) = (self.name(*p), self.e.fwd_rhs(*p, rhs, stmt.span));
                    let mutability = self.e.body.vars[*p].mutable.then(|| quote!(mut));
                    result_cells.extend(quote!(let #mutability #p_name = #rhs;));
                    seeds.push(self.result_cells(*p, &mut result_cells));
                }
            }
            (quote!((#(#seeds,)*)), &after[n_parts..])
        };
        let rest = self.stmts(after, tail);
        let rebind = self.rebind_cells(&self.written_arrays(after));
        let call_tokens = super::tokens::respan(
            quote!(#alias::fwd(#(#fwd_args,)* &mut __ad_st)),
            callee.span,
        );
        // (Both calls at the user's: a type error of an argument is reported there.)
        let rev_tokens = super::tokens::respan(
            quote!(#alias::rev(#(#rev_args,)* #seed, &mut __ad_st, #(#sinks),*)),
            callee.span,
        );
        let kept = lent.iter().rev();
        quote! {
            #captures
            let mut __ad_st = #stack.take();
            #(let mut #lent = ::core::option::Option::None;)*
            #binding #call_tokens;
            #(::revad::__private::keep_lent(&mut __ad_st, #kept);)*
            #stack.set(__ad_st);
            #renew
            #result_cells
            let #r = { #rebind #rest };
            #seeds
            let mut __ad_st = #stack.take();
            #(let mut #unlent = ::core::option::Option::None;)*
            #rev_tokens;
            #stack.set(__ad_st);
            #deliver
            #r
        }
    }

    /// Cells for the result (or a part) `v` of a call made through the split companions,
    /// added to `out`; returns the seed of the callee's reverse for it, read from them.
    fn result_cells(&self, v: VarId, out: &mut TokenStream) -> TokenStream {
        let name = self.name(v);
        let array = self.e.body.vars[v].ty.is_array();
        if !self.active(v) {
            return match array {
                true => quote!(::revad::__private::zeros_like(&#name)),
                false => quote!(::core::default::Default::default()),
            };
        }
        let cell = cell_of(v);
        if array {
            let own = fresh("o", v);
            out.extend(quote! {
                let #own = ::revad::__private::cps::cells(&#name[..]);
                let mut #cell = ::revad::__private::cps::refs(&#own);
            });
            return quote!(::revad::__private::cps::adjoints_like(&#name, &#own));
        }
        let new_cell = self.new_cell(v, quote!(#name));
        out.extend(quote!(let #cell = #new_cell;));
        quote!(::revad::__private::seed_for(#cell.adjoint()))
    }

    /// For the `k`-th argument of call `n` that passes the active variable `a` again
    /// (`h(x, x)`): a zeroed cell of its own (the declaration, to go before the call), the
    /// sink to pass, and the statement that adds it into `a`'s cells after the callee's
    /// reverse, as the tape backend does with a local sink. An array's cells are those it has
    /// at the call: the rest of the body may replace a mutable array's cells.
    fn duplicate_cell(
        &self,
        a: VarId,
        n: usize,
        k: usize,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let dup = format_ident!("__ad_dup{}_{}", n, k, span = Span::mixed_site());
        let a_name = self.name(a);
        let a_cell = cell_of(a);
        if self.e.body.vars[a].ty.is_array() {
            let refs = format_ident!("__ad_duprefs{}_{}", n, k, span = Span::mixed_site());
            let at_call = format_ident!("__ad_dupcells{}_{}", n, k, span = Span::mixed_site());
            let decl = quote! {
                let #dup = ::revad::__private::cps::cells_zero(&#a_name[..]);
                let #refs = ::revad::__private::cps::refs(&#dup);
                let #at_call = ::core::clone::Clone::clone(&#a_cell);
            };
            let add = quote! {
                for (__c, __d) in #at_call.iter().zip(#dup.iter()) {
                    __c.add(__d.adjoint());
                }
            };
            return (
                decl,
                quote!(::revad::__private::cps::Cells(&#refs[..])),
                add,
            );
        }
        let t = self.float(a).ident();
        (
            quote!(let #dup = &::revad::__private::cps::NumR::<#t>::new(#a_name);),
            quote!(#dup),
            quote!(#a_cell.add(#dup.adjoint());),
        )
    }

    /// `array[index] = value` (or `+=`, `-=`): in place, with a fresh cell for the element.
    fn index_assign(&self, stmt: &Stmt) -> (TokenStream, TokenStream) {
        let StmtKind::IndexAssign {
            array,
            index,
            op,
            value,
        } = &stmt.kind
        else {
            return (TokenStream::new(), TokenStream::new());
        };
        let name = self.name(*array);
        let (index, value_tokens) = (self.e.path(index), self.e.op(value));
        let token = match op {
            AssignOp::Set => quote!(=),
            AssignOp::Add => quote!(+=),
            AssignOp::Sub => quote!(-=),
        };
        let primal = super::tokens::respan(quote!(#name #index #token #value_tokens;), stmt.span);
        if !self.active(*array) {
            return (primal, TokenStream::new());
        }
        let n = self.next();
        let element = fresh("w", n);
        let old = fresh("old", n);
        let a_cell = cell_of(*array);
        let forward = quote! {
            let #old = #a_cell #index;
            #primal
            let #element = ::revad::__private::cps::NumR::new(#name #index);
            #a_cell #index = &#element;
        };
        let adj = quote!(#element.adjoint());
        let mut back = match op {
            AssignOp::Set => TokenStream::new(),
            _ => quote!(#old.add(#adj);),
        };
        back.extend(self.e.contrib(value, adj, *op == AssignOp::Sub));
        (forward, back)
    }

    /// `var = value` (or `+=`, `-=`): a new binding of `var`, and for an active one a new
    /// cell; the rest of the block is its continuation.
    fn assign(
        &self,
        var: VarId,
        op: AssignOp,
        value: &Operand,
        span: Span,
        after: &[Stmt],
        tail: &Tail,
    ) -> TokenStream {
        let name = self.name(var);
        let v = self.e.op(value);
        let rhs = match op {
            AssignOp::Set => v,
            AssignOp::Add => quote!(#name + #v),
            AssignOp::Sub => quote!(#name - #v),
        };
        let annotation = self.e.float_annotation(var);
        let mutability = self.e.body.vars[var].mutable.then(|| quote!(mut));
        let primal = super::tokens::respan(quote!(let #mutability #name #annotation = #rhs;), span);
        let rest = self.stmts(after, tail);
        if !self.active(var) || (op == AssignOp::Set && value.var() == Some(var)) {
            return quote!(#primal #rest);
        }
        let n = self.next();
        let old = fresh("old", n);
        let r = fresh("r", n);
        let c = cell_of(var);
        let adj = quote!(#c.adjoint());
        let mut back = match op {
            AssignOp::Set => TokenStream::new(),
            _ => quote!(#old.add(#adj);),
        };
        if value.var() == Some(var) {
            // `m += m`: the value is the old binding, whose cell `#c` no longer names.
            let method = if op == AssignOp::Sub {
                quote!(sub)
            } else {
                quote!(add)
            };
            back.extend(quote!(#old.#method(#adj);));
        } else {
            back.extend(self.e.contrib(value, adj, op == AssignOp::Sub));
        }
        let back = super::tokens::respan(back, span);
        let old_decl = (op != AssignOp::Set).then(|| quote!(let #old = #c;));
        let new_cell = self.new_cell(var, quote!(#name));
        let rebind = self.rebind_cells(&self.written_arrays(after));
        quote! {
            #old_decl
            #primal
            let #c = #new_cell;
            let #r = { #rebind #rest };
            #back
            #r
        }
    }

    /// An inactive statement: written variables are rebound first (earlier back parts read
    /// their old values), and active floats among them get fresh cells after it.
    fn opaque(
        &self,
        tokens: &TokenStream,
        writes: &[VarId],
        after: &[Stmt],
        tail: &Tail,
    ) -> TokenStream {
        let rebinds = writes.iter().map(|w| {
            let name = self.name(*w);
            quote!(let mut #name = #name;)
        });
        let cells = writes.iter().filter(|w| self.active(**w)).map(|w| {
            let name = self.name(*w);
            let c = cell_of(*w);
            if self.e.body.vars[*w].ty.is_array() {
                let own = fresh("fresh", self.next());
                quote! {
                    let #own = ::revad::__private::cps::cells(&#name[..]);
                    let mut #c = ::revad::__private::cps::refs(&#own);
                }
            } else {
                let new = self.new_cell(*w, quote!(#name));
                quote!(let #c = #new;)
            }
        });
        let rest = self.stmts(after, tail);
        quote! {
            #(#rebinds)*
            #tokens
            #(#cells)*
            #rest
        }
    }

    /// What the continuation of `construct` (an `if` or a loop) must own rather than borrow:
    /// the variables declared before it that it, the statements after it or the tail write,
    /// or that the tail reads, and the iterators of the enclosing loops.
    fn carried(&self, construct: &[Stmt], after: &[Stmt], tail: &Tail) -> Carried {
        let mut w = Vec::new();
        written(construct, &mut w);
        written(after, &mut w);
        for r in &tail.reads {
            if !w.contains(r) {
                w.push(*r);
            }
        }
        let mut inner = Vec::new();
        declared(construct, &mut inner);
        declared(after, &mut inner);
        w.retain(|v| !inner.contains(v));
        w.sort_unstable();
        Carried { vars: w }
    }

    /// The carried values as a tuple expression.
    fn values(&self, c: &Carried) -> TokenStream {
        let vars = c.vars.iter().map(|v| self.name(*v));
        quote!((#(#vars,)*))
    }

    /// The carried values as a tuple pattern binding each mutably.
    fn pattern(&self, c: &Carried) -> TokenStream {
        let vars = c.vars.iter().map(|v| self.name(*v));
        quote!((#(mut #vars,)*))
    }

    /// The type of the carried values, recorded without moving them.
    fn witness(&self, c: &Carried) -> TokenStream {
        let vars = c.vars.iter().map(|v| self.name(*v));
        quote! {
            ::revad::__private::cps::witness(|| (
                #(::core::clone::Clone::clone(&#vars),)*
            ))
        }
    }

    /// `let mut __ad_cN = __ad_cN;` for the active arrays among `vars`: a block that stores
    /// its own cells into an array declared outside it works on a rebinding, whose type may
    /// name a shorter lifetime than the outer binding's (element cells copied out earlier,
    /// for the back parts, keep the longer one).
    fn rebind_cells(&self, vars: &[VarId]) -> TokenStream {
        let cells = vars
            .iter()
            .filter(|v| self.active(**v) && self.e.body.vars[**v].ty.is_array())
            .map(|v| cell_of(*v));
        quote!(#(let mut #cells = #cells;)*)
    }

    /// The variables declared before `stmts` that `stmts` write, nested blocks included.
    fn written_arrays(&self, stmts: &[Stmt]) -> Vec<VarId> {
        let mut w = Vec::new();
        written(stmts, &mut w);
        let mut inner = Vec::new();
        declared(stmts, &mut inner);
        w.retain(|v| !inner.contains(v));
        w
    }

    /// The cells of the active carried variables.
    fn active_of(&self, c: &Carried) -> Vec<VarId> {
        c.vars.iter().copied().filter(|v| self.active(*v)).collect()
    }

    /// `if`: the rest of the body as one continuation closure, called from both arms.
    #[allow(clippy::too_many_arguments)]
    fn branch(
        &self,
        stmt: &Stmt,
        cond: &Operand,
        then: &Block,
        els: &Block,
        phis: &[crate::ir::Phi],
        after: &[Stmt],
        tail: &Tail,
    ) -> TokenStream {
        let n = self.next();
        let k = fresh("k", n);
        let w = fresh("w", n);
        let mut carried = self.carried(std::slice::from_ref(stmt), after, tail);
        carried.vars.retain(|v| !phis.iter().any(|p| p.var == *v));
        let rest = self.stmts(after, tail);
        let witness = self.witness(&carried);
        let pattern = self.pattern(&carried);
        let active = self.active_of(&carried);
        let cells: Vec<syn::Ident> = active.iter().map(|v| cell_of(*v)).collect();
        let cell_types = active
            .iter()
            .map(|v| self.cell_type(*v, &TokenStream::new()));
        let phi_names = phis.iter().map(|p| self.name(p.var));
        let phi_types = phis.iter().map(|p| match self.e.body.vars[p.var].ty {
            Ty::Float(Some(t)) => {
                let t = t.ident();
                quote!(#t)
            }
            Ty::Usize => quote!(usize),
            Ty::I32 => quote!(i32),
            Ty::Bool => quote!(bool),
            _ => quote!(_),
        });
        let active_phis: Vec<&crate::ir::Phi> =
            phis.iter().filter(|p| self.active(p.var)).collect();
        let phi_cells = active_phis.iter().map(|p| cell_of(p.var));
        let phi_cell_types = active_phis.iter().map(|p| {
            let t = self.float(p.var).ident();
            quote!(&::revad::__private::cps::NumR<#t>)
        });
        // The closure is not passed to a generic function, so the elided lifetimes of its
        // cell parameters are higher-ranked: each arm passes cells of its own frame.
        let definition = quote! {
            let #w = #witness;
            let mut #k = |__ad_s,
                      (#(#phi_names,)*): (#(#phi_types,)*),
                      (#(mut #cells,)*): (#(#cell_types,)*),
                      (#(#phi_cells,)*): (#(#phi_cell_types,)*)| {
                ::revad::__private::cps::typed(&__ad_s, #w);
                let #pattern = __ad_s;
                #rest
            };
        };
        let arm = |block: &Block, pick: &dyn Fn(&crate::ir::Phi) -> &Operand| {
            let values = phis.iter().map(|p| self.e.op(pick(p)));
            let m = self.next();
            let r = fresh("r", m);
            // A cell for each active phi, added into the arm's value after the rest ran.
            let mut new_cells = TokenStream::new();
            let mut backs = TokenStream::new();
            let mut phi_cells = Vec::new();
            for (j, p) in active_phis.iter().enumerate() {
                let c = format_ident!("__ad_phi{}_{}", m, j, span = Span::mixed_site());
                let value = self.e.op(pick(p));
                let t = self.float(p.var).ident();
                let new = self.new_cell(p.var, quote!(#value));
                new_cells.extend(quote!(let #c: &::revad::__private::cps::NumR<#t> = #new;));
                backs.extend(self.e.contrib(pick(p), quote!(#c.adjoint()), false));
                phi_cells.push(c);
            }
            let carried_values = self.values(&carried);
            let call = quote! {
                #new_cells
                let #r = #k(#carried_values, (#(#values,)*), (#(#cells,)*), (#(#phi_cells,)*));
                #backs
                #r
            };
            let tail = Tail {
                seed: TokenStream::new(),
                tokens: call,
                reads: carried
                    .vars
                    .iter()
                    .copied()
                    .chain(phis.iter().filter_map(|p| pick(p).var()))
                    .collect(),
            };
            // The arm owns what it writes: earlier back parts read the old values.
            let mut writes = Vec::new();
            written(&block.stmts, &mut writes);
            let rebinds = writes.iter().filter(|w| carried.vars.contains(w)).map(|w| {
                let name = self.name(*w);
                let c = cell_of(*w);
                let cells = (self.active(*w) && self.e.body.vars[*w].ty.is_array())
                    .then(|| quote!(let mut #c = #c;));
                quote!(let mut #name = #name; #cells)
            });
            let body = self.stmts(&block.stmts, &tail);
            quote!({ #(#rebinds)* #body })
        };
        let then_code = arm(then, &|p| &p.then);
        let else_code = arm(els, &|p| &p.els);
        let cond = self.e.op(cond);
        quote! {
            #definition
            if #cond #then_code else #else_code
        }
    }

    /// A loop: the tape's two sweeps around the rest of the body, its continuation. An
    /// iteration's continuation, defunctionalised, is what the tape keeps of it (Wang et al.,
    /// section 3.5): the values its reverse reads, on the value stack. So the loop runs as
    /// the tape backend runs it (`Store::Locals`), with adjoints in locals, and meets the
    /// cells at its boundary:
    ///
    /// ```text
    /// let __ad_was3 = __ad_c3;                      // `s`, which the loop writes
    /// let mut __ad_st = __ad_stack.take();
    /// let __stack = &mut __ad_st;
    /// for i in 0..n { s += w[i] * x; }              // the tape's forward sweep (pushes)
    /// __ad_stack.set(__ad_st);
    /// let __ad_c3 = &NumR::new(s);                  // a fresh cell for `s` after the loop
    /// let __ad_r = { <the rest> };
    /// let mut __adj_s = __ad_c3.adjoint();          // adjoints from the cells, into locals
    /// let mut __adj_x = __ad_c1.adjoint();
    /// let mut __adj_w = adjoints_of(&__ad_c0[..]);
    /// let mut __ad_st = __ad_stack.take();
    /// let __stack = &mut __ad_st;
    /// for i in (0..n).rev() { __adj_w[i] += __adj_s * x; __adj_x += __adj_s * w[i]; }
    /// __ad_stack.set(__ad_st);
    /// __ad_was3.set(__adj_s);                       // and back: the sums are the tape's
    /// __ad_c1.set(__adj_x);
    /// set_adjoints(&__ad_c0, &__adj_w);
    /// __ad_r
    /// ```
    ///
    /// Nothing grows with the iterations but the value stack, as under the tape backend.
    ///
    /// The statements that touch a struct, a tuple or a nested container, and calls of
    /// methods, run the same way (see [`Cps::bridged`]): the adjoint of such a value is one
    /// value, a `revad::cps::WholeAdjoint` (Lantern's `TensorR` gradient), which the
    /// statement's reverse takes and puts back.
    fn bridged(&self, group: &[Stmt], after: &[Stmt], tail: &Tail) -> TokenStream {
        let tape = Emitter::new(self.e.body, self.e.plan, self.e.sig, Store::Locals);
        // The tape's last loop, fused (`sweep::fuse`): the statements after it have no reverse
        // work, so the output's seeds go into the cells first, and each iteration's reverse
        // runs right after its forward, from the adjoints the cells then hold.
        let fused = match group {
            [stmt @ Stmt {
                kind: StmtKind::Loop(l),
                ..
            }] if self.fused.is_some_and(|f| std::ptr::eq(f, stmt)) => {
                let mut after_defs = Vec::new();
                declared(after, &mut after_defs);
                (!tail.reads.iter().any(|v| after_defs.contains(v))).then_some(&**l)
            }
            _ => None,
        };
        if let Some(l) = fused {
            let rest = Tail {
                seed: TokenStream::new(),
                ..tail.clone()
            };
            return self.bridge(group, after, &rest, Some((l, &tail.seed)), &tape);
        }
        self.bridge(group, after, tail, None, &tape)
    }

    /// [`Cps::bridged`] with its decision made: `fused`, the loop (the whole group) to run
    /// fused and the seeds that go before it (which `tail` no longer holds).
    fn bridge(
        &self,
        group: &[Stmt],
        after: &[Stmt],
        tail: &Tail,
        fused: Option<(&crate::ir::Loop, &TokenStream)>,
        tape: &Emitter<'_>,
    ) -> TokenStream {
        let rest = self.stmts(after, tail);
        let rebind = self.rebind_cells(&self.written_arrays(after));
        let mut inner = Vec::new();
        declared(group, &mut inner);
        // Declared here for the tape's sweeps: what the plan hoists (values of an `if` arm
        // that its reverse reads, trip counts of loops in an arm).
        let mut trips = Vec::new();
        trip_counts(group, &mut trips);
        let hoisted = inner
            .iter()
            .chain(&trips)
            .filter(|v| self.e.plan.restore[**v] == crate::ir::plan::Restore::Hoist)
            .map(|v| tape.hoisted_decl(*v));
        let trips = quote!(#(#hoisted)*);
        let forward: TokenStream = group.iter().map(|s| tape.fwd_stmt(s)).collect();
        let reverse: TokenStream = group.iter().rev().map(|s| tape.rev_stmt(s)).collect();
        let n = self.next();
        let r = fresh("r", n);
        // The variables the statement defines for the statements after it.
        let defined: Vec<VarId> = group
            .iter()
            .flat_map(|stmt| match &stmt.kind {
                StmtKind::Let { var, .. } => vec![*var],
                StmtKind::If { phis, .. } => phis.iter().map(|p| p.var).collect(),
                _ => Vec::new(),
            })
            .collect();
        let mut mentioned = Vec::new();
        mentions(group, &mut mentioned);
        mentioned.retain(|v| !inner.contains(v));
        mentioned.extend(&defined);
        let mut writes = Vec::new();
        written(group, &mut writes);
        writes.extend(&defined);
        let mut later = Vec::new();
        written(after, &mut later);
        later.extend(tail.reads.iter().copied());
        let mut before = TokenStream::new();
        let mut renew = TokenStream::new();
        // (Of the variables the group defines: the others keep their cells when the group has
        // no reverse, which then leaves their adjoints as they are.)
        let mut renew_defined = TokenStream::new();
        let mut keep = TokenStream::new();
        let mut restore = TokenStream::new();
        let mut seeds = TokenStream::new();
        let mut deliver = TokenStream::new();
        for (k, &v) in mentioned.iter().enumerate() {
            let name = self.name(v);
            let array = self.e.body.vars[v].ty.is_array();
            // The rest may move an array the reverse sweep reads: it reads it as it was.
            if array && later.contains(&v) && !defined.contains(&v) {
                let kept = format_ident!("__ad_keep{}_{}", n, k, span = Span::mixed_site());
                let mutability = self.e.body.vars[v].mutable.then(|| quote!(mut));
                keep.extend(quote!(let #kept = ::core::clone::Clone::clone(&#name);));
                restore.extend(quote!(let #mutability #name = #kept;));
            }
            if !self.active(v) || !(array || self.e.body.vars[v].ty.is_float()) {
                continue;
            }
            let c = cell_of(v);
            let adj = &tape.adj[v];
            if self.whole.contains(&v) {
                seeds.extend(quote!(let mut #adj = #c.take();));
                deliver.extend(quote!(#c.put(#adj);));
                continue;
            }
            let t = self.float(v).ident();
            let zero = super::tokens::zero(self.float(v));
            if self.aggregate(v) {
                // One adjoint for the whole value; a new one after a write or a definition.
                let mut from = c.clone();
                if writes.contains(&v) {
                    let zero = tape.adjoint_zero(v);
                    if !defined.contains(&v) {
                        let was = format_ident!("__ad_was{}_{}", n, k, span = Span::mixed_site());
                        before.extend(quote!(let #was = #c;));
                        from = was;
                    }
                    let new = quote!(let #c = &::revad::__private::cps::WholeAdjoint::new(#zero););
                    if defined.contains(&v) {
                        renew_defined.extend(new.clone());
                    }
                    renew.extend(new);
                }
                seeds.extend(quote!(let mut #adj = #c.take();));
                if from != c || !writes.contains(&v) {
                    deliver.extend(quote!(#from.put(#adj);));
                }
                continue;
            }
            if writes.contains(&v) {
                // New cells after the statement; what its reverse leaves goes to the old.
                let was = format_ident!("__ad_was{}_{}", n, k, span = Span::mixed_site());
                let fresh_var = defined.contains(&v);
                if !fresh_var {
                    before.extend(quote!(let #was = #c;));
                }
                if array {
                    let own = format_ident!("__ad_own{}_{}", n, k, span = Span::mixed_site());
                    let (cells, each, from) = match self.fixed_len(v) {
                        Some(len) => (
                            quote!(cells_array(&#name)),
                            quote!(#own.each_ref()),
                            quote!(adjoints_into([#zero; #len], &#own.each_ref()[..])),
                        ),
                        None => {
                            // (Typed like the value: a callee may return an array.)
                            let like =
                                format_ident!("__ad_like{}_{}", n, k, span = Span::mixed_site());
                            keep.extend(quote! {
                                let #like = ::revad::__private::cps::witness(
                                    || ::core::clone::Clone::clone(&#name));
                            });
                            (
                                quote!(cells(&#name[..])),
                                quote!(::revad::__private::cps::refs(&#own)),
                                quote!(adjoints_as(#like, &#own)),
                            )
                        }
                    };
                    let new = quote! {
                        let #own = ::revad::__private::cps::#cells;
                        let mut #c = #each;
                    };
                    if fresh_var {
                        renew_defined.extend(new.clone());
                    }
                    renew.extend(new);
                    seeds.extend(quote!(let mut #adj = ::revad::__private::cps::#from;));
                    if !fresh_var {
                        deliver.extend(
                            quote!(::revad::__private::cps::set_adjoints(&#was[..], &#adj[..]);),
                        );
                    }
                } else {
                    // (Typed by the float type: the value may be an integer that the macro took
                    // for a float, a struct's `usize` field, whose adjoint is a float anyway.
                    // The value of this cell is never read.)
                    let new = self.new_cell(v, quote!(#zero));
                    let new = quote!(let #c: &::revad::__private::cps::NumR<#t> = #new;);
                    if fresh_var {
                        renew_defined.extend(new.clone());
                    }
                    renew.extend(new);
                    seeds.extend(quote!(let mut #adj: #t = #c.adjoint();));
                    if !fresh_var {
                        deliver.extend(quote!(#was.set(#adj);));
                    }
                }
            } else if array {
                // The rest may move the cells (into a continuation) or replace some.
                let cells = if later.contains(&v) {
                    let kept = format_ident!("__ad_cells{}_{}", n, k, span = Span::mixed_site());
                    keep.extend(quote!(let #kept = ::core::clone::Clone::clone(&#c);));
                    kept
                } else {
                    c
                };
                let from = match self.fixed_len(v) {
                    Some(len) => quote!(adjoints_into([#zero; #len], &#cells[..])),
                    None => quote!(adjoints_of(&#cells[..])),
                };
                seeds.extend(quote!(let mut #adj = ::revad::__private::cps::#from;));
                deliver
                    .extend(quote!(::revad::__private::cps::set_adjoints(&#cells[..], &#adj[..]);));
            } else {
                seeds.extend(quote!(let mut #adj: #t = #c.adjoint();));
                deliver.extend(quote!(#c.set(#adj);));
            }
        }
        // The tape's code runs on the stack taken out of the cell, put back after it (where it
        // uses the stack).
        let (stack, tape_stack) = (stack(), super::tokens::stack());
        let on_stack = |code: TokenStream| {
            if !super::tokens::mentions_ident(code.clone(), &tape_stack.to_string()) {
                return code;
            }
            quote! {
                let mut __ad_st = #stack.take();
                let #tape_stack = &mut __ad_st;
                #code
                #stack.set(__ad_st);
            }
        };
        if let Some((l, seed)) = fused {
            let fused = on_stack(tape.fused_loop(l));
            return quote!(#trips #before #renew #seed #seeds #fused #deliver #rest);
        }
        let forward = on_stack(forward);
        if reverse.is_empty() {
            // (Nothing to reverse: the values it defines or writes still get cells.)
            return quote!(#trips #forward #renew_defined #rest);
        }
        let reverse = on_stack(reverse);
        quote! {
            #trips
            #before
            #forward
            #renew
            #keep
            let #r = { #rebind #rest };
            #restore
            #seeds
            #reverse
            #deliver
            #r
        }
    }
}

/// Growing and reshaping float vectors (`codegen::grow`): the cells of a `Vec` grow and
/// shrink with it, a new element gets a cell of its own whose adjoint goes to the value it
/// came from when the continuation returns.
impl Cps<'_> {
    /// `push`, `insert`, `extend_from_slice`, `resize`, `truncate`, `clear`, `pop;`, `swap` on
    /// `vec`: the primal statement and the change to its cells (forward), and the
    /// contributions of the new elements' cells (back).
    fn vec_op(&self, vec: VarId, op: &crate::ir::VecOp, span: Span) -> (TokenStream, TokenStream) {
        use crate::ir::VecOp;
        let primal = super::tokens::respan(self.e.fwd_vec_op(vec, op), span);
        if !self.active(vec) {
            return (primal, TokenStream::new());
        }
        let c = cell_of(vec);
        let name = self.name(vec);
        let n = self.next();
        let e = fresh("ge", n);
        let own = fresh("go", n);
        match op {
            VecOp::Push(a) => (
                quote! {
                    #primal
                    let #e = ::revad::__private::cps::NumR::new(#name[#name.len() - 1]);
                    #c.push(&#e);
                },
                self.e.contrib(a, quote!(#e.adjoint()), false),
            ),
            VecOp::Insert(i, a) => {
                let i = self.e.op(i);
                (
                    quote! {
                        #primal
                        let #e = ::revad::__private::cps::NumR::new(#name[#i]);
                        #c.insert(#i, &#e);
                    },
                    self.e.contrib(a, quote!(#e.adjoint()), false),
                )
            }
            VecOp::Extend { src, .. } => {
                let fresh_cells = quote! {
                    let #own = ::revad::__private::cps::cells(&#name[#c.len()..]);
                    #c.extend(#own.iter());
                };
                if !self.active(*src) {
                    return (quote!(#primal #fresh_cells), TokenStream::new());
                }
                let from = fresh("gf", n);
                let src_cell = cell_of(*src);
                (
                    quote! {
                        let #from = ::core::clone::Clone::clone(&#src_cell);
                        #primal
                        #fresh_cells
                    },
                    quote! {
                        for (__c, __o) in #from.iter().zip(#own.iter()) {
                            __c.add(__o.adjoint());
                        }
                    },
                )
            }
            VecOp::Resize { value, .. } => (
                quote! {
                    #primal
                    let #own = ::revad::__private::cps::cells(&#name[#c.len().min(#name.len())..]);
                    #c.truncate(#name.len());
                    #c.extend(#own.iter());
                },
                self.e
                    .contrib(value, quote!(::revad::__private::cells_sum(&#own)), false),
            ),
            VecOp::Shrink { .. } => (
                quote! {
                    #primal
                    #c.truncate(#name.len());
                },
                TokenStream::new(),
            ),
            VecOp::Swap(i, j) => {
                let (i, j) = (self.e.op(i), self.e.op(j));
                (quote!(#primal #c.swap(#i, #j);), TokenStream::new())
            }
        }
    }

    /// `let var = vec.pop().unwrap()` or `vec.remove(i)` on the active `vec`: the element's
    /// cell leaves the `Vec`'s cells, and receives the adjoint of `var` when the continuation
    /// returns.
    fn take(
        &self,
        var: VarId,
        vec: VarId,
        rhs: &Rhs,
        ty: Option<&TokenStream>,
        span: Span,
    ) -> (TokenStream, TokenStream) {
        let name = self.name(var);
        let annotation = match ty {
            Some(t) => Some(quote!(: #t)),
            None => self.e.float_annotation(var),
        };
        let mutability = self.e.body.vars[var].mutable.then(|| quote!(mut));
        let binding = super::tokens::respan(quote!(let #mutability #name #annotation =), span);
        let primal = self.e.fwd_rhs(var, rhs, span);
        let c = cell_of(vec);
        let e = fresh("ge", self.next());
        let take = match rhs {
            Rhs::Remove(_, i) => {
                let i = self.e.op(i);
                quote!(#c.remove(#i))
            }
            _ => quote!(::core::option::Option::unwrap(#c.pop())),
        };
        let forward = quote! {
            #binding #primal;
            let #e = #take;
        };
        if !self.active(var) {
            return (forward, TokenStream::new());
        }
        let cell = cell_of(var);
        let new_cell = self.new_cell(var, quote!(#name));
        (
            quote!(#forward let #cell = #new_cell;),
            quote!(#e.add(#cell.adjoint());),
        )
    }
}

/// What a continuation owns: the variables carried into it.
#[derive(Clone, Default)]
struct Carried {
    vars: Vec<VarId>,
}
