//! What a float type parameter of the function (`fn f<T: revad::Float>`) changes in the code
//! generated: `T` has no literals, so where code over `f64` has `0.0`, code over `T` has
//! `<T as ::revad::Float>::ZERO`.
//!
//! ```text
//! // over f64                         // over T
//! let mut __adj_x = 0.0_f64;          let mut __adj_x = <T as ::revad::Float>::ZERO;
//! __adj_acc = 0.0;                    __adj_acc = <T as ::revad::Float>::ZERO;
//! let __acc0: f64 = -0.0;             let __acc0: T = -<T as ::revad::Float>::ZERO;
//! f64::powf(2.0, x)                   <T as ::revad::Float>::powf(c, x)
//! ```
//!
//! Nothing here assumes that `T` is a primitive (no `as T`, no literal of type `T`): the next
//! implementor of `revad::Float` is a dual number.
//!
//! The user's bound may be another trait (`num_traits::Float`, `Real`, `Add<Output = T>`): the
//! generated items add `where T: ::revad::Float` (`parse::require_float_bounds`), and call
//! the intrinsics by the trait's path, `<T as ::revad::Float>::sin(x)` (`shared`), and in code
//! kept as written `::revad::Float::abs(x)` (`ir::lower::rename`), since `x.sin()` would find
//! `num_traits::Float::sin` too.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use super::shared::Emitter;
use super::tokens::constant;
use crate::ir::{FloatTy, Operand, VarId};

/// The float literal `tokens` (`0.0`, `-0.0`, `1.0`, `0.5`) as a value of the type parameter
/// `t`: `<T as ::revad::Float>::ZERO`, `-<T as ::revad::Float>::ZERO`, `..::ONE`,
/// `..::from_f64(0.5)`. Anything else is kept as written.
fn literal(tokens: &TokenStream, t: FloatTy) -> TokenStream {
    match syn::parse2::<syn::Expr>(tokens.clone()) {
        Ok(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(lit),
            ..
        })) => match lit.base10_parse::<f64>() {
            Ok(0.0) => constant(t, "ZERO"),
            Ok(1.0) => constant(t, "ONE"),
            _ => {
                let q = t.qualifier();
                quote!(#q::from_f64(#lit))
            }
        },
        Ok(syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        })) => {
            let inner = literal(&expr.to_token_stream(), t);
            quote!(-#inner)
        }
        _ => tokens.clone(),
    }
}

impl Emitter<'_> {
    /// An operand that is a value (or the elements) of `v`: as [`Emitter::op`], except for a
    /// float literal lowering made (the `0.0` a `return` slot or a sum starts from) where `v`
    /// has a type parameter for its type, which has no literals: `<T as ::revad::Float>::ZERO`.
    pub(super) fn op_typed(&self, op: &Operand, v: VarId) -> TokenStream {
        let t = self.float_of(v);
        match op {
            Operand::Lit(tokens, crate::ir::LitKind::Float(_)) if t.is_generic() => {
                literal(tokens, t)
            }
            _ => self.op(op),
        }
    }
}
