//! The two sweeps of a block, with adjoints in locals: the forward sweep (the primal
//! statements, pushing at the end of each block inside a loop what its reverse reads) and the
//! reverse sweep (pops and recomputations, adjoint declarations, each statement's
//! contributions, last first).
//!
//! ```text
//! // for i in 0..n { s += w[i] * x; }          the forward sweep is the loop as written;
//! for i in (0..n).rev() {                       the reverse sweep walks it back:
//!     __adj_w[i] += __adj_s * x;
//!     __adj_x += __adj_s * w[i];
//! }
//! ```
//!
//! The tape backend's `NAME_vjp` and split companions are these sweeps around the whole body
//! (`tape`); the CPS backend runs each loop with them, between the cells of the values the
//! loop touches (`cps::bridged`: a loop's continuation, defunctionalised, is its tape). Inside
//! loops the values the reverse sweep needs are pushed to `__stack` at the end of their block
//! and popped at the start of its reverse (see `ir::plan`). A reverse inner loop over a plain
//! range takes its bounds checks once before the loop and holds its invariant adjoint
//! elements in locals, where the IR proves it safe (see `inner`); a loop under
//! `#[revad::checkpoint]` keeps a bounded number of its states (see `checkpoint`); the last
//! loop of `NAME_vjp` may run each iteration's reverse right after its forward (see `fuse`:
//! both backends' `NAME_vjp` run it so).

pub(super) mod checkpoint;
pub(super) mod fuse;
mod inner;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::shared::Emitter;
use super::tokens::{assign_token, respan, stack};
use crate::ir::plan::{self as plan, LoopPlan, Restore};
use crate::ir::{
    AssignOp, Block, LoopKind, Operand, Output, Rhs, Shape, Stmt, StmtKind, Ty, VarId,
};
use crate::parse::RetTy;

impl Emitter<'_> {
    /// `let mut v = <zero>;` for the variable `v` that the plan hoists (defined in an `if`
    /// arm outside loops, read by the reverse sweep): declared before the `if`, assigned in
    /// the arm.
    pub(in crate::codegen) fn hoisted_decl(&self, v: VarId) -> TokenStream {
        let name = &self.body.vars[v].name;
        let default_float = self.sig.default_float;
        let zero = match (self.body.witness(v), &self.body.vars[v].ty) {
            (Some(witness), Ty::Array(info)) => {
                super::tokens::typed_float_literals(witness, info.elem.unwrap_or(default_float))
            }
            _ => hoisted_zero(&self.body.vars[v].ty, self.plan.defs.get(&v), default_float),
        };
        quote!(let mut #name = #zero;)
    }

    // ---- forward sweep --------------------------------------------------------------------

    /// The forward sweep of `block`, ending with the pushes of its saved values.
    pub(super) fn fwd_block(&self, block: &Block) -> TokenStream {
        let stmts = block.stmts.iter().map(|s| self.fwd_stmt(s));
        let pushes = self.pushes(block);
        quote!(#(#stmts)* #pushes)
    }

    fn pushes(&self, block: &Block) -> TokenStream {
        let stack = stack();
        let saves = self.plan.saves_of(block.id);
        let pushes = saves.iter().map(|&v| {
            let name = &self.body.vars[v].name;
            if self.declared_other(v).is_some() {
                // (At the `let`'s name: the error for a type that cannot be kept points there.)
                let at = self.body.vars[v].span;
                quote::quote_spanned!(at=> ::revad::__private::keep_whole(&mut *#stack, &#name);)
            } else if self.is_aggregate(v) {
                quote!(#stack.push_any(::core::clone::Clone::clone(&#name));)
            } else if self.body.vars[v].ty.is_array() {
                quote!(#stack.push_slice(&#name[..]);)
            } else {
                quote!(#stack.push(#name);)
            }
        });
        quote!(#(#pushes)*)
    }

    pub(in crate::codegen) fn fwd_stmt(&self, stmt: &Stmt) -> TokenStream {
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Let { var, rhs, ty } => {
                let v = &self.body.vars[*var];
                let name = &v.name;
                let annotation = match ty {
                    Some(t) => Some(quote!(: #t)),
                    None => self.constant_type(*var, rhs),
                };
                let rhs = self.fwd_rhs(*var, rhs, span);
                if self.plan.restore[*var] == Restore::Hoist {
                    let place = respan(quote!(#name =), span);
                    return quote!(#place #rhs;);
                }
                let mutability = v.mutable.then(|| quote!(mut));
                // The right-hand side keeps the spans of the user's operation; the rest is
                // located at the statement.
                let binding = respan(quote!(let #mutability #name #annotation =), span);
                quote!(#binding #rhs;)
            }
            StmtKind::Assign { var, op, value } => {
                let name = &self.body.vars[*var].name;
                let value = self.op(value);
                let op = assign_token(*op, span);
                respan(quote!(#name #op #value;), span)
            }
            StmtKind::IndexAssign {
                array,
                index,
                op,
                value,
            } => {
                let name = &self.body.vars[*array].name;
                let place = match self.primal_local(*array, index) {
                    Some(local) => local,
                    None => self.place(quote!(#name), index, true, false),
                };
                let value = self.op(value);
                let op = assign_token(*op, span);
                respan(quote!(#place #op #value;), span)
            }
            StmtKind::VecOp { vec, op } => respan(self.fwd_vec_op(*vec, op), span),
            StmtKind::Opaque { tokens, .. } => tokens.clone(),
            StmtKind::If {
                cond,
                then,
                els,
                phis,
            } => self.fwd_if(cond, then, els, phis),
            StmtKind::Loop(l) => self.fwd_loop(l),
        }
    }

    fn fwd_if(
        &self,
        cond: &Operand,
        then: &Block,
        els: &Block,
        phis: &[crate::ir::Phi],
    ) -> TokenStream {
        let cond = self.op(cond);
        let then_body = self.fwd_block(then);
        let else_body = self.fwd_block(els);
        if phis.is_empty() {
            if else_body.is_empty() {
                return quote!(if #cond { #then_body });
            }
            return quote!(if #cond { #then_body } else { #else_body });
        }
        let then_vals = phis.iter().map(|p| self.op(&p.then));
        let else_vals = phis.iter().map(|p| self.op(&p.els));
        let (then_vals, else_vals) = if phis.len() == 1 {
            (quote!(#(#then_vals)*), quote!(#(#else_vals)*))
        } else {
            (quote!((#(#then_vals),*)), quote!((#(#else_vals),*)))
        };
        let expr = quote!(if #cond { #then_body #then_vals } else { #else_body #else_vals });
        let names: Vec<&syn::Ident> = phis.iter().map(|p| &self.body.vars[p.var].name).collect();
        let hoisted = phis
            .iter()
            .any(|p| self.plan.restore[p.var] == Restore::Hoist);
        match (names.as_slice(), hoisted) {
            ([one], false) => {
                let annotation = self.float_annotation(phis[0].var);
                quote!(let #one #annotation = #expr;)
            }
            ([one], true) => quote!(#one = #expr;),
            (many, false) => {
                let types = phis.iter().map(|p| match self.float_annotation(p.var) {
                    Some(annotation) => {
                        let ty = annotation.into_iter().skip(1);
                        quote!(#(#ty)*)
                    }
                    None => quote!(_),
                });
                quote!(let (#(#many),*): (#(#types),*) = #expr;)
            }
            (many, true) => quote!((#(#many),*) = #expr;),
        }
    }

    fn fwd_loop(&self, l: &crate::ir::Loop) -> TokenStream {
        if let Some(c) = self.checkpointed(l) {
            return self.checkpoint_forward(&c);
        }
        let lp = self.loop_plan(l.trips);
        let trips = &self.body.vars[l.trips].name;
        let count_init = if lp.count {
            if self.plan.restore[l.trips] == Restore::Hoist {
                quote!(#trips = 0;)
            } else {
                quote!(let mut #trips = 0usize;)
            }
        } else {
            TokenStream::new()
        };
        let count = lp.count.then(|| quote!(#trips += 1;));
        let reset = l.cont.map(|c| {
            let c = &self.body.vars[c].name;
            quote!(#c = false;)
        });
        let exit = (!l.exits.is_empty()).then(|| {
            let flags = l.exits.iter().map(|f| &self.body.vars[*f].name);
            quote!(if #(#flags)||* { break; })
        });
        // An inner range loop shaped for LLVM (see `inner`): its arrays resliced, an element
        // at an index it does not change in a local.
        if let (Some(shaping), LoopKind::Range(r)) = (self.forward_shape(l), &l.kind) {
            let mut rebased = self.rebased.clone();
            if let Some(j) = r.var {
                rebased.extend(shaping.rebased.iter().map(|&(a, k)| (a, k, j, false)));
            }
            let mut primal_held = self.primal_held.clone();
            primal_held.extend(shaping.held.iter().map(|&(a, i, _)| {
                let name = &self.body.vars[a].name;
                (a, i, inner::hoisted_name(name, &self.body.vars[i].name))
            }));
            let within = Emitter {
                adj: self.adj.clone(),
                held: self.held.clone(),
                rebased,
                primal_held,
                ..*self
            };
            let body = within.fwd_block(&l.body);
            let var = self.loop_var(r.var);
            let range = &r.range.expr;
            let for_loop = quote!(for #var in #range { #reset #body #count #exit });
            let shaped = self.shaped_forward(&shaping, for_loop);
            return quote!(#count_init #shaped);
        }
        let body = self.fwd_block(&l.body);
        let inner = quote!(#reset #body #count #exit);
        let head = match &l.kind {
            LoopKind::While { cond } => {
                let cond = &cond.expr;
                quote!(while #cond)
            }
            LoopKind::Infinite => quote!(loop),
            LoopKind::Range(r) => {
                let var = self.loop_var(r.var);
                let range = &r.range.expr;
                quote!(for #var in #range)
            }
        };
        quote!(#count_init #head { #inner })
    }

    /// The forward sweep of a loop's body then its reverse sweep, in one scope: the values
    /// the block would save are still in scope, so they are neither pushed nor popped (what
    /// the reverse reads is what the pops would have restored). Its nested blocks push and
    /// pop as usual.
    ///
    /// When its last loop fuses too (`fuse::inner_loop`): the forward sweep of the statements
    /// before that loop, the adjoints' declarations, the reverse of the statements after the
    /// loop, the loop fused, their forward sweep, then the recomputations and the reverse of
    /// the statements before the loop.
    pub(super) fn fused_iteration(&self, body: &Block) -> TokenStream {
        let Some(at) = fuse::inner_loop(self.body, self.plan, body) else {
            let forward = body.stmts.iter().map(|s| self.fwd_stmt(s));
            let prologue = self.prologue(body, false);
            let reverse = body.stmts.iter().rev().map(|s| self.rev_stmt(s));
            return quote!(#(#forward)* #prologue #(#reverse)*);
        };
        let (before, after) = (&body.stmts[..at], &body.stmts[at + 1..]);
        let forward_before = before.iter().map(|s| self.fwd_stmt(s));
        let decls = self.adjoint_decls(body, |_| true);
        let reverse_after = after.iter().rev().map(|s| self.rev_stmt(s));
        let fused = match &body.stmts[at].kind {
            StmtKind::Loop(l) => self.fused_inner_loop(l),
            _ => TokenStream::new(),
        };
        let forward_after = after.iter().map(|s| self.fwd_stmt(s));
        let recomputes = self.recomputes(body, false);
        let reverse_before = before.iter().rev().map(|s| self.rev_stmt(s));
        quote! {
            #(#forward_before)* #decls #(#reverse_after)* #fused #(#forward_after)*
            #recomputes #(#reverse_before)*
        }
    }

    pub(in crate::codegen) fn loop_var(&self, var: Option<VarId>) -> TokenStream {
        match var {
            Some(v) => {
                let name = &self.body.vars[v].name;
                quote!(#name)
            }
            None => quote!(_),
        }
    }

    fn loop_plan(&self, trips: VarId) -> LoopPlan {
        self.plan.loops.get(&trips).copied().unwrap_or_default()
    }

    // ---- reverse sweep --------------------------------------------------------------------

    /// The reverse of `block`: restore its values, declare its adjoints, then the reverse of
    /// its statements, last first. `head` goes after the declarations (seeds, phi adjoints).
    pub(super) fn rev_block(&self, block: &Block, head: TokenStream) -> TokenStream {
        let prologue = self.prologue(block, true);
        let stmts: Vec<TokenStream> = block.stmts.iter().rev().map(|s| self.rev_stmt(s)).collect();
        quote!(#prologue #head #(#stmts)*)
    }

    /// Pops and recomputations (unless `pop` is false: in a fused loop, the block's values
    /// are still in scope), and adjoint declarations at the start of the reverse of `block`.
    pub(in crate::codegen) fn prologue(&self, block: &Block, pop: bool) -> TokenStream {
        let stack = stack();
        let saves = match pop {
            true => self.plan.saves_of(block.id),
            false => &[],
        };
        let pops = saves.iter().rev().map(|&v| {
            let name = &self.body.vars[v].name;
            // A snapshot of a 2-D array of constants (`let __q_old = q;`, before a later
            // write to `q`) is typed like that constant too.
            let (def, witness) = match self.plan.defs.get(&v) {
                Some(Rhs::Copy(Operand::Var(src)))
                    if matches!(self.plan.defs.get(src), Some(Rhs::Opaque(o)) if o.reads.is_empty()) =>
                {
                    (self.plan.defs.get(src), None)
                }
                Some(Rhs::Copy(Operand::Var(src))) if self.body.witness(*src).is_some() => {
                    (self.plan.defs.get(src), self.body.witness(*src))
                }
                def => (def, self.body.witness(v)),
            };
            match &self.body.vars[v].ty {
                // A copy of a part of a parameter: typed like the part.
                Ty::Array(info) if info.agg => match def {
                    // (`let mut m: Model = Default::default();`: the type as written.)
                    _ if self.body.declared_type(v).is_some() => {
                        let ty = self.aggregate_type(v);
                        quote!(let #name: #ty = #stack.pop_any::<#ty>();)
                    }
                    Some(Rhs::Index(root, path)) => {
                        let root = &self.body.vars[*root].name;
                        let path = self.path(path);
                        quote! {
                            let #name = #stack.pop_any();
                            ::revad::__private::same_type(&#name, &#root #path);
                        }
                    }
                    // A 2-D array of constants (`[[0.0; D]; T]`): typed like the constant,
                    // its literals suffixed with the element type (an untyped `[[0.0; D]; T]`
                    // would leave the adjoint's element type open: E0282 at `-adj[i][j]`).
                    // A nested `vec!` with lengths from variables: typed like its empty
                    // witness (`vec![vec![0.0; n]; m]`).
                    Some(Rhs::Opaque(_)) if witness.is_some() => {
                        let t = info.elem.unwrap_or(self.sig.default_float);
                        let value = witness.map(|w| super::tokens::typed_float_literals(w, t));
                        quote! {
                            let #name = #stack.pop_any();
                            ::revad::__private::same_type(&#name, &#value);
                        }
                    }
                    Some(Rhs::Opaque(opaque)) if opaque.reads.is_empty() => {
                        let t = info.elem.unwrap_or(self.sig.default_float);
                        let value = super::tokens::typed_float_literals(&opaque.expr, t);
                        quote! {
                            let #name = #stack.pop_any();
                            ::revad::__private::same_type(&#name, &#value);
                        }
                    }
                    _ => match self.returned_witness(v) {
                        Some(witness) => quote! {
                            let #name =
                                ::revad::__private::pop_returned(&mut *#stack, || #witness);
                        },
                        None => {
                            let ty = self.aggregate_type(v);
                            quote!(let #name: #ty = #stack.pop_any::<#ty>();)
                        }
                    },
                },
                Ty::Array(info) => {
                    let t = info.elem.unwrap_or(self.sig.default_float).ident();
                    match &info.shape {
                        Shape::Fixed(n) => {
                            quote!(let #name: [#t; #n] = #stack.pop_array::<#t, { #n }>();)
                        }
                        Shape::Like(p) if self.fixed_param(*p).is_some() => {
                            let n = self.fixed_param(*p);
                            quote!(let #name: [#t; #n] = #stack.pop_array::<#t, { #n }>();)
                        }
                        _ => match self.result_type(v) {
                            // A call's result: an array or a `Vec`, as the callee returns it.
                            Some(ty) => {
                                quote!(let #name: #ty = ::revad::__private::restore(&mut *#stack);)
                            }
                            None => match self.method_result(v) {
                                Some(result) => quote! {
                                    let #name = ::revad::__private::restore_result(
                                        &mut *#stack, #result);
                                },
                                // A method's result on a local receiver (`n.rotate(v)`):
                                // typed by the method's call on the receiver's witness.
                                None => match self.local_method_witness(v) {
                                    Some(witness) => quote! {
                                        let #name = ::revad::__private::restore_result(
                                            &mut *#stack, &(), |_| #witness);
                                    },
                                    None => quote!(let #name = #stack.pop_vec::<#t>();),
                                },
                            },
                        },
                    }
                }
                // A value of a type of the user's, named by its `let`.
                Ty::Other if self.declared_other(v).is_some() => {
                    let ty = self.declared_other(v);
                    quote!(let #name: #ty = #stack.pop_any::<#ty>();)
                }
                _ => {
                    let ty = self.record_type(v);
                    quote!(let #name = #stack.pop::<#ty>();)
                }
            }
        });
        let recomputes = self.recomputes(block, pop);
        let decls = self.adjoint_decls(block, |_| true);
        quote!(#(#pops)* #recomputes #decls)
    }

    /// The recomputations at the start of the reverse of `block` (in a fused loop, `pop`
    /// false, only of its mutable values and fused partials).
    pub(super) fn recomputes(&self, block: &Block, pop: bool) -> TokenStream {
        let recomputes = self.plan.recomputes_of(block.id);
        let recomputes = recomputes.iter().filter_map(|&v| {
            let rhs = self.plan.defs.get(&v)?;
            // (In a fused loop, the iteration's values are still in scope, unchanged unless
            // mutable: only those and a fused partial, `__dN`, are computed here.)
            if !pop && !self.body.vars[v].mutable && self.fused_partial(v).is_none() {
                return None;
            }
            let name = &self.body.vars[v].name;
            if let Some((fused, partial)) = self.fused_partial(v) {
                // `let (__t1, __d1) = rules::sin_and_d(__t0);`: one `sin_cos` for the value
                // and the partial the reverse of this statement needs.
                let Rhs::Intrinsic(_, args) = rhs else {
                    return None;
                };
                let arg = self.op(args.first()?);
                let fused = syn::Ident::new(fused, Span::call_site());
                return Some(
                    quote!(let (#name, #partial) = ::revad::__private::rules::#fused(#arg);),
                );
            }
            let annotation = self.constant_type(v, rhs);
            // Located where the value is computed in the user's code.
            let at = self.body.vars[v].span;
            let rhs = self.fwd_rhs(v, rhs, at);
            Some(respan(quote!(let #name #annotation = #rhs;), at))
        });
        quote!(#(#recomputes)*)
    }

    /// The declarations of the adjoints that start at the reverse of `block`, of the
    /// variables `keep` selects.
    pub(in crate::codegen) fn adjoint_decls(
        &self,
        block: &Block,
        keep: impl Fn(VarId) -> bool,
    ) -> TokenStream {
        let decls = self.plan.adj_starts_of(block.id);
        let decls = decls
            .iter()
            .filter(|&&v| !self.is_sink(v) && keep(v))
            .map(|&v| {
                let adj = &self.adj[v];
                let zero = self.adjoint_zero(v);
                quote!(let mut #adj = #zero;)
            });
        quote!(#(#decls)*)
    }

    /// The length of the parameter `p` when it is a fixed-size array (`[f64; N]`).
    fn fixed_param(&self, p: VarId) -> Option<&TokenStream> {
        let index = self.body.vars[p].param?;
        match &self.sig.params[index].kind {
            crate::parse::ParamKind::Array { len, .. } => Some(len),
            _ => None,
        }
    }

    /// The type of `v` when it is the result of a call (or a part of it):
    /// `<__callee0 as ReturnsAt<f64>>::Output`,
    /// `<<__callee0 as ReturnsAt<f64>>::Output as PartOf<1>>::Part`.
    fn result_type(&self, v: VarId) -> Option<TokenStream> {
        let returns = |t: VarId| match self.plan.defs.get(&t) {
            Some(Rhs::Call(call)) => {
                let callee = &self.body.callees[call.callee];
                // (A method's result type is not named by a marker struct.)
                if callee.kind != crate::ir::CalleeKind::Function {
                    return None;
                }
                let alias = &callee.alias;
                // The callee may be generic: its return type at the float type of `v`.
                let t = self.float_of(v).ident();
                // (At the callee: where a const-generic callee's missing type is reported.)
                Some(
                    quote_spanned!(callee.span=> <#alias as ::revad::__private::ReturnsAt<#t>>::Output),
                )
            }
            _ => None,
        };
        match self.plan.defs.get(&v)? {
            Rhs::Call(_) => returns(v),
            Rhs::Part(t, k) => {
                let whole = returns(*t)?;
                Some(quote!(<#whole as ::revad::__private::PartOf<#k>>::Part))
            }
            _ => None,
        }
    }

    /// For `v` the result of a method called on a parameter or a part of one at constant
    /// indices (`m.step(x)`, `self.l2.forward(h)`), the arguments of `restore_result` that
    /// name its type: `&m, |__r| __r.step(unreachable!())`. (A method
    /// has no marker struct; the parameter is in scope wherever `v` is popped.)
    fn method_result(&self, v: VarId) -> Option<TokenStream> {
        let Some(Rhs::Call(call)) = self.plan.defs.get(&v) else {
            return None;
        };
        let callee = &self.body.callees[call.callee];
        let crate::ir::CalleeKind::Method(method) = &callee.kind else {
            return None;
        };
        let Some(Operand::Var(receiver)) = call.args.first() else {
            return None;
        };
        // The parameter itself, or a part of it at constant indices (`self.l2.forward(h)`;
        // not `layer.apply(..)` over `&self.layers`, whose index is out of scope there).
        let part = match call.paths.first() {
            Some(Some(path)) => {
                let constant = path
                    .operands()
                    .iter()
                    .all(|i| matches!(i, Operand::Lit(..)));
                if !constant
                    || path
                        .0
                        .iter()
                        .any(|s| matches!(s, crate::ir::Step::Variant(_)))
                {
                    return None;
                }
                self.path(path)
            }
            _ => TokenStream::new(),
        };
        self.body.vars[*receiver].param?;
        let receiver = &self.body.vars[*receiver].name;
        let r = format_ident!("__r", span = Span::mixed_site());
        let args = (1..callee.arity).map(|_| quote!(::core::unreachable!()));
        Some(quote!(&#receiver #part, |#r| #r.#method(#(#args),*)))
    }

    /// For `v` the array result of a method of a local value (`let n = q.id(); n.arr()`):
    /// the method's call on a witness of the receiver (see [`Self::witness`]), never
    /// evaluated, which names the array's type.
    fn local_method_witness(&self, v: VarId) -> Option<TokenStream> {
        let Some(Rhs::Call(call)) = self.plan.defs.get(&v) else {
            return None;
        };
        let callee = &self.body.callees[call.callee];
        match callee.kind {
            crate::ir::CalleeKind::Method(_) if callee.rule.is_none() => self.witness(v),
            _ => None,
        }
    }

    /// For `v` the struct result of an associated function or a method (`Point::new(a, b)`,
    /// `p.step(dt)`), or a copy of one: an expression of its type, for a closure that is
    /// never called (see [`Self::witness`]). `None` for other values (typed otherwise).
    fn returned_witness(&self, v: VarId) -> Option<TokenStream> {
        if self.body.vars[v].param.is_some() {
            return None;
        }
        match self.plan.defs.get(&v)? {
            Rhs::Copy(Operand::Var(w)) => self.returned_witness(*w),
            Rhs::Call(call) => {
                let callee = &self.body.callees[call.callee];
                match callee.kind {
                    crate::ir::CalleeKind::Associated | crate::ir::CalleeKind::Method(_)
                        if callee.rule.is_none() =>
                    {
                        self.witness(v)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// An expression of the type of the aggregate `v`, never evaluated: a call whose
    /// arguments diverge (`Point::new(diverge(), diverge())`), a method of such a value
    /// (`diverge::<Body>().step(diverge())`), or `diverge::<T>()` where the type `T` is
    /// named (a parameter's, a struct expression's, a function's result). It names the type
    /// of a value that the caller's code need not write, where a callee has no marker struct.
    fn witness(&self, v: VarId) -> Option<TokenStream> {
        let diverge = quote!(::revad::__private::diverge);
        let of_type = |ty: TokenStream| Some(quote!(#diverge::<#ty>()));
        // (A variable bound with its type: `let a: V2 = b.pos;`.)
        if let Some(ty) = self.body.declared_type(v) {
            return of_type(ty.clone());
        }
        if let Some(p) = self.body.vars[v].param {
            if let crate::parse::ParamKind::Aggregate { ty } = &self.sig.params[p].kind {
                return of_type(quote!(<#ty as ::revad::__private::AggInOut>::Owned));
            }
            return None;
        }
        match self.plan.defs.get(&v)? {
            Rhs::Copy(Operand::Var(w)) => self.witness(*w),
            // `M::default()`: a value of the type, made again (it reads nothing).
            Rhs::Opaque(opaque) if opaque.reads.is_empty() => {
                let expr = &opaque.expr;
                Some(quote!((#expr)))
            }
            Rhs::StructLit(lit) => of_type(match &lit.variant {
                Some(variant) => variant.enum_ty.clone(),
                None => lit.path.clone(),
            }),
            Rhs::Call(call) => {
                let callee = &self.body.callees[call.callee];
                if callee.rule.is_some() {
                    return None;
                }
                let args = (0..callee.arity).map(|_| quote!(#diverge()));
                match &callee.kind {
                    crate::ir::CalleeKind::Associated => {
                        let path = &callee.path;
                        Some(quote!(#path(#(#args),*)))
                    }
                    crate::ir::CalleeKind::Method(method) => {
                        let mut receiver = self.witness(call.args.first()?.var()?)?;
                        // (A part of the receiver, `ps[i].pos.sub(q)`, `self.l2.forward(h)`:
                        // `(..)[0usize]` for an element, `.pos` for a field, which the user's
                        // code reads here too; not a variant's.)
                        if let Some(Some(path)) = call.paths.first() {
                            for step in &path.0 {
                                match step {
                                    crate::ir::Step::Index(_) => {
                                        receiver = quote!((#receiver)[0usize]);
                                    }
                                    crate::ir::Step::Field(member) => {
                                        receiver = quote!((#receiver).#member);
                                    }
                                    crate::ir::Step::Variant(_) => return None,
                                }
                            }
                        }
                        let args = args.skip(1);
                        Some(quote!((#receiver).#method(#(#args),*)))
                    }
                    crate::ir::CalleeKind::Function => of_type(self.result_type(v)?),
                }
            }
            _ => None,
        }
    }

    /// The type the `let` of `v` names, when `v` is a value of a type of the user's without
    /// derivatives (`let m: Mode = ..;`), which the stack keeps whole.
    fn declared_other(&self, v: VarId) -> Option<&TokenStream> {
        match self.body.vars[v].ty {
            Ty::Other => self.body.declared_type(v),
            _ => None,
        }
    }

    /// The type of the aggregate `v` that the reverse sweep pops (`plan` checks that there
    /// is one): a call's result, or a struct expression's path.
    fn aggregate_type(&self, v: VarId) -> TokenStream {
        if let Some(ty) = self.body.declared_type(v) {
            return ty.clone();
        }
        if let Some(p) = self.body.vars[v].param {
            if let crate::parse::ParamKind::Aggregate { ty } = &self.sig.params[p].kind {
                return quote!(<#ty as ::revad::__private::AggInOut>::Owned);
            }
        }
        if let Some(ty) = self.rule_result_type(v) {
            return ty;
        }
        match (self.result_type(v), self.plan.defs.get(&v)) {
            (Some(ty), _) => ty,
            (None, Some(Rhs::StructLit(lit))) => match &lit.variant {
                Some(variant) => variant.enum_ty.clone(),
                None => lit.path.clone(),
            },
            (None, Some(Rhs::Copy(Operand::Var(w)))) => self.aggregate_type(*w),
            _ => quote!(_),
        }
    }

    /// The type of the result of a rule of the runtime (`let t = m * v;`, see
    /// `ir::lower::linalg`), from the types of its operands:
    /// `linalg::BinaryOutput<linalg::op::Mul, Matrix3<f64>, Vector3<f64>>`.
    fn rule_result_type(&self, v: VarId) -> Option<TokenStream> {
        let Some(Rhs::Call(call)) = self.plan.defs.get(&v) else {
            return None;
        };
        let callee = &self.body.callees[call.callee];
        let marker = callee.rule.clone()?;
        if marker == crate::ir::lower::linalg::ENTRIES_MARKER {
            return self.constructed_type(&callee.path, v);
        }
        let args: Vec<TokenStream> = call
            .args
            .iter()
            .map(|a| match a {
                Operand::Var(w) if self.is_aggregate(*w) => self.aggregate_type(*w),
                Operand::Var(w) => quote::ToTokens::into_token_stream(self.float_of(*w).ident()),
                Operand::Lit(..) => {
                    quote::ToTokens::into_token_stream(self.sig.default_float.ident())
                }
            })
            .collect();
        let linalg = quote!(::revad::__private::linalg);
        Some(match args.as_slice() {
            [a] => quote!(#linalg::UnaryOutput<#linalg::op::#marker, #a>),
            [a, b] => quote!(#linalg::BinaryOutput<#linalg::op::#marker, #a, #b>),
            _ => return None,
        })
    }

    /// The matrix type a constructor rule (`linalg::Entries::<Vector3<_>>::new`, see
    /// `ir::lower::linalg`) makes, at the float type of its result `v`: `Vector3<f64>`.
    fn constructed_type(&self, path: &TokenStream, v: VarId) -> Option<TokenStream> {
        use syn::visit_mut::VisitMut;
        struct Float(syn::Ident);
        impl VisitMut for Float {
            fn visit_type_mut(&mut self, ty: &mut syn::Type) {
                if let syn::Type::Infer(_) = ty {
                    let t = &self.0;
                    *ty = syn::parse_quote!(#t);
                }
                syn::visit_mut::visit_type_mut(self, ty);
            }
        }
        let path = syn::parse2::<syn::Path>(path.clone()).ok()?;
        let segment = path.segments.iter().find(|s| s.ident == "Entries")?;
        let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
            return None;
        };
        let Some(syn::GenericArgument::Type(ty)) = args.args.first() else {
            return None;
        };
        let mut ty = ty.clone();
        Float(self.float_of(v).ident()).visit_type_mut(&mut ty);
        Some(quote!(#ty))
    }

    /// The type a saved value is popped as.
    fn record_type(&self, v: VarId) -> TokenStream {
        match &self.body.vars[v].ty {
            Ty::Float(Some(t)) => {
                let t = t.ident();
                quote!(#t)
            }
            Ty::Float(None) => quote!(f64),
            Ty::Usize => quote!(usize),
            Ty::I32 => quote!(i32),
            Ty::Bool => quote!(bool),
            // Lowering gives every value the reverse sweep reads one of the types above.
            Ty::Array(_) | Ty::Other | Ty::Unknown => quote!(usize),
        }
    }

    /// The zero an adjoint starts from: `0.0`, or an array of zeros of the value's shape.
    pub(in crate::codegen) fn adjoint_zero(&self, v: VarId) -> TokenStream {
        let var = &self.body.vars[v];
        match &var.ty {
            Ty::Array(info) => {
                let zero = super::tokens::zero(info.elem.unwrap_or(crate::ir::FloatTy::F64));
                match &info.shape {
                    Shape::Fixed(n) => quote!([#zero; #n]),
                    Shape::Len(n) => {
                        let n = self.op(n);
                        quote!(::std::vec![#zero; #n])
                    }
                    Shape::Like(p) => {
                        let name = &self.body.vars[*p].name;
                        let zeros = quote!(::revad::__private::zeros_like(&#name));
                        // A parameter's type without an adjoint is reported at the type, as in
                        // the signature (one error): `<P as ::revad::Adjoint>::zero_adjoint(&p)`.
                        let param = self.body.vars[*p].param.map(|i| &self.sig.params[i].kind);
                        match param {
                            Some(crate::parse::ParamKind::Aggregate { ty }) if info.agg => {
                                let zero = crate::parse::adjoint_fn(ty, "zero_adjoint");
                                let at = crate::parse::type_span(ty);
                                super::tokens::at_user(quote!(#zero(&#name)), at)
                            }
                            // A local of a type without an adjoint (`let m = Lin { .. }`):
                            // reported at the local.
                            None if info.agg => {
                                super::tokens::at_user(zeros, self.body.vars[*p].span)
                            }
                            _ => zeros,
                        }
                    }
                    Shape::Place(p, path) => {
                        let name = &self.body.vars[*p].name;
                        let place = self.place(quote!(#name), path, false, false);
                        quote!(::revad::__private::zeros_like(&#place))
                    }
                }
            }
            Ty::Float(Some(t)) => super::tokens::zero(*t),
            _ => super::tokens::zero_untyped(self.sig.default_float),
        }
    }

    /// The zeros of the adjoint of the part `path` of the aggregate `v`, whose type may be a
    /// struct's adjoint (no `Default` for `[T; 33]` or an enum's): `zeros_like` of the same
    /// part of the value that gives `v`'s adjoint its shape, which the reverse sweep has
    /// where `v` itself may be gone (a split reverse); a part keeps its shape while the
    /// aggregate lives.
    fn part_zeros(&self, v: VarId, path: &crate::ir::Path) -> TokenStream {
        let name = |v: VarId| {
            let name = &self.body.vars[v].name;
            quote!(#name)
        };
        let base = match &self.body.vars[v].ty {
            Ty::Array(info) => match &info.shape {
                Shape::Like(p) => name(*p),
                Shape::Place(p, outer) => self.place(name(*p), outer, false, false),
                _ => name(v),
            },
            _ => name(v),
        };
        let place = self.place(base, path, false, false);
        quote!(::revad::__private::zeros_like(&#place))
    }

    /// The reverse of `stmt`, located at the user's statement: when the user's code does not
    /// type-check, the same error in the adjoint code points there, not at the attribute.
    pub(in crate::codegen) fn rev_stmt(&self, stmt: &Stmt) -> TokenStream {
        let tokens = self.rev_stmt_tokens(stmt);
        match &stmt.kind {
            // Blocks keep the spans of their own statements.
            StmtKind::If { .. } | StmtKind::Loop(_) => tokens,
            _ => respan(tokens, stmt.span),
        }
    }

    fn rev_stmt_tokens(&self, stmt: &Stmt) -> TokenStream {
        match &stmt.kind {
            StmtKind::Let {
                var,
                rhs: rhs @ (Rhs::Pop(_) | Rhs::Remove(..)),
                ..
            } => self.rev_take(*var, rhs).unwrap_or_default(),
            StmtKind::VecOp { vec, op } if self.plan.active(*vec) => self.rev_vec_op(*vec, op),
            StmtKind::Let { var, rhs, .. } if self.plan.activity.live(*var, rhs) => {
                self.rev_rhs(*var, rhs, stmt.span)
            }
            StmtKind::Assign { var, op, value } if self.plan.active(*var) => {
                let adj = &self.adj[*var];
                match op {
                    AssignOp::Set => {
                        if value.var() == Some(*var) {
                            return TokenStream::new();
                        }
                        let contrib = self.contrib(value, quote!(#adj), false);
                        let zero = super::tokens::zero_untyped(self.float_of(*var));
                        quote!(#contrib #adj = #zero;)
                    }
                    AssignOp::Add => self.contrib(value, quote!(#adj), false),
                    AssignOp::Sub => self.contrib(value, quote!(#adj), true),
                }
            }
            StmtKind::IndexAssign {
                array,
                index,
                op,
                value,
            } if self.plan.active(*array) => {
                let element = self.adj_place(*array, index);
                match op {
                    AssignOp::Set => {
                        let contrib = self.contrib(value, element.clone(), false);
                        // (A float in an aggregate has a type rustc knows: its default is its
                        // zero. Any other part's zeros come from a value of its shape.)
                        let float = match value {
                            Operand::Var(v) => self.body.vars[*v].ty.is_float(),
                            Operand::Lit(_, kind) => matches!(kind, crate::ir::LitKind::Float(_)),
                        };
                        let zero = match self.is_aggregate(*array) {
                            true if float => quote!(::core::default::Default::default()),
                            true => self.part_zeros(*array, index),
                            false => super::tokens::zero_untyped(self.float_of(*array)),
                        };
                        quote!(#contrib #element = #zero;)
                    }
                    AssignOp::Add => self.contrib(value, element, false),
                    AssignOp::Sub => self.contrib(value, element, true),
                }
            }
            StmtKind::Opaque { writes, .. } => {
                // An inactive value overwrites an active variable: its adjoint stops there.
                let resets = writes
                    .iter()
                    .filter(|w| self.plan.active(**w) && self.body.vars[**w].ty.is_float())
                    .map(|w| {
                        let adj = &self.adj[*w];
                        let zero = super::tokens::zero_untyped(self.float_of(*w));
                        quote!(#adj = #zero;)
                    });
                quote!(#(#resets)*)
            }
            StmtKind::If {
                cond,
                then,
                els,
                phis,
            } => {
                if !self.plan.if_work.get(&then.id).copied().unwrap_or(false) {
                    return TokenStream::new();
                }
                let cond = self.op(cond);
                let phi_then: TokenStream = phis
                    .iter()
                    .filter(|p| self.plan.active(p.var))
                    .map(|p| {
                        let adj = &self.adj[p.var];
                        self.contrib(&p.then, quote!(#adj), false)
                    })
                    .collect();
                let phi_else: TokenStream = phis
                    .iter()
                    .filter(|p| self.plan.active(p.var))
                    .map(|p| {
                        let adj = &self.adj[p.var];
                        self.contrib(&p.els, quote!(#adj), false)
                    })
                    .collect();
                let then_rev = self.rev_block(then, phi_then);
                let else_rev = self.rev_block(els, phi_else);
                match (then_rev.is_empty(), else_rev.is_empty()) {
                    (_, true) => quote!(if #cond { #then_rev }),
                    (true, false) => quote!(if !#cond { #else_rev }),
                    (false, false) => quote!(if #cond { #then_rev } else { #else_rev }),
                }
            }
            StmtKind::Loop(l) => {
                if let Some(c) = self.checkpointed(l) {
                    return self.checkpoint_reverse(&c);
                }
                let lp = self.loop_plan(l.trips);
                if !lp.rev_work {
                    return TokenStream::new();
                }
                let trips = &self.body.vars[l.trips].name;
                match (&l.kind, lp.regen) {
                    (LoopKind::Range(r), true) => {
                        let var = self.loop_var(r.var);
                        let iter = match (plan::reversed(r), lp.count) {
                            (Some(reversed), false) => reversed,
                            _ => {
                                let range = &r.range.expr;
                                let body = self.rev_block(&l.body, TokenStream::new());
                                return quote!(for #var in ::revad::__private::replay_rev(#range, #trips) { #body });
                            }
                        };
                        // Bounds checks once before the loop, invariant adjoints in locals.
                        let Some(shaping) = self.shape(l) else {
                            let body = self.rev_block(&l.body, TokenStream::new());
                            return quote!(for #var in #iter { #body });
                        };
                        let mut held = self.held.clone();
                        held.extend(shaping.hoisted.iter().map(|&(a, i)| {
                            let local = inner::hoisted_name(&self.adj[a], &self.body.vars[i].name);
                            (a, i, local)
                        }));
                        let mut rebased = self.rebased.clone();
                        if let Some(j) = r.var {
                            rebased
                                .extend(shaping.rebased.iter().map(|&(a, k, adj)| (a, k, j, adj)));
                        }
                        let within = Emitter {
                            adj: self.adj.clone(),
                            held,
                            rebased,
                            primal_held: self.primal_held.clone(),
                            ..*self
                        };
                        let body = within.rev_block(&l.body, TokenStream::new());
                        self.shaped_loop(&shaping, quote!(for #var in #iter { #body }))
                    }
                    _ => {
                        let body = self.rev_block(&l.body, TokenStream::new());
                        quote!(for _ in 0..#trips { #body })
                    }
                }
            }
            _ => TokenStream::new(),
        }
    }

    /// Adds `seed` into the adjoints of `output` (in CPS mode, into its cells: the reset at
    /// the end of the body), checking a `Vec` seed's length.
    pub(in crate::codegen) fn seed_output(
        &self,
        output: &Output,
        seed: TokenStream,
        ret: &RetTy,
        function: &str,
    ) -> TokenStream {
        match output {
            Output::Scalar(op) => self.contrib(op, seed, false),
            // (Its seed is `()`: nothing flows back from it.)
            Output::Inactive(_) => TokenStream::new(),
            Output::ArrayVar(v) => {
                if !self.plan.active(*v) {
                    return TokenStream::new();
                }
                // The adjoint has the output's shape (and exists in both sweeps).
                let adj = match self.in_cells() {
                    true => super::tokens::cell_of(*v),
                    false => self.adj[*v].clone(),
                };
                let check = matches!(ret, RetTy::Vec(_)).then(
                    || quote!(::revad::__private::check_seed_len(#function, #seed.len(), #adj.len());),
                );
                let add = match self.in_cells() || self.is_aggregate(*v) {
                    true => self.contrib(&Operand::Var(*v), seed, false),
                    false => quote!(::revad::__private::add_assign(&mut #adj, &#seed);),
                };
                quote!(#check #add)
            }
            Output::Tuple(_) => {
                // The scalar parts together: the same variable returned twice (`(s, s)`)
                // gets the sum of their seeds, not the last one.
                let mut scalars = Vec::new();
                let mut others = TokenStream::new();
                self.tuple_seeds(output, seed, ret, function, &mut scalars, &mut others);
                let items: Vec<(&Operand, TokenStream, bool)> = scalars
                    .iter()
                    .map(|(op, s)| (*op, s.clone(), false))
                    .collect();
                let scalars = self.contribs(&items);
                quote!(#scalars #others)
            }
        }
    }

    /// The seeds of the scalar parts of a tuple output (nested tuples included), and the
    /// seeding of its other parts.
    fn tuple_seeds<'b>(
        &self,
        output: &'b Output,
        seed: TokenStream,
        ret: &RetTy,
        function: &str,
        scalars: &mut Vec<(&'b Operand, TokenStream)>,
        others: &mut TokenStream,
    ) {
        match (output, ret) {
            (Output::Scalar(op), _) => scalars.push((op, seed)),
            (Output::Tuple(items), RetTy::Tuple(types)) => {
                for (k, (item, ty)) in items.iter().zip(types).enumerate() {
                    let k = syn::Index::from(k);
                    self.tuple_seeds(item, quote!(#seed.#k), ty, function, scalars, others);
                }
            }
            (Output::Tuple(_), _) => {}
            (other, _) => others.extend(self.seed_output(other, seed, ret, function)),
        }
    }
}

/// The initial value of a hoisted local (`def`: the operation that defines it).
fn hoisted_zero(ty: &Ty, def: Option<&Rhs>, default_float: crate::ir::FloatTy) -> TokenStream {
    match (ty, def) {
        // A 2-D array of constants (`[[0.0; D]; T]`): the constant, its literals suffixed with
        // the element type (`Default::default()` would leave the type to inference, which
        // fails at a method call on an element: E0689).
        (Ty::Array(info), Some(Rhs::Opaque(opaque))) if info.agg && opaque.reads.is_empty() => {
            let t = info.elem.unwrap_or(default_float);
            return super::tokens::typed_float_literals(&opaque.expr, t);
        }
        _ => {}
    }
    match ty {
        Ty::Array(crate::ir::ArrayInfo {
            elem: Some(t),
            shape: Shape::Fixed(n),
            agg: false,
        }) => {
            let zero = super::tokens::zero(*t);
            quote!([#zero; #n])
        }
        Ty::Float(Some(t)) => super::tokens::zero(*t),
        Ty::Usize => quote!(0usize),
        Ty::I32 => quote!(0i32),
        Ty::Bool => quote!(false),
        _ => quote!(::core::default::Default::default()),
    }
}
