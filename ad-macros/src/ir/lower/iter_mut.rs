//! `for v in xs.iter_mut()`: the element is a local copy, written back at the end of every
//! iteration (after a `continue` or a `break` too), so the body reads and writes a plain
//! float variable.
//!
//! ```text
//! // Before                                   // After
//! for (y, x) in ys.iter_mut().zip(xs) {       for __i in 0..ys.len().min(xs.len()) {
//!     *y += 2.0 * x;                              let mut y = ys[__i];
//! }                                               let x = xs[__i];
//!                                                 y += 2.0 * x;
//!                                                 ys[__i] = y;            // the epilogue
//!                                             }
//! ```
//!
//! Forms: `xs.iter_mut()` or `&mut xs`, then `.enumerate()` or `.zip(ys)` (with `ys.iter()`,
//! `&ys`, `ys`, or another `iter_mut()`), in either order of the zip; each `iter()` or
//! `iter_mut()` may be reversed (`.rev()`, before `.enumerate()`). A loop that walks an
//! aggregate or an array inside one (`ps.iter_mut()`, `p.vel.iter_mut()`) is lowered by
//! `views` instead, with places as items (`iterates_places`).

use proc_macro2::TokenStream;

use super::desugar::mentions_iter_mut;
use super::*;
use crate::ir::{AssignOp, LoopKind, RangeLoop, Walk};

/// One sequence of a loop over elements: the array, whether it is walked by `&mut`, and
/// whether from its end (`.rev()`: item `i` is `xs[xs.len() - 1 - i]`, counted from its own
/// length when the other side of a zip is shorter).
struct Elements {
    array: VarId,
    mutable: bool,
    rev: bool,
}

impl Lowerer<'_> {
    /// Whether `f` loops over `iter_mut()` or `&mut xs`.
    pub(super) fn is_iter_mut(&self, f: &syn::ExprForLoop) -> bool {
        (mentions_iter_mut(&f.expr) || self.iter_mut_chain(&f.expr).is_some())
            && !self.iterates_places(&f.expr)
    }

    /// The loop kind of `for PAT in xs.iter_mut()..`, with the element copies in `prelude` and
    /// their write-backs in `epilogue`, and the names bound in `for_bindings`; `None` after an
    /// error.
    pub(super) fn for_iter_mut(
        &mut self,
        f: &syn::ExprForLoop,
        prelude: &mut Vec<Stmt>,
        epilogue: &mut Vec<Stmt>,
    ) -> Option<LoopKind> {
        let span = f.expr.span();
        let (sequences, enumerate) = match self.iter_mut_chain(&f.expr) {
            Some(chain) => chain,
            None => {
                self.cx.error(
                    &f.expr,
                    "#[reverse] supports `for` loops over `xs.iter_mut()` (or `&mut xs`) of a \
                     float array bound to a `let mut` or a `&mut` parameter, then \
                     `.enumerate()` or `.zip(ys)`; iterate over indices (`for i in \
                     0..xs.len()`) otherwise",
                );
                return None;
            }
        };
        // The patterns: `v`, `(i, v)` with `enumerate`, `(a, b)` with `zip`.
        let mut index = None;
        let names: Vec<&syn::Pat> = match (&*f.pat, enumerate, sequences.len()) {
            (syn::Pat::Tuple(t), true, 1) if t.elems.len() == 2 => {
                match &t.elems[0] {
                    syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                        let i = self.user_var(&p.ident, Ty::Usize, false);
                        self.for_bindings.push((p.ident.clone(), Binding::Var(i)));
                        index = Some(i);
                    }
                    syn::Pat::Wild(_) => {}
                    other => {
                        self.cx.error(other, "bind the index to a name or `_`");
                        return None;
                    }
                }
                vec![&t.elems[1]]
            }
            (syn::Pat::Tuple(t), false, 2) if t.elems.len() == 2 => t.elems.iter().collect(),
            (pat, false, 1) => vec![pat],
            (other, ..) => {
                self.cx.error(
                    other,
                    "bind the elements by name: `for v in xs.iter_mut()`, `for (i, v) in \
                     xs.iter_mut().enumerate()`, `for (v, y) in xs.iter_mut().zip(ys)`",
                );
                return None;
            }
        };
        let index = index.unwrap_or_else(|| self.fresh("i", Ty::Usize, false, span));
        for (seq, pat) in sequences.iter().zip(names) {
            // (`&x` on a side walked by shared reference binds the value itself.)
            let (ident, by_value) = match pat {
                syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => (&p.ident, false),
                syn::Pat::Reference(r) if r.mutability.is_none() && !seq.mutable => match &*r.pat {
                    syn::Pat::Ident(p)
                        if p.subpat.is_none() && p.by_ref.is_none() && p.mutability.is_none() =>
                    {
                        (&p.ident, true)
                    }
                    other => {
                        self.cx.error(other, "bind the element to a name");
                        return None;
                    }
                },
                syn::Pat::Wild(_) => continue,
                other => {
                    self.cx.error(other, "bind the element to a name");
                    return None;
                }
            };
            let elem = match &self.vars[seq.array].ty {
                Ty::Array(info) => Ty::Float(info.elem),
                _ => Ty::Float(None),
            };
            let at = match seq.rev {
                true => {
                    let name = &self.vars[seq.array].name;
                    let len = quote!(#name.len());
                    let reads = vec![seq.array];
                    match self.counted_from_the_end(len, reads, index, ident.span(), prelude) {
                        Operand::Var(j) => j,
                        _ => return None,
                    }
                }
                false => index,
            };
            let var = self.user_var(ident, elem, seq.mutable);
            self.vars[var].deref = !by_value;
            prelude.push(Stmt {
                kind: StmtKind::Let {
                    var,
                    rhs: Rhs::Index(seq.array, Path::index(Operand::Var(at))),
                    ty: None,
                },
                span: ident.span(),
            });
            if seq.mutable {
                epilogue.push(Stmt {
                    kind: StmtKind::IndexAssign {
                        array: seq.array,
                        index: Path::index(Operand::Var(at)),
                        op: AssignOp::Set,
                        value: Operand::Var(var),
                    },
                    span: ident.span(),
                });
            }
            self.for_bindings.push((ident.clone(), Binding::Var(var)));
        }
        // The shorter sequence sets the length, as `zip` does.
        let lens: Vec<TokenStream> = sequences
            .iter()
            .map(|s| {
                let name = &self.vars[s.array].name;
                quote!(#name.len())
            })
            .collect();
        let len = match lens.as_slice() {
            [one] => one.clone(),
            [a, b] => quote!(::core::cmp::min(#a, #b)),
            _ => return None,
        };
        let range = Opaque {
            expr: quote!(0..#len),
            reads: sequences.iter().map(|s| s.array).collect(),
            cheap: true,
            flows: Vec::new(),
            if_active: (span, String::new()),
        };
        Some(LoopKind::Range(RangeLoop {
            var: Some(index),
            range,
            walk: Walk::Up(quote!(0..#len)),
        }))
    }

    /// The sequences of `xs.iter_mut()[.enumerate() | .zip(ys)]`, and whether it enumerates.
    fn iter_mut_chain(&self, expr: &syn::Expr) -> Option<(Vec<Elements>, bool)> {
        match strip(expr) {
            syn::Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() => {
                let seq = self.iter_elements(&m.receiver)?;
                seq.mutable.then_some((vec![seq], true))
            }
            syn::Expr::MethodCall(m) if m.method == "zip" && m.args.len() == 1 => {
                let left = self.iter_elements(&m.receiver)?;
                let right = self.iter_elements(&m.args[0])?;
                (left.mutable || right.mutable).then_some((vec![left, right], false))
            }
            other => {
                let seq = self.iter_elements(other)?;
                seq.mutable.then_some((vec![seq], false))
            }
        }
    }

    /// `xs.iter_mut()`, `&mut xs`, `s` for a `&mut` parameter (mutable); `xs.iter()`, `&xs`,
    /// `xs` (read) of a float array bound to a name.
    fn iter_elements(&self, expr: &syn::Expr) -> Option<Elements> {
        if let syn::Expr::MethodCall(m) = strip(expr) {
            if m.method == "rev" && m.args.is_empty() {
                let inner = self.iter_elements(&m.receiver)?;
                return Some(Elements {
                    rev: !inner.rev,
                    ..inner
                });
            }
        }
        let (path, mutable) = match strip(expr) {
            syn::Expr::MethodCall(m) if m.args.is_empty() && m.method == "iter_mut" => {
                (strip(&m.receiver), true)
            }
            syn::Expr::MethodCall(m) if m.args.is_empty() && m.method == "iter" => {
                (strip(&m.receiver), false)
            }
            syn::Expr::Reference(r) => (strip(&r.expr), r.mutability.is_some()),
            // A `&mut [f64]` parameter iterated as it is yields `&mut f64`s.
            syn::Expr::Path(p) => {
                let mutable = p.path.get_ident().is_some_and(|i| {
                    matches!(self.lookup(&i.to_string()), Some(Binding::Var(v)) if self.mut_refs.contains(v))
                });
                (strip(expr), mutable)
            }
            other => (other, false),
        };
        let array = self.array_var(path)?;
        if mutable && !self.vars[array].mutable {
            return None;
        }
        Some(Elements {
            array,
            mutable,
            rev: false,
        })
    }
}

impl Lowerer<'_> {
    /// `xs.fill(v)` and `xs.iter_mut()...for_each(|v| ..)` on a float array: the `for` loops
    /// they stand for, `for e in xs.iter_mut() { *e = v; }` (with `v` evaluated once) and
    /// `for v in xs.iter_mut().. { .. }`. `None` for any other method.
    pub(super) fn lower_mut_method(
        &mut self,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let span = call.method.span();
        let desugared: syn::Expr = match call.method.to_string().as_str() {
            "fill" if call.args.len() == 1 => {
                // A float array bound to a name, or one inside a `mut` aggregate.
                let mutable = match self.array_var(strip(&call.receiver)) {
                    Some(array) => self.vars[array].mutable,
                    None => self.is_place_expr(&call.receiver),
                };
                if !mutable {
                    return None;
                }
                let receiver = &call.receiver;
                let value = &call.args[0];
                syn::parse_quote_spanned! {span=>
                    {
                        let __ad_fill = #value;
                        for __ad_elem in #receiver.iter_mut() {
                            *__ad_elem = __ad_fill;
                        }
                    }
                }
            }
            "for_each" if call.args.len() == 1 && mentions_iter_mut(&call.receiver) => {
                let syn::Expr::Closure(closure) = strip(&call.args[0]) else {
                    return None;
                };
                let [pat] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
                    return None;
                };
                if super::control::expr_jumps(&closure.body) {
                    self.cx.error(
                        &closure.body,
                        "`return`, `break` or `continue` in the closure of `for_each` over `iter_mut()` is not \
                         supported by #[reverse]; write a `for` loop with `continue`",
                    );
                    return Some(Value::Error);
                }
                let pat = match pat {
                    syn::Pat::Type(t) => &*t.pat,
                    pat => pat,
                };
                let receiver = &call.receiver;
                let body = &closure.body;
                syn::parse_quote_spanned! {span=>
                    for #pat in #receiver {
                        #body;
                    }
                }
            }
            _ => return None,
        };
        let (value, _) = self.lower_expr_jumps(&desugared, out, false);
        Some(match value {
            Value::Error => Value::Error,
            _ => Value::Unit,
        })
    }
}
