//! `revad::stop_gradient(x)`: the value of `x`, as an opaque expression from which no
//! derivative flows (contract point 5: an [`Opaque`] with no `flows` is inactive).
//!
//! ```text
//! // Before                              // After
//! let y = x * revad::stop_gradient(x);   let __sg0 = opaque { revad::StopGradient::stop_gradient(x) };
//!                                        let y = x * __sg0;
//! ```
//!
//! The macro cannot resolve names, so it knows the library's function by its path: `revad::`
//! or `::revad::` (or the name the caller's manifest gives the package) followed by
//! `stop_gradient`. A bare `stop_gradient(x)` (imported, or a function of the user's own) with
//! a float argument is an error that says so, rather than a guess either way. The emitted
//! expression calls the runtime function through the trait of the crate the path names
//! (`revad::StopGradient::stop_gradient(x)`), which only the library has: a module of the
//! user's named `revad` does not compile. The function is the identity on floats and zeroes
//! the tangents of dual numbers, so the generic copy of `#[reverse(hessian)]`, run on dual
//! numbers, stops the derivative too.

use quote::quote_spanned;
use syn::spanned::Spanned;

use super::{Lowerer, Value};
use crate::ir::{Opaque, Operand, Stmt, Ty};

/// The one message for a bare `stop_gradient(..)` with a float argument.
pub(super) const BARE: &str = "#[reverse] knows `stop_gradient` by its path: write \
     `revad::stop_gradient(..)`; to call a function of your own of that name, write \
     `self::stop_gradient(..)`";

/// The one message for an argument `stop_gradient` does not take.
const ARGUMENT: &str = "`revad::stop_gradient` takes one float or one fixed-size array of \
     floats (`[f64; N]`); for another value, stop the gradient of each float it holds";

/// What a call's path names: `Some(true)` for the library's `stop_gradient`, `Some(false)` for
/// the bare name `stop_gradient`, `None` for anything else.
pub(super) fn stop_gradient_path(path: &syn::Path) -> Option<bool> {
    let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
    let named = |s: &syn::PathSegment| s.ident == "stop_gradient";
    match segments.as_slice() {
        [last] if path.leading_colon.is_none() && named(last) => Some(false),
        [krate, last] if named(last) && krate.arguments.is_empty() => {
            let library = krate.ident == "revad"
                || crate::krate::user_name().is_some_and(|name| krate.ident == name);
            library.then_some(true)
        }
        _ => None,
    }
}

impl Lowerer<'_> {
    /// `revad::stop_gradient(arg)`: the value of `arg` bound to a fresh inactive variable of
    /// its type (a literal stays a literal: it carries no derivative anyway).
    pub(super) fn lower_stop_gradient(
        &mut self,
        call: &syn::ExprCall,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let [arg] = call.args.iter().collect::<Vec<_>>()[..] else {
            self.cx.error(call, ARGUMENT);
            return Value::Error;
        };
        // (Its argument is not passed on whole where the call is: `g(stop_gradient(0.5 *
        // h(x)))` takes `h`'s result for a float, as `0.5 * h(x)` would.)
        let shape = self.result_shape.take();
        let value = self.lower_expr(arg, out);
        self.result_shape = shape;
        let var = match value {
            Value::Op(Operand::Var(v)) => v,
            Value::Op(lit @ Operand::Lit(..)) => return Value::Op(lit),
            Value::Error => return Value::Error,
            _ => {
                self.cx.error(arg, ARGUMENT);
                return Value::Error;
            }
        };
        let ty = self.vars[var].ty.clone();
        let takes = match &ty {
            Ty::Float(_) | Ty::Unknown | Ty::Other | Ty::Usize | Ty::I32 | Ty::Bool => true,
            // (A slice or a `Vec` is rustc's error: `StopGradient`'s message.)
            Ty::Array(info) => !info.agg,
        };
        if !takes {
            self.cx.error(arg, ARGUMENT);
            return Value::Error;
        }
        // At the user's argument, so that rustc's error for a type that is not a float (the
        // same in the function as written) is reported once.
        let mut name = self.vars[var].name.clone();
        name.set_span(name.span().located_at(arg.span()));
        // Through the trait of the crate the user named (`revad::StopGradient`), so that a
        // path whose first name is not the library (a module of the user's named `revad`) is
        // a compile error rather than a derivative dropped from the user's function.
        let syn::Expr::Path(func) = &*call.func else {
            unreachable!("only a call through a path is lowered here")
        };
        let mut krate = func.path.clone();
        krate.segments.pop();
        let krate = krate.segments.pairs().map(|p| p.into_value().clone());
        let colon = func.path.leading_colon;
        let opaque = Opaque {
            expr: quote_spanned!(call.span()=> #colon #(#krate::)* StopGradient::stop_gradient(#name)),
            reads: vec![var],
            cheap: true,
            flows: Vec::new(),
            if_active: (call.span(), String::new()),
        };
        Value::Op(Operand::Var(self.let_opaque(
            out,
            "sg",
            ty,
            opaque,
            call.span(),
        )))
    }
}
