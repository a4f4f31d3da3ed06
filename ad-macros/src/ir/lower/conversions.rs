//! `T::from_f64(..)` and `T::from_i32(..)`: the constants of generic code over `revad::Float`,
//! which has no literals of type `T`; and those of generic code over `num_traits::Float`:
//! `T::from(2.0).unwrap()` (and `FromPrimitive`'s `T::from_f64(0.5).unwrap()`), `T::one()`,
//! `T::zero()`, `T::epsilon()` and the other functions of `T` without arguments.
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
//! The derivative of a float argument would be lost (for a dual number, `from_f64` and
//! `NumCast::from` make a constant): that is the error `if_active`.

use syn::spanned::Spanned;

use super::{Lowerer, Value};
use crate::ir::{FloatTy, LitKind, Operand, Stmt, Ty};

/// The conversions of `num-traits` into a float type parameter (`NumCast::from`,
/// `FromPrimitive::from_f64`, ..): they return an `Option`, and are read with `.unwrap()` or
/// `.expect(..)` (`T::from(2.0).unwrap()`).
const OPTION_CONVERSIONS: &[&str] = &[
    "from",
    "from_f64",
    "from_f32",
    "from_i8",
    "from_i16",
    "from_i32",
    "from_i64",
    "from_i128",
    "from_isize",
    "from_u8",
    "from_u16",
    "from_u32",
    "from_u64",
    "from_u128",
    "from_usize",
];

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
        Some(self.conversion(expr, call, name, float, out))
    }

    /// `T::from(arg).unwrap()` or `.expect(..)` of a conversion of `num-traits` (`NumCast::from`,
    /// `FromPrimitive::from_f64`, ..) into a float type parameter `T`, the constants of generic
    /// code over `num_traits::Float`; `None` for other method calls.
    pub(super) fn lower_option_conversion(
        &mut self,
        expr: &syn::Expr,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if !matches!(call.method.to_string().as_str(), "unwrap" | "expect") {
            return None;
        }
        let syn::Expr::Call(inner) = super::strip(&call.receiver) else {
            return None;
        };
        let syn::Expr::Path(func) = &*inner.func else {
            return None;
        };
        let [ty, name] = [0, 1].map(|i| func.path.segments.get(i));
        let (Some(ty), Some(name)) = (ty, name) else {
            return None;
        };
        let float = self.sig.float_named(&ty.ident)?;
        let name = name.ident.to_string();
        if func.qself.is_some()
            || func.path.segments.len() != 2
            || !float.is_generic()
            || inner.args.len() != 1
            || !OPTION_CONVERSIONS.contains(&name.as_str())
        {
            return None;
        }
        if name == "from" {
            return Some(self.conversion(expr, inner, &name, float, out));
        }
        // `FromPrimitive::from_f64` by its path: beside the `::revad::Float` bound of the
        // generated items, `T::from_f64` would also name the library's `from_f64`.
        let mut expr = expr.clone();
        let mut call = inner.clone();
        let (t, method) = (&ty.ident, &func.path.segments[1].ident);
        *call.func = syn::parse_quote_spanned!(method.span()=>
            <#t as ::revad::num_traits::FromPrimitive>::#method
        );
        if let syn::Expr::MethodCall(m) = &mut expr {
            *m.receiver = syn::Expr::Call(call.clone());
        }
        Some(self.conversion(&expr, &call, &name, float, out))
    }

    /// `expr`, a conversion `call` into `float` (of the function `name`): a constant when it
    /// reads no variable, else an inactive value, which is an error where the derivative of
    /// the argument would be lost.
    fn conversion(
        &mut self,
        expr: &syn::Expr,
        call: &syn::ExprCall,
        name: &str,
        float: FloatTy,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let mut opaque = self.opaque(expr);
        if opaque.reads.is_empty() {
            return Value::Op(Operand::Lit(opaque.expr, LitKind::Float(Some(float))));
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
                 would be lost; #[reverse] takes conversions of constants and integers \
                 (`T::from_f64(0.5)`, `T::from_i32(k as i32)`, `T::from(2.0).unwrap()`): \
                 compute the value as a `{}` instead",
                float.ident()
            ),
        );
        let var = self.let_opaque(out, "t", Ty::Float(Some(float)), opaque, expr.span());
        Value::Op(Operand::Var(var))
    }

    /// `T::name()` without arguments, for a float type parameter `T`: a constant of type `T`
    /// (`T::zero()`, `T::one()`, `T::epsilon()`, `T::PI()` of `num-traits`); `None` for other
    /// calls.
    pub(super) fn lower_float_constant(
        &mut self,
        expr: &syn::Expr,
        call: &syn::ExprCall,
        float: FloatTy,
    ) -> Option<Value> {
        if !call.args.is_empty() || !float.is_generic() {
            return None;
        }
        // `T::LN_2()` is `FloatConst`'s, by its path: the library's `Float` has a constant
        // `LN_2`, which the generated items (bounded by it too) would find beside it.
        let mut expr = expr.clone();
        if let syn::Expr::Call(syn::ExprCall { func, .. }) = &mut expr {
            if let syn::Expr::Path(p) = &mut **func {
                let segments = &p.path.segments;
                if p.qself.is_none()
                    && segments.len() == 2
                    && (segments[1].ident == "LN_2" || segments[1].ident == "LN_10")
                {
                    let (t, name) = (&segments[0].ident, &segments[1].ident);
                    *p = syn::parse_quote_spanned!(name.span()=>
                        <#t as ::revad::num_traits::FloatConst>::#name
                    );
                }
            }
        }
        let opaque = self.opaque(&expr);
        opaque
            .reads
            .is_empty()
            .then(|| Value::Op(Operand::Lit(opaque.expr, LitKind::Float(Some(float)))))
    }
}
