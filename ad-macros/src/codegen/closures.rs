//! Closures passed to functions (`ir::lower::hoist`): the hidden function and struct of each,
//! and the calls that pass them.
//!
//! ```text
//! // Before                                   // After (items beside the caller)
//! integrate(|x| c * x * x, a, b)              #[revad::reverse] fn __ad_closure_outer_0(x: f64, c: f64) -> f64 { c * x * x }
//!                                             struct __AdClosure_outer_0<'a> { v0: f64, a0: &'a Cell<f64>, t0: f64, .. }
//!                                             impl ReverseFunction1<f64> for __AdClosure_outer_0<'_> { .. }
//! // In the reverse sweep of the caller:
//! let __cell0 = Cell::new(0.0);
//! integrate::rev(__AdClosure_outer_0 { v0: c, a0: &__cell0, .. }, a, b, seed, stack, Discard, sa, sb);
//! ScalarSink::add(&mut sink_c, __cell0.get());
//! ```
//!
//! The struct's impls call the hidden function's companions with the captured values; the
//! reverse sweep of the hidden function adds the adjoints of the captured variables into the
//! cells, which the caller adds into its own adjoints after the callee's reverse sweep.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Body, Call, CaptureKind, FloatTy, Hoisted};

/// For a free function of 1 to 4 floats of one type to a float of that type: the impls of
/// the runtime's function traits for its marker struct, so that it can be passed by name to
/// an annotated higher-order function (`integrate(cube, a, b)`). `call` adds the value's
/// trait (by the attribute that declares the marker).
pub(crate) fn marker_impls(
    func: &syn::ItemFn,
    sig: &crate::parse::Signature,
    forward: bool,
    call: bool,
) -> TokenStream {
    use crate::parse::{ParamKind, Passing, RetTy};
    let RetTy::Scalar(float) = sig.ret else {
        return TokenStream::new();
    };
    let n = sig.params.len();
    let scalars = sig.params.iter().all(|p| {
        matches!(p.kind, ParamKind::Scalar(t) if t == float) && p.passing == Passing::Value
    });
    if sig.in_impl || !func.sig.generics.params.is_empty() || !(1..=4).contains(&n) || !scalars {
        return TokenStream::new();
    }
    let name = &func.sig.ident;
    let inherited = super::inherited_attrs(func);
    let copy = call.then(|| {
        quote! {
            #inherited
            impl ::core::clone::Clone for #name {
                #[inline]
                fn clone(&self) -> Self {
                    *self
                }
            }
            #inherited
            impl ::core::marker::Copy for #name {}
        }
    });
    let imp = Impl {
        header: quote!(impl),
        target: quote!(#name),
        attrs: inherited,
        function: quote!(#name),
        arity: n,
        float,
        values: Vec::new(),
        sinks: Vec::new(),
        tangents: Vec::new(),
    };
    let traits = imp.traits(call, !forward, forward);
    quote!(#copy #traits)
}

/// The impls of the runtime's function traits for a value that stands for an annotated
/// function (`function`) called with its arguments then `values` (a lifted closure's captured
/// values; none for a function passed by name).
struct Impl {
    /// `impl<'a, T: Float>`.
    header: TokenStream,
    /// The implementing type.
    target: TokenStream,
    /// Attributes on each impl.
    attrs: TokenStream,
    function: TokenStream,
    arity: usize,
    float: FloatTy,
    /// The extra arguments (`__f.v0`), their sinks (`__f.a0`) and tangents (`__f.t0`).
    values: Vec<TokenStream>,
    sinks: Vec<TokenStream>,
    tangents: Vec<TokenStream>,
}

impl Impl {
    /// `FunctionN` (with `call`), `ReverseFunctionN` (with `reverse`), `ForwardFunctionN` (with
    /// `forward`).
    fn traits(&self, call: bool, reverse: bool, forward: bool) -> TokenStream {
        let Impl {
            header,
            target,
            attrs,
            function,
            arity,
            values,
            sinks,
            tangents,
            ..
        } = self;
        let t = self.float.ident();
        let n = *arity;
        let xs: Vec<syn::Ident> = (0..n).map(|k| field("x", k)).collect();
        let ts: Vec<syn::Ident> = (0..n).map(|k| field("tx", k)).collect();
        let ss: Vec<syn::Ident> = (0..n).map(|k| field("sx", k)).collect();
        let sts: Vec<syn::Ident> = (0..n).map(|k| format_ident!("__S{}", k)).collect();
        let stack = format_ident!("__stack", span = Span::mixed_site());
        let seed = format_ident!("__seed", span = Span::mixed_site());
        let value = call.then(|| {
            let tr = format_ident!("Function{}", n);
            quote! {
                #attrs
                #header ::revad::__private::#tr<#t> for #target {
                    #[inline]
                    fn call(__f: &Self, #(#xs: #t),*) -> #t {
                        #function(#(#xs,)* #(#values),*)
                    }
                }
            }
        });
        let reverse = reverse.then(|| {
            let tr = format_ident!("ReverseFunction{}", n);
            quote! {
                #attrs
                #header ::revad::__private::#tr<#t> for #target {
                    #[inline]
                    fn __ad_fwd_call(__f: &Self, #(#xs: #t,)* #stack: &mut ::revad::__private::ValueStack) -> #t {
                        #function::fwd(#(#xs,)* #(#values,)* #stack)
                    }
                    #[inline]
                    fn __ad_rev_call<__K, #(#sts: ::revad::__private::ScalarSink<#t>),*>(
                        __f: &Self,
                        #(#xs: #t,)*
                        #seed: #t,
                        #stack: &mut ::revad::__private::ValueStack,
                        _: __K,
                        #(#ss: #sts),*
                    ) {
                        #function::rev(#(#xs,)* #(#values,)* #seed, #stack, #(#ss,)* #(#sinks),*)
                    }
                }
            }
        });
        let forward = forward.then(|| {
            let tr = format_ident!("ForwardFunction{}", n);
            quote! {
                #attrs
                #header ::revad::__private::#tr<#t> for #target {
                    #[inline]
                    fn __ad_jvp_call<__K>(__f: &Self, #(#xs: #t,)* _: __K, #(#ts: #t),*) -> (#t, #t) {
                        #function::jvp(#(#xs,)* #(#values,)* #(#ts,)* #(#tangents),*)
                    }
                }
            }
        });
        quote!(#value #reverse #forward)
    }
}

/// Which companion of the callee a call goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Which {
    /// The function itself (no derivative flows through the call).
    Primal,
    /// `fwd(args.., stack)`.
    Fwd,
    /// `rev(args.., seed, stack, sinks..)`.
    Rev,
    /// `jvp(args.., tangents..)`.
    Jvp,
}

fn field(prefix: &str, k: usize) -> syn::Ident {
    format_ident!("{}{}", prefix, k, span = Span::mixed_site())
}

fn zero(float: FloatTy) -> TokenStream {
    let t = float.ident();
    quote!(<#t as ::revad::Float>::ZERO)
}

/// The items of every closure `body` lifts: the hidden function (with `#[revad::reverse]` and,
/// with `forward`, `#[revad::forward]`; with `forward` alone only the latter) and the struct
/// that implements the runtime's function traits. `generics` are the caller's float type
/// parameters.
pub(crate) fn items(
    body: &Body,
    generics: &[FloatTy],
    reverse: bool,
    forward: bool,
) -> TokenStream {
    body.hoisted
        .iter()
        .map(|h| one(h, generics, reverse, forward))
        .collect()
}

fn one(h: &Hoisted, generics: &[FloatTy], reverse: bool, forward: bool) -> TokenStream {
    let (function, object) = (&h.function, &h.object);
    let float = h.float.ident();
    let names: Vec<syn::Ident> = generics.iter().map(|g| g.ident()).collect();
    let bounded = quote!(#(#names: ::revad::Float),*);
    let attrs = {
        // `crate = ::revad` becomes the user's path with the rest (`krate`).
        let r = reverse.then(|| quote!(#[::revad::reverse(crate = ::revad)]));
        let f = forward.then(|| quote!(#[::revad::forward(crate = ::revad)]));
        quote!(#r #f)
    };
    let params = h.params.iter().map(|(p, ty)| quote!(#p: #ty));
    let captures = h.captures.iter().map(|c| {
        let ident = &c.ident;
        match &c.kind {
            CaptureKind::Scalar(t) => {
                let t = t.ident();
                quote!(#ident: #t)
            }
            CaptureKind::Array(t) => {
                let t = t.ident();
                quote!(#ident: &[#t])
            }
            CaptureKind::Other(ty) => quote!(#ident: #ty),
        }
    });
    let body = &h.body;
    // The signature at the closure (errors about it point there); the body as written, so
    // that errors inside it point at the user's code.
    let signature = quote_spanned_at(
        h.span,
        quote! {
            #attrs
            #[allow(dead_code, non_snake_case, unused_variables, unused_parens, clippy::all)]
            fn #function<#bounded>(#(#params,)* #(#captures),*) -> #float
        },
    );
    let hidden = quote! {
        #signature {
            #body
        }
    };
    // The struct: per capture its value, and for floats their adjoint cells and tangents.
    let mut fields = Vec::new();
    let mut values = Vec::new();
    let mut sinks = Vec::new();
    let mut tangents = Vec::new();
    for (k, c) in h.captures.iter().enumerate() {
        let (v, a, t) = (field("v", k), field("a", k), field("t", k));
        match &c.kind {
            CaptureKind::Scalar(f) => {
                let f = f.ident();
                fields.push(quote!(#v: #f, #a: &'a ::core::cell::Cell<#f>, #t: #f));
                sinks.push(quote!(__f.#a));
                tangents.push(quote!(__f.#t));
            }
            CaptureKind::Array(f) => {
                let f = f.ident();
                fields.push(quote!(#v: &'a [#f], #a: &'a [::core::cell::Cell<#f>], #t: &'a [#f]));
                sinks.push(quote!(__f.#a));
                tangents.push(quote!(__f.#t));
            }
            CaptureKind::Other(ty) => {
                fields.push(quote!(#v: #ty));
                sinks.push(quote!(::revad::__private::Discard));
                tangents.push(quote!(::revad::Zero));
            }
        }
        values.push(quote!(__f.#v));
    }
    let imp = Impl {
        header: quote!(impl<'a, #bounded>),
        target: quote!(#object<'a, #(#names),*>),
        attrs: TokenStream::new(),
        function: quote!(#function),
        arity: h.params.len(),
        float: h.float,
        values,
        sinks,
        tangents,
    };
    let traits = imp.traits(true, reverse, forward);
    quote! {
        #hidden
        #[doc(hidden)]
        #[derive(Clone, Copy)]
        #[allow(non_camel_case_types, dead_code)]
        struct #object<'a, #bounded> {
            #(#fields,)*
            __p: ::core::marker::PhantomData<(&'a (), #(#names,)*)>,
        }
        #traits
    }
}

/// The marker of a function passed by name (`cube {}`), which implements the function traits;
/// or, for a function without one (not annotated), a stand-in that implements them too
/// (`revad::__private::StandInFunction`), after one error at the argument that names the
/// function and says how to give it a derivative (with `check`: in one body only). The same
/// glob-import shadowing as a callee's
/// (`callee_imports`):
///
/// ```text
/// {
///     mod __ad_fn_values { pub use ::revad::__private::StandInFunction as __ad_fn_value; }
///     use __ad_fn_values::*;          // shadowed when `cube` has a marker (named `cube`)
///     use cube as __ad_fn_value;
///     { .. __require::<__ad_fn_value>(); }    // "`cube` has no derivative: .."
///     __ad_fn_value {}
/// }
/// ```
fn by_name(path: &TokenStream, which: Which, check: bool) -> TokenStream {
    let mixed = Span::mixed_site();
    let value = format_ident!("__ad_fn_value", span = mixed);
    let module = format_ident!("__ad_fn_values", span = mixed);
    let import = super::import_path(path);
    let name = import.to_string().replace(' ', "");
    let (marker, message) = match which {
        Which::Jvp => (
            quote!(::revad::__private::ForwardDifferentiable),
            super::messages::fill(super::messages::NO_FORWARD_DERIVATIVE, &name, ""),
        ),
        _ => (
            quote!(::revad::__private::Differentiable),
            super::messages::fill(super::messages::NO_DERIVATIVE, &name, ""),
        ),
    };
    let check = check.then(|| {
        let derivative = crate::ir::names::generated("Derivative");
        let require = crate::ir::names::generated("require");
        // (At the argument, so the error points at the user's code.)
        let mut at = value.clone();
        at.set_span(syn::spanned::Spanned::span(path));
        quote! {
            {
                #[diagnostic::on_unimplemented(
                    message = #message,
                    label = "passed by name to a differentiated function"
                )]
                trait #derivative {}
                impl<F: ?::core::marker::Sized + #marker> #derivative for F {}
                fn #require<F: ?::core::marker::Sized + #derivative>() {}
                #require::<#at>();
            }
        }
    });
    quote! {
        {
            #[allow(non_snake_case)]
            mod #module {
                #[allow(unused_imports)]
                pub use ::revad::__private::StandInFunction as #value;
            }
            #[allow(unused_imports)]
            use #module::*;
            #[allow(unused_imports)]
            use #import as #value;
            #check
            #value {}
        }
    }
}

/// `tokens` located at `span` (the hidden items' errors point at the closure).
fn quote_spanned_at(span: Span, tokens: TokenStream) -> TokenStream {
    super::tokens::respan(tokens, span)
}

/// The call of `call`'s callee (by `emit`, given the arguments as the callee takes them)
/// with each lifted closure passed as its struct: `args` are those of the IR call as the
/// sweep `which` writes them (the captured variables at the end of each group). With
/// `check`, a function passed by name without a derivative is an error here (`by_name`).
pub(super) fn call(
    body: &Body,
    call: &Call,
    which: Which,
    args: Vec<TokenStream>,
    check: bool,
    emit: impl Fn(Vec<TokenStream>) -> TokenStream,
) -> TokenStream {
    let n = call.args.len();
    let captured = |i: usize| call.closures.iter().any(|c| c.captures.contains(&i));
    let values: Vec<TokenStream> = args[..n].to_vec();
    let real = |list: &[TokenStream]| -> Vec<TokenStream> {
        list.iter()
            .enumerate()
            .filter(|(i, _)| !captured(*i))
            .map(|(_, t)| t.clone())
            .collect()
    };
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut objects = Vec::new();
    for c in &call.closures {
        // A function passed by name: the function itself, or its marker.
        if let Some(path) = &c.item {
            let object = match which {
                Which::Primal => path.clone(),
                _ => by_name(path, which, check),
            };
            objects.push((c.position, object));
            continue;
        }
        let h = &body.hoisted[c.hoisted];
        let object = &h.object;
        let function = &h.function;
        let mut inits = Vec::new();
        let mut locals = Vec::new();
        for (k, (cap, i)) in h.captures.iter().zip(c.captures.clone()).enumerate() {
            let (v, a, t) = (field("v", k), field("a", k), field("t", k));
            let value = &values[i];
            let local = format_ident!("__cap{}_{}", c.hoisted, k, span = Span::mixed_site());
            locals.push(local.clone());
            match &cap.kind {
                CaptureKind::Scalar(f) => {
                    let z = zero(*f);
                    let (adj, tan) = match which {
                        Which::Rev => {
                            let cell = format_ident!(
                                "__cell{}_{}",
                                c.hoisted,
                                k,
                                span = Span::mixed_site()
                            );
                            before.push(quote!(let #cell = ::core::cell::Cell::new(#z);));
                            let sink = &args[n + 2 + i];
                            after.push(quote! {{
                                let mut __sink = #sink;
                                ::revad::__private::ScalarSink::add(&mut __sink, #cell.get());
                            }});
                            (quote!(&#cell), z.clone())
                        }
                        Which::Jvp => (quote!(&::core::cell::Cell::new(#z)), args[n + i].clone()),
                        _ => (quote!(&::core::cell::Cell::new(#z)), z.clone()),
                    };
                    inits.push(quote!(#v: #value, #a: #adj, #t: #tan));
                }
                CaptureKind::Array(f) => {
                    let (adj, tan) = match which {
                        Which::Rev => {
                            let cells = format_ident!(
                                "__cells{}_{}",
                                c.hoisted,
                                k,
                                span = Span::mixed_site()
                            );
                            let f = f.ident();
                            before.push(quote! {
                                let #cells = ::revad::__private::zero_cells::<#f>(
                                    <[#f]>::len(#value),
                                );
                            });
                            let sink = &args[n + 2 + i];
                            after.push(quote! {{
                                let mut __sink = #sink;
                                ::revad::__private::ArraySink::add_all(
                                    &mut __sink,
                                    &::revad::__private::cell_values(&#cells),
                                );
                            }});
                            (quote!(&#cells[..]), quote!(&[]))
                        }
                        Which::Jvp => (quote!(&[]), args[n + i].clone()),
                        _ => (quote!(&[]), quote!(&[])),
                    };
                    inits.push(quote!(#v: #value, #a: #adj, #t: #tan));
                }
                CaptureKind::Other(_) => inits.push(quote!(#v: #value)),
            }
        }
        let object_expr = match which {
            // The primal callee takes a closure: one that calls the hidden function.
            Which::Primal => {
                let xs: Vec<syn::Ident> = (0..h.params.len()).map(|k| field("x", k)).collect();
                let caps: Vec<&TokenStream> = c.captures.clone().map(|i| &values[i]).collect();
                quote! {{
                    #(let #locals = #caps;)*
                    move |#(#xs),*| #function(#(#xs,)* #(#locals),*)
                }}
            }
            _ => quote!(#object { #(#inits,)* __p: ::core::marker::PhantomData }),
        };
        let object_expr = match c.by_ref {
            true => quote!(&#object_expr),
            false => object_expr,
        };
        objects.push((c.position, object_expr));
    }
    // The callee's own arguments, with the closures in place.
    let insert = |mut list: Vec<TokenStream>, with: &dyn Fn(&TokenStream) -> TokenStream| {
        for (position, object) in &objects {
            list.insert(*position, with(object));
        }
        list
    };
    let own = insert(real(&values), &|o| o.clone());
    let args = match which {
        Which::Primal => own,
        Which::Fwd => {
            let mut a = own;
            a.push(args[n].clone());
            a
        }
        Which::Rev => {
            let mut a = own;
            a.push(args[n].clone());
            a.push(args[n + 1].clone());
            let sinks = insert(real(&args[n + 2..]), &|_| {
                quote!(::revad::__private::Discard)
            });
            a.extend(sinks);
            a
        }
        Which::Jvp => {
            let mut a = own;
            a.extend(insert(real(&args[n..]), &|_| quote!(::revad::Zero)));
            a
        }
    };
    let call = emit(args);
    match which {
        Which::Rev => quote! {{
            #(#before)*
            #call;
            #(#after)*
        }},
        _ => call,
    }
}
