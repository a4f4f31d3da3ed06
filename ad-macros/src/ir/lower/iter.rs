//! Iterator chains over arrays and ranges, lowered to loops.
//!
//! ```text
//! // Before
//! let s = xs.iter().zip(ys).map(|(x, y)| x * y * w).sum::<f64>();
//! // After
//! let mut __acc0 = 0.0;
//! for __i1 in 0..xs.len().min(ys.len()) {
//!     let __x2 = xs[__i1];
//!     let __y3 = ys[__i1];
//!     let __t4 = __x2 * __y3;
//!     let __t5 = __t4 * w;
//!     __acc0 += __t5;
//! }
//! let s = __acc0;
//! ```
//!
//! The loop is an ordinary IR loop, so it obeys the memory rules of loops: here nothing is
//! stored, because `xs`, `ys` and the index are available again in the reverse sweep. The
//! closures are inlined (see `closure`), so a captured `w` receives its adjoint.
//!
//! Sources: `xs.iter()`, `xs.into_iter()` (also of a temporary array, `[a, b].iter()`, bound
//! to a local before the loop), a range `(a..b)` (then `.rev()`, `.step_by(k)`), and the
//! chunks or windows of a float array or slice (`xs.chunks(k)`, `xs.chunks_exact(k)`,
//! `xs.windows(k)`), whose items are views, as in a `for` loop over them (see `views`):
//! `xs.windows(2).map(|w| w[1] - w[0])` reads `xs[__s + 1]` and `xs[__s]` with `__s` the
//! window's start. `xs` may be a sequence of aggregates or an array inside one (`ps.iter()`,
//! `self.w[i].iter()`), whose items are places (see `views`): `ps.iter().map(|p| p.mass)`
//! reads `ps[__i].mass`, and a closure that returns a part of its item (`|p| p.pos`) passes
//! the place on. Right after `xs.iter()`, `.skip(k)`, `.take(n)` (clamped to the length, as
//! the iterators do) and `.step_by(k)` narrow the view (`views::narrow`), maybe followed by
//! `.rev()` (the narrowed items last first, as in a `for` loop). Adaptors: `.zip(ys)`
//! (with `ys`, `&ys` or `ys.iter()`, maybe narrowed), `.enumerate()`, `.map(f)`,
//! `.filter(p)`, `.copied()`, `.cloned()`, `.flatten()` (of items that are arrays or slices,
//! `m.iter().flatten()`: an inner loop, which the later stages run in), `.flat_map(f)`.
//! Consumers: `.sum()`, `.product()`, `.fold(init, f)`, `.collect()` (into a `Vec`),
//! `.for_each(f)`, and `.reduce(f)`, `.max_by(cmp)`, `.min_by(cmp)` followed by `.unwrap()`,
//! `.expect("..")` or `.unwrap_or(d)` (`lower_reduction`: the first item starts the value, a
//! counter tells it apart, and an empty chain panics or gives `d` after the loop).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;

use super::views::{Chunked, View};
use super::{strip, Binding, LoopCtx, Lowerer, Value};
use crate::ir::{
    ArrayInfo, AssignOp, BinOp, LoopKind, Opaque, Operand, Path, RangeLoop, Rhs, Shape, Stmt,
    StmtKind, Ty, VarId, Walk,
};

/// The one message for an adaptor or consumer argument that is not a closure.
const CLOSURE_EXPECTED: &str =
    "#[reverse] supports closures here (`|x| ...`, or a variable bound to one)";

/// Where the items come from.
enum Source<'e> {
    /// Elements of a float array or a view of one (`by_ref`: yielded as references;
    /// `rev`: last first, `xs.iter().rev()`).
    Array { view: View, by_ref: bool, rev: bool },
    /// The integers of a range (`a..b`, `(a..b).rev()`, `(a..b).step_by(k)`).
    Range(&'e syn::Expr, RangeChain<'e>),
    /// The chunks or windows of a float array or view, each item a view.
    Chunks(Chunked),
}

/// What `.zip(other)` brings in: the elements of a float array or view (and whether they are
/// yielded as references), or its chunks or windows (`.zip(y.chunks(k))`).
enum Zipped {
    Elems(View, bool),
    Chunks(Chunked),
}

/// An adaptor between the source and the consumer. A `zip` or `enumerate` after a `filter` or
/// a `flatten` numbers the items that reach it with a counter of its own (`Some`, set by
/// `lower_chain_parts`): the loop's index numbers the source's items.
enum Stage<'e> {
    Zip(&'e syn::Expr, Option<VarId>),
    Enumerate(Option<VarId>),
    Map(&'e syn::Expr),
    /// A closure the lowering made (`|r| r` from `.flat_map(|r| r.iter())`).
    MapMade(Box<syn::Expr>),
    Filter(&'e syn::Expr),
    Copied,
    /// `.flatten()` (the method's name, for messages): each item, an array or a slice, is
    /// walked by an inner loop whose items go on through the later stages.
    Flatten(&'e syn::Ident),
}

/// The message for a `.filter_map(..)` whose closure `desugar::split_filter_map` cannot split.
const FILTER_MAP: &str =
    "#[reverse] takes `.filter_map(f)` where `f` is `|x| if c { Some(e) } else { \
     None }`, `|x| c.then(|| e)` or `|x| c.then_some(e)`; write it as `.filter(..).map(..)`";

/// The method that consumes the iterator.
enum Consumer<'e> {
    Sum,
    Product,
    Fold(&'e syn::Expr, &'e syn::Expr),
    Collect,
    ForEach(&'e syn::Expr),
    /// `.reduce(f)`, `.max_by(cmp)`, `.min_by(cmp)`, then what the `Option` becomes.
    Reduce(Reduction<'e>, Unwrap<'e>),
}

/// How a reduction combines the value so far with the next item. The first item is the
/// value so far, as the iterators start (`Iterator::reduce`); `max_by` keeps the value so
/// far where `cmp(&so_far, &item)` is `Greater` (so the last of equal maxima wins, as in
/// `std::cmp::max_by`), `min_by` takes the item only there (the first of equal minima).
#[derive(Clone, Copy)]
enum Reduction<'e> {
    Fold(&'e syn::Expr),
    Max(&'e syn::Expr),
    Min(&'e syn::Expr),
}

/// Whether `call` is a reduction of a chain (see [`reduction`]).
pub(super) fn is_reduction(call: &syn::ExprMethodCall) -> bool {
    reduction(call).is_some()
}

/// What the `Option` of a reduction becomes: its value or a panic with `Option`'s message
/// (`.unwrap()`, `.expect("..")`), or a default (`.unwrap_or(d)`).
#[derive(Clone, Copy)]
enum Unwrap<'e> {
    Panic(Option<&'e syn::LitStr>),
    Or(&'e syn::Expr),
}

/// For `C.reduce(f).unwrap()` (or `max_by`, `min_by`; `.expect("..")`, `.unwrap_or(d)`;
/// `.copied()` or `.cloned()` before the unwrap): the reducing call, the reduction and the
/// unwrap. `None` for any other expression.
fn reduction(
    call: &syn::ExprMethodCall,
) -> Option<(&syn::ExprMethodCall, Reduction<'_>, Unwrap<'_>)> {
    if call.turbofish.is_some() {
        return None;
    }
    let args: Vec<&syn::Expr> = call.args.iter().collect();
    let unwrap = match (call.method.to_string().as_str(), &args[..]) {
        ("unwrap", []) => Unwrap::Panic(None),
        (
            "expect",
            [syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })],
        ) => Unwrap::Panic(Some(s)),
        ("unwrap_or", [d]) => Unwrap::Or(match strip(d) {
            // (`unwrap_or(&0.0)` where the items are references.)
            syn::Expr::Reference(r) if r.mutability.is_none() => &r.expr,
            d => d,
        }),
        _ => return None,
    };
    let mut receiver = strip(&call.receiver);
    if let syn::Expr::MethodCall(m) = receiver {
        if (m.method == "copied" || m.method == "cloned") && m.args.is_empty() {
            receiver = strip(&m.receiver);
        }
    }
    let syn::Expr::MethodCall(reducing) = receiver else {
        return None;
    };
    if reducing.args.len() != 1 || reducing.turbofish.is_some() {
        return None;
    }
    let f = &reducing.args[0];
    let reduction = match reducing.method.to_string().as_str() {
        "reduce" => Reduction::Fold(f),
        "max_by" => Reduction::Max(f),
        "min_by" => Reduction::Min(f),
        _ => return None,
    };
    Some((reducing, reduction, unwrap))
}

/// Methods that end a chain this module lowers.
pub(super) const CONSUMERS: &[&str] = &["sum", "product", "fold", "collect", "for_each"];

/// An iterator chain bound by `let` and consumed later:
///
/// ```text
/// // Before                                  // After: as if written in one expression
/// let it = xs.iter().map(|v| v * w);         let s: f64 = xs.iter().map(|v| v * w).sum();
/// let s: f64 = it.sum();
/// ```
///
/// The chain is lowered where it is consumed, with the names in scope where it was bound (as
/// a closure's body is). Rust runs an iterator's closures when it is consumed, and until then
/// the chain borrows what it reads, so nothing it reads can change in between; the chains
/// bound this way are those for which that holds of every part (`iter::bindable_chain`).
#[derive(Clone)]
pub(super) struct BoundChain {
    pub expr: std::rc::Rc<syn::Expr>,
    pub scopes: std::rc::Rc<Vec<std::collections::HashMap<String, Binding>>>,
}

impl std::fmt::Debug for BoundChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BoundChain")
    }
}

impl Lowerer<'_> {
    /// Whether `expr` is an iterator chain that may be bound by `let` and consumed later
    /// (see [`BoundChain`]): adaptors (`map`, `filter`, `zip`, `enumerate`, `copied`,
    /// `cloned`, `skip`, `take`, `step_by`) over `xs.iter()`, whose closures are not `move`
    /// and whose other arguments (`zip`'s `ys.iter()` or `&ys`, `skip`'s count) read no `mut`
    /// variable: a value taken by the chain when it is built would otherwise differ from the
    /// value read where it is consumed.
    pub(super) fn bindable_chain(&self, expr: &syn::Expr) -> bool {
        let syn::Expr::MethodCall(m) = strip(expr) else {
            return false;
        };
        let name = m.method.to_string();
        let reads_mut = |e: &syn::Expr| {
            super::closure::mentioned_names(e)
                .iter()
                .any(|n| matches!(self.lookup(n), Some(Binding::Var(v)) if self.vars[*v].mutable))
        };
        match (name.as_str(), m.args.len()) {
            ("iter", 0) => matches!(strip(&m.receiver), syn::Expr::Path(_)),
            ("copied" | "cloned" | "enumerate", 0) => self.bindable_chain(&m.receiver),
            ("map" | "filter", 1) => {
                let plain = match strip(&m.args[0]) {
                    syn::Expr::Closure(c) => c.capture.is_none(),
                    syn::Expr::Path(_) => true,
                    _ => false,
                };
                plain && self.bindable_chain(&m.receiver)
            }
            ("zip", 1) => {
                let borrowed = match strip(&m.args[0]) {
                    syn::Expr::Reference(r) => r.mutability.is_none(),
                    syn::Expr::MethodCall(i) => i.method == "iter" && i.args.is_empty(),
                    _ => false,
                };
                borrowed && self.bindable_chain(&m.receiver)
            }
            ("skip" | "take" | "step_by", 1) => {
                !reads_mut(&m.args[0]) && self.bindable_chain(&m.receiver)
            }
            _ => false,
        }
    }

    /// `it.sum()` (or `.product()`, `.collect()`) of a chain bound by `let`: the chain with
    /// the consumer, lowered in the scope where the chain was bound.
    pub(super) fn lower_bound_chain(
        &mut self,
        call: &syn::ExprMethodCall,
        chain: &BoundChain,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let mut whole = call.clone();
        *whole.receiver = (*chain.expr).clone();
        let saved = std::mem::replace(&mut self.scopes, (*chain.scopes).clone());
        let value = self.lower_chain(&whole, out);
        self.scopes = saved;
        value.unwrap_or(Value::Error)
    }

    /// Lowers `call` (a consumer method) if it ends a supported chain; `None` if it is not a
    /// chain at all (so the caller can treat it as an ordinary method call).
    pub(super) fn lower_chain(
        &mut self,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let consumer = match (call.method.to_string().as_str(), call.args.len()) {
            ("sum", 0) => Consumer::Sum,
            ("product", 0) => Consumer::Product,
            ("fold", 2) => Consumer::Fold(&call.args[0], &call.args[1]),
            ("collect", 0) => Consumer::Collect,
            ("for_each", 1) => Consumer::ForEach(&call.args[0]),
            _ => return None,
        };
        // `a.chain(b).map(f).sum()`: the sum over each part (see [`unchained`]).
        if let Some(split) = unchained(call, self.sig.default_float) {
            if self.mentions_float(&syn::Expr::MethodCall(call.clone())) {
                return Some(self.lower_expr(&split, out));
            }
        }
        self.lower_consumed_chain(call, consumer, out)
    }

    /// `C.reduce(f).unwrap()`, `*xs.iter().max_by(cmp).unwrap()`, .. (see [`reduction`]): a
    /// loop whose first item starts the value, as `lower_chain`'s. `None` if `call` is no
    /// reduction of a chain.
    pub(super) fn lower_reduction(
        &mut self,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let (reducing, reduction, unwrap) = reduction(call)?;
        self.lower_consumed_chain(reducing, Consumer::Reduce(reduction, unwrap), out)
    }

    /// [`Lowerer::lower_chain`] with its consumer, the method `call`.
    fn lower_consumed_chain(
        &mut self,
        call: &syn::ExprMethodCall,
        consumer: Consumer<'_>,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if !self.mentions_float(&syn::Expr::MethodCall(call.clone())) {
            // A chain of integers (`(0..n).rev().collect::<Vec<usize>>()`): inactive data,
            // emitted as written.
            return None;
        }
        let mut stages = Vec::new();
        let mut receiver = &*call.receiver;
        let mut rev = false;
        // `.skip(k)` / `.take(n)` / `.step_by(k)` right after `xs.iter()`, innermost first: a
        // narrower view.
        let mut narrowing: Vec<&syn::ExprMethodCall> = Vec::new();
        let source = loop {
            if let Some(range) = range_chain(receiver) {
                // A range, maybe followed by `.rev()` / `.step_by(k)`.
                break Source::Range(strip(receiver), range);
            }
            match strip(receiver) {
                syn::Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    match (name.as_str(), m.args.len()) {
                        ("zip", 1) => stages.push(Stage::Zip(&m.args[0], None)),
                        ("enumerate", 0) => stages.push(Stage::Enumerate(None)),
                        ("map", 1) => stages.push(Stage::Map(&m.args[0])),
                        ("filter", 1) => stages.push(Stage::Filter(&m.args[0])),
                        // (One that `desugar::split_filter_map` splits is `.filter(..)
                        // .map(..)` before it gets here.)
                        ("filter_map", 1) => return self.chain_error(&m.method, FILTER_MAP),
                        ("copied" | "cloned", 0) => stages.push(Stage::Copied),
                        ("flatten", 0) => stages.push(Stage::Flatten(&m.method)),
                        // `.flat_map(f)`: `.map(f).flatten()`; `.flat_map(|r| r.iter())`:
                        // `.map(|r| r).flatten()`.
                        ("flat_map", 1) => {
                            stages.push(Stage::Flatten(&m.method));
                            stages.push(match closure_of_rows(&m.args[0]) {
                                Some(f) => Stage::MapMade(Box::new(f)),
                                None => Stage::Map(&m.args[0]),
                            });
                        }
                        // `xs.iter().rev()`, `xs.iter().step_by(2).rev()`: the items last
                        // first (the view narrowed first, as in a `for` loop).
                        ("rev", 0) if !rev && is_narrowed_iter_call(&m.receiver) => rev = true,
                        ("skip" | "take" | "step_by", 1) if is_narrowed_iter_call(&m.receiver) => {
                            narrowing.insert(0, m)
                        }
                        ("iter" | "into_iter", 0) => match self.elements_of(&m.receiver, out) {
                            Some(Ok((view, whole))) => {
                                let by_ref = name == "iter"
                                    || !whole
                                    || self.is_reference(view.base);
                                let mut view = view;
                                for m in narrowing {
                                    view = self.narrow(&view, m, out);
                                }
                                break Source::Array { view, by_ref, rev };
                            }
                            Some(Err(())) => return Some(Value::Error),
                            // `W.iter().zip(x).map(|(w, v)| w * v).sum()` over a constant
                            // table: the `for` loop it stands for, which walks such tables.
                            None => match sum_as_loop(call, self.sig.default_float) {
                                Some(block) => return Some(self.lower_expr(&block, out)),
                                None => return self.chain_error(&m.receiver, "an iterator over a float array bound to a name"),
                            },
                        },
                        ("chunks" | "chunks_exact" | "windows", 1) => match self.chunked(m, out) {
                            Some(Ok(chunked)) => break Source::Chunks(chunked),
                            Some(Err(())) => return Some(Value::Error),
                            None => return self.chain_error(&m.receiver, "chunks or windows of a float array or slice bound to a name"),
                        },
                        // `x.iter().rev().take(2).sum()`: the `for` loop it stands for,
                        // whose sequences may narrow or reverse a zip, an enumeration,
                        // chunks or a reversed view.
                        _ if matches!(name.as_str(), "rev" | "skip" | "take" | "step_by")
                            && sum_as_loop(call, self.sig.default_float).is_some() =>
                        {
                            let block =
                                sum_as_loop(call, self.sig.default_float).expect("just checked");
                            return Some(self.lower_expr(&block, out));
                        }
                        ("chain", 1) => {
                            return self.chain_error(
                                &m.method,
                                "#[reverse] takes `a.chain(b)` as the sequence of a `for` loop, \
                                 and in a chain where only `map`, `filter`, `filter_map`, \
                                 `flat_map`, `copied`, `cloned` or `flatten` follow it, ended by \
                                 `sum`, `product`, `fold` or `for_each`; write the loop over \
                                 each part",
                            )
                        }
                        _ => {
                            return self.chain_error(
                                &m.method,
                                &format!(
                                    "`.{name}()` is not supported in an iterator chain by #[reverse]; \
                                     use `map`, `zip`, `enumerate`, `filter`, `flatten` (`skip`, \
                                     `take`, `step_by` right after `iter()`), then `sum`, `product`, \
                                     `fold`, `collect` or `for_each`, or write a `for` loop"
                                ),
                            )
                        }
                    }
                    receiver = &m.receiver;
                }
                other => {
                    if self.is_float_expr(other) || self.array_var(other).is_some() {
                        return self.chain_error(
                            other,
                            "an iterator chain starting from `xs.iter()` or a range `(a..b)`",
                        );
                    }
                    return None;
                }
            }
        };
        stages.reverse();
        if let Some(flatten) = flattened_too_late(&stages, &consumer) {
            return self.chain_error(
                flatten,
                "`collect` after `.flatten()` is not supported by #[reverse]; collect before \
                 flattening, or write nested `for` loops",
            );
        }
        Some(self.lower_chain_parts(call, source, stages, consumer, out))
    }

    fn chain_error(&self, node: impl quote::ToTokens, what: &str) -> Option<Value> {
        self.cx.error(
            node,
            if what.starts_with('`') || what.starts_with("#[") {
                what.to_string()
            } else {
                format!("#[reverse] supports {what} here")
            },
        );
        Some(Value::Unit)
    }

    /// The float array or view `expr` names (`xs`, `&xs`, `(xs)`, `&xs[a..b]`), and whether
    /// it is a whole array bound to a name.
    fn elements_of(
        &mut self,
        expr: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<Result<(View, bool), ()>> {
        let plain = match strip(expr) {
            syn::Expr::Reference(r) => strip(&r.expr),
            other => other,
        };
        if let Some(array) = self.array_var(plain) {
            return Some(Ok((View::whole(array, false), true)));
        }
        // A temporary array (`[a, b].iter()`): evaluated before the loop, into a local.
        if let syn::Expr::Array(_) | syn::Expr::Repeat(_) = plain {
            return match self.lower_expr(plain, out) {
                Value::Op(Operand::Var(array)) if self.vars[array].ty.is_array() => {
                    Some(Ok((View::whole(array, false), true)))
                }
                Value::Error => Some(Err(())),
                _ => None,
            };
        }
        // A sequence of aggregates or an array inside one (`ps`, `p.pos`, `self.w[i]`): its
        // items are places.
        if !self.is_view_expr(expr) && !self.is_place_expr(plain) {
            return None;
        }
        Some(self.view_expr(expr, out)?.map(|v| (v, false)))
    }

    /// Whether the array variable is a reference (a slice parameter), whose `into_iter`
    /// yields references.
    fn is_reference(&self, array: VarId) -> bool {
        self.vars[array].param.is_some_and(|i| {
            matches!(
                self.sig.params.get(i).map(|p| &p.ty),
                Some(syn::Type::Reference(_))
            )
        })
    }

    fn lower_chain_parts(
        &mut self,
        call: &syn::ExprMethodCall,
        source: Source<'_>,
        mut stages: Vec<Stage<'_>>,
        consumer: Consumer<'_>,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let span = call.method.span();
        // A `zip` or `enumerate` after a `filter` or a `flatten` counts the items that reach
        // it: a counter declared before the loop.
        let mut counted = false;
        for stage in &mut stages {
            match stage {
                Stage::Filter(_) | Stage::Flatten(_) => counted = true,
                Stage::Zip(_, counter) | Stage::Enumerate(counter) if counted => {
                    *counter = Some(self.item_counter(span, out));
                }
                _ => {}
            }
        }
        // The arrays zipped in; those zipped in step with the source bound the loop's range.
        let mut zipped = Vec::new();
        let mut in_step = Vec::new();
        for stage in &stages {
            if let Stage::Zip(other, counter) = stage {
                match self.zip_source(other, out) {
                    Some(Ok(z)) => {
                        in_step.push(counter.is_none());
                        zipped.push(z);
                    }
                    Some(Err(())) => return Value::Error,
                    // `x.iter().zip(TABLE.iter()).map(..).sum()`: the `for` loop, which
                    // walks constant tables.
                    None if zipped.is_empty()
                        && sum_as_loop(call, self.sig.default_float).is_some() =>
                    {
                        let block =
                            sum_as_loop(call, self.sig.default_float).expect("just checked");
                        return self.lower_expr(&block, out);
                    }
                    None => {
                        self.cx.error(
                            *other,
                            "#[reverse] can zip with a float array (`ys`, `&ys` or `ys.iter()`), \
                             or its chunks or windows (`ys.chunks(k)`)",
                        );
                        return Value::Error;
                    }
                }
            }
        }
        let bounding: Vec<&Zipped> = zipped
            .iter()
            .zip(&in_step)
            .filter_map(|(z, &in_step)| in_step.then_some(z))
            .collect();
        let (range, walk, len): (Opaque, Walk, Option<TokenStream>) = match &source {
            Source::Array { view, .. } => self.counted(self.view_len_tokens(view), &bounding),
            Source::Chunks(chunked) => self.counted(self.chunk_count(chunked), &bounding),
            Source::Range(expr, chain) => {
                if !zipped.is_empty() || stages.iter().any(|s| matches!(s, Stage::Enumerate(_))) {
                    self.cx.error(*expr, "#[reverse] supports `zip` and `enumerate` on iterators over arrays; index the arrays by the range instead");
                    return Value::Error;
                }
                let mut range = self.opaque(expr);
                range.flows.clear();
                let walk = self.range_walk(chain);
                let len = match expr {
                    syn::Expr::Range(r) => match (&r.start, &r.end, &r.limits) {
                        (Some(a), Some(b), syn::RangeLimits::HalfOpen(_)) if is_zero(a) => {
                            let b = self.opaque(b).expr;
                            Some(quote!(#b))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                (range, walk, len)
            }
        };

        // The accumulator of the consumer, declared before the loop.
        let mut tuple_acc = None;
        let acc = match &consumer {
            Consumer::Sum | Consumer::Product => {
                // `Sum` for floats folds from `-0.0` (so the sum of no items is `-0.0`, and
                // `-0.0 + x` is `x` for every `x`); `Product` from `1.0`.
                let init = if matches!(consumer, Consumer::Sum) {
                    quote!(-0.0)
                } else {
                    quote!(1.0)
                };
                let float = turbofish_float(call, self.sig);
                let var = self.fresh("acc", Ty::Float(float), true, span);
                out.push(Stmt {
                    kind: StmtKind::Let {
                        var,
                        rhs: Rhs::Copy(Operand::Lit(init, crate::ir::LitKind::Float(float))),
                        ty: None,
                    },
                    span,
                });
                Some(var)
            }
            // A tuple of numbers (`fold((0.0, 0.0), |(s, q), x| (s + x, q + x * x))`): an
            // accumulator per element (`tuple_acc`).
            Consumer::Fold(init, _) if matches!(strip(init), syn::Expr::Tuple(_)) => {
                let msg = "#[reverse] folds numbers or tuples of numbers: the initial value \
                           must be one";
                let items = match self.lower_expr(init, out) {
                    Value::Tuple(items) => items,
                    Value::Error => return Value::Error,
                    _ => {
                        self.cx.error(*init, msg);
                        return Value::Error;
                    }
                };
                let mut vars = Vec::new();
                for item in items {
                    let Some(init) = self.number(item, *init, msg) else {
                        return Value::Error;
                    };
                    let ty = match self.ty_of(&init) {
                        Ty::Float(_) => Ty::Float(None),
                        ty => ty,
                    };
                    let var = self.fresh("acc", ty, true, span);
                    out.push(Stmt {
                        kind: StmtKind::Let {
                            var,
                            rhs: Rhs::Copy(init),
                            ty: None,
                        },
                        span,
                    });
                    vars.push(var);
                }
                tuple_acc = Some(vars);
                None
            }
            Consumer::Fold(init, _) => {
                let value = self.lower_expr(init, out);
                let msg = "#[reverse] folds numbers: the initial value must be a number";
                let Some(init) = self.number(value, *init, msg) else {
                    return Value::Error;
                };
                let var = self.fresh("acc", Ty::Float(None), true, span);
                out.push(Stmt {
                    kind: StmtKind::Let {
                        var,
                        rhs: Rhs::Copy(init),
                        ty: None,
                    },
                    span,
                });
                Some(var)
            }
            Consumer::Collect => {
                let Some(len) = &len else {
                    self.cx.error(
                        &call.method,
                        "#[reverse] collects iterators over arrays, or over ranges `0..n`",
                    );
                    return Value::Error;
                };
                if stages.iter().any(|s| matches!(s, Stage::Filter(_))) {
                    self.cx.error(&call.method, "`collect` after `filter` (or `filter_map`) is not supported by #[reverse]; collect first, or write a loop");
                    return Value::Error;
                }
                let reads = range.reads.clone();
                let n = self.let_opaque(
                    out,
                    "n",
                    Ty::Usize,
                    Opaque::generated(len.clone(), reads),
                    span,
                );
                let ty = Ty::Array(ArrayInfo {
                    elem: None,
                    shape: Shape::Len(Operand::Var(n)),
                    agg: false,
                });
                let var = self.fresh("collected", ty, true, span);
                let zero = Operand::Lit(quote!(0.0), crate::ir::LitKind::Float(None));
                out.push(Stmt {
                    kind: StmtKind::Let {
                        var,
                        rhs: Rhs::VecRepeat(zero, Operand::Var(n)),
                        ty: None,
                    },
                    span,
                });
                Some(var)
            }
            Consumer::ForEach(_) => None,
            // The value so far, set by the first item (the `0.0` is never read), and the
            // items counted (`first`), the first at 0.
            Consumer::Reduce(..) => {
                let var = self.fresh("acc", Ty::Float(None), true, span);
                let zero = Operand::Lit(quote!(0.0), crate::ir::LitKind::Float(None));
                out.push(Stmt {
                    kind: StmtKind::Let {
                        var,
                        rhs: Rhs::Copy(zero),
                        ty: None,
                    },
                    span,
                });
                Some(var)
            }
        };
        let first = match consumer {
            Consumer::Reduce(..) => Some(self.item_counter(span, out)),
            _ => None,
        };
        // Whether the items reach the consumer as references (`xs.iter().max_by(..)`, whose
        // comparison takes `&&f64`).
        let by_ref = matches!(source, Source::Array { by_ref: true, .. })
            && stages.iter().all(|s| matches!(s, Stage::Filter(_)));

        // The loop, with the items built at the start of the body.
        let first_var = self.vars.len();
        self.loops
            .push(LoopCtx::new(None, false, self.in_value_branch, first_var));
        self.push_scope();
        let mut body = Vec::new();
        let (index, item) = match &source {
            Source::Array { view, by_ref, rev } => {
                let index = self.fresh("i", Ty::Usize, false, span);
                let position = if *rev {
                    // Item `i` of `xs.iter().rev()` is `xs[len - 1 - i]`.
                    let (n, mut reads) = self.view_len_tokens(view);
                    let i = &self.vars[index].name;
                    reads.push(index);
                    let j = self.let_opaque(
                        &mut body,
                        "j",
                        Ty::Usize,
                        Opaque::generated(quote!(#n - 1 - #i), reads),
                        span,
                    );
                    Operand::Var(j)
                } else {
                    Operand::Var(index)
                };
                let item = self.element(view, position, *by_ref, span, &mut body);
                (index, item)
            }
            Source::Range(..) => {
                let index = self.fresh("i", Ty::Unknown, false, span);
                (index, Value::Op(Operand::Var(index)))
            }
            Source::Chunks(chunked) => {
                let index = self.fresh("i", Ty::Usize, false, span);
                let chunk = self.chunk(chunked, index, span, &mut body);
                (index, Value::View(chunk))
            }
        };
        let step = Step {
            consumer: &consumer,
            acc,
            index,
            span,
            first,
            by_ref,
            tuple_acc: tuple_acc.clone(),
        };
        let result = self.stages(&step, &stages, &zipped, item, &mut body);
        self.pop_scope();
        self.loops.pop();
        if let Value::Unit = result {
            if self.cx.has_errors() {
                return Value::Unit;
            }
        }
        let kind = LoopKind::Range(RangeLoop {
            var: Some(index),
            range,
            walk,
        });
        self.push_loop(kind, body, Vec::new(), None, span, out);
        if let (Consumer::Reduce(_, unwrap), Some(acc), Some(count)) = (&consumer, acc, first) {
            // No item: `Option::unwrap`'s panic, or the default.
            let k = &self.vars[count].name;
            match unwrap {
                Unwrap::Panic(message) => {
                    let message = match message {
                        Some(s) => quote!("{}", #s),
                        None => quote!("called `Option::unwrap()` on a `None` value"),
                    };
                    out.push(Stmt {
                        kind: StmtKind::Opaque {
                            tokens: quote!(if #k == 0 { ::core::panic!(#message); }),
                            writes: Vec::new(),
                            flows: Vec::new(),
                            if_active: (span, String::new()),
                        },
                        span,
                    });
                }
                Unwrap::Or(d) => {
                    let none = Opaque::generated(quote!(#k == 0), vec![count]);
                    let none = self.let_opaque(out, "c", Ty::Bool, none, span);
                    let mut then = Vec::new();
                    let value = self.lower_expr(d, &mut then);
                    let msg = "#[reverse] reduces numbers here: the default must be a number";
                    let Some(d) = self.number(value, *d, msg) else {
                        return Value::Error;
                    };
                    then.push(Stmt {
                        kind: StmtKind::Assign {
                            var: acc,
                            op: AssignOp::Set,
                            value: d,
                        },
                        span,
                    });
                    self.push_if(
                        Operand::Var(none),
                        (then, Vec::new()),
                        Vec::new(),
                        span,
                        out,
                    );
                }
            }
        }
        if let Some(vars) = tuple_acc {
            return Value::Tuple(
                vars.into_iter()
                    .map(|v| Value::Op(Operand::Var(v)))
                    .collect(),
            );
        }
        match acc {
            Some(acc) => Value::Op(Operand::Var(acc)),
            None => Value::Unit,
        }
    }

    /// The range `0..n` of a chain over `count` items (tokens, and the variables they read)
    /// zipped with the arrays `zipped` (`n` the shortest), as the loop's range, its walk, and
    /// `n`.
    fn counted(
        &self,
        (mut len, mut reads): (TokenStream, Vec<VarId>),
        zipped: &[&Zipped],
    ) -> (Opaque, Walk, Option<TokenStream>) {
        for z in zipped {
            let (b, r) = match z {
                Zipped::Elems(view, _) => self.view_len_tokens(view),
                Zipped::Chunks(chunked) => self.chunk_count(chunked),
            };
            len = quote!(#len.min(#b));
            reads.extend(r);
        }
        reads.sort_unstable();
        reads.dedup();
        let range = Opaque::generated(quote!(0..#len), reads);
        (range, Walk::Up(quote!(0..#len)), Some(len))
    }

    /// Applies the adaptors in order to one item, then the consumer. A `filter` wraps what
    /// follows it in `if keep { .. }`.
    fn stages(
        &mut self,
        step: &Step<'_, '_>,
        stages: &[Stage<'_>],
        zipped: &[Zipped],
        item: Value,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let Some((stage, rest)) = stages.split_first() else {
            return self.consume(step, item, out);
        };
        match stage {
            Stage::Zip(_, counter) => {
                let Some((other, later)) = zipped.split_first() else {
                    return Value::Unit;
                };
                let Some(counter) = *counter else {
                    let right = self.zipped_item(other, step.index, step.span, out);
                    return self.stages(step, rest, later, Value::Tuple(vec![item, right]), out);
                };
                // After a `filter`: the next item of `other`, while it has one (`zip` ends
                // when either side does; the items after that reach nothing).
                let position = self.count(counter, step.span, out);
                let (len, mut reads) = match other {
                    Zipped::Elems(view, _) => self.view_len_tokens(view),
                    Zipped::Chunks(chunked) => self.chunk_count(chunked),
                };
                let k = &self.vars[position].name;
                reads.push(position);
                let cond = Opaque::generated(quote!(#k < #len), reads);
                let cond = self.let_opaque(out, "c", Ty::Bool, cond, step.span);
                let mut kept = Vec::new();
                let right = self.zipped_item(other, position, step.span, &mut kept);
                let result = self.stages(
                    step,
                    rest,
                    later,
                    Value::Tuple(vec![item, right]),
                    &mut kept,
                );
                self.push_if(
                    Operand::Var(cond),
                    (kept, Vec::new()),
                    Vec::new(),
                    step.span,
                    out,
                );
                result
            }
            Stage::Enumerate(counter) => {
                let position = match *counter {
                    Some(counter) => self.count(counter, step.span, out),
                    None => step.index,
                };
                let item = Value::Tuple(vec![Value::Op(Operand::Var(position)), item]);
                self.stages(step, rest, zipped, item, out)
            }
            Stage::Copied => self.stages(step, rest, zipped, item, out),
            Stage::Flatten(name) => self.flatten(step, rest, zipped, item, name, out),
            Stage::MapMade(f) => {
                let item = self.call_value(f, vec![item], out);
                self.stages(step, rest, zipped, item, out)
            }
            Stage::Map(f) => {
                let item = self.call_value(f, vec![item], out);
                self.stages(step, rest, zipped, item, out)
            }
            Stage::Filter(p) => {
                // The closure of `filter` takes a reference to the item: `|&(i, x)|` binds the
                // item itself; otherwise its integers (an enumeration's index) are bound as
                // references, as Rust binds them through it (`|(i, _)| *i > 0`).
                // Its floats taken by value (`z.into_iter().filter(|v| *v > 0.0)`) are read
                // through that reference there, as those of `iter()` are everywhere.
                let (closure, arg, shallow) = match item_pattern(p) {
                    Some(closure) => (closure, item.clone(), Vec::new()),
                    None => {
                        let mut shallow = Vec::new();
                        self.floats_by_value(&item, &mut shallow);
                        let arg = self.by_reference(item.clone(), step.span, out);
                        ((*p).clone(), arg, shallow)
                    }
                };
                for &v in &shallow {
                    self.vars[v].deref = true;
                }
                let keep = self.call_value(&closure, vec![arg], out);
                for &v in &shallow {
                    self.vars[v].deref = false;
                }
                let keep = match keep {
                    // `|p| p.alive`: a `bool` field, read as written.
                    Value::Place(place) => {
                        let (tokens, reads) = self.place_tokens(&place, step.span);
                        let opaque = Opaque::generated(tokens, reads);
                        Value::Op(Operand::Var(self.let_opaque(
                            out,
                            "c",
                            Ty::Bool,
                            opaque,
                            step.span,
                        )))
                    }
                    keep => keep,
                };
                let Some(cond) =
                    self.number(keep, *p, "the closure of `filter` must return a `bool`")
                else {
                    return Value::Error;
                };
                let mut kept = Vec::new();
                let result = self.stages(step, rest, zipped, item, &mut kept);
                self.push_if(cond, (kept, Vec::new()), Vec::new(), step.span, out);
                result
            }
        }
    }

    /// The float variables of `item` that are not read through a reference (`deref`).
    pub(super) fn floats_by_value(&self, item: &Value, found: &mut Vec<VarId>) {
        match item {
            Value::Op(Operand::Var(v))
                if matches!(self.vars[*v].ty, Ty::Float(_)) && !self.vars[*v].deref =>
            {
                found.push(*v)
            }
            Value::Tuple(parts) => {
                for part in parts {
                    self.floats_by_value(part, found);
                }
            }
            _ => {}
        }
    }

    /// `item` with each integer in it (an enumeration's index) replaced by a reference to it
    /// (`let __r = &i;`), as a closure taking `&item` binds it.
    pub(super) fn by_reference(&mut self, item: Value, span: Span, out: &mut Vec<Stmt>) -> Value {
        match item {
            Value::Op(Operand::Var(v)) if matches!(self.vars[v].ty, Ty::Usize | Ty::I32) => {
                let name = self.vars[v].name.clone();
                let opaque = Opaque::generated(quote!(&#name), vec![v]);
                Value::Op(Operand::Var(self.let_opaque(
                    out,
                    "r",
                    Ty::Other,
                    opaque,
                    span,
                )))
            }
            Value::Tuple(parts) => Value::Tuple(
                parts
                    .into_iter()
                    .map(|part| self.by_reference(part, span, out))
                    .collect(),
            ),
            other => other,
        }
    }

    /// The item of the zipped array or chunks `other` at `position`.
    fn zipped_item(
        &mut self,
        other: &Zipped,
        position: VarId,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        match other {
            Zipped::Elems(view, by_ref) => {
                self.element(view, Operand::Var(position), *by_ref, span, out)
            }
            Zipped::Chunks(chunked) => Value::View(self.chunk(chunked, position, span, out)),
        }
    }

    /// `let mut __k = 0usize;`: the counter of a `zip` or `enumerate` after a `filter` or a
    /// `flatten`, declared before the chain's loop.
    fn item_counter(&mut self, span: Span, out: &mut Vec<Stmt>) -> VarId {
        let var = self.fresh("k", Ty::Usize, true, span);
        out.push(Stmt {
            kind: StmtKind::Let {
                var,
                rhs: Rhs::Copy(Operand::Lit(quote!(0usize), crate::ir::LitKind::Int)),
                ty: None,
            },
            span,
        });
        var
    }

    /// `let __p = __k; __k += 1;`: the position of the item that reached the counted stage.
    fn count(&mut self, counter: VarId, span: Span, out: &mut Vec<Stmt>) -> VarId {
        let k = self.vars[counter].name.clone();
        let position = self.let_opaque(
            out,
            "p",
            Ty::Usize,
            Opaque::generated(quote!(#k), vec![counter]),
            span,
        );
        out.push(Stmt {
            kind: StmtKind::Opaque {
                tokens: quote!(#k += 1;),
                writes: vec![counter],
                flows: Vec::new(),
                if_active: (span, String::new()),
            },
            span,
        });
        position
    }

    /// `.flatten()` of one item, an array or slice in an aggregate (`m: &[[f64; 3]]`,
    /// `Vec<Vec<f64>>`) or a view (a chunk): an inner loop over its elements, each going
    /// through the stages `rest` and the consumer. (No zip, enumerate or collect follows: see
    /// `flattened_too_late`.)
    fn flatten(
        &mut self,
        step: &Step<'_, '_>,
        rest: &[Stage<'_>],
        zipped: &[Zipped],
        item: Value,
        name: &syn::Ident,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let (view, by_ref) = match item {
            Value::View(view) => (view, true),
            // An array made by a closure (`.map(|r| [r[0], 2.0 * r[1]])`).
            Value::Op(Operand::Var(array)) if self.vars[array].ty.is_array() => {
                (View::whole(array, false), false)
            }
            Value::Place(place)
                if !place
                    .steps
                    .iter()
                    .any(|s| matches!(s, crate::ir::Step::Variant(_))) =>
            {
                (View::of_place(place), true)
            }
            Value::Error => return Value::Error,
            _ => {
                self.cx.error(
                    name,
                    "#[reverse] flattens items that are arrays or slices (`m.iter().flatten()` \
                     for `m: &[[f64; N]]` or `Vec<Vec<f64>>`, `x.chunks(k).flatten()`)",
                );
                return Value::Error;
            }
        };
        let span = step.span;
        let (len, reads) = self.view_len_tokens(&view);
        let range = Opaque::generated(quote!(0..#len), reads);
        let first_var = self.vars.len();
        self.loops
            .push(LoopCtx::new(None, false, self.in_value_branch, first_var));
        self.push_scope();
        let mut body = Vec::new();
        let index = self.fresh("i", Ty::Usize, false, span);
        let item = self.element(&view, Operand::Var(index), by_ref, span, &mut body);
        let result = self.stages(step, rest, zipped, item, &mut body);
        self.pop_scope();
        self.loops.pop();
        let kind = LoopKind::Range(RangeLoop {
            var: Some(index),
            range,
            walk: Walk::Up(quote!(0..#len)),
        });
        self.push_loop(kind, body, Vec::new(), None, span, out);
        result
    }

    /// `let x = xs[i];` at the start of the loop body (`i` counts from the start of a view).
    fn element(
        &mut self,
        view: &View,
        index: Operand,
        by_ref: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let array = view.base;
        let elem = match &self.vars[array].ty {
            Ty::Array(info) => info.elem,
            _ => None,
        };
        let aggregate = self.is_aggregate(array);
        let position = self.view_pos(view, index, false, span, out);
        if aggregate {
            // A part of an aggregate (a struct, or a float of `p.pos.iter()`): read where it
            // is used.
            return Value::Place(view.element_place(position, false));
        }
        let var = self.fresh("x", Ty::Float(elem), false, span);
        self.vars[var].deref = by_ref;
        out.push(Stmt {
            kind: StmtKind::Let {
                var,
                rhs: Rhs::Index(array, view.path(position)),
                ty: None,
            },
            span,
        });
        Value::Op(Operand::Var(var))
    }

    /// The array or view zipped in by `.zip(other)` (and whether it yields references), or
    /// its chunks or windows.
    fn zip_source(&mut self, other: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Result<Zipped, ()>> {
        match strip(other) {
            syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => Some(
                self.elements_of(&m.receiver, out)?
                    .map(|(a, _)| Zipped::Elems(a, true)),
            ),
            syn::Expr::MethodCall(m)
                if m.method == "chunks" || m.method == "chunks_exact" || m.method == "windows" =>
            {
                Some(self.chunked(m, out)?.map(Zipped::Chunks))
            }
            // `.zip(ys.iter().skip(1))`, `.zip(ys.iter().step_by(2))`: a narrower view.
            syn::Expr::MethodCall(m)
                if is_narrowing(&m.method)
                    && m.args.len() == 1
                    && is_narrowed_iter_call(&m.receiver) =>
            {
                Some(self.zip_source(&m.receiver, out)?.map(|z| match z {
                    Zipped::Elems(view, by_ref) => {
                        Zipped::Elems(self.narrow(&view, m, out), by_ref)
                    }
                    chunks => chunks,
                }))
            }
            syn::Expr::Reference(_) => Some(
                self.elements_of(other, out)?
                    .map(|(a, _)| Zipped::Elems(a, true)),
            ),
            syn::Expr::MethodCall(m)
                if (m.method == "copied" || m.method == "cloned") && m.args.is_empty() =>
            {
                Some(self.zip_source(&m.receiver, out)?.map(|z| match z {
                    Zipped::Elems(a, _) => Zipped::Elems(a, false),
                    chunks => chunks,
                }))
            }
            plain => Some(self.elements_of(plain, out)?.map(|(a, whole)| {
                let by_ref = !whole || self.is_reference(a.base);
                Zipped::Elems(a, by_ref)
            })),
        }
    }

    /// Calls the closure `f` (a closure expression or a variable bound to one) on `args`.
    pub(super) fn call_value(
        &mut self,
        f: &syn::Expr,
        args: Vec<Value>,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let closure = match strip(f) {
            syn::Expr::Closure(c) => match self.make_closure(c, out) {
                Value::Closure(c) => c,
                _ => return Value::Unit,
            },
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Binding::Closure(c)) => c.clone(),
                    _ => match intrinsic_closure(p, args.len())
                        .filter(|_| self.sig.float_named(&p.path.segments[0].ident).is_some())
                    {
                        // `f64::exp`, `f64::max`: the closure that calls it.
                        Some(c) => match self.make_closure(&c, out) {
                            Value::Closure(c) => c,
                            _ => return Value::Unit,
                        },
                        // `.map(sigmoid)`, `.map(Self::cost)`: the closure that calls the
                        // function (annotated, or the call's error).
                        None if p
                            .path
                            .get_ident()
                            .is_none_or(|i| self.lookup(&i.to_string()).is_none()) =>
                        {
                            match self.make_closure(&function_closure(p, args.len()), out) {
                                Value::Closure(c) => c,
                                _ => return Value::Unit,
                            }
                        }
                        None => {
                            self.cx.error(f, CLOSURE_EXPECTED);
                            return Value::Error;
                        }
                    },
                }
            }
            other => {
                self.cx.error(other, CLOSURE_EXPECTED);
                return Value::Error;
            }
        };
        self.apply_closure(&closure, args, f.span(), out)
    }

    /// The consumer's work for one item.
    fn consume(&mut self, step: &Step<'_, '_>, item: Value, out: &mut Vec<Stmt>) -> Value {
        let (span, index) = (step.span, step.index);
        // A float inside an aggregate (`p.pos.iter().sum()`): its value.
        let item = match item {
            Value::Place(place)
                if matches!(
                    step.consumer,
                    Consumer::Sum | Consumer::Product | Consumer::Collect
                ) =>
            {
                self.load(place, span, out)
            }
            item => item,
        };
        match (step.consumer, step.acc) {
            (Consumer::Sum, Some(acc)) => match item {
                Value::Op(op) => {
                    out.push(Stmt {
                        kind: StmtKind::Assign {
                            var: acc,
                            op: AssignOp::Add,
                            value: op,
                        },
                        span,
                    });
                    Value::Op(Operand::Var(acc))
                }
                _ => self.not_a_number(span),
            },
            (Consumer::Product, Some(acc)) => match item {
                Value::Op(op) => {
                    let product = self.let_temp(
                        out,
                        Rhs::Binary(BinOp::Mul, Operand::Var(acc), op),
                        Ty::Float(None),
                        span,
                    );
                    out.push(Stmt {
                        kind: StmtKind::Assign {
                            var: acc,
                            op: AssignOp::Set,
                            value: product,
                        },
                        span,
                    });
                    Value::Op(Operand::Var(acc))
                }
                _ => self.not_a_number(span),
            },
            (Consumer::Fold(_, f), None) if step.tuple_acc.is_some() => {
                let accs = step.tuple_acc.clone().unwrap_or_default();
                let so_far = accs.iter().map(|v| Value::Op(Operand::Var(*v))).collect();
                let items = match self.call_value(f, vec![Value::Tuple(so_far), item], out) {
                    Value::Tuple(items) if items.len() == accs.len() => items,
                    Value::Error => return Value::Error,
                    _ => {
                        self.cx.error(
                            *f,
                            "#[reverse] folds a tuple here: the closure must return a tuple \
                             of numbers of the same length",
                        );
                        return Value::Error;
                    }
                };
                // Every element computed (and copied: `|(a, b), x| (b, a)`) before any
                // accumulator is written.
                let mut values = Vec::new();
                for (item, acc) in items.into_iter().zip(&accs) {
                    let item = match item {
                        Value::Place(place) => self.load(place, span, out),
                        item => item,
                    };
                    let Some(op) = self.number(item, *f, "the closure must return numbers") else {
                        return Value::Error;
                    };
                    let ty = self.vars[*acc].ty.clone();
                    values.push(self.let_temp(out, Rhs::Copy(op), ty, span));
                }
                for (value, acc) in values.into_iter().zip(accs) {
                    out.push(Stmt {
                        kind: StmtKind::Assign {
                            var: acc,
                            op: AssignOp::Set,
                            value,
                        },
                        span,
                    });
                }
                Value::Unit
            }
            (Consumer::Fold(_, f), Some(acc)) => {
                let value = match self.call_value(f, vec![Value::Op(Operand::Var(acc)), item], out)
                {
                    Value::Place(place) => self.load(place, span, out),
                    value => value,
                };
                match value {
                    Value::Op(op) => {
                        out.push(Stmt {
                            kind: StmtKind::Assign {
                                var: acc,
                                op: AssignOp::Set,
                                value: op,
                            },
                            span,
                        });
                        Value::Op(Operand::Var(acc))
                    }
                    _ => self.not_a_number(span),
                }
            }
            (Consumer::Collect, Some(acc)) => match item {
                Value::Op(op) => {
                    // Over an array the index counts from 0; over a range `0..n` (the only
                    // range `collect` accepts) the item is its own index.
                    let position = Operand::Var(index);
                    out.push(Stmt {
                        kind: StmtKind::IndexAssign {
                            array: acc,
                            index: Path::index(position),
                            op: AssignOp::Set,
                            value: op,
                        },
                        span,
                    });
                    Value::Op(Operand::Var(acc))
                }
                _ => self.not_a_number(span),
            },
            (Consumer::ForEach(f), _) => {
                self.call_value(f, vec![item], out);
                Value::Unit
            }
            (Consumer::Reduce(reduction, _), Some(acc)) => {
                let item = match item {
                    Value::Place(place) => self.load(place, span, out),
                    item => item,
                };
                let Value::Op(item) = item else {
                    return self.not_a_number(span);
                };
                let Some(count) = step.first else {
                    return Value::Unit;
                };
                let set = |value: Operand| Stmt {
                    kind: StmtKind::Assign {
                        var: acc,
                        op: AssignOp::Set,
                        value,
                    },
                    span,
                };
                // `if first { acc = item } else { acc = f(acc, item) }`, with `max_by` and
                // `min_by` an `if` on the comparison in the `else`.
                let position = self.count(count, span, out);
                let p = &self.vars[position].name;
                let first = Opaque::generated(quote!(#p == 0), vec![position]);
                let first = self.let_opaque(out, "c", Ty::Bool, first, span);
                let mut later = Vec::new();
                match reduction {
                    Reduction::Fold(f) => {
                        let value = match self.call_value(
                            f,
                            vec![Value::Op(Operand::Var(acc)), Value::Op(item.clone())],
                            &mut later,
                        ) {
                            Value::Place(place) => self.load(place, span, &mut later),
                            value => value,
                        };
                        let msg = "#[reverse] reduces numbers: the closure must return a number";
                        let Some(value) = self.number(value, *f, msg) else {
                            return Value::Error;
                        };
                        later.push(set(value));
                    }
                    Reduction::Max(cmp) | Reduction::Min(cmp) => {
                        let greater = self.compared(cmp, acc, &item, step.by_ref);
                        let greater = self.let_opaque(&mut later, "c", Ty::Bool, greater, span);
                        let take = vec![set(item.clone())];
                        let branches = match reduction {
                            Reduction::Max(_) => (Vec::new(), take),
                            _ => (take, Vec::new()),
                        };
                        self.push_if(
                            Operand::Var(greater),
                            branches,
                            Vec::new(),
                            span,
                            &mut later,
                        );
                    }
                }
                self.push_if(
                    Operand::Var(first),
                    (vec![set(item)], later),
                    Vec::new(),
                    span,
                    out,
                );
                Value::Op(Operand::Var(acc))
            }
            _ => Value::Unit,
        }
    }

    /// `greater(cmp, &acc, &item)`: `cmp(&acc, &item) == Greater` (the closure of `max_by` or `min_by`, given references to
    /// the items' type: `&&f64` where the items are references), as written: a comparison,
    /// through which no derivative flows.
    fn compared(&self, cmp: &syn::Expr, acc: VarId, item: &Operand, by_ref: bool) -> Opaque {
        let mut opaque = self.opaque(cmp);
        opaque.flows.clear();
        let f = &opaque.expr;
        let a = &self.vars[acc].name;
        let mut reads = opaque.reads.clone();
        reads.push(acc);
        let b = match item {
            Operand::Var(v) => {
                reads.push(*v);
                let name = &self.vars[*v].name;
                quote!(#name)
            }
            Operand::Lit(tokens, _) => tokens.clone(),
        };
        let r = if by_ref { quote!(&&) } else { quote!(&) };
        reads.sort_unstable();
        reads.dedup();
        Opaque::generated(quote!(::revad::__private::greater(#f, #r #a, #r #b)), reads)
    }

    fn not_a_number(&self, span: Span) -> Value {
        self.cx.error_at(
            span,
            "#[reverse] accumulates numbers here; the items are not numbers",
        );
        Value::Error
    }
}

/// What the consumer needs for each item.
struct Step<'c, 'e> {
    consumer: &'c Consumer<'e>,
    acc: Option<VarId>,
    index: VarId,
    span: Span,
    /// A reduction's count of the items that reached it.
    first: Option<VarId>,
    /// The items reach the consumer as references.
    by_ref: bool,
    /// A `fold`'s accumulators, one per element of its tuple.
    tuple_acc: Option<Vec<VarId>>,
}

/// For a closure `|r| r.iter()` (or `.into_iter()`, then maybe `.copied()` or `.cloned()`),
/// the closure `|r| r` whose items `.flatten()` walks instead.
fn closure_of_rows(f: &syn::Expr) -> Option<syn::Expr> {
    let syn::Expr::Closure(c) = strip(f) else {
        return None;
    };
    let mut body = strip(&c.body);
    if let syn::Expr::MethodCall(m) = body {
        if (m.method == "copied" || m.method == "cloned") && m.args.is_empty() {
            body = strip(&m.receiver);
        }
    }
    let syn::Expr::MethodCall(m) = body else {
        return None;
    };
    if !(m.method == "iter" || m.method == "into_iter") || !m.args.is_empty() {
        return None;
    }
    let mut rows = c.clone();
    rows.body = m.receiver.clone();
    Some(syn::Expr::Closure(rows))
}

/// The first `.flatten()` of a chain whose consumer cannot follow it: a `collect` (which
/// sizes its `Vec` by the items of the outer loop). A `zip` or an `enumerate` after it counts
/// the items that reach it (`Stage::Zip`).
fn flattened_too_late<'e>(stages: &[Stage<'e>], consumer: &Consumer<'_>) -> Option<&'e syn::Ident> {
    let at = stages.iter().position(|s| matches!(s, Stage::Flatten(_)))?;
    let Stage::Flatten(name) = stages[at] else {
        return None;
    };
    matches!(consumer, Consumer::Collect).then_some(name)
}

fn is_zero(expr: &syn::Expr) -> bool {
    matches!(strip(expr), syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_digits() == "0")
}

/// The float type named by `.sum::<f64>()` (or `.sum::<T>()`).
fn turbofish_float(
    call: &syn::ExprMethodCall,
    sig: &crate::parse::Signature,
) -> Option<crate::ir::FloatTy> {
    let turbofish = call.turbofish.as_ref()?;
    match turbofish.args.first()? {
        syn::GenericArgument::Type(ty) => sig.float_of(ty),
        _ => None,
    }
}

/// Whether `method` narrows the iterator of an array (`.skip(k)`, `.take(n)`,
/// `.step_by(k)`: see `views::narrow`).
fn is_narrowing(method: &syn::Ident) -> bool {
    method == "skip" || method == "take" || method == "step_by"
}

/// `xs.iter()`, then `.skip(k)` / `.take(n)` / `.step_by(k)` calls.
fn is_narrowed_iter_call(expr: &syn::Expr) -> bool {
    match strip(expr) {
        syn::Expr::MethodCall(m) if is_narrowing(&m.method) && m.args.len() == 1 => {
            is_narrowed_iter_call(&m.receiver)
        }
        other => is_iter_call(other),
    }
}

/// Whether `expr` is `xs.iter()` or `xs.into_iter()`.
fn is_iter_call(expr: &syn::Expr) -> bool {
    matches!(strip(expr), syn::Expr::MethodCall(m) if (m.method == "iter" || m.method == "into_iter") && m.args.is_empty())
}

/// For a path to a float intrinsic taking `arity` floats (`f64::exp`, `f32::max`, `T::sqrt`),
/// the closure that calls it (`|a0, a1| f64::max(a0, a1)`), spanned as the path.
fn intrinsic_closure(p: &syn::ExprPath, arity: usize) -> Option<syn::ExprClosure> {
    let [owner, name] = [p.path.segments.first()?, p.path.segments.last()?];
    let rule = crate::rules::lookup(&name.ident.to_string())?;
    let simple = p.qself.is_none() && p.path.segments.len() == 2 && name.arguments.is_empty();
    if !simple || !owner.arguments.is_empty() || rule.arity != arity || rule.int_exponent {
        return None;
    }
    Some(function_closure(p, arity))
}

/// `|a0, ..| path(a0, ..)` for the function `p` of `arity` arguments, passed by name.
fn function_closure(p: &syn::ExprPath, arity: usize) -> syn::ExprClosure {
    let span = p.span();
    let params: Vec<syn::Ident> = (0..arity)
        .map(|k| quote::format_ident!("__ad_arg{}", k, span = Span::mixed_site()))
        .collect();
    syn::parse_quote_spanned!(span=> |#(#params),*| #p(#(#params),*))
}

#[derive(Debug, PartialEq, Eq)]
enum Method {
    Rev,
    StepBy,
}

/// A range followed by `.rev()` / `.step_by(k)` calls.
pub(super) struct RangeChain<'e> {
    base: &'e syn::Expr,
    methods: Vec<Method>,
}

impl Lowerer<'_> {
    /// How a loop over the range chain `range` walks it (the base range renamed).
    pub(super) fn range_walk(&self, range: &RangeChain<'_>) -> Walk {
        match range.methods.as_slice() {
            [] => Walk::Up(self.opaque(range.base).expr),
            [Method::Rev] => Walk::Down(self.opaque(range.base).expr),
            _ => Walk::Other,
        }
    }
}

/// `expr` as a range followed by `.rev()` / `.step_by(k)` calls, if it is one.
pub(super) fn range_chain(expr: &syn::Expr) -> Option<RangeChain<'_>> {
    match strip(expr) {
        syn::Expr::Range(r) if r.start.is_some() && r.end.is_some() => Some(RangeChain {
            base: strip(expr),
            methods: Vec::new(),
        }),
        syn::Expr::MethodCall(m) => {
            let method = match (m.method.to_string().as_str(), m.args.len()) {
                ("rev", 0) => Method::Rev,
                ("step_by", 1) => Method::StepBy,
                _ => return None,
            };
            let mut chain = range_chain(&m.receiver)?;
            chain.methods.push(method);
            Some(chain)
        }
        _ => None,
    }
}

/// `SEQ.map(|pat| body).sum()` (or `.product()`) as `{ let mut acc = -0.0; for pat in SEQ {
/// acc += body; } acc }` (`*=` from `1.0`), for a sequence that an iterator chain does not
/// take but a `for` loop does (a zip with a constant table first). `None` for other chains.
fn sum_as_loop(call: &syn::ExprMethodCall, float: crate::ir::FloatTy) -> Option<syn::Expr> {
    // `A.iter().rev().fold(0.0, |acc, a| acc * t + a)`: `let mut acc = 0.0; for a in
    // A.iter().rev() { acc = acc * t + a; } acc`.
    if let (true, [init, f]) = (
        call.method == "fold",
        &call.args.iter().collect::<Vec<_>>()[..],
    ) {
        let syn::Expr::Closure(closure) = strip(f) else {
            return None;
        };
        let [acc, item] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let syn::Pat::Ident(acc) = acc else {
            return None;
        };
        let (acc, body, seq) = (&acc.ident, &closure.body, &call.receiver);
        return Some(syn::parse_quote_spanned! {call.span()=>
            {
                let mut #acc = #init;
                for #item in #seq {
                    #acc = #body;
                }
                #acc
            }
        });
    }
    let (op, start) = accumulation(call, float)?;
    let syn::Expr::MethodCall(receiver) = strip(&call.receiver) else {
        return None;
    };
    let acc = syn::Ident::new("__ad_accumulated", call.method.span());
    // (Without a `map`, the items themselves: `x.iter().rev().take(2).sum()`.)
    let item: syn::Pat = syn::parse_quote_spanned!(call.method.span()=> __ad_item);
    let item_expr: syn::Expr = syn::parse_quote_spanned!(call.method.span()=> __ad_item);
    let (pat, seq, body) = if receiver.method == "map" {
        let syn::Expr::Closure(closure) = strip(receiver.args.first()?) else {
            return None;
        };
        let [pat] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let pat = match pat {
            syn::Pat::Type(typed) => &*typed.pat,
            pat => pat,
        };
        (pat, &*receiver.receiver, &*closure.body)
    } else {
        (&item, &*call.receiver, &item_expr)
    };
    Some(syn::parse_quote_spanned! {call.span()=>
        {
            let mut #acc = #start;
            for #pat in #seq {
                #acc #op #body;
            }
            #acc
        }
    })
}

/// The assignment and the start of `.sum()` (`+=` from `-0.0`) or `.product()` (`*=` from
/// `1.0`), the consumer `call`; `None` for another.
fn accumulation(
    call: &syn::ExprMethodCall,
    float: crate::ir::FloatTy,
) -> Option<(TokenStream, TokenStream)> {
    // (From `Sum`'s `-0.0` and `Product`'s `1.0`, as the chain is: the sum of no items is
    // `-0.0`, bit for bit.)
    let t = float.qualifier();
    if !call.args.is_empty() {
        return None;
    }
    Some(
        match (call.method.to_string().as_str(), float.is_generic()) {
            ("sum", false) => (quote::quote!(+=), quote::quote!(-0.0)),
            ("sum", true) => (quote::quote!(+=), quote::quote!(-#t::ZERO)),
            ("product", false) => (quote::quote!(*=), quote::quote!(1.0)),
            ("product", true) => (quote::quote!(*=), quote::quote!(#t::ONE)),
            _ => return None,
        },
    )
}

/// Adaptors that treat each item alone, which [`unchained`] applies to both parts of a chain.
const ITEM_ADAPTORS: &[(&str, usize)] = &[
    ("map", 1),
    ("filter", 1),
    ("filter_map", 1),
    ("flat_map", 1),
    ("copied", 0),
    ("cloned", 0),
    ("flatten", 0),
];

/// `a.chain(b).ADAPTORS.CONSUMER` with [`ITEM_ADAPTORS`] only after the `chain`, as the
/// consumer run over `a.ADAPTORS` then over `b.ADAPTORS` (in the order `Chain`'s `fold`
/// takes them, so a sum adds in the same order): `{ let mut acc = -0.0; a.ADAPTORS
/// .for_each(|item| acc += item); b.ADAPTORS.for_each(..); acc }` for `.sum()` and
/// `.product()`, `acc = f(acc, item)` from `init` for `.fold(init, f)`, both parts'
/// `.for_each(f)` for `.for_each(f)`. `None` for another call (`a` a chain itself splits when
/// its part is lowered).
fn unchained(call: &syn::ExprMethodCall, float: crate::ir::FloatTy) -> Option<syn::Expr> {
    let mut adaptors = Vec::new();
    let mut receiver = &*call.receiver;
    let (first, second) = loop {
        let syn::Expr::MethodCall(m) = strip(receiver) else {
            return None;
        };
        if m.method == "chain" && m.args.len() == 1 {
            break (&*m.receiver, &m.args[0]);
        }
        if !ITEM_ADAPTORS
            .iter()
            .any(|(name, args)| m.method == name && m.args.len() == *args)
        {
            return None;
        }
        adaptors.push(m);
        receiver = &m.receiver;
    };
    let span = call.method.span();
    // (`b` an iterator as written, or what it iterates: `&ys`, `ys`, a slice.)
    let second: syn::Expr = match strip(second) {
        syn::Expr::MethodCall(_) => second.clone(),
        _ => syn::parse_quote_spanned!(span=> (#second).into_iter()),
    };
    let adapted = |part: syn::Expr| {
        adaptors.iter().rev().fold(part, |part, m| {
            let mut m = (*m).clone();
            *m.receiver = part;
            syn::Expr::MethodCall(m)
        })
    };
    let (first, second) = (adapted(first.clone()), adapted(second));
    let acc = syn::Ident::new("__ad_accumulated", span);
    let item = syn::Ident::new("__ad_item", span);
    if let Some((op, start)) = accumulation(call, float) {
        return Some(syn::parse_quote_spanned! {call.span()=>
            {
                let mut #acc = #start;
                #first.for_each(|#item| #acc #op #item);
                #second.for_each(|#item| #acc #op #item);
                #acc
            }
        });
    }
    match (call.method.to_string().as_str(), call.args.len()) {
        // A tuple accumulator: one variable per element (`let (s, q) = ..fold((0.0, 0.0),
        // |(s, q), x| (s + x, q + x * x))`).
        ("fold", 2) if matches!(strip(&call.args[0]), syn::Expr::Tuple(t) if !t.elems.is_empty()) =>
        {
            let (syn::Expr::Tuple(init), f) = (strip(&call.args[0]), &call.args[1]) else {
                return None;
            };
            let accs: Vec<syn::Ident> = (0..init.elems.len())
                .map(|k| quote::format_ident!("__ad_accumulated{}", k, span = span))
                .collect();
            let next: Vec<syn::Ident> = (0..init.elems.len())
                .map(|k| quote::format_ident!("__ad_next{}", k, span = span))
                .collect();
            let inits = init.elems.iter();
            let step = quote::quote_spanned! {span=>
                |#item| {
                    let (#(#next,)*) = (#f)((#(#accs,)*), #item);
                    #(#accs = #next;)*
                }
            };
            Some(syn::parse_quote_spanned! {call.span()=>
                {
                    #(let mut #accs = #inits;)*
                    #first.for_each(#step);
                    #second.for_each(#step);
                    (#(#accs,)*)
                }
            })
        }
        ("fold", 2) => {
            let (init, f) = (&call.args[0], &call.args[1]);
            Some(syn::parse_quote_spanned! {call.span()=>
                {
                    let mut #acc = #init;
                    #first.for_each(|#item| #acc = (#f)(#acc, #item));
                    #second.for_each(|#item| #acc = (#f)(#acc, #item));
                    #acc
                }
            })
        }
        ("for_each", 1) => {
            let f = &call.args[0];
            Some(syn::parse_quote_spanned! {call.span()=>
                {
                    #first.for_each(#f);
                    #second.for_each(#f);
                }
            })
        }
        _ => None,
    }
}

/// `block` with every `std::iter::zip(a, b)` (or `core::iter::zip`, `iter::zip`) written as
/// the method it stands for, `a.into_iter().zip(b)` (`a` as written when it is already
/// `xs.iter()`, `xs.iter_mut()` or `xs.into_iter()`), which `for` loops and chains take;
/// `None` when there is none.
pub(super) fn free_zips(block: &syn::Block) -> Option<syn::Block> {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            self.0 |= is_free_zip(call);
            syn::visit::visit_expr_call(self, call);
        }
    }
    struct Rewriter;
    impl syn::visit_mut::VisitMut for Rewriter {
        fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
            syn::visit_mut::visit_expr_mut(self, expr);
            let syn::Expr::Call(call) = expr else {
                return;
            };
            if !is_free_zip(call) {
                return;
            }
            let (a, b) = (&call.args[0], &call.args[1]);
            let span = call.func.span();
            let iter = match strip(a) {
                syn::Expr::MethodCall(m)
                    if m.args.is_empty()
                        && ["iter", "iter_mut", "into_iter"]
                            .iter()
                            .any(|name| m.method == name) =>
                {
                    a.clone()
                }
                _ => syn::parse_quote_spanned!(span=> (#a).into_iter()),
            };
            *expr = syn::parse_quote_spanned!(span=> #iter.zip(#b));
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_block(&mut finder, block);
    if !finder.0 {
        return None;
    }
    let mut block = block.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Rewriter, &mut block);
    Some(block)
}

/// Whether `call` is `std::iter::zip(a, b)`, `core::iter::zip(a, b)` or `iter::zip(a, b)`.
fn is_free_zip(call: &syn::ExprCall) -> bool {
    let syn::Expr::Path(p) = strip(&call.func) else {
        return false;
    };
    let names: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let path: Vec<&str> = names.iter().map(String::as_str).collect();
    p.qself.is_none()
        && call.args.len() == 2
        && matches!(path[..], ["std" | "core", "iter", "zip"] | ["iter", "zip"])
}

/// `|(i, x)| body` for the closure `|&(i, x)| body` of one parameter that destructures a
/// reference to a tuple: it binds the parts of the item itself.
fn item_pattern(f: &syn::Expr) -> Option<syn::Expr> {
    let syn::Expr::Closure(c) = strip(f) else {
        return None;
    };
    let [syn::Pat::Reference(r)] = c.inputs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if r.mutability.is_some() || !matches!(&*r.pat, syn::Pat::Tuple(_)) {
        return None;
    }
    let mut c = c.clone();
    c.inputs = std::iter::once((*r.pat).clone()).collect();
    Some(syn::Expr::Closure(c))
}
