//! Places inside aggregates: the fields and elements of user structs, nested containers and
//! tuples (`p.pos[0]`, `m[i][j]`, `self.layers[l].w[k]`).
//!
//! An aggregate is a variable whose type the macro does not know (a parameter of a user type,
//! `&[[f64; 3]]`, `Vec<Vec<f64>>`, `self`). The floats in it are reached by a [`Path`] of
//! field and index steps; rustc knows their types, the macro only needs the path. A read is
//! `let t = p.pos[i];` ([`Rhs::Index`] with the path), a write `p.pos[i] = v;`
//! ([`StmtKind::IndexAssign`]); the adjoint of the aggregate is `<T as revad::Adjoint>::Adj`,
//! which has the same fields, so the reverse sweep writes `__adj_p.pos[i] += __adj_t;`
//! without knowing any type.
//!
//! A name bound to a part of an aggregate (`let l = &self.layers[k];`, `for p in ps.iter()`)
//! is a *place* binding, like a view of a float array: it denotes the aggregate and a path,
//! fixed when the binding is made, and its uses extend the path. Nothing is copied.
//!
//! ```text
//! // Before                              // After
//! let l = &self.layers[k];               (l is self.layers[k])
//! let y = l.w[j] * x;                    let __t0 = self.layers[k].w[j];
//!                                        let y = __t0 * x;
//! ```

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;

use super::{strip, Binding, Lowerer, Value};
use crate::ir::{Operand, Path, Rhs, Step, Stmt, StmtKind, Ty, VarId};

/// A part of an aggregate: `root` followed by `steps`.
#[derive(Clone, Debug)]
pub(super) struct Place {
    pub root: VarId,
    pub steps: Vec<Step>,
    /// Made by `&mut ..`, or a part of a `mut` aggregate bound by value: writes through it
    /// are writes of `root`.
    pub mutable: bool,
    /// Bound by value (`let v = p.vel;`, a copy of the part): passed on to a callee by value,
    /// where one bound by `&` is passed by reference.
    pub copied: bool,
}

impl Lowerer<'_> {
    /// Whether `var` is an aggregate.
    pub(super) fn is_aggregate(&self, var: VarId) -> bool {
        matches!(&self.vars[var].ty, Ty::Array(info) if info.agg)
    }

    /// Whether `expr` is a name bound to a whole aggregate variable.
    pub(super) fn is_aggregate_var(&self, expr: &syn::Expr) -> bool {
        matches!(strip(expr), syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| {
            matches!(self.lookup(&i.to_string()), Some(Binding::Var(v)) if self.is_aggregate(*v))
        }))
    }

    /// Whether `expr` denotes a place in an aggregate (without lowering it): a name bound to
    /// an aggregate or a place, followed by fields and non-range indices.
    pub(super) fn is_place_expr(&self, expr: &syn::Expr) -> bool {
        match strip(expr) {
            syn::Expr::Path(p) => {
                p.qself.is_none()
                    && p.path
                        .get_ident()
                        .is_some_and(|i| match self.lookup(&i.to_string()) {
                            Some(Binding::Var(v)) => self.is_aggregate(*v),
                            Some(Binding::Place(_)) => true,
                            _ => false,
                        })
            }
            syn::Expr::Field(f) => self.is_place_expr(&f.base),
            syn::Expr::Index(i) => {
                !matches!(strip(&i.index), syn::Expr::Range(_))
                    && (self.is_place_expr(&i.expr) || self.is_aggregate_view(&i.expr))
            }
            syn::Expr::Reference(r) => self.is_place_expr(&r.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                self.is_place_expr(&u.expr)
            }
            _ => false,
        }
    }

    /// Whether `expr` is the name of a parameter passed by reference (`self` of `&self`,
    /// `p: &P`, `p: &mut P`).
    pub(super) fn is_reference_name(&self, expr: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = strip(expr) else {
            return false;
        };
        let Some(Binding::Var(v)) = p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
        else {
            return false;
        };
        self.vars[*v].param.is_some_and(|i| {
            matches!(
                self.sig.params.get(i).map(|p| &p.ty),
                Some(syn::Type::Reference(_))
            )
        })
    }

    /// The place `expr` denotes, lowering its indices (in evaluation order) into `out`.
    /// `None` when it is not a place (see `is_place_expr`).
    pub(super) fn place_expr(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Place> {
        match strip(expr) {
            syn::Expr::Path(p) => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.to_string())? {
                    Binding::Var(v) if self.is_aggregate(*v) => Some(Place {
                        root: *v,
                        steps: Vec::new(),
                        mutable: self.vars[*v].mutable,
                        copied: false,
                    }),
                    Binding::Place(place) => Some(place.clone()),
                    _ => None,
                }
            }
            syn::Expr::Field(f) => {
                let mut place = self.place_expr(&f.base, out)?;
                place.steps.push(Step::Field(f.member.clone()));
                Some(place)
            }
            syn::Expr::Index(i) if !matches!(strip(&i.index), syn::Expr::Range(_)) => {
                if self.is_aggregate_view(&i.expr) {
                    // `w[0]` of a window or slice of a sequence of aggregates (see `views`).
                    return self.aggregate_view_element(i, out);
                }
                let mut place = self.place_expr(&i.expr, out)?;
                let index = self.fixed_index(&i.index, out);
                place.steps.push(Step::Index(index));
                Some(place)
            }
            syn::Expr::Reference(r) => {
                let mut place = self.place_expr(&r.expr, out)?;
                place.mutable &= r.mutability.is_some();
                Some(place)
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                self.place_expr(&u.expr, out)
            }
            _ => None,
        }
    }

    /// An index of a place: a `usize` operand whose value cannot change while the place is
    /// bound (a `mut` counter is copied).
    fn fixed_index(&mut self, index: &syn::Expr, out: &mut Vec<Stmt>) -> Operand {
        let op = self.lower_int_operand(index, Ty::Usize, out);
        match op {
            Operand::Var(v) if self.vars[v].mutable => {
                let copy = self.fresh("i", Ty::Usize, false, index.span());
                out.push(Stmt {
                    kind: StmtKind::Let {
                        var: copy,
                        rhs: Rhs::Copy(Operand::Var(v)),
                        ty: None,
                    },
                    span: index.span(),
                });
                Operand::Var(copy)
            }
            op => op,
        }
    }

    /// Reads the float at `place`: `let t = root<path>;`.
    pub(super) fn load(&mut self, place: Place, span: Span, out: &mut Vec<Stmt>) -> Value {
        if place.steps.is_empty() {
            // The whole aggregate, as a value (an argument, a result).
            return Value::Op(Operand::Var(place.root));
        }
        // A row of a nested container (`m[i]` of a `[[f64; 3]; 3]`): a copy, an aggregate.
        if let Some(rest) = self.rows_left(&place) {
            let op = self.copy_place(place, span, out);
            if let Operand::Var(v) = op {
                self.float_depth.insert(v, rest);
            }
            return Value::Op(op);
        }
        let rhs = Rhs::Index(place.root, Path(place.steps));
        Value::Op(self.let_temp(out, rhs, Ty::Float(None), span))
    }

    /// A copy of the value at `place`, whatever its type (a float, an array, a struct):
    /// `let t = Clone::clone(&root<path>);`, an aggregate whose adjoint flows back into the
    /// place's.
    pub(super) fn copy_place(&mut self, place: Place, span: Span, out: &mut Vec<Stmt>) -> Operand {
        let var = self.fresh("c", Ty::Unknown, false, span);
        // (The adjoint is shaped like the place, which keeps its shape while its aggregate
        // lives: the copy need not be kept for the reverse sweep.)
        let (rhs, shape) = match place.steps.is_empty() {
            true => (
                Rhs::Copy(Operand::Var(place.root)),
                crate::ir::Shape::Like(place.root),
            ),
            false => (
                Rhs::Index(place.root, Path(place.steps.clone())),
                crate::ir::Shape::Place(place.root, Path(place.steps)),
            ),
        };
        self.vars[var].ty = Ty::Array(crate::ir::ArrayInfo {
            elem: None,
            shape,
            agg: true,
        });
        out.push(Stmt {
            kind: StmtKind::Let { var, rhs, ty: None },
            span,
        });
        Operand::Var(var)
    }

    /// `let name = &place;` or `let name = place;` for a part of an aggregate that cannot
    /// change while `name` is used: binds `name` to the place. Returns whether it did.
    pub(super) fn bind_place(
        &mut self,
        pat: &syn::Pat,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let syn::Pat::Ident(p) = pat else {
            return false;
        };
        // A `let mut` is a value of its own: only a float is read here (`load`).
        if p.by_ref.is_some() || p.subpat.is_some() || p.mutability.is_some() {
            return false;
        }
        let Some(place) = self.fixed_place(init, out) else {
            return false;
        };
        self.bind(&p.ident, Binding::Place(place));
        true
    }

    /// `expr` as a place, when it is a part of an aggregate that cannot change while a name
    /// bound to it is used (`p.vel`, `&ps[i]`, `ps[1]` of a nested array): what `let v =
    /// place;` binds, and a closure's parameter given `place` (`f(ps[1])`) too.
    pub(super) fn fixed_place(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Place> {
        if !self.is_place_expr(expr) {
            return None;
        }
        let by_ref = matches!(strip(expr), syn::Expr::Reference(_));
        let place = self.peek_place_root(expr)?;
        // A copy (`let v = p.vel;`) of a part of a `mut` aggregate is a value of its own.
        if place.steps_empty || (!by_ref && self.vars[place.root].mutable) {
            return None;
        }
        let mut place = self.place_expr(expr, out)?;
        place.copied = !by_ref;
        Some(place)
    }

    /// The root of the place `expr` and whether its path is empty, without lowering it.
    fn peek_place_root(&self, expr: &syn::Expr) -> Option<PeekedPlace> {
        match strip(expr) {
            syn::Expr::Path(p) => match self.lookup(&p.path.get_ident()?.to_string())? {
                Binding::Var(v) if self.is_aggregate(*v) => Some(PeekedPlace {
                    root: *v,
                    steps_empty: true,
                }),
                Binding::Place(place) => Some(PeekedPlace {
                    root: place.root,
                    steps_empty: place.steps.is_empty(),
                }),
                _ => None,
            },
            syn::Expr::Field(f) => self.peek_place_root(&f.base).map(|p| PeekedPlace {
                steps_empty: false,
                ..p
            }),
            syn::Expr::Index(i) => self.peek_place_root(&i.expr).map(|p| PeekedPlace {
                steps_empty: false,
                ..p
            }),
            syn::Expr::Reference(r) => self.peek_place_root(&r.expr),
            syn::Expr::Unary(u) => self.peek_place_root(&u.expr),
            _ => None,
        }
    }

    /// `place = value;` (or `+=`, `-=`) for a float in a `mut` aggregate.
    pub(super) fn store(
        &mut self,
        place: Place,
        op: crate::ir::AssignOp,
        value: Operand,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        out.push(Stmt {
            kind: StmtKind::IndexAssign {
                array: place.root,
                index: Path(place.steps),
                op,
                value,
            },
            span,
        });
    }

    /// The tokens of a place in renamed code (`ps[__i3].mass`), and the variables it reads.
    pub(super) fn place_tokens(&self, place: &Place, span: Span) -> (TokenStream, Vec<VarId>) {
        let mut name = self.vars[place.root].name.clone();
        name.set_span(name.span().located_at(span));
        let mut reads = vec![place.root];
        let path = Path(place.steps.clone());
        reads.extend(path.operands().into_iter().filter_map(Operand::var));
        let tokens = path.place(quote!(#name), false, false, |i| self.op_tokens(i));
        (tokens, reads)
    }
}

/// What `peek_place_root` finds.
struct PeekedPlace {
    root: VarId,
    steps_empty: bool,
}

/// Rows of nested containers: how many indices reach a float from a variable, known from a
/// type (`[[f64; 3]; N]`, `&mut [Vec<f64>]`, `Vec<[T; 2]>`: 2) or from the expression that
/// made the variable (`[[0.0; 2]; 2]`, `vec![vec![0.0; n]; m]`, a copy of another). A place
/// with fewer indices than that is a row: read as a copy of the row, not as a float.
impl Lowerer<'_> {
    /// The depth of floats in `ty`, if it is a nest of arrays, slices and `Vec`s of floats.
    pub(super) fn type_depth(&self, ty: &syn::Type) -> Option<usize> {
        match ty {
            syn::Type::Reference(r) => self.type_depth(&r.elem),
            syn::Type::Paren(p) => self.type_depth(&p.elem),
            syn::Type::Group(g) => self.type_depth(&g.elem),
            syn::Type::Array(a) => Some(self.type_depth(&a.elem)? + 1),
            syn::Type::Slice(s) => Some(self.type_depth(&s.elem)? + 1),
            syn::Type::Path(p) if p.qself.is_none() => {
                if self.sig.float_of(ty).is_some() {
                    return Some(0);
                }
                let last = p.path.segments.last()?;
                let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                    return None;
                };
                match (last.ident == "Vec", args.args.first()) {
                    (true, Some(syn::GenericArgument::Type(elem))) if args.args.len() == 1 => {
                        Some(self.type_depth(elem)? + 1)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The depth of floats in the value of `expr`, where its form says.
    fn expr_depth(&self, expr: &syn::Expr) -> Option<usize> {
        match strip(expr) {
            syn::Expr::Array(a) => Some(self.expr_depth(a.elems.first()?)? + 1),
            syn::Expr::Repeat(r) => Some(self.expr_depth(&r.expr)? + 1),
            syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                let tokens = &m.mac.tokens;
                let item = match syn::parse2::<syn::ExprRepeat>(quote!([#tokens])) {
                    Ok(repeat) => *repeat.expr,
                    Err(_) => syn::parse2::<syn::ExprArray>(quote!([#tokens]))
                        .ok()?
                        .elems
                        .into_iter()
                        .next()?,
                };
                Some(self.expr_depth(&item)? + 1)
            }
            syn::Expr::Path(p) => match self.lookup(&p.path.get_ident()?.to_string())? {
                Binding::Var(v) if self.is_aggregate(*v) => self.float_depth.get(v).copied(),
                _ => None,
            },
            syn::Expr::MethodCall(call)
                if call.args.is_empty() && (call.method == "clone" || call.method == "to_vec") =>
            {
                self.expr_depth(&call.receiver)
            }
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(_),
                ..
            }) => Some(0),
            e if self.is_float_expr(e) => Some(0),
            _ => None,
        }
    }

    /// Records the depth of floats in `var`, bound by `let` to `init` (typed `annot`).
    pub(super) fn note_depth(&mut self, var: VarId, annot: Option<&syn::Type>, init: &syn::Expr) {
        if !self.is_aggregate(var) || self.float_depth.contains_key(&var) {
            return;
        }
        let depth = match annot {
            Some(ty) => self.type_depth(ty),
            None => self.expr_depth(init),
        };
        if let Some(depth) = depth.filter(|&d| d > 1) {
            self.float_depth.insert(var, depth);
        }
    }

    /// Whether `place` is a float of a nested container of floats (`q[i][j]` of a
    /// `[[f64; 3]; 3]`).
    pub(super) fn reaches_float(&self, place: &Place) -> bool {
        let Some(&depth) = self.float_depth.get(&place.root) else {
            return false;
        };
        place.steps.len() == depth && place.steps.iter().all(|s| matches!(s, Step::Index(_)))
    }

    /// How many indices are left to reach a float from `place`, when it is a row.
    fn rows_left(&self, place: &Place) -> Option<usize> {
        let depth = *self.float_depth.get(&place.root)?;
        let all_indices = place.steps.iter().all(|s| matches!(s, Step::Index(_)));
        (all_indices && place.steps.len() < depth).then(|| depth - place.steps.len())
    }
}
