//! Growing and reshaping float vectors (`push`, `pop`, `insert`, `remove`, `extend_from_slice`,
//! `resize`, `truncate`, `clear`, `swap`), shared by the backends: the primal statement, and
//! the tape's reverse, which keeps the adjoint of a `Vec` as long as the `Vec` at each point.
//!
//! ```text
//! // forward                       reverse
//! v.push(x);                       __adj_x += vec_pop_adjoint(&mut __adj_v);
//! let t = v.pop().unwrap();        __adj_v.push(__adj_t);
//! v.insert(i, x);                  __adj_x += __adj_v.remove(i);
//! let t = v.remove(i);             __adj_v.insert(i, __adj_t);
//! let __n = v.len();               // `old`, stored like any value the reverse reads
//! v.truncate(k);                   vec_restore_len(&mut __adj_v, __n);   // pads with zeros
//! v.resize(k, x);                  __adj_x += vec_restore_len(&mut __adj_v, __n);
//! v.extend_from_slice(&w);         vec_unextend(&mut __adj_v, __n, &mut __adj_w[..]);
//! v.swap(i, j);                    __adj_v.swap(i, j);
//! ```
//!
//! The adjoint of such a `Vec` is declared at the start of the reverse of its block with the
//! length the `Vec` has at the end of that block (`lower::grow` records it).

use proc_macro2::TokenStream;
use quote::quote;

use super::shared::Emitter;
use crate::ir::{Operand, Rhs, Shrink, VarId, VecOp};

impl Emitter<'_> {
    /// The primal statement of `op` on `vec`.
    pub(super) fn fwd_vec_op(&self, vec: VarId, op: &VecOp) -> TokenStream {
        let v = &self.body.vars[vec].name;
        match op {
            VecOp::Push(a) => {
                let a = self.op(a);
                quote!(#v.push(#a);)
            }
            VecOp::Insert(i, a) => {
                let (i, a) = (self.op(i), self.op(a));
                quote!(#v.insert(#i, #a);)
            }
            VecOp::Extend { src, .. } => {
                let w = &self.body.vars[*src].name;
                quote!(#v.extend_from_slice(&#w[..]);)
            }
            VecOp::Resize { len, value, .. } => {
                let (n, a) = (self.op(len), self.op(value));
                quote!(#v.resize(#n, #a);)
            }
            VecOp::Shrink { how, .. } => match how {
                Shrink::Truncate(n) => {
                    let n = self.op(n);
                    quote!(#v.truncate(#n);)
                }
                Shrink::Clear => quote!(#v.clear();),
                Shrink::Pop => quote!(#v.pop();),
            },
            VecOp::Swap(i, j) => {
                let (i, j) = (self.op(i), self.op(j));
                quote!(#v.swap(#i, #j);)
            }
        }
    }

    /// The primal right-hand side of `pop` and `remove`.
    pub(super) fn fwd_take(&self, rhs: &Rhs) -> Option<TokenStream> {
        match rhs {
            Rhs::Pop(v) => {
                let v = &self.body.vars[*v].name;
                Some(quote!(::core::option::Option::unwrap(#v.pop())))
            }
            Rhs::Remove(v, i) => {
                let v = &self.body.vars[*v].name;
                let i = self.op(i);
                Some(quote!(#v.remove(#i)))
            }
            _ => None,
        }
    }

    /// `expr` added to the adjoint of `target` when it is active, else evaluated for its
    /// effect on the `Vec`'s adjoint.
    fn to_adjoint_of(&self, target: &Operand, expr: TokenStream) -> TokenStream {
        if self.plan.active_op(target) {
            self.contrib(target, expr, false)
        } else {
            quote!(#expr;)
        }
    }

    /// The tape's reverse of `op` on the active `vec`.
    pub(super) fn rev_vec_op(&self, vec: VarId, op: &VecOp) -> TokenStream {
        let adj = &self.adj[vec];
        match op {
            VecOp::Push(a) => {
                self.to_adjoint_of(a, quote!(::revad::__private::vec_pop_adjoint(&mut #adj)))
            }
            VecOp::Insert(i, a) => {
                let i = self.op(i);
                self.to_adjoint_of(a, quote!(#adj.remove(#i)))
            }
            VecOp::Resize { value, old, .. } => {
                let old = &self.body.vars[*old].name;
                self.to_adjoint_of(
                    value,
                    quote!(::revad::__private::vec_restore_len(&mut #adj, #old)),
                )
            }
            VecOp::Shrink { old, .. } => {
                let old = &self.body.vars[*old].name;
                quote!(::revad::__private::vec_restore_len(&mut #adj, #old);)
            }
            VecOp::Extend { src, old } => {
                let old = &self.body.vars[*old].name;
                if !self.plan.active(*src) {
                    return quote!(::revad::__private::vec_restore_len(&mut #adj, #old););
                }
                if self.is_sink(*src) {
                    let tail = quote!(::revad::__private::vec_split_tail(&mut #adj, #old));
                    return self.contrib(&Operand::Var(*src), tail, false);
                }
                let src_adj = &self.adj[*src];
                quote!(::revad::__private::vec_unextend(&mut #adj, #old, &mut #src_adj[..]);)
            }
            VecOp::Swap(i, j) => {
                let (i, j) = (self.op(i), self.op(j));
                quote!(#adj.swap(#i, #j);)
            }
        }
    }

    /// The tape's reverse of `let var = v.pop().unwrap()` / `v.remove(i)` on the active `v`:
    /// the element's adjoint goes back into the `Vec`'s (zero when `var` is not active).
    pub(super) fn rev_take(&self, var: VarId, rhs: &Rhs) -> Option<TokenStream> {
        let (v, index) = match rhs {
            Rhs::Pop(v) => (*v, None),
            Rhs::Remove(v, i) => (*v, Some(i)),
            _ => return None,
        };
        if !self.plan.active(v) {
            return None;
        }
        let adj = &self.adj[v];
        let element = if self.plan.active(var) {
            let a = &self.adj[var];
            quote!(#a)
        } else {
            super::tokens::zero(self.float_of(v))
        };
        Some(match index {
            None => quote!(#adj.push(#element);),
            Some(i) => {
                let i = self.op(i);
                quote!(#adj.insert(#i, #element);)
            }
        })
    }
}
