//! The tape backend: `NAME_vjp` as a forward sweep followed by a reverse sweep, both plain
//! Rust (the Tapenade model; "Reverse 1" in Wang et al., ICFP 2019).
//!
//! ```text
//! // for `let z = x * y; z.sin()`
//! let z = x * y;                                     // forward sweep
//! let __t0 = z.sin();
//! let __adj_t0 = __seed;                             // reverse sweep
//! let __adj_z = __adj_t0 * ::revad::__private::rules::d_sin(z);
//! let __adj_x = __adj_z * y;
//! let __adj_y = __adj_z * x;
//! (__t0, (__adj_x, __adj_y))
//! ```
//!
//! The sweeps themselves are `codegen::sweep`'s (which the CPS backend runs its loops with),
//! the fusion of the last loop's reverse sweep into its forward sweep included
//! (`sweep::fuse`); this backend adds the split companions that other annotated functions
//! call (`split`).

pub(super) mod split;

use proc_macro2::TokenStream;
use quote::quote;

use super::shared::{Emitter, Store};
use super::sweep::fuse;
use super::tokens::{respan, return_span};
use crate::ir::plan::{AdjDecl, Plan};
use crate::ir::{Block, Body, StmtKind};
use crate::parse::{ParamKind, Signature};

/// `NAME_vjp` for `func`.
pub(super) fn emit_vjp(
    func: &syn::ItemFn,
    sig: &Signature,
    body: &Body,
    plan: &Plan,
) -> TokenStream {
    let e = Emitter::new(body, plan, sig, Store::Locals);
    let vis = &func.vis;
    let signature = super::vjp_signature(func, sig);
    let doc = super::vjp_doc(func, sig);
    let stack = stack();
    let fused = fuse::tail_loop(body, plan, sig, true);
    let stack_decl = fuse::uses_stack(body, plan, fused.as_ref())
        .then(|| quote!(let #stack: &mut ::revad::__private::ValueStack = &mut ::revad::__private::ValueStack::reused();));
    // The check that callees have derivatives is made once, here, not in the companions.
    let callees = super::callees_prelude(body, sig, true);
    let hoisted = plan.hoisted.iter().map(|&v| e.hoisted_decl(v));
    let prologue = super::inout::prologue(sig, body);
    let write_backs = super::inout::write_backs(sig, body);
    // The seed and the output are typed by the return type: located there, so that a body
    // whose value does not have that type gets its errors at the user's code.
    let at_ret = return_span(func);
    let function = format!("{}_vjp", func.sig.ident);
    let seed_outputs = e.seed_writebacks(&super::inout::vjp_seeds(sig), &function);
    let seed_output = e.seed(&function);
    let seed = respan(quote!(#seed_output #seed_outputs), at_ret);
    let (forward, reverse) = match fused {
        Some(fusion) => e.fused_sweeps(&body.block, &fusion, seed),
        None => (e.fwd_block(&body.block), e.rev_block(&body.block, seed)),
    };
    let output = respan(e.output_value(&body.output), at_ret);
    let gradient = respan(e.gradient(), at_ret);
    let primal = super::primal_path(func, sig);
    let struct_types = super::struct_type_checks(func, sig);
    let inherited = super::inherited_attrs(func);
    quote! {
        #[doc = #doc]
        #inherited
        #[allow(
            dead_code,
            unused_mut,
            unused_variables,
            unused_assignments,
            unreachable_code,
            clippy::too_many_arguments,
            clippy::type_complexity,
            reason = "generated adjoint code: declarations are uniform, not minimal, the \
                      seed is one more parameter, and the gradient is a tuple of adjoints"
        )]
        #vis #signature {
            // `NAME` is the primal of this function: calling only the gradient uses it.
            let _ = #primal;
            #struct_types
            #callees
            #prologue
            #(#hoisted)*
            #stack_decl
            #forward
            #write_backs
            #reverse
            (#output, #gradient)
        }
    }
}

use super::tokens::stack;

fn seed_ident() -> syn::Ident {
    crate::ir::names::generated("seed")
}

impl Emitter<'_> {
    /// The two sweeps of the top block `block` whose loop `fusion.at` fuses (see `fuse`).
    ///
    /// Unscaled: the forward sweep runs the statements before the loop and after it (which
    /// only define values the loop does not change: `fusion.hoisted`), declares the adjoints
    /// and seeds them (`head`), then runs the loop with each iteration's reverse right after
    /// its forward; the reverse sweep is that of the statements before the loop.
    ///
    /// Scaled: the forward sweep runs the statements before the loop and the hoisted ones,
    /// declares the adjoints the loop's reverse reaches, runs the loop with its accumulator's
    /// adjoint `1`, then the other statements after it; the reverse sweep seeds, reverses the
    /// statements after the loop, multiplies the adjoints the loop added to by the
    /// accumulator's, and reverses the statements before the loop.
    ///
    /// Pre-reversed: the forward sweep runs the statements before the loop, declares and seeds
    /// the adjoints, reverses the statements after the loop (their reverse reads nothing they
    /// or the loop compute), runs the loop fused, then the forward sweep of the statements
    /// after it; the reverse sweep is that of the statements before the loop.
    fn fused_sweeps(
        &self,
        block: &Block,
        fusion: &fuse::Fusion,
        head: TokenStream,
    ) -> (TokenStream, TokenStream) {
        let at = fusion.at;
        let before = block.stmts[..at].iter().map(|s| self.fwd_stmt(s));
        let hoisted: Vec<TokenStream> = fusion
            .hoisted
            .iter()
            .map(|&k| self.fwd_stmt(&block.stmts[k]))
            .collect();
        let after: Vec<TokenStream> = (at + 1..block.stmts.len())
            .filter(|k| !fusion.hoisted.contains(k))
            .map(|k| self.fwd_stmt(&block.stmts[k]))
            .collect();
        let reverse_before = block.stmts[..at].iter().rev().map(|s| self.rev_stmt(s));
        if fusion.pre_reversed {
            let fused = match &block.stmts[at].kind {
                StmtKind::Loop(l) => self.fused_loop(l),
                _ => TokenStream::new(),
            };
            let prologue = self.prologue(block, true);
            let reverse_after = block.stmts[at + 1..].iter().rev().map(|s| self.rev_stmt(s));
            return (
                quote!(#(#before)* #prologue #head #(#reverse_after)* #fused #(#after)*),
                quote!(#(#reverse_before)*),
            );
        }
        let Some(scaled) = &fusion.scaled else {
            let fused = match &block.stmts[at].kind {
                StmtKind::Loop(l) => self.fused_loop(l),
                _ => TokenStream::new(),
            };
            let prologue = self.prologue(block, true);
            return (
                quote!(#(#before)* #(#hoisted)* #prologue #head #fused),
                quote!(#(#reverse_before)*),
            );
        };
        let early = self.adjoint_decls(block, |v| !scaled.late.contains(&v));
        let late = self.adjoint_decls(block, |v| scaled.late.contains(&v));
        let adj = &self.adj[scaled.accumulator];
        let float = self.float_of(scaled.accumulator);
        let (one, zero) = (super::tokens::one(float), super::tokens::zero(float));
        // The loop's reverse adds into adjoints of its own for the variables it shares with
        // the statements after it.
        let mut adjoints = self.adj.clone();
        for &v in &scaled.separate {
            adjoints[v] = quote::format_ident!("{}_in_loop", self.adj[v]);
        }
        let in_loop = Emitter {
            adj: adjoints,
            held: self.held.clone(),
            rebased: self.rebased.clone(),
            primal_held: self.primal_held.clone(),
            ..*self
        };
        let fused = match &block.stmts[at].kind {
            StmtKind::Loop(l) => in_loop.fused_loop(l),
            _ => TokenStream::new(),
        };
        let separate = scaled.separate.iter().map(|&v| {
            let own = &in_loop.adj[v];
            let zero = self.adjoint_zero(v);
            quote!(let mut #own = #zero;)
        });
        let reverse_after = block.stmts[at + 1..].iter().rev().map(|s| self.rev_stmt(s));
        // (`scale_fused`: zero where the loop added nothing, whatever the adjoint, and where
        // the adjoint is zero, whatever the loop added, as each iteration's reverse would.)
        let scale = quote!(::revad::__private::rules::scale_fused);
        let scales = scaled.scale.iter().map(|&v| {
            let a = &self.adj[v];
            match self.body.vars[v].ty.is_array() {
                true => quote!(for __ad_e in #a.iter_mut() { *__ad_e = #scale(*__ad_e, #adj); }),
                false => quote!(#a = #scale(#a, #adj);),
            }
        });
        let adds = scaled.separate.iter().map(|&v| {
            let (a, own) = (&self.adj[v], &in_loop.adj[v]);
            match self.body.vars[v].ty.is_array() {
                true => quote! {
                    for (__ad_e, __ad_o) in #a.iter_mut().zip(#own.iter()) {
                        *__ad_e += #scale(*__ad_o, #adj);
                    }
                },
                false => quote!(#a += #scale(#own, #adj);),
            }
        });
        (
            quote! {
                #(#before)* #(#hoisted)* #early #(#separate)* #adj = #one; #fused #adj = #zero;
                #(#after)* #late
            },
            quote!(#head #(#reverse_after)* #(#scales)* #(#adds)* #(#reverse_before)*),
        )
    }

    // ---- seed, output, gradient -------------------------------------------------------------

    /// Seeds the adjoints of the output at the start of the reverse sweep.
    pub(super) fn seed(&self, function: &str) -> TokenStream {
        let seed = seed_ident();
        self.seed_output(&self.body.output, quote!(#seed), &self.sig.ret, function)
    }

    /// The gradient tuple: the adjoint of each active parameter.
    fn gradient(&self) -> TokenStream {
        let adjoints: Vec<TokenStream> = self
            .sig
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.active)
            .map(|(i, p)| {
                let var = &self.body.vars[i];
                if self.plan.active(i) && self.plan.adj[i] != AdjDecl::None {
                    let adj = &self.adj[i];
                    quote!(#adj)
                } else {
                    let name = &var.name;
                    match &p.kind {
                        ParamKind::Scalar(t) => super::tokens::zero(*t),
                        _ => quote!(::revad::__private::zeros_like(&#name)),
                    }
                }
            })
            .collect();
        match adjoints.as_slice() {
            [one] => one.clone(),
            many => quote!((#(#many,)*)),
        }
    }
}
