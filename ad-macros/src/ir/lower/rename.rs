//! Renaming user variables inside expressions the macro emits as written (conditions,
//! integer arithmetic, inactive calls), and facts about them. In a function generic over its
//! float type, the intrinsics' methods there are called through the library's trait
//! (`x.abs()` becomes `::revad::Float::abs(x)`, `x.to_f64().unwrap()` becomes
//! `::revad::Float::to_f64(x)`), which the generated items require beside the user's bound
//! (`num_traits::Float` has methods of the same names).

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use super::{Binding, Lowerer};
use crate::ir::{Opaque, Ty, VarId};

/// Methods that are pure and cheap to evaluate again.
const CHEAP_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_sign_positive",
    "is_sign_negative",
    "is_normal",
    "abs",
    "min",
    "max",
    "pow",
    "signum",
    "rem_euclid",
    "div_euclid",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "saturating_sub",
    "saturating_add",
    "count_ones",
    "leading_zeros",
    "trailing_zeros",
    "clone",
];

/// Methods that change their receiver in place (of `Vec`, slices, arrays, `VecDeque`,
/// `String`, `Option`, `Cell` and `RefCell`): on a value that holds differentiated floats they
/// would change it behind the reverse sweep's back.
pub(super) const MUTATING_METHODS: &[&str] = &[
    "append",
    "as_mut",
    "as_mut_ptr",
    "as_mut_slice",
    "borrow_mut",
    "chunks_exact_mut",
    "chunks_mut",
    "clear",
    "clone_from",
    "clone_from_slice",
    "copy_from_slice",
    "copy_within",
    "dedup",
    "dedup_by",
    "dedup_by_key",
    "drain",
    "extend",
    "extend_from_slice",
    "extend_from_within",
    "fill",
    "fill_with",
    "first_mut",
    "get_mut",
    "get_or_insert",
    "get_or_insert_with",
    "insert",
    "iter_mut",
    "last_mut",
    "pop",
    "pop_back",
    "pop_front",
    "push",
    "push_back",
    "push_front",
    "remove",
    "replace",
    "reserve",
    "resize",
    "resize_with",
    "retain",
    "retain_mut",
    "reverse",
    "rotate_left",
    "rotate_right",
    "select_nth_unstable",
    "set",
    "shrink_to_fit",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "sort_unstable_by",
    "sort_unstable_by_key",
    "splice",
    "split_at_mut",
    "split_off",
    "swap",
    "swap_remove",
    "swap_with_slice",
    "take",
    "truncate",
    "update",
    "values_mut",
];

/// The one message for a method that may change a container holding differentiated values.
pub(super) fn mutation_message(name: &str) -> String {
    format!(
        "`.{name}(..)` may change a container of differentiated values in a way #[reverse] \
         does not support; on a float `Vec` bound to a name it supports `push`, \
         `pop().unwrap()`, `insert`, `remove`, `extend_from_slice`, `resize`, `truncate`, \
         `clear` and `swap` as statements of their own, and writing elements by index \
         (`v[i] = ..`)"
    )
}

/// The one message for a macro `#[reverse]` does not support; `vec_elsewhere` when the macro is
/// `vec!` in a place other than the value of a `let`.
pub(super) fn macro_message(path: &syn::Path, vec_elsewhere: bool) -> String {
    let name = path
        .segments
        .last()
        .map_or_else(String::new, |s| s.ident.to_string());
    match name.as_str() {
        "vec" if vec_elsewhere => "#[reverse] supports `vec![x; n]` as the value of a `let` that \
             creates the vector (`let v = vec![0.0; n];`), not here"
            .to_string(),
        "assert" | "assert_eq" | "assert_ne" | "debug_assert" | "debug_assert_eq"
        | "debug_assert_ne" | "panic" | "unreachable" | "todo" | "unimplemented" | "println"
        | "eprintln" | "print" | "eprint" => format!(
            "#[reverse] keeps `{name}!` as a statement, not as a value or inside an expression; \
             write it as a statement of its own (`{name}!(..);`), and give the value another \
             way"
        ),
        "dbg" => "`dbg!` is not supported by #[reverse]: it passes its value through, which the \
             macro cannot see; print the value with `eprintln!(\"{:?}\", value)` on a line of \
             its own"
            .to_string(),
        _ => format!(
            "`{name}!` is not supported by #[reverse]: it cannot see what a macro expands to (it \
             knows `vec![x; n]`, and checks and diagnostics such as `assert!` and `println!` as \
             statements); write the expression without the macro"
        ),
    }
}

pub(super) use crate::rules::KILLING_METHODS;

impl Lowerer<'_> {
    /// `expr` with every user variable renamed to its IR name, as an [`Opaque`].
    pub(super) fn opaque(&self, expr: &syn::Expr) -> Opaque {
        let mut renamer = Renamer {
            lowerer: self,
            reads: Vec::new(),
            flows: Vec::new(),
            killed: 0,
            cheap: true,
            shadowed: Vec::new(),
        };
        // (Before renaming: the receiver is named as the user wrote it.)
        let object = self.trait_object_receiver(expr);
        let mut expr = expr.clone();
        renamer.visit_expr_mut(&mut expr);
        let (mut reads, mut flows) = (renamer.reads, renamer.flows);
        reads.sort_unstable();
        reads.dedup();
        flows.sort_unstable();
        flows.dedup();
        let at = match super::strip(&expr) {
            syn::Expr::MethodCall(call) => call.method.span(),
            _ => expr.span(),
        };
        let message = object.unwrap_or_else(|| non_float_message(&expr));
        let if_active = (at, message);
        Opaque {
            expr: expr.into_token_stream(),
            reads,
            cheap: renamer.cheap,
            flows,
            if_active,
        }
    }
}

impl Lowerer<'_> {
    /// For a method call on a parameter whose type is a trait object (`m.eval(x)` with `m:
    /// &dyn Model`): the message, which gives the generic parameter to write instead.
    fn trait_object_receiver(&self, expr: &syn::Expr) -> Option<String> {
        let syn::Expr::MethodCall(call) = super::strip(expr) else {
            return None;
        };
        let syn::Expr::Path(receiver) = super::strip(&call.receiver) else {
            return None;
        };
        let param = self
            .sig
            .params
            .iter()
            .find(|p| receiver.path.is_ident(&p.ident))?;
        let ty = param.ty.to_token_stream().to_string();
        let object = ty.split_once("dyn ")?.1;
        let bound = object
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .next()
            .unwrap_or("Trait");
        let (method, name) = (&call.method, &param.ident);
        Some(format!(
            "`{method}` is called on a trait object (`{name}: {}`), whose methods #[reverse] \
             cannot differentiate (it calls a method's derivatives by static dispatch); take a \
             type parameter instead, `fn f<M: {bound}>({name}: &M, ..)`, with \
             #[revad::reverse] on the trait and on its impl blocks, and #[reverse] on \
             `{method}`",
            ty.replace(' ', "").replace("dyn", "dyn ")
        ))
    }
}

/// Whether `ty` is a slice, an array, a `Vec` or a `VecDeque`, or a reference to one.
fn sequence_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => sequence_type(&r.elem),
        syn::Type::Group(g) => sequence_type(&g.elem),
        syn::Type::Paren(p) => sequence_type(&p.elem),
        syn::Type::Slice(_) | syn::Type::Array(_) => true,
        syn::Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "Vec" || s.ident == "VecDeque")
        }
        _ => false,
    }
}

/// The standard library's constructors of one value that are not a user's tuple structs.
const WRAPPERS: [&str; 6] = ["Some", "Ok", "Err", "Box", "Rc", "Arc"];

/// Whether `path` ends in one of the [`WRAPPERS`] (`Some`, `std::rc::Rc`).
pub(super) fn is_wrapper(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|last| WRAPPERS.iter().any(|w| last.ident == w))
}

/// The message for an expression whose derivative the macro does not know.
fn non_float_message(expr: &syn::Expr) -> String {
    let callee = match super::strip(expr) {
        syn::Expr::Call(call) => Some(call.func.to_token_stream().to_string().replace(' ', "")),
        syn::Expr::MethodCall(call) => Some(call.method.to_string()),
        _ => None,
    };
    match callee {
        Some(name) if MUTATING_METHODS.contains(&name.as_str()) => mutation_message(&name),
        Some(name) if name == "Some" => "#[reverse] does not differentiate through `Some(..)` \
             of a differentiated value (an `Option` of a local variable it does not model); \
             pass the float itself, or keep a flag beside it (`let mut found = false; let mut \
             best = 0.0;` for `let mut best = None;`)"
            .to_string(),
        Some(name) if WRAPPERS.contains(&name.as_str()) => format!(
            "#[reverse] does not differentiate through `{name}(..)` of a differentiated value \
             (an `Option`, `Result` or pointer it does not model); pass the float itself"
        ),
        Some(name) => format!(
            "`{name}` has no derivative known to #[reverse], and a differentiated value flows \
             into it; use the float intrinsics ({}), or annotate `{name}` with #[reverse]",
            crate::rules::names()
        ),
        None => "#[reverse] cannot differentiate this expression, which uses a differentiated \
                 value; if it computes a float, declare its variables with float types \
                 (`let m: f64 = ...;`)"
            .to_string(),
    }
}

/// Whether `mac` is `matches!` (or `std::matches!`, `core::matches!`).
pub(super) fn is_matches(mac: &syn::Macro) -> bool {
    let path: Vec<String> = mac
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(
        path.iter().map(String::as_str).collect::<Vec<_>>()[..],
        ["matches"] | ["std" | "core", "matches"]
    )
}

/// The arguments of `matches!`: the value, the pattern and the guard.
fn matches_args(
    input: syn::parse::ParseStream<'_>,
) -> syn::Result<(syn::Expr, syn::Pat, Option<syn::Expr>)> {
    let value: syn::Expr = input.parse()?;
    input.parse::<syn::Token![,]>()?;
    let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
    let guard = match input.peek(syn::Token![if]) {
        true => {
            input.parse::<syn::Token![if]>()?;
            Some(input.parse()?)
        }
        false => None,
    };
    input.parse::<Option<syn::Token![,]>>()?;
    Ok((value, pat, guard))
}

/// Whether the value of `expr` carries no derivative whatever its operands: comparisons,
/// boolean logic, casts to non-float types, `.len()`, the `is_*` tests and
/// `revad::stop_gradient(..)`.
pub(super) fn kills_derivative(expr: &syn::Expr) -> bool {
    use syn::BinOp::*;
    match super::strip(expr) {
        syn::Expr::Binary(bin) => matches!(
            bin.op,
            Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_) | And(_) | Or(_)
        ),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)),
        syn::Expr::Cast(cast) => crate::parse::float_of(&cast.ty).is_none(),
        syn::Expr::MethodCall(call) => KILLING_METHODS.contains(&call.method.to_string().as_str()),
        syn::Expr::Macro(mac) => is_matches(&mac.mac),
        syn::Expr::Call(call) => match &*call.func {
            syn::Expr::Path(p) => {
                p.qself.is_none()
                    && (super::gradient::stop_gradient_path(&p.path) == Some(true)
                        || super::desugar::is_sort_permutation(&p.path))
            }
            _ => false,
        },
        _ => false,
    }
}

struct Renamer<'l, 'a> {
    lowerer: &'l Lowerer<'a>,
    reads: Vec<VarId>,
    /// Reads outside any construct that kills derivatives.
    flows: Vec<VarId>,
    /// Depth of killing constructs around the current node.
    killed: usize,
    cheap: bool,
    /// Names bound by closures inside the expression (not renamed).
    shadowed: Vec<String>,
}

impl Renamer<'_, '_> {
    /// Whether `call` is a `.len()` that #[reverse] takes for a length on a receiver it does
    /// not know to be a float array: a struct, a field, an element, a call's result. Its
    /// result is checked to be a `usize` (`expect_length`).
    fn unsure_length(&self, call: &syn::ExprMethodCall) -> bool {
        if call.method != "len" || !call.args.is_empty() || call.turbofish.is_some() {
            return false;
        }
        let known = match super::strip(&call.receiver) {
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                let name = i.to_string();
                !self.shadowed.contains(&name)
                    && matches!(self.lowerer.lookup(&name), Some(Binding::Var(v)) if {
                        let var = &self.lowerer.vars[*v];
                        matches!(&var.ty, Ty::Array(info) if !info.agg)
                            || var.param.is_some_and(|i| {
                                sequence_type(&self.lowerer.sig.params[i].ty)
                            })
                    })
            }),
            _ => false,
        };
        !known
    }

    /// The variable `path` names, if it is a bound user variable not shadowed by a closure.
    fn var_of(&self, path: &syn::Path) -> Option<VarId> {
        let ident = path.get_ident()?;
        let name = ident.to_string();
        if self.shadowed.contains(&name) {
            return None;
        }
        match self.lowerer.lookup(&name)? {
            Binding::Var(v) => Some(*v),
            Binding::Poisoned => None,
            Binding::View(_) => {
                self.lowerer.cx.error(path, super::views::VIEW_USE);
                None
            }
            // (Replaced by its tokens before this: `place_of`.)
            Binding::Place(_) => None,
            Binding::Tuple(_) => {
                self.lowerer.cx.error(
                    path,
                    "a tuple cannot be used whole here; use its elements (`t.0`)",
                );
                None
            }
            Binding::Closure(_) => {
                self.lowerer.cx.error(
                    path,
                    "#[reverse] inlines closures where they are called; this use of a closure \
                     is not a call it can inline",
                );
                None
            }
            Binding::Chain(_) => {
                self.lowerer.cx.error(path, super::BOUND_CHAIN);
                None
            }
        }
    }

    /// The place a path names, if it is a place binding not shadowed by a closure.
    fn place_of(&self, path: &syn::Path) -> Option<super::places::Place> {
        let name = path.get_ident()?.to_string();
        if self.shadowed.contains(&name) {
            return None;
        }
        match self.lowerer.lookup(&name)? {
            Binding::Place(p) => Some(p.clone()),
            _ => None,
        }
    }

    /// The view a path names, if it is a view binding not shadowed by a closure.
    fn view_of(&self, expr: &syn::Expr) -> Option<super::views::View> {
        let syn::Expr::Path(p) = super::strip(expr) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        if self.shadowed.contains(&name) {
            return None;
        }
        match self.lowerer.lookup(&name)? {
            Binding::View(v) => Some(v.clone()),
            _ => None,
        }
    }

    fn path_expr(&mut self, v: VarId, span: Span) -> syn::Expr {
        self.reads.push(v);
        if self.killed == 0 {
            self.flows.push(v);
        }
        let mut name = self.lowerer.vars[v].name.clone();
        // At the user's code, so errors point there; a generated name keeps its resolution.
        name.set_span(name.span().located_at(span));
        syn::parse_quote!(#name)
    }
}

impl VisitMut for Renamer<'_, '_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if kills_derivative(expr) {
            self.killed += 1;
            self.visit_expr_inner(expr);
            self.killed -= 1;
        } else {
            self.visit_expr_inner(expr);
        }
    }

    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

impl Renamer<'_, '_> {
    fn visit_expr_inner(&mut self, expr: &mut syn::Expr) {
        match expr {
            syn::Expr::Path(p) if p.qself.is_none() && self.place_of(&p.path).is_some() => {
                // A name bound to a part of an aggregate: the part (`ps[__i3]`).
                let Some(place) = self.place_of(&p.path) else {
                    return;
                };
                let (tokens, reads) = self.lowerer.place_tokens(&place, p.span());
                self.reads.extend(reads.iter().copied());
                if self.killed == 0 {
                    self.flows.push(place.root);
                }
                *expr = syn::parse_quote!((#tokens));
            }
            syn::Expr::Path(p) if p.qself.is_none() => {
                if let Some(v) = self.var_of(&p.path) {
                    *expr = self.path_expr(v, p.span());
                }
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                // `*x`, `**x` on an element the IR holds by value: `x`.
                if let syn::Expr::Path(p) = strip_derefs(&u.expr) {
                    // `*v` on an item of a loop over a part of an aggregate: the place.
                    if p.qself.is_none() && self.place_of(&p.path).is_some() {
                        let mut path = syn::Expr::Path(p.clone());
                        self.visit_expr_inner(&mut path);
                        *expr = path;
                        return;
                    }
                    if let Some(v) = self.var_of(&p.path) {
                        // (The body's copy of a `&mut` array parameter is owned too.)
                        if self.lowerer.vars[v].deref || self.lowerer.mut_refs.contains(&v) {
                            *expr = self.path_expr(v, p.span());
                            return;
                        }
                    }
                }
                syn::visit_mut::visit_expr_unary_mut(self, u);
            }
            syn::Expr::Field(field) => {
                if let (syn::Expr::Path(p), syn::Member::Unnamed(index)) =
                    (&*field.base, &field.member)
                {
                    if let Some(ident) = p.path.get_ident() {
                        if let Some(Binding::Tuple(items)) = self.lowerer.lookup(&ident.to_string())
                        {
                            if let Some(Binding::Var(v)) = items.get(index.index as usize) {
                                let v = *v;
                                *expr = self.path_expr(v, field.span());
                                return;
                            }
                        }
                    }
                }
                syn::visit_mut::visit_expr_field_mut(self, field);
            }
            syn::Expr::Index(index) if self.view_of(&index.expr).is_some() => {
                // `v[i]` on a view: `base[view::index(start, len, i)]`.
                let Some(view) = self.view_of(&index.expr) else {
                    return;
                };
                self.killed += 1;
                self.visit_expr_mut(&mut index.index);
                self.killed -= 1;
                let (s, n, reads) = self.lowerer.view_parts(&view);
                self.reads.extend(reads);
                let base = self.path_expr(view.base, index.expr.span());
                let (prefix, reads) = self.lowerer.prefix_tokens(&view.prefix);
                self.reads.extend(reads);
                let i = &index.index;
                *expr =
                    syn::parse_quote!(#base #prefix [::revad::__private::view::index(#s, #n, #i)]);
            }
            syn::Expr::MethodCall(call)
                if call.args.is_empty()
                    && (call.method == "len" || call.method == "is_empty")
                    && self.view_of(&call.receiver).is_some() =>
            {
                let Some(view) = self.view_of(&call.receiver) else {
                    return;
                };
                let (_, n, reads) = self.lowerer.view_parts(&view);
                self.reads.extend(reads);
                *expr = if call.method == "len" {
                    syn::parse_quote!((#n))
                } else {
                    syn::parse_quote!((#n == 0))
                };
            }
            syn::Expr::Index(index) => {
                // An index selects an element; its own value carries no derivative.
                self.visit_expr_mut(&mut index.expr);
                self.killed += 1;
                self.visit_expr_mut(&mut index.index);
                self.killed -= 1;
            }
            syn::Expr::Reference(r) if r.mutability.is_some() => {
                // A callee could change the variable behind the reverse sweep's back.
                self.lowerer.cx.error(
                    &*expr,
                    "mutable references are not supported by #[reverse]; pass values and \
                     assign the results",
                );
            }
            syn::Expr::Closure(closure) => {
                self.cheap = false;
                let before = self.shadowed.len();
                for input in &closure.inputs {
                    super::desugar::collect_pat_names(input, &mut self.shadowed);
                }
                self.visit_expr_mut(&mut closure.body);
                self.shadowed.truncate(before);
            }
            syn::Expr::MethodCall(call) => {
                if !CHEAP_METHODS.contains(&call.method.to_string().as_str()) {
                    self.cheap = false;
                }
                self.check_hidden_change(call);
                let through_trait = self.through_float_trait(call);
                let length = self.unsure_length(call);
                syn::visit_mut::visit_expr_method_call_mut(self, call);
                if let Some(call) = through_trait.and_then(|kind| kind.rewrite(call)) {
                    *expr = call;
                } else if length {
                    // Checked to be a `usize`: a user's `len` that computes a float would
                    // lose its derivative here.
                    let span = call.method.span();
                    *expr =
                        syn::parse_quote_spanned!(span=> ::revad::__private::expect_length(#call));
                }
            }
            syn::Expr::Call(call) => {
                self.cheap = false;
                syn::visit_mut::visit_expr_call_mut(self, call);
            }
            syn::Expr::Macro(mac) if is_matches(&mac.mac) => {
                // `matches!(x, pat if guard)`: a flag, its scrutinee and guard renamed.
                let Ok((mut scrutinee, pat, mut guard)) = mac.mac.parse_body_with(matches_args)
                else {
                    self.lowerer
                        .cx
                        .error(&mac.mac, "`matches!` expects `matches!(value, pattern)`");
                    return;
                };
                self.killed += 1;
                self.visit_expr_mut(&mut scrutinee);
                let before = self.shadowed.len();
                super::desugar::collect_pat_names(&pat, &mut self.shadowed);
                if let Some(guard) = &mut guard {
                    self.visit_expr_mut(guard);
                }
                self.shadowed.truncate(before);
                self.killed -= 1;
                let guard = guard.map(|g| quote::quote!(if #g));
                *expr = syn::parse_quote!(::core::matches!(#scrutinee, #pat #guard));
            }
            syn::Expr::Macro(mac) => {
                self.cheap = false;
                self.lowerer
                    .cx
                    .error(&mac.mac.path, macro_message(&mac.mac.path, true));
            }
            syn::Expr::Block(_)
            | syn::Expr::If(_)
            | syn::Expr::Match(_)
            | syn::Expr::Loop(_)
            | syn::Expr::While(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Unsafe(_)
            | syn::Expr::Async(_)
            | syn::Expr::TryBlock(_)
            | syn::Expr::Assign(_) => {
                self.cheap = false;
                self.lowerer.cx.error(
                    &*expr,
                    "#[reverse] does not support this expression inside a condition or an \
                     integer expression; compute it in a `let` first",
                );
            }
            syn::Expr::Let(l) => {
                self.lowerer.cx.error(l.let_token, super::IF_LET);
            }
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }
}

/// A method call on a float, in code kept as written, that the generated items call through
/// the library's trait (`Renamer::through_float_trait`).
#[derive(Clone, Copy)]
enum FloatTraitCall {
    /// `x.abs()`, `x.max(y)`, `x.sin_cos()`: `::revad::Float::abs(x)`.
    Intrinsic,
    /// `x.to_f64().unwrap()` (or `.expect(..)`) of `num_traits::ToPrimitive`:
    /// `::revad::Float::to_f64(x)`, the same value (a float's conversion never fails).
    ToF64,
    /// `x.to_f64()` where the bound is `num-traits`' (`Signature::foreign_bounds`):
    /// `::revad::num_traits::ToPrimitive::to_f64(&x)`.
    ToPrimitive,
}

impl FloatTraitCall {
    /// The call through the trait, from `call` after renaming.
    fn rewrite(self, call: &syn::ExprMethodCall) -> Option<syn::Expr> {
        let span = call.method.span();
        match self {
            FloatTraitCall::Intrinsic => {
                let method = &call.method;
                let receiver = &call.receiver;
                let args = call.args.iter();
                let path = quote::quote_spanned!(span=> ::revad::Float::#method);
                Some(syn::parse_quote!(#path(#receiver #(, #args)*)))
            }
            FloatTraitCall::ToF64 => {
                let syn::Expr::MethodCall(inner) = super::strip(&call.receiver) else {
                    return None;
                };
                let receiver = &inner.receiver;
                let path = quote::quote_spanned!(span=> ::revad::Float::to_f64);
                Some(syn::parse_quote!(#path(#receiver)))
            }
            FloatTraitCall::ToPrimitive => {
                let receiver = &call.receiver;
                let path = quote::quote_spanned!(span=> ::revad::num_traits::ToPrimitive::to_f64);
                Some(syn::parse_quote!(#path(&#receiver)))
            }
        }
    }
}

impl Renamer<'_, '_> {
    /// Whether the generated items call `call` through the library's trait: in a function
    /// generic over its float type, an intrinsic's method on a float (`x.abs()` in a
    /// condition) and `x.to_f64().unwrap()`. The user's bound may be `num_traits::Float`,
    /// whose methods of the same names the generated items, which also require
    /// `::revad::Float`, would find beside the library's (an ambiguity); both traits compute
    /// the same value (each forwards to `f64`'s method, and the dual numbers' methods of
    /// `num-traits` are the library's).
    fn through_float_trait(&self, call: &syn::ExprMethodCall) -> Option<FloatTraitCall> {
        // (Not inside a closure, whose parameters may shadow the function's floats and be
        // references, which the trait's methods do not take.)
        if self.lowerer.sig.generics.is_empty()
            || call.turbofish.is_some()
            || !self.shadowed.is_empty()
        {
            return None;
        }
        let name = call.method.to_string();
        let expected = match crate::rules::lookup(&name) {
            Some(rule) => Some(rule.arity - 1 + usize::from(rule.int_exponent)),
            None => (name == "sin_cos").then_some(0),
        };
        if let Some(expected) = expected {
            return (call.args.len() == expected && self.lowerer.is_float_expr(&call.receiver))
                .then_some(FloatTraitCall::Intrinsic);
        }
        if name == "to_f64"
            && call.args.is_empty()
            && self.lowerer.sig.foreign_bounds
            && self.lowerer.is_float_expr(&call.receiver)
        {
            return Some(FloatTraitCall::ToPrimitive);
        }
        let syn::Expr::MethodCall(inner) = super::strip(&call.receiver) else {
            return None;
        };
        let unwrap = (name == "unwrap" && call.args.is_empty())
            || (name == "expect" && call.args.len() == 1);
        (unwrap
            && inner.method == "to_f64"
            && inner.args.is_empty()
            && inner.turbofish.is_none()
            && self.lowerer.is_float_expr(&inner.receiver))
        .then_some(FloatTraitCall::ToF64)
    }

    /// A method that may change a float array, inside an expression the macro does not
    /// differentiate (a condition, an index, a bound): the reverse sweep would not see the
    /// change (a `pop` in a condition would leave the adjoint longer than the `Vec`), so it
    /// is an error whether or not a derivative flows.
    fn check_hidden_change(&self, call: &syn::ExprMethodCall) {
        let name = call.method.to_string();
        if !MUTATING_METHODS.contains(&name.as_str()) {
            return;
        }
        let syn::Expr::Path(p) = strip_derefs(&call.receiver) else {
            return;
        };
        let Some(v) = self.var_of(&p.path) else {
            return;
        };
        if self.lowerer.vars[v].ty.is_array() {
            self.lowerer.cx.error(
                &call.method,
                format!(
                    "`.{name}(..)` changes the float array `{}` inside an expression that \
                     #[reverse] does not differentiate (a condition, an index, a bound), where \
                     the reverse sweep would not see it; call it in a statement of its own \
                     first (`let t = v.pop().unwrap();`, `v.push(x);`)",
                    p.path.to_token_stream()
                ),
            );
        }
    }
}

/// `expr` without the dereferences and parentheses around it.
pub(super) fn strip_derefs(mut expr: &syn::Expr) -> &syn::Expr {
    loop {
        match expr {
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => expr = &u.expr,
            syn::Expr::Paren(p) => expr = &p.expr,
            _ => return expr,
        }
    }
}

/// Finds `return` expressions outside closures.
struct Returns {
    first: Option<Span>,
}

impl<'ast> Visit<'ast> for Returns {
    fn visit_expr_return(&mut self, ret: &'ast syn::ExprReturn) {
        if self.first.is_none() {
            self.first = Some(ret.return_token.span);
        }
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether `block` contains a `return` (not counting closures and nested items).
pub(super) fn contains_return(block: &syn::Block) -> bool {
    first_return_span(block).is_some()
}

/// The span of the first `return` in `block`.
pub(super) fn first_return_span(block: &syn::Block) -> Option<Span> {
    let mut finder = Returns { first: None };
    finder.visit_block(block);
    finder.first
}
