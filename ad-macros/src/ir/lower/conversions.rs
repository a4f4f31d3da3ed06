//! `T::from_f64(..)` and `T::from_i32(..)`: the constants of generic code over `revad::Float`,
//! which has no literals of type `T`.
//!
//! ```text
//! // Before                              // After
//! acc * T::from_f64(0.5)                  let __t0 = acc * T::from_f64(0.5);   (a constant)
//! T::from_i32(k as i32) * x               let __t1: T = T::from_i32(k as i32);  (inactive)
//!                                         let __t2 = __t1 * x;
//! ```
//!
//! A conversion of constants is an [`Operand::Lit`], like `2.0` in code over `f64`; one that
//! reads variables is an inactive value of type `T` (an integer converted, as `k as f64` is).
//! The derivative of a float argument would be lost (for a dual number, `from_f64` makes a
//! constant): that is the error `if_active`.

use syn::spanned::Spanned;

use super::{Lowerer, Value};
use crate::ir::{FloatTy, LitKind, Operand, Stmt, Ty};

impl Lowerer<'_> {
    /// `float::name(arg)` when `name` is `from_f64` or `from_i32`; `None` for other calls.
    pub(super) fn lower_float_conversion(
        &mut self,
        expr: &syn::Expr,
        call: &syn::ExprCall,
        name: &str,
        float: FloatTy,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if !matches!(name, "from_f64" | "from_i32") || call.args.len() != 1 {
            return None;
        }
        let mut opaque = self.opaque(expr);
        if opaque.reads.is_empty() {
            return Some(Value::Op(Operand::Lit(
                opaque.expr,
                LitKind::Float(Some(float)),
            )));
        }
        // At the function's name: `T::from_f64` is what drops the derivative.
        let at = match &*call.func {
            syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.span()),
            _ => None,
        };
        opaque.if_active = (
            at.unwrap_or_else(|| call.func.span()),
            format!(
                "`{name}` makes a constant of its argument, so the derivative of this value \
                 would be lost; #[reverse] takes `from_f64` and `from_i32` of constants and \
                 integers (`T::from_f64(0.5)`, `T::from_i32(k as i32)`): compute the value as \
                 a `{}` instead",
                float.ident()
            ),
        );
        let var = self.let_opaque(out, "t", Ty::Float(Some(float)), opaque, expr.span());
        Some(Value::Op(Operand::Var(var)))
    }
}
