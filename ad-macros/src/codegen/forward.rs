//! The forward backend (`#[revad::forward]`): `NAME_jvp`, the primal interleaved with tangent
//! code, derived from the same statement of local partials as the reverse sweep
//! (`ir::linear`) and the runtime's rule table.
//!
//! ```text
//! // for `let z = x * y; z.sin()`
//! let z = x * y;
//! let __tan_z = __tan_x * y + __tan_y * x;              // a * b: terms d·b and d·a
//! let __t0 = z.sin();
//! let __tan_t0 = __tan_z * ::revad::__private::rules::d_sin(z);
//! (__t0, __tan_t0)
//! ```
//!
//! Every active value `v` (activity as for the reverse sweep) has a tangent `__tan_v` of the
//! same type: a float for a float, an array for an array. Control flow is the primal's: a
//! loop carries its tangents like its values, with no stack, so forward mode costs a small
//! constant times the primal in time and nothing more in memory.
//!
//! Calls go to the callee's companion `__ad_jvp_NAME(args.., one tangent per argument)`,
//! which `#[revad::forward]` generates next to `NAME_jvp`: it takes a tangent for every float
//! parameter, of the parameter's own type, and `revad::Zero` or anything for the others.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

use super::linear::Scaling;
use super::shared::{Emitter, Store};
use super::tokens::{assign_token, respan, return_span};
use crate::ir::{
    AssignOp, Block, Body, LitKind, Operand, Output, Rhs, Shrink, Stmt, StmtKind, Ty, VarId, VecOp,
};
use crate::parse::{ParamKind, Passing, Signature};

use crate::ir::plan::Plan;

/// The tangent code of one body.
struct Tangents<'a> {
    e: Emitter<'a>,
    /// The name of each variable's tangent (`__tan_x`), by [`VarId`].
    tan: Vec<syn::Ident>,
    /// `N` tangents at once (`NAME_jvp_vec`): a float's tangent is an `revad::Lanes<F, __N>`.
    lanes: bool,
    /// The companion `__ad_jvp_NAME`, not `NAME_jvp` (which reports no error the companion
    /// reports too).
    companion: bool,
}

/// The number of lanes of `NAME_jvp_vec`, a const parameter.
fn lanes_param() -> syn::Ident {
    syn::Ident::new("__N", Span::call_site())
}

/// `ty` with each float type `F` (`f64`, `f32`, a float type parameter) replaced by
/// `revad::Lanes<F, __N>`: the type of a parameter's tangents in `NAME_jvp_vec`.
fn lanes_type(ty: &syn::Type, sig: &Signature) -> syn::Type {
    struct Replace<'s>(&'s Signature);
    impl syn::visit_mut::VisitMut for Replace<'_> {
        fn visit_type_mut(&mut self, ty: &mut syn::Type) {
            if let syn::Type::Path(p) = ty {
                if p.qself.is_none()
                    && p.path
                        .get_ident()
                        .is_some_and(|i| self.0.float_named(i).is_some())
                {
                    let n = lanes_param();
                    *ty = syn::parse_quote!(::revad::Lanes<#p, #n>);
                    return;
                }
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut ty = ty.clone();
    syn::visit_mut::VisitMut::visit_type_mut(&mut Replace(sig), &mut ty);
    ty
}

/// The name of the tangent argument of a parameter passed by reference (`&f64`, `&mut`):
/// its value is bound to the tangent local in the prologue.
fn tangent_ref(param: &syn::Ident) -> syn::Ident {
    format_ident!("__ad_tref_{}", param, span = Span::mixed_site())
}

/// `NAME_jvp` (the tangents of the `wrt` parameters) and the companion `__ad_jvp_NAME` (a
/// tangent for every parameter) for `func`.
pub(crate) fn emit(
    func: &syn::ItemFn,
    sig: &Signature,
    (body, plan): (&Body, &Plan),
    (split_sig, split_body, split_plan): (&Signature, &Body, &Plan),
    marker: bool,
    vector: bool,
) -> TokenStream {
    let jvp = emit_one(func, sig, body, plan, false, false);
    let companion = emit_one(func, split_sig, split_body, split_plan, true, false);
    let (jvp_n, companion_n) = match vector {
        true => (
            emit_one(func, sig, body, plan, false, true),
            emit_one(func, split_sig, split_body, split_plan, true, true),
        ),
        false => (TokenStream::new(), TokenStream::new()),
    };
    let companion = place_companion(func, sig, quote!(#companion #companion_n), marker);
    let as_argument = super::closures::marker_impls(func, sig, true, marker);
    quote! {
        #jvp
        #jvp_n
        #companion
        #as_argument
    }
}

/// The companion of a free function is `NAME::jvp`, an associated function of the marker
/// struct `NAME` (which `#[reverse]` or `#[revad::derivative]` declares when they annotate the
/// function too, and this attribute otherwise: `marker`): `use m::g;` imports it with the
/// function. A method's is `__ad_jvp_NAME`, beside it.
fn place_companion(
    func: &syn::ItemFn,
    sig: &Signature,
    companion: TokenStream,
    marker: bool,
) -> TokenStream {
    if sig.in_impl {
        return companion;
    }
    let (vis, name) = (&func.vis, &func.sig.ident);
    let inherited = super::inherited_attrs(func);
    let declare = marker.then(|| {
        quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #inherited
            #vis struct #name {}
        }
    });
    quote! {
        #declare
        #inherited
        impl ::revad::__private::ForwardDifferentiable for #name {}
        #inherited
        impl #name {
            #companion
        }
    }
}

/// `NAME_jvp`, or with `companion` the companion `__ad_jvp_NAME`.
fn emit_one(
    func: &syn::ItemFn,
    sig: &Signature,
    body: &Body,
    plan: &Plan,
    companion: bool,
    lanes: bool,
) -> TokenStream {
    let t = Tangents {
        e: Emitter::new(body, plan, sig, Store::Locals),
        tan: super::shared::derived_names(body, "tan"),
        lanes,
        companion,
    };
    let signature = signature(func, sig, &t.tan, companion, lanes);
    let doc = match (companion, lanes) {
        (true, _) => quote!(#[doc(hidden)]),
        (false, false) => {
            let doc = jvp_doc(func, sig);
            quote!(#[doc = #doc])
        }
        (false, true) => {
            let doc = jvp_vec_doc(func);
            quote!(#[doc = #doc])
        }
    };
    let vis = &func.vis;
    let prologue = super::inout::prologue(sig, body);
    let tangent_prologue = t.prologue();
    let forward = t.block(&body.block);
    let write_backs = super::inout::write_backs(sig, body);
    let tangent_write_backs = t.write_backs();
    let at_ret = return_span(func);
    let output = respan(t.e.output_value(&body.output), at_ret);
    let tangent = respan(t.output_tangent(&body.output), at_ret);
    // The zero tangent of a constant array is shaped like it: made before the array moves
    // into the result (fuzz finding 14).
    let result = match t.shaped_by_output(&body.output) {
        true => {
            let tan = format_ident!("__ad_tangent", span = Span::mixed_site());
            quote!({
                let #tan = #tangent;
                (#output, #tan)
            })
        }
        false => quote!((#output, #tangent)),
    };
    // The callees' markers under local aliases (with stand-ins for a callee without one),
    // and the check that each has a forward derivative, at the call.
    let enums = super::callees_prelude(body, sig, false);
    // (Once, in `NAME_jvp`: the companions would repeat the error.)
    let checks = body
        .callees
        .iter()
        .filter(|c| c.kind == crate::ir::CalleeKind::Function && !companion && !lanes)
        .map(|c| super::require(c, super::Needs::Forward));
    let enums = quote!(#enums #(#checks)*);
    let primal = super::primal_path(func, sig);
    let struct_types = super::struct_type_checks(func, sig);
    let inherited = super::inherited_attrs(func);
    quote! {
        #doc
        #inherited
        #[allow(
            dead_code,
            unused_mut,
            unused_variables,
            unused_assignments,
            unreachable_code,
            clippy::too_many_arguments,
            clippy::neg_multiply,
            reason = "generated tangent code: declarations are uniform, not minimal, and \
                      each parameter has a tangent"
        )]
        #[inline]
        #vis #signature {
            let _ = #primal;
            #struct_types
            #enums
            #prologue
            #tangent_prologue
            #forward
            #write_backs
            #tangent_write_backs
            #result
        }
    }
}

/// `fn NAME_jvp(<params>, <a tangent per active parameter>) -> (R, Ṙ)`, or the companion's
/// `fn __ad_jvp_NAME<.., D0, ..>(<params>, <a tangent per parameter>) -> (R, Ṙ)`.
fn signature(
    func: &syn::ItemFn,
    sig: &Signature,
    tan: &[syn::Ident],
    companion: bool,
    lanes: bool,
) -> TokenStream {
    let ident = &func.sig.ident;
    let n = if lanes { "_vec" } else { "" };
    let name = match (companion, sig.in_impl) {
        (true, true) => super::tokens::companion_ident(ident, &format!("jvp{n}")),
        (true, false) => format_ident!("jvp{}", n),
        (false, _) => format_ident!("{}_jvp{}", ident, n, span = ident.span()),
    };
    let mut generics = func.sig.generics.clone();
    if lanes {
        let n = lanes_param();
        generics.params.push(syn::parse_quote!(const #n: usize));
    }
    let generics = &generics;
    let mut tangents = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let float = !matches!(p.kind, ParamKind::Inactive) && p.active;
        if !float {
            if companion {
                // Any tangent for an inactive parameter: callers pass `revad::Zero`. (An
                // `impl` argument leaves a caller's turbofish to the function's own
                // parameters.)
                let arg = format_ident!("__ad_tany_{}", i, span = Span::mixed_site());
                tangents.push(quote!(#arg: impl ::core::marker::Sized));
            }
            continue;
        }
        let ty = match lanes {
            true => lanes_type(&p.ty, sig),
            false => p.ty.clone(),
        };
        let arg = match p.passing {
            Passing::Value => tan[i].clone(),
            Passing::Ref | Passing::MutRef => tangent_ref(&p.ident),
        };
        tangents.push(quote!(#arg: #ty));
    }
    let params = func.sig.inputs.iter().map(|arg| quote!(#arg));
    let ret = match &func.sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let tangent_ty = match (lanes, syn::parse2::<syn::Type>(sig.ret.seed_type())) {
        (true, Ok(ty)) => lanes_type(&ty, sig).into_token_stream(),
        _ => sig.ret.seed_type(),
    };
    let where_clause = &generics.where_clause;
    quote! {
        fn #name #generics (#(#params,)* #(#tangents,)*) -> (#ret, #tangent_ty) #where_clause
    }
}

fn jvp_doc(func: &syn::ItemFn, sig: &Signature) -> String {
    let f = func.sig.ident.to_string();
    let tangents: Vec<String> = sig
        .params
        .iter()
        .filter(|p| p.active)
        .map(|p| format!("`{}`", p.ident))
        .collect();
    format!(
        " The value of [`{f}`] and its Jacobian-vector product: after the parameters, one \
         tangent (a direction) per differentiated parameter ({}), of the parameter's type; \
         returns `({f}(..), ḟ)`, the derivative of the output along the tangents.\n\n \
         Generated by `#[revad::forward]` as straight-line tangent code (forward mode).",
        tangents.join(", ")
    )
}

fn jvp_vec_doc(func: &syn::ItemFn) -> String {
    let f = func.sig.ident.to_string();
    format!(
        " [`{f}_jvp`] along `N` directions at once: each tangent is an `revad::Lanes<f64, N>` \
         (arrays and slices of them for arrays), lane `k` the `k`-th direction; the primal \
         runs once and the tangent code on `N` lanes. Returns `({f}(..), ḟ)` with `N` lanes: \
         `N` columns of the Jacobian for unit directions.\n\n Generated by \
         `#[revad::forward(vector)]`; callees need `vector` too."
    )
}

impl Tangents<'_> {
    /// A zero tangent of a float of type `t`.
    fn scalar_zero(&self, t: crate::ir::FloatTy) -> TokenStream {
        match self.lanes {
            true => {
                let (t, n) = (t.ident(), lanes_param());
                quote!(<::revad::Lanes<#t, #n> as ::core::default::Default>::default())
            }
            false => super::tokens::zero(t),
        }
    }

    /// `: f64` (or `: revad::Lanes<f64, __N>`) for the tangent of a float variable.
    fn tangent_annotation(&self, v: VarId) -> Option<TokenStream> {
        match (&self.e.body.vars[v].ty, self.lanes) {
            (Ty::Float(Some(t)), true) => {
                let (t, n) = (t.ident(), lanes_param());
                Some(quote!(: ::revad::Lanes<#t, #n>))
            }
            _ => self.e.float_annotation(v),
        }
    }

    fn active(&self, v: VarId) -> bool {
        self.e.plan.active(v)
    }

    fn var(&self, v: VarId) -> &syn::Ident {
        &self.e.body.vars[v].name
    }

    /// The zero tangent of a value: a zero of its float type, or zeros of its shape.
    fn zero_of(&self, v: VarId) -> TokenStream {
        match &self.e.body.vars[v].ty {
            Ty::Float(Some(t)) => self.scalar_zero(*t),
            Ty::Array(_) if self.lanes => {
                let (name, n) = (self.var(v), lanes_param());
                quote!(::revad::__private::lanes_zero::<#n, _>(&#name))
            }
            Ty::Array(_) => {
                let name = self.var(v);
                quote!(::revad::__private::zeros_like(&#name))
            }
            _ => quote!(::core::default::Default::default()),
        }
    }

    /// The tangent of a scalar operand, or `None` when it is constant (inactive).
    fn tangent(&self, op: &Operand) -> Option<TokenStream> {
        match op {
            Operand::Var(v) if self.active(*v) => Some(self.tan[*v].to_token_stream()),
            _ => None,
        }
    }

    /// The tangent of a scalar operand, a typed zero when it is constant.
    fn tangent_or_zero(&self, op: &Operand, of: VarId) -> TokenStream {
        match (self.tangent(op), op) {
            (Some(t), _) => t,
            (None, Operand::Var(v)) => self.zero_of(*v),
            (None, Operand::Lit(..)) => self.scalar_zero(self.e.float_of(of)),
        }
    }

    /// Binds the tangents of the parameters passed by reference to their values.
    fn prologue(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, p) in self.e.sig.params.iter().enumerate() {
            if !p.active || matches!(p.kind, ParamKind::Inactive) {
                continue;
            }
            let (tan, reference) = (&self.tan[i], tangent_ref(&p.ident));
            match p.passing {
                Passing::Ref => {
                    let t = p.kind.elem();
                    let ty = match self.lanes {
                        true => {
                            let (t, n) = (t.ident(), lanes_param());
                            quote!(::revad::Lanes<#t, #n>)
                        }
                        false => t.ident().into_token_stream(),
                    };
                    out.extend(quote!(let #tan: #ty = *#reference;));
                }
                Passing::MutRef => {
                    out.extend(quote!(let #tan = ::revad::__private::InOut::entry(&*#reference);));
                }
                Passing::Value => {}
            }
        }
        out
    }

    /// Writes the tangents of the `&mut` parameters' values on return through their
    /// tangent references.
    fn write_backs(&self) -> TokenStream {
        let writes = self.e.body.writebacks.iter().filter_map(|w| {
            let param = &self.e.sig.params[w.param];
            if !param.active {
                return None;
            }
            let reference = tangent_ref(&param.ident);
            let value = match self.active(w.var) {
                true => self.tan[w.var].to_token_stream(),
                false => self.zero_of(w.var),
            };
            Some(quote!(::revad::__private::InOut::write_back(&mut *#reference, &#value);))
        });
        quote!(#(#writes)*)
    }

    /// Whether the tangent of the output reads a part of the output: the zeros shaped like a
    /// constant array (`zeros_like(&v)`).
    fn shaped_by_output(&self, output: &Output) -> bool {
        match output {
            Output::Scalar(_) | Output::Inactive(_) => false,
            Output::ArrayVar(v) => !self.active(*v),
            Output::Tuple(items) => items.iter().any(|i| self.shaped_by_output(i)),
        }
    }

    /// The tangent of the output, shaped like it.
    fn output_tangent(&self, output: &Output) -> TokenStream {
        match output {
            Output::Scalar(op) => match (self.tangent(op), op) {
                (Some(t), _) => t,
                (None, Operand::Var(v)) => self.zero_of(*v),
                (None, Operand::Lit(..)) => match &self.e.sig.ret {
                    crate::parse::RetTy::Scalar(t) => self.scalar_zero(*t),
                    _ => quote!(::core::default::Default::default()),
                },
            },
            Output::ArrayVar(v) => match self.active(*v) {
                true => self.tan[*v].to_token_stream(),
                false => self.zero_of(*v),
            },
            // (Its tangent is `()`, like that of a function returning `()`.)
            Output::Inactive(_) => quote!(()),
            Output::Tuple(items) => {
                let items = items.iter().map(|i| self.output_tangent(i));
                quote!((#(#items,)*))
            }
        }
    }

    fn block(&self, block: &Block) -> TokenStream {
        let stmts = block.stmts.iter().map(|s| self.stmt(s));
        quote!(#(#stmts)*)
    }

    fn stmt(&self, stmt: &Stmt) -> TokenStream {
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Let { var, rhs, ty } => self.let_stmt(*var, rhs, ty.as_ref(), span),
            StmtKind::Assign { var, op, value } => {
                let name = self.var(*var);
                let primal = {
                    let value = self.e.op(value);
                    let op = assign_token(*op, span);
                    respan(quote!(#name #op #value;), span)
                };
                if !self.active(*var) {
                    return primal;
                }
                let tan = &self.tan[*var];
                let tangent = match (op, self.tangent(value)) {
                    (AssignOp::Set, Some(t)) if self.e.body.vars[*var].ty.is_array() => {
                        quote!(#tan = ::core::clone::Clone::clone(&#t);)
                    }
                    (AssignOp::Set, Some(t)) => quote!(#tan = #t;),
                    (AssignOp::Set, None) => {
                        let zero = self.zero_of(*var);
                        quote!(#tan = #zero;)
                    }
                    (AssignOp::Add, Some(t)) => quote!(#tan += #t;),
                    (AssignOp::Sub, Some(t)) => quote!(#tan -= #t;),
                    (_, None) => TokenStream::new(),
                };
                quote!(#primal #tangent)
            }
            StmtKind::IndexAssign {
                array,
                index,
                op,
                value,
            } => {
                let name = self.var(*array);
                let place = self.e.place(quote!(#name), index, true, false);
                let primal = {
                    let value = self.e.op(value);
                    let op = assign_token(*op, span);
                    respan(quote!(#place #op #value;), span)
                };
                if !self.active(*array) {
                    return primal;
                }
                let tan = &self.tan[*array];
                let place = self.e.place(quote!(#tan), index, true, true);
                let tangent = match (op, self.tangent(value)) {
                    (AssignOp::Set, Some(t)) => quote!(#place = #t;),
                    (AssignOp::Set, None) => {
                        let zero = self.scalar_zero(self.e.float_of(*array));
                        quote!(#place = #zero;)
                    }
                    (AssignOp::Add, Some(t)) => quote!(#place += #t;),
                    (AssignOp::Sub, Some(t)) => quote!(#place -= #t;),
                    (_, None) => TokenStream::new(),
                };
                quote!(#primal #tangent)
            }
            StmtKind::VecOp { vec, op } => {
                let primal = respan(self.e.fwd_vec_op(*vec, op), span);
                match self.active(*vec) {
                    true => {
                        let tangent = self.vec_op(*vec, op);
                        quote!(#primal #tangent)
                    }
                    false => primal,
                }
            }
            StmtKind::Opaque { tokens, .. } => tokens.clone(),
            StmtKind::If {
                cond,
                then,
                els,
                phis,
            } => self.if_stmt(cond, then, els, phis),
            StmtKind::Loop(l) => self.loop_stmt(l),
        }
    }

    /// The tangent of a change of length of the active `Vec` `vec`: the same change.
    fn vec_op(&self, vec: VarId, op: &VecOp) -> TokenStream {
        let tan = &self.tan[vec];
        let t = self.e.float_of(vec);
        let value = |a: &Operand| self.tangent(a).unwrap_or_else(|| self.scalar_zero(t));
        match op {
            VecOp::Push(a) => {
                let a = value(a);
                quote!(#tan.push(#a);)
            }
            VecOp::Insert(i, a) => {
                let (i, a) = (self.e.op(i), value(a));
                quote!(#tan.insert(#i, #a);)
            }
            VecOp::Extend { src, .. } => match self.active(*src) {
                true => {
                    let src = &self.tan[*src];
                    quote!(#tan.extend_from_slice(&#src[..]);)
                }
                false => {
                    let src = self.var(*src);
                    quote!(#tan.extend_from_slice(&::revad::__private::zeros_like(&#src)[..]);)
                }
            },
            VecOp::Resize { len, value: a, .. } => {
                let (n, a) = (self.e.op(len), value(a));
                quote!(#tan.resize(#n, #a);)
            }
            VecOp::Shrink { how, .. } => match how {
                Shrink::Truncate(n) => {
                    let n = self.e.op(n);
                    quote!(#tan.truncate(#n);)
                }
                Shrink::Clear => quote!(#tan.clear();),
                Shrink::Pop => quote!(#tan.pop();),
            },
            VecOp::Swap(i, j) => {
                let (i, j) = (self.e.op(i), self.e.op(j));
                quote!(#tan.swap(#i, #j);)
            }
        }
    }

    fn let_stmt(&self, var: VarId, rhs: &Rhs, ty: Option<&TokenStream>, span: Span) -> TokenStream {
        let v = &self.e.body.vars[var];
        let name = &v.name;
        let mutability = v.mutable.then(|| quote!(mut));
        let active = self.active(var);
        if let Rhs::Call(call) = rhs {
            // (A call whose parts are active, or that writes an active `&mut` argument, is
            // live even when its own result is not.)
            if self.e.plan.activity.live(var, rhs) {
                return self.call(var, call, span);
            }
        }
        let annotation = match ty {
            Some(t) => Some(quote!(: #t)),
            None => self.e.constant_type(var, rhs),
        };
        let primal_rhs = match rhs {
            // Without a tangent, a call is the primal function's.
            Rhs::Call(call) => {
                let args = self.e.call_args(call, false);
                self.e.companion_call(call, None, args)
            }
            _ => self.e.fwd_rhs(var, rhs, span),
        };
        let binding = respan(quote!(let #mutability #name #annotation =), span);
        let primal = quote!(#binding #primal_rhs;);
        if !active {
            // A value taken from an active `Vec` and dropped: its tangent leaves the `Vec`'s
            // tangent too.
            if let Rhs::Pop(w) | Rhs::Remove(w, _) = rhs {
                if self.active(*w) {
                    let (_, take) = self.rhs(var, rhs, span);
                    return quote!(#primal let _ = #take;);
                }
            }
            return primal;
        }
        let tan = &self.tan[var];
        let (pre, value) = self.rhs(var, rhs, span);
        let annotation = self.tangent_annotation(var);
        quote! {
            #primal
            #pre
            let #mutability #tan #annotation = #value;
        }
    }

    /// The tangent of `let out = rhs;`: statements to run first (a rule's tuple of
    /// partials), and the value.
    fn rhs(&self, out: VarId, rhs: &Rhs, span: Span) -> (TokenStream, TokenStream) {
        let array = self.e.body.vars[out].ty.is_array();
        match rhs {
            Rhs::Copy(Operand::Var(a)) if array => {
                let value = match self.active(*a) {
                    true => {
                        let t = &self.tan[*a];
                        self.e.owned_copy(*a, quote!(#t))
                    }
                    false => self.zero_of(out),
                };
                return (TokenStream::new(), value);
            }
            Rhs::ToVec(a) => {
                let value = match self.tangent(a) {
                    Some(t) => quote!(#t.to_vec()),
                    None => self.zero_of(out),
                };
                return (TokenStream::new(), value);
            }
            _ => {}
        }
        if let Some(terms) = crate::ir::linear::linearize(rhs) {
            let operands = rhs.operands();
            let mut pre = TokenStream::new();
            let mut sum: Vec<(TokenStream, bool)> = Vec::new();
            let scaling = Scaling {
                out,
                value: &|k| self.e.op(operands[k]),
                output: &|| self.var(out).to_token_stream(),
                // Into the output's precision, lane by lane for a vector of tangents.
                cast: &|d| {
                    let t = self.e.float_of(out).ident();
                    Some(match self.lanes {
                        true => quote!(#d.cast::<#t>()),
                        false => quote!(#d as #t),
                    })
                },
                partial: &|| match rhs {
                    Rhs::Intrinsic(rule, args) => self.e.rule_call(out, rule, args, span),
                    _ => unreachable!("a rule's partial of an intrinsic"),
                },
            };
            for term in terms {
                let Some(d) = self.tangent(operands[term.operand]) else {
                    continue;
                };
                if let Some(item) = scaling.apply(term.scale, &d, &mut pre) {
                    sum.push(item);
                }
            }
            let value = match sum.split_first() {
                None => self.zero_of(out),
                Some(((first, negate), rest)) => {
                    let first = match negate {
                        true => quote!(-(#first)),
                        false => first.clone(),
                    };
                    let rest = rest.iter().map(|(t, negate)| match negate {
                        true => quote!(- #t),
                        false => quote!(+ #t),
                    });
                    quote!(#first #(#rest)*)
                }
            };
            return (pre, value);
        }
        let value = match rhs {
            Rhs::Index(array, index) => match self.active(*array) {
                true => {
                    let t = &self.tan[*array];
                    let place = self.e.place(quote!(#t), index, false, true);
                    match self.e.is_aggregate(out) {
                        true => quote!(::core::clone::Clone::clone(&#place)),
                        false => place,
                    }
                }
                false => self.zero_of(out),
            },
            Rhs::ArrayLit(items) => {
                let items = items.iter().map(|i| self.tangent_or_zero(i, out));
                quote!([#(#items),*])
            }
            Rhs::VecLit(items) => {
                let items = items.iter().map(|i| self.tangent_or_zero(i, out));
                quote!(::std::vec![#(#items),*])
            }
            Rhs::ArrayRepeat(e, n) => {
                let e = self.tangent_or_zero(e, out);
                quote!([#e; #n])
            }
            Rhs::VecRepeat(e, n) => {
                let (e, n) = (self.tangent_or_zero(e, out), self.e.op(n));
                quote!(::std::vec![#e; #n])
            }
            Rhs::VecNew(None) => quote!(::std::vec::Vec::new()),
            Rhs::VecNew(Some(n)) => {
                let n = self.e.op(n);
                quote!(::std::vec::Vec::with_capacity(#n))
            }
            Rhs::Pop(w) => {
                let t = &self.tan[*w];
                quote!(::core::option::Option::unwrap(#t.pop()))
            }
            Rhs::Remove(w, i) => {
                let (t, i) = (&self.tan[*w], self.e.op(i));
                quote!(#t.remove(#i))
            }
            // (An active part makes its call live: the tuple's tangent is bound.)
            Rhs::Part(tuple, k) => {
                let t = &self.tan[*tuple];
                let k = syn::Index::from(*k);
                quote!(#t.#k)
            }
            _ => self.zero_of(out),
        };
        (TokenStream::new(), value)
    }

    /// `let (v, __tan_v) = __ad_jvp_g(args.., tangents..);`: a call with a tangent.
    fn call(&self, out: VarId, call: &crate::ir::Call, span: Span) -> TokenStream {
        let v = &self.e.body.vars[out];
        let (name, tan) = (&v.name, &self.tan[out]);
        let mutability = v.mutable.then(|| quote!(mut));
        let mut args = self.e.call_args(call, false);
        for (k, arg) in call.args.iter().enumerate() {
            args.push(self.call_tangent(call, k, arg));
        }
        let companion = self.companion_call(call, args);
        let companion = respan(companion, span);
        match (&v.ty, self.lanes) {
            // A float result is typed, so that a callee without a derivative (a stand-in
            // whose result is of any float type) gets only the missing-derivative error.
            (Ty::Float(Some(t)), false) => {
                let t = t.ident();
                let pair = crate::ir::names::generated("pair");
                // At the user's call: a callee returning another type shows there.
                let value =
                    quote_spanned!(span=> ::revad::__private::expect_result::<#t, _>(#pair.0));
                let tangent =
                    quote_spanned!(span=> ::revad::__private::expect_result::<#t, _>(#pair.1));
                quote! {
                    let #pair = #companion;
                    let #mutability #name: #t = #value;
                    let #mutability #tan: #t = #tangent;
                }
            }
            _ => quote!(let (#mutability #name, #mutability #tan) = #companion;),
        }
    }

    /// The tangent passed with argument `k`, passed as the argument is.
    fn call_tangent(&self, call: &crate::ir::Call, k: usize, arg: &Operand) -> TokenStream {
        let (by_ref, by_mut) = (call.by_ref[k], call.by_mut[k]);
        let Operand::Var(v) = arg else {
            return match arg {
                Operand::Lit(_, LitKind::Float(_)) => quote!(::core::default::Default::default()),
                _ => quote!(::revad::Zero),
            };
        };
        let float = match &self.e.body.vars[*v].ty {
            Ty::Float(_) => Some(false),
            Ty::Array(info) if !info.agg => Some(true),
            _ => None,
        };
        let Some(array) = float else {
            return quote!(::revad::Zero);
        };
        // A reference parameter (`w: &[f64]`) is passed as it is; its tangent too.
        let reference = self.e.body.vars[*v]
            .param
            .is_some_and(|p| matches!(self.e.sig.params[p].ty, syn::Type::Reference(_)));
        let tangent = match self.active(*v) {
            true => self.tan[*v].to_token_stream(),
            false if !array => quote!(::core::default::Default::default()),
            false => {
                let zero = self.zero_of(*v);
                match reference && !by_ref && !by_mut {
                    true => return quote!(&#zero),
                    false => quote!((#zero)),
                }
            }
        };
        match (by_mut, by_ref, array) {
            (true, _, _) => quote!(&mut #tangent),
            (false, true, _) => quote!(&#tangent),
            (false, false, true) if self.active(*v) && !reference => {
                quote!(::core::clone::Clone::clone(&#tangent))
            }
            _ => tangent,
        }
    }

    /// The call of the callee's forward companion.
    fn companion_call(&self, call: &crate::ir::Call, args: Vec<TokenStream>) -> TokenStream {
        if call.closures.is_empty() {
            return self.companion_call_as_is(call, args);
        }
        if self.lanes {
            let message = "#[revad::forward(vector)] does not pass closures to functions yet; \
                           remove `vector`";
            let span = self.e.body.callees[call.callee].span;
            return quote::quote_spanned!(span=> ::core::compile_error!(#message));
        }
        super::closures::call(
            self.e.body,
            call,
            super::closures::Which::Jvp,
            args,
            self.companion,
            |args| self.companion_call_as_is(call, args),
        )
    }

    /// [`Self::companion_call`] with the arguments as given.
    fn companion_call_as_is(&self, call: &crate::ir::Call, args: Vec<TokenStream>) -> TokenStream {
        use crate::ir::CalleeKind;
        let callee = &self.e.body.callees[call.callee];
        match &callee.kind {
            CalleeKind::Function => {
                // `__callee0::jvp::<T>(..)` for `m::g::<T>(..)` (`use m::g as __callee0;`).
                let path = &callee.alias;
                let turbofish = super::turbofish(&callee.path);
                let (jvp, turbofish) = match (self.lanes, turbofish.is_empty()) {
                    (false, _) => (format_ident!("jvp"), turbofish),
                    (true, true) => (format_ident!("jvp_vec"), turbofish),
                    // `g::<T>(..)`: the lanes are the companion's last parameter.
                    (true, false) => {
                        let n = lanes_param();
                        let args = super::turbofish_args(&callee.path);
                        (format_ident!("jvp_vec"), quote!(::<#args, #n>))
                    }
                };
                // (Not for `jvp_vec`: a callee with `#[forward]` but without `vector` must be
                // rustc's "no function `jvp_vec`", never a stand-in that would compile.)
                if !turbofish.is_empty() || self.lanes {
                    return quote!(#path::#jvp #turbofish(#(#args),*));
                }
                // A callee with a reverse derivative only has a marker without `jvp`: the
                // check at the top reports it, and this fallback (which the marker's own
                // `jvp`, an inherent function, shadows) keeps the call from a second error.
                let fallback = format_ident!("__AdNoJvp", span = Span::mixed_site());
                let types: Vec<syn::Ident> =
                    (0..args.len()).map(|k| format_ident!("A{}", k)).collect();
                quote! {{
                    #[allow(non_camel_case_types, dead_code)]
                    trait #fallback {
                        fn #jvp<#(#types),*>(#(_: #types),*) -> (
                            ::revad::__private::StandInResult,
                            ::revad::__private::StandInResult,
                        ) {
                            ::core::unreachable!()
                        }
                    }
                    impl<T: ?::core::marker::Sized> #fallback for T {}
                    #path::#jvp(#(#args),*)
                }}
            }
            CalleeKind::Associated => {
                let mut path: syn::Path = match syn::parse2(callee.path.clone()) {
                    Ok(path) => path,
                    Err(_) => return quote!(::core::unreachable!()),
                };
                let which = if self.lanes { "jvp_vec" } else { "jvp" };
                if let Some(last) = path.segments.last_mut() {
                    last.ident = super::tokens::companion_ident(&last.ident, which);
                }
                quote!(#path(#(#args),*))
            }
            CalleeKind::Method(name) => {
                let which = if self.lanes { "jvp_vec" } else { "jvp" };
                let method = super::tokens::companion_ident(name, which);
                let Some((receiver, rest)) = args.split_first() else {
                    return TokenStream::new();
                };
                quote!((#receiver).#method(#(#rest),*))
            }
        }
    }

    fn if_stmt(
        &self,
        cond: &Operand,
        then: &Block,
        els: &Block,
        phis: &[crate::ir::Phi],
    ) -> TokenStream {
        let cond = self.e.op(cond);
        let then_body = self.block(then);
        let else_body = self.block(els);
        if phis.is_empty() {
            return quote!(if #cond { #then_body } else { #else_body });
        }
        let mut names = Vec::new();
        let mut types = Vec::new();
        let mut then_vals = Vec::new();
        let mut else_vals = Vec::new();
        for p in phis {
            names.push(self.var(p.var).to_token_stream());
            types.push(self.phi_type(p.var));
            then_vals.push(self.e.op(&p.then));
            else_vals.push(self.e.op(&p.els));
            if self.active(p.var) {
                names.push(self.tan[p.var].to_token_stream());
                types.push(match self.tangent_annotation(p.var) {
                    Some(annotation) => {
                        let ty = annotation.into_iter().skip(1);
                        quote!(#(#ty)*)
                    }
                    None => quote!(_),
                });
                then_vals.push(self.tangent_or_zero(&p.then, p.var));
                else_vals.push(self.tangent_or_zero(&p.els, p.var));
            }
        }
        quote! {
            let (#(#names,)*): (#(#types,)*) = if #cond {
                #then_body
                (#(#then_vals,)*)
            } else {
                #else_body
                (#(#else_vals,)*)
            };
        }
    }

    fn phi_type(&self, v: VarId) -> TokenStream {
        match self.e.float_annotation(v) {
            Some(annotation) => {
                let ty = annotation.into_iter().skip(1);
                quote!(#(#ty)*)
            }
            None => quote!(_),
        }
    }

    fn loop_stmt(&self, l: &crate::ir::Loop) -> TokenStream {
        let reset = l.cont.map(|c| {
            let c = self.var(c);
            quote!(#c = false;)
        });
        let exit = (!l.exits.is_empty()).then(|| {
            let flags = l.exits.iter().map(|f| self.var(*f));
            quote!(if #(#flags)||* { break; })
        });
        let body = self.block(&l.body);
        let inner = quote!(#reset #body #exit);
        match &l.kind {
            crate::ir::LoopKind::While { cond } => {
                let cond = &cond.expr;
                quote!(while #cond { #inner })
            }
            crate::ir::LoopKind::Infinite => quote!(loop { #inner }),
            crate::ir::LoopKind::Range(r) => {
                let var = match r.var {
                    Some(v) => self.var(v).to_token_stream(),
                    None => quote!(_),
                };
                let range = &r.range.expr;
                quote!(for #var in #range { #inner })
            }
        }
    }
}

/// `NAME_jvp` and `__ad_jvp_NAME` with `unreachable!()` bodies, next to the errors of a body
/// that cannot be differentiated (so that callers get no "cannot find function" errors).
pub(crate) fn stubs(
    func: &syn::ItemFn,
    sig: &Signature,
    marker: bool,
    vector: bool,
) -> TokenStream {
    let vis = &func.vis;
    let tan: Vec<syn::Ident> = sig
        .params
        .iter()
        .map(|p| format_ident!("__tan_{}", p.ident, span = Span::mixed_site()))
        .collect();
    let stub = |signature: TokenStream, hidden: bool| {
        let hidden = hidden.then(|| quote!(#[doc(hidden)]));
        quote! {
            #hidden
            #[allow(unused_variables, clippy::diverging_sub_expression, clippy::too_many_arguments)]
            #vis #signature {
                ::core::unreachable!()
            }
        }
    };
    let all = sig.all_active();
    let jvp = stub(signature(func, sig, &tan, false, false), false);
    let companion = stub(signature(func, &all, &tan, true, false), true);
    let (jvp_n, companion_n) = match vector {
        true => (
            stub(signature(func, sig, &tan, false, true), false),
            stub(signature(func, &all, &tan, true, true), true),
        ),
        false => (TokenStream::new(), TokenStream::new()),
    };
    let companion = place_companion(func, sig, quote!(#companion #companion_n), marker);
    quote! {
        #jvp
        #jvp_n
        #companion
    }
}

/// This backend's limits: what forward mode does not differentiate yet (structs and other
/// aggregates, except parameters that `wrt(..)` leaves out, which are only read; method
/// calls), the first such construct, with its description.
pub(crate) fn check(
    body: &crate::ir::Body,
    sig: &crate::parse::Signature,
) -> Option<(proc_macro2::Span, &'static str)> {
    let aggregates = "structs, tuples of arrays, nested containers or methods";
    if let Some(p) = sig
        .params
        .iter()
        .find(|p| p.active && matches!(p.kind, crate::parse::ParamKind::Aggregate { .. }))
    {
        let what = "with respect to structs, tuples of arrays or nested containers (`wrt(..)` \
                    may leave such parameters out, a method's `self` too)";
        return Some((syn::spanned::Spanned::span(&p.ty), what));
    }
    if let crate::parse::RetTy::Aggregate(ty) = &sig.ret {
        return Some((syn::spanned::Spanned::span(ty), aggregates));
    }
    // (An aggregate parameter that `wrt` leaves out, such as `&self` in a method with
    // `wrt(x)`, is only read: its parts are constants to the tangent code.)
    let left_out = |v: &crate::ir::Var| v.param.is_some_and(|i| !sig.params[i].active);
    if let Some(var) = body
        .vars
        .iter()
        .find(|v| matches!(&v.ty, crate::ir::Ty::Array(info) if info.agg) && !left_out(v))
    {
        return Some((var.span, aggregates));
    }
    body.callees
        .iter()
        .find(|c| matches!(c.kind, crate::ir::CalleeKind::Method(_)))
        .map(|c| (c.span, aggregates))
}
