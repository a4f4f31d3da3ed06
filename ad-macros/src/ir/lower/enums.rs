//! Enums with float payloads: `match` arms that bind the fields of a variant of an aggregate,
//! and enum values built in the body.
//!
//! A binding of a `match` arm on a place of an aggregate is a *place* binding (see `places`)
//! whose path ends in a [`Step::Variant`]: the arm runs only when the value has that variant,
//! so the field is there, and so is the adjoint's (a zero adjoint keeps the value's variant).
//! The `match` itself becomes the `if` chain of a `match` on an inactive value (see
//! `control`), its tests with the bindings replaced by `_`.
//!
//! ```text
//! // Before                               // After
//! match s {                               let __m0 = &(s);
//!     Shape::Circle(r) => 3.0 * r,        let __c1 = matches!(*__m0, Shape::Circle(_));
//!     _ => 0.0,                           if __c1 { (r is s.<Shape::Circle>.0)
//! }                                           let __t2 = s.<Shape::Circle>.0;
//!                                             let __t3 = 3.0 * __t2; .. } else { .. }
//! ```
//!
//! A variant built in the body (`Shape::Circle(2.0 * x)`) is a struct expression
//! ([`crate::ir::StructLit`]) whose `variant` is set: the reverse sweep reads its fields'
//! adjoints through the same variant.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use super::places::Place;
use super::Lowerer;
use crate::ir::{EnumAlias, Step, Variant};

/// Whether `path` names an enum variant: `Shape::Circle`, `geo::Shape::Circle`, `Self::Circle`
/// (a `CamelCase` segment before the last, by Rust's naming convention).
pub(super) fn is_variant_path(path: &syn::Path) -> bool {
    let n = path.segments.len();
    n > 1
        && path.segments[n - 2]
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase())
}

/// Whether `path` names `Option`'s `Some` (`Some`, `Option::Some`, `std::option::Option::Some`).
pub(super) fn is_some_path(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    matches!(
        names.as_slice(),
        ["Some"] | ["Option", "Some"] | ["std" | "core", "option", "Option", "Some"]
    ) && path.segments.iter().all(|s| s.arguments.is_none())
}

/// Whether `pat` binds a name (an uppercase name is a constant or a unit variant).
pub(super) fn binds(pat: &syn::Pat) -> bool {
    use syn::visit::Visit;
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0 |= is_binding(p);
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut finder = Finder(false);
    finder.visit_pat(pat);
    finder.0
}

fn is_binding(p: &syn::PatIdent) -> bool {
    p.subpat.is_some()
        || p.by_ref.is_some()
        || p.mutability.is_some()
        || p.ident
            .to_string()
            .starts_with(|c: char| c.is_lowercase() || c == '_')
}

/// `pat` with every binding replaced by `_` (a test that binds nothing), except those named
/// in `keep` (the names a guard reads).
pub(super) fn test_pattern(pat: &syn::Pat, keep: &[String]) -> syn::Pat {
    use syn::visit_mut::VisitMut;
    struct Wild<'k>(&'k [String]);
    impl VisitMut for Wild<'_> {
        fn visit_pat_mut(&mut self, pat: &mut syn::Pat) {
            if let syn::Pat::Ident(p) = pat {
                if is_binding(p) && p.subpat.is_none() && !self.0.contains(&p.ident.to_string()) {
                    *pat = syn::Pat::Wild(syn::PatWild {
                        attrs: Vec::new(),
                        underscore_token: syn::Token![_](p.ident.span()),
                    });
                    return;
                }
            }
            syn::visit_mut::visit_pat_mut(self, pat);
        }

        fn visit_field_pat_mut(&mut self, field: &mut syn::FieldPat) {
            // A shorthand field (`Shape::Rect { w, .. }`) becomes `w: _`.
            if field.colon_token.is_none() {
                field.colon_token = Some(syn::Token![:](field.pat.span()));
            }
            syn::visit_mut::visit_field_pat_mut(self, field);
        }
    }
    let mut pat = pat.clone();
    Wild(keep).visit_pat_mut(&mut pat);
    pat
}

/// The identifiers in `tokens` (the names a guard may read).
pub(super) fn idents_in(tokens: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => out.extend(idents_in(g.stream())),
            _ => {}
        }
    }
    out
}

impl Lowerer<'_> {
    /// The variant `path` names (`Shape::Circle`), with its enum's adjoint alias registered
    /// for codegen; the field is `0` until the caller sets it. `None` after an error.
    pub(super) fn enum_variant(&mut self, path: &syn::Path) -> Option<Variant> {
        let n = path.segments.len();
        let owner = &path.segments[n - 2];
        // A local type alias cannot name `Self` (E0401), nor the type parameters of the
        // function, and the alias is how a pattern reaches the adjoint's variants.
        if owner.ident == "Self" {
            self.cx.error(
                owner,
                format!(
                    "#[reverse] reaches the adjoint of an enum through its name, which \
                     `Self` cannot give; write the enum's name instead of `Self` in \
                     `Self::{}`",
                    path.segments[n - 1].ident
                ),
            );
            return None;
        }
        if path.leading_colon.is_none() && path.segments.iter().any(|s| !s.arguments.is_none()) {
            self.cx.error(
                path,
                "an enum with generic parameters is not supported by #[reverse] in a `match` \
                 or a variant expression; use an enum without type parameters",
            );
            return None;
        }
        let enum_name = owner.ident.to_string();
        if self
            .sig
            .params
            .iter()
            .any(|p| generic_use(&p.ty, &enum_name))
        {
            self.cx.error(
                owner,
                format!(
                    "an enum with generic parameters (`{enum_name}<..>`) is not supported by \
                     #[reverse] in a `match` or a variant expression; use an enum without \
                     type parameters"
                ),
            );
            return None;
        }
        let segments: Vec<&syn::PathSegment> = path.segments.iter().take(n - 1).collect();
        let leading = path.leading_colon;
        let enum_ty = quote!(#leading #(#segments)::*);
        let names: Vec<String> = segments.iter().map(|s| s.ident.to_string()).collect();
        let alias = format_ident!(
            "__Adj{}",
            names.join("_"),
            span = proc_macro2::Span::mixed_site()
        );
        if !self.enums.iter().any(|e| e.alias == alias) {
            self.enums.push(EnumAlias {
                alias: alias.clone(),
                enum_ty: enum_ty.clone(),
            });
        }
        Some(Variant {
            enum_ty,
            variant: path.segments[n - 1].ident.clone(),
            field: syn::Member::Unnamed(syn::Index::from(0)),
            alias: Some(alias),
        })
    }

    /// The names `pat` binds, each to its place inside `place` (the value `pat` is matched
    /// against). Reports what it cannot bind; `None` after an error.
    pub(super) fn arm_bindings(
        &mut self,
        pat: &syn::Pat,
        place: &Place,
        out: &mut Vec<(syn::Ident, Place)>,
    ) -> Option<()> {
        let at = |step: Step| {
            let mut place = place.clone();
            place.steps.push(step);
            place
        };
        match pat {
            syn::Pat::Reference(r) => self.arm_bindings(&r.pat, place, out),
            syn::Pat::Paren(p) => self.arm_bindings(&p.pat, place, out),
            syn::Pat::Ident(p) if !is_binding(p) => Some(()),
            syn::Pat::Ident(p) => {
                if p.subpat.is_some() || p.mutability.is_some() {
                    self.cx.error(
                        p,
                        "a `mut` or `@` binding in a `match` arm on a value with derivatives \
                         is not supported by #[reverse]; bind the name alone and copy it in \
                         the arm (`let mut r = *r;`)",
                    );
                    return None;
                }
                out.push((p.ident.clone(), place.clone()));
                Some(())
            }
            syn::Pat::TupleStruct(ts) => {
                let variant = if is_some_path(&ts.path) {
                    // (An `Option` field of a struct: its adjoint is an `Option` too.)
                    Some(Variant {
                        enum_ty: quote!(::core::option::Option),
                        variant: syn::Ident::new("Some", ts.path.span()),
                        field: syn::Member::Unnamed(syn::Index::from(0)),
                        alias: None,
                    })
                } else if is_variant_path(&ts.path) {
                    Some(self.enum_variant(&ts.path)?)
                } else {
                    None
                };
                let mut rest = false;
                for (k, elem) in ts.elems.iter().enumerate() {
                    if matches!(elem, syn::Pat::Rest(_)) {
                        rest = true;
                        continue;
                    }
                    if rest {
                        if binds(elem) {
                            self.cx.error(
                                elem,
                                "#[reverse] binds the fields of a variant before a `..` only; \
                                 write `_` for each field before this one instead of `..`",
                            );
                            return None;
                        }
                        continue;
                    }
                    let member = syn::Member::Unnamed(syn::Index::from(k));
                    let step = match &variant {
                        Some(v) => Step::Variant(Variant {
                            field: member,
                            ..v.clone()
                        }),
                        None => Step::Field(member),
                    };
                    let inner = at(step);
                    self.arm_bindings(elem, &inner, out)?;
                }
                Some(())
            }
            syn::Pat::Struct(ps) => {
                let variant = match is_variant_path(&ps.path) {
                    true => Some(self.enum_variant(&ps.path)?),
                    false => None,
                };
                for field in &ps.fields {
                    let step = match &variant {
                        Some(v) => Step::Variant(Variant {
                            field: field.member.clone(),
                            ..v.clone()
                        }),
                        None => Step::Field(field.member.clone()),
                    };
                    let inner = at(step);
                    self.arm_bindings(&field.pat, &inner, out)?;
                }
                Some(())
            }
            syn::Pat::Tuple(t) => {
                for (k, elem) in t.elems.iter().enumerate() {
                    if matches!(elem, syn::Pat::Rest(_)) {
                        if t.elems.iter().skip(k).any(binds) {
                            self.cx.error(
                                elem,
                                "#[reverse] binds the elements of a tuple before a `..` only",
                            );
                            return None;
                        }
                        break;
                    }
                    let step = Step::Field(syn::Member::Unnamed(syn::Index::from(k)));
                    let inner = at(step);
                    self.arm_bindings(elem, &inner, out)?;
                }
                Some(())
            }
            other if !binds(other) => Some(()),
            other => {
                self.cx.error(
                    other,
                    "#[reverse] supports `match` arms on a value with derivatives that bind \
                     the fields of a variant by name (`Shape::Circle(r)`, `Shape::Rect { w, \
                     .. }`); an or-pattern or slice pattern that binds is not supported; \
                     write one arm per variant",
                );
                None
            }
        }
    }
}

/// Whether `ty` names the type `name` with generic arguments (`Shape<f64>`).
fn generic_use(ty: &syn::Type, name: &str) -> bool {
    use syn::visit::Visit;
    struct Finder<'n>(&'n str, bool);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
            self.1 |= s.ident == self.0 && !s.arguments.is_none();
            syn::visit::visit_path_segment(self, s);
        }
    }
    let mut finder = Finder(name, false);
    finder.visit_type(ty);
    finder.1
}

/// The names at the root of the values that `block` takes apart by variant: the scrutinees of
/// `match` and `if let` with patterns that bind (`match s { Shape::Circle(r) => .. }`: `s`;
/// `if let Some(b) = l.bias`: `l`), and the receivers of `Option`'s methods (`l.bias
/// .unwrap_or(0.0)`: `l`). A variant assigned to one of them is an error (see
/// `Lowerer::lower_assign`).
pub(super) fn variant_roots(block: &syn::Block) -> Vec<String> {
    use syn::visit::Visit;
    struct Roots(Vec<String>);
    impl<'a> Visit<'a> for Roots {
        fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
            if m.arms.iter().any(|a| binds(&a.pat)) {
                self.0.extend(root_name(&m.expr));
            }
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_expr_let(&mut self, l: &'a syn::ExprLet) {
            if binds(&l.pat) {
                self.0.extend(root_name(&l.expr));
            }
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_local(&mut self, l: &'a syn::Local) {
            if let Some(init) = &l.init {
                if init.diverge.is_some() {
                    self.0.extend(root_name(&init.expr));
                }
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            const OPTION: &[&str] = &[
                "unwrap",
                "expect",
                "unwrap_or",
                "unwrap_or_else",
                "map_or",
                "map_or_else",
            ];
            if OPTION.contains(&m.method.to_string().as_str()) {
                self.0.extend(root_name(&m.receiver));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut roots = Roots(Vec::new());
    roots.visit_block(block);
    roots.0
}

/// The name at the root of a place (`l` of `l.bias`, `ss` of `ss[i].0`, `s` of `&*s`, `p` of
/// `p.pos.iter()`).
pub(super) fn root_name(expr: &syn::Expr) -> Option<String> {
    match super::strip(expr) {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Field(f) => root_name(&f.base),
        syn::Expr::Index(i) => root_name(&i.expr),
        syn::Expr::Reference(r) => root_name(&r.expr),
        syn::Expr::Unary(u) => root_name(&u.expr),
        syn::Expr::MethodCall(m) => root_name(&m.receiver),
        _ => None,
    }
}
