//! What the backends share: the primal statement of each operation (`fwd_rhs`) and the
//! adjoint contributions it makes (`rev_rhs`, written from the one statement of the partials
//! in `ir::linear` and the runtime's rule table).
//!
//! ```text
//! // forward              reverse
//! let v = a * b;          __adj_a += __adj_v * b;   __adj_b += __adj_v * a;
//! let v = a / b;          __adj_a += __adj_v / b;   __adj_b -= __adj_v * v / b;
//! let v = a.sin();        __adj_a += __adj_v * ::revad::__private::rules::d_sin(a);
//! let v = w[i];           __adj_w[i] += __adj_v;
//! ```
//!
//! Each backend says where its adjoints live ([`Store`]). The tape backend accumulates into
//! locals: a contribution to a value with a single use declares its adjoint
//! (`let __adj_a = ..;`), the others accumulate with `+=` (see `ir::plan::AdjDecl`); its split
//! companions add those of parameters to the caller's sinks. The CPS backend adds each
//! contribution to the operand's cell (`__ad_cN.add(..)`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

use super::linear::Scaling;
use super::tokens::{companion_ident, respan, stack, user_tokens, zero};
use crate::ir::linear::Scale;
use crate::ir::plan::{AdjDecl, Plan};
use crate::ir::{BinOp, Body, FloatTy, Operand, Output, Rhs, Ty, VarId};
use crate::parse::Signature;
use crate::rules::Partial;

/// Emits code for one function.
pub(super) struct Emitter<'a> {
    pub body: &'a Body,
    pub plan: &'a Plan,
    pub sig: &'a Signature,
    /// Where the adjoints live, which says how a contribution is added.
    pub store: Store,
    /// The name of each variable's adjoint (`__adj_x`), by [`VarId`].
    pub adj: Vec<syn::Ident>,
    /// Adjoint elements kept in locals through a reverse loop: `(a, i, local)` stands for
    /// `__adj_a[i]` (see `sweep::inner`).
    pub held: Vec<(VarId, VarId, syn::Ident)>,
    /// Elements read through a slice that starts at their loop's base: `(a, k, j, adjoint)`
    /// stands for `a[k]`, `k = base + j`, read as `a[j]` (of the adjoint when `adjoint`;
    /// see `sweep::inner`).
    pub rebased: Vec<(VarId, VarId, VarId, bool)>,
    /// Elements kept in locals through a forward loop: `(a, i, local)` stands for `a[i]`
    /// (see `sweep::inner`).
    pub primal_held: Vec<(VarId, VarId, syn::Ident)>,
}

/// Where the adjoints of an emitted function live: each backend's choice, given to the common
/// emitter (it replaces two flags that said the same, and could say both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Store {
    /// Locals of the function (`__adj_x += ..`): the tape's `NAME_vjp`, and forward mode
    /// (which has no adjoints).
    Locals,
    /// Locals, except that the adjoints of array parameters and of scalar parameters that are
    /// never assigned are the caller's sinks (`ScalarSink::add(&mut __adj_x, ..)`): the split
    /// companions `NAME::rev`.
    Sinks,
    /// The cells of `revad::cps::NumR` values (`__ad_cN.add(..)`): the back parts of the CPS
    /// backend.
    Cells,
}

impl<'a> Emitter<'a> {
    /// An emitter for `body`, whose adjoints live in `store`.
    pub(super) fn new(
        body: &'a Body,
        plan: &'a Plan,
        sig: &'a Signature,
        store: Store,
    ) -> Emitter<'a> {
        Emitter {
            body,
            plan,
            sig,
            store,
            adj: adjoint_names(body),
            held: Vec::new(),
            rebased: Vec::new(),
            primal_held: Vec::new(),
        }
    }

    /// Whether the adjoints are the CPS backend's cells.
    pub(super) fn in_cells(&self) -> bool {
        self.store == Store::Cells
    }
}

/// The names of the adjoints: `__adj_NAME` for the variable `NAME` (leading underscores
/// dropped), made unique against every variable and every other adjoint (`t0` and `__t0`
/// would both give `__adj_t0`). Mixed-site, like every generated local.
fn adjoint_names(body: &Body) -> Vec<syn::Ident> {
    derived_names(body, "adj")
}

/// Names derived from each variable's: `__PREFIX_NAME` (`__adj_x`, `__tan_x`), unique as
/// [`adjoint_names`] makes them.
pub(super) fn derived_names(body: &Body, prefix: &str) -> Vec<syn::Ident> {
    let mut used: std::collections::HashSet<String> =
        body.vars.iter().map(|v| v.name.to_string()).collect();
    body.vars
        .iter()
        .map(|v| {
            // (`r#in` gives `__adj_in`.)
            let name = syn::ext::IdentExt::unraw(&v.name).to_string();
            let base = format!("__{prefix}_{}", name.trim_start_matches('_'));
            let mut candidate = base.clone();
            let mut n = 2;
            while !used.insert(candidate.clone()) {
                candidate = format!("{base}_{n}");
                n += 1;
            }
            syn::Ident::new(&candidate, Span::mixed_site())
        })
        .collect()
}

impl Emitter<'_> {
    /// The tokens of an operand: a variable name or a constant as written. A constant is
    /// the user's tokens in an invisible group, which [`respan`] leaves where they are: an
    /// error in them (an undefined name) is then the same as rustc's in the function itself,
    /// and reported once.
    pub(super) fn op(&self, op: &Operand) -> TokenStream {
        match op {
            Operand::Var(v) => self.body.vars[*v].name.to_token_stream(),
            Operand::Lit(tokens, _) => user_tokens(tokens.clone()),
        }
    }

    /// A path into an array or aggregate: `[i]`, `.pos[i]`, `[i][j]`.
    pub(super) fn path(&self, path: &crate::ir::Path) -> TokenStream {
        self.place(TokenStream::new(), path, false, false)
    }

    /// The part `path` of the adjoint of the aggregate `v`, as a place to add into:
    /// `__adj_p.pos[i]`. (A `match` on a variant borrows the adjoint by `&mut`, which a sink,
    /// an immutable `&mut` binding, gives as `*__adj_s`.)
    pub(super) fn adj_place(&self, v: VarId, path: &crate::ir::Path) -> TokenStream {
        if let Some(Operand::Var(i)) = path.single() {
            if let Some((.., local)) = self.held.iter().find(|(a, k, _)| *a == v && k == i) {
                return local.to_token_stream();
            }
        }
        if let Some(j) = self.rebased_index(v, path, true) {
            let adj = &self.adj[v];
            return quote!(#adj[#j]);
        }
        let adj = &self.adj[v];
        let variant = path
            .0
            .iter()
            .any(|s| matches!(s, crate::ir::Step::Variant(_)));
        let base = match variant && self.is_sink(v) {
            true => quote!((*#adj)),
            false => quote!(#adj),
        };
        self.place(base, path, true, true)
    }

    /// The local that holds the element of `v` at `path` through a forward loop (see
    /// `primal_held`), if any.
    pub(super) fn primal_local(&self, v: VarId, path: &crate::ir::Path) -> Option<TokenStream> {
        let Some(Operand::Var(i)) = path.single() else {
            return None;
        };
        self.primal_held
            .iter()
            .find(|(a, k, _)| *a == v && k == i)
            .map(|(.., local)| local.to_token_stream())
    }

    /// The loop variable `j` that indexes `v` (its adjoint when `adjoint`) at `path`, when
    /// the element is read through a slice starting at its loop's base (see `rebased`).
    fn rebased_index(
        &self,
        v: VarId,
        path: &crate::ir::Path,
        adjoint: bool,
    ) -> Option<TokenStream> {
        let Some(Operand::Var(k)) = path.single() else {
            return None;
        };
        let &(.., j, _) = self
            .rebased
            .iter()
            .find(|(a, kk, _, adj)| *a == v && kk == k && *adj == adjoint)?;
        Some(self.body.vars[j].name.to_token_stream())
    }

    /// `base` followed by `path`, as a place: `p.pos[i]`, or through an enum variant
    /// `(*match &s { Shape::Circle(__v, ..) => __v, _ => unreachable!() })` (see
    /// `ir::Variant::place`). `mutable` borrows the variants' values by `&mut` (a write);
    /// `adjoint` matches on the adjoint's variants (`base` is an adjoint).
    pub(super) fn place(
        &self,
        base: TokenStream,
        path: &crate::ir::Path,
        mutable: bool,
        adjoint: bool,
    ) -> TokenStream {
        path.place(base, mutable, adjoint, |i| self.op(i))
    }

    /// An operand as the receiver of a method call (`(-1.0).abs()` needs the parentheses).
    fn receiver(&self, op: &Operand) -> TokenStream {
        match op {
            Operand::Lit(tokens, _) => quote!((#tokens)),
            var => self.op(var),
        }
    }

    pub(super) fn float_of(&self, v: VarId) -> FloatTy {
        match &self.body.vars[v].ty {
            Ty::Float(Some(t)) => *t,
            Ty::Array(info) => info.elem.unwrap_or(self.sig.default_float),
            _ => self.sig.default_float,
        }
    }

    /// `: f64` for a float constant (`let p = 1.5;`, `0.5 + 0.25`, an accumulator's `0.0`):
    /// alone, `{float}` cannot take a method call like `.sin()`, and the user's code may have
    /// pinned the type where the generated code does not (`f64::exp(p)` is emitted as
    /// `p.exp()`), so every float defined by a constant is annotated with its settled type.
    pub(super) fn constant_type(&self, var: VarId, rhs: &Rhs) -> Option<TokenStream> {
        // (A call's result is typed too: a callee without a derivative gets a stand-in whose
        // result type is generic, and the missing-derivative error should be the only one.)
        let constant = matches!(
            rhs,
            Rhs::Opaque(_) | Rhs::Copy(Operand::Lit(..)) | Rhs::Call(_)
        );
        self.float_annotation(var).filter(|_| constant)
    }

    /// `: f64` (or `: f32`) for a float scalar variable.
    pub(super) fn float_annotation(&self, var: VarId) -> Option<TokenStream> {
        match &self.body.vars[var].ty {
            Ty::Float(Some(t)) => {
                let t = t.ident();
                Some(quote!(: #t))
            }
            _ => None,
        }
    }

    /// The value returned, shaped like the output.
    pub(super) fn output_value(&self, output: &Output) -> TokenStream {
        match output {
            Output::Scalar(op) | Output::Inactive(op) => self.op(op),
            Output::ArrayVar(v) => {
                let name = &self.body.vars[*v].name;
                quote!(#name)
            }
            Output::Tuple(items) => {
                let items = items.iter().map(|i| self.output_value(i));
                quote!((#(#items,)*))
            }
        }
    }

    /// The right-hand side of `let out = ..;` in the forward sweep (and in recomputations).
    /// Tokens that are the user's operation carry its span, so type errors point at it.
    pub(super) fn fwd_rhs(&self, out: VarId, rhs: &Rhs, span: Span) -> TokenStream {
        let tokens = self.fwd_rhs_tokens(out, rhs, span);
        match rhs {
            // Generated brackets and copies are located at the user's expression, so that an
            // error in it (an index of the wrong type) points there; operators, methods and
            // calls carry their own spans.
            Rhs::Copy(_)
            | Rhs::Index(..)
            | Rhs::ArrayLit(_)
            | Rhs::ArrayRepeat(..)
            | Rhs::VecRepeat(..)
            | Rhs::VecNew(_)
            | Rhs::VecLit(_)
            | Rhs::StructLit(_)
            | Rhs::ToVec(_)
            | Rhs::Pop(_)
            | Rhs::Remove(..) => respan(tokens, span),
            _ => tokens,
        }
    }

    fn fwd_rhs_tokens(&self, out: VarId, rhs: &Rhs, span: Span) -> TokenStream {
        match rhs {
            // A copy of an aggregate is an owned clone, also of a reference parameter.
            Rhs::Copy(Operand::Var(a)) if self.is_aggregate(*a) => {
                let var = &self.body.vars[*a];
                let name = &var.name;
                // (A `&mut` parameter's name holds its value on entry, owned.)
                let reference = var.param.is_some_and(|p| {
                    let param = &self.sig.params[p];
                    matches!(param.ty, syn::Type::Reference(_))
                        && param.passing != crate::parse::Passing::MutRef
                });
                match reference {
                    true => quote!(::revad::__private::AggInOut::entry(#name)),
                    false => quote!(::revad::__private::AggInOut::entry(&#name)),
                }
            }
            // A copy of an array is a clone (a `Vec` would otherwise move).
            Rhs::Copy(Operand::Var(a)) if self.body.vars[*a].ty.is_array() => {
                let name = &self.body.vars[*a].name;
                self.owned_copy(*a, quote!(#name))
            }
            Rhs::Copy(a) => self.op_typed(a, out),
            Rhs::Neg(a) => {
                let a = self.op(a);
                quote_spanned!(span=> -#a)
            }
            Rhs::Binary(op, a, b) => {
                let (a, b) = (self.op(a), self.op(b));
                let op = match op {
                    BinOp::Add => quote_spanned!(span=> +),
                    BinOp::Sub => quote_spanned!(span=> -),
                    BinOp::Mul => quote_spanned!(span=> *),
                    BinOp::Div => quote_spanned!(span=> /),
                    BinOp::Rem => quote_spanned!(span=> %),
                };
                quote!(#a #op #b)
            }
            Rhs::Intrinsic(rule, args) => {
                let method = syn::Ident::new(rule.name, span);
                match args.split_first() {
                    // Over a type parameter, the method of `::revad::Float` by name
                    // (`<T as ::revad::Float>::sin(x)`): the user's bounds may have a method
                    // of the same name (`num_traits::Float::sin`), which `x.sin()` would
                    // find too.
                    Some(_) if self.float_of(out).is_generic() => {
                        let t = self.float_of(out).qualifier();
                        let args = args.iter().map(|a| self.op(a));
                        quote!(#t::#method(#(#args),*))
                    }
                    Some((Operand::Var(_), rest)) => {
                        let receiver = self.receiver(&args[0]);
                        let rest = rest.iter().map(|a| self.op(a));
                        quote!(#receiver.#method(#(#rest),*))
                    }
                    _ => {
                        // A constant receiver: name the type (`f64::powf(2.0, x)`), since
                        // `2.0.powf(x)` does not compile.
                        let t = self.float_of(out).qualifier();
                        let args = args.iter().map(|a| self.op(a));
                        quote!(#t::#method(#(#args),*))
                    }
                }
            }
            Rhs::Cast(a, t) => {
                let a = self.op(a);
                let t = t.ident();
                quote_spanned!(span=> #a as #t)
            }
            // A copy of a part of an aggregate (a struct, an array): cloned.
            Rhs::Index(array, index) if self.is_aggregate(out) => {
                let array = &self.body.vars[*array].name;
                let place = self.place(quote!(#array), index, false, false);
                quote!(::core::clone::Clone::clone(&#place))
            }
            Rhs::Index(array, index) if self.primal_local(*array, index).is_some() => {
                self.primal_local(*array, index).unwrap_or_default()
            }
            Rhs::Index(array, index) => {
                let rebased = self.rebased_index(*array, index, false);
                let array = &self.body.vars[*array].name;
                match rebased {
                    Some(j) => quote!(#array[#j]),
                    None => self.place(quote!(#array), index, false, false),
                }
            }
            Rhs::ArrayLit(items) => {
                let items = items.iter().map(|i| self.op(i));
                quote!([#(#items),*])
            }
            Rhs::ArrayRepeat(e, n) => {
                let e = self.op_typed(e, out);
                quote!([#e; #n])
            }
            Rhs::VecRepeat(e, n) => {
                let (e, n) = (self.op_typed(e, out), self.op(n));
                quote!(::std::vec![#e; #n])
            }
            Rhs::VecNew(None) => quote!(::std::vec::Vec::new()),
            Rhs::VecNew(Some(n)) => {
                let n = self.op(n);
                quote!(::std::vec::Vec::with_capacity(#n))
            }
            Rhs::VecLit(items) => {
                let items = items.iter().map(|i| self.op(i));
                quote!(::std::vec![#(#items),*])
            }
            Rhs::StructLit(lit) => {
                let path = &lit.path;
                let values: Vec<TokenStream> = lit
                    .fields
                    .iter()
                    .map(|(_, op)| {
                        // (The reverse sweep may read an array or aggregate field's variable.)
                        let array = op.var().is_some_and(|v| self.body.vars[v].ty.is_array());
                        let op = self.op(op);
                        match array {
                            true => quote!(::core::clone::Clone::clone(&#op)),
                            false => op,
                        }
                    })
                    .collect();
                if lit.tuple {
                    quote!(#path(#(#values),*))
                } else {
                    let members = lit.fields.iter().map(|(m, _)| m);
                    quote!(#path { #(#members: #values),* })
                }
            }
            Rhs::ToVec(a) => {
                let a = self.receiver(a);
                quote!(#a.to_vec())
            }
            Rhs::Pop(_) | Rhs::Remove(..) => self.fwd_take(rhs).unwrap_or_default(),
            Rhs::Call(call) => {
                let mut args = self.call_args(call, false);
                if self.plan.activity.live(out, rhs) {
                    let stack = stack();
                    let lent = lend_args(call, &mut args, false, &quote!(&mut *#stack));
                    args.push(quote!(&mut *#stack));
                    // At the user's call: a mismatch with the callee's parameters shows there.
                    let call = respan(self.companion_call(call, Some("fwd"), args), span);
                    let value = match &self.body.vars[out].ty {
                        // The callee may return another precision than the macro assumed. (At
                        // this call: the callee's span is that of its first call.)
                        Ty::Float(Some(t)) => {
                            let t = t.ident();
                            quote_spanned!(span=> ::revad::__private::expect_result::<#t, _>(#call))
                        }
                        // The macro read the shape from the caller's code (`ir::lower::results`).
                        Ty::Array(info) if !info.agg => {
                            // (Through a local, so that the error's span is the callee's.)
                            let result = format_ident!("__ad_result", span = span);
                            quote_spanned! {span=>
                                { let #result = #call; ::revad::__private::expect_array(#result) }
                            }
                        }
                        _ => call,
                    };
                    if lent.is_empty() {
                        return value;
                    }
                    // (Pushed last first: the reverse sweep pops them in argument order.)
                    let kept = lent.iter().rev();
                    let result = crate::ir::names::generated("ad_result");
                    quote! {{
                        #(let mut #lent = ::core::option::Option::None;)*
                        let #result = #value;
                        #(::revad::__private::keep_lent(&mut *#stack, #kept);)*
                        #result
                    }}
                } else {
                    // No derivative flows through this call: the primal function.
                    self.companion_call(call, None, args)
                }
            }
            Rhs::Part(tuple, k) => {
                let tuple = &self.body.vars[*tuple].name;
                let k = syn::Index::from(*k);
                quote!(#tuple.#k)
            }
            Rhs::Opaque(opaque) => opaque.expr.clone(),
            Rhs::Guard(flags) => {
                let flags = flags.iter().map(|f| &self.body.vars[*f].name);
                quote!(!(#(#flags)||*))
            }
        }
    }

    /// The reverse of `let out = rhs;`: the contributions to the adjoints of its operands.
    pub(super) fn rev_rhs(&self, out: VarId, rhs: &Rhs, span: Span) -> TokenStream {
        let adj = &self.adj[out];
        let adj = quote!(#adj);
        // Partials computed once (`let __d4 = rules::d_powf(..);`), then the contributions.
        let mut pre = TokenStream::new();
        let mut items: Vec<(&Operand, TokenStream, bool)> = Vec::new();
        if let Some(terms) = crate::ir::linear::linearize(rhs) {
            let operands = rhs.operands();
            if !operands.iter().any(|a| self.plan.active_op(a)) {
                // No operand takes an adjoint: the partials (and the values they read,
                // which may not exist in this sweep) are not needed.
                return TokenStream::new();
            }
            for term in terms {
                let target = operands[term.operand];
                if term.scale == Scale::RemQuotient && !self.plan.active_op(target) {
                    continue;
                }
                let scaling = Scaling {
                    out,
                    value: &|k| self.op(operands[k]),
                    output: &|| self.body.vars[out].name.to_token_stream(),
                    // Into the operand's precision.
                    cast: &|d| {
                        let Operand::Var(a) = target else { return None };
                        let t = self.float_of(*a).ident();
                        Some(quote!(#d as #t))
                    },
                    partial: &|| match rhs {
                        Rhs::Intrinsic(rule, args) => self.rule_partial(out, rule, args, span),
                        _ => unreachable!("a rule's partial of an intrinsic"),
                    },
                };
                if let Some((expr, negate)) = scaling.apply(term.scale, &adj, &mut pre) {
                    items.push((target, expr, negate));
                }
            }
            let contributions = self.contribs(&items);
            return quote!(#pre #contributions);
        }
        match rhs {
            Rhs::Index(array, index) => {
                if !self.plan.active(*array) {
                    return TokenStream::new();
                }
                let array_adj = &self.adj[*array];
                return match index.single() {
                    Some(index) if self.is_sink(*array) && !self.is_aggregate(*array) => {
                        let index = self.op(index);
                        quote!(::revad::__private::ArraySink::add_at(&mut #array_adj, #index, #adj);)
                    }
                    _ if self.is_aggregate(out) => {
                        let place = self.adj_place(*array, index);
                        quote!(::revad::__private::Accumulate::accumulate(&mut #place, &#adj);)
                    }
                    _ => {
                        let place = self.adj_place(*array, index);
                        quote!(#place += #adj;)
                    }
                };
            }
            Rhs::Call(call) => {
                // g::rev(<args>, <adjoint of the result>, stack, <a sink per argument>)
                let mut args = self.call_args(call, true);
                let stack = stack();
                let seed = self.call_seed(out, call);
                let lent = lend_args(call, &mut args, true, &quote!(&mut *#stack));
                // An active variable passed twice (`h(x, x)`) cannot lend its adjoint to two
                // sinks at once: later occurrences get a zeroed local, added in afterwards.
                let mut before = quote!(#(let mut #lent = ::core::option::Option::None;)*);
                let mut after = TokenStream::new();
                let sinks: Vec<TokenStream> = call
                    .args
                    .iter()
                    .enumerate()
                    .map(|(k, arg)| {
                        let repeated = call.args[..k].iter().any(|a| a == arg);
                        let path = call.paths.get(k).and_then(Option::as_ref);
                        match arg {
                            // A second part of the same aggregate (`g(&ps[i], &ps[j])`).
                            Operand::Var(v)
                                if repeated && self.plan.active(*v) && path.is_some() =>
                            {
                                let (decl, sink, add) = self.duplicate_place_sink(*v, path, k);
                                before.extend(decl);
                                after.extend(add);
                                sink
                            }
                            Operand::Var(v) if repeated && self.plan.active(*v) => {
                                let path = call.paths.get(k).and_then(Option::as_ref);
                                let (decl, sink, add) = self.duplicate_sink(*v, k, path);
                                before.extend(decl);
                                after.extend(add);
                                sink
                            }
                            _ => self.sink(
                                arg,
                                call.paths.get(k).and_then(Option::as_ref),
                                call.by_mut.get(k).copied().unwrap_or(false),
                            ),
                        }
                    })
                    .collect();
                args.push(seed);
                args.push(quote!(&mut *#stack));
                args.extend(sinks);
                let rev = self.companion_call(call, Some("rev"), args);
                return quote! {
                    #before
                    #rev;
                    #after
                };
            }
            Rhs::StructLit(lit) => {
                for (member, item) in &lit.fields {
                    let field = match &lit.variant {
                        // The adjoint of a variant's field: `(*match &__adj_s {
                        // __AdjShape::Circle(__v, ..) => __v, _ => unreachable!() })` (a
                        // zero adjoint keeps the value's variant; a seed must have it too).
                        Some(variant) => {
                            let variant = crate::ir::Variant {
                                field: syn::parse2(member.clone())
                                    .expect("a struct expression's member"),
                                ..variant.clone()
                            };
                            variant.place(quote!(#adj), false, true)
                        }
                        None => quote!(#adj.#member),
                    };
                    items.push((item, field, false));
                }
            }
            Rhs::ArrayLit(elems) | Rhs::VecLit(elems) => {
                for (k, item) in elems.iter().enumerate() {
                    let k = proc_macro2::Literal::usize_unsuffixed(k);
                    items.push((item, quote!(#adj[#k]), false));
                }
            }
            Rhs::ArrayRepeat(e, _) | Rhs::VecRepeat(e, _) => {
                let t = self.float_of(out).ident();
                items.push((e, quote!(#adj.iter().sum::<#t>()), false));
            }
            Rhs::Opaque(_)
            | Rhs::Guard(_)
            | Rhs::Part(..)
            | Rhs::VecNew(_)
            | Rhs::ToVec(_)
            | Rhs::Pop(_)
            | Rhs::Remove(..)
            | Rhs::Copy(_)
            | Rhs::Neg(_)
            | Rhs::Cast(..)
            | Rhs::Binary(..)
            | Rhs::Intrinsic(..) => {}
        }
        let contributions = self.contribs(&items);
        quote!(#pre #contributions)
    }

    /// The seed of a call's reverse: the adjoint of its result, or of each part of a tuple
    /// result (`(seed_for(__adj_a), __adj_w)`). A result or part nobody differentiates (a
    /// discarded `()`) seeds with zeros.
    fn call_seed(&self, out: VarId, call: &crate::ir::Call) -> TokenStream {
        let seed_of = |v: VarId| {
            let var = &self.body.vars[v];
            match (self.plan.active(v), var.ty.is_array()) {
                (true, true) => {
                    let adj = &self.adj[v];
                    quote!(::revad::__private::seed_for(#adj))
                }
                (true, false) => {
                    let adj = &self.adj[v];
                    quote!(::revad::__private::seed_for(#adj))
                }
                (false, true) => {
                    let name = &var.name;
                    quote!(::revad::__private::zeros_like(&#name))
                }
                (false, false) => quote!(::core::default::Default::default()),
            }
        };
        if call.parts.is_empty() {
            return seed_of(out);
        }
        let parts = call.parts.iter().map(|&p| seed_of(p));
        quote!((#(#parts,)*))
    }

    /// The partial(s) of an intrinsic, from the runtime's rule: `rules::d_sin(x)`, or the
    /// fused partial computed with a recomputed value.
    fn rule_partial(
        &self,
        out: VarId,
        rule: &crate::rules::Rule,
        args: &[Operand],
        span: Span,
    ) -> TokenStream {
        if let Some((_, partial)) = self.fused_partial(out) {
            return quote!(#partial);
        }
        self.rule_call(out, rule, args, span)
    }

    /// The call of an intrinsic's partial function from the rule table, on the values it
    /// reads: `::revad::__private::rules::d_sin(x)`.
    pub(super) fn rule_call(
        &self,
        out: VarId,
        rule: &crate::rules::Rule,
        args: &[Operand],
        span: Span,
    ) -> TokenStream {
        let function = match rule.partial {
            Partial::One(f) | Partial::Each(f) => format_ident!("{}", f, span = span),
            Partial::Zero => return super::tokens::zero_untyped(self.float_of(out)),
        };
        let mut inputs: Vec<TokenStream> = rule
            .reads_args
            .iter()
            .filter_map(|&i| args.get(i))
            .map(|a| self.op(a))
            .collect();
        if rule.reads_output {
            inputs.push(self.body.vars[out].name.to_token_stream());
        }
        quote!(::revad::__private::rules::#function(#(#inputs),*))
    }

    /// The contributions of one statement. Those to an adjoint declared at this statement
    /// are summed into its declaration (`let __adj_x = __adj_t * x + __adj_t * x;`).
    pub(super) fn contribs(&self, items: &[(&Operand, TokenStream, bool)]) -> TokenStream {
        let mut out = TokenStream::new();
        if self.in_cells() {
            // Each contribution is added to its cell (a cell starts at zero).
            for (target, expr, negate) in items {
                out.extend(self.contrib(target, expr.clone(), *negate));
            }
            return out;
        }
        let mut done = vec![false; items.len()];
        for i in 0..items.len() {
            if done[i] {
                continue;
            }
            let (target, expr, negate) = &items[i];
            let declared_here = match target {
                Operand::Var(v) => {
                    self.plan.active(*v)
                        && self.plan.adj[*v] == AdjDecl::AtSite
                        && !self.body.vars[*v].ty.is_array()
                        && !self.is_sink(*v)
                }
                Operand::Lit(..) => false,
            };
            if !declared_here {
                out.extend(self.contrib(target, expr.clone(), *negate));
                continue;
            }
            let mut sum = if *negate {
                quote!(-(#expr))
            } else {
                expr.clone()
            };
            for j in i + 1..items.len() {
                if items[j].0 == *target {
                    done[j] = true;
                    let e = &items[j].1;
                    sum = if items[j].2 {
                        quote!(#sum - #e)
                    } else {
                        quote!(#sum + #e)
                    };
                }
            }
            let Operand::Var(v) = target else { continue };
            let adj = &self.adj[*v];
            out.extend(quote!(let #adj = #sum;));
        }
        out
    }

    /// Adds `expr` (negated if `negate`) to the adjoint of `target`, if it is active.
    ///
    /// ```text
    /// let __adj_a = expr;     // the only contribution to a (AdjDecl::AtSite)
    /// __adj_a += expr;        // otherwise
    /// ::revad::__private::add_assign(&mut __adj_h, &expr);   // arrays
    /// ::revad::__private::ScalarSink::add(&mut __adj_x, expr);  // the caller's sink
    /// ```
    pub(super) fn contrib(&self, target: &Operand, expr: TokenStream, negate: bool) -> TokenStream {
        let Operand::Var(v) = target else {
            return TokenStream::new();
        };
        if !self.plan.active(*v) {
            return TokenStream::new();
        }
        if self.in_cells() {
            let cell = super::tokens::cell_of(*v);
            let method = if negate { quote!(sub) } else { quote!(add) };
            if self.body.vars[*v].ty.is_array() {
                return quote! {
                    for (__c, __v) in #cell.iter().zip(#expr.iter()) {
                        __c.#method(*__v);
                    }
                };
            }
            return quote!(#cell.#method(#expr););
        }
        let adj = &self.adj[*v];
        if self.is_aggregate(*v) {
            let expr = if negate { quote!(-(#expr)) } else { expr };
            let adj = self.agg_adj_mut(*v);
            return quote!(::revad::__private::Accumulate::accumulate(#adj, &#expr););
        }
        if self.is_sink(*v) && !self.body.vars[*v].ty.is_array() {
            let expr = if negate { quote!(-(#expr)) } else { expr };
            return quote!(::revad::__private::ScalarSink::add(&mut #adj, #expr););
        }
        if self.is_sink(*v) {
            return quote!(::revad::__private::ArraySink::add_all(&mut #adj, &#expr););
        }
        if self.body.vars[*v].ty.is_array() {
            return quote!(::revad::__private::add_assign(&mut #adj, &#expr););
        }
        match (self.plan.adj[*v], negate) {
            (AdjDecl::AtSite, false) => quote!(let #adj = #expr;),
            (AdjDecl::AtSite, true) => quote!(let #adj = -(#expr);),
            (_, false) => quote!(#adj += #expr;),
            (_, true) => quote!(#adj -= #expr;),
        }
    }

    /// For `v = a.sin()` evaluated again at the start of the reverse of its block, and active:
    /// the fused rule that gives the value and the partial at once, and the partial's name.
    pub(super) fn fused_partial(&self, v: VarId) -> Option<(&'static str, syn::Ident)> {
        if self.in_cells()
            || self.plan.restore[v] != crate::ir::plan::Restore::Recompute
            || !self.plan.active(v)
        {
            return None;
        }
        let Some(Rhs::Intrinsic(rule, _)) = self.plan.defs.get(&v) else {
            return None;
        };
        let fused = rule.fused?;
        Some((fused, format_ident!("__d{}", v, span = Span::mixed_site())))
    }

    /// Whether the adjoint of `v` is a sink of the caller, reached through `ArraySink` rather
    /// than indexing, or through `ScalarSink` rather than `+=`: an array parameter of a split
    /// companion, or a scalar parameter that is never assigned (the adjoint of one that is
    /// assigned is reset at the assignment, so it is a local added to the sink at the end).
    /// `&mut` the adjoint of the aggregate `v`: its own, or the caller's sink reborrowed.
    pub(super) fn agg_adj_mut(&self, v: VarId) -> TokenStream {
        let adj = &self.adj[v];
        if self.is_sink(v) {
            quote!(&mut *#adj)
        } else {
            quote!(&mut #adj)
        }
    }

    /// An owned copy of the array `value`, the variable `v` or its tangent:
    /// `Clone::clone(&value)`, or `Clone::clone(value)` when `v` is a parameter `&[f64; N]` or
    /// `&Vec<f64>` (whose value is the referent: `let mut y = *x;`, then `y[0] *= 2.0`).
    pub(super) fn owned_copy(&self, v: VarId, value: TokenStream) -> TokenStream {
        let borrowed = self.body.vars[v].param.is_some_and(|p| {
            let param = &self.sig.params[p];
            param.passing != crate::parse::Passing::MutRef
                && matches!(&param.ty, syn::Type::Reference(r) if !matches!(*r.elem, syn::Type::Slice(_)))
        });
        match borrowed {
            true => quote!(::core::clone::Clone::clone(#value)),
            false => quote!(::core::clone::Clone::clone(&#value)),
        }
    }

    /// Whether `v` is an aggregate (see `ir::lower::places`).
    pub(super) fn is_aggregate(&self, v: VarId) -> bool {
        matches!(&self.body.vars[v].ty, crate::ir::Ty::Array(info) if info.agg)
    }

    pub(super) fn is_sink(&self, v: VarId) -> bool {
        let var = &self.body.vars[v];
        // (The adjoint of a `&mut` parameter on entry replaces the caller's: a local.)
        let by_mut_ref = var
            .param
            .is_some_and(|p| self.sig.params[p].passing == crate::parse::Passing::MutRef);
        self.store == Store::Sinks
            && var.param.is_some()
            && !by_mut_ref
            && (var.ty.is_array() || var.ty.is_float() && !var.mutable)
    }

    /// The arguments of a call as written in the forward sweep, or in the reverse sweep
    /// (`rev`): `&h` for arrays passed by reference; `&mut x` forward and `()` backward for a
    /// variable passed by `&mut` (the callee's `rev` pops its value before the call).
    pub(super) fn call_args(&self, call: &crate::ir::Call, rev: bool) -> Vec<TokenStream> {
        let method = matches!(
            self.body.callees[call.callee].kind,
            crate::ir::CalleeKind::Method(_)
        );
        call.args
            .iter()
            .zip(&call.by_ref)
            .zip(&call.by_mut)
            .enumerate()
            .map(|(k, ((arg, &by_ref), &by_mut))| {
                let path = call.paths.get(k).and_then(Option::as_ref);
                // (The receiver's copy from before the call, where later code writes it.)
                let arg = match (rev && method && k == 0, &call.receiver_old) {
                    (true, Some(old)) => old,
                    _ => arg,
                };
                let place = |mutable| {
                    let arg = self.op(arg);
                    match path {
                        Some(path) => self.place(arg, path, mutable, false),
                        None => arg,
                    }
                };
                if by_mut {
                    return match (rev, method && k == 0) {
                        // (A `&mut self` method's reverse takes `&self` to be found by rustc.)
                        (true, true) => {
                            let place = place(false);
                            quote!(&#place)
                        }
                        (true, false) => quote!(::revad::__private::passed_mut()),
                        (false, _) => {
                            let place = place(true);
                            quote!(&mut #place)
                        }
                    };
                }
                if path.is_some() {
                    let place = place(false);
                    return match by_ref {
                        true => quote!(&#place),
                        // (A part passed by value: a float is copied, anything else cloned.)
                        false => quote!(::core::clone::Clone::clone(&#place)),
                    };
                }
                // (A reference parameter is passed as it is: `&Vec<f64>` coerces to `&[f64]`.)
                let array = arg.var().is_some_and(|v| {
                    let var = &self.body.vars[v];
                    let reference = var
                        .param
                        .is_some_and(|p| matches!(self.sig.params[p].ty, syn::Type::Reference(_)));
                    var.ty.is_array() && !reference
                });
                // The body's copy of a `&mut` array parameter is owned where the user's name
                // was a reference.
                // (A scalar one is passed as `*out`, its value.)
                let copy_of_reference = arg.var().is_some_and(|v| {
                    self.body.vars[v].ty.is_array()
                        && self.body.writebacks.iter().any(|w| w.var == v)
                });
                let arg = self.op(arg);
                if by_ref || copy_of_reference {
                    quote!(&#arg)
                } else if array {
                    // Both sweeps pass the array: a `Vec` passed by value is cloned.
                    quote!(::core::clone::Clone::clone(&#arg))
                } else {
                    arg
                }
            })
            .collect()
    }

    /// For the `k`-th argument of a call that passes the active variable `v` again: the
    /// declaration of a zeroed local sink, the sink, and the statement that adds the local into
    /// the adjoint of `v` after the call. For a part of an aggregate (`g(&l.w[0], &l.b)`), the
    /// local is shaped like the aggregate and the sink is the same part of it.
    fn duplicate_sink(
        &self,
        v: VarId,
        k: usize,
        path: Option<&crate::ir::Path>,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let local = format_ident!("__dup{}", k, span = Span::mixed_site());
        let var = &self.body.vars[v];
        let adj = &self.adj[v];
        if self.is_aggregate(v) {
            let name = &var.name;
            let place = match path {
                Some(p) => self.place(quote!(#local), p, true, true),
                None => quote!(#local),
            };
            return (
                quote!(let mut #local = ::revad::__private::zeros_like(&#name);),
                quote!(&mut #place),
                {
                    let adj = self.agg_adj_mut(v);
                    quote!(::revad::__private::Accumulate::accumulate(#adj, &#local);)
                },
            );
        }
        if !var.ty.is_array() {
            let zero = zero(self.float_of(v));
            let add = if self.is_sink(v) {
                quote!(::revad::__private::ScalarSink::add(&mut #adj, #local);)
            } else {
                quote!(#adj += #local;)
            };
            return (quote!(let mut #local = #zero;), quote!(&mut #local), add);
        }
        // The shape comes from the adjoint, or from the parameter when the adjoint is the
        // caller's sink.
        let (shape, add) = if self.is_sink(v) {
            let name = &var.name;
            let add = quote!(::revad::__private::ArraySink::add_all(&mut #adj, &#local[..]););
            (quote!(#name), add)
        } else {
            let add = quote!(::revad::__private::add_assign(&mut #adj[..], &#local[..]););
            (quote!(#adj), add)
        };
        (
            quote!(let mut #local = ::revad::__private::zeros_like(&#shape);),
            quote!(&mut #local[..]),
            add,
        )
    }

    /// `g::fwd(args)`, `recv.__ad_fwd_g(args)` or `Type::__ad_fwd_g(args)` for the companion
    /// `which` of the callee, or the primal callee for `None`.
    pub(super) fn companion_call(
        &self,
        call: &crate::ir::Call,
        which: Option<&str>,
        args: Vec<TokenStream>,
    ) -> TokenStream {
        // The primal callee takes `Fn`s: a function argument passed on is wrapped in one.
        let args = match which {
            None => self.function_args_as_closures(call, args),
            Some(_) => args,
        };
        if call.closures.is_empty() {
            return self.companion_call_as_is(call, which, args);
        }
        use super::closures::Which;
        let sweep = match which {
            None => Which::Primal,
            Some("fwd") => Which::Fwd,
            Some("rev") => Which::Rev,
            Some(_) => return quote!(::core::compile_error!("closure argument in a companion")),
        };
        // (A function passed by name without a derivative is reported by the split
        // companions' forward sweep only.)
        let check = self.store == Store::Sinks && matches!(sweep, Which::Fwd);
        super::closures::call(self.body, call, sweep, args, check, |args| {
            self.companion_call_as_is(call, which, args)
        })
    }

    /// `args` with each function argument of this function that they pass on (`&f`)
    /// replaced by a closure that calls it (`move |x0| Function1::call(&f, x0)`): the
    /// companions bound it by the runtime's traits, and the primal callee by `Fn`.
    fn function_args_as_closures(
        &self,
        call: &crate::ir::Call,
        mut args: Vec<TokenStream>,
    ) -> Vec<TokenStream> {
        for (k, arg) in call.args.iter().enumerate() {
            let Operand::Var(v) = arg else {
                continue;
            };
            let var = &self.body.vars[*v];
            let Some((index, _)) = var.param.and_then(|p| self.sig.params[p].function) else {
                continue;
            };
            let f = &self.sig.functions[index];
            let name = &var.name;
            let float = f.float.ident();
            let xs: Vec<syn::Ident> = (0..f.arity)
                .map(|i| format_ident!("__x{}", i, span = Span::mixed_site()))
                .collect();
            let function = format_ident!("Function{}", f.arity);
            if let Some(slot) = args.get_mut(k) {
                *slot = quote! {{
                    let __f = &#name;
                    move |#(#xs: #float),*| ::revad::__private::#function::call(__f, #(#xs),*)
                }};
            }
        }
        args
    }

    /// [`Self::companion_call`] with the arguments as given.
    fn companion_call_as_is(
        &self,
        call: &crate::ir::Call,
        which: Option<&str>,
        args: Vec<TokenStream>,
    ) -> TokenStream {
        use crate::ir::CalleeKind;
        let callee = &self.body.callees[call.callee];
        match &callee.kind {
            CalleeKind::Function => match which {
                Some(which) => {
                    let alias = &callee.alias;
                    let which = format_ident!("{}", which);
                    let turbofish = super::turbofish(&callee.path);
                    quote!(#alias::#which #turbofish(#(#args),*))
                }
                None => {
                    let path = &callee.path;
                    quote!(#path(#(#args),*))
                }
            },
            CalleeKind::Method(name) => {
                let method = match which {
                    Some(which) => companion_ident(name, which),
                    None => name.clone(),
                };
                let Some((receiver, rest)) = args.split_first() else {
                    return TokenStream::new();
                };
                // A receiver borrowed by `&mut` (`(&mut obj).m(obj.fa)`): the arguments are
                // evaluated first, as Rust's two-phase borrow of `obj.m(obj.fa)` allows.
                let by_mut = call.by_mut.first() == Some(&true) && !rest.is_empty();
                if by_mut && which != Some("rev") {
                    let names: Vec<syn::Ident> = (0..rest.len())
                        .map(|k| crate::ir::names::generated(&format!("ad_arg{k}")))
                        .collect();
                    return quote! {
                        match (#(#rest,)*) {
                            (#(#names,)*) => (#receiver).#method(#(#names),*),
                        }
                    };
                }
                quote!((#receiver).#method(#(#rest),*))
            }
            CalleeKind::Associated => {
                let Ok(mut path) = syn::parse2::<syn::Path>(callee.path.clone()) else {
                    return TokenStream::new();
                };
                if let (Some(which), Some(last)) = (which, path.segments.last_mut()) {
                    last.ident = companion_ident(&last.ident, which);
                }
                quote!(#path(#(#args),*))
            }
        }
    }

    /// For the `k`-th argument of a call that passes a part (`path`) of the aggregate `v`
    /// after another argument from `v`: a zeroed local sink shaped like the part, and the
    /// statement that adds it into the part's adjoint after the call.
    fn duplicate_place_sink(
        &self,
        v: VarId,
        path: Option<&crate::ir::Path>,
        k: usize,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let local = format_ident!("__dup{}", k, span = Span::mixed_site());
        let name = &self.body.vars[v].name;
        let adj = &self.adj[v];
        let (value, adj) = match path {
            Some(p) => (
                self.place(quote!(#name), p, false, false),
                self.place(quote!(#adj), p, true, true),
            ),
            None => (quote!(#name), quote!(#adj)),
        };
        (
            quote!(let mut #local = ::revad::__private::zeros_like(&#value);),
            quote!(&mut #local),
            quote!(::revad::__private::Accumulate::accumulate(&mut #adj, &#local);),
        )
    }

    /// Where the callee adds the adjoint of `arg` (or of the part `path` of the aggregate
    /// `arg`): `&mut __adj_a`, `&mut __adj_w[..]`, `&mut __adj_ps[i]`, or `Discard` for an
    /// argument that is not differentiated here (every kind of sink accepts it, an
    /// aggregate's `AggregateSink` too), but for an aggregate passed by `&mut` (`by_mut`),
    /// whose in-out sink is its adjoint.
    fn sink(&self, arg: &Operand, path: Option<&crate::ir::Path>, by_mut: bool) -> TokenStream {
        if let (Some(path), Operand::Var(v)) = (path, arg) {
            if self.plan.active(*v) {
                let place = self.adj_place(*v, path);
                return quote!(&mut #place);
            }
            if !by_mut {
                return quote!(::revad::__private::Discard);
            }
            let name = &self.body.vars[*v].name;
            let place = self.place(quote!(#name), path, false, false);
            return quote!(&mut ::revad::__private::zeros_like(&#place));
        }
        match arg {
            Operand::Var(v) if self.plan.active(*v) => {
                let adj = &self.adj[*v];
                if self.is_aggregate(*v) {
                    self.agg_adj_mut(*v)
                } else if self.is_sink(*v) && self.body.vars[*v].ty.is_array() {
                    quote!(::revad::__private::ArraySink::reborrow(&mut #adj))
                } else if self.is_sink(*v) {
                    quote!(::revad::__private::ScalarSink::reborrow(&mut #adj))
                } else if self.body.vars[*v].ty.is_array() {
                    quote!(&mut #adj[..])
                } else {
                    quote!(&mut #adj)
                }
            }
            // An aggregate's in-out sink is its adjoint: one the callee adds into and nobody
            // reads.
            Operand::Var(v) if by_mut && self.is_aggregate(*v) => {
                let name = &self.body.vars[*v].name;
                quote!(&mut ::revad::__private::zeros_like(&#name))
            }
            _ => quote!(::revad::__private::Discard),
        }
    }
}

/// The `&mut` arguments of `call` besides a method's receiver, passed as the callee's
/// parameter takes them (`&mut x`, or `&x` by Rust's coercion; the runtime's `Lend`): in the
/// forward sweep `lend(&mut x, &mut slot)`, in the reverse sweep `unlend(stack, &mut slot)`.
/// Returns the slots, to be declared before the call (and, forward, kept after it, last
/// first). `stack` is the value stack, `&mut` (`&mut *__stack`).
pub(super) fn lend_args(
    call: &crate::ir::Call,
    args: &mut [TokenStream],
    rev: bool,
    stack: &TokenStream,
) -> Vec<syn::Ident> {
    let mut slots = Vec::new();
    for (k, arg) in args.iter_mut().enumerate() {
        let by_mut = call.by_mut.get(k) == Some(&true);
        if !by_mut || call.method && k == 0 {
            continue;
        }
        let slot = crate::ir::names::generated(&format!("ad_lent{k}"));
        *arg = match rev {
            false => quote!(::revad::__private::lend(#arg, &mut #slot)),
            true => quote!(::revad::__private::unlend(#stack, &mut #slot)),
        };
        slots.push(slot);
    }
    slots
}
