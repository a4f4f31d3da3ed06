//! The one interpreter of the local partials that `ir::linear` states as data: a term's
//! [`Scale`] applied to what flows through it, the adjoint of the output in a reverse sweep
//! (tape and CPS, `Emitter::rev_rhs`) or the tangent of an operand in forward mode
//! (`forward`).
//!
//! ```text
//! scale                d flows to operand k as      (reverse: d = __adj_out; forward: d = ẋ_k)
//! One, MinusOne        d, -d
//! Times(j), Over(j)    d * v_j, d / v_j
//! MinusOutOver(j)      -(d * out / v_j)
//! RemQuotient          d * rules::d_rem(v_0, v_1).1
//! Cast                 d converted to the precision it flows into
//! Rule(None)           d * rules::d_NAME(..)
//! Rule(Some(k))        d * __dN.k, after `let __dN = rules::d_NAME(..);` (computed once)
//! Rule, not finite     rules::times_partial(d, ..): zero for a zero d (`sqrt` at 0)
//! ```
//!
//! What differs between the modes is given by the caller: how a value is written, the
//! conversion of a cast, the call of the rule's partial.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::linear::Scale;
use crate::ir::VarId;

/// The tokens a backend gives the interpreter for one operation `let out = rhs;`.
pub(crate) struct Scaling<'a> {
    /// The output.
    pub out: VarId,
    /// The primal value of the operand at a position of `Rhs::operands()`.
    pub value: &'a dyn Fn(usize) -> TokenStream,
    /// The primal value of the output.
    pub output: &'a dyn Fn() -> TokenStream,
    /// `d` converted for a cast, or `None` when nothing flows (a cast of a constant).
    pub cast: &'a dyn Fn(&TokenStream) -> Option<TokenStream>,
    /// The call of the intrinsic's partial function (its partial, or its tuple of partials).
    pub partial: &'a dyn Fn() -> TokenStream,
}

impl Scaling<'_> {
    /// `d` scaled by `scale`, and whether it is subtracted; `None` when nothing flows. A
    /// tuple of partials is bound once, in `pre`, before the first term that reads it.
    pub(crate) fn apply(
        &self,
        scale: Scale,
        d: &TokenStream,
        pre: &mut TokenStream,
    ) -> Option<(TokenStream, bool)> {
        Some(match scale {
            Scale::One => (d.clone(), false),
            Scale::MinusOne => (d.clone(), true),
            Scale::Times(k) => {
                let b = (self.value)(k);
                (quote!(#d * #b), false)
            }
            Scale::Over(k) => {
                let b = (self.value)(k);
                (quote!(#d / #b), false)
            }
            Scale::MinusOutOver(k) => {
                let (out, b) = ((self.output)(), (self.value)(k));
                (quote!(#d * #out / #b), true)
            }
            Scale::RemQuotient => {
                let (a, b) = ((self.value)(0), (self.value)(1));
                (
                    quote!(#d * ::revad::__private::rules::d_rem(#a, #b).1),
                    false,
                )
            }
            Scale::Cast => ((self.cast)(d)?, false),
            Scale::Rule { part, finite } => {
                let partial = (self.partial)();
                let p = match part {
                    None => partial,
                    Some(k) => {
                        let p = format_ident!("__d{}", self.out, span = Span::mixed_site());
                        if pre.is_empty() {
                            *pre = quote!(let #p = #partial;);
                        }
                        let k = syn::Index::from(k);
                        quote!(#p.#k)
                    }
                };
                match finite {
                    true => (quote!(#d * #p), false),
                    false => (
                        quote!(::revad::__private::rules::times_partial(#d, #p)),
                        false,
                    ),
                }
            }
        })
    }
}
