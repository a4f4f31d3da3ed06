//! The function signature: which parameters are active, their shapes, the output shape.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{FnArg, Ident, Pat, ReturnType, Type};

use super::Args;
use crate::error::Errors;
use crate::ir::FloatTy;

/// A validated signature.
#[derive(Clone)]
pub(crate) struct Signature {
    pub params: Vec<Param>,
    /// The return type (`Unit` only for a function with `&mut` float parameters).
    pub ret: RetTy,
    /// Whether the signature had no error (only then are `NAME_grad` and `NAME_vjp` emitted).
    pub valid: bool,
    /// The precision of literals that nothing else pins down: the first float type
    /// parameter of a generic function, else `f32` when every float parameter is `f32`, else
    /// `f64`.
    pub default_float: FloatTy,
    /// The type parameters bounded by a float trait (`fn f<T: Float>`, `T: num_traits::Float`,
    /// `T: Add<Output = T>`): float types of the function, like `f64` and `f32`.
    pub generics: Vec<FloatTy>,
    /// A method or an associated function (it has a receiver, its signature or its body
    /// names `Self`, or `#[revad::reverse]` on its inherent `impl` block says so:
    /// [`Args::in_impl`]): the generated items are associated functions beside it, and its
    /// companions are `__ad_fwd_NAME` and `__ad_rev_NAME` instead of a marker struct.
    pub in_impl: bool,
    /// The type parameters bounded by `Fn(floats..) -> float`: the types of function
    /// arguments (`super::functions`).
    pub functions: Vec<super::functions::FunctionType>,
    /// Every float type parameter is bounded by another crate's trait only
    /// (`num_traits::Float`, `Real`, `RealField`, operators), none by one that may be the
    /// library's (a bare `Float` may be either): `x.to_f64()` is `ToPrimitive`'s.
    pub foreign_bounds: bool,
    /// The function's name.
    pub name: Ident,
    /// `#[reverse(recompute)]`: the split companions keep only the arguments, and `NAME::rev`
    /// runs the forward sweep again (`codegen::tape::split`).
    pub recompute: bool,
}

/// One parameter.
#[derive(Clone)]
pub(crate) struct Param {
    pub ident: Ident,
    pub mutable: bool,
    pub ty: Type,
    pub kind: ParamKind,
    /// How a float parameter is passed (by value, `&`, `&mut`).
    pub passing: Passing,
    /// Differentiated with respect to (its adjoint is part of the gradient).
    pub active: bool,
    /// Its type was rejected (an error was reported): uses of it in the body report nothing.
    pub rejected: bool,
    /// A function argument (`f: F`, `f: &F` with `F: Fn(f64) -> f64`): the index of its type
    /// in [`Signature::functions`], and whether it is passed by reference.
    pub function: Option<(usize, bool)>,
}

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Passing {
    /// By value (`x: f64`, `v: Vec<f64>`), or a shared reference to an array or slice
    /// (`&[f64]`), which the body uses as it is.
    Value,
    /// A shared reference to a float (`x: &f64`): the body works on the value it points to.
    Ref,
    /// A `&mut` float or float array (`&mut f64`, `&mut [f64]`, `&mut Vec<f64>`, `&mut [f64;
    /// N]`): an input (its value on entry) and an output (its value on return), like
    /// Enzyme's `Duplicated`. The body works on a copy, written back at the end.
    MutRef,
}

/// The shape of a parameter, as far as differentiation cares.
#[derive(Clone, Debug)]
pub(crate) enum ParamKind {
    /// `f64`, `f32` or a float type parameter `T`.
    Scalar(FloatTy),
    /// `[f64; N]` or `&[f64; N]` (and so on for `f32` and `T`).
    Array { elem: FloatTy, len: TokenStream },
    /// `&[f64]`, `Vec<f64>`, `&Vec<f64>`.
    Slice { elem: FloatTy },
    /// A user type, a nested container (`Vec<Vec<f64>>`, `[[f64; 3]; 3]`, `&[Particle]`),
    /// a tuple, `self`: `ty` is the type of the value (without the reference). Its adjoint is
    /// `<ty as revad::Adjoint>::Adj`, and the body reaches its floats by paths (`p.pos[0]`).
    Aggregate { ty: TokenStream },
    /// Integers, `bool`, `char`, strings, containers of these, function types: never
    /// differentiated.
    Inactive,
}

impl ParamKind {
    /// The float type of a float parameter (`f64` for an inactive one).
    pub(crate) fn elem(&self) -> FloatTy {
        match self {
            ParamKind::Scalar(t)
            | ParamKind::Array { elem: t, .. }
            | ParamKind::Slice { elem: t } => *t,
            ParamKind::Aggregate { .. } | ParamKind::Inactive => FloatTy::F64,
        }
    }

    /// The type of this parameter's adjoint in the gradient: `f64`, `[f64; N]`, `Vec<f64>`.
    pub(crate) fn adjoint_type(&self) -> Option<TokenStream> {
        match self {
            ParamKind::Scalar(t) => Some(t.ident().into_token_stream()),
            ParamKind::Array { elem, len } => {
                let elem = elem.ident();
                Some(quote!([#elem; #len]))
            }
            ParamKind::Slice { elem } => {
                let elem = elem.ident();
                Some(quote!(::std::vec::Vec<#elem>))
            }
            ParamKind::Aggregate { ty } => Some(adjoint_of(ty)),
            ParamKind::Inactive => None,
        }
    }
}

/// `<ty as ::revad::Adjoint>::Adj`: the adjoint type of a user type or nested container.
/// Located at the type, so that a type without an adjoint is reported there. The adjoint of
/// a reference is that of its target and does not depend on lifetimes: references inside the
/// type get `'static` (a return type cannot elide them).
pub(crate) fn adjoint_of(ty: &TokenStream) -> TokenStream {
    let span = type_span(ty);
    let ty = match syn::parse2::<Type>(ty.clone()) {
        Ok(mut parsed) => {
            StaticLifetimes.visit_type_mut(&mut parsed);
            parsed.to_token_stream()
        }
        Err(_) => ty.clone(),
    };
    // In an invisible group, which the generated code's respans leave at the type: every use
    // is then the same obligation at the same span, and a type without an adjoint is one
    // error (rustc reports each obligation once per span).
    let adj = quote::quote_spanned!(span=> <#ty as ::revad::Adjoint>::Adj);
    proc_macro2::TokenTree::Group(proc_macro2::Group::new(proc_macro2::Delimiter::None, adj)).into()
}

/// `<ty as ::revad::Adjoint>::NAME`, the function `name` of the adjoint of a user type, located
/// at the type like [`adjoint_of`] (and, like it, in an invisible group that respans leave
/// there): a type without an adjoint is the same error as in the signature, reported once.
pub(crate) fn adjoint_fn(ty: &TokenStream, name: &str) -> TokenStream {
    let span = type_span(ty);
    let name = Ident::new(name, span);
    let path = quote::quote_spanned!(span=> <#ty as ::revad::Adjoint>::#name);
    proc_macro2::TokenTree::Group(proc_macro2::Group::new(proc_macro2::Delimiter::None, path))
        .into()
}

/// Where errors about the user type `ty` (of an aggregate, without its references) are
/// reported: its first token. Every use of the type's adjoint is located there, so that a
/// type without an adjoint is one error.
pub(crate) fn type_span(ty: &TokenStream) -> proc_macro2::Span {
    ty.clone()
        .into_iter()
        .next()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

impl Param {
    /// Where errors about this parameter's type are reported: for an aggregate, where those
    /// about its adjoint are ([`type_span`]); else the type.
    pub(crate) fn type_span(&self) -> proc_macro2::Span {
        match &self.kind {
            ParamKind::Aggregate { ty } => type_span(ty),
            _ => syn::spanned::Spanned::span(&self.ty),
        }
    }
}

/// Gives every reference in a type the lifetime `'static` (see `adjoint_of`).
struct StaticLifetimes;

impl syn::visit_mut::VisitMut for StaticLifetimes {
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        r.lifetime = Some(syn::Lifetime::new(
            "'static",
            proc_macro2::Span::call_site(),
        ));
        syn::visit_mut::visit_type_reference_mut(self, r);
    }

    fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
        *l = syn::Lifetime::new("'static", l.span());
    }
}

use syn::visit_mut::VisitMut as _;

/// The shape of the return type.
#[derive(Clone, Debug)]
pub(crate) enum RetTy {
    /// `()`: a function whose results are its `&mut` parameters.
    Unit,
    Scalar(FloatTy),
    Array {
        elem: FloatTy,
        len: TokenStream,
    },
    Vec(FloatTy),
    Tuple(Vec<RetTy>),
    /// A user type or nested container: its seed is its adjoint type.
    Aggregate(TokenStream),
    /// A value without derivatives (`bool`, an integer, `char`) returned beside `&mut` float
    /// parameters, which are the function's differentiated results (`fn step(x: &mut f64)
    /// -> bool`): returned as is, with no seed (like `()`).
    Inactive,
}

impl RetTy {
    /// The type of the seed (the adjoint of the output).
    pub(crate) fn seed_type(&self) -> TokenStream {
        match self {
            RetTy::Unit | RetTy::Inactive => quote!(()),
            RetTy::Scalar(t) => t.ident().into_token_stream(),
            RetTy::Array { elem, len } => {
                let elem = elem.ident();
                quote!([#elem; #len])
            }
            RetTy::Vec(t) => {
                let t = t.ident();
                quote!(::std::vec::Vec<#t>)
            }
            RetTy::Tuple(items) => {
                let items = items.iter().map(RetTy::seed_type);
                quote!((#(#items,)*))
            }
            RetTy::Aggregate(ty) => adjoint_of(ty),
        }
    }

    fn floats(&self, out: &mut Vec<FloatTy>) {
        match self {
            RetTy::Scalar(t) | RetTy::Array { elem: t, .. } | RetTy::Vec(t) => out.push(*t),
            RetTy::Tuple(items) => items.iter().for_each(|i| i.floats(out)),
            RetTy::Unit | RetTy::Aggregate(_) | RetTy::Inactive => {}
        }
    }
}

impl Signature {
    /// Validates `sig` against the public contract (which parameters are active and their
    /// adjoint types: the crate docs, `docs/generated.md`), reporting every problem.
    /// Returns `None` when the signature is unusable.
    ///
    /// The result is `valid: false` after an error; it is still good enough to lower the body
    /// (a rejected parameter is kept as an inactive one, a rejected return type becomes
    /// `f64`), so that errors in the body are reported too.
    #[cfg(test)]
    pub(crate) fn from_syn(cx: &Errors, sig: &syn::Signature, args: &Args) -> Signature {
        Signature::from_parts(cx, sig, None, args)
    }

    /// [`Signature::from_syn`] for the function `func`, whose body also tells its own types
    /// from type parameters (`V2 { .. }` is a struct).
    pub(crate) fn from_fn(cx: &Errors, func: &syn::ItemFn, args: &Args) -> Signature {
        Signature::from_parts(cx, &func.sig, Some(&func.block), args)
    }

    fn from_parts(
        cx: &Errors,
        sig: &syn::Signature,
        body: Option<&syn::Block>,
        args: &Args,
    ) -> Signature {
        let before = cx.count();
        reject_qualifiers(cx, sig);
        let in_impl = args.in_impl
            || sig.inputs.iter().any(|a| matches!(a, FnArg::Receiver(_)))
            || mentions_self(&sig.to_token_stream());
        let all = with_impl_floats(&sig.generics, args.impl_generics.as_ref());
        let (generics, functions, foreign_bounds) = float_params(cx, &all);
        let unseen = match in_impl && args.impl_generics.is_none() {
            true => reject_unseen_impl_params(cx, sig, body),
            false => Vec::new(),
        };
        reject_mut_user_type_params(cx, sig, &generics, &functions);
        let mut params = Vec::new();
        for input in &sig.inputs {
            if let Some(mut param) = read_param(cx, input, &generics, &functions) {
                // (Of a type the error above named: its uses report nothing more.)
                let mentions = |ty: &syn::Type| {
                    let tokens = ty.to_token_stream().to_string();
                    unseen.iter().any(|u| {
                        tokens
                            .split(|c: char| !c.is_alphanumeric() && c != '_')
                            .any(|w| u == w)
                    })
                };
                if mentions(&param.ty) {
                    param.rejected = true;
                }
                params.push(param);
            }
        }
        let outputs = params
            .iter()
            .any(|p| p.passing == Passing::MutRef && !p.rejected);
        let ret = read_return(cx, sig, outputs, &generics);
        let params_ok = cx.count() == before;
        mark_active(cx, &sig.inputs, &mut params, args, params_ok);
        let valid = cx.count() == before && ret.is_some();
        let ret = ret.unwrap_or(RetTy::Scalar(FloatTy::F64));
        let mut floats: Vec<FloatTy> = params
            .iter()
            .filter_map(|p| match &p.kind {
                ParamKind::Scalar(t) | ParamKind::Array { elem: t, .. } => Some(*t),
                ParamKind::Slice { elem } => Some(*elem),
                ParamKind::Aggregate { .. } | ParamKind::Inactive => None,
            })
            .collect();
        ret.floats(&mut floats);
        let default_float = match generics.first() {
            Some(t) => *t,
            None if !floats.is_empty() && floats.iter().all(|t| *t == FloatTy::F32) => FloatTy::F32,
            None => FloatTy::F64,
        };
        Signature {
            params,
            ret,
            default_float,
            generics,
            valid,
            in_impl,
            functions,
            foreign_bounds,
            name: sig.ident.clone(),
            recompute: args.recompute.is_some(),
        }
    }

    /// The float precision named by `ty`: `f64`, `f32`, or a float type parameter (`T`).
    pub(crate) fn float_of(&self, ty: &Type) -> Option<FloatTy> {
        float_of_in(ty, &self.generics)
    }

    /// The float type named `ident` (`f64`, `f32`, `T`), as in the path `T::ZERO`.
    pub(crate) fn float_named(&self, ident: &Ident) -> Option<FloatTy> {
        float_named(ident, &self.generics)
    }

    /// The float type a path names in one of its segments: `f64` in `f64::EPSILON` and
    /// `std::f64::consts::PI`, `T` in `T::ZERO` and `<T as Float>::ONE` (the qualified
    /// self type `qself`).
    pub(crate) fn float_in_path(
        &self,
        qself: Option<&syn::QSelf>,
        path: &syn::Path,
    ) -> Option<FloatTy> {
        let qualified = qself.and_then(|q| self.float_of(&q.ty));
        qualified.or_else(|| {
            path.segments
                .iter()
                .find_map(|s| self.float_named(&s.ident))
        })
    }

    /// The same signature with every float parameter active (for split companions).
    pub(crate) fn all_active(&self) -> Signature {
        let mut sig = self.clone();
        for p in &mut sig.params {
            // (A struct or other aggregate that `wrt` leaves out stays out: its type need
            // not have an adjoint.)
            p.active = match p.kind {
                ParamKind::Inactive => false,
                ParamKind::Aggregate { .. } => p.active,
                _ => true,
            };
        }
        sig
    }

    /// The `&mut` float parameters, in order: the function's other outputs.
    pub(crate) fn outputs(&self) -> impl Iterator<Item = (usize, &Param)> {
        self.params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.passing == Passing::MutRef && !p.rejected)
    }

    /// The type of the gradient: the adjoint of the one active parameter, or a tuple of them.
    pub(crate) fn gradient_type(&self) -> TokenStream {
        let adjoints: Vec<TokenStream> = self
            .params
            .iter()
            .filter(|p| p.active)
            .filter_map(|p| p.kind.adjoint_type())
            .collect();
        match adjoints.as_slice() {
            [one] => one.clone(),
            many => quote!((#(#many,)*)),
        }
    }
}

/// Whether `tokens` name the type `Self`.
pub(crate) fn mentions_self(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "Self",
        proc_macro2::TokenTree::Group(g) => mentions_self(&g.stream()),
        _ => false,
    })
}

/// `async`, `unsafe`, `extern`, generics and variadics change what a caller can do with the
/// function; the generated functions could not mirror them faithfully.
fn reject_qualifiers(cx: &Errors, sig: &syn::Signature) {
    // A method named like a float intrinsic or a method without a derivative (`p.round()`,
    // `v.len()`) would be taken for that at its calls, with that derivative: rejected here.
    let name = sig.ident.to_string();
    if sig.receiver().is_some()
        && (crate::rules::lookup(&name).is_some()
            || crate::rules::KILLING_METHODS.contains(&name.as_str()))
    {
        cx.error(
            &sig.ident,
            format!(
                "#[reverse] takes a call `.{name}()` for the float method or the length of the \
                 same name, whose derivative this method does not have; rename the method \
                 (`{name}_of`, `length`, ...)"
            ),
        );
    }
    if let Some(token) = &sig.asyncness {
        cx.error(
            token,
            "`async fn` is not supported by #[reverse]; differentiate a plain `fn` and call it \
             from the async code",
        );
    }
    if let Some(token) = &sig.unsafety {
        cx.error(
            token,
            "`unsafe fn` is not supported by #[reverse]; differentiable code must be safe Rust",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error(
            abi,
            "`extern` functions are not supported by #[reverse]; remove the ABI, or wrap a \
             plain `fn` that #[reverse] can differentiate",
        );
    }
    for param in sig.generics.params.iter() {
        match param {
            // (Type parameters: `float_params`.)
            syn::GenericParam::Lifetime(_)
            | syn::GenericParam::Type(_)
            | syn::GenericParam::Const(_) => {}
        }
    }
    if let Some(variadic) = &sig.variadic {
        cx.error(
            variadic,
            "variadic functions are not supported by #[reverse]",
        );
    }
}

/// The type parameters bounded by a float trait (`revad::Float`, `num_traits::Float`, `Real`)
/// or by an arithmetic operator of their own type ([`is_float_like_bound`]), in the `<..>`
/// list or in the `where` clause: float types of the function; and those bounded by `Fn`
/// traits, function arguments. A type parameter bounded by a trait of the user's (`M: Model`,
/// `user_type_bound`) is a user type, whose values are aggregates (their derivatives are the
/// trait's, with `#[reverse]` on it). Any other type parameter is an error: the macro could
/// not tell whether its values carry derivatives.
fn float_params(
    cx: &Errors,
    generics: &syn::Generics,
) -> (Vec<FloatTy>, Vec<super::functions::FunctionType>, bool) {
    let mut floats = Vec::new();
    let mut foreign = true;
    let mut pending = Vec::new();
    for param in generics.type_params() {
        let in_where = where_predicates_on(generics, &param.ident).flat_map(|t| &t.bounds);
        let bounds: Vec<&syn::TypeParamBound> = param.bounds.iter().chain(in_where).collect();
        if let Some(f) = super::functions::fn_bound(cx, bounds.iter().copied()) {
            pending.push((&param.ident, f));
            continue;
        }
        let float_like = bounds.iter().any(|b| is_float_like_bound(b, &param.ident));
        if !float_like && user_type_bound(&bounds) {
            // A type of the user's, bounded by a trait (`M: Model`): its values are
            // aggregates, whose derivatives the bound's trait declares (`#[reverse]` on the
            // trait), and whose adjoint is `<M as revad::Adjoint>::Adj`.
            continue;
        }
        if !float_like {
            let name = &param.ident;
            // Another crate's `Float` (`nalgebra::ComplexField`'s `Float`) is named, so that
            // the user sees why it is not taken.
            let other = bounds.iter().find_map(|b| match b {
                syn::TypeParamBound::Trait(t)
                    if t.path.segments.last().is_some_and(|s| s.ident == "Float") =>
                {
                    Some(t.path.to_token_stream().to_string().replace(' ', ""))
                }
                _ => None,
            });
            let found = match other {
                Some(other) => format!("`{name}` is bounded by `{other}`, not by a float trait"),
                None => format!("`{name}` is not bounded by a float trait"),
            };
            cx.error(
                param,
                format!(
                    "#[reverse] differentiates generic functions over float types only, and \
                     {found}; write `{name}: Float` (`revad::Float` or `num_traits::Float`), \
                     `{name}: num_traits::real::Real`, or arithmetic bounds \
                     (`{name}: Copy + Add<Output = {name}> + Mul<Output = {name}>`), or write \
                     the function for a concrete type"
                ),
            );
            continue;
        }
        foreign &= !bounds.iter().any(|b| is_float_bound(b));
        floats.push(FloatTy::generic(&param.ident.to_string()));
    }
    let functions = pending
        .into_iter()
        .map(|(ident, f)| {
            f.ok()
                .and_then(|f| super::functions::read(cx, ident, f, |ty| float_of_in(ty, &floats)))
                .unwrap_or_else(|| super::functions::rejected(ident))
        })
        .collect();
    (floats, functions, foreign)
}

/// In a method whose `impl` block has no `#[revad::reverse]` (which would pass the block's
/// generics, [`Args::impl_generics`]), a type named like a type parameter (`T`, `F2`) that the
/// function does not declare: the block's, which the attribute on the method cannot see (it
/// would take its values for a user type's). An error once per name, which says to annotate
/// the block; a type of the user's with such a name is accepted there, and so is a name the
/// body builds as a struct (`V2 { x, y }`, `V2::new(..)`, `V2::default()`), which no float
/// type parameter can be.
fn reject_unseen_impl_params(
    cx: &Errors,
    sig: &syn::Signature,
    body: Option<&syn::Block>,
) -> Vec<Ident> {
    struct Structs(Vec<Ident>);
    impl<'a> syn::visit::Visit<'a> for Structs {
        fn visit_expr_struct(&mut self, e: &'a syn::ExprStruct) {
            if let Some(ident) = e.path.get_ident() {
                self.0.push(ident.clone());
            }
            syn::visit::visit_expr_struct(self, e);
        }
        // `V2::new(..)`, `V2::default()`: constructors no float type parameter has.
        fn visit_expr_path(&mut self, e: &'a syn::ExprPath) {
            let segments: Vec<&syn::PathSegment> = e.path.segments.iter().collect();
            if let [ty, f] = segments[..] {
                if e.qself.is_none() && (f.ident == "new" || f.ident == "default") {
                    self.0.push(ty.ident.clone());
                }
            }
            syn::visit::visit_expr_path(self, e);
        }
    }
    let mut structs = Structs(Vec::new());
    if let Some(body) = body {
        syn::visit::Visit::visit_block(&mut structs, body);
    }
    struct Find<'a> {
        declared: Vec<&'a Ident>,
        found: Vec<Ident>,
    }
    impl<'a> syn::visit::Visit<'a> for Find<'_> {
        fn visit_type_path(&mut self, p: &'a syn::TypePath) {
            if let (None, Some(ident)) = (&p.qself, p.path.get_ident()) {
                let name = ident.to_string();
                let mut chars = name.chars();
                // (`T`, `F`, `T2`; not `V2` or `P3`, which name vectors and points.)
                let first = chars.next();
                let looks_generic = first.is_some_and(|c| c.is_ascii_uppercase())
                    && match chars.next() {
                        None => true,
                        Some(d) => {
                            d.is_ascii_digit()
                                && chars.next().is_none()
                                && first.is_some_and(|c| matches!(c, 'T' | 'U' | 'F' | 'S'))
                        }
                    };
                if looks_generic
                    && !self.declared.contains(&ident)
                    && !self.found.iter().any(|f| f == ident)
                {
                    self.found.push(ident.clone());
                }
            }
            syn::visit::visit_type_path(self, p);
        }
    }
    let mut find = Find {
        declared: sig
            .generics
            .type_params()
            .map(|t| &t.ident)
            .chain(&structs.0)
            .collect(),
        found: Vec::new(),
    };
    for input in &sig.inputs {
        if let FnArg::Typed(t) = input {
            syn::visit::Visit::visit_type(&mut find, &t.ty);
        }
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        syn::visit::Visit::visit_type(&mut find, ty);
    }
    for ident in &find.found {
        cx.error(
            ident,
            format!(
                "`{ident}` is not a type parameter of this function: if it is one of the `impl` \
                 block's, the attribute on the function cannot see it; put #[revad::reverse] on \
                 the block too (`#[revad::reverse] impl<{ident}: revad::Float> ..`), which makes \
                 the block's float type parameters the function's"
            ),
        );
    }
    find.found
}

/// The function's generics and, after them, the type parameters of its generic `impl` block
/// ([`Args::impl_generics`]) that a float trait bounds there (`impl<T: Float> Model<T>`), with
/// the block's `where` predicates on them: the block's float types are the function's too.
/// (The block's other parameters are not the function's to judge: types of the user's.)
fn with_impl_floats(own: &syn::Generics, block: Option<&syn::Generics>) -> syn::Generics {
    let mut all = own.clone();
    let Some(block) = block else {
        return all;
    };
    let floats = float_like_params(block);
    for param in block.type_params() {
        let ident = &param.ident;
        if !floats.contains(&ident) {
            continue;
        }
        let mut param = param.clone();
        param.eq_token = None;
        param.default = None;
        all.params.push(syn::GenericParam::Type(param));
        for t in where_predicates_on(block, ident) {
            all.make_where_clause()
                .predicates
                .push(syn::WherePredicate::Type(t.clone()));
        }
    }
    all
}

/// The type parameters of `generics` that are float types where they are declared: bounded by
/// a float trait or an arithmetic operator of their own type ([`is_float_like_bound`]), in the
/// `<..>` list or in the `where` clause (`trait Model<T: Float>`).
pub(crate) fn float_like_params(generics: &syn::Generics) -> Vec<&Ident> {
    generics
        .type_params()
        .filter(|param| {
            let ident = &param.ident;
            param
                .bounds
                .iter()
                .chain(where_predicates_on(generics, ident).flat_map(|t| &t.bounds))
                .any(|b| is_float_like_bound(b, ident))
        })
        .map(|param| &param.ident)
        .collect()
}

/// The `where` predicates of `generics` that bound the type parameter `ident` itself
/// (`where T: Float`; not `where Vec<T>: ..` nor `where <T as X>::Y: ..`).
fn where_predicates_on<'a>(
    generics: &'a syn::Generics,
    ident: &'a Ident,
) -> impl Iterator<Item = &'a syn::PredicateType> {
    generics
        .where_clause
        .iter()
        .flat_map(|w| &w.predicates)
        .filter_map(|p| match p {
            syn::WherePredicate::Type(t) => Some(t),
            _ => None,
        })
        .filter(move |t| {
            matches!(&t.bounded_ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident(ident))
        })
}

/// Whether `bound` makes the type parameter `param` a float type of the function: the
/// library's `Float` ([`is_float_bound`]), `num-traits`' `Float` or `Real`
/// (`num_traits::Float`, `num_traits::real::Real`, `Real`, under any path through
/// `num_traits`), `nalgebra`'s `RealField`, or an arithmetic operator of std whose output is
/// `param`
/// (`Add<Output = T>`, `Mul<Output = T>`, ..; then only arithmetic is possible in the body).
///
/// The generated companions require `param: ::revad::Float` besides the user's bounds
/// ([`require_float_bounds`]): the function is differentiated where it is instantiated at a
/// type of the library's `Float` (`f64`, `f32`, the dual numbers, which implement
/// `num_traits::Float` too).
fn is_float_like_bound(bound: &syn::TypeParamBound, param: &Ident) -> bool {
    if is_float_bound(bound) {
        return true;
    }
    let syn::TypeParamBound::Trait(t) = bound else {
        return false;
    };
    if !matches!(t.modifier, syn::TraitBoundModifier::None) {
        return false;
    }
    let Some(last) = t.path.segments.last() else {
        return false;
    };
    let through_num_traits = t.path.segments.iter().any(|s| s.ident == "num_traits");
    let plain = last.arguments.is_empty();
    match last.ident.to_string().as_str() {
        "Float" => plain && through_num_traits,
        "Real" => plain && (through_num_traits || t.path.segments.len() == 1),
        // `nalgebra::RealField` (`simba`'s), which `f64` and `f32` implement.
        "RealField" => plain,
        "Add" | "Sub" | "Mul" | "Div" | "Rem" | "Neg" => output_is(last, param),
        _ => false,
    }
}

/// Whether the operator trait `segment` (`Add<Output = T>`, `Mul<T, Output = T>`) has the
/// output `param`.
fn output_is(segment: &syn::PathSegment, param: &Ident) -> bool {
    let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
        return false;
    };
    args.args.iter().any(|a| {
        matches!(a, syn::GenericArgument::AssocType(assoc)
            if assoc.ident == "Output"
                && matches!(&assoc.ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident(param)))
    })
}

/// `func` with `T: ::revad::Float` added to its `where` clause for every float type
/// parameter `T` of `sig`: the generated items call the rules, which need the library's
/// trait, while the user's bounds may be `num_traits::Float` or arithmetic operators. The
/// original function keeps its bounds, so it stays callable on other types; the generated
/// items exist where the type is one of the library's floats (`f64`, `f32`, dual numbers).
/// (A bound already there, `T: revad::Float`, is harmless twice; the predicate is added
/// always, since a bare `Float` may be `num_traits::Float`.)
pub(crate) fn require_float_bounds(func: &mut syn::ItemFn, sig: &Signature) {
    if sig.generics.is_empty() {
        return;
    }
    let predicates = func.sig.generics.make_where_clause();
    for t in &sig.generics {
        let ident = t.ident();
        predicates
            .predicates
            .push(syn::parse_quote!(#ident: ::revad::Float));
    }
}

/// A `&mut M` parameter of a type parameter `M` of the user's (`M: Model`): rejected, with
/// what to write instead (the generated code would need `M: Clone + Send + 'static` and more).
fn reject_mut_user_type_params(
    cx: &Errors,
    sig: &syn::Signature,
    floats: &[FloatTy],
    functions: &[super::functions::FunctionType],
) {
    for param in sig.generics.type_params() {
        let name = param.ident.to_string();
        let is_float = floats.iter().any(|f| *f == FloatTy::generic(&name));
        let is_function = functions.iter().any(|f| f.ident == param.ident);
        if is_float || is_function {
            continue;
        }
        for input in &sig.inputs {
            let FnArg::Typed(t) = input else { continue };
            let Type::Reference(r) = &*t.ty else { continue };
            let named = matches!(&*r.elem, Type::Path(p) if p.qself.is_none() && p.path.is_ident(&param.ident));
            if r.mutability.is_some() && named {
                cx.error(
                    &t.ty,
                    format!(
                        "#[reverse] does not take a `&mut` parameter of a generic type \
                         (`&mut {name}`) yet; take `&{name}` and return the new value, or \
                         write the function for a concrete type"
                    ),
                );
            }
        }
    }
}

/// Whether `bounds` make a type parameter a type of the user's: a bound by a trait of the
/// user's (`M: Model`, `M: Model + Clone`), not a float trait (`Float`, of any crate: another
/// crate's is an error that says so), nor a trait of the standard library (by its path,
/// `std::..` or `core::..`, or by one of the names of its prelude and operators).
fn user_type_bound(bounds: &[&syn::TypeParamBound]) -> bool {
    const STD: &[&str] = &[
        "Float",
        "Fn",
        "FnMut",
        "FnOnce",
        "Sized",
        "Copy",
        "Clone",
        "Send",
        "Sync",
        "Into",
        "From",
        "TryInto",
        "TryFrom",
        "AsRef",
        "AsMut",
        "Borrow",
        "Debug",
        "Display",
        "Default",
        "PartialEq",
        "Eq",
        "PartialOrd",
        "Ord",
        "Hash",
        "Iterator",
        "IntoIterator",
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Rem",
        "Neg",
        "Deref",
        "ToString",
        "ToOwned",
        "Unpin",
    ];
    bounds.iter().any(|b| match b {
        syn::TypeParamBound::Trait(t) => {
            let first = t.path.segments.first().map(|s| s.ident.to_string());
            matches!(t.modifier, syn::TraitBoundModifier::None)
                && !matches!(first.as_deref(), Some("std" | "core" | "alloc"))
                && t.path
                    .segments
                    .last()
                    .is_some_and(|s| !STD.iter().any(|n| s.ident == n))
        }
        _ => false,
    })
}

/// Whether `bound` is the library's float trait: `Float`, `revad::Float` or `::revad::Float`, or
/// under the name the caller's manifest gives `revad` (not
/// another crate's trait of that name, `num_traits::Float`, whose types the generated code
/// could not use).
fn is_float_bound(bound: &syn::TypeParamBound) -> bool {
    let syn::TypeParamBound::Trait(t) = bound else {
        return false;
    };
    if !matches!(t.modifier, syn::TraitBoundModifier::None) {
        return false;
    }
    let segments: Vec<&syn::PathSegment> = t.path.segments.iter().collect();
    let plain = |s: &syn::PathSegment| s.arguments.is_empty();
    match segments.as_slice() {
        [last] => last.ident == "Float" && plain(last),
        [krate, last] => {
            (krate.ident == "revad"
                || krate.ident == "revad_runtime"
                || crate::krate::user_name().is_some_and(|name| krate.ident == name))
                && last.ident == "Float"
                && plain(krate)
                && plain(last)
        }
        _ => false,
    }
}

fn read_param(
    cx: &Errors,
    input: &FnArg,
    generics: &[FloatTy],
    functions: &[super::functions::FunctionType],
) -> Option<Param> {
    let typed = match input {
        // `self`, `&self`, `&mut self`, `self: &Self`: an aggregate named `self`.
        FnArg::Receiver(receiver) => {
            let ty = (*receiver.ty).clone();
            let (kind, passing) = param_kind(cx, &ty, generics)?;
            return Some(Param {
                ident: Ident::new("self", receiver.self_token.span),
                mutable: receiver.mutability.is_some() && receiver.reference.is_none(),
                ty,
                kind,
                passing,
                active: false,
                rejected: false,
                function: None,
            });
        }
        FnArg::Typed(typed) => typed,
    };
    let (ident, mutable) = match &*typed.pat {
        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
            (pat.ident.clone(), pat.mutability.is_some())
        }
        other => {
            cx.error(
                other,
                "#[reverse] needs a plain name for each parameter; bind the parameter to a name \
                 and destructure it in the body",
            );
            return None;
        }
    };
    if let Some((f, by_ref)) = super::functions::function_of(&typed.ty, functions) {
        let index = functions.iter().position(|g| g.ident == f.ident);
        return Some(Param {
            ident,
            mutable,
            ty: (*typed.ty).clone(),
            kind: ParamKind::Inactive,
            passing: Passing::Value,
            active: false,
            rejected: f.rejected,
            function: index
                .filter(|_| !f.rejected && !f.inactive)
                .map(|i| (i, by_ref)),
        });
    }
    // A rejected type still names a parameter the body uses: keep it, inactive.
    let kind = param_kind(cx, &typed.ty, generics);
    let rejected = kind.is_none();
    let (kind, passing) = kind.unwrap_or((ParamKind::Inactive, Passing::Value));
    Some(Param {
        ident,
        mutable,
        ty: (*typed.ty).clone(),
        kind,
        passing,
        active: false,
        rejected,
        function: None,
    })
}

/// The float precision named by `ty`, if it is `f64` or `f32`. (A type parameter is a float
/// type only in its function: see [`Signature::float_of`].)
pub(crate) fn float_of(ty: &Type) -> Option<FloatTy> {
    float_of_in(ty, &[])
}

/// The float precision named by `ty`: `f64`, `f32`, or one of the float type parameters
/// `generics`.
fn float_of_in(ty: &Type, generics: &[FloatTy]) -> Option<FloatTy> {
    match ty {
        Type::Path(p) if p.qself.is_none() => float_named(p.path.get_ident()?, generics),
        Type::Paren(inner) => float_of_in(&inner.elem, generics),
        Type::Group(inner) => float_of_in(&inner.elem, generics),
        _ => None,
    }
}

/// The float type named `ident`: `f64`, `f32`, or one of the float type parameters.
fn float_named(ident: &Ident, generics: &[FloatTy]) -> Option<FloatTy> {
    if ident == "f64" {
        return Some(FloatTy::F64);
    }
    if ident == "f32" {
        return Some(FloatTy::F32);
    }
    generics
        .iter()
        .copied()
        .find(|t| matches!(t, FloatTy::Generic(name) if ident == name))
}

/// `Vec<T>` → `T`.
fn vec_elem(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Vec" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

use syn::TypeGroup as Group;

fn param_kind(cx: &Errors, ty: &Type, generics: &[FloatTy]) -> Option<(ParamKind, Passing)> {
    // A type passed through a `macro_rules!` fragment (`$t:ty`) arrives in an invisible group.
    if let Type::Group(Group { elem, .. }) | Type::Paren(syn::TypeParen { elem, .. }) = ty {
        return param_kind(cx, elem, generics);
    }
    if let Some(t) = float_of_in(ty, generics) {
        return Some((ParamKind::Scalar(t), Passing::Value));
    }
    match ty {
        // `&&[f64]`: as `&[f64]` (the body reads through both references alike).
        Type::Reference(reference)
            if reference.mutability.is_none()
                && matches!(&*reference.elem, Type::Reference(inner) if inner.mutability.is_none()) =>
        {
            param_kind(cx, &reference.elem, generics)
        }
        Type::Reference(reference) => {
            let kind = match value_kind(&reference.elem, generics) {
                // `&[f64]`, `&[f64; N]`, `&Vec<f64>` are used as they are.
                Some(kind) => kind,
                None => match unsized_kind(&reference.elem, generics) {
                    Some(kind) => kind,
                    None => aggregate_or_inactive(&reference.elem),
                },
            };
            let passing = match (&kind, reference.mutability.is_some()) {
                (ParamKind::Inactive, true) if !is_inactive_type(&reference.elem) => {
                    cx.error(
                        reference,
                        "a `&mut` parameter of #[reverse] must hold floats (`&mut f64`, \
                         `&mut [f64]`, `&mut Vec<f64>`, `&mut [f64; N]`, or `f32`); return other \
                         results instead",
                    );
                    return None;
                }
                (ParamKind::Inactive, _) => Passing::Value,
                (ParamKind::Aggregate { .. }, false) => Passing::Value,
                (_, true) => Passing::MutRef,
                (ParamKind::Scalar(_), false) => Passing::Ref,
                (_, false) => Passing::Value,
            };
            Some((kind, passing))
        }
        Type::ImplTrait(t) => {
            cx.error(
                t,
                "`impl Trait` parameters are not supported by #[reverse]; use a concrete type",
            );
            None
        }
        _ => Some((
            value_kind(ty, generics).unwrap_or_else(|| aggregate_or_inactive(ty)),
            Passing::Value,
        )),
    }
}

/// A type that is not a float, a float array or a float `Vec`: inactive when nothing in it
/// can hold a float the body could differentiate (integers, `bool`, `char`, strings,
/// containers of these, function types, trait objects), else an aggregate.
fn aggregate_or_inactive(ty: &Type) -> ParamKind {
    if is_inactive_type(ty) || is_library_wrapper(ty) {
        ParamKind::Inactive
    } else {
        ParamKind::Aggregate {
            ty: strip_references(ty).to_token_stream(),
        }
    }
}

/// `Option`, `Result`, `Box`, `Rc` and `Arc` parameters are inactive (options and handles,
/// not values to differentiate: their methods have no derivative).
fn is_library_wrapper(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            ["Option", "Result", "Box", "Rc", "Arc"]
                .iter()
                .any(|w| s.ident == w)
        }),
        Type::Reference(r) => is_library_wrapper(&r.elem),
        _ => false,
    }
}

/// `ty` without the references around it: `&&[T]` → `[T]`.
fn strip_references(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => strip_references(&r.elem),
        Type::Group(g) => strip_references(&g.elem),
        Type::Paren(p) => strip_references(&p.elem),
        other => other,
    }
}

/// Whether `ty` cannot hold a differentiable float (see `aggregate_or_inactive`).
/// Whether `ty` is `bool`, `char` or a primitive integer: a value a function with `&mut`
/// float parameters may return beside them ([`RetTy::Inactive`]).
fn is_inactive_scalar(ty: &Type) -> bool {
    const SCALARS: &[&str] = &[
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "bool", "char",
    ];
    match ty {
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| SCALARS.contains(&i.to_string().as_str()))
        }
        Type::Paren(p) => is_inactive_scalar(&p.elem),
        _ => false,
    }
}

pub(crate) fn is_inactive_type(ty: &Type) -> bool {
    const INACTIVE: &[&str] = &[
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "bool", "char", "str", "String", "Duration", "Instant", "Path", "PathBuf", "Ordering",
    ];
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            if INACTIVE.contains(&name.as_str()) {
                return true;
            }
            // Containers of inactive data: `Vec<usize>`, `Option<u32>`, `Box<str>`.
            let containers = ["Vec", "Option", "Box", "Rc", "Arc", "VecDeque"];
            if containers.contains(&name.as_str()) {
                if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
                    return args.args.iter().all(|a| match a {
                        syn::GenericArgument::Type(t) => is_inactive_type(t),
                        _ => true,
                    });
                }
            }
            false
        }
        Type::Reference(r) => is_inactive_type(&r.elem),
        Type::Array(a) => is_inactive_type(&a.elem),
        Type::Slice(s) => is_inactive_type(&s.elem),
        Type::Tuple(t) => t.elems.iter().all(is_inactive_type),
        Type::Group(g) => is_inactive_type(&g.elem),
        Type::Paren(p) => is_inactive_type(&p.elem),
        Type::BareFn(_) | Type::TraitObject(_) | Type::Never(_) | Type::Ptr(_) => true,
        _ => false,
    }
}

/// The kind of a float, float array or `Vec` of floats passed by value.
fn value_kind(ty: &Type, generics: &[FloatTy]) -> Option<ParamKind> {
    if let Type::Group(Group { elem, .. }) | Type::Paren(syn::TypeParen { elem, .. }) = ty {
        return value_kind(elem, generics);
    }
    if let Some(t) = float_of_in(ty, generics) {
        return Some(ParamKind::Scalar(t));
    }
    match ty {
        Type::Array(array) => float_of_in(&array.elem, generics).map(|elem| ParamKind::Array {
            elem,
            len: array.len.to_token_stream(),
        }),
        _ => vec_elem(ty)
            .and_then(|t| float_of_in(t, generics))
            .map(|elem| ParamKind::Slice { elem }),
    }
}

/// The kind of a float slice `[f64]` (behind a reference).
fn unsized_kind(ty: &Type, generics: &[FloatTy]) -> Option<ParamKind> {
    match ty {
        Type::Slice(slice) => {
            float_of_in(&slice.elem, generics).map(|elem| ParamKind::Slice { elem })
        }
        Type::Group(Group { elem, .. }) | Type::Paren(syn::TypeParen { elem, .. }) => {
            unsized_kind(elem, generics)
        }
        _ => None,
    }
}

const RETURN_HELP: &str = "#[reverse] differentiates functions that return floats: `f64`, \
                           `f32`, `[f64; N]`, `Vec<f64>` or a tuple of these";

/// The return type; `()` when `outputs` (the function has `&mut` float parameters).
fn read_return(
    cx: &Errors,
    sig: &syn::Signature,
    outputs: bool,
    generics: &[FloatTy],
) -> Option<RetTy> {
    match &sig.output {
        ReturnType::Default if outputs => Some(RetTy::Unit),
        ReturnType::Type(_, ty)
            if outputs && matches!(&**ty, Type::Tuple(t) if t.elems.is_empty()) =>
        {
            Some(RetTy::Unit)
        }
        ReturnType::Type(_, ty) if outputs && is_inactive_scalar(ty) => Some(RetTy::Inactive),
        ReturnType::Default => {
            cx.error(
                &sig.ident,
                format!(
                    "{RETURN_HELP}, or write their results into `&mut` float parameters; this \
                     function returns `()`"
                ),
            );
            None
        }
        ReturnType::Type(_, ty) => ret_ty(cx, ty, generics),
    }
}

fn ret_ty(cx: &Errors, ty: &Type, generics: &[FloatTy]) -> Option<RetTy> {
    if let Type::Group(Group { elem, .. }) | Type::Paren(syn::TypeParen { elem, .. }) = ty {
        return ret_ty(cx, elem, generics);
    }
    if let Some(t) = float_of_in(ty, generics) {
        return Some(RetTy::Scalar(t));
    }
    if let Some(elem) = vec_elem(ty).and_then(|t| float_of_in(t, generics)) {
        return Some(RetTy::Vec(elem));
    }
    match ty {
        Type::Array(array) => {
            if let Some(elem) = float_of_in(&array.elem, generics) {
                return Some(RetTy::Array {
                    elem,
                    len: array.len.to_token_stream(),
                });
            }
        }
        Type::Tuple(tuple) if !tuple.elems.is_empty() => {
            let items: Vec<Option<RetTy>> = tuple
                .elems
                .iter()
                .map(|t| ret_ty(cx, t, generics))
                .collect();
            return items
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .map(RetTy::Tuple);
        }
        _ => {}
    }
    if !is_inactive_type(ty) && !matches!(ty, Type::Reference(_) | Type::ImplTrait(_)) {
        return Some(RetTy::Aggregate(ty.to_token_stream()));
    }
    cx.error(
        ty,
        format!("{RETURN_HELP}; found `{}`", ty.to_token_stream()),
    );
    None
}

/// Marks the parameters named in `wrt(...)` active, or every float parameter without it.
fn mark_active(
    cx: &Errors,
    inputs: &syn::punctuated::Punctuated<FnArg, syn::Token![,]>,
    params: &mut [Param],
    args: &Args,
    params_ok: bool,
) {
    match &args.wrt {
        None => {
            for p in params.iter_mut() {
                p.active = !matches!(p.kind, ParamKind::Inactive);
            }
            // (After a rejected parameter, that error says it all.)
            // (A function argument carries the derivatives of the variables it captures.)
            let functions = params.iter().any(|p| p.function.is_some());
            if params_ok && !params.is_empty() && params.iter().all(|p| !p.active) && !functions {
                let user_type = params.iter().find(|p| {
                    let text = p.ty.to_token_stream().to_string();
                    text.starts_with(|c: char| c.is_ascii_uppercase())
                        || text.starts_with("& ")
                            && text[2..].starts_with(|c: char| c.is_ascii_uppercase())
                });
                let hint = match user_type {
                    Some(p) => format!(
                        "; `{}` has type `{}`: structs and other user types are not \
                         differentiated yet, so pass their float fields as parameters",
                        p.ident,
                        p.ty.to_token_stream().to_string().replace("& ", "&")
                    ),
                    None => String::new(),
                };
                cx.error(
                    inputs,
                    format!(
                        "no parameter of this function can be differentiated; #[reverse] needs \
                         at least one parameter of type `f64`, `f32`, `[f64; N]`, `&[f64]` or \
                         `Vec<f64>`{hint}"
                    ),
                );
            }
        }
        Some(names) => {
            for (i, name) in names.iter().enumerate() {
                if names[..i].contains(name) {
                    cx.error(name, format!("`{name}` is listed twice in `wrt(...)`"));
                    continue;
                }
                match params.iter_mut().find(|p| p.ident == *name) {
                    None if name == "self" => cx.error(
                        name,
                        "`wrt` names `self`, but this function takes no `self`: `wrt(self)` \
                         differentiates a method with respect to its receiver",
                    ),
                    None => cx.error(
                        name,
                        format!("`wrt` names `{name}`, which is not a parameter"),
                    ),
                    Some(p) if matches!(p.kind, ParamKind::Inactive) => cx.error(
                        name,
                        format!(
                            "`{name}` has type `{}`, which cannot be differentiated; `wrt` \
                             takes parameters that hold floats: `f64`, `f32`, arrays, slices and \
                             `Vec`s of them, and types with `#[derive(revad::Adjoint)]`",
                            p.ty.to_token_stream()
                        ),
                    ),
                    Some(p) => p.active = true,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn read(sig: syn::Signature, args: Args) -> Result<Signature, usize> {
        let cx = Errors::new();
        let sig = Signature::from_syn(&cx, &sig, &args);
        match cx.check() {
            Ok(()) => Ok(sig),
            Err(err) => Err(err.into_iter().count()),
        }
    }

    #[test]
    fn kinds_and_activity() {
        let sig = read(
            parse_quote!(fn f(x: f64, k: i32, w: &[f64], a: [f32; 3], v: Vec<f64>) -> f64),
            Args::default(),
        )
        .ok()
        .unwrap();
        let active: Vec<bool> = sig.params.iter().map(|p| p.active).collect();
        assert_eq!(active, [true, false, true, true, true]);
        assert!(matches!(
            sig.params[2].kind,
            ParamKind::Slice { elem: FloatTy::F64 }
        ));
        assert_eq!(sig.default_float, FloatTy::F64);
    }

    #[test]
    fn wrt_selects_and_validates() {
        let args = Args {
            wrt: Some(vec![parse_quote!(y)]),
            ..Args::default()
        };
        let sig = read(parse_quote!(fn f(x: f64, y: f64) -> f64), args)
            .ok()
            .unwrap();
        assert_eq!(sig.params.iter().filter(|p| p.active).count(), 1);
        let args = Args {
            wrt: Some(vec![parse_quote!(k), parse_quote!(z)]),
            ..Args::default()
        };
        assert_eq!(
            read(parse_quote!(fn f(x: f64, k: i32) -> f64), args).err(),
            Some(2)
        );
    }

    #[test]
    fn float_type_parameters() {
        // In the list, in a `where` clause, by path, beside other bounds and lifetimes.
        let sig = read(
            parse_quote!(fn f<'a, T: Copy + Float, U>(x: T, w: &'a [U], v: &mut Vec<T>, a: [U; 2]) -> (T, [U; 2]) where U: revad::Float + Default),
            Args::default(),
        )
        .ok()
        .unwrap();
        let (t, u) = (FloatTy::generic("T"), FloatTy::generic("U"));
        assert_eq!(sig.generics, [t, u]);
        assert_eq!(sig.default_float, t);
        assert!(matches!(sig.params[0].kind, ParamKind::Scalar(k) if k == t));
        assert!(matches!(sig.params[1].kind, ParamKind::Slice { elem } if elem == u));
        assert_eq!(sig.params[2].passing, Passing::MutRef);
        assert!(matches!(sig.params[3].kind, ParamKind::Array { elem, .. } if elem == u));
        assert_eq!(sig.ret.seed_type().to_string(), "(T , [U ; 2] ,)");
        assert!(sig.params.iter().all(|p| p.active));
    }

    #[test]
    fn an_impl_blocks_float_parameters_are_the_functions() {
        let block: syn::ItemImpl = parse_quote!(
            impl<'a, T, S: Clone> M<'a, T, S> where T: Float {}
        );
        let args = Args {
            in_impl: true,
            impl_generics: Some(block.generics),
            ..Args::default()
        };
        let sig = read(parse_quote!(fn f<U: Float>(&self, x: T, y: U) -> T), args)
            .ok()
            .unwrap();
        // The function's own first (the default precision), then the block's; not `S`.
        assert_eq!(sig.generics, ["U", "T"].map(FloatTy::generic));
        assert!(matches!(sig.params[1].kind, ParamKind::Scalar(k) if k == FloatTy::generic("T")));
        // Without the block's generics, its `T` in a method is an error.
        assert!(read(parse_quote!(fn f(&self, x: T) -> T), Args::default()).is_err());
        // A type parameter of the function's own is not.
        assert!(read(
            parse_quote!(fn f<T: Float>(&self, x: T) -> T),
            Args::default()
        )
        .is_ok());
    }

    #[test]
    fn num_traits_and_operator_bounds_are_float_types() {
        let sig = read(
            parse_quote!(fn f<T: num_traits::Float, U: Real, V: Copy + Mul<Output = V>, W>(x: T, y: U, z: V, w: W) -> T where W: ::num_traits::real::Real),
            Args::default(),
        )
        .ok()
        .unwrap();
        assert_eq!(sig.generics, ["T", "U", "V", "W"].map(FloatTy::generic),);
        assert!(sig.foreign_bounds);
        // A bare `Float` may be the library's.
        let bare = read(parse_quote!(fn f<T: Float>(x: T) -> T), Args::default());
        assert!(!bare.ok().unwrap().foreign_bounds);
        // The companions require the library's trait besides the user's bounds.
        let mut func: syn::ItemFn = parse_quote!(
            fn f<T: num_traits::Float>(x: T) -> T {
                x
            }
        );
        let sig = read(func.sig.clone(), Args::default()).ok().unwrap();
        require_float_bounds(&mut func, &sig);
        assert_eq!(
            func.sig.generics.where_clause.to_token_stream().to_string(),
            "where T : :: revad :: Float"
        );
    }

    #[test]
    fn other_type_parameters_are_rejected() {
        // `Add` whose output is another type is no float bound; nor is another crate's
        // `Float` that is not `num-traits`'.
        let unbounded = parse_quote!(
            fn f<T: Copy, U: Add<Output = f64>, V: other::Float>(x: T, y: U, z: V) -> f64
        );
        assert_eq!(read(unbounded, Args::default()).err(), Some(3));
        let cps = Args {
            backend: super::super::Backend::Cps,
            ..Args::default()
        };
        // (A float bound and a user's trait are taken under the CPS backend too.)
        assert_eq!(
            read(parse_quote!(fn f<T: Float>(x: T) -> T), cps).err(),
            None
        );
        let cps = Args {
            backend: super::super::Backend::Cps,
            ..Args::default()
        };
        assert_eq!(
            read(parse_quote!(fn f<M: Model>(m: &M) -> f64), cps).err(),
            None
        );
        // And function arguments.
        let cps = Args {
            backend: super::super::Backend::Cps,
            ..Args::default()
        };
        assert_eq!(
            read(
                parse_quote!(fn f<F: Fn(f64) -> f64>(g: F, x: f64) -> f64),
                cps
            )
            .err(),
            None
        );
    }

    #[test]
    fn all_problems_reported() {
        let sig: syn::Signature =
            parse_quote!(async unsafe fn f<T>(&self, m: &mut i32, (a, b): (f64, f64)) -> i32);
        // (`&self` is a receiver and `&mut i32` an inactive parameter: neither is an error.)
        assert_eq!(read(sig, Args::default()).err(), Some(5));
    }
}
