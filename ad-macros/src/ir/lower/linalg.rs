//! Arithmetic on aggregates (`nalgebra`'s vectors and matrices): calls of the runtime's rules.
//!
//! An arithmetic operator with an aggregate operand, and the methods `.dot(..)`, `.cross(..)`,
//! `.norm()`, `.norm_squared()` and `.transpose()` of an aggregate, become a [`Rhs::Call`] of
//! the function of the same name in `::revad::__private::linalg`, reached through its split
//! companions like an associated function (`linalg::__ad_fwd_mul`, `linalg::__ad_rev_mul`).
//! The runtime knows the rule of each operation for each type (`revad_runtime::linalg`); an
//! operation it has no rule for does not compile, at the operation.
//!
//! ```text
//! // Before                          // After
//! let y = (m * v).dot(&w);           let __t0 = call ::revad::__private::linalg::mul(m, v);
//!                                    let y = call ::revad::__private::linalg::dot(__t0, &w);
//! ```
//!
//! The result of an operation that returns a matrix is an aggregate (its elements are places,
//! `c[0]`; it can be returned); `.dot`, `.norm` and `.norm_squared` return a float.
//!
//! A matrix built from its entries (`Vector3::new(x, y, z)`, `Matrix2::new(a, b, c, d)`) is the
//! runtime's rule `linalg::Entries::<Vector3<_>>::new(x, y, z)`, whose result is an aggregate
//! too: `lower_linalg_constructor`.

use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;

use super::{strip, Binding, Lowerer, Value};
use crate::ir::{
    ArrayInfo, BinOp, Call, Callee, CalleeKind, Operand, Path, Rhs, Shape, Stmt, Ty, VarId,
};

/// The methods of a matrix with a rule: name, number of arguments besides the receiver, and
/// whether the result is a matrix.
const METHODS: &[(&str, usize, bool)] = &[
    ("dot", 1, false),
    ("cross", 1, true),
    ("norm", 0, false),
    ("norm_squared", 0, false),
    ("transpose", 0, true),
];

/// Whether `name` is a method of [`METHODS`] whose result is a matrix (`cross`,
/// `transpose`): called as a method (on a value whose type the macro cannot see), its result
/// is taken for an aggregate, as the rule's is.
pub(super) fn matrix_valued_method(name: &str) -> bool {
    METHODS.iter().any(|&(n, _, matrix)| n == name && matrix)
}

/// One argument of a rule's call: its operand, whether it is passed by `&`, and the path to
/// it when it is a part of an aggregate.
type Arg = (Operand, bool, Option<Path>);

/// The message for an operator on a struct of the user's.
const USER_OPERATOR: &str = "#[reverse] differentiates operators on floats, on `nalgebra` \
     vectors and matrices, and on a struct of yours with a name on the left (`a + b`, `v * k`) \
     whose operator impl has #[revad::reverse] (`#[revad::reverse] impl Add for V2`, with \
     #[reverse] on its `add`); bind the value to a name first, or write the arithmetic on its \
     fields";

impl Lowerer<'_> {
    /// `a + b`, `v * k`, `-v` on a struct of the user's (`a` a name bound to one, or itself
    /// such an operation): the operator's method (`add`, `mul`, `neg`), which
    /// `#[revad::reverse] impl Add for V2` differentiates, called as any method
    /// (`a.add(b)`). `None` for an operation on floats, `nalgebra` matrices or values the
    /// macro cannot tell.
    pub(super) fn user_operator(&self, expr: &syn::Expr) -> Option<syn::ExprMethodCall> {
        self.user_operator_of(expr, false)
    }

    /// [`user_operator`](Self::user_operator) of an operation whose result has a field read
    /// (`field`) or a method called (`method`) that no float has (`(a.pos - b.pos).norm()`,
    /// `(p.q + r.q).x`): then a part of an aggregate on the left (`a.pos`, `ps[i].pos`) is a
    /// struct too. With the feature `nalgebra`, where a part may be a matrix, only for a
    /// method that no matrix has a rule for.
    pub(super) fn struct_operator(
        &self,
        expr: &syn::Expr,
        method: Option<&str>,
    ) -> Option<syn::ExprMethodCall> {
        let parts = match method {
            Some(name) => {
                !METHODS.iter().any(|&(n, _, _)| n == name) || !cfg!(feature = "nalgebra")
            }
            None => !cfg!(feature = "nalgebra"),
        };
        self.user_operator_of(expr, parts)
    }

    fn user_operator_of(&self, expr: &syn::Expr, parts: bool) -> Option<syn::ExprMethodCall> {
        let (method, receiver, arg) = match strip(expr) {
            syn::Expr::Binary(b) => {
                let method = match b.op {
                    syn::BinOp::Add(_) => "add",
                    syn::BinOp::Sub(_) => "sub",
                    syn::BinOp::Mul(_) => "mul",
                    syn::BinOp::Div(_) => "div",
                    _ => return None,
                };
                (method, &*b.left, Some(&*b.right))
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => ("neg", &*u.expr, None),
            _ => return None,
        };
        let part = parts
            && matches!(strip(receiver), syn::Expr::Field(_) | syn::Expr::Index(_))
            && self.is_place_expr(receiver);
        if !part && !self.is_user_struct_expr(receiver) {
            // `k * v` with the struct on the right only: `v.revad_left_mul(k)`, the method that
            // `#[revad::reverse] impl Mul<V2> for f64` gives the struct
            // (`driver::traits::left_operator_impl`).
            let syn::Expr::Binary(b) = strip(expr) else {
                return None;
            };
            if !self.is_float_operand(&b.left) || !self.is_user_struct_expr(&b.right) {
                return None;
            }
            let span = b.op.span();
            let method = syn::Ident::new(&crate::ir::names::left_operator_method(method), span);
            let receiver: syn::Expr = match self.user_operator_of(&b.right, parts) {
                Some(call) => syn::Expr::MethodCall(call),
                None => match strip(&b.right) {
                    syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                        strip(&u.expr).clone()
                    }
                    right => right.clone(),
                },
            };
            let left = &b.left;
            return Some(syn::parse_quote_spanned!(span=> #receiver.#method(#left)));
        }
        let span = match strip(expr) {
            syn::Expr::Binary(b) => b.op.span(),
            _ => expr.span(),
        };
        let method = syn::Ident::new(method, span);
        let args = arg.into_iter();
        // (An operator on the left is a call too: `(-(c - a)) * k` is `c.sub(a).neg().mul(k)`,
        // a method of a method's result.)
        let receiver: syn::Expr = match self.user_operator_of(receiver, parts) {
            Some(call) => syn::Expr::MethodCall(call),
            // (A name, or `*o` of a reference to one, which the method call dereferences:
            // `is_user_struct_expr`.)
            None => match strip(receiver) {
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                    strip(&u.expr).clone()
                }
                receiver => receiver.clone(),
            },
        };
        Some(syn::parse_quote_spanned!(span=> #receiver.#method(#(#args),*)))
    }

    /// `f(a) + b` with a struct of the user's on the right only and on the left a value the
    /// macro cannot tell (a call's result; a float on the left is `user_operator`'s): an
    /// error at the operator, which says to bind the value first. Whether it was one.
    pub(super) fn rejects_struct_on_the_right(&self, b: &syn::ExprBinary) -> bool {
        if !arithmetic(&b.op)
            || self.is_user_struct_expr(&b.left)
            || !self.is_user_struct_expr(&b.right)
        {
            return false;
        }
        self.cx.error_at(b.op.span(), USER_OPERATOR);
        true
    }

    /// Whether `expr` is a float by its form: a literal, a name bound to a float, a float
    /// element or field (`w[i]`, `self.dt`), an intrinsic of one (`k.sqrt()`), or arithmetic
    /// of these: the left operand of `k * v`.
    fn is_float_operand(&self, expr: &syn::Expr) -> bool {
        match strip(expr) {
            syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                matches!(self.lookup(&i.to_string()), Some(Binding::Var(v))
                    if self.vars[*v].ty.is_float())
            }),
            syn::Expr::Field(f) => {
                matches!(f.member, syn::Member::Named(_)) && self.is_place_expr(expr)
            }
            syn::Expr::Index(i) => {
                !self.is_place_expr(expr)
                    && self.is_float_expr(expr)
                    && !self.is_aggregate_var(&i.expr)
            }
            syn::Expr::Unary(u) => {
                matches!(u.op, syn::UnOp::Neg(_)) && self.is_float_operand(&u.expr)
            }
            syn::Expr::Binary(b) => {
                arithmetic(&b.op)
                    && self.is_float_operand(&b.left)
                    && self.is_float_operand(&b.right)
            }
            syn::Expr::MethodCall(m) => {
                crate::rules::lookup(&m.method.to_string()).is_some()
                    && self.is_float_operand(&m.receiver)
            }
            syn::Expr::Cast(_) => true,
            _ => false,
        }
    }

    /// Whether `expr` is a struct of the user's: a name bound to an aggregate that is not a
    /// `nalgebra` matrix (a parameter of another type, a struct literal's value; without the
    /// feature `nalgebra`, any), or an operator whose left operand is one.
    fn is_user_struct_expr(&self, expr: &syn::Expr) -> bool {
        match strip(expr) {
            syn::Expr::Path(p) => {
                let Some(Binding::Var(v)) =
                    p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
                else {
                    return false;
                };
                let v = *v;
                if !self.is_aggregate(v) || !matches!(self.vars[v].ty, Ty::Array(_)) {
                    return false;
                }
                // (A copy, `let mut p = p0;`, has the shape of what it copies.)
                let root = self.shape_root(v);
                if self.user_structs.contains(&v)
                    || self.user_structs.contains(&root)
                    || !cfg!(feature = "nalgebra")
                {
                    return true;
                }
                // (A parameter's type says; a call's result may be a matrix.)
                self.vars[root].param.is_some_and(|i| {
                    let ty = match &self.sig.params[i].ty {
                        syn::Type::Reference(r) => &*r.elem,
                        ty => ty,
                    };
                    p.path.is_ident("self")
                        || matches!(ty, syn::Type::Path(_)) && !names_a_matrix(ty)
                })
            }
            // (`ps[i]` of `ps: &[V2]`, an element of a sequence of structs.)
            syn::Expr::Index(i) if self.is_place_expr(expr) => {
                let syn::Expr::Path(p) = strip(&i.expr) else {
                    return false;
                };
                let Some(Binding::Var(v)) =
                    p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
                else {
                    return false;
                };
                let root = self.shape_root(*v);
                self.user_structs.contains(&root)
                    || self.vars[root].param.is_some_and(|k| {
                        element_type(&self.sig.params[k].ty).is_some_and(|elem| {
                            matches!(elem, syn::Type::Path(_))
                                && self.sig.float_of(elem).is_none()
                                && !names_a_matrix(elem)
                        })
                    })
            }
            syn::Expr::Binary(b) => arithmetic(&b.op) && self.is_user_struct_expr(&b.left),
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => self.is_user_struct_expr(&u.expr),
                // (`*o` for `o: &V2`.)
                syn::UnOp::Deref(_) => {
                    matches!(strip(&u.expr), syn::Expr::Path(_))
                        && self.is_user_struct_expr(&u.expr)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The variable whose shape `v`'s is (`Shape::Like`), followed to the end: a parameter
    /// or a struct expression's value for a copy of one.
    fn shape_root(&self, mut v: VarId) -> VarId {
        for _ in 0..self.vars.len() {
            let next = match &self.vars[v].ty {
                Ty::Array(ArrayInfo {
                    shape: Shape::Like(w),
                    ..
                }) => *w,
                _ => break,
            };
            if next == v || next >= self.vars.len() {
                break;
            }
            v = next;
        }
        v
    }

    /// `a op b` where `a` or `b` is an aggregate: `let t = linalg::op(a, b);`, or `None` when
    /// neither is.
    pub(super) fn lower_linalg_binary(
        &mut self,
        op: BinOp,
        a: &Operand,
        b: &Operand,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if !self.is_aggregate_operand(a) && !self.is_aggregate_operand(b) {
            return None;
        }
        if [a, b].iter().any(|op| self.is_user_struct(op)) {
            self.cx.error_at(span, USER_OPERATOR);
            return Some(Value::Error);
        }
        let name = match op {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Rem => {
                self.cx.error_at(
                    span,
                    "`%` of a vector or matrix is not supported by #[reverse]; compute it \
                     element by element",
                );
                return Some(Value::Error);
            }
        };
        let args = vec![(a.clone(), false, None), (b.clone(), false, None)];
        Some(self.linalg_call(name, args, true, span, out))
    }

    /// `-a` for an aggregate `a`: `let t = linalg::neg(a);`, or `None` when `a` is not one.
    pub(super) fn lower_linalg_neg(
        &mut self,
        a: &Operand,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if !self.is_aggregate_operand(a) {
            return None;
        }
        if self.is_user_struct(a) {
            self.cx.error_at(span, USER_OPERATOR);
            return Some(Value::Error);
        }
        Some(self.linalg_call("neg", vec![(a.clone(), false, None)], true, span, out))
    }

    /// `recv.dot(&b)`, `recv.norm()`, .. on an aggregate receiver (a variable, a part of one,
    /// or the result of another operation): a call of the rule. `None` for any other method
    /// call, which lowering handles as before (nothing is lowered then).
    pub(super) fn lower_linalg_method(
        &mut self,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let name = call.method.to_string();
        let &(_, arity, matrix) = METHODS.iter().find(|(n, ..)| *n == name)?;
        if !cfg!(feature = "nalgebra") || call.args.len() != arity || call.turbofish.is_some() {
            return None;
        }
        // A part of a variable (`self.pos.dot(&w)`), or a variable not known to hold a matrix
        // (a struct of the user's, a call's result), whose type the macro cannot see: a method
        // call, which rustc resolves to the type's own method (the user's) or to the
        // runtime's rule for a matrix (`linalg::NormMethod`). A variable known to hold a
        // matrix (a parameter of a matrix type, an operation's result) calls the rule, whose
        // result type codegen names.
        let receiver_is_place = self.is_place_expr(&call.receiver);
        if receiver_is_place && !self.holds_a_matrix(&call.receiver) {
            return None;
        }
        let receiver_is_result = receiver_is_place
            || match strip(&call.receiver) {
                syn::Expr::Binary(_) | syn::Expr::Unary(_) => self.is_float_expr(&call.receiver),
                // (A method's result, `m.transpose().dot(&v)`, `u.scaled(k).dot(&w)`: bound
                // first, then a method call, `lower_method_of_a_result`.)
                // `Vector3::new(x, y, z).norm()`.
                syn::Expr::Call(c) => {
                    matches!(&*c.func, syn::Expr::Path(p) if p.qself.is_none() && constructed_matrix(&p.path).is_some())
                        && c.args
                            .iter()
                            .any(|a| self.is_float_expr(a) || self.is_place_expr(a))
                }
                _ => false,
            };
        if !receiver_is_result {
            return None;
        }
        let mut args = Vec::new();
        for (k, arg) in std::iter::once(&*call.receiver)
            .chain(call.args.iter())
            .enumerate()
        {
            let arg = match self.linalg_arg(arg, out) {
                Some(arg) => arg,
                None => return Some(Value::Error),
            };
            if k == 0 && !self.is_aggregate_operand(&arg.0) {
                // `(x * y).norm()` of floats: no such method.
                self.cx.error(
                    &call.method,
                    format!(
                        "`.{name}()` is differentiated on vectors and matrices (`nalgebra`'s, \
                         with the feature `nalgebra`); this receiver is a number"
                    ),
                );
                return Some(Value::Error);
            }
            args.push(arg);
        }
        Some(self.linalg_call(&name, args, matrix, call.method.span(), out))
    }

    /// An argument of a rule: a part of an aggregate by its path (`&b`, `p.pos`), or a value.
    fn linalg_arg(&mut self, arg: &syn::Expr, out: &mut Vec<Stmt>) -> Option<Arg> {
        if self.is_place_expr(arg) {
            let by_ref = matches!(strip(arg), syn::Expr::Reference(_));
            let place = self.place_expr(arg, out)?;
            let path = (!place.steps.is_empty()).then(|| Path(place.steps));
            return Some((Operand::Var(place.root), by_ref, path));
        }
        let inner = match strip(arg) {
            syn::Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            other => other,
        };
        match self.lower_expr(inner, out) {
            Value::Op(op) => Some((op, false, None)),
            Value::Error => None,
            _ => {
                self.cx.error(
                    arg,
                    "#[reverse] differentiates this operation on vectors, matrices and numbers; \
                     this argument is none of these",
                );
                None
            }
        }
    }

    /// Whether `expr` (maybe behind `&`) is a variable known to hold one of `nalgebra`'s
    /// matrices: a parameter whose type names a matrix type (`Vector3<f64>`, `&SMatrix<..>`),
    /// or the result of a rule or a matrix constructor.
    fn holds_a_matrix(&self, expr: &syn::Expr) -> bool {
        let mut expr = strip(expr);
        while let syn::Expr::Reference(r) = expr {
            expr = strip(&r.expr);
        }
        let syn::Expr::Path(p) = expr else {
            return false;
        };
        let Some(ident) = p.path.get_ident() else {
            return false;
        };
        let Some(super::Binding::Var(v)) = self.lookup(&ident.to_string()) else {
            return false;
        };
        let Some(k) = self.vars[*v].param else {
            return self.matrix_values.contains(v);
        };
        let mut ty = &self.sig.params[k].ty;
        while let syn::Type::Reference(r) = ty {
            ty = &r.elem;
        }
        matches!(ty, syn::Type::Path(path) if path.path.segments.last()
            .is_some_and(|last| is_matrix_type(&last.ident.to_string())))
    }

    /// Whether `op` is a variable holding a whole aggregate.
    fn is_aggregate_operand(&self, op: &Operand) -> bool {
        op.var().is_some_and(|v| self.is_aggregate(v))
    }

    /// Whether `op` is a value of a struct expression (see `Lowerer::user_structs`).
    fn is_user_struct(&self, op: &Operand) -> bool {
        op.var().is_some_and(|v| self.user_structs.contains(&v))
    }

    /// `Vector3::new(x, y, z)`, `Matrix2::new(a, b, c, d)`, `na::Matrix2x3::<f64>::new(..)`
    /// with a float among the arguments: `let t = linalg::Entries::<Vector3<_>>::new(x, y,
    /// z);`, the runtime's rule, whose reverse sweep gives each argument the entry of the
    /// result's adjoint in its place (the arguments are the entries row by row). `None` when
    /// `path` is not the constructor of one of `nalgebra`'s fixed-size matrix types (known by
    /// their names: `Vector1`..`Vector6`, `RowVector1`.., `Matrix1`.., `Matrix2x3`..,
    /// `SMatrix::<T, R, C>`, `SVector::<T, D>`).
    pub(super) fn lower_linalg_constructor(
        &mut self,
        call: &syn::ExprCall,
        path: &syn::Path,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if !cfg!(feature = "nalgebra") {
            return None;
        }
        let ty = constructed_matrix(path)?;
        if !call
            .args
            .iter()
            .any(|a| self.is_float_expr(a) || self.is_place_expr(a))
        {
            return None;
        }
        let mut args = Vec::new();
        for arg in &call.args {
            let Some(arg) = self.linalg_arg(arg, out) else {
                return Some(Value::Error);
            };
            if self.is_aggregate_operand(&arg.0) && arg.2.is_none() {
                self.cx.error(
                    &call.args[args.len()],
                    "the arguments of a matrix constructor are its entries, numbers; this one \
                     is a vector or matrix",
                );
                return Some(Value::Error);
            }
            args.push(arg);
        }
        let span = path.segments.last().map_or(path.span(), |s| s.ident.span());
        let callee = quote!(::revad::__private::linalg::Entries::<#ty>::new);
        let marker = syn::Ident::new(ENTRIES_MARKER, Span::call_site());
        Some(self.rule_call(callee, Some(marker), args, true, span, out))
    }

    /// `let t = ::revad::__private::linalg::name(args);` through the companions of `name`; `t`
    /// is an aggregate when `matrix`, a float otherwise.
    fn linalg_call(
        &mut self,
        name: &str,
        args: Vec<Arg>,
        matrix: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let ident = syn::Ident::new(name, span);
        let path = quote!(::revad::__private::linalg::#ident);
        self.rule_call(
            path,
            rule_marker(name, Span::call_site()),
            args,
            matrix,
            span,
            out,
        )
    }

    /// The callee `path`, a function of the runtime reached through its companions beside
    /// it (`__ad_fwd_NAME`, `__ad_rev_NAME`), registered once.
    pub(super) fn runtime_callee(
        &mut self,
        path: proc_macro2::TokenStream,
        marker: Option<syn::Ident>,
        arity: usize,
        span: Span,
    ) -> usize {
        let text = path.to_string();
        let known = self
            .callees
            .iter()
            .position(|c| c.path.to_string() == text && c.kind == CalleeKind::Associated);
        if let Some(i) = known {
            return i;
        }
        let alias = self.names.fresh("callee");
        self.callees.push(Callee {
            path,
            span,
            alias,
            arity,
            kind: CalleeKind::Associated,
            user: false,
            rule: marker,
        });
        self.callees.len() - 1
    }

    /// `let t = path(args);`, a rule of the runtime, through the companions of `path` (an
    /// associated function's beside it); `marker` names the type of its result (see
    /// [`Callee::rule`]).
    fn rule_call(
        &mut self,
        path: proc_macro2::TokenStream,
        marker: Option<syn::Ident>,
        args: Vec<Arg>,
        matrix: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let callee = self.runtime_callee(path, marker, args.len(), span);
        let n = args.len();
        let (mut operands, mut by_ref, mut paths) = (Vec::new(), Vec::new(), Vec::new());
        for (op, r, p) in args {
            operands.push(op);
            by_ref.push(r);
            paths.push(p);
        }
        let rhs = Rhs::Call(Call {
            callee,
            args: operands,
            by_ref,
            by_mut: vec![false; n],
            parts: Vec::new(),
            paths,
            method: false,
            closures: Vec::new(),
            receiver_old: None,
        });
        let ty = match matrix {
            // The shape of the result's adjoint is that of the result (set below).
            true => Ty::Array(ArrayInfo {
                elem: None,
                shape: Shape::Like(usize::MAX),
                agg: true,
            }),
            false => Ty::Float(None),
        };
        let result = self.let_temp(out, rhs, ty, span);
        if let (Operand::Var(v), true) = (&result, matrix) {
            self.matrix_values.push(*v);
        }
        if let Operand::Var(v) = result {
            if let Ty::Array(info) = &mut self.vars[v].ty {
                info.shape = Shape::Like(v);
            }
        }
        Value::Op(result)
    }
}

/// The marker of [`Lowerer::lower_linalg_constructor`]'s rule: the type of its result is
/// the matrix type in its path (`linalg::Entries::<Vector3<_>>::new` makes a `Vector3`).
pub(crate) const ENTRIES_MARKER: &str = "Entries";

/// The matrix type that `path` constructs from entries, when it is `Type::new` for one of
/// `nalgebra`'s fixed-size matrix types: the path to the type, with `<_>` for the float when
/// an alias is written without it (`Vector3` gives `Vector3<_>`, `na::Matrix2::<f32>` stays).
fn constructed_matrix(path: &syn::Path) -> Option<proc_macro2::TokenStream> {
    let n = path.segments.len();
    let last = path.segments.last()?;
    if n < 2 || last.ident != "new" || !last.arguments.is_empty() {
        return None;
    }
    let ty = &path.segments[n - 2];
    let name = ty.ident.to_string();
    let alias = is_matrix_alias(&name);
    let generic = is_generic_matrix(&name);
    let written = !ty.arguments.is_empty();
    if !(alias || generic && written) {
        return None;
    }
    let mut ty_path = path.clone();
    ty_path.segments.pop();
    let mut segments: Vec<syn::PathSegment> = ty_path
        .segments
        .into_pairs()
        .map(|p| p.into_value())
        .collect();
    if let Some(seg) = segments.last_mut() {
        if let syn::PathArguments::AngleBracketed(args) = &mut seg.arguments {
            // (In a type, `Vector3::<f64>` and `Vector3<f64>` are the same.)
            args.colon2_token = None;
        } else {
            seg.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote!(<_>));
        }
    }
    let leading = path.leading_colon;
    Some(quote!(#leading #(#segments)::*))
}

/// Whether `name` is one of `nalgebra`'s fixed-size aliases (`Vector3`, `RowVector2`,
/// `Matrix3`, `Matrix2x3`, up to 6).
fn is_matrix_alias(name: &str) -> bool {
    let dim = |d: &str| matches!(d, "1" | "2" | "3" | "4" | "5" | "6");
    match name
        .strip_prefix("RowVector")
        .or(name.strip_prefix("Vector"))
    {
        Some(d) => dim(d),
        None => match name.strip_prefix("Matrix") {
            Some(d) => match d.split_once('x') {
                Some((r, c)) => dim(r) && dim(c),
                None => dim(d),
            },
            None => false,
        },
    }
}

/// Whether `name` is one of `nalgebra`'s generic fixed-size matrix types.
fn is_generic_matrix(name: &str) -> bool {
    matches!(name, "SMatrix" | "SVector" | "RowSVector")
}

/// Whether `ty` names one of `nalgebra`'s matrix types (`Vector3<f64>`, `na::SMatrix<..>`),
/// with the feature `nalgebra`.
/// Whether `op` is `+`, `-`, `*` or `/`: an operator a struct of the user's may have.
fn arithmetic(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
    )
}

/// The element type of a sequence type: `T` of `&[T]`, `[T; N]`, `Vec<T>`, `&mut Vec<T>`.
fn element_type(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::Reference(r) => element_type(&r.elem),
        syn::Type::Slice(s) => Some(&s.elem),
        syn::Type::Array(a) => Some(&a.elem),
        syn::Type::Path(p) => match &p.path.segments.last()?.arguments {
            syn::PathArguments::AngleBracketed(args) if p.path.segments.last()?.ident == "Vec" => {
                match args.args.first()? {
                    syn::GenericArgument::Type(elem) => Some(elem),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn names_a_matrix(ty: &syn::Type) -> bool {
    cfg!(feature = "nalgebra")
        && matches!(ty, syn::Type::Path(p) if p.path.segments.last()
            .is_some_and(|s| is_matrix_type(&s.ident.to_string())))
}

/// Whether a type named `name` may be one of `nalgebra`'s matrices (an alias, a generic
/// matrix type, or `Matrix` itself).
pub(super) fn is_matrix_type(name: &str) -> bool {
    is_matrix_alias(name) || is_generic_matrix(name) || name == "Matrix"
}

/// The marker type of the runtime's rule `name` (`Mul` for `linalg::mul`): codegen names the
/// type of its result with it (`linalg::BinaryOutput<linalg::op::Mul, A, B>`), so that the
/// result can be kept on the value stack inside a loop. Recorded in the callee
/// ([`Callee::rule`]) when lowering creates it.
fn rule_marker(name: &str, span: Span) -> Option<syn::Ident> {
    let marker = match name {
        "add" => "Add",
        "sub" => "Sub",
        "mul" => "Mul",
        "div" => "Div",
        "dot" => "Dot",
        "cross" => "Cross",
        "neg" => "Neg",
        "norm" => "Norm",
        "norm_squared" => "NormSquared",
        "transpose" => "Transpose",
        _ => return None,
    };
    Some(syn::Ident::new(marker, span))
}
