//! Views of float arrays: sub-slices, `split_at`, the chunks and windows of a `for` loop or
//! an iterator chain, reversed and zipped iteration, and `copy_from_slice`.
//!
//! A view is a binding of the lowering, not a value of the IR: it denotes a base array, a
//! start offset and a length, each fixed when the view is made. An element of a view is an
//! element of its base, so the IR only ever sees `Index` and `IndexAssign` on the base with
//! an index computed by integer arithmetic; nothing is copied and nothing is allocated.
//!
//! ```text
//! // Before                             // After
//! let tail = &x[1..];                   let __s0 = 1;
//!                                       let __n1 = view::len(x.len(), __s0, x.len());
//! let y = tail[i] * 2.0;                let __j2 = view::index(__s0, __n1, i);
//!                                       let __t3 = x[__j2];
//!                                       let y = __t3 * 2.0;
//! ```
//!
//! (`view::` is `::revad::__private::view::`, the runtime's index arithmetic, which panics where
//! the slice operations do.) A view passed to an annotated function is the one place a copy
//! is made: the callee takes a slice, and its adjoint flows back through the copy's.
//!
//! The base may also be an array inside an aggregate (`self.w[i]`, `p.vel`: the view's
//! `prefix` is the path to it, see `places`), or an aggregate that is itself a sequence
//! (`ps: &[Particle]`, `m: &[Vec<f64>]`, `&self.layers`). Every operation above works on such
//! a view unchanged. The items of a loop over a sequence of aggregates, and the items a loop
//! takes by `&mut` (`iter_mut()`, `&mut xs`), are *places*: the name denotes the element
//! itself, read where it is used and written through (`p.vel[0] += ..`, `*v = ..`), so
//! nothing is copied.
//!
//! ```text
//! // Before                             // After
//! for (row, bi) in                      let __n0 = self.w.len().min(self.b.len());
//!     self.w.iter().zip(&self.b) {      for __i1 in 0..__n0 {   (row is self.w[__i1],
//!                                                                bi is self.b[__i1])
//!     s += row[0] * bi;                     let __t2 = self.w[__i1][0];
//!                                           let __t3 = self.b[__i1];
//!                                           ..
//! }                                     }
//! ```

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::Ident;

use super::places::Place;
use super::{strip, Binding, Lowerer, Value};
use crate::ir::{
    ArrayInfo, AssignOp, LitKind, LoopKind, Opaque, Operand, Path, RangeLoop, Rhs, Shape, Step,
    Stmt, StmtKind, Ty, VarId, Walk,
};

/// Elements `start .. start + len` of the float array `base`, or of the array at `prefix` in
/// the aggregate `base` (`self.w[i]`, `p.pos`: see `places`).
#[derive(Clone, Debug)]
pub(super) struct View {
    pub base: VarId,
    /// The path from the aggregate `base` to the array: element `j` is `base<prefix>[j]`,
    /// and the length is `base<prefix>.len()`. Empty for a float array variable, and for an
    /// aggregate that is itself a sequence (`ps: &[Particle]`, `m: &[Vec<f64>]`).
    pub prefix: Vec<Step>,
    /// `None`: from the first element.
    pub start: Option<Operand>,
    /// `None`: to the end of `base` (`base.len()` elements). With a `stride`, the number of
    /// items.
    pub len: Option<Operand>,
    /// `None`: consecutive elements. `Some(k)`: the items of an iterator stepped by
    /// `.step_by(..)`, item `i` being element `start + i * k` (see `narrow`). Only the
    /// sequences of `for` loops and iterator chains have one; a view bound to a name never
    /// does.
    pub stride: Option<Operand>,
    /// Made by `&mut x[..]` or `split_at_mut`: elements may be assigned through it.
    pub mutable: bool,
}

impl View {
    /// The whole of `base`.
    pub(super) fn whole(base: VarId, mutable: bool) -> View {
        View {
            base,
            prefix: Vec::new(),
            start: None,
            len: None,
            stride: None,
            mutable,
        }
    }

    /// The whole array (or sequence of aggregates) at `place`.
    pub(super) fn of_place(place: Place) -> View {
        View {
            base: place.root,
            prefix: place.steps,
            start: None,
            len: None,
            stride: None,
            mutable: place.mutable,
        }
    }

    /// A float array variable, whole.
    fn is_whole(&self) -> bool {
        self.prefix.is_empty() && self.spans_base()
    }

    /// All of the array at `prefix`, from its first element.
    fn spans_base(&self) -> bool {
        self.start.is_none() && self.len.is_none() && self.stride.is_none()
    }

    /// The path from `base` to element `pos` of the array (`pos` counts from the array's
    /// first element, not the view's: see `view_pos`).
    pub(super) fn path(&self, pos: Operand) -> Path {
        let mut steps = self.prefix.clone();
        steps.push(Step::Index(pos));
        Path(steps)
    }

    /// Element `pos` of the array as a place (an item of a sequence of aggregates, or a
    /// float reached through `&mut`): `base<prefix>[pos]`.
    pub(super) fn element_place(&self, pos: Operand, mutable: bool) -> Place {
        Place {
            root: self.base,
            steps: self.path(pos).0,
            mutable,
            copied: false,
        }
    }
}

/// The one message for a view used where the macro cannot follow it.
pub(super) const VIEW_USE: &str = "#[reverse] follows a slice of a float array (`&x[a..b]`, \
     `split_at`, a chunk or window) through indexing (`v[i]`, `v[i] = ..` through `&mut`), \
     `.len()`, `.is_empty()`, `for` loops and iterator chains over it, slicing it again, \
     `copy_from_slice`, and passing it to an annotated function; use one of these here";

/// Methods of slices that this module lowers on an array inside an aggregate too
/// (`self.w[i].copy_from_slice(x)`), rather than taking them for methods of the user's type.
pub(super) const SLICE_METHODS: &[&str] = &[
    "split_at",
    "split_at_mut",
    "copy_from_slice",
    "chunks",
    "chunks_exact",
    "windows",
    "fill",
];

/// A sequence a `for` loop walks.
enum Seq {
    /// The elements of a float array view, or of inactive data (a `const` table, an integer
    /// array), possibly reversed.
    Elems {
        src: Src,
        rev: bool,
    },
    Zip(Box<Seq>, Box<Seq>),
    Enumerate(Box<Seq>),
    /// `.rev()` of a zip, an enumeration or chunks: item `i` is item `n - 1 - i` of the
    /// sequence, which is what `DoubleEndedIterator` gives for each of them (a zip of unequal
    /// lengths is trimmed to the shorter first).
    Rev(Box<Seq>),
    /// `x.chunks(k)`, `x.chunks_exact(k)`, `x.windows(k)`: each item is a view.
    Chunks(Chunked),
    /// A range of indices in a zip (`(1..).zip(xs)`, `(0..n).rev().zip(xs)`): item `i` is
    /// `start + i` (reversed: counted down from the end), a `usize`; `end` with whether it is
    /// inclusive, none for `start..`.
    Range {
        start: Operand,
        end: Option<(Operand, bool)>,
        rev: bool,
    },
    /// `.skip(k)` of another sequence than the elements of a view (which narrow the view):
    /// item `i` is item `i + k` of the sequence, `k` evaluated once (`usize`).
    Skip(Box<Seq>, Operand),
    /// `.take(n)`: the first `n` items.
    Take(Box<Seq>, Operand),
    /// `.step_by(k)`: item `i` is item `i * k` (the count panics where `step_by(0)` does).
    StepBy(Box<Seq>, Operand),
}

/// `x.chunks(k)`, `x.chunks_exact(k)` or `x.windows(k)` of a float array or view: a sequence
/// of views, walked by a `for` loop (here) or an iterator chain (`iter`).
pub(super) struct Chunked {
    view: View,
    size: Operand,
    kind: Chunking,
}

/// How a loop takes the elements of its source: `xs.iter()`, `xs.iter_mut()`, or as
/// written (`xs`, `&xs`, `&mut xs`, `xs.into_iter()`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Shared,
    Mut,
    Value,
}

enum Src {
    View(View),
    /// Inactive data, renamed: indexed as written.
    Inactive(Opaque),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chunking {
    Chunks,
    Exact,
    Windows,
}

fn op_reads(op: &Operand) -> Vec<VarId> {
    op.var().into_iter().collect()
}

impl Lowerer<'_> {
    /// `view` narrowed by `m`, a call `.skip(k)`, `.take(n)` or `.step_by(k)` on its
    /// iterator: `k` and `n` clamped to the number of items as the iterators do, and
    /// `.step_by(k)` keeping the first item and every `k`-th after it (a `stride`; it panics
    /// where `step_by(0)` does). The bounds are `usize` lets in `pre`.
    pub(super) fn narrow(
        &mut self,
        view: &View,
        m: &syn::ExprMethodCall,
        pre: &mut Vec<Stmt>,
    ) -> View {
        let span = m.method.span();
        let k = self.lower_int_operand(&m.args[0], Ty::Usize, pre);
        let (len, mut reads) = self.view_len_tokens(view);
        reads.extend(op_reads(&k));
        let kt = self.op_tokens(&k);
        let mut narrowed = view.clone();
        if m.method == "step_by" {
            narrowed.len = Some(self.usize_let(
                "n",
                quote!(::revad::__private::view::step_by(#len, #kt)),
                reads,
                span,
                pre,
            ));
            // Item `i` is item `i * k` of `view`.
            let (stride, mut reads) = match &view.stride {
                Some(s) => (self.op_tokens(s), op_reads(s)),
                None => (quote!(1), Vec::new()),
            };
            reads.extend(op_reads(&k));
            let stride = match view.stride {
                Some(_) => quote!(#stride * #kt),
                None => kt,
            };
            narrowed.stride = Some(self.usize_let("k", stride, reads, span, pre));
            return narrowed;
        }
        let k = self.usize_let(
            "k",
            quote!(::core::cmp::min(#kt, #len)),
            reads.clone(),
            span,
            pre,
        );
        let kt = self.op_tokens(&k);
        if m.method == "skip" {
            let (start, mut start_reads) = self.view_start_tokens(view);
            start_reads.extend(op_reads(&k));
            let skipped = match &view.stride {
                Some(s) => {
                    start_reads.extend(op_reads(s));
                    let s = self.op_tokens(s);
                    quote!(#kt * #s)
                }
                None => kt.clone(),
            };
            narrowed.start =
                Some(self.usize_let("s", quote!(#start + #skipped), start_reads, span, pre));
            reads.extend(op_reads(&k));
            narrowed.len = Some(self.usize_let("n", quote!(#len - #kt), reads, span, pre));
        } else {
            narrowed.len = Some(k);
        }
        narrowed
    }

    /// A cheap inactive `usize` computed from `expr`, which reads `reads`.
    fn usize_let(
        &mut self,
        prefix: &str,
        expr: TokenStream,
        reads: Vec<VarId>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Operand {
        let mut reads = reads;
        reads.sort_unstable();
        reads.dedup();
        Operand::Var(self.let_opaque(out, prefix, Ty::Usize, Opaque::generated(expr, reads), span))
    }

    /// The operand with its value now: a `let mut` integer is copied, so that assigning it
    /// later does not move a view made from it.
    fn frozen(&mut self, op: Operand, span: Span, out: &mut Vec<Stmt>) -> Operand {
        match op {
            Operand::Var(v) if self.vars[v].mutable => {
                let name = self.vars[v].name.clone();
                self.usize_let("s", quote!(#name), vec![v], span, out)
            }
            other => other,
        }
    }

    /// The length of `view`, as tokens and the variables they read.
    pub(super) fn view_len_tokens(&self, view: &View) -> (TokenStream, Vec<VarId>) {
        match &view.len {
            Some(op) => (self.op_tokens(op), op_reads(op)),
            None => {
                let (base, reads) = self.view_array_tokens(view);
                (quote!(#base.len()), reads)
            }
        }
    }

    /// The array a view is part of, as tokens (`x`, `self.w[__i3]`), and the variables they
    /// read.
    pub(super) fn view_array_tokens(&self, view: &View) -> (TokenStream, Vec<VarId>) {
        let base = &self.vars[view.base].name;
        let (prefix, mut reads) = self.prefix_tokens(&view.prefix);
        reads.push(view.base);
        (quote!(#base #prefix), reads)
    }

    /// The steps of a view's prefix as tokens (`.w[__i3]`), and the variables they read.
    pub(super) fn prefix_tokens(&self, prefix: &[Step]) -> (TokenStream, Vec<VarId>) {
        let mut reads = Vec::new();
        let steps = prefix.iter().map(|step| match step {
            Step::Index(i) => {
                reads.extend(i.var());
                let i = self.op_tokens(i);
                quote!([#i])
            }
            Step::Field(m) => quote!(.#m),
            // (A view of a part of an enum variant is rejected where it is made:
            // `view_of_place`.)
            Step::Variant(_) => unreachable!("a view through an enum variant"),
        });
        let tokens = quote!(#(#steps)*);
        (tokens, reads)
    }

    /// The start and the length of `view`, as tokens, and the variables they read.
    pub(super) fn view_parts(&self, view: &View) -> (TokenStream, TokenStream, Vec<VarId>) {
        let (s, mut reads) = self.view_start_tokens(view);
        let (n, r) = self.view_len_tokens(view);
        reads.extend(r);
        (s, n, reads)
    }

    fn view_start_tokens(&self, view: &View) -> (TokenStream, Vec<VarId>) {
        match &view.start {
            Some(op) => (self.op_tokens(op), op_reads(op)),
            None => (quote!(0), Vec::new()),
        }
    }

    /// The view a name or an expression denotes: a view binding, a float array (whole), or
    /// a slicing expression `x[a..b]` (lowered into `out`). `Some(Err(()))` after an error.
    pub(super) fn view_expr(
        &mut self,
        expr: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<Result<View, ()>> {
        match strip(expr) {
            syn::Expr::Reference(r) => {
                let mut view = self.view_expr(&r.expr, out)?;
                if let Ok(v) = &mut view {
                    // (A part of an aggregate is mutable through `&mut` only when its root is.)
                    let place = self.is_aggregate(v.base);
                    v.mutable = r.mutability.is_some() && (v.mutable || !place);
                }
                Some(view)
            }
            syn::Expr::Path(p) => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.to_string())? {
                    Binding::View(v) => Some(Ok(v.clone())),
                    Binding::Var(v) if self.vars[*v].ty.is_array() => {
                        let mutable = self.vars[*v].mutable;
                        Some(Ok(View::whole(*v, mutable)))
                    }
                    // `for v in row.iter()` with `let row = &self.w[i];`.
                    Binding::Place(place) => {
                        let place = place.clone();
                        Some(self.view_of_place(place, expr))
                    }
                    Binding::Poisoned => Some(Err(())),
                    _ => None,
                }
            }
            syn::Expr::Index(index) => match &*index.index {
                syn::Expr::Range(range) => {
                    let base = match self.view_expr(&index.expr, out)? {
                        Ok(base) => base,
                        Err(()) => return Some(Err(())),
                    };
                    Some(Ok(self.slice(base, range, index.span(), out)))
                }
                _ => self.place_view(expr, out),
            },
            _ => self.place_view(expr, out),
        }
    }

    /// The array at a place in an aggregate (`self.w[i]`, `p.pos`, `self.layers`), whole.
    fn place_view(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Result<View, ()>> {
        if !self.is_place_expr(expr) {
            return None;
        }
        let place = self.place_expr(expr, out)?;
        Some(self.view_of_place(place, expr))
    }

    /// The view of the whole array at `place`; an error for a part of an enum variant's
    /// payload, which is reached through a `match` that a view's prefix cannot hold.
    fn view_of_place(&mut self, place: Place, expr: &syn::Expr) -> Result<View, ()> {
        if place.steps.iter().any(|s| matches!(s, Step::Variant(_))) {
            self.cx.error(
                expr,
                "a slice or iterator over a part of an enum variant is not supported by \
                 #[reverse]; index it in a loop over its indices (`for i in 0..N { .. pts[i] \
                 .. }`)",
            );
            return Err(());
        }
        Ok(View::of_place(place))
    }

    /// Whether `expr` denotes a view of a float array (without lowering it).
    pub(super) fn is_view_expr(&self, expr: &syn::Expr) -> bool {
        match strip(expr) {
            syn::Expr::Reference(r) => self.is_view_expr(&r.expr),
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| matches!(self.lookup(&i.to_string()), Some(Binding::View(_)))),
            syn::Expr::Index(index) => {
                matches!(&*index.index, syn::Expr::Range(_))
                    && (self.is_view_expr(&index.expr)
                        || self.array_var(&index.expr).is_some()
                        || self.is_place_expr(&index.expr))
            }
            _ => false,
        }
    }

    /// `base[range]`: a view of a view.
    /// (`span` is the whole indexing expression's: a statement's span is its tokens', and a
    /// literal there must not read as the range's `0`, or clippy takes it for `0`-prefixed.)
    fn slice(
        &mut self,
        base: View,
        range: &syn::ExprRange,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> View {
        let start = match &range.start {
            Some(a) => {
                let op = self.lower_int_operand(a, Ty::Usize, out);
                Some(self.frozen(op, span, out))
            }
            None => None,
        };
        let (n, mut reads) = self.view_len_tokens(&base);
        let end = match &range.end {
            Some(b) => {
                let op = self.lower_int_operand(b, Ty::Usize, out);
                let op = self.frozen(op, span, out);
                reads.extend(op_reads(&op));
                let b = self.op_tokens(&op);
                match range.limits {
                    syn::RangeLimits::HalfOpen(_) => b,
                    syn::RangeLimits::Closed(_) => {
                        quote!(::revad::__private::view::inclusive_end(#b))
                    }
                }
            }
            None => n.clone(),
        };
        let s = match &start {
            Some(op) => {
                reads.extend(op_reads(op));
                self.op_tokens(op)
            }
            None => quote!(0),
        };
        let len = self.usize_let(
            "n",
            quote!(::revad::__private::view::len(#n, #s, #end)),
            reads,
            span,
            out,
        );
        let start = match (base.start, start) {
            (None, start) => start,
            (Some(s0), None) => Some(s0),
            (Some(s0), Some(s1)) => {
                let (a, b) = (self.op_tokens(&s0), self.op_tokens(&s1));
                let mut reads = op_reads(&s0);
                reads.extend(op_reads(&s1));
                Some(self.usize_let("s", quote!(#a + #b), reads, span, out))
            }
        };
        View {
            start,
            len: Some(len),
            ..base
        }
    }

    /// The position in the base of element `i` of `view`; `checked` tests `i < len` (an
    /// index the user wrote), else `i` is known to be in bounds (a loop over the view).
    pub(super) fn view_pos(
        &mut self,
        view: &View,
        i: Operand,
        checked: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Operand {
        if view.spans_base() || (!checked && view.start.is_none() && view.stride.is_none()) {
            return i;
        }
        let (s, mut reads) = self.view_start_tokens(view);
        let mut it = self.op_tokens(&i);
        reads.extend(op_reads(&i));
        if let Some(k) = &view.stride {
            // (Only the items of a loop have a stride: `checked` is false.)
            let kt = self.op_tokens(k);
            reads.extend(op_reads(k));
            it = quote!(#it * #kt);
        }
        let expr = if checked {
            let (n, r) = self.view_len_tokens(view);
            reads.extend(r);
            quote!(::revad::__private::view::index(#s, #n, #it))
        } else if view.start.is_none() {
            it
        } else {
            quote!(#s + #it)
        };
        self.usize_let("j", expr, reads, span, out)
    }

    fn elem_ty(&self, base: VarId) -> Ty {
        match &self.vars[base].ty {
            Ty::Array(info) => Ty::Float(info.elem),
            _ => Ty::Float(None),
        }
    }

    /// `v[i]` on a view.
    pub(super) fn view_read(
        &mut self,
        view: &View,
        index: &syn::Expr,
        expr: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let i = self.lower_int_operand(index, Ty::Usize, out);
        let pos = self.view_pos(view, i, true, expr.span(), out);
        let ty = self.elem_ty(view.base);
        Value::Op(self.let_temp(out, Rhs::Index(view.base, view.path(pos)), ty, expr.span()))
    }

    /// Whether `expr` is a name bound to a view of a sequence of aggregates (`let t =
    /// &ps[1..];`, a window of `ps.windows(2)`), whose elements are places.
    pub(super) fn is_aggregate_view(&self, expr: &syn::Expr) -> bool {
        matches!(strip(expr), syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| {
            matches!(self.lookup(&i.to_string()), Some(Binding::View(v)) if self.is_aggregate(v.base))
        }))
    }

    /// `t[i]` for a view `t` of a sequence of aggregates: the element's place, `i` checked
    /// against the view's bounds.
    pub(super) fn aggregate_view_element(
        &mut self,
        index: &syn::ExprIndex,
        out: &mut Vec<Stmt>,
    ) -> Option<Place> {
        let view = self.view_expr(&index.expr, out)?.ok()?;
        let i = self.lower_int_operand(&index.index, Ty::Usize, out);
        // (The whole indexing expression's span: see `slice`.)
        let pos = self.view_pos(&view, i, true, index.span(), out);
        let pos = self.frozen(pos, index.span(), out);
        Some(view.element_place(pos, view.mutable))
    }

    /// The index into the base for `v[i] = ..` on a view; `None` after an error.
    pub(super) fn view_write_index(
        &mut self,
        view: &View,
        index: &syn::Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Option<Operand> {
        if !view.mutable {
            self.cx.error(
                index,
                "#[reverse] assigns through a slice only when it is mutable: write \
                 `let v = &mut x[a..b];` (or use `split_at_mut`)",
            );
            return None;
        }
        let i = self.lower_int_operand(index, Ty::Usize, out);
        Some(self.view_pos(view, i, true, span, out))
    }

    /// `x.split_at(k)` and `x.split_at_mut(k)`: two views.
    pub(super) fn lower_split_at(
        &mut self,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let base = match self.view_expr(&call.receiver, out)? {
            Ok(base) => base,
            Err(()) => return Some(Value::Error),
        };
        let mutable = call.method == "split_at_mut";
        let span = call.method.span();
        let mid = self.lower_int_operand(&call.args[0], Ty::Usize, out);
        let (n, mut reads) = self.view_len_tokens(&base);
        reads.extend(op_reads(&mid));
        let m = self.op_tokens(&mid);
        let mid = self.usize_let(
            "k",
            quote!(::revad::__private::view::split(#n, #m)),
            reads.clone(),
            span,
            out,
        );
        let k = self.op_tokens(&mid);
        reads.push(mid.var().unwrap_or(base.base));
        let rest = self.usize_let("n", quote!(#n - #k), reads, span, out);
        let right_start = match &base.start {
            None => mid.clone(),
            Some(s0) => {
                let s = self.op_tokens(s0);
                let mut reads = op_reads(s0);
                reads.extend(op_reads(&mid));
                self.usize_let("s", quote!(#s + #k), reads, span, out)
            }
        };
        let left = View {
            len: Some(mid),
            mutable,
            ..base.clone()
        };
        let right = View {
            start: Some(right_start),
            len: Some(rest),
            mutable,
            ..base
        };
        Some(Value::Tuple(vec![Value::View(left), Value::View(right)]))
    }

    /// `dst.copy_from_slice(src)`: a loop of element assignments.
    pub(super) fn lower_copy_from_slice(
        &mut self,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let dst = match self.view_expr(&call.receiver, out)? {
            Ok(dst) => dst,
            Err(()) => return Some(Value::Error),
        };
        let span = call.method.span();
        let src = match self.view_expr(&call.args[0], out) {
            Some(Ok(src)) => src,
            Some(Err(())) => return Some(Value::Error),
            None => {
                self.cx.error(
                    &call.args[0],
                    "#[reverse] copies from a float array or a slice of one (`&src`, \
                     `&src[a..b]`) here",
                );
                return Some(Value::Error);
            }
        };
        let (dn, mut reads) = self.view_len_tokens(&dst);
        let (sn, r) = self.view_len_tokens(&src);
        reads.extend(r);
        let n = self.usize_let(
            "n",
            quote!(::revad::__private::view::copy_len(#dn, #sn)),
            reads,
            span,
            out,
        );
        let mut body = Vec::new();
        let (i, range) = self.counter(&n, span);
        let from = self.view_pos(&src, Operand::Var(i), false, span, &mut body);
        let ty = self.elem_ty(src.base);
        let value = self.let_temp(&mut body, Rhs::Index(src.base, src.path(from)), ty, span);
        let to = self.view_pos(&dst, Operand::Var(i), false, span, &mut body);
        body.push(Stmt {
            kind: StmtKind::IndexAssign {
                array: dst.base,
                index: dst.path(to),
                op: AssignOp::Set,
                value,
            },
            span,
        });
        self.push_loop(range, body, Vec::new(), None, span, out);
        Some(Value::Unit)
    }

    /// A loop counter over `0..n`.
    fn counter(&mut self, n: &Operand, span: Span) -> (VarId, LoopKind) {
        let i = self.fresh("i", Ty::Usize, false, span);
        let nt = self.op_tokens(n);
        let range = Opaque::generated(quote!(0..#nt), op_reads(n));
        let kind = LoopKind::Range(RangeLoop {
            var: Some(i),
            range,
            walk: Walk::Up(quote!(0..#nt)),
        });
        (i, kind)
    }

    /// A view passed to an annotated function: a copy in a local `Vec`, whose adjoint flows
    /// back to the view's elements. `None` when `arg` is not a view (a whole array is passed
    /// as it is). A view passed by `&mut` (`&mut x[a..b]`) is copied back after the call
    /// (`copy_back`): the copy is returned with the view.
    pub(super) fn view_arg(
        &mut self,
        arg: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<Result<(VarId, Option<View>), ()>> {
        if !self.is_view_expr(arg) {
            return None;
        }
        let by_mut = matches!(strip(arg), syn::Expr::Reference(r) if r.mutability.is_some());
        let view = match self.view_expr(arg, out)? {
            Ok(view) => view,
            Err(()) => return Some(Err(())),
        };
        if view.is_whole() {
            return Some(Ok((view.base, None)));
        }
        let span = arg.span();
        if self.is_aggregate(view.base) {
            // The copy would be a float `Vec`, and the elements may be aggregates.
            self.cx.error(
                arg,
                "#[reverse] passes a part of an aggregate to an annotated function whole \
                 (`&self.w[i]`, `&ps`), not a slice of it; pass the whole part and the bounds",
            );
            return Some(Err(()));
        }
        let n = match &view.len {
            Some(n) => n.clone(),
            None => {
                let (t, reads) = self.view_len_tokens(&view);
                self.usize_let("n", t, reads, span, out)
            }
        };
        let elem = match &self.vars[view.base].ty {
            Ty::Array(info) => info.elem,
            _ => None,
        };
        let ty = Ty::Array(ArrayInfo {
            elem,
            shape: Shape::Len(n.clone()),
            agg: false,
        });
        let copy = self.fresh("slice", ty, true, span);
        let zero = Operand::Lit(quote!(0.0), LitKind::Float(elem));
        out.push(Stmt {
            kind: StmtKind::Let {
                var: copy,
                rhs: Rhs::VecRepeat(zero, n.clone()),
                ty: None,
            },
            span,
        });
        let mut body = Vec::new();
        let (i, range) = self.counter(&n, span);
        let from = self.view_pos(&view, Operand::Var(i), false, span, &mut body);
        let ty = self.elem_ty(view.base);
        let value = self.let_temp(&mut body, Rhs::Index(view.base, view.path(from)), ty, span);
        body.push(Stmt {
            kind: StmtKind::IndexAssign {
                array: copy,
                index: Path::index(Operand::Var(i)),
                op: AssignOp::Set,
                value,
            },
            span,
        });
        self.push_loop(range, body, Vec::new(), None, span, out);
        Some(Ok((copy, by_mut.then_some(view))))
    }

    /// After a call that wrote `copy` through `&mut`: its elements back into `view`.
    pub(super) fn copy_back(&mut self, view: &View, copy: VarId, span: Span, out: &mut Vec<Stmt>) {
        let n = match &self.vars[copy].ty {
            Ty::Array(ArrayInfo {
                shape: Shape::Len(n),
                ..
            }) => n.clone(),
            _ => return,
        };
        let mut body = Vec::new();
        let (i, range) = self.counter(&n, span);
        let ty = self.elem_ty(view.base);
        let value = self.let_temp(
            &mut body,
            Rhs::Index(copy, Path::index(Operand::Var(i))),
            ty,
            span,
        );
        let to = self.view_pos(view, Operand::Var(i), false, span, &mut body);
        body.push(Stmt {
            kind: StmtKind::IndexAssign {
                array: view.base,
                index: view.path(to),
                op: AssignOp::Set,
                value,
            },
            span,
        });
        self.push_loop(range, body, Vec::new(), None, span, out);
    }

    /// `&e` and `&mut e`: a view of a float array, or an inactive reference (`&W` of a
    /// constant table, `&idx` of an integer array). `None`: not supported (reported by the
    /// caller).
    pub(super) fn lower_reference(
        &mut self,
        expr: &syn::Expr,
        r: &syn::ExprReference,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        match self.view_expr(expr, out) {
            Some(Ok(view)) => return Some(Value::View(view)),
            Some(Err(())) => return Some(Value::Error),
            None => {}
        }
        let inner = strip(&r.expr);
        let data = matches!(inner, syn::Expr::Path(_) | syn::Expr::Index(_));
        if r.mutability.is_none() && data && !self.mentions_float(inner) {
            return Some(self.opaque_value(expr, Ty::Unknown, out));
        }
        match inner {
            syn::Expr::Index(index) if matches!(&*index.index, syn::Expr::Range(_)) => {
                self.cx.error(
                    &index.index,
                    "#[reverse] slices float arrays bound to a name (`&x[a..b]`); bind this \
                     expression to a variable first",
                );
                Some(Value::Error)
            }
            _ => None,
        }
    }

    /// `x[a..b]` (a view), and `v[i]` on a view; `None` for other indexing.
    pub(super) fn lower_view_index(
        &mut self,
        expr: &syn::Expr,
        index: &syn::ExprIndex,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if let syn::Expr::Range(range) = &*index.index {
            return Some(match self.view_expr(expr, out) {
                Some(Ok(view)) => Value::View(view),
                Some(Err(())) => Value::Error,
                None if !self.mentions_float(&index.expr) => {
                    self.opaque_value(expr, Ty::Unknown, out)
                }
                None => {
                    self.cx.error(
                        range,
                        "#[reverse] slices float arrays bound to a name (`&x[a..b]`); bind \
                         this expression to a variable first",
                    );
                    Value::Error
                }
            });
        }
        if self.array_var(&index.expr).is_some() || !self.is_view_expr(&index.expr) {
            return None;
        }
        Some(match self.view_expr(&index.expr, out)? {
            Ok(view) => self.view_read(&view, &index.index, expr, out),
            Err(()) => Value::Error,
        })
    }

    /// The base and the index for an assignment to `v[i]` when `v` is a view: `None` when
    /// it is not one, `Some(None)` after an error.
    pub(super) fn view_target(
        &mut self,
        index: &syn::ExprIndex,
        out: &mut Vec<Stmt>,
    ) -> Option<Option<(VarId, Path)>> {
        if self.array_var(&index.expr).is_some() || !self.is_view_expr(&index.expr) {
            return None;
        }
        let view = match self.view_expr(&index.expr, out)? {
            Ok(view) => view,
            Err(()) => return Some(None),
        };
        let j = self.view_write_index(&view, &index.index, index.span(), out);
        Some(j.map(|j| (view.base, view.path(j))))
    }

    /// `split_at`, `split_at_mut` and `copy_from_slice` on a float array or a view.
    pub(super) fn lower_view_method(
        &mut self,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let name = call.method.to_string();
        let known = matches!(
            (name.as_str(), call.args.len()),
            ("split_at" | "split_at_mut" | "copy_from_slice", 1)
        );
        if !known
            || !(self.is_view_expr(&call.receiver)
                || self.array_var(&call.receiver).is_some()
                || self.is_place_expr(&call.receiver))
        {
            return None;
        }
        if name == "copy_from_slice" {
            self.lower_copy_from_slice(call, out)
        } else {
            self.lower_split_at(call, out)
        }
    }

    /// `vec![0usize, 2, 1]`, `vec![0usize; n]`: a vector of integers (or other inactive
    /// data) is emitted as written. `None` when the vector mentions floats.
    pub(super) fn lower_inactive_vec(
        &mut self,
        mac: &syn::Macro,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if !mac.path.is_ident("vec") {
            return None;
        }
        let tokens = &mac.tokens;
        let parsed: syn::Expr = syn::parse2(quote!([#tokens])).ok()?;
        let empty = matches!(&parsed, syn::Expr::Array(a) if a.elems.is_empty());
        // (`vec![P2::default(); n]`: structs, which hold floats: see `lower_macro`.)
        let structs =
            matches!(&parsed, syn::Expr::Repeat(r) if super::results::is_struct_value(&r.expr));
        if empty
            || structs
            || self.mentions_float(&parsed)
            || self.mentions_float(&innermost(&parsed))
        {
            return None;
        }
        let span = mac.span();
        let (expr, reads) = match &parsed {
            syn::Expr::Array(_) => {
                let opaque = self.opaque(&parsed);
                let e = opaque.expr;
                (quote!(::std::vec::Vec::from(#e)), opaque.reads)
            }
            syn::Expr::Repeat(r) => {
                let (e, n) = (self.opaque(&r.expr), self.opaque(&r.len));
                let (et, nt) = (&e.expr, &n.expr);
                let mut reads = e.reads;
                reads.extend(n.reads);
                (quote!(::std::vec![#et; #nt]), reads)
            }
            _ => return None,
        };
        let opaque = Opaque {
            expr,
            reads,
            cheap: false,
            flows: Vec::new(),
            if_active: (span, String::new()),
        };
        Some(Value::Op(Operand::Var(self.let_opaque(
            out,
            "t",
            Ty::Other,
            opaque,
            span,
        ))))
    }

    // ---- `for` loops over views, zips, reversed elements, chunks and windows ---------------

    /// The loop of `for pat in expr` for the sequences this module adds; `None` when `expr`
    /// is none of them (the caller reports it), `Some(None)` after an error. Statements that
    /// run once before the loop go to `pre`, the items' bindings to the start of the body
    /// (`prelude`), and the names to bind in the body to `self.for_bindings`.
    pub(super) fn for_sequence(
        &mut self,
        f: &syn::ExprForLoop,
        pre: &mut Vec<Stmt>,
        prelude: &mut Vec<Stmt>,
    ) -> Option<Option<LoopKind>> {
        let seq = match self.parse_seq(&f.expr, pre)? {
            Ok(seq) => seq,
            Err(()) => return Some(None),
        };
        let span = f.for_token.span;
        let (count, reads) = self.seq_count(&seq);
        let n = self.usize_let("n", count, reads, span, pre);
        let (i, kind) = self.counter(&n, span);
        let ok = self.bind_item(&f.pat, &seq, i, prelude);
        Some(ok.then_some(kind))
    }

    /// Whether the sequence of a `for` loop walks an aggregate or an array inside one
    /// (`ps.iter_mut()`, `&mut self.particles`, `p.vel.iter_mut().zip(..)`): such loops bind
    /// their items to places here, even through `iter_mut` (which `iter_mut` copies for float
    /// arrays).
    pub(super) fn iterates_places(&self, expr: &syn::Expr) -> bool {
        match strip(expr) {
            syn::Expr::MethodCall(m) => {
                self.iterates_places(&m.receiver) || m.args.iter().any(|a| self.iterates_places(a))
            }
            syn::Expr::Reference(r) => self.iterates_places(&r.expr),
            syn::Expr::Index(i) if matches!(strip(&i.index), syn::Expr::Range(_)) => {
                self.iterates_places(&i.expr)
            }
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Binding::View(v)) => self.is_aggregate(v.base),
                    _ => self.is_place_expr(expr),
                }
            }
            other => self.is_place_expr(other),
        }
    }

    /// Reads a sequence; `None` if `expr` is not one this module handles.
    fn parse_seq(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> Option<Result<Seq, ()>> {
        match strip(expr) {
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                match (name.as_str(), m.args.len()) {
                    ("enumerate", 0) => {
                        let inner = self.parse_seq(&m.receiver, pre)?;
                        Some(inner.map(|s| Seq::Enumerate(Box::new(s))))
                    }
                    ("zip", 1) => {
                        let left = self.parse_seq(&m.receiver, pre)?;
                        let right = match self.parse_seq(&m.args[0], pre) {
                            Some(r) => r,
                            None => {
                                self.cx.error(
                                    &m.args[0],
                                    "#[reverse] can zip with a float array, a slice of one, or \
                                     a constant table (`ys`, `&ys`, `ys.iter()`, `&ys[a..b]`)",
                                );
                                Err(())
                            }
                        };
                        Some(match (left, right) {
                            (Ok(l), Ok(r)) => Ok(Seq::Zip(Box::new(l), Box::new(r))),
                            _ => Err(()),
                        })
                    }
                    ("rev", 0) => match self.parse_seq(&m.receiver, pre)? {
                        Ok(Seq::Elems { src, rev }) => Some(Ok(Seq::Elems { src, rev: !rev })),
                        Ok(Seq::Range {
                            start,
                            end: Some(end),
                            rev,
                        }) => Some(Ok(Seq::Range {
                            start,
                            end: Some(end),
                            rev: !rev,
                        })),
                        Ok(Seq::Rev(seq)) => Some(Ok(*seq)),
                        Ok(seq) => Some(Ok(Seq::Rev(Box::new(seq)))),
                        Err(()) => Some(Err(())),
                    },
                    ("copied" | "cloned", 0) => self.parse_seq(&m.receiver, pre),
                    // `xs.iter().skip(k)`, `.take(n)`: a narrower view, `k` and `n` clamped
                    // to the length as the iterators do; `.step_by(k)`: a view with a stride.
                    ("skip" | "take" | "step_by", 1) => match self.parse_seq(&m.receiver, pre)? {
                        Ok(Seq::Elems {
                            src: Src::View(view),
                            rev: false,
                        }) => {
                            let narrowed = self.narrow(&view, m, pre);
                            Some(Ok(Seq::Elems {
                                src: Src::View(narrowed),
                                rev: false,
                            }))
                        }
                        // Of a zip, an enumeration, a reversed or chunked sequence: by
                        // position, the argument evaluated once before the loop.
                        Ok(seq) => {
                            let span = m.method.span();
                            let k = self.lower_int_operand(&m.args[0], Ty::Usize, pre);
                            let reads = op_reads(&k);
                            let kt = self.op_tokens(&k);
                            let k = self.usize_let("k", kt, reads, span, pre);
                            let seq = Box::new(seq);
                            Some(Ok(match name.as_str() {
                                "skip" => Seq::Skip(seq, k),
                                "take" => Seq::Take(seq, k),
                                _ => Seq::StepBy(seq, k),
                            }))
                        }
                        Err(()) => Some(Err(())),
                    },
                    ("iter" | "into_iter" | "iter_mut", 0) => {
                        let access = match name.as_str() {
                            "iter" => Access::Shared,
                            "iter_mut" => Access::Mut,
                            _ => Access::Value,
                        };
                        let src = self.source(&m.receiver, access, pre)?;
                        Some(src.map(|src| Seq::Elems { src, rev: false }))
                    }
                    ("chunks" | "chunks_exact" | "windows", 1) => {
                        Some(self.chunked(m, pre)?.map(Seq::Chunks))
                    }
                    _ => None,
                }
            }
            syn::Expr::Range(r) => {
                // `a..b`, `a..=b`, `a..`: the bounds as `usize`s, evaluated once.
                let span = r.span();
                let start = r.start.as_deref()?;
                let negative = |e: &syn::Expr| matches!(strip(e), syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)));
                if let Some(e) = [Some(start), r.end.as_deref()]
                    .into_iter()
                    .flatten()
                    .find(|e| negative(e))
                {
                    self.cx.error(
                        e,
                        "#[reverse] counts a range in a zip in `usize`s; a negative bound is \
                         not taken: zip with `0..n` and shift the index in the body",
                    );
                    return Some(Err(()));
                }
                // (As `usize`s, which the items are: another integer type is an error at the
                // bound.)
                let mut bound = |e: &syn::Expr, pre: &mut Vec<Stmt>| {
                    let op = self.lower_int_operand(e, Ty::Usize, pre);
                    let (tokens, reads) = (self.op_tokens(&op), op_reads(&op));
                    let tokens = quote::quote_spanned!(e.span()=> ::core::convert::identity::<usize>(#tokens));
                    self.usize_let("b", tokens, reads, span, pre)
                };
                let start = bound(start, pre);
                let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
                let end = r.end.as_deref().map(|e| (bound(e, pre), inclusive));
                Some(Ok(Seq::Range {
                    start,
                    end,
                    rev: false,
                }))
            }
            other => {
                let src = self.source(other, Access::Value, pre)?;
                Some(src.map(|src| Seq::Elems { src, rev: false }))
            }
        }
    }

    /// The elements a sequence starts from: a float array or view, or inactive data. A
    /// view's `mutable` says afterwards whether its items are yielded by `&mut`.
    fn source(
        &mut self,
        expr: &syn::Expr,
        access: Access,
        pre: &mut Vec<Stmt>,
    ) -> Option<Result<Src, ()>> {
        if let Some(view) = self.view_expr(expr, pre) {
            return Some(view.and_then(|view| self.access(view, expr, access).map(Src::View)));
        }
        let inner = match strip(expr) {
            syn::Expr::Reference(r) if r.mutability.is_none() => strip(&r.expr),
            other => other,
        };
        match inner {
            // A constant table (`W`), an integer array: indexed as written.
            syn::Expr::Path(_) | syn::Expr::Index(_) if !self.is_float_expr(inner) => {
                let mut opaque = self.opaque(inner);
                opaque.flows.clear();
                Some(Ok(Src::Inactive(opaque)))
            }
            _ => None,
        }
    }

    /// `view` as `expr` yields it under `access`: its items are mutable only through
    /// `iter_mut()`, `&mut`, or a `&mut` slice iterated as it is.
    ///
    /// Iterating an owned aggregate by value (`for p in ps`, `for v in p.vel`) of a `mut`
    /// variable is rejected: the items are bound to the elements themselves (places), and
    /// the body could change the variable while Rust iterates over a copy of it (an array of
    /// `Copy` items).
    fn access(&self, view: View, expr: &syn::Expr, access: Access) -> Result<View, ()> {
        let mutable = match (access, strip(expr)) {
            (Access::Shared, _) => false,
            (Access::Mut, _) | (Access::Value, syn::Expr::Reference(_)) => view.mutable,
            (Access::Value, syn::Expr::Path(p)) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    // A slice bound by `let v = &mut x[..]` or a place by `&mut`: a reference.
                    Some(Binding::View(_) | Binding::Place(_)) => view.mutable,
                    Some(Binding::Var(v)) if self.mut_refs.contains(v) => true,
                    _ => self.by_value(view.base, expr)?,
                }
            }
            (Access::Value, _) => self.by_value(view.base, expr)?,
        };
        Ok(View { mutable, ..view })
    }

    /// The items of an owned array iterated by value are not mutable; see `access`.
    fn by_value(&self, base: VarId, expr: &syn::Expr) -> Result<bool, ()> {
        if self.is_aggregate(base) && self.vars[base].mutable {
            self.cx.error(
                expr,
                "#[reverse] iterates over a `mut` aggregate by reference: it binds the items \
                 to the elements themselves, which the body could change while Rust iterates \
                 over a copy; write `&xs` or `xs.iter()` (`xs.iter_mut()` to change the items)",
            );
            return Err(());
        }
        Ok(false)
    }

    /// The number of items of `seq`, as tokens and the variables they read.
    fn seq_count(&self, seq: &Seq) -> (TokenStream, Vec<VarId>) {
        match seq {
            Seq::Elems { src, .. } => self.src_len(src),
            Seq::Zip(a, b) => {
                let (a, mut reads) = self.seq_count(a);
                let (b, r) = self.seq_count(b);
                reads.extend(r);
                (quote!(#a.min(#b)), reads)
            }
            Seq::Enumerate(a) | Seq::Rev(a) => self.seq_count(a),
            Seq::Chunks(chunked) => self.chunk_count(chunked),
            Seq::Range { start, end, .. } => {
                let (s, mut reads) = (self.op_tokens(start), op_reads(start));
                let count = match end {
                    // (An unbounded range counts as `usize::MAX` items: a zip takes the
                    // other side's length.)
                    None => quote!(usize::MAX),
                    Some((e, inclusive)) => {
                        reads.extend(op_reads(e));
                        let e = self.op_tokens(e);
                        match inclusive {
                            false => quote!(usize::saturating_sub(#e, #s)),
                            true => quote!(if #e >= #s { #e - #s + 1 } else { 0 }),
                        }
                    }
                };
                (count, reads)
            }
            Seq::Skip(a, k) | Seq::Take(a, k) | Seq::StepBy(a, k) => {
                let (count, mut reads) = self.seq_count(a);
                reads.extend(op_reads(k));
                let k = self.op_tokens(k);
                let count = match seq {
                    Seq::Skip(..) => quote!(usize::saturating_sub(#count, #k)),
                    Seq::Take(..) => quote!(::core::cmp::min(#count, #k)),
                    _ => quote!(::revad::__private::view::step_by(#count, #k)),
                };
                (count, reads)
            }
        }
    }

    /// The chunks or windows `m` (`x.chunks(k)`, `x.chunks_exact(k)`, `x.windows(k)`) of a
    /// float array or view, the size evaluated once into `pre`; `None` if its receiver is not
    /// one, `Some(Err(()))` after an error.
    pub(super) fn chunked(
        &mut self,
        m: &syn::ExprMethodCall,
        pre: &mut Vec<Stmt>,
    ) -> Option<Result<Chunked, ()>> {
        let kind = match (m.method.to_string().as_str(), m.args.len()) {
            ("chunks", 1) => Chunking::Chunks,
            ("chunks_exact", 1) => Chunking::Exact,
            ("windows", 1) => Chunking::Windows,
            _ => return None,
        };
        let view = match self.view_expr(&m.receiver, pre)? {
            Ok(v) => v,
            Err(()) => return Some(Err(())),
        };
        let size = self.lower_int_operand(&m.args[0], Ty::Usize, pre);
        let size = self.frozen(size, m.method.span(), pre);
        Some(Ok(Chunked { view, size, kind }))
    }

    /// The number of chunks or windows, as tokens and the variables they read (it panics
    /// where `chunks(0)` does).
    pub(super) fn chunk_count(&self, chunked: &Chunked) -> (TokenStream, Vec<VarId>) {
        let Chunked { view, size, kind } = chunked;
        let (n, mut reads) = self.view_len_tokens(view);
        reads.extend(op_reads(size));
        let k = self.op_tokens(size);
        let f = match kind {
            Chunking::Chunks => quote!(chunks),
            Chunking::Exact => quote!(chunks_exact),
            Chunking::Windows => quote!(windows),
        };
        (quote!(::revad::__private::view::#f(#n, #k)), reads)
    }

    /// Chunk or window `i` (a loop counter) as a view, its start and length computed into
    /// `body`.
    pub(super) fn chunk(
        &mut self,
        chunked: &Chunked,
        i: VarId,
        span: Span,
        body: &mut Vec<Stmt>,
    ) -> View {
        let Chunked { view, size, kind } = chunked;
        let it = self.vars[i].name.clone();
        let k = self.op_tokens(size);
        let (s0, mut reads) = self.view_start_tokens(view);
        reads.extend(op_reads(size));
        reads.push(i);
        let offset = match kind {
            Chunking::Windows => quote!(#it),
            Chunking::Chunks | Chunking::Exact => quote!(#it * #k),
        };
        let start_expr = if view.start.is_some() {
            quote!(#s0 + #offset)
        } else {
            offset
        };
        let start = self.usize_let("s", start_expr, reads.clone(), span, body);
        let len = match kind {
            Chunking::Chunks => {
                let (n0, r) = self.view_len_tokens(view);
                reads.extend(r);
                self.usize_let(
                    "n",
                    quote!(::revad::__private::view::chunk_len(#n0, #k, #it)),
                    reads,
                    span,
                    body,
                )
            }
            Chunking::Exact | Chunking::Windows => size.clone(),
        };
        View {
            base: view.base,
            prefix: view.prefix.clone(),
            start: Some(start),
            len: Some(len),
            stride: None,
            mutable: false,
        }
    }

    fn src_len(&self, src: &Src) -> (TokenStream, Vec<VarId>) {
        match src {
            Src::View(view) => self.view_len_tokens(view),
            Src::Inactive(opaque) => {
                let e = &opaque.expr;
                (quote!((#e).len()), opaque.reads.clone())
            }
        }
    }

    /// Binds `pat` to item `i` of `seq` (statements into `body`, names into
    /// `self.for_bindings`). False after an error.
    fn bind_item(&mut self, pat: &syn::Pat, seq: &Seq, i: VarId, body: &mut Vec<Stmt>) -> bool {
        let pat = match pat {
            syn::Pat::Paren(p) => &*p.pat,
            pat => pat,
        };
        if let syn::Pat::Wild(_) = pat {
            return true;
        }
        let pair = matches!(pat, syn::Pat::Tuple(t) if t.elems.len() == 2);
        fn paired(seq: &Seq) -> bool {
            match seq {
                Seq::Rev(a) | Seq::Skip(a, _) | Seq::Take(a, _) | Seq::StepBy(a, _) => paired(a),
                seq => matches!(seq, Seq::Zip(..) | Seq::Enumerate(_)),
            }
        }
        if paired(seq) && !pair {
            self.cx.error(
                pat,
                "bind the pair to a tuple pattern, as in `for (a, b) in ..`",
            );
            return false;
        }
        match seq {
            Seq::Rev(a) => {
                // Item `i` of the reversed sequence is item `len - 1 - i` of `a`, with the
                // number of items of `a` itself: in a zip with a shorter sequence the loop's
                // count is less.
                let (count, reads) = self.seq_count(a);
                let Operand::Var(j) = self.counted_from_the_end(count, reads, i, pat.span(), body)
                else {
                    return false;
                };
                self.bind_item(pat, a, j, body)
            }
            Seq::Elems { src, rev } => {
                let (ident, by_ref) = match pat {
                    syn::Pat::Ident(p) if p.mutability.is_some() && self.yields_places(src) => {
                        self.cx.error(
                            p,
                            "#[reverse] binds the items of this loop to the elements \
                             themselves, not to copies; remove the `mut`, and copy an item \
                             with `let mut q = p.clone();` if the body changes it",
                        );
                        return false;
                    }
                    syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                        (p.ident.clone(), true)
                    }
                    syn::Pat::Reference(r) => match &*r.pat {
                        syn::Pat::Ident(p) if p.subpat.is_none() => (p.ident.clone(), false),
                        other => return self.pattern_error(other),
                    },
                    other => return self.pattern_error(other),
                };
                let span = ident.span();
                let index = if *rev {
                    // Item `i` of `xs.iter().rev()` is `xs[len - 1 - i]`, with the length of
                    // `xs` itself: in a zip with a shorter sequence the loop's count is less.
                    let (len, reads) = self.src_len(src);
                    self.counted_from_the_end(len, reads, i, span, body)
                } else {
                    Operand::Var(i)
                };
                self.bind_element(&ident, by_ref, src, index, body);
                true
            }
            Seq::Zip(a, b) => {
                let syn::Pat::Tuple(t) = pat else {
                    return false;
                };
                self.bind_item(&t.elems[0], a, i, body) && self.bind_item(&t.elems[1], b, i, body)
            }
            Seq::Enumerate(a) => {
                let syn::Pat::Tuple(t) = pat else {
                    return false;
                };
                let index = self.vars[i].name.clone();
                if !self.bind_index(&t.elems[0], quote!(#index), vec![i], body) {
                    return false;
                }
                self.bind_item(&t.elems[1], a, i, body)
            }
            Seq::Range { start, end, rev } => {
                let it = self.vars[i].name.clone();
                let mut reads = vec![i];
                reads.extend(op_reads(start));
                let s = self.op_tokens(start);
                let value = match (end, rev) {
                    (Some((e, inclusive)), true) => {
                        reads.extend(op_reads(e));
                        let e = self.op_tokens(e);
                        match inclusive {
                            false => quote!(#e - 1 - #it),
                            true => quote!(#e - #it),
                        }
                    }
                    _ => quote!(#s + #it),
                };
                self.bind_index(pat, value, reads, body)
            }
            Seq::Take(a, _) => self.bind_item(pat, a, i, body),
            Seq::Skip(a, k) | Seq::StepBy(a, k) => {
                // Item `i` is item `i + k` (`i * k`) of `a`.
                let it = self.vars[i].name.clone();
                let mut reads = op_reads(k);
                reads.push(i);
                let kt = self.op_tokens(k);
                let at = match seq {
                    Seq::Skip(..) => quote!(#it + #kt),
                    _ => quote!(#it * #kt),
                };
                let Operand::Var(j) = self.usize_let("j", at, reads, pat.span(), body) else {
                    return false;
                };
                self.bind_item(pat, a, j, body)
            }
            Seq::Chunks(chunked) => {
                let ident = match pat {
                    syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                        p.ident.clone()
                    }
                    other => {
                        self.cx.error(
                            other,
                            "bind each chunk or window to a name (`for c in x.chunks(k)`) and \
                             index or iterate it in the body",
                        );
                        return false;
                    }
                };
                let chunk = self.chunk(chunked, i, ident.span(), body);
                self.for_bindings.push((ident, Binding::View(chunk)));
                true
            }
        }
    }

    /// `let i = value;` for the pattern `pat` of an index (an enumeration's, a range's): a
    /// `usize` computed from `reads`, bound in the body; nothing for `_`. False after an
    /// error.
    fn bind_index(
        &mut self,
        pat: &syn::Pat,
        value: TokenStream,
        reads: Vec<VarId>,
        body: &mut Vec<Stmt>,
    ) -> bool {
        match pat {
            syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                let var = self.user_var(&p.ident, Ty::Usize, false);
                body.push(Stmt {
                    kind: StmtKind::Let {
                        var,
                        rhs: Rhs::Opaque(Opaque::generated(value, reads)),
                        ty: None,
                    },
                    span: p.ident.span(),
                });
                self.for_bindings.push((p.ident.clone(), Binding::Var(var)));
                true
            }
            syn::Pat::Wild(_) => true,
            other => {
                self.cx.error(other, "bind the index to a name or `_`");
                false
            }
        }
    }

    /// `let __j = len - 1 - i;`: the position of item `i` counted from the end of a sequence
    /// of `len` items (`reads`: the variables `len` reads). For a reversed side of a zip,
    /// `len` is that side's own length, not the loop's count.
    pub(super) fn counted_from_the_end(
        &mut self,
        len: TokenStream,
        mut reads: Vec<VarId>,
        i: VarId,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Operand {
        let it = &self.vars[i].name;
        let expr = quote!(#len - 1 - #it);
        reads.push(i);
        self.usize_let("j", expr, reads, span, out)
    }

    /// Whether the items of `src` are bound as places (see `bind_element`).
    fn yields_places(&self, src: &Src) -> bool {
        matches!(src, Src::View(view) if self.is_aggregate(view.base) || view.mutable)
    }

    fn pattern_error(&self, pat: &syn::Pat) -> bool {
        self.cx.error(
            pat,
            "bind the element to a name, as in `for x in xs.iter()` or `for &x in xs`",
        );
        false
    }

    /// `let x = xs[index];` for an element of a view or of inactive data.
    fn bind_element(
        &mut self,
        ident: &Ident,
        by_ref: bool,
        src: &Src,
        index: Operand,
        body: &mut Vec<Stmt>,
    ) {
        let span = ident.span();
        let var = match src {
            Src::View(view) if self.yields_places(src) => {
                // An item of a sequence of aggregates, or of an array inside one, or a float
                // yielded by `&mut`: a place, so that `p.vel[0] += ..` and `*v = ..` write
                // the root and nothing is copied.
                let pos = self.view_pos(view, index, false, span, body);
                let place = view.element_place(pos, view.mutable);
                self.for_bindings
                    .push((ident.clone(), Binding::Place(place)));
                return;
            }
            Src::View(view) => {
                let pos = self.view_pos(view, index, false, span, body);
                let ty = self.elem_ty(view.base);
                let var = self.user_var(ident, ty, false);
                body.push(Stmt {
                    kind: StmtKind::Let {
                        var,
                        rhs: Rhs::Index(view.base, view.path(pos)),
                        ty: None,
                    },
                    span,
                });
                var
            }
            Src::Inactive(opaque) => {
                let e = &opaque.expr;
                let it = self.op_tokens(&index);
                let mut reads = opaque.reads.clone();
                reads.extend(op_reads(&index));
                let var = self.user_var(ident, Ty::Unknown, false);
                self.table_items.push(var);
                body.push(Stmt {
                    kind: StmtKind::Let {
                        var,
                        rhs: Rhs::Opaque(Opaque::generated(quote!((#e)[#it]), reads)),
                        ty: None,
                    },
                    span,
                });
                var
            }
        };
        self.vars[var].deref = by_ref;
        self.for_bindings.push((ident.clone(), Binding::Var(var)));
    }
}

/// The element of `[e; n]` under any `vec![..; m]`s nested in `e` (`0.0` in
/// `[vec![0.0; n]; m]`): the macro cannot see into them otherwise.
fn innermost(repeat: &syn::Expr) -> syn::Expr {
    if let syn::Expr::Repeat(r) = repeat {
        if let syn::Expr::Macro(inner) = super::strip(&r.expr) {
            if inner.mac.path.is_ident("vec") {
                let tokens = &inner.mac.tokens;
                if let Ok(parsed) = syn::parse2::<syn::Expr>(quote!([#tokens])) {
                    return innermost(&parsed);
                }
            }
        }
        return (*r.expr).clone();
    }
    repeat.clone()
}
