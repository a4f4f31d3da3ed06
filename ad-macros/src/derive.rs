//! `#[derive(revad::Adjoint)]`: the adjoint type of a user struct or enum, and its `Adjoint` impl.
//!
//! The input is the struct or enum; the output is a new type with the same fields, each of
//! the adjoint type of the field's type (rustc computes it: the macro never needs to know a
//! field's type), its `Clone`, `Debug` and `PartialEq` impls, and the `revad::Adjoint` impl of
//! the input, built field by field.
//!
//! ```text
//! // Before
//! #[derive(revad::Adjoint)]
//! pub struct Particle { pub pos: [f64; 3], pub mass: f64, id: usize }
//! // After (the struct itself is unchanged)
//! /// The adjoint (gradient) of [`Particle`] ...
//! pub struct ParticleAdjoint {
//!     /// The adjoint of `pos`.
//!     pub pos: <[f64; 3] as ::revad::Adjoint>::Adj,   // [f64; 3]
//!     pub mass: <f64 as ::revad::Adjoint>::Adj,       // f64
//!     id: <usize as ::revad::Adjoint>::Adj,           // revad::Zero
//! }
//! impl Clone, Debug, PartialEq for ParticleAdjoint { .. field by field .. }
//! impl ::revad::Adjoint for Particle {
//!     type Adj = ParticleAdjoint;
//!     fn zero_adjoint(&self) -> ParticleAdjoint {
//!         ParticleAdjoint { pos: <[f64; 3] as ::revad::Adjoint>::zero_adjoint(&self.pos), .. }
//!     }
//!     fn accumulate(acc: &mut ParticleAdjoint, other: &ParticleAdjoint) {
//!         <[f64; 3] as ::revad::Adjoint>::accumulate(&mut acc.pos, &other.pos); ..
//!     }
//! }
//! ```
//!
//! A generic type gets a `where FieldTy: ::revad::Adjoint` bound for each field whose type
//! names a generic parameter, on both the adjoint type and the impl. `Clone`, `Debug` and
//! `PartialEq` are written out rather than derived: `#[derive(Clone)]` would add `T: Clone`
//! for every type parameter, which `LayerAdjoint<T>` does not need (its fields are adjoints,
//! `Clone` by the trait's bound on `Adj`), and the `Adjoint` impl could not promise it.
//!
//! Errors (a union, a malformed `#[adjoint(..)]`) are all reported at once, each at the
//! user's tokens, followed by a stand-in impl whose adjoint is `revad::Zero`, so that uses of
//! the type do not add "`Type` has no adjoint" errors to the real one (thiserror's fallback).

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Attribute, DeriveInput, Generics, Ident, Member, Type, Visibility, WherePredicate};

use crate::error::Errors;

/// Expands `#[derive(revad::Adjoint)]` on `input`.
pub(crate) fn adjoint(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(err) => return err.to_compile_error(),
    };
    let path = crate_path(&input);
    path.apply(match Container::from_syn(&input) {
        Ok(container) => container.expand(),
        Err(err) => {
            let err = err.to_compile_error();
            let fallback = fallback(&input);
            quote!(#err #fallback)
        }
    })
}

/// The path to the runtime: `#[adjoint(crate = path)]`, else the caller's name for `revad`
/// (`krate`). A malformed value is reported by [`container_name`].
fn crate_path(input: &DeriveInput) -> crate::krate::CratePath {
    let mut path = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("adjoint")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                path = crate::krate::parse_path(meta.value()?.parse()?).ok();
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<TokenStream>()?;
            }
            Ok(())
        });
    }
    crate::krate::from_value(path)
}

/// The input, read and checked: what the expansion needs and nothing else.
struct Container<'a> {
    /// The type: `Particle`.
    ident: &'a Ident,
    /// The adjoint type: `ParticleAdjoint`, or the name given by `#[adjoint(name = ..)]`.
    adjoint: Ident,
    vis: &'a Visibility,
    generics: &'a Generics,
    /// The `#[allow(..)]` attributes of the type, repeated on the adjoint type.
    allows: Vec<&'a Attribute>,
    data: Data,
}

enum Data {
    Struct(Fields),
    Enum(Vec<Variant>),
}

struct Variant {
    ident: Ident,
    allows: Vec<Attribute>,
    fields: Fields,
}

/// The fields of a struct or of a variant.
struct Fields {
    style: Style,
    fields: Vec<Field>,
}

/// How fields are written: `{ a: A }`, `(A)` or nothing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Named,
    Tuple,
    Unit,
}

struct Field {
    /// `pos` or `0`.
    member: Member,
    vis: Visibility,
    /// The field's type, with `Self` replaced by the type it stands for (in the adjoint type,
    /// `Self` would be the adjoint type).
    ty: Type,
    allows: Vec<Attribute>,
}

impl<'a> Container<'a> {
    /// Reads `input`, reporting every problem at once.
    fn from_syn(input: &'a DeriveInput) -> syn::Result<Self> {
        let cx = Errors::new();
        let name = container_name(&cx, input);
        let self_ty = self_type(input);
        let data = match &input.data {
            syn::Data::Struct(data) => {
                Some(Data::Struct(Fields::from_syn(&cx, &data.fields, &self_ty)))
            }
            syn::Data::Enum(data) => Some(Data::Enum(
                data.variants
                    .iter()
                    .map(|variant| {
                        reject_adjoint_attrs(&cx, &variant.attrs, "a variant");
                        Variant {
                            ident: variant.ident.clone(),
                            allows: allows(&variant.attrs).cloned().collect(),
                            fields: Fields::from_syn(&cx, &variant.fields, &self_ty),
                        }
                    })
                    .collect(),
            )),
            syn::Data::Union(data) => {
                for field in &data.fields.named {
                    reject_adjoint_attrs(&cx, &field.attrs, "a field");
                }
                reject_union(&cx, data);
                None
            }
        };
        cx.check()?;
        let adjoint = name.unwrap_or_else(|| {
            // The span of the user's type name: a clash with an existing `ParticleAdjoint`
            // is reported at `Particle`.
            format_ident!("{}Adjoint", input.ident.unraw(), span = input.ident.span())
        });
        Ok(Container {
            ident: &input.ident,
            adjoint,
            vis: &input.vis,
            generics: &input.generics,
            allows: allows(&input.attrs).collect(),
            data: data.expect("a union is reported above"),
        })
    }
}

impl Fields {
    fn from_syn(cx: &Errors, fields: &syn::Fields, self_ty: &Type) -> Fields {
        let style = match fields {
            syn::Fields::Named(_) => Style::Named,
            syn::Fields::Unnamed(_) => Style::Tuple,
            syn::Fields::Unit => Style::Unit,
        };
        let fields = fields
            .iter()
            .enumerate()
            .map(|(i, field)| {
                reject_adjoint_attrs(cx, &field.attrs, "a field");
                let member = match &field.ident {
                    Some(ident) => Member::Named(ident.clone()),
                    None => Member::Unnamed(syn::Index {
                        index: i as u32,
                        span: field.ty.span(),
                    }),
                };
                let mut ty = field.ty.clone();
                ReplaceSelf(self_ty).visit_type_mut(&mut ty);
                Field {
                    member,
                    vis: field.vis.clone(),
                    ty,
                    allows: allows(&field.attrs).cloned().collect(),
                }
            })
            .collect();
        Fields { style, fields }
    }
}

/// The name given by `#[adjoint(name = MyName)]`, if any.
///
/// The value is a plain identifier, not a string, and not the name of the type itself. The
/// other argument, `crate = path`, is read by [`crate_path`].
fn container_name(cx: &Errors, input: &DeriveInput) -> Option<Ident> {
    let mut name: Option<Ident> = None;
    for attr in input
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("adjoint"))
    {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                // Read by `crate_path`; checked here, with the other arguments.
                crate::krate::parse_path(meta.value()?.parse()?)?;
                return Ok(());
            }
            if !meta.path.is_ident("name") {
                let arg = meta.path.to_token_stream().to_string().replace(' ', "");
                return Err(meta.error(format_args!(
                    "unknown argument `{arg}`; expected `name = ...` or `crate = ...`"
                )));
            }
            let value = meta.value()?;
            if value.peek(syn::LitStr) {
                let lit: syn::LitStr = value.parse()?;
                return Err(syn::Error::new(
                    lit.span(),
                    format_args!(
                        "the adjoint type's name is an identifier, not a string; \
                         write `name = {}`",
                        lit.value()
                    ),
                ));
            }
            let ident: Ident = value.parse()?;
            if ident == input.ident {
                return Err(syn::Error::new(
                    ident.span(),
                    format_args!(
                        "the adjoint type needs a name of its own; `{ident}` is the type \
                         being derived"
                    ),
                ));
            }
            if name.is_some() {
                return Err(syn::Error::new(
                    meta.path.span(),
                    "duplicate argument `name`",
                ));
            }
            name = Some(ident);
            Ok(())
        });
        if let Err(err) = parsed {
            cx.push(err);
        }
    }
    name
}

/// `#[adjoint(..)]` belongs on the type: on a field or a variant it would be ignored, so it is
/// an error there (at the attribute).
fn reject_adjoint_attrs(cx: &Errors, attrs: &[Attribute], on: &str) {
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("adjoint")) {
        cx.error(
            attr,
            format_args!(
                "`#[adjoint(..)]` is not supported on {on}; it goes on the struct or enum: \
                 `#[adjoint(name = ...)]`"
            ),
        );
    }
}

/// A union has no adjoint: which field holds the value is not known. The error is at the
/// `union` keyword.
fn reject_union(cx: &Errors, data: &syn::DataUnion) {
    cx.error(
        data.union_token,
        "`#[derive(revad::Adjoint)]` does not support unions, whose active field is not known; \
         use an enum",
    );
}

/// The `#[allow(..)]` attributes among `attrs`: what the user allowed on a type, variant or
/// field (`non_snake_case`, say) is allowed on its adjoint too.
fn allows(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("allow"))
}

/// The type being derived, as a type: `Layer<T>`.
fn self_type(input: &DeriveInput) -> Type {
    let ident = &input.ident;
    let (_, ty_generics, _) = input.generics.split_for_impl();
    syn::parse_quote!(#ident #ty_generics)
}

/// Replaces `Self` in a field's type by the type it stands for.
struct ReplaceSelf<'a>(&'a Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty {
            if path.qself.is_none() && path.path.is_ident("Self") {
                *ty = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The names of the generic parameters of `generics`: `T`, `N`, and lifetimes as `'a`.
fn param_names(generics: &Generics) -> HashSet<String> {
    generics
        .params
        .iter()
        .map(|param| match param {
            syn::GenericParam::Type(param) => param.ident.to_string(),
            syn::GenericParam::Const(param) => param.ident.to_string(),
            syn::GenericParam::Lifetime(param) => param.lifetime.to_string(),
        })
        .collect()
}

/// Whether `tokens` name one of `params` (by token, so a type inside a macro counts too).
fn mentions(tokens: TokenStream, params: &HashSet<String>) -> bool {
    let mut after_quote = false;
    for token in tokens {
        let found = match &token {
            TokenTree::Group(group) => mentions(group.stream(), params),
            TokenTree::Ident(ident) if after_quote => params.contains(&format!("'{ident}")),
            TokenTree::Ident(ident) => params.contains(&ident.to_string()),
            TokenTree::Punct(_) | TokenTree::Literal(_) => false,
        };
        if found {
            return true;
        }
        after_quote = matches!(&token, TokenTree::Punct(punct) if punct.as_char() == '\'');
    }
    false
}

/// Whether `ty` names the type `ident` (by a path of one segment, as a recursive field does:
/// `Vec<Tree<T>>` in `Tree<T>`, or `Self`, already replaced by the type).
fn names_type(ty: &Type, ident: &Ident) -> bool {
    struct Finder<'a> {
        ident: &'a Ident,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
        fn visit_type_path(&mut self, path: &'ast syn::TypePath) {
            let segments = &path.path.segments;
            if path.qself.is_none()
                && path.path.leading_colon.is_none()
                && segments.len() == 1
                && segments[0].ident == *self.ident
            {
                self.found = true;
            }
            syn::visit::visit_type_path(self, path);
        }
    }
    let mut finder = Finder {
        ident,
        found: false,
    };
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.found
}

/// The adjoint type of a field's type, at the span of the field's type (an error such as
/// "`MyType` has no adjoint" lands there).
fn adj_of(ty: &Type) -> TokenStream {
    quote_spanned!(ty.span()=> <#ty as ::revad::Adjoint>::Adj)
}

/// `<FieldTy as ::revad::Adjoint>::method`, at the span of the field's type.
fn call(ty: &Type, method: &str) -> TokenStream {
    let method = Ident::new(method, Span::call_site());
    quote_spanned!(ty.span()=> <#ty as ::revad::Adjoint>::#method)
}

/// A generated local variable: `__acc_0`. Mixed-site, so it cannot meet a name of the user's.
fn local(prefix: &str, i: usize) -> Ident {
    Ident::new(&format!("__{prefix}_{i}"), Span::mixed_site())
}

/// `path { a: v0, b: v1 }`, `path(v0, v1)` or `path`: a struct expression or a pattern, the
/// values taken in field order.
fn build(
    path: TokenStream,
    fields: &Fields,
    values: impl IntoIterator<Item = TokenStream>,
) -> TokenStream {
    let values = values.into_iter();
    match fields.style {
        Style::Named => {
            let members = fields.fields.iter().map(|field| &field.member);
            quote!(#path { #(#members: #values),* })
        }
        Style::Tuple => quote!(#path(#(#values),*)),
        Style::Unit => path,
    }
}

/// `path { .. }`, `path(..)` or `path`: a pattern that matches any value of a variant.
fn any_of(path: TokenStream, fields: &Fields) -> TokenStream {
    match fields.style {
        Style::Named => quote!(#path { .. }),
        Style::Tuple => quote!(#path(..)),
        Style::Unit => path,
    }
}

/// The name of a field for `Debug`: `pos`, `type` for `r#type`.
fn debug_name(member: &Member) -> String {
    match member {
        Member::Named(ident) => ident.unraw().to_string(),
        Member::Unnamed(index) => index.index.to_string(),
    }
}

impl Container<'_> {
    fn expand(&self) -> TokenStream {
        let definition = self.definition();
        let clone = self.impl_clone();
        let debug = self.impl_debug();
        let partial_eq = self.impl_partial_eq();
        let adjoint = self.impl_adjoint();
        quote! {
            #definition
            #clone
            #debug
            #partial_eq
            #adjoint
        }
    }

    /// Every field, of the struct or of every variant.
    fn all_fields(&self) -> impl Iterator<Item = &Field> {
        let fields: Vec<&Fields> = match &self.data {
            Data::Struct(fields) => vec![fields],
            Data::Enum(variants) => variants.iter().map(|variant| &variant.fields).collect(),
        };
        fields.into_iter().flat_map(|fields| &fields.fields)
    }

    /// The where clause of the adjoint type and of the impls: the type's own, and
    /// `FieldTy: ::revad::Adjoint` for each field type that names a generic parameter, once per
    /// type.
    ///
    /// A field of a concrete type needs no bound: rustc checks it in the adjoint type, at the
    /// field. Nor does a recursive field (`kids: Vec<Tree<T>>` in `Tree<T>`): its bound would
    /// hold only if the impl being defined applied, a cycle rustc reports as an overflow
    /// (E0275) at every use; without it, the field's adjoint follows from the other bounds
    /// through the impl itself.
    fn where_clause(&self) -> syn::WhereClause {
        let mut clause = self
            .generics
            .where_clause
            .clone()
            .unwrap_or_else(|| syn::WhereClause {
                where_token: Default::default(),
                predicates: Default::default(),
            });
        let params = param_names(self.generics);
        let mut seen = HashSet::new();
        for field in self.all_fields() {
            let tokens = field.ty.to_token_stream();
            if !mentions(tokens.clone(), &params)
                || names_type(&field.ty, self.ident)
                || !seen.insert(tokens.to_string())
            {
                continue;
            }
            let ty = &field.ty;
            // At the field's type: an unsatisfied bound is reported at the field.
            let bound: syn::TypeParamBound =
                syn::parse_quote_spanned!(ty.span()=> ::revad::Adjoint);
            clause
                .predicates
                .push(WherePredicate::Type(syn::PredicateType {
                    lifetimes: None,
                    bounded_ty: ty.clone(),
                    colon_token: Default::default(),
                    bounds: std::iter::once(bound).collect(),
                }));
        }
        clause
    }

    /// The adjoint type.
    ///
    /// Expands, for `pub struct Particle { pub pos: [f64; 3], id: usize }`, to
    ///
    /// ```text
    /// /// The adjoint (gradient) of [`Particle`] ...
    /// pub struct ParticleAdjoint {
    ///     /// The adjoint of `pos`.
    ///     pub pos: <[f64; 3] as ::revad::Adjoint>::Adj,
    ///     /// The adjoint of `id`.
    ///     id: <usize as ::revad::Adjoint>::Adj,
    /// }
    /// ```
    fn definition(&self) -> TokenStream {
        let Container {
            ident,
            adjoint,
            vis,
            generics,
            allows,
            ..
        } = self;
        let params = &generics.params;
        let where_clause = self.where_clause();
        let name = ident.unraw();
        match &self.data {
            Data::Struct(fields) => {
                let doc = format!(
                    "The adjoint (gradient) of [`{name}`]: one adjoint per field, of the type \
                     `<FieldTy as revad::Adjoint>::Adj` (`revad::Zero` for inactive data).\n\n\
                     Generated by `#[derive(revad::Adjoint)]`."
                );
                let body = adjoint_fields(fields, true);
                let body = match fields.style {
                    Style::Named => quote!(#where_clause #body),
                    Style::Tuple => quote!(#body #where_clause;),
                    Style::Unit => quote!(#where_clause;),
                };
                quote! {
                    #[doc = #doc]
                    #(#allows)*
                    #vis struct #adjoint<#params> #body
                }
            }
            Data::Enum(variants) => {
                let doc = format!(
                    "The adjoint (gradient) of [`{name}`]: the same variants, with one adjoint \
                     per field, of the type `<FieldTy as revad::Adjoint>::Adj` (`revad::Zero` for \
                     inactive data).\n\n\
                     Generated by `#[derive(revad::Adjoint)]`."
                );
                let variants = variants.iter().map(|variant| {
                    let Variant {
                        ident,
                        allows,
                        fields,
                    } = variant;
                    let doc = format!("The adjoint of the variant `{}`.", ident.unraw());
                    let body = adjoint_fields(fields, false);
                    quote! {
                        #[doc = #doc]
                        #(#allows)*
                        #ident #body
                    }
                });
                quote! {
                    #[doc = #doc]
                    #(#allows)*
                    #vis enum #adjoint<#params> #where_clause {
                        #(#variants,)*
                    }
                }
            }
        }
    }

    /// `impl<..> #trait_ for Adjoint<..> where .. { #body }`.
    fn impl_for_adjoint(&self, trait_: TokenStream, body: TokenStream) -> TokenStream {
        let adjoint = &self.adjoint;
        let (impl_generics, ty_generics, _) = self.generics.split_for_impl();
        let where_clause = self.where_clause();
        quote! {
            impl #impl_generics #trait_ for #adjoint #ty_generics #where_clause {
                #body
            }
        }
    }

    /// `Clone`, field by field.
    ///
    /// Expands, for a struct, to `ParticleAdjoint { pos: Clone::clone(&self.pos), .. }`, for an
    /// enum to `match self { ShapeAdjoint::Circle(__self_0) =>
    /// ShapeAdjoint::Circle(Clone::clone(__self_0)), .. }`.
    fn impl_clone(&self) -> TokenStream {
        let adjoint = &self.adjoint;
        let clone = quote!(::core::clone::Clone::clone);
        let body = match &self.data {
            Data::Struct(fields) => {
                let values = fields.fields.iter().map(|field| {
                    let member = &field.member;
                    quote!(#clone(&self.#member))
                });
                build(quote!(#adjoint), fields, values)
            }
            Data::Enum(variants) => self.match_self(variants, |path, fields| {
                let values = (0..fields.fields.len()).map(|i| {
                    let binding = local("self", i);
                    quote!(#clone(#binding))
                });
                build(path, fields, values)
            }),
        };
        self.impl_for_adjoint(
            quote!(::core::clone::Clone),
            quote! {
                #[inline]
                fn clone(&self) -> Self {
                    #body
                }
            },
        )
    }

    /// `Debug`, as `#[derive(Debug)]` writes it: `ParticleAdjoint { pos: [..], .. }`.
    fn impl_debug(&self) -> TokenStream {
        let adjoint = &self.adjoint;
        let f = Ident::new("__f", Span::mixed_site());
        let debug = |name: String, fields: &Fields, values: Vec<TokenStream>| match fields.style {
            Style::Named => {
                let names = fields.fields.iter().map(|field| debug_name(&field.member));
                quote! {
                    ::core::fmt::Formatter::debug_struct(#f, #name)
                        #(.field(#names, #values))*
                        .finish()
                }
            }
            Style::Tuple => quote! {
                ::core::fmt::Formatter::debug_tuple(#f, #name)
                    #(.field(#values))*
                    .finish()
            },
            Style::Unit => quote!(::core::fmt::Formatter::write_str(#f, #name)),
        };
        let body = match &self.data {
            Data::Struct(fields) => {
                let values = fields
                    .fields
                    .iter()
                    .map(|field| {
                        let member = &field.member;
                        quote!(&self.#member)
                    })
                    .collect();
                debug(adjoint.unraw().to_string(), fields, values)
            }
            Data::Enum(variants) => {
                let mut names = variants
                    .iter()
                    .map(|variant| variant.ident.unraw().to_string());
                self.match_self(variants, |_, fields| {
                    let values = (0..fields.fields.len())
                        .map(|i| local("self", i).into_token_stream())
                        .collect();
                    debug(names.next().expect("one name per variant"), fields, values)
                })
            }
        };
        self.impl_for_adjoint(
            quote!(::core::fmt::Debug),
            quote! {
                fn fmt(&self, #f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    #body
                }
            },
        )
    }

    /// `PartialEq`, field by field; two different variants are not equal.
    fn impl_partial_eq(&self) -> TokenStream {
        let adjoint = &self.adjoint;
        let other = Ident::new("__other", Span::mixed_site());
        let eq = quote!(::core::cmp::PartialEq::eq);
        let all = |pairs: Vec<TokenStream>| {
            if pairs.is_empty() {
                quote!(true)
            } else {
                quote!(#(#pairs)&&*)
            }
        };
        let body = match &self.data {
            Data::Struct(fields) => all(fields
                .fields
                .iter()
                .map(|field| {
                    let member = &field.member;
                    quote!(#eq(&self.#member, &#other.#member))
                })
                .collect()),
            Data::Enum(variants) if variants.is_empty() => quote!(match *self {}),
            Data::Enum(variants) => {
                let arms = variants.iter().map(|variant| {
                    let ident = &variant.ident;
                    let path = quote!(#adjoint::#ident);
                    let n = variant.fields.fields.len();
                    let left = build(
                        path.clone(),
                        &variant.fields,
                        (0..n).map(|i| local("self", i).into_token_stream()),
                    );
                    let right = build(
                        path,
                        &variant.fields,
                        (0..n).map(|i| local("other", i).into_token_stream()),
                    );
                    let pairs = (0..n)
                        .map(|i| {
                            let (l, r) = (local("self", i), local("other", i));
                            quote!(#eq(#l, #r))
                        })
                        .collect();
                    let value = all(pairs);
                    quote!((#left, #right) => #value,)
                });
                // Only with two variants or more: with one, the arm would be unreachable.
                let rest = (variants.len() > 1).then(|| quote!(_ => false,));
                quote! {
                    match (self, #other) {
                        #(#arms)*
                        #rest
                    }
                }
            }
        };
        self.impl_for_adjoint(
            quote!(::core::cmp::PartialEq),
            quote! {
                #[inline]
                fn eq(&self, #other: &Self) -> bool {
                    #body
                }
            },
        )
    }

    /// `match self { Adjoint::V(__self_0, ..) => arm(Adjoint::V, fields), .. }`, or
    /// `match *self {}` for an enum without variants.
    fn match_self(
        &self,
        variants: &[Variant],
        mut arm: impl FnMut(TokenStream, &Fields) -> TokenStream,
    ) -> TokenStream {
        let adjoint = &self.adjoint;
        let arms = variants.iter().map(|variant| {
            let ident = &variant.ident;
            let path = quote!(#adjoint::#ident);
            let n = variant.fields.fields.len();
            let pattern = build(
                path.clone(),
                &variant.fields,
                (0..n).map(|i| local("self", i).into_token_stream()),
            );
            let value = arm(path, &variant.fields);
            quote!(#pattern => #value,)
        });
        if variants.is_empty() {
            quote!(match *self {})
        } else {
            quote!(match self { #(#arms)* })
        }
    }

    /// The `Adjoint` impl of the type.
    ///
    /// Expands, for a struct, to
    ///
    /// ```text
    /// impl ::revad::Adjoint for Particle {
    ///     type Adj = ParticleAdjoint;
    ///     fn zero_adjoint(&self) -> Self::Adj {
    ///         ParticleAdjoint { pos: <[f64; 3] as ::revad::Adjoint>::zero_adjoint(&self.pos), .. }
    ///     }
    ///     fn accumulate(__acc: &mut Self::Adj, __other: &Self::Adj) {
    ///         <[f64; 3] as ::revad::Adjoint>::accumulate(&mut __acc.pos, &__other.pos);
    ///         ..
    ///     }
    /// }
    /// ```
    ///
    /// and for an enum to a `match` on the variant (on both variants for `accumulate`, which
    /// panics when they differ).
    fn impl_adjoint(&self) -> TokenStream {
        let Container { ident, adjoint, .. } = self;
        let (impl_generics, ty_generics, _) = self.generics.split_for_impl();
        let where_clause = self.where_clause();
        // (The type's own bounds only: a method's receiver is of this type whatever its fields.)
        let (_, _, own_where) = self.generics.split_for_impl();
        let derived = quote! {
            impl #impl_generics ::revad::adjoint::Derived for #ident #ty_generics #own_where {}
        };
        let acc = Ident::new("__acc", Span::mixed_site());
        let other = Ident::new("__other", Span::mixed_site());
        let (zero, accumulate) = match &self.data {
            Data::Struct(fields) => {
                let zeros = fields.fields.iter().map(|field| {
                    let (member, zero) = (&field.member, call(&field.ty, "zero_adjoint"));
                    quote!(#zero(&self.#member))
                });
                let zero = build(quote!(#adjoint), fields, zeros);
                let adds = fields.fields.iter().map(|field| {
                    let (member, add) = (&field.member, call(&field.ty, "accumulate"));
                    quote!(#add(&mut #acc.#member, &#other.#member);)
                });
                (zero, quote!(#(#adds)*))
            }
            Data::Enum(variants) if variants.is_empty() => {
                (quote!(match *self {}), quote!(match *#acc {}))
            }
            Data::Enum(variants) => {
                let zero_arms = variants.iter().map(|variant| {
                    let name = &variant.ident;
                    let fields = &variant.fields;
                    let n = fields.fields.len();
                    let bindings = (0..n).map(|i| local("self", i).into_token_stream());
                    let pattern = build(quote!(#ident::#name), fields, bindings);
                    let zeros = fields.fields.iter().enumerate().map(|(i, field)| {
                        let (binding, zero) = (local("self", i), call(&field.ty, "zero_adjoint"));
                        quote!(#zero(#binding))
                    });
                    let value = build(quote!(#adjoint::#name), fields, zeros);
                    quote!(#pattern => #value,)
                });
                let add_arms = variants.iter().map(|variant| {
                    let name = &variant.ident;
                    let fields = &variant.fields;
                    let n = fields.fields.len();
                    let path = quote!(#adjoint::#name);
                    let left = build(
                        path.clone(),
                        fields,
                        (0..n).map(|i| local("acc", i).into_token_stream()),
                    );
                    let right = build(
                        path,
                        fields,
                        (0..n).map(|i| local("other", i).into_token_stream()),
                    );
                    let adds = fields.fields.iter().enumerate().map(|(i, field)| {
                        let (a, o) = (local("acc", i), local("other", i));
                        let add = call(&field.ty, "accumulate");
                        quote!(#add(#a, #o);)
                    });
                    quote!((#left, #right) => { #(#adds)* })
                });
                // Two different variants: a panic naming the type and both variants. Only
                // with two variants or more: with one, the arm would be unreachable.
                let mismatch = (variants.len() > 1).then(|| {
                    let variant = Ident::new("__variant", Span::mixed_site());
                    let names = variants.iter().map(|variant| {
                        let name = &variant.ident;
                        let pattern = any_of(quote!(#adjoint::#name), &variant.fields);
                        let name = name.unraw().to_string();
                        quote!(#pattern => #name,)
                    });
                    let ty = ident.unraw().to_string();
                    quote! {
                        (#acc, #other) => {
                            let #variant = |adj: &Self::Adj| -> &'static str {
                                match adj { #(#names)* }
                            };
                            ::revad::__private::variant_mismatch(#ty, #variant(&*#acc), #variant(#other))
                        }
                    }
                });
                let zero = quote!(match self { #(#zero_arms)* });
                let accumulate = quote! {
                    match (#acc, #other) {
                        #(#add_arms)*
                        #mismatch
                    }
                };
                (zero, accumulate)
            }
        };
        quote! {
            impl #impl_generics ::revad::Adjoint for #ident #ty_generics #where_clause {
                type Adj = #adjoint #ty_generics;

                #[inline]
                fn zero_adjoint(&self) -> Self::Adj {
                    #zero
                }

                #[inline]
                #[track_caller]
                fn accumulate(#acc: &mut Self::Adj, #other: &Self::Adj) {
                    #accumulate
                }
            }

            impl #impl_generics ::revad::Accumulate for #adjoint #ty_generics #where_clause {
                #[inline]
                #[track_caller]
                fn accumulate(&mut self, other: &Self) {
                    <#ident #ty_generics as ::revad::Adjoint>::accumulate(self, other)
                }
            }

            #derived
        }
    }
}

/// The fields of the adjoint type: `{ /// doc  pub pos: <[f64; 3] as ::revad::Adjoint>::Adj, .. }`,
/// `(<f64 as ::revad::Adjoint>::Adj, ..)` or nothing. Visibilities only for a struct's fields
/// (`with_vis`), as a variant's fields have none.
fn adjoint_fields(fields: &Fields, with_vis: bool) -> TokenStream {
    let defs = fields.fields.iter().map(|field| {
        let vis = with_vis.then_some(&field.vis);
        let allows = &field.allows;
        let ty = adj_of(&field.ty);
        let doc = format!("The adjoint of `{}`.", debug_name(&field.member));
        match &field.member {
            Member::Named(name) => quote! {
                #[doc = #doc]
                #(#allows)*
                #vis #name: #ty
            },
            Member::Unnamed(_) => quote! {
                #[doc = #doc]
                #(#allows)*
                #vis #ty
            },
        }
    });
    match fields.style {
        Style::Named => quote!({ #(#defs,)* }),
        Style::Tuple => quote!((#(#defs),*)),
        Style::Unit => quote!(),
    }
}

/// After an error: an impl whose adjoint is `revad::Zero`, so that uses of the type (a field of
/// it in another derived type, a call of `zero_adjoint`) add no errors to the real one.
fn fallback(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics ::revad::Adjoint for #ident #ty_generics #where_clause {
            type Adj = ::revad::Zero;
            fn zero_adjoint(&self) -> ::revad::Zero {
                ::core::unreachable!()
            }
            fn accumulate(_: &mut ::revad::Zero, _: &::revad::Zero) {
                ::core::unreachable!()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;
    use syn::parse_quote;

    use super::*;

    /// The errors of deriving for `input`, as messages, or nothing.
    fn errors(input: DeriveInput) -> Vec<String> {
        match Container::from_syn(&input) {
            Ok(_) => Vec::new(),
            Err(err) => err.into_iter().map(|err| err.to_string()).collect(),
        }
    }

    #[test]
    fn every_error_is_reported_at_once() {
        let errors = errors(parse_quote! {
            #[adjoint(nmae = X)]
            #[adjoint(name = "X")]
            union U {
                #[adjoint(name = Y)]
                a: f64,
                b: u64,
            }
        });
        assert_eq!(
            errors,
            [
                "unknown argument `nmae`; expected `name = ...` or `crate = ...`",
                "the adjoint type's name is an identifier, not a string; write `name = X`",
                "`#[adjoint(..)]` is not supported on a field; it goes on the struct or enum: \
                 `#[adjoint(name = ...)]`",
                "`#[derive(revad::Adjoint)]` does not support unions, whose active field is not \
                 known; use an enum",
            ]
        );
    }

    #[test]
    fn bad_names_are_rejected() {
        let errors = errors(parse_quote! {
            #[adjoint(name = A, name = B)]
            #[adjoint(name = S)]
            #[adjoint]
            enum S {
                #[adjoint(name = V)]
                V,
            }
        });
        assert_eq!(
            errors,
            [
                "duplicate argument `name`",
                "the adjoint type needs a name of its own; `S` is the type being derived",
                "expected attribute arguments in parentheses: #[adjoint(...)]",
                "`#[adjoint(..)]` is not supported on a variant; it goes on the struct or enum: \
                 `#[adjoint(name = ...)]`",
            ]
        );
    }

    #[test]
    fn valid_input_has_no_errors() {
        assert!(errors(parse_quote!(
            #[adjoint(name = G)]
            #[derive(Clone)]
            struct S<T>(T, #[allow(dead_code)] u8);
        ))
        .is_empty());
    }

    #[test]
    fn an_error_comes_with_a_stand_in_impl() {
        let tokens = adjoint(quote!(union U<T: Copy> { a: T }));
        let file: syn::File = syn::parse2(tokens).unwrap();
        let [syn::Item::Macro(error), syn::Item::Impl(fallback)] = &file.items[..] else {
            panic!("expected the error and an impl: {file:#?}");
        };
        assert!(error.mac.path.segments.last().unwrap().ident == "compile_error");
        let expected: syn::ItemImpl = parse_quote! {
            impl<T: Copy> ::revad::Adjoint for U<T> {
                type Adj = ::revad::Zero;
                fn zero_adjoint(&self) -> ::revad::Zero {
                    ::core::unreachable!()
                }
                fn accumulate(_: &mut ::revad::Zero, _: &::revad::Zero) {
                    ::core::unreachable!()
                }
            }
        };
        assert_eq!(fallback, &expected);
    }

    #[test]
    fn generic_parameters_are_found_in_types() {
        let generics: Generics = parse_quote!(<'a, T, const N: usize>);
        let params = param_names(&generics);
        let mentions = |ty: TokenStream| mentions(ty, &params);
        assert!(mentions(quote!(Vec<T>)));
        assert!(mentions(quote!([f64; N])));
        assert!(mentions(quote!(&'a [f64])));
        assert!(mentions(quote!(my_type!(T))));
        assert!(!mentions(quote!(&'static [f64])));
        assert!(!mentions(quote!(Vec<f64>)));
        // A lifetime named like a type parameter is not that parameter, and vice versa.
        let params = param_names(&parse_quote!(<'x, a>));
        assert!(!super::mentions(quote!(&'a f64), &params));
        assert!(super::mentions(quote!(&'x f64), &params));
        assert!(super::mentions(quote!(a), &params));
        assert!(!super::mentions(quote!(x), &params));
    }

    #[test]
    fn recursive_fields_are_found() {
        let tree: Ident = parse_quote!(Tree);
        assert!(names_type(&parse_quote!(Vec<Tree<T>>), &tree));
        assert!(names_type(&parse_quote!(Option<Box<Tree>>), &tree));
        assert!(!names_type(&parse_quote!(Vec<T>), &tree));
        assert!(!names_type(&parse_quote!(other::Tree<T>), &tree));
    }

    #[test]
    fn recursive_fields_have_no_bound() {
        let input: DeriveInput = parse_quote! {
            struct Tree<T> { value: T, kids: Vec<Tree<T>>, next: Option<Box<Self>>, n: usize }
        };
        let container = Container::from_syn(&input).unwrap();
        let expected: syn::WhereClause = parse_quote!(where T: ::revad::Adjoint);
        assert_eq!(container.where_clause(), expected);
    }

    #[test]
    fn self_in_a_field_is_the_type() {
        let input: DeriveInput = parse_quote!(
            struct L<T> {
                next: Option<Box<Self>>,
                v: T,
            }
        );
        let container = Container::from_syn(&input).unwrap();
        let Data::Struct(fields) = &container.data else {
            unreachable!()
        };
        let expected: Type = parse_quote!(Option<Box<L<T>>>);
        assert_eq!(fields.fields[0].ty, expected);
    }

    /// Expansion snapshots: every item of `tests/derive/NAME.rs` derived and pretty-printed
    /// must equal `tests/derive/NAME.expanded.rs`. `AD_SNAPSHOTS=overwrite cargo test -p
    /// ad-macros` rewrites the expected file; review the diff like code.
    fn check(name: &str) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/derive");
        let source = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        let file: syn::File = syn::parse_str(&source).unwrap();
        let mut items = Vec::new();
        for item in file.items {
            let tokens = adjoint(quote!(#item));
            items.extend(syn::parse2::<syn::File>(tokens).unwrap().items);
        }
        let actual = prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items,
        });
        crate::test_support::assert_snapshot(
            &dir.join(format!("{name}.expanded.rs")),
            &format!("expansion of {name}"),
            &actual,
        );
    }

    #[test]
    fn snapshot_adjoint() {
        check("adjoint");
    }
}
