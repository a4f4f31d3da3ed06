//! Reading the attribute arguments and the function signature into a validated model.
//!
//! In: the tokens of `#[reverse(...)]` and the `syn::Signature`. Out: [`Args`] and
//! [`Signature`], which say which parameters are active, what shapes they have, and what the
//! generated functions return. Errors go to the collector, each at the span of the offending
//! tokens.

mod args;
pub(crate) mod functions;
mod signature;

pub(crate) use args::{
    derivative_args, in_impl_arguments, Args, Backend, DerivativeArgs, FORWARD_TOO,
};
pub(crate) use signature::{
    adjoint_fn, adjoint_of, float_like_params, float_of, is_inactive_type, mentions_self,
    require_float_bounds, type_span, Param, ParamKind, Passing, RetTy, Signature,
};
