//! The shapes of call results: a scalar, an array, or a tuple taken apart by `let`.
//!
//! The macro does not see a callee's return type, so it reads the shape from the caller's
//! code: `let out = g(v);` is an array when the statements after it index or iterate `out`,
//! or the `let` names an array type, or the function returns it as its array result (a `let`
//! that names `[T; N]` makes it a fixed-size array, whatever the callee); it is an aggregate
//! when they read a named field or call a method of it, index it twice (`out[i][j]`), only
//! borrow it (`h(&out)`: an aggregate's code serves an array's too, whose adjoint is itself an
//! `Adjoint`), the call is a constructor (`Point::new(..)`), or the `let` names a struct or
//! nested array type; and
//! `let (a, b) = g(v);` is a tuple whose parts are variables of their own
//! ([`Rhs::Part`]). A wrong guess cannot go unnoticed: the generated code then does not
//! type-check, and the first error is at the call (`expect_result`, `expect_array`).
//!
//! ```text
//! let (s, w) = g(x);          let __t0 = call g(x);     // parts: [s, w]
//!                             let s = __t0.0;
//!                             let w = __t0.1;           // w is indexed below: an array
//! ```

use syn::visit::Visit;

use super::*;
use crate::ir::{ArrayInfo, Shape};

/// What the statements after `let PAT = g(..);` say about the call's result.
#[derive(Clone, Debug)]
pub(super) enum ResultShape {
    /// `let out = g(..)` with `out` used as an array; the length `N` when the `let` names
    /// the type `[T; N]` (the result is then a fixed-size array, whatever the callee).
    Array(Option<proc_macro2::TokenStream>),
    /// `let p = g(..)` with `p` used as an aggregate (`p.pos[0]`, `p.energy()`), or
    /// annotated with a type of one.
    Aggregate,
    /// `let (a, b, ..) = g(..)`: whether each part is used as an array.
    Parts(Vec<bool>),
    /// `let done: bool = step(&mut x, ..)` (or an integer type): a result without
    /// derivatives, which a callee returns beside its `&mut` outputs.
    Inactive(Ty),
}

impl Lowerer<'_> {
    /// Before lowering `stmt`, the `k`-th of `stmts`: when it binds the result of a call,
    /// the shape its uses in the rest of `stmts` give that result.
    pub(super) fn expect_result_shape(&mut self, stmts: &[syn::Stmt], k: usize) {
        self.result_shape = None;
        // The call that is the result of a function returning a struct.
        if let (syn::Stmt::Expr(expr, None), Some(result)) = (&stmts[k], self.struct_result) {
            if std::ptr::eq(strip(expr), result) {
                self.result_shape = Some(ResultShape::Aggregate);
                return;
            }
        }
        let syn::Stmt::Local(local) = &stmts[k] else {
            return;
        };
        let Some(init) = &local.init else { return };
        let rest = &stmts[k + 1..];
        // `let old = b.pos; .. old.y`: a copy of a part used as a struct.
        if let (syn::Pat::Ident(p), syn::Expr::Field(_)) = (&local.pat, strip(&init.expr)) {
            if used_as_aggregate(rest, &p.ident) {
                self.result_shape = Some(ResultShape::Aggregate);
            }
            return;
        }
        // (`a + b` on structs of the user's is a method's result too: `user_operator`.)
        if !matches!(&*init.expr, syn::Expr::Call(_) | syn::Expr::MethodCall(_))
            && self.user_operator(&init.expr).is_none()
        {
            return;
        }
        let (pat, annot) = match &local.pat {
            syn::Pat::Type(typed) => (&*typed.pat, Some(&*typed.ty)),
            pat => (pat, None),
        };
        self.result_shape = match pat {
            syn::Pat::Ident(_) if annot.is_some_and(|ty| inactive_param_ty(ty) != Ty::Other) => {
                annot.map(|ty| ResultShape::Inactive(inactive_param_ty(ty)))
            }
            syn::Pat::Ident(p) => {
                // `Point::new(..)`, `Point::from_polar(..)`: by convention, a value of the type.
                let constructed = is_constructor_call(&init.expr);
                let array = match annot {
                    Some(ty) => is_array_type(ty) && !is_nested_array_type(ty),
                    None => match used_as_array(rest, &p.ident) {
                        ArrayUse::None | ArrayUse::Nested => false,
                        ArrayUse::Array => true,
                        // `&p` alone may pass an array or a struct: taken for an aggregate,
                        // whose code serves both (`nll(&p, x)`).
                        ArrayUse::Borrowed => false,
                    },
                };
                let aggregate = match annot {
                    Some(ty) => {
                        is_nested_array_type(ty)
                            || (!is_array_type(ty)
                                && self.sig.float_of(ty).is_none()
                                && !crate::parse::is_inactive_type(ty))
                    }
                    None => {
                        used_as_aggregate(rest, &p.ident)
                            || matches!(
                                used_as_array(rest, &p.ident),
                                ArrayUse::Nested | ArrayUse::Borrowed
                            )
                            || constructed
                            || (self.passes_on_aggregates()
                                && matches!(&*init.expr, syn::Expr::Call(c) if self.companion_call(c, true))
                                && only_passed_on(rest, &p.ident, &|c: &syn::ExprCall| {
                                    self.companion_call(c, false)
                                }))
                    }
                };
                if array {
                    Some(ResultShape::Array(annot.and_then(fixed_len)))
                } else {
                    aggregate.then_some(ResultShape::Aggregate)
                }
            }
            syn::Pat::Tuple(t) => Some(ResultShape::Parts(
                t.elems
                    .iter()
                    .map(|e| match e {
                        syn::Pat::Ident(p) => used_as_array(rest, &p.ident) != ArrayUse::None,
                        syn::Pat::Type(typed) => {
                            is_array_type(&typed.ty)
                                || matches!(&*typed.pat, syn::Pat::Ident(p)
                                    if used_as_array(rest, &p.ident) != ArrayUse::None)
                        }
                        _ => false,
                    })
                    .collect(),
            )),
            _ => None,
        };
    }

    /// Whether a call's result passed on whole may be taken for an aggregate (see
    /// `only_passed_on`): in reverse mode (forward mode has no aggregates), in functions
    /// without function arguments. In loops and closures too: where such a result is kept for
    /// the reverse sweep, a float is kept unboxed (`ValueStack::push_any`).
    pub(super) fn passes_on_aggregates(&self) -> bool {
        !self.forward && self.sig.functions.is_empty()
    }

    /// Whether `call` passes a function or a closure (`apply(sq, x)`, `apply(&f, x)`,
    /// `apply(|t| t * t, x)`): such callees' results and arguments take the float guess. A
    /// name bound to nothing is a function when `bound` (the call is lowered next), and may
    /// be a variable bound later otherwise.
    pub(super) fn passes_a_function(&self, call: &syn::ExprCall, bound: bool) -> bool {
        call.args.iter().any(|arg| {
            let mut arg = strip(arg);
            while let syn::Expr::Reference(r) = arg {
                arg = strip(&r.expr);
            }
            match arg {
                syn::Expr::Closure(_) => true,
                syn::Expr::Path(p) => match p.path.get_ident() {
                    Some(ident) => match self.lookup(&ident.to_string()) {
                        Some(Binding::Var(v)) => self.vars[*v]
                            .param
                            .is_some_and(|i| self.sig.params[i].function.is_some()),
                        Some(_) => true,
                        None => bound,
                    },
                    None => true,
                },
                _ => false,
            }
        })
    }

    /// The type of the result of a call about to be bound (see `expect_result_shape`), or of
    /// the call of `callee` anywhere when it is a constructor (`Point::new(..)` as a struct
    /// field's value or an argument).
    pub(super) fn call_result_ty(&mut self, callee: &proc_macro2::TokenStream) -> Option<Ty> {
        let shape = match self.result_shape.take() {
            Some(shape) => shape,
            None if syn::parse2::<syn::Path>(callee.clone())
                .is_ok_and(|p| is_constructor_path(&p)) =>
            {
                ResultShape::Aggregate
            }
            None => return None,
        };
        match shape {
            ResultShape::Array(None) => Some(array_like(None)),
            ResultShape::Array(Some(len)) => Some(Ty::Array(ArrayInfo {
                elem: None,
                shape: Shape::Fixed(len),
                agg: false,
            })),
            ResultShape::Aggregate => Some(Ty::Array(ArrayInfo {
                elem: None,
                shape: Shape::Like(usize::MAX),
                agg: true,
            })),
            // A tuple: typed by rustc, reached through its parts.
            ResultShape::Parts(arrays) => {
                self.pending_parts = Some(arrays);
                Some(Ty::Other)
            }
            ResultShape::Inactive(ty) => Some(ty),
        }
    }

    /// Points the shape of an array result just defined at itself (`zeros_like(&out)`).
    pub(super) fn settle_result_shape(&mut self, v: VarId) {
        if let Ty::Array(info) = &mut self.vars[v].ty {
            if matches!(info.shape, Shape::Like(usize::MAX)) {
                info.shape = Shape::Like(v);
            }
        }
    }

    /// `let (a, b) = g(..);`: binds each name to a part of the call's result `tuple`.
    /// Returns false when `value` is not such a result.
    pub(super) fn bind_parts(
        &mut self,
        tuple: &syn::PatTuple,
        value: &Value,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let Value::Op(Operand::Var(t)) = value else {
            return false;
        };
        let Some(arrays) = self.pending_parts.take() else {
            return false;
        };
        if !self.call_results.contains(t) || arrays.len() != tuple.elems.len() {
            return false;
        }
        let t = *t;
        let mut parts = Vec::new();
        for (k, (pat, array)) in tuple.elems.iter().zip(arrays).enumerate() {
            let (pat, annot) = match pat {
                syn::Pat::Type(typed) => (&*typed.pat, Some((*typed.ty).clone())),
                pat => (pat, None),
            };
            let span = pat.span();
            let ty = if array {
                array_like(None)
            } else {
                Ty::Float(annot.as_ref().and_then(|t| self.sig.float_of(t)))
            };
            let Operand::Var(part) = self.let_temp(out, Rhs::Part(t, k), ty, span) else {
                continue;
            };
            if let Ty::Array(info) = &mut self.vars[part].ty {
                info.shape = Shape::Like(part);
            }
            parts.push(part);
            match pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    self.rename_temp(part, &p.ident, p.mutability.is_some());
                    self.bind(&p.ident, Binding::Var(part));
                }
                syn::Pat::Wild(_) => {}
                other => self.cx.error(
                    other,
                    "#[reverse] takes the result of a call apart into names (`let (a, b) = \
                     g(..);`); bind this part to a name",
                ),
            }
        }
        for stmt in out.iter_mut().rev() {
            if let StmtKind::Let {
                var,
                rhs: Rhs::Call(call),
                ..
            } = &mut stmt.kind
            {
                if *var == t {
                    call.parts = parts;
                    break;
                }
            }
        }
        true
    }

    /// The function's array result is the result of a call (`let out = g(v); out`, or
    /// `g(v)` itself): the call returns an array.
    pub(super) fn array_result(&mut self, v: VarId) -> bool {
        if !self.call_results.contains(&v) || !matches!(self.vars[v].ty, Ty::Float(None)) {
            return false;
        }
        self.vars[v].ty = array_like(Some(v));
        true
    }
}

/// An array whose adjoint has the shape of the variable `like` (set later when `None`).
fn array_like(like: Option<VarId>) -> Ty {
    Ty::Array(ArrayInfo {
        elem: None,
        shape: Shape::Like(like.unwrap_or(usize::MAX)),
        agg: false,
    })
}

/// The length `N` of the annotation `[T; N]`.
fn fixed_len(ty: &syn::Type) -> Option<proc_macro2::TokenStream> {
    match ty {
        syn::Type::Array(a) => Some(quote::ToTokens::to_token_stream(&a.len)),
        _ => None,
    }
}

/// `[f64; N]`, `Vec<f64>` (and references to them): an array annotation.
fn is_array_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(_) | syn::Type::Slice(_) => true,
        syn::Type::Reference(r) => is_array_type(&r.elem),
        syn::Type::Paren(p) => is_array_type(&p.elem),
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Vec"),
        _ => false,
    }
}

/// `[[f64; N]; M]`, `Vec<Vec<f64>>`, `Vec<[f64; N]>` (and references to them): a nested
/// container, whose result is an aggregate.
fn is_nested_array_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(a) => is_array_type(&a.elem),
        syn::Type::Slice(s) => is_array_type(&s.elem),
        syn::Type::Reference(r) => is_nested_array_type(&r.elem),
        syn::Type::Paren(p) => is_nested_array_type(&p.elem),
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident == "Vec"
                && matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                    if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(t) if is_array_type(t))))
        }),
        _ => false,
    }
}

/// Whether `expr` is `name`, in parentheses or behind `&` (and `&mut` if `mutable`).
fn is_name(expr: &syn::Expr, name: &syn::Ident, mutable: bool) -> bool {
    match expr {
        syn::Expr::Path(p) => p.path.is_ident(name),
        syn::Expr::Paren(p) => is_name(&p.expr, name, mutable),
        syn::Expr::Reference(r) if mutable || r.mutability.is_none() => {
            is_name(&r.expr, name, mutable)
        }
        _ => false,
    }
}

/// Whether `expr` calls a constructor of a type of the user's: `Type::new(..)`,
/// `Type::default()`, `Type::new_*(..)`, `Type::from_*(..)`, `Type::with_*(..)` (`Self` too), of a type named in
/// upper camel case that is not a container of the standard library or one of `nalgebra`'s
/// matrix types (whose constructors are the runtime's rules).
fn is_constructor_call(expr: &syn::Expr) -> bool {
    let syn::Expr::Call(call) = super::strip(expr) else {
        return false;
    };
    let syn::Expr::Path(path) = super::strip(&call.func) else {
        return false;
    };
    path.qself.is_none() && is_constructor_path(&path.path)
}

/// Whether `path` names a constructor of a type of the user's (see [`is_constructor_call`]).
pub(super) fn is_constructor_path(path: &syn::Path) -> bool {
    let segments = &path.segments;
    let n = segments.len();
    if n < 2 {
        return false;
    }
    let (ty, name) = (
        segments[n - 2].ident.to_string(),
        segments[n - 1].ident.to_string(),
    );
    let constructor = name == "new"
        || name == "default"
        || ["new_", "from_", "with_"]
            .iter()
            .any(|p| name.starts_with(p));
    let std = matches!(
        ty.as_str(),
        "Vec" | "Box" | "Rc" | "Arc" | "String" | "Option" | "Result" | "VecDeque" | "HashMap"
    );
    constructor && ty.starts_with(char::is_uppercase) && !std && !super::linalg::is_matrix_type(&ty)
}

/// Whether `expr` makes a struct of the user's: a struct expression or a constructor call
/// (`P2::default()`, `P2::new(0.0, 1.0)`, see `results`).
pub(super) fn is_struct_value(expr: &syn::Expr) -> bool {
    match strip(expr) {
        syn::Expr::Struct(_) => true,
        syn::Expr::Call(call) => matches!(&*call.func,
            syn::Expr::Path(p) if is_constructor_path(&p.path)),
        _ => false,
    }
}

/// Whether `stmts` read a named field of `name` (`p.pos[0]`) or call a method on it that is
/// not a float intrinsic (`p.energy()`): `name` is an aggregate.
fn used_as_aggregate(stmts: &[syn::Stmt], name: &syn::Ident) -> bool {
    struct Finder<'a> {
        name: &'a syn::Ident,
        found: bool,
    }
    impl Finder<'_> {
        fn is_name(&self, expr: &syn::Expr) -> bool {
            is_name(expr, self.name, true)
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_field(&mut self, e: &'ast syn::ExprField) {
            self.found |= matches!(e.member, syn::Member::Named(_)) && self.is_name(&e.base);
            syn::visit::visit_expr_field(self, e);
        }
        fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
            let method = e.method.to_string();
            self.found |= self.is_name(&e.receiver)
                && crate::rules::lookup(&method).is_none()
                && !matches!(method.as_str(), "clone" | "to_owned" | "into");
            syn::visit::visit_expr_method_call(self, e);
        }
    }
    let mut finder = Finder { name, found: false };
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    finder.found
}

/// Whether every use of `name` in `stmts` passes it whole to a function (`norm(c)`), which
/// may take an array or a struct as well as a float: taken for an aggregate, whose code
/// serves all three (a float's adjoint is an `Adjoint` too). A use in arithmetic makes it a
/// float.
fn only_passed_on(
    stmts: &[syn::Stmt],
    name: &syn::Ident,
    companion_call: &dyn Fn(&syn::ExprCall) -> bool,
) -> bool {
    struct Finder<'a> {
        name: &'a syn::Ident,
        companion_call: &'a dyn Fn(&syn::ExprCall) -> bool,
        uses: usize,
        passed: usize,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
            self.uses += usize::from(e.path.is_ident(self.name));
        }
        fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
            if (self.companion_call)(e) {
                let passed = e
                    .args
                    .iter()
                    .filter(|a| is_name(a, self.name, false))
                    .count();
                self.passed += passed;
            }
            syn::visit::visit_expr_call(self, e);
        }
    }
    let mut finder = Finder {
        name,
        companion_call,
        uses: 0,
        passed: 0,
    };
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    finder.uses > 0 && finder.uses == finder.passed
}

/// How the statements after `let name = g(..);` use `name` as an array.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ArrayUse {
    /// Not at all.
    None,
    /// Only borrowed (`&name`), as a struct would be too.
    Borrowed,
    /// Indexed, iterated, or its length taken.
    Array,
    /// Indexed twice (`c[i][j]`): a nested container, read as an aggregate.
    Nested,
}

/// Whether `stmts` index `name`, iterate it or take its length, or only borrow it (`&name`).
fn used_as_array(stmts: &[syn::Stmt], name: &syn::Ident) -> ArrayUse {
    struct Finder<'a> {
        name: &'a syn::Ident,
        found: ArrayUse,
    }
    impl Finder<'_> {
        fn saw(&mut self, yes: bool, how: ArrayUse) {
            if yes {
                self.found = self.found.max(how);
            }
        }
    }
    impl Finder<'_> {
        fn is_name(&self, expr: &syn::Expr) -> bool {
            is_name(expr, self.name, false)
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
            let yes = self.is_name(&e.expr);
            self.saw(yes, ArrayUse::Array);
            let nested = matches!(super::strip(&e.expr), syn::Expr::Index(inner) if self.is_name(&inner.expr));
            self.saw(nested, ArrayUse::Nested);
            syn::visit::visit_expr_index(self, e);
        }
        fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
            const ARRAY_METHODS: &[&str] = &[
                "iter",
                "len",
                "into_iter",
                "to_vec",
                "first",
                "last",
                "is_empty",
                "chunks",
                "windows",
                "split_at",
            ];
            let yes = self.is_name(&e.receiver) && ARRAY_METHODS.iter().any(|m| e.method == m);
            self.saw(yes, ArrayUse::Array);
            syn::visit::visit_expr_method_call(self, e);
        }
        fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
            let yes = self.is_name(&e.expr);
            self.saw(yes, ArrayUse::Array);
            syn::visit::visit_expr_for_loop(self, e);
        }
        // `let [a, b] = out;`
        fn visit_local(&mut self, l: &'ast syn::Local) {
            let slice = matches!(&l.pat, syn::Pat::Slice(_));
            let yes = slice && l.init.as_ref().is_some_and(|i| self.is_name(&i.expr));
            self.saw(yes, ArrayUse::Array);
            syn::visit::visit_local(self, l);
        }
        // `&out` passes an array; `&mut m` passes a scalar as often (`bump(&mut m, x)`), and
        // an array result is rarely written: taken for a scalar.
        fn visit_expr_reference(&mut self, e: &'ast syn::ExprReference) {
            let yes = e.mutability.is_none() && self.is_name(&e.expr);
            self.saw(yes, ArrayUse::Borrowed);
            syn::visit::visit_expr_reference(self, e);
        }
    }
    let mut finder = Finder {
        name,
        found: ArrayUse::None,
    };
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    finder.found
}
