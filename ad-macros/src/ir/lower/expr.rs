//! Lowering of expressions: each float operation becomes a `let` of a temporary.

use quote::{quote, ToTokens};
use syn::spanned::Spanned;

use super::{Binding, Lowerer, Value};
use crate::ir::Stmt as IrStmt;
use crate::ir::{
    ArrayInfo, AssignOp, BinOp, FloatTy, LitKind, Operand, Path, Rhs, Shape, Stmt, StmtKind, Ty,
    VarId,
};
use crate::parse::float_of;
use crate::rules;

impl Lowerer<'_> {
    /// Lowers `expr` to a value, emitting the statements that compute it into `out`. An
    /// expression whose lowering reported an error and produced no value is `Value::Error`,
    /// so that its uses report nothing more.
    pub(super) fn lower_expr(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) -> Value {
        let before = self.cx.count();
        match self.lower_expr_inner(expr, out) {
            Value::Unit if self.cx.count() > before => Value::Error,
            // A part of an aggregate used as a value (`t.0` of a zipped item): read it.
            Value::Place(place) => self.load(place, expr.span(), out),
            value => value,
        }
    }

    fn lower_expr_inner(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) -> Value {
        match expr {
            syn::Expr::Lit(lit) => Value::Op(literal(&lit.lit)),
            syn::Expr::Path(path) => self.lower_path(path, out),
            syn::Expr::Paren(p) => self.lower_expr(&p.expr, out),
            syn::Expr::Group(g) => self.lower_expr(&g.expr, out),
            syn::Expr::Unary(unary) => self.lower_unary(unary, out),
            syn::Expr::Binary(bin) => self.lower_binary(expr, bin, out),
            syn::Expr::MethodCall(call) => self.lower_method_call(expr, call, out),
            syn::Expr::Call(call) => self.lower_call(expr, call, out),
            syn::Expr::Cast(cast) => self.lower_cast(expr, cast, out),
            syn::Expr::Index(index) => self.lower_index(expr, index, out),
            syn::Expr::Field(field) => self.lower_field(expr, field, out),
            syn::Expr::Struct(s) => self.lower_struct(s, out),
            syn::Expr::Tuple(tuple) => {
                if tuple.elems.is_empty() {
                    return Value::Unit;
                }
                let items = tuple
                    .elems
                    .iter()
                    .map(|e| self.lower_expr(e, out))
                    .collect();
                Value::Tuple(items)
            }
            syn::Expr::Array(array) => self.lower_array(array, out),
            syn::Expr::Repeat(repeat) => self.lower_repeat(repeat, out),
            // `matches!(k, 1 | 2)`: a flag, computed as written.
            syn::Expr::Macro(mac) if super::rename::is_matches(&mac.mac) => {
                self.opaque_value(expr, Ty::Bool, out)
            }
            syn::Expr::Macro(mac) => match self.lower_inactive_vec(&mac.mac, out) {
                Some(value) => value,
                None => self.lower_macro(&mac.mac, out),
            },
            syn::Expr::Closure(closure) => self.make_closure(closure, out),
            // `&x[a..b]`, `&mut x[a..]`, `&x`: a view; `&W` of a constant: inactive.
            syn::Expr::Reference(r) => match self.lower_reference(expr, r, out) {
                Some(value) => value,
                None => {
                    self.unsupported(expr);
                    Value::Error
                }
            },
            syn::Expr::If(_)
            | syn::Expr::Match(_)
            | syn::Expr::Block(_)
            | syn::Expr::While(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Loop(_)
            | syn::Expr::Assign(_)
            | syn::Expr::Return(_)
            | syn::Expr::Break(_)
            | syn::Expr::Continue(_) => {
                let (value, jumps) = self.lower_expr_jumps(expr, out, true);
                if jumps.any() && !matches!(value, Value::Never) {
                    self.cx.error(
                        expr,
                        "`return`, `break` or `continue` inside an expression whose value is used \
                         is not supported by #[reverse]; assign the value to a variable instead",
                    );
                }
                value
            }
            _ => {
                self.unsupported(expr);
                Value::Error
            }
        }
    }

    /// Reports an expression outside the supported subset, saying what to write instead.
    fn unsupported(&self, expr: &syn::Expr) {
        // `?` in the function's own body (not in a closure): the function returns floats, so
        // rustc rejects it there, at the `?`, with its own error.
        if matches!(expr, syn::Expr::Try(_)) && self.closure_depth == 0 {
            self.cx.rustc_reports();
            return;
        }
        let (node, msg): (&dyn ToTokens, String) = match expr {
            syn::Expr::Unsafe(u) => (
                &u.unsafe_token,
                "`unsafe` blocks are not supported by #[reverse]; differentiable code must be \
                 safe Rust"
                    .into(),
            ),
            syn::Expr::Async(a) => (
                &a.async_token,
                "`async` blocks are not supported by #[reverse]".into(),
            ),
            syn::Expr::Await(a) => (
                &a.await_token,
                "`.await` is not supported by #[reverse]".into(),
            ),
            syn::Expr::Try(t) => (
                &t.question_token,
                "the `?` operator is not supported by #[reverse]; handle the error before \
                 calling the differentiated function"
                    .into(),
            ),
            syn::Expr::Reference(r) => (
                &r.and_token,
                "references are not supported here by #[reverse]; use the value directly".into(),
            ),
            syn::Expr::Range(r) => (
                r,
                "a range is only supported as the iterator of a `for` loop in #[reverse] code"
                    .into(),
            ),
            syn::Expr::Struct(s) => (
                &s.path,
                "struct expressions are not supported by #[reverse]; pass the fields as \
                 parameters"
                    .into(),
            ),
            syn::Expr::Let(l) => (&l.let_token, super::IF_LET.into()),
            other => (
                other,
                "this expression is not supported by #[reverse]".into(),
            ),
        };
        self.cx.error(node, msg);
    }

    fn lower_path(&mut self, path: &syn::ExprPath, out: &mut Vec<Stmt>) -> Value {
        if path.qself.is_none() {
            if let Some(ident) = path.path.get_ident() {
                match self.lookup(&ident.to_string()) {
                    Some(Binding::Var(v)) => return Value::Op(Operand::Var(*v)),
                    Some(Binding::Tuple(items)) => return binding_value(items),
                    Some(Binding::Closure(c)) => return Value::Closure(c.clone()),
                    Some(Binding::View(v)) => return Value::View(v.clone()),
                    Some(Binding::Place(place)) => {
                        let place = place.clone();
                        return self.load(place, path.span(), out);
                    }
                    Some(Binding::Poisoned) => return Value::Error,
                    Some(Binding::Chain(_)) => {
                        self.cx.error(path, super::BOUND_CHAIN);
                        return Value::Error;
                    }
                    None => {}
                }
            }
        }
        // A constant (`PI`, `N`, `f64::EPSILON`, `T::ZERO`): emitted as written.
        let kind = match self.sig.float_in_path(path.qself.as_ref(), &path.path) {
            Some(t) => LitKind::Float(Some(t)),
            None => LitKind::Unknown,
        };
        Value::Op(Operand::Lit(path.to_token_stream(), kind))
    }

    fn lower_unary(&mut self, unary: &syn::ExprUnary, out: &mut Vec<Stmt>) -> Value {
        let whole = syn::Expr::Unary(unary.clone());
        if let Some(call) = self.user_operator(&whole) {
            return self.lower_user_operator(&call, out);
        }
        match unary.op {
            syn::UnOp::Neg(minus) => match self.lower_expr(&unary.expr, out) {
                Value::Op(Operand::Lit(tokens, kind)) => {
                    Value::Op(Operand::Lit(quote!(#minus #tokens), kind))
                }
                Value::Op(op) => {
                    if let Some(value) = self.lower_linalg_neg(&op, unary.span(), out) {
                        return value;
                    }
                    let ty = self.ty_of(&op);
                    Value::Op(self.let_temp(out, Rhs::Neg(op), ty, unary.span()))
                }
                other => {
                    self.cx.error(unary, "unary minus needs a number");
                    other
                }
            },
            syn::UnOp::Deref(star) => {
                if let Some(v) = self.deref_var(&unary.expr) {
                    return Value::Op(Operand::Var(v));
                }
                // `*xs.first().unwrap()`: the element.
                if let syn::Expr::MethodCall(call) = super::strip(&unary.expr) {
                    match self.element_option_value(call) {
                        Some(value) if value.by_ref() => {
                            return self.lower_expr(&value.into_expr(), out);
                        }
                        _ => {}
                    }
                    // `*xs.iter().max_by(cmp).unwrap()`: the item, a float.
                    if let Some(value) = self.lower_reduction(call, out) {
                        return value;
                    }
                }
                // `*x` for an array behind a reference (`x: &[f64; 3]`): the array.
                if let Some(v) = self.array_var(super::rename::strip_derefs(&unary.expr)) {
                    return Value::Op(Operand::Var(v));
                }
                // `*v` for an item of a loop over a part of an aggregate: the place.
                if self.is_place_expr(&unary.expr) {
                    if let Some(place) = self.place_expr(&unary.expr, out) {
                        return self.load(place, unary.span(), out);
                    }
                }
                self.cx.error(
                    star,
                    "dereferencing is supported on `&f64` and `&mut f64` parameters and on the \
                     element of a `for` loop over a slice (`for x in xs.iter()`) in #[reverse] \
                     code",
                );
                Value::Error
            }
            _ => self.opaque_value(&syn::Expr::Unary(unary.clone()), Ty::Bool, out),
        }
    }

    /// The variable `*expr` names when `expr` is a name the IR holds by value (a `&f64`
    /// parameter, the element of `for x in xs.iter()`).
    fn deref_var(&self, expr: &syn::Expr) -> Option<VarId> {
        let syn::Expr::Path(p) = super::rename::strip_derefs(expr) else {
            return None;
        };
        match self.lookup(&p.path.get_ident()?.to_string()) {
            Some(Binding::Var(v)) if self.vars[*v].deref => Some(*v),
            _ => None,
        }
    }

    /// Lowers `expr` as an inactive expression bound to a temporary (or a literal when it
    /// reads no variable).
    pub(super) fn opaque_value(&mut self, expr: &syn::Expr, ty: Ty, out: &mut Vec<Stmt>) -> Value {
        if self.calls_closure(expr) {
            // `f(x) > 0.0`, `f(x) as usize`: the closures are inlined before the expression.
            return self.with_closure_calls(expr, None, out, |this, rewritten, out| {
                let opaque = this.opaque(rewritten);
                Value::Op(Operand::Var(this.let_opaque(
                    out,
                    "t",
                    ty,
                    opaque,
                    expr.span(),
                )))
            });
        }
        let opaque = self.opaque(expr);
        if opaque.reads.is_empty() {
            let kind = match ty {
                Ty::Float(t) => LitKind::Float(t),
                _ => LitKind::Unknown,
            };
            if is_atomic(expr) {
                return Value::Op(Operand::Lit(opaque.expr, kind));
            }
        }
        Value::Op(Operand::Var(self.let_opaque(
            out,
            "t",
            ty,
            opaque,
            expr.span(),
        )))
    }

    fn lower_binary(
        &mut self,
        expr: &syn::Expr,
        bin: &syn::ExprBinary,
        out: &mut Vec<Stmt>,
    ) -> Value {
        use syn::BinOp as B;
        let op = match bin.op {
            B::Add(_) => BinOp::Add,
            B::Sub(_) => BinOp::Sub,
            B::Mul(_) => BinOp::Mul,
            B::Div(_) => BinOp::Div,
            B::Rem(_) => BinOp::Rem,
            B::Eq(_)
            | B::Ne(_)
            | B::Lt(_)
            | B::Le(_)
            | B::Gt(_)
            | B::Ge(_)
            | B::And(_)
            | B::Or(_) => {
                return self.opaque_value(expr, Ty::Bool, out);
            }
            _ if super::is_compound_assign(&bin.op) => {
                self.lower_assign(expr, out);
                return Value::Unit;
            }
            _ => return self.opaque_value(expr, Ty::Other, out),
        };
        // `a + b` on structs of the user's: `a.add(b)`, through the operator's derivative; a
        // struct (`Output = Self`), unless the `let` says otherwise.
        if let Some(call) = self.user_operator(expr) {
            return self.lower_user_operator(&call, out);
        }
        if let syn::Expr::Binary(b) = super::strip(expr) {
            if self.rejects_struct_on_the_right(b) {
                return Value::Error;
            }
        }
        // `g(x).0 + g(x).1`: the tuple a call returns, taken apart by `let`.
        for side in [&bin.left, &bin.right] {
            if let syn::Expr::Field(field) = super::strip(side) {
                if self.rejects_call_tuple(field) {
                    return Value::Error;
                }
            }
        }
        if !self.is_float_expr(expr) {
            // Integer arithmetic: one `let` of the expression as written; with an operand
            // that is certainly an integer (`l.count / 2`), no derivative flows through it,
            // whatever else it reads (a field of a differentiated struct).
            let ty = self.int_ty(expr);
            if is_arithmetic(&bin.op)
                && (self.is_int_expr(&bin.left) || self.is_int_expr(&bin.right))
            {
                // (Checked to be an integer: an operator of a user's type with an integer on
                // one side, `v * 2`, would otherwise lose its derivative.)
                let bare = super::strip(expr);
                let (int_side, other) = match self.is_int_expr(&bin.left) {
                    true => (&bin.left, &bin.right),
                    false => (&bin.right, &bin.left),
                };
                // (Not where the other operand is certainly a float, `v.exp() * 0`: rustc's
                // own error at the operator, as for the function without the attribute. At the
                // integer operand, the user's token wherever the expression was rebuilt.)
                let checked: syn::Expr = match self.is_certainly_float(other) {
                    true => bare.clone(),
                    false => syn::parse_quote_spanned!(int_side.span()=>
                        ::revad::__private::expect_integer(#bare)),
                };
                // (`expect_integer` is the identity: computed again where needed, as before.)
                return self.without_derivative(&checked, ty, true, expr.span(), out);
            }
            return self.opaque_value(expr, ty, out);
        }
        let (left, right) = (
            self.lower_expr(&bin.left, out),
            self.lower_expr(&bin.right, out),
        );
        let msg = "arithmetic on this value is not supported by #[reverse]";
        let (Some(a), Some(b)) = (
            self.number(left, &bin.left, msg),
            self.number(right, &bin.right, msg),
        ) else {
            return Value::Error;
        };
        // An operand is a vector or matrix: the runtime's rule (see `linalg`).
        if let Some(value) = self.lower_linalg_binary(op, &a, &b, bin.op.span(), out) {
            return value;
        }
        if let (Operand::Lit(..), Operand::Lit(..)) = (&a, &b) {
            // A constant expression: one inactive `let`.
            return self.opaque_value(expr, Ty::Float(None), out);
        }
        let ty = join(&self.ty_of(&a), &self.ty_of(&b));
        Value::Op(self.let_temp(out, Rhs::Binary(op, a, b), ty, bin.op.span()))
    }

    /// Whether `expr`, closures included, mentions a float literal, a float variable or a
    /// float array (for iterator chains, whose items the macro cannot type by looking).
    pub(super) fn mentions_float(&self, expr: &syn::Expr) -> bool {
        use syn::visit::Visit;
        struct Finder<'l, 'a> {
            lowerer: &'l Lowerer<'a>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_, '_> {
            fn visit_expr(&mut self, e: &'ast syn::Expr) {
                if self.found {
                    return;
                }
                match e {
                    syn::Expr::Lit(_) | syn::Expr::Path(_) => {
                        self.found |= self.lowerer.is_float_expr(e)
                    }
                    // `xs.len()` is an integer whatever `xs` holds.
                    syn::Expr::MethodCall(m) if m.method == "len" || m.method == "is_empty" => {}
                    _ => syn::visit::visit_expr(self, e),
                }
            }
        }
        let mut finder = Finder {
            lowerer: self,
            found: false,
        };
        finder.visit_expr(expr);
        finder.found
    }

    /// Whether `expr` may compute a float: it mentions a float literal, a float variable, a
    /// float array, an intrinsic or a cast to a float type.
    pub(super) fn is_float_expr(&self, expr: &syn::Expr) -> bool {
        match expr {
            syn::Expr::Lit(lit) => matches!(literal(&lit.lit), Operand::Lit(_, LitKind::Float(_))),
            syn::Expr::Path(path) => match self.lower_path_peek(path) {
                Some(Ty::Float(_)) | Some(Ty::Array(_)) => true,
                Some(_) => false,
                None => self
                    .sig
                    .float_in_path(path.qself.as_ref(), &path.path)
                    .is_some(),
            },
            syn::Expr::Paren(p) => self.is_float_expr(&p.expr),
            syn::Expr::Group(g) => self.is_float_expr(&g.expr),
            syn::Expr::Unary(u) => self.is_float_expr(&u.expr),
            // (Arithmetic with an integer on either side is of integers: Rust has no `f64 / 2`,
            // so `l.count / 2` says that the field `count` is one.)
            syn::Expr::Binary(b)
                if is_arithmetic(&b.op)
                    && (self.is_int_expr(&b.left) || self.is_int_expr(&b.right)) =>
            {
                false
            }
            syn::Expr::Binary(b) => self.is_float_expr(&b.left) || self.is_float_expr(&b.right),
            syn::Expr::Cast(c) => float_of(&c.ty).is_some(),
            syn::Expr::MethodCall(call)
                if super::iter::CONSUMERS.contains(&call.method.to_string().as_str()) =>
            {
                self.mentions_float(expr)
            }
            syn::Expr::MethodCall(call) => {
                let name = call.method.to_string();
                let killing = super::rename::KILLING_METHODS.contains(&name.as_str());
                (!killing && self.is_float_expr(&call.receiver))
                    || (self.method_rule(call).is_some()
                        && call.args.iter().any(|a| self.is_float_expr(a)))
            }
            syn::Expr::Call(call) if self.is_closure_callee(&call.func) => {
                // `f(x)`, `(|t: f64| t * x)(2.0)`.
                let args: Vec<&syn::Expr> = call.args.iter().collect();
                self.closure_call_is_float(&call.func, &args)
            }
            syn::Expr::Call(call) => match &*call.func {
                syn::Expr::Path(p) => {
                    self.sig.float_in_path(p.qself.as_ref(), &p.path).is_some()
                        || call.args.iter().any(|a| {
                            self.is_float_expr(a)
                                || self.array_arg(a).is_some()
                                || self.shared_float_arg(a)
                                || self.is_float_array_literal(a)
                                || self.is_float_subslice(a)
                        })
                }
                _ => false,
            },
            syn::Expr::Index(index) => self.is_float_expr(&index.expr),
            // A field of an aggregate: a float, unless rustc knows better (an integer field
            // used as one is inactive: see `places`).
            syn::Expr::Field(_) if self.is_place_expr(expr) => true,
            // (`(a + b).x`, a field of a call's struct result.)
            syn::Expr::Field(field) if self.struct_call_of_field(field).is_some() => true,
            syn::Expr::Field(field) if self.is_float_tuple_part(field) => true,
            syn::Expr::Field(field) => match (&*field.base, &field.member) {
                (syn::Expr::Path(p), syn::Member::Unnamed(i)) => match p
                    .path
                    .get_ident()
                    .and_then(|id| self.lookup(&id.to_string()))
                {
                    Some(Binding::Tuple(items)) => match items.get(i.index as usize) {
                        Some(Binding::Var(v)) => {
                            self.vars[*v].ty.is_float() || self.vars[*v].ty.is_array()
                        }
                        _ => false,
                    },
                    _ => false,
                },
                _ => false,
            },
            syn::Expr::If(_) | syn::Expr::Match(_) | syn::Expr::Block(_) => true,
            _ => false,
        }
    }

    /// `let t = expr;` as written, a value of type `ty` through which no derivative flows
    /// (an integer, a count, a flag), whatever it reads; `cheap` when it may be computed again
    /// where the reverse sweep needs it.
    fn without_derivative(
        &mut self,
        expr: &syn::Expr,
        ty: Ty,
        cheap: bool,
        span: proc_macro2::Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let mut opaque = self.opaque(expr);
        opaque.flows.clear();
        opaque.cheap |= cheap;
        Value::Op(Operand::Var(self.let_opaque(out, "t", ty, opaque, span)))
    }

    /// Whether `expr` is certainly an `f64` or `f32` (not a value of a type of the user's, nor
    /// of a generic float type): a float literal, a float variable, an intrinsic of one (`v.exp()`), a cast to a float type, and
    /// negations, dereferences and arithmetic of these.
    fn is_certainly_float(&self, expr: &syn::Expr) -> bool {
        // (In a function generic over its float type, `x * 2` may be `T: Mul<i32>`: never.)
        if !self.sig.generics.is_empty() {
            return false;
        }
        match super::strip(expr) {
            syn::Expr::Lit(lit) => {
                matches!(literal(&lit.lit), Operand::Lit(_, LitKind::Float(_)))
            }
            syn::Expr::Path(p) => matches!(
                p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
                Some(Binding::Var(v)) if self.vars[*v].ty.is_float()
            ),
            syn::Expr::Unary(u) => self.is_certainly_float(&u.expr),
            syn::Expr::MethodCall(m) => {
                crate::rules::lookup(&m.method.to_string()).is_some()
                    && self.is_certainly_float(&m.receiver)
            }
            syn::Expr::Cast(c) => float_of(&c.ty).is_some(),
            syn::Expr::Binary(b) if is_arithmetic(&b.op) => {
                self.is_certainly_float(&b.left) || self.is_certainly_float(&b.right)
            }
            _ => false,
        }
    }

    /// Whether `expr` is an array literal of floats, `[a, b]` or `[b; 2]` (an argument
    /// `n2([a, b])`).
    pub(super) fn is_float_array_literal(&self, expr: &syn::Expr) -> bool {
        match super::strip(expr) {
            syn::Expr::Array(a) => a.elems.iter().any(|e| self.is_float_expr(e)),
            syn::Expr::Repeat(r) => self.is_float_expr(&r.expr),
            _ => false,
        }
    }

    /// Whether `expr` is a sub-slice of a float array, `&x[..mid]` (an argument
    /// `sum(&x[..mid])`).
    pub(super) fn is_float_subslice(&self, expr: &syn::Expr) -> bool {
        let syn::Expr::Reference(r) = super::strip(expr) else {
            return false;
        };
        match super::strip(&r.expr) {
            syn::Expr::Index(index) => {
                matches!(super::strip(&index.index), syn::Expr::Range(_))
                    && self.is_float_expr(&index.expr)
            }
            _ => false,
        }
    }

    /// Whether `expr` is certainly an integer: an integer literal (`2`, `2usize`, not
    /// `2f64`), a cast to an integer type, a variable of an integer type, or arithmetic of one
    /// of these. (Not `.len()`, which has its own check, `expect_length`.)
    fn is_int_expr(&self, expr: &syn::Expr) -> bool {
        match super::strip(expr) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) => !matches!(int.suffix(), "f32" | "f64"),
            syn::Expr::Cast(c) => {
                matches!(&*c.ty, syn::Type::Path(p) if p.path.get_ident().is_some_and(|t| {
                    matches!(
                        t.to_string().as_str(),
                        "usize" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "i8" | "i16" | "i32" | "i64" | "i128"
                    )
                }))
            }
            syn::Expr::Path(p) => matches!(self.lower_path_peek(p), Some(Ty::Usize | Ty::I32)),
            syn::Expr::Binary(b) if is_arithmetic(&b.op) => {
                self.is_int_expr(&b.left) || self.is_int_expr(&b.right)
            }
            _ => false,
        }
    }

    fn lower_path_peek(&self, path: &syn::ExprPath) -> Option<Ty> {
        let ident = path.path.get_ident()?;
        match self.lookup(&ident.to_string())? {
            Binding::Var(v) => Some(self.vars[*v].ty.clone()),
            Binding::View(v) => Some(self.vars[v.base].ty.clone()),
            Binding::Place(_) => Some(Ty::Float(None)),
            Binding::Tuple(_) | Binding::Closure(_) | Binding::Poisoned | Binding::Chain(_) => {
                Some(Ty::Other)
            }
        }
    }

    /// The integer type of an integer expression, when one of its variables says it.
    fn int_ty(&self, expr: &syn::Expr) -> Ty {
        // `xs.len() - 1`, `(n as i32) * 2`: the type of an operand that says it.
        if let Some(ty) = operand_int_ty(expr) {
            return ty;
        }
        let opaque = self.opaque(expr);
        for v in opaque.reads {
            match self.vars[v].ty {
                Ty::Usize => return Ty::Usize,
                Ty::I32 => return Ty::I32,
                _ => {}
            }
        }
        Ty::Unknown
    }

    /// Lowers `call`, an operator on a struct of the user's (`user_operator`): its result is
    /// one too, whose operators are calls again (`let c = a + b; c - a`).
    fn lower_user_operator(&mut self, call: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Value {
        if self.result_shape.is_none() {
            self.result_shape = Some(super::results::ResultShape::Aggregate);
        }
        let value = self.lower_method_call(&syn::Expr::MethodCall(call.clone()), call, out);
        if let Value::Op(Operand::Var(v)) = value {
            if self.is_aggregate(v) {
                self.user_structs.push(v);
            }
        }
        value
    }

    pub(super) fn lower_method_call(
        &mut self,
        expr: &syn::Expr,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Value {
        // `(a - b).norm2()` on structs of the user's: a method of `a.sub(b)`'s result.
        let struct_method = !crate::rules::is_float_method(&call.method.to_string());
        let operator = match struct_method {
            true => self.struct_operator(&call.receiver, Some(&call.method.to_string())),
            false => self.user_operator(&call.receiver),
        };
        if let Some(receiver) = operator {
            let mut call = call.clone();
            *call.receiver = syn::Expr::MethodCall(receiver);
            return self.lower_method_call(&syn::Expr::MethodCall(call.clone()), &call, out);
        }
        // `layer.bias.unwrap_or(0.0)`: the `match` on the place (see `enums`).
        if let Some((option, desugared)) = super::desugar::option_place_method(call) {
            if self.is_place_expr(&option) {
                return self.lower_expr(&desugared, out);
            }
        }
        // `xs.iter().filter_map(|x| if c { Some(e) } else { None })`: `.filter(..).map(..)`.
        if let Some(split) = super::desugar::split_filter_map(call) {
            return self.lower_expr(&split, out);
        }
        // `xs.iter().fold([0.0; 2], |acc, x| ..)`: the loop it stands for.
        if let Some(desugared) = super::desugar::fold_as_loop(call) {
            return self.lower_expr(&desugared, out);
        }
        // `preds(w, xs).iter().map(..).sum()`: the call bound first.
        if let Some(bound) = super::desugar::chain_on_call(call, &|e| self.is_float_expr(e)) {
            return self.lower_expr(&bound, out);
        }
        // `.dot(..)`, `.norm()`, .. of a vector or matrix: the runtime's rule (see `linalg`).
        if let Some(value) = self.lower_linalg_method(call, out) {
            return value;
        }
        // `T::from(2.0).unwrap()`: a constant of a float type parameter.
        if let Some(value) = self.lower_option_conversion(expr, call, out) {
            return value;
        }
        // `xs.iter().find(p).copied().unwrap_or(0.0)`: the element at the position.
        if let Some(found) = super::desugar::found_element(call) {
            return self.lower_expr(&found, out);
        }
        // `xs.get(i).copied().unwrap_or(0.0)`, `xs.first().unwrap()`: the element or the
        // default, as an `if` (see `control`).
        if let Some(value) = self.element_option_value(call) {
            return self.lower_expr(&value.into_expr(), out);
        }
        if self.on_element_option(call) {
            self.cx.error(&call.method, super::options::ELEMENT_OPTION);
            return Value::Error;
        }
        // `xs.iter().copied().reduce(f64::max).unwrap()`, `.max_by(cmp).unwrap()`: a loop.
        if let Some(value) = self.lower_reduction(call, out) {
            return value;
        }
        // `xs.iter().filter(|v| **v > 0.0).count()`, `.any(..)`, `.position(..).unwrap_or(0)`:
        // an integer or a flag, computed as written.
        if let Some(ty) = counted(expr) {
            return self.without_derivative(expr, ty, false, expr.span(), out);
        }
        let name = call.method.to_string();
        if let syn::Expr::Path(p) = super::strip(&call.receiver) {
            let chain = match p.path.get_ident().map(|i| self.lookup(&i.to_string())) {
                Some(Some(Binding::Chain(chain))) => Some(chain.clone()),
                _ => None,
            };
            if let Some(chain) = chain {
                if matches!(name.as_str(), "sum" | "product" | "collect") && call.args.is_empty() {
                    self.result_shape = None;
                    return self.lower_bound_chain(call, &chain, out);
                }
                self.cx.error(&call.method, super::BOUND_CHAIN);
                return Value::Error;
            }
        }
        if let Some(rule) = self.method_rule(call) {
            let expected = rule.arity - 1 + usize::from(rule.int_exponent);
            if call.args.len() == expected && call.turbofish.is_none() {
                let mut args = vec![&*call.receiver];
                args.extend(call.args.iter());
                return self.lower_intrinsic(expr, rule, &args, call.method.span(), out);
            }
        }
        // `x.sin_cos()`: the tuple `(x.sin(), x.cos())`, which is how std computes it.
        if name == "sin_cos" && call.args.is_empty() && self.is_float_expr(&call.receiver) {
            let x = match self.lower_expr(&call.receiver, out) {
                Value::Op(x) => x,
                Value::Error => return Value::Error,
                _ => {
                    self.cx
                        .error(&call.receiver, "`sin_cos` needs a number here");
                    return Value::Error;
                }
            };
            let ty = match self.ty_of(&x) {
                ty if ty.is_float() => ty,
                _ => Ty::Float(None),
            };
            let span = call.method.span();
            let parts = ["sin", "cos"].map(|f| {
                let rule = rules::lookup(f).expect("sin and cos are intrinsics");
                let rhs = Rhs::Intrinsic(rule, vec![x.clone()]);
                Value::Op(self.let_temp(out, rhs, ty.clone(), span))
            });
            return Value::Tuple(parts.into());
        }
        // A method of an aggregate (`self.layer(x)`, `p.energy()`): through its companions.
        let container = matches!(
            name.as_str(),
            "len" | "is_empty" | "iter" | "iter_mut" | "into_iter" | "clone" | "to_vec"
        ) || super::views::SLICE_METHODS.contains(&name.as_str())
            || super::iter::CONSUMERS.contains(&name.as_str())
            || rename_is_killing(&name);
        if name == "clone" && call.args.is_empty() && self.is_place_expr(&call.receiver) {
            if let Some(place) = self.place_expr(&call.receiver, out) {
                return Value::Op(self.copy_place(place, expr.span(), out));
            }
        }
        // `ps.to_vec()` of a whole sequence of aggregates: an owned copy, as `clone`.
        if name == "to_vec" && call.args.is_empty() && self.is_aggregate_var(&call.receiver) {
            if let Some(place) = self.place_expr(&call.receiver, out) {
                return Value::Op(self.copy_place(place, expr.span(), out));
            }
        }
        // `rows.push(r)` of a nested container: its adjoint would have to grow with it.
        if RESIZING.contains(&name.as_str()) {
            if let syn::Expr::Path(p) = super::strip(&call.receiver) {
                let var = match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Binding::Var(v)) => Some(*v),
                    _ => None,
                };
                if var.is_some_and(|v| self.float_depth.get(&v).is_some_and(|&d| d > 1)) {
                    self.cx.error(
                        &call.method,
                        format!(
                            "#[reverse] does not change the length of a vector of rows \
                             (`Vec<Vec<f64>>`, `Vec<[f64; N]>`) with `{name}`; make it at its \
                             full size (`vec![vec![0.0; n]; m]`, `vec![[0.0; N]; m]`) and \
                             assign its rows (`rows[i] = ..`)"
                        ),
                    );
                    return Value::Error;
                }
            }
        }
        // `a.swap(i, j)` of the rows of a nested container (`Vec<Vec<f64>>`, `[[f64; 3]; 3]`):
        // the rows exchanged through a copy, as assignments of places.
        if name == "swap"
            && call.args.len() == 2
            && matches!(super::strip(&call.receiver), syn::Expr::Path(_))
            && self.is_place_expr(&call.receiver)
            && !call.args.iter().any(|a| self.is_float_expr(a))
        {
            let span = call.method.span();
            let hidden = |name: &str| {
                syn::Ident::new(name, proc_macro2::Span::mixed_site().located_at(span))
            };
            // (An index that is a name or a literal is read where it is used, which types it;
            // another is bound first, evaluated once.)
            let mut lets: Vec<syn::Stmt> = Vec::new();
            let mut index = |arg: &syn::Expr, name: &str| -> syn::Expr {
                match super::strip(arg) {
                    syn::Expr::Path(_) | syn::Expr::Lit(_) => arg.clone(),
                    _ => {
                        let ident = hidden(name);
                        lets.push(syn::parse_quote_spanned!(span=> let #ident: usize = #arg;));
                        syn::parse_quote_spanned!(span=> #ident)
                    }
                }
            };
            let (i, j) = (
                index(&call.args[0], "__ad_i"),
                index(&call.args[1], "__ad_j"),
            );
            let (a, row) = (&call.receiver, hidden("__ad_row"));
            let swapped: syn::Expr = syn::parse_quote_spanned! {span=>
                {
                    #(#lets)*
                    let #row = #a[#i].clone();
                    #a[#i] = #a[#j].clone();
                    #a[#j] = #row;
                }
            };
            return self.lower_expr(&swapped, out);
        }
        // `s.xs.push(x)`, `self.buf.clear()`: a container's method on a part of a struct, which
        // #[reverse] does not follow (`Vec`'s methods are taken on a `Vec` bound to a name).
        // (Not the names a type of the user's may well give its own methods, which are called
        // through their companions: `self.state.update(x)`.)
        if !container
            && super::rename::MUTATING_METHODS.contains(&name.as_str())
            && !matches!(name.as_str(), "set" | "update" | "take" | "replace")
            && matches!(
                super::strip(&call.receiver),
                syn::Expr::Field(_) | syn::Expr::Index(_)
            )
            && self.is_place_expr(&call.receiver)
        {
            self.cx
                .error(&call.method, super::rename::mutation_message(&name));
            return Value::Error;
        }
        if !container && call.turbofish.is_none() && self.is_place_expr(&call.receiver) {
            return self.lower_user_method_call(call, out);
        }
        if !container && call.turbofish.is_none() {
            if let Some(value) = self.lower_method_of_a_result(call, out) {
                return value;
            }
        }
        if let Some(value) = self.lower_mut_method(call, out) {
            return value;
        }
        if let Some(value) = self.lower_view_method(call, out) {
            return value;
        }
        if let Some(value) = self.lower_vec_method(expr, call, out) {
            return value;
        }
        if let Some(items) = self.mapped_array(call) {
            return self.lower_expr(&items, out);
        }
        if self.array_var(&call.receiver).is_some()
            && !matches!(name.as_str(), "len" | "is_empty" | "iter" | "into_iter")
            && !super::iter::CONSUMERS.contains(&name.as_str())
        {
            // A method may change the array (`push`, `sort`) behind the reverse sweep's back.
            let msg = if super::rename::MUTATING_METHODS.contains(&name.as_str()) {
                super::rename::mutation_message(&name)
            } else {
                format!(
                    "`.{name}()` on a float array is not supported by #[reverse]; read elements \
                     by index, iterate with `.iter()`, or use `.len()`"
                )
            };
            self.cx.error(&call.method, msg);
            return Value::Error;
        }
        match name.as_str() {
            "len" | "is_empty" => self.opaque_value(expr, Ty::Usize, out),
            n if rename_is_killing(n) => self.opaque_value(expr, Ty::Bool, out),
            n if super::iter::CONSUMERS.contains(&n) => {
                // The shape `let ys: Vec<f64> = ..` gives is the chain's, not that of a call
                // inside it (`.map(|v| g(*v))`).
                self.result_shape = None;
                match self.lower_chain(call, out) {
                    Some(value) => value,
                    None => self.opaque_value(expr, Ty::Unknown, out),
                }
            }
            "iter" | "into_iter" | "map" | "zip" | "enumerate" | "filter" | "copied" | "cloned"
                if self.mentions_float(expr) =>
            {
                self.cx.error(
                    &call.method,
                    format!(
                        "#[reverse] supports iterators consumed in the same expression \
                         (`.sum()`, `.product()`, `.fold(..)`, `.collect()`, `.for_each(..)`); \
                         `.{name}()` here is not consumed, or its consumer is not supported"
                    ),
                );
                Value::Error
            }
            _ if self.is_float_expr(&call.receiver) => {
                // A float method without a rule: an error if a derivative flows through it,
                // at the first method of a chain that has none (`to_f64` in
                // `x.to_f64().unwrap()`).
                let mut opaque = self.opaque(expr);
                let mut first = call;
                while let syn::Expr::MethodCall(inner) = super::strip(&first.receiver) {
                    if !self.is_float_expr(&inner.receiver)
                        || rules::lookup(&inner.method.to_string()).is_some()
                    {
                        break;
                    }
                    first = inner;
                }
                let first_name = first.method.to_string();
                if !super::rename::MUTATING_METHODS.contains(&first_name.as_str()) {
                    opaque.if_active = (first.method.span(), not_an_intrinsic(&first_name));
                }
                if opaque.reads.is_empty() {
                    return Value::Op(Operand::Lit(opaque.expr, LitKind::Unknown));
                }
                Value::Op(Operand::Var(self.let_opaque(
                    out,
                    "t",
                    Ty::Float(None),
                    opaque,
                    expr.span(),
                )))
            }
            _ => self.opaque_value(expr, Ty::Unknown, out),
        }
    }

    fn lower_call(&mut self, expr: &syn::Expr, call: &syn::ExprCall, out: &mut Vec<Stmt>) -> Value {
        // A closure: a variable bound to one, or any expression that evaluates to one.
        let closure = match &*call.func {
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(super::Binding::Closure(c)) => Some(c.clone()),
                    _ => None,
                }
            }
            func => match self.lower_expr(func, out) {
                Value::Closure(c) => Some(c),
                Value::Error => return Value::Error,
                _ => {
                    self.cx.error(func, "#[reverse] can call functions by name and closures; this callee is neither");
                    return Value::Error;
                }
            },
        };
        if let Some(closure) = closure {
            let mut args = Vec::new();
            // The floats passed by reference (`f(&x)`), read through it in the body (`*v`).
            let mut shallow = Vec::new();
            for (k, arg) in call.args.iter().enumerate() {
                // A part of an aggregate (`f(ps[1])`, `f(*p)`) given to a parameter that is
                // not `mut`: the parameter names the place, as `let q = ps[1];` does.
                let place = match closure.expr.inputs.iter().nth(k) {
                    Some(pat) if !super::closure::mut_param(pat) => self.fixed_place(arg, out),
                    _ => None,
                };
                let arg = match (place, super::strip(arg)) {
                    (Some(place), _) => Value::Place(place),
                    // `f(&x)`: the value, its integers as references (`|i: &usize| *i`).
                    (None, syn::Expr::Reference(r))
                        if r.mutability.is_none() && !self.is_place_expr(&r.expr) =>
                    {
                        let value = self.lower_expr(&r.expr, out);
                        self.floats_by_value(&value, &mut shallow);
                        self.by_reference(value, r.and_token.span, out)
                    }
                    (None, _) => self.lower_expr(arg, out),
                };
                args.push(arg);
            }
            for &v in &shallow {
                self.vars[v].deref = true;
            }
            let value = self.apply_closure(&closure, args, call.func.span(), out);
            for &v in &shallow {
                self.vars[v].deref = false;
            }
            return value;
        }
        // `<T as One>::one()`, `<T as FloatConst>::PI()`: a constant of `T`.
        if let syn::Expr::Path(syn::ExprPath { qself: Some(q), .. }) = &*call.func {
            if let Some(value) = self
                .sig
                .float_of(&q.ty)
                .and_then(|float| self.lower_float_constant(expr, call, float))
            {
                return value;
            }
        }
        // `std::array::from_fn(|i| ..)` where it is not an array literal of the closure's values
        // (see `desugar::array_from_fn`).
        if matches!(&*call.func, syn::Expr::Path(f) if super::desugar::is_from_fn(&f.path))
            && call.args.iter().any(|a| self.mentions_float(a))
        {
            self.cx.error(
                &call.func,
                "#[reverse] takes `std::array::from_fn(|i| ..)` as the value of a `let` with its \
                 type, or as the function's result, of a literal length (`let p: [f64; 3] = \
                 std::array::from_fn(|i| ..);`); write a loop that fills an array otherwise",
            );
            return Value::Error;
        }
        // The permutation of a sort (see `desugar::reordered_in_place`): integers.
        if matches!(&*call.func, syn::Expr::Path(f) if super::desugar::is_sort_permutation(&f.path))
        {
            let mut opaque = self.opaque(expr);
            opaque.flows.clear();
            let perm = self.let_opaque(out, "perm", Ty::Other, opaque, expr.span());
            return Value::Op(Operand::Var(perm));
        }
        if let syn::Expr::Path(func) = &*call.func {
            match super::gradient::stop_gradient_path(&func.path) {
                Some(_) if func.qself.is_some() => {}
                Some(true) => return self.lower_stop_gradient(call, out),
                Some(false) if call.args.iter().any(|a| self.is_float_expr(a)) => {
                    self.cx.error(&call.func, super::gradient::BARE);
                    return Value::Error;
                }
                _ => {}
            }
        }
        // `<f64>::sqrt(x)`, `<T>::ln(x)`: the type's path, `f64::sqrt(x)`.
        if let syn::Expr::Path(func) = &*call.func {
            if let Some(q) = func.qself.as_ref().filter(|q| q.position == 0) {
                if let syn::Type::Path(ty) = &*q.ty {
                    if ty.qself.is_none() && self.sig.float_of(&q.ty).is_some() {
                        let mut path = ty.path.clone();
                        path.segments.extend(func.path.segments.iter().cloned());
                        let mut plain = call.clone();
                        plain.func = Box::new(syn::Expr::Path(syn::ExprPath {
                            attrs: func.attrs.clone(),
                            qself: None,
                            path,
                        }));
                        return self.lower_expr(&syn::Expr::Call(plain), out);
                    }
                }
            }
        }
        if let syn::Expr::Path(func) = &*call.func {
            let segments: Vec<String> = func
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            // `f64::sin(x)`, `T::sin(x)`, and the float trait's `Float::sin(x)`,
            // `num_traits::Float::powi(x, 2)`, `<T as Float>::cos(x)` (of the argument's type,
            // or of the qualified self's); `f64::sin_cos(x)` as `x.sin_cos()`.
            let name_span = func
                .path
                .segments
                .last()
                .map_or(func.span(), |s| s.ident.span());
            if let [.., owner, name] = segments.as_slice() {
                let typed = match segments.len() {
                    2 => self.sig.float_named(&func.path.segments[0].ident),
                    _ => None,
                };
                let float_owner = typed.is_some() || owner == "Float";
                if float_owner && name == "sin_cos" && call.args.len() == 1 {
                    let arg = &call.args[0];
                    let method: syn::Expr =
                        syn::parse_quote_spanned!(call.span()=> (#arg).sin_cos());
                    return self.lower_expr(&method, out);
                }
                let rule = rules::lookup(name).filter(|rule| {
                    float_owner && call.args.len() == rule.arity + usize::from(rule.int_exponent)
                });
                if let Some(rule) = rule {
                    let args: Vec<&syn::Expr> = call.args.iter().collect();
                    let value = self.lower_intrinsic(expr, rule, &args, name_span, out);
                    let qualified = func.qself.as_ref().and_then(|q| self.sig.float_of(&q.ty));
                    if let Some(float) = typed.or(qualified) {
                        self.pin_float(&value, float);
                    }
                    return value;
                }
            }
            if let [_, name] = segments.as_slice() {
                // `T::from_f64(0.5)`, `f64::from(k)`, `T::zero()`.
                let float = self.sig.float_named(&func.path.segments[0].ident);
                if let Some(float) = float {
                    if name == "from" && call.args.len() == 1 && !float.is_generic() {
                        return self.cast_to(&call.args[0], float, expr, out);
                    }
                    if let Some(value) = self.lower_float_conversion(expr, call, name, float, out) {
                        return value;
                    }
                    if let Some(value) = self.lower_float_constant(expr, call, float) {
                        return value;
                    }
                    if call.args.iter().any(|a| self.is_float_expr(a)) {
                        self.cx.error_at(name_span, not_an_intrinsic(name));
                        return Value::Error;
                    }
                }
            }
        }
        if let syn::Expr::Path(func) = &*call.func {
            if let Some(value) = self.lower_constructor(call, &func.path, out) {
                return value;
            }
        }
        if let syn::Expr::Path(func) = &*call.func {
            let float_arg = call.args.iter().any(|a| {
                self.is_float_expr(a)
                    || self.is_place_expr(a)
                    || self.array_arg(a).is_some()
                    || self.mut_arg(a).is_some()
                    || self.is_view_expr(a)
                    // (A closure passed to the function may capture floats: `hoist`.)
                    || matches!(super::strip(a), syn::Expr::Closure(_))
                    || matches!(super::strip(a), syn::Expr::Reference(r) if self.is_closure_callee(&r.expr))
                    || matches!(super::strip(a), syn::Expr::Path(_)) && self.is_closure_callee(a)
                    || self.function_param(a).is_some()
                    || matches!(super::strip(a), syn::Expr::Reference(r) if self.function_param(&r.expr).is_some())
                    || self.shared_float_arg(a)
                    // (A tuple of floats is an error at the argument, below.)
                    || matches!(super::strip(a), syn::Expr::Tuple(t) if t.elems.iter().any(|e| self.is_float_expr(e)))
                    // `cross([x, y, 1.0], b)`, `dot(&[x, y], w)`, `n2([b; 2])`: an array
                    // literal of floats.
                    || {
                        let a = match super::strip(a) {
                            syn::Expr::Reference(r) => super::strip(&r.expr),
                            a => a,
                        };
                        self.is_float_array_literal(a)
                    }
            });
            if self.is_poisoned(&call.func) {
                return Value::Error;
            }
            if let Some(value) = self.lower_function_arg_call(call, &func.path, out) {
                return value;
            }
            // `Vector3::new(x, y, z)`: the runtime's rule (see `linalg`).
            if func.qself.is_none() && float_arg {
                if let Some(value) = self.lower_linalg_constructor(call, &func.path, out) {
                    return value;
                }
            }
            // `Some(1.0)`, `Box::new(x)`: a value the macro does not model, constant or an
            // error where a differentiated value flows into it (see `activity`).
            if super::rename::is_wrapper(&func.path) {
                return self.opaque_value(expr, Ty::Unknown, out);
            }
            if func.qself.is_none() && float_arg {
                if let Some(moved) = mem_swap_or_replace(call, &func.path) {
                    return self.lower_expr(&moved, out);
                }
                if let Some(msg) = self.uncallable(&func.path) {
                    self.cx.error(&func.path, msg);
                    return Value::Error;
                }
                return self.lower_user_call(call, &func.path, out);
            }
            if func.qself.is_some() && float_arg {
                self.cx.error(&call.func, ASSOCIATED_CALL);
                return Value::Error;
            }
        }
        // `let mut m = Model::default();`, its fields then written: a struct from a call the
        // macro does not see into, of constants (see `results` for the shape).
        if matches!(
            self.result_shape,
            Some(super::results::ResultShape::Aggregate)
        ) {
            self.result_shape = None;
            let ty = Ty::Array(ArrayInfo {
                elem: None,
                shape: Shape::Like(usize::MAX),
                agg: true,
            });
            let opaque = self.opaque(expr);
            let var = self.let_opaque(out, "t", ty, opaque, expr.span());
            self.settle_result_shape(var);
            return Value::Op(Operand::Var(var));
        }
        self.opaque_value(expr, Ty::Unknown, out)
    }

    /// Why a call through `path` with float arguments cannot go through split companions:
    /// the callee is a variable (a function pointer, a closure parameter) or an associated
    /// function (`Type::f`, `Trait::f`), which cannot be imported by path.
    fn uncallable(&self, path: &syn::Path) -> Option<String> {
        if let Some(ident) = path.get_ident() {
            const PRIMITIVES: &[&str] = &[
                "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
                "u64", "u128", "usize", "bool", "char",
            ];
            if PRIMITIVES.contains(&ident.to_string().as_str()) {
                return Some(format!(
                    "`{ident}` is a type, not a function; convert with `as {ident}`"
                ));
            }
            let binding = self.lookup(&ident.to_string());
            if let Some(Binding::Var(v)) = binding {
                if self.vars[*v].param.is_some() {
                    return Some(format!(
                        "#[reverse] cannot differentiate a call through the parameter `{ident}`: \
                         a function argument is `Fn` of 1 to 4 floats of one type to a float of \
                         that type (`{ident}: impl Fn(f64, f64) -> f64`), not of arrays, \
                         structs or other types; write the function's work with floats, or \
                         call an annotated function by its name"
                    ));
                }
            }
            if let Some(Binding::Var(_) | Binding::Tuple(_)) = binding {
                return Some(format!(
                    "#[reverse] cannot differentiate a call through the variable `{ident}` (a \
                     function pointer or a value): it calls functions by name; call an \
                     annotated function directly, a closure defined in this function, or a \
                     function parameter (`f: impl Fn(f64) -> f64`)"
                ));
            }
            return None;
        }
        let segments: Vec<_> = path.segments.iter().collect();
        let owner = segments.get(segments.len().wrapping_sub(2))?;
        let last = &segments[segments.len() - 1].ident;
        if owner.ident == "mem" && ["swap", "replace", "take"].iter().any(|f| last == f) {
            let instead = match last == "take" {
                true => "`let t = a; a = 0.0;`",
                false => "`let t = a; a = b; b = t;`, on `&mut` of places",
            };
            return Some(format!(
                "`mem::{last}` moves values behind #[reverse]'s back; write the assignments \
                 out ({instead})"
            ));
        }
        // A trait's method (`Add::add(x, y)`) or a library type's (`std::cell::Cell::new`)
        // has no companions; an annotated associated function (`Particle::energy(&p)`,
        // `Self::step(..)`) has.
        const TRAITS: &[&str] = &[
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Rem",
            "Neg",
            "AddAssign",
            "SubAssign",
            "MulAssign",
            "DivAssign",
            "From",
            "Into",
            "Clone",
            "Default",
            "Iterator",
            "Sum",
            "Product",
            "PartialOrd",
            "Ord",
            "PartialEq",
            "Float",
            "Cell",
            "RefCell",
            "Box",
            "Rc",
            "Arc",
            "Vec",
            "Option",
            "Some",
            "Result",
            "Ok",
            "Err",
        ];
        let library = matches!(
            segments[0].ident.to_string().as_str(),
            "std" | "core" | "alloc"
        );
        let trait_like = TRAITS.iter().any(|t| owner.ident == t);
        (is_associated_path(path) && (library || trait_like)).then(|| ASSOCIATED_CALL.to_string())
    }

    /// `g(a, w, k)` where a float flows into `g`: a call through `g`'s split companions.
    /// `Type::g(..)` and `Self::g(..)` call an associated function's.
    /// Whether `arg` names a `&mut` parameter of a struct or nested container (`p: &mut P`).
    fn mut_aggregate_param(&self, arg: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = super::strip(arg) else {
            return false;
        };
        let Some(Binding::Var(v)) = p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
        else {
            return false;
        };
        // (The body writes a copy of it, which is written back: `copy_mut_params`.)
        self.mut_refs.contains(v)
            && self.is_aggregate(*v)
            && p.path.get_ident().is_some_and(|i| i != "self")
    }

    fn lower_user_call(
        &mut self,
        call: &syn::ExprCall,
        path: &syn::Path,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let kind = match is_associated_path(path) {
            true => crate::ir::CalleeKind::Associated,
            false => crate::ir::CalleeKind::Function,
        };
        // Errors about the callee point at its name (`square` in `helpers::square`).
        let span = path.segments.last().map_or(path.span(), |s| s.ident.span());
        // `g(p, k)` of a `&mut` struct parameter `p`: lent on as `&mut *p`, as rustc reborrows it.
        let reborrowed: Vec<syn::Expr> = call
            .args
            .iter()
            .map(|arg| match self.mut_aggregate_param(arg) {
                true => syn::parse_quote_spanned!(arg.span()=> &mut *#arg),
                false => arg.clone(),
            })
            .collect();
        let args: Vec<&syn::Expr> = reborrowed.iter().collect();
        let key = path.to_token_stream();
        self.lower_companion_call(key, kind, true, span, &args, path.span(), out)
    }

    /// For a float type's intrinsic passed by its path (`f64::sin`, `T::exp`, `f64::hypot`):
    /// the closure that calls it, `|a0| f64::sin(a0)`.
    fn intrinsic_item(&self, expr: &syn::Expr) -> Option<syn::Expr> {
        let syn::Expr::Path(p) = super::strip(expr) else {
            return None;
        };
        let [owner, name] = [p.path.segments.first()?, p.path.segments.last()?];
        if p.qself.is_some() || p.path.segments.len() != 2 || !name.arguments.is_empty() {
            return None;
        }
        self.sig.float_named(&owner.ident)?;
        let rule = crate::rules::lookup(&name.ident.to_string())?;
        if rule.int_exponent {
            return None;
        }
        let span = p.span();
        let params: Vec<syn::Ident> = (0..rule.arity)
            .map(|i| quote::format_ident!("__ad_a{}", i, span = span))
            .collect();
        let path = &p.path;
        Some(syn::parse_quote_spanned!(span=> |#(#params),*| #path(#(#params),*)))
    }

    /// A function passed by name (`cube`, `m::cube`): a path that names no local, whose last
    /// segment is in snake case (a constant's name is in upper case). A path that names
    /// something else than an annotated function fails to compile at the call.
    fn function_item(&self, expr: &syn::Expr) -> Option<proc_macro2::TokenStream> {
        let syn::Expr::Path(p) = super::strip(expr) else {
            return None;
        };
        if p.qself.is_some() {
            return None;
        }
        let last = p.path.segments.last()?;
        if !last.arguments.is_empty() {
            return None;
        }
        if let Some(ident) = p.path.get_ident() {
            if self.lookup(&ident.to_string()).is_some() {
                return None;
            }
        }
        let name = last.ident.to_string();
        let snake = name.starts_with(|c: char| c.is_ascii_lowercase())
            && !name.chars().any(|c| c.is_ascii_uppercase());
        const NOT_FUNCTIONS: &[&str] = &["true", "false", "self"];
        (snake && !NOT_FUNCTIONS.contains(&name.as_str())).then(|| p.path.to_token_stream())
    }

    /// The function argument of this function that `expr` names (`f`), if any.
    fn function_param(&self, expr: &syn::Expr) -> Option<crate::ir::VarId> {
        let syn::Expr::Path(p) = super::strip(expr) else {
            return None;
        };
        let ident = p.path.get_ident()?;
        let Some(Binding::Var(v)) = self.lookup(&ident.to_string()) else {
            return None;
        };
        let param = self.vars[*v].param?;
        self.sig.params[param].function.map(|_| *v)
    }

    /// `f(x)` where `f` is a function argument (`f: F` with `F: Fn(f64) -> f64`): a call of
    /// its split companions, `F::__ad_fwd_call(&f, x, ..)` (`revad_runtime::function`), with
    /// `&f` as a first, inactive argument.
    fn lower_function_arg_call(
        &mut self,
        call: &syn::ExprCall,
        path: &syn::Path,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let ident = path.get_ident()?;
        let Some(Binding::Var(v)) = self.lookup(&ident.to_string()) else {
            return None;
        };
        let param = self.vars[*v].param?;
        let (index, by_ref) = self.sig.params[param].function?;
        let function = &self.sig.functions[index];
        if call.args.len() != function.arity {
            // rustc reports the wrong number of arguments.
            return Some(self.opaque_value(&syn::Expr::Call(call.clone()), Ty::Unknown, out));
        }
        let ty = &function.ident;
        let key = quote::quote!(#ty::call);
        let receiver: syn::Expr = syn::parse_quote!(#ident);
        let mut args: Vec<&syn::Expr> = vec![&receiver];
        args.extend(call.args.iter());
        let value = self.lower_companion_call(
            key,
            crate::ir::CalleeKind::Associated,
            false,
            ident.span(),
            &args,
            call.span(),
            out,
        );
        // The receiver is passed by reference (`&f`), or as it is for `f: &F`.
        if let Value::Op(Operand::Var(result)) = &value {
            let defined = out.iter_mut().rev().find_map(|stmt| match &mut stmt.kind {
                StmtKind::Let {
                    var,
                    rhs: Rhs::Call(c),
                    ..
                } if var == result => Some(c),
                _ => None,
            });
            if let Some(c) = defined {
                c.by_ref[0] = !by_ref;
            }
        }
        if let Value::Op(op) = &value {
            self.pin_float(&Value::Op(op.clone()), function.float);
        }
        Some(value)
    }

    /// Whether `expr` is a call of the user's whose result may be a struct: a function or
    /// associated function by path (not a closure bound by `let`), or a method without a rule
    /// of a place or of another call's result (not `clone`, `to_vec`, `iter`, `into_iter`).
    fn is_user_call(&self, expr: &syn::Expr) -> bool {
        match super::strip(expr) {
            syn::Expr::MethodCall(m) => {
                self.method_rule(m).is_none()
                    && m.turbofish.is_none()
                    && (self.is_place_expr(&m.receiver)
                        || matches!(
                            super::strip(&m.receiver),
                            syn::Expr::MethodCall(_) | syn::Expr::Call(_)
                        ))
                    && !matches!(
                        m.method.to_string().as_str(),
                        "clone" | "to_vec" | "iter" | "into_iter"
                    )
            }
            syn::Expr::Call(c) => match super::strip(&c.func) {
                syn::Expr::Path(p) => {
                    p.qself.is_none()
                        && p.path
                            .get_ident()
                            .is_none_or(|i| self.lookup(&i.to_string()).is_none())
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// `g(..).name(a)` or `p.step(dt).name(a)`: a method of the struct result of a call of
    /// the user's (a function, an associated function, a method of a place), which is bound
    /// first, as `let r = g(..); r.name(a)` would bind it. `None` when the receiver is no
    /// such call.
    fn lower_method_of_a_result(
        &mut self,
        call: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        if !self.is_user_call(&call.receiver) {
            return None;
        }
        // (The receiver's result is a struct; this call's, what was expected of it:
        // `a.sub(b).neg().mul(k)`, each a method of the last's result.)
        let wanted = self
            .result_shape
            .replace(super::results::ResultShape::Aggregate);
        let value = self.lower_expr(&call.receiver, out);
        self.result_shape = wanted;
        let v = match value {
            Value::Op(Operand::Var(v)) if self.is_aggregate(v) => v,
            Value::Error => return Some(Value::Error),
            _ => {
                self.cx.error(
                    &call.receiver,
                    format!(
                        "#[reverse] calls `.{}()` of a struct; bind this value with `let` first",
                        call.method
                    ),
                );
                return Some(Value::Error);
            }
        };
        let ident = syn::Ident::new(&format!("__ad_receiver{v}"), call.method.span());
        self.push_scope();
        self.bind(&ident, Binding::Var(v));
        let mut bound = call.clone();
        *bound.receiver = syn::parse_quote!(#ident);
        // (A matrix's result, `m.transpose().dot(&v)`: the rule.)
        let result = match self.lower_linalg_method(&bound, out) {
            Some(result) => result,
            None => self.lower_user_method_call(&bound, out),
        };
        self.pop_scope();
        Some(result)
    }

    /// `recv.name(a, b)` on an aggregate (`self.layer(x)`, `p.energy()`): a call of an
    /// annotated method through its companions, with the receiver as the first argument.
    fn lower_user_method_call(&mut self, call: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Value {
        // (`m.transpose()`, `a.cross(&b)`: a matrix, or the user's struct.)
        if self.result_shape.is_none()
            && super::linalg::matrix_valued_method(&call.method.to_string())
        {
            self.result_shape = Some(super::results::ResultShape::Aggregate);
        }
        let kind = crate::ir::CalleeKind::Method(call.method.clone());
        let mut args: Vec<&syn::Expr> = vec![&call.receiver];
        args.extend(call.args.iter());
        let key = call.method.to_token_stream();
        self.lower_companion_call(
            key,
            kind,
            true,
            call.method.span(),
            &args,
            call.method.span(),
            out,
        )
    }

    /// `x.map(f)` of a fixed-size float array bound to a name (`[f64; 3]`, a literal length
    /// up to 64): the array literal `[f(x[0]), .., f(x[N - 1])]`, which is what it computes,
    /// item by item in order. `None` for any other call.
    fn mapped_array(&self, call: &syn::ExprMethodCall) -> Option<syn::Expr> {
        if call.method != "map" || call.args.len() != 1 || call.turbofish.is_some() {
            return None;
        }
        let v = self.array_var(&call.receiver)?;
        let Ty::Array(ArrayInfo { shape, .. }) = &self.vars[v].ty else {
            return None;
        };
        let n = match shape {
            Shape::Fixed(n) => n,
            // An array parameter (`x: [f64; 3]`, by value or by reference).
            Shape::Like(p) => match self.vars[*p].param.map(|i| &self.sig.params[i].kind) {
                Some(crate::parse::ParamKind::Array { len, .. }) => len,
                _ => return None,
            },
            _ => return None,
        };
        let n: usize = syn::parse2::<syn::LitInt>(n.clone())
            .ok()?
            .base10_parse()
            .ok()?;
        if n > 64 {
            return None;
        }
        let f = &call.args[0];
        let f: syn::Expr = match f {
            syn::Expr::Closure(_) => syn::parse_quote!((#f)),
            f => f.clone(),
        };
        let x = &call.receiver;
        let span = call.method.span();
        let items = (0..n).map(|i| {
            let i = proc_macro2::Literal::usize_unsuffixed(i);
            quote::quote_spanned!(span=> #f(#x[#i]))
        });
        Some(syn::parse_quote_spanned!(span=> [#(#items),*]))
    }

    /// The float intrinsic a method call names (`x.sin()`, `a.max(b)`), if any: not on a
    /// name bound to an aggregate (`p.round()`, `self.floor()` with `p` and `self` structs),
    /// whose method of that name is the user's.
    pub(super) fn method_rule(&self, call: &syn::ExprMethodCall) -> Option<&'static rules::Rule> {
        rules::lookup(&call.method.to_string()).filter(|_| !self.is_aggregate_var(&call.receiver))
    }

    /// Whether `expr` is a call of a function (`cross(a, b)`, `Body::step(b, dt)`) or of a
    /// method of an aggregate (`p.energy()`) that may go through split companions: not a
    /// float intrinsic, a wrapper (`Some(..)`) or a tuple struct's constructor.
    fn calls_a_companion(&self, expr: &syn::Expr) -> bool {
        match super::strip(expr) {
            syn::Expr::Call(call) => self.companion_call(call, true),
            syn::Expr::MethodCall(call) => {
                self.method_rule(call).is_none() && self.is_place_expr(&call.receiver)
            }
            _ => false,
        }
    }

    /// Whether `call` is a call of a function through split companions (`cross(a, b)`), not
    /// of a float intrinsic (`f64::min(a, b)`), a wrapper (`Some(..)`), a tuple struct's
    /// constructor, a closure or a function that takes a function (`passes_a_function`,
    /// with `bound`).
    pub(super) fn companion_call(&self, call: &syn::ExprCall, bound: bool) -> bool {
        let syn::Expr::Path(p) = &*call.func else {
            return false;
        };
        let last = p.path.segments.last().map(|s| s.ident.to_string());
        let last = last.unwrap_or_default();
        let camel = p.path.segments.len() == 1 && last.starts_with(char::is_uppercase);
        !camel
            && !super::rename::is_wrapper(&p.path)
            && rules::lookup(&last).is_none()
            && !self.is_closure_callee(&call.func)
            && !self.passes_a_function(call, bound)
    }

    /// A call through the split companions of the callee `key` (a path, or a method's name);
    /// `user` for a function or method of the user's (see `ir::Callee::user`).
    #[allow(clippy::too_many_arguments)]
    fn lower_companion_call(
        &mut self,
        key: proc_macro2::TokenStream,
        kind: crate::ir::CalleeKind,
        user: bool,
        span: proc_macro2::Span,
        call_args: &[&syn::Expr],
        at: proc_macro2::Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let text = key.to_string();
        let known = self
            .callees
            .iter()
            .position(|c| c.path.to_string() == text && c.kind == kind);
        let callee = match known {
            Some(i) => i,
            None => {
                let alias = self.names.fresh("callee");
                self.callees.push(crate::ir::Callee {
                    path: key,
                    span,
                    alias,
                    arity: call_args.len(),
                    kind,
                    user,
                    rule: None,
                });
                self.callees.len() - 1
            }
        };
        // A `&mut` parameter of this function passed on as it is (`step(s, dt)`) is passed by
        // `&mut`, as in Rust; a function that only reads it takes `&*s`.
        let constructor = match self.callees[callee].kind {
            crate::ir::CalleeKind::Associated => self.callees[callee].path.clone(),
            _ => proc_macro2::TokenStream::new(),
        };
        let result_ty = self.call_result_ty(&constructor);
        let mut args = Vec::new();
        let mut by_ref = Vec::new();
        let mut by_mut = Vec::new();
        let mut copy_backs = Vec::new();
        let mut paths = Vec::new();
        let method = matches!(kind_of(&self.callees[callee].kind), CalleeShape::Method);
        let mut closures = Vec::new();
        let mut items = Vec::new();
        for (k, &arg) in call_args.iter().enumerate() {
            paths.resize(args.len(), None);
            // `&f` for a function argument `f: F` of this function: passed by reference.
            if let syn::Expr::Reference(r) = super::strip(arg) {
                let function = match r.mutability {
                    None => self.function_param(&r.expr),
                    Some(_) => None,
                };
                if let Some(v) = function {
                    by_mut.push(false);
                    args.push(Operand::Var(v));
                    by_ref.push(true);
                    continue;
                }
            }
            // `f64::sin`, `f64::hypot`, an intrinsic passed by its path: the closure
            // `|a0| f64::sin(a0)`, lifted as any other.
            if let Some(closure) = self.intrinsic_item(arg) {
                if let Value::Closure(closure) = self.lower_expr(&closure, out) {
                    by_mut.pop();
                    closures.push((k, closure, false));
                    continue;
                }
            }
            // `cube`, a function passed by name: its marker stands for it (no captures).
            if let Some(path) = self.function_item(arg) {
                by_mut.push(false);
                items.push((k, path));
                continue;
            }
            // `&f` for a closure `f` (or `&|x| ..`): lifted, and passed by reference.
            if let syn::Expr::Reference(r) = super::strip(arg) {
                if r.mutability.is_none() && self.is_closure_callee(&r.expr) {
                    if let Value::Closure(closure) = self.lower_expr(&r.expr, out) {
                        closures.push((k, closure, true));
                        continue;
                    }
                }
            }
            // `*o` for `o: &V2` (a struct that is `Copy`): a copy of it, passed by value, as
            // `let p = *o;` is.
            if let syn::Expr::Unary(u) = super::strip(arg) {
                let copied = match (&u.op, super::strip(&u.expr)) {
                    (syn::UnOp::Deref(_), syn::Expr::Path(p)) => {
                        p.path
                            .get_ident()
                            .and_then(|i| match self.lookup(&i.to_string()) {
                                Some(Binding::Var(v)) if self.is_aggregate(*v) => Some(*v),
                                _ => None,
                            })
                    }
                    _ => None,
                };
                if let Some(v) = copied {
                    let ty = self.vars[v].ty.clone();
                    let copy = self.let_temp(out, Rhs::Copy(Operand::Var(v)), ty, arg.span());
                    args.push(copy);
                    by_ref.push(false);
                    by_mut.push(false);
                    continue;
                }
            }
            // A part of an aggregate (`&ps[i]`, `&mut self.state`, `self`, `p.mass`): its
            // aggregate and the path to it.
            if self.is_place_expr(arg) {
                let reference = match super::strip(arg) {
                    syn::Expr::Reference(r) => Some(r.mutability.is_some()),
                    syn::Expr::Path(p) => {
                        p.path
                            .get_ident()
                            .and_then(|i| match self.lookup(&i.to_string()) {
                                // (A copy, `let v = p.vel;`, is passed by value.)
                                Some(Binding::Place(place)) if !place.copied => Some(place.mutable),
                                _ => None,
                            })
                    }
                    _ => None,
                };
                let Some(place) = self.place_expr(arg, out) else {
                    return Value::Error;
                };
                // A method's receiver is borrowed as the method says, which the caller does
                // not see: a `mut` one is passed by `&mut` (which a `&self` method reborrows;
                // the adjoint of an unchanged receiver is in-out alike), another by `&`.
                let reference = match method && k == 0 {
                    true => Some(place.mutable),
                    false => reference,
                };
                let by_mut_place = reference == Some(true);
                if by_mut_place && !place.mutable {
                    self.cx.error(arg, "#[reverse] passes `&mut` parts of a `mut` aggregate, a `&mut` parameter or `&mut self`; this one is read-only");
                    return Value::Error;
                }
                args.push(Operand::Var(place.root));
                by_ref.push(reference == Some(false));
                by_mut.push(by_mut_place);
                paths.push((!place.steps.is_empty()).then(|| Path(place.steps)));
                continue;
            }
            let passed_on = match arg {
                syn::Expr::Path(p) => {
                    p.path
                        .get_ident()
                        .and_then(|i| match self.lookup(&i.to_string()) {
                            Some(Binding::Var(v)) if self.mut_refs.contains(v) => Some(*v),
                            _ => None,
                        })
                }
                _ => None,
            };
            if let Some(var) = passed_on.or_else(|| self.mut_arg(arg)) {
                args.push(Operand::Var(var));
                by_ref.push(false);
                by_mut.push(true);
                continue;
            }
            by_mut.push(false);
            match self.view_arg(arg, out) {
                Some(Ok((copy, None))) => {
                    args.push(Operand::Var(copy));
                    by_ref.push(true);
                    continue;
                }
                // `&mut x[a..b]`: the copy by `&mut`, written back after the call.
                Some(Ok((copy, Some(view)))) => {
                    args.push(Operand::Var(copy));
                    by_ref.push(false);
                    if let Some(m) = by_mut.last_mut() {
                        *m = true;
                    }
                    copy_backs.push((copy, view, arg.span()));
                    continue;
                }
                Some(Err(())) => return Value::Error,
                None => {}
            }
            if let Some((array, reference)) = self.array_arg(arg) {
                args.push(Operand::Var(array));
                by_ref.push(reference);
                continue;
            }
            // `v` for `let v = &xs[i];`: the reference the primal passes, to the value the IR
            // holds.
            if let syn::Expr::Path(_) = super::strip(arg) {
                if let Some(v) = self
                    .deref_var(arg)
                    .filter(|v| self.element_refs.contains(v))
                {
                    args.push(Operand::Var(v));
                    by_ref.push(true);
                    continue;
                }
            }
            // `&[x, y]`: a temporary array, passed by reference (a slice parameter).
            if let syn::Expr::Reference(r) = super::strip(arg) {
                let floats = matches!(super::strip(&r.expr), syn::Expr::Array(a)
                    if a.elems.iter().any(|e| self.is_float_expr(e)));
                if r.mutability.is_none() && floats {
                    match self.lower_expr(&r.expr, out) {
                        Value::Op(op @ Operand::Var(_)) => {
                            args.push(op);
                            by_ref.push(true);
                            continue;
                        }
                        Value::Error => return Value::Error,
                        _ => {}
                    }
                }
            }
            // `&x`, `&v[i]`: a float passed by shared reference (a `&f64` parameter).
            if let (true, syn::Expr::Reference(r)) = (self.shared_float_arg(arg), super::strip(arg))
            {
                // `len(&rot(p, t))`: a call's result lent whole, taken for an aggregate (see
                // `results`), as a borrowed variable is.
                let lent = r.mutability.is_none()
                    && self.passes_on_aggregates()
                    && self.result_shape.is_none()
                    && self.calls_a_companion(&r.expr);
                if lent {
                    self.result_shape = Some(super::results::ResultShape::Aggregate);
                }
                let value = self.lower_expr(&r.expr, out);
                if lent {
                    self.result_shape = None;
                }
                let op = match value {
                    Value::Op(op @ Operand::Var(_)) => op,
                    // (`&2.0`: a temporary to refer to.)
                    Value::Op(lit) => {
                        let ty = match self.ty_of(&lit) {
                            ty if ty.is_float() => ty,
                            _ => Ty::Float(None),
                        };
                        self.let_temp(out, Rhs::Copy(lit), ty, arg.span())
                    }
                    Value::Error => return Value::Error,
                    _ => {
                        self.cx.error(arg, "#[reverse] expects a number here");
                        return Value::Error;
                    }
                };
                args.push(op);
                by_ref.push(true);
                continue;
            }
            // `norm(cross(a, b))`: a call's result passed on whole may be an array or a
            // struct as well as a float, taken for an aggregate (see `results`); the callee
            // that `arg` calls takes the shape before its own arguments are lowered.
            let passed_on = self.passes_on_aggregates()
                && self.result_shape.is_none()
                && self.calls_a_companion(arg);
            if passed_on {
                self.result_shape = Some(super::results::ResultShape::Aggregate);
            }
            let value = self.lower_expr(arg, out);
            if passed_on {
                self.result_shape = None;
            }
            match value {
                Value::Op(op) => args.push(op),
                Value::Error => return Value::Error,
                // A closure of integers, for an inactive argument: passed as written, and
                // made again where the reverse sweep needs it (it calls nothing).
                Value::Closure(closure) if self.is_integer_closure(&closure.expr) => {
                    let mut opaque = self.opaque(arg);
                    opaque.cheap = true;
                    let v = self.let_opaque(out, "t", Ty::Other, opaque, arg.span());
                    args.push(Operand::Var(v));
                }
                Value::Closure(closure) => {
                    // Lifted (`hoist`): its captured variables are passed at the end.
                    by_mut.pop();
                    closures.push((k, closure, false));
                    continue;
                }
                Value::Tuple(_) => {
                    self.cx.error(
                        arg,
                        "#[reverse] passes numbers, arrays, structs or inactive values to \
                         functions, not tuples of differentiated values; pass the elements as \
                         parameters of their own (`g(a, b)`), or a struct of them",
                    );
                    return Value::Error;
                }
                _ => {
                    self.cx.error(
                        arg,
                        "#[reverse] passes numbers, float arrays or inactive values to \
                         functions; this argument is none of these",
                    );
                    return Value::Error;
                }
            }
            // (A function argument passed on is copied: both sweeps pass it.)
            by_ref.push(false);
        }
        paths.resize(args.len(), None);
        let mut closure_args = Vec::new();
        for (position, path) in items {
            closure_args.push(crate::ir::ClosureArg {
                position,
                by_ref: false,
                hoisted: 0,
                item: Some(path),
                captures: args.len()..args.len(),
            });
        }
        for (position, closure, by_reference) in closures {
            let Some((hoisted, captured)) = self.hoist_closure(&closure) else {
                return Value::Error;
            };
            let start = args.len();
            for v in captured {
                let array = self.vars[v].ty.is_array();
                args.push(Operand::Var(v));
                by_ref.push(array);
                by_mut.push(false);
                paths.push(None);
            }
            closure_args.push(crate::ir::ClosureArg {
                position,
                by_ref: by_reference,
                item: None,
                hoisted,
                captures: start..args.len(),
            });
        }
        let rhs = Rhs::Call(crate::ir::Call {
            callee,
            args,
            by_ref,
            by_mut,
            parts: Vec::new(),
            paths,
            method,
            closures: closure_args,
            receiver_old: None,
        });
        let writes = matches!(&rhs, Rhs::Call(c) if c.by_mut.contains(&true));
        let result_ty = result_ty.unwrap_or(Ty::Float(None));
        let result = self.let_temp(out, rhs, result_ty, at);
        for (copy, view, span) in &copy_backs {
            self.copy_back(view, *copy, *span, out);
        }
        if let Operand::Var(v) = result {
            self.settle_result_shape(v);
            self.call_results.push(v);
            if writes {
                self.mut_calls.push(v);
            }
        }
        Value::Op(result)
    }

    /// Whether `expr` names a variable whose value was already reported as an error.
    pub(super) fn is_poisoned(&self, expr: &syn::Expr) -> bool {
        match expr {
            syn::Expr::Path(p) => matches!(
                p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
                Some(Binding::Poisoned)
            ),
            syn::Expr::Paren(p) => self.is_poisoned(&p.expr),
            _ => false,
        }
    }

    /// A float variable passed by `&mut` (`&mut x`, `&mut buf`, `&mut *out` for a `&mut f64`
    /// parameter): the callee may write it.
    fn mut_arg(&self, arg: &syn::Expr) -> Option<VarId> {
        match arg {
            syn::Expr::Reference(r) if r.mutability.is_some() => {
                let inner = match &*r.expr {
                    // `&mut *out` (a `&mut f64` parameter), `&mut *s` (a `&mut [f64]` one).
                    syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                        match self.deref_var(&u.expr) {
                            Some(v) => v,
                            None => {
                                let syn::Expr::Path(p) = &*u.expr else {
                                    return None;
                                };
                                match self.lookup(&p.path.get_ident()?.to_string())? {
                                    Binding::Var(v) if self.mut_refs.contains(v) => *v,
                                    _ => return None,
                                }
                            }
                        }
                    }
                    syn::Expr::Path(p) => match self.lookup(&p.path.get_ident()?.to_string())? {
                        Binding::Var(v) => *v,
                        _ => return None,
                    },
                    _ => return None,
                };
                let var = &self.vars[inner];
                (var.mutable && (var.ty.is_array() || var.ty.is_float())).then_some(inner)
            }
            syn::Expr::Paren(p) => self.mut_arg(&p.expr),
            _ => None,
        }
    }

    /// A float value passed by shared reference (`&x`, `&v[i]`, `&(a * b)`), not an array
    /// (`array_arg`) nor a part of an aggregate (`is_place_expr`).
    fn shared_float_arg(&self, arg: &syn::Expr) -> bool {
        let syn::Expr::Reference(r) = super::strip(arg) else {
            return false;
        };
        r.mutability.is_none()
            && self.is_float_expr(&r.expr)
            && self.array_arg(arg).is_none()
            && !self.is_place_expr(arg)
            && !self.is_view_expr(arg)
    }

    /// A float array passed as a call argument: `w` or `&w`.
    fn array_arg(&self, arg: &syn::Expr) -> Option<(VarId, bool)> {
        match arg {
            // `&*s` for a `&mut` parameter `s`: the body's copy, shared.
            syn::Expr::Reference(r) if r.mutability.is_none() => match &*r.expr {
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                    let syn::Expr::Path(p) = &*u.expr else {
                        return None;
                    };
                    match self.lookup(&p.path.get_ident()?.to_string())? {
                        Binding::Var(v) if self.mut_refs.contains(v) => Some((*v, true)),
                        _ => None,
                    }
                }
                inner => self.array_var(inner).map(|v| (v, true)),
            },
            syn::Expr::Paren(p) => self.array_arg(&p.expr),
            other => self.array_var(other).map(|v| (v, false)),
        }
    }

    /// Records that the temporary holding `value` has float type `t` (from `f32::sin(x)`).
    fn pin_float(&mut self, value: &Value, t: FloatTy) {
        if let Value::Op(Operand::Var(v)) = value {
            if matches!(self.vars[*v].ty, Ty::Float(None)) {
                self.vars[*v].ty = Ty::Float(Some(t));
            }
        }
    }

    fn lower_intrinsic(
        &mut self,
        expr: &syn::Expr,
        rule: &'static rules::Rule,
        args: &[&syn::Expr],
        span: proc_macro2::Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        if !args.iter().take(rule.arity).any(|a| self.is_float_expr(a)) {
            // An integer method that shares a name with a float one (`k.abs()`, `n.max(m)`),
            // or an intrinsic of constants.
            let ty = if args.iter().any(|a| self.is_float_expr(a)) {
                Ty::Float(None)
            } else {
                self.int_ty(expr)
            };
            return self.opaque_value(expr, ty, out);
        }
        let mut operands = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            let operand = if i >= rule.arity {
                self.lower_int_operand(arg, Ty::I32, out)
            } else {
                match self.lower_expr(arg, out) {
                    Value::Op(op) => op,
                    _ => {
                        self.cx
                            .error(arg, format!("`{}` needs a number here", rule.name));
                        return Value::Unit;
                    }
                }
            };
            operands.push(operand);
        }
        let ty = operands
            .iter()
            .take(rule.arity)
            .map(|op| self.ty_of(op))
            .fold(Ty::Unknown, |a, b| join(&a, &b));
        let ty = if ty.is_float() { ty } else { Ty::Float(None) };
        Value::Op(self.let_temp(out, Rhs::Intrinsic(rule, operands), ty, span))
    }

    /// Lowers an integer operand (an index, an exponent): a literal or a variable as is,
    /// anything else into a temporary of type `ty`.
    pub(super) fn lower_int_operand(
        &mut self,
        expr: &syn::Expr,
        ty: Ty,
        out: &mut Vec<Stmt>,
    ) -> Operand {
        match expr {
            syn::Expr::Lit(lit) => return literal(&lit.lit),
            syn::Expr::Paren(p) => return self.lower_int_operand(&p.expr, ty, out),
            syn::Expr::Path(path) => {
                if let Some(ident) = path.path.get_ident() {
                    if let Some(Binding::Var(v)) = self.lookup(&ident.to_string()) {
                        return Operand::Var(*v);
                    }
                }
            }
            _ => {}
        }
        let prefix = if ty == Ty::Usize { "i" } else { "k" };
        self.with_closure_calls(expr, None, out, |this, rewritten, out| {
            let opaque = this.opaque(rewritten);
            if opaque.reads.is_empty() {
                return Operand::Lit(opaque.expr, LitKind::Unknown);
            }
            Operand::Var(this.let_opaque(out, prefix, ty, opaque, expr.span()))
        })
    }

    fn lower_cast(&mut self, expr: &syn::Expr, cast: &syn::ExprCast, out: &mut Vec<Stmt>) -> Value {
        match float_of(&cast.ty) {
            Some(t) => self.cast_to(&cast.expr, t, expr, out),
            None => {
                let ty = super::inactive_param_ty(&cast.ty);
                self.opaque_value(expr, ty, out)
            }
        }
    }

    /// `inner as f64` (or `f64::from(inner)`).
    fn cast_to(
        &mut self,
        inner: &syn::Expr,
        t: FloatTy,
        whole: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Value {
        if !self.is_float_expr(inner) {
            // An integer converted to a float: a constant as far as derivatives go (whatever
            // it reads, when it is certainly an integer: `(l.count - 1) as f64`).
            if self.is_int_expr(inner) {
                let float = t.ident();
                // (Without the user's parentheses, which would be unused inside the call.)
                let inner = super::strip(inner);
                let cast: syn::Expr = syn::parse_quote_spanned!(whole.span()=>
                    ::revad::__private::expect_integer(#inner) as #float);
                let ty = Ty::Float(Some(t));
                return self.without_derivative(&cast, ty, true, whole.span(), out);
            }
            return self.opaque_value(whole, Ty::Float(Some(t)), out);
        }
        match self.lower_expr(inner, out) {
            Value::Op(op) => {
                let span = whole.span();
                Value::Op(self.let_temp(out, Rhs::Cast(op, t), Ty::Float(Some(t)), span))
            }
            Value::Error => Value::Error,
            other => {
                self.cx.error(inner, "only numbers can be cast");
                other
            }
        }
    }

    fn lower_index(
        &mut self,
        expr: &syn::Expr,
        index: &syn::ExprIndex,
        out: &mut Vec<Stmt>,
    ) -> Value {
        if let Some(value) = self.lower_view_index(expr, index, out) {
            return value;
        }
        if self.is_place_expr(expr) {
            if let Some(place) = self.place_expr(expr, out) {
                return self.load(place, expr.span(), out);
            }
        }
        let Some(array) = self.array_var(&index.expr) else {
            let call_result = match &*index.expr {
                syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                    matches!(self.lookup(&i.to_string()), Some(Binding::Var(v)) if self.call_results.contains(v))
                }),
                syn::Expr::Call(_) => self.is_float_expr(&index.expr),
                _ => false,
            };
            if call_result {
                self.cx.error(&index.expr, super::CALL_RESULT_NOT_SCALAR);
                if let syn::Expr::Path(p) = &*index.expr {
                    if let Some(ident) = p.path.get_ident() {
                        // One error per variable, not one per use.
                        self.bind(ident, Binding::Poisoned);
                    }
                }
                return Value::Error;
            }
            if self.is_float_expr(&index.expr) {
                self.cx.error(
                    &index.expr,
                    "#[reverse] can index float arrays bound to a name (`w[i]`); bind this \
                     expression to a variable first",
                );
                return Value::Error;
            }
            return self.opaque_value(expr, Ty::Unknown, out);
        };
        let idx = self.lower_int_operand(&index.index, Ty::Usize, out);
        let elem = match &self.vars[array].ty {
            Ty::Array(info) => info.elem,
            _ => None,
        };
        Value::Op(self.let_temp(
            out,
            Rhs::Index(array, Path::index(idx)),
            Ty::Float(elem),
            expr.span(),
        ))
    }

    /// The float array variable `expr` names, if any.
    pub(super) fn array_var(&self, expr: &syn::Expr) -> Option<VarId> {
        let syn::Expr::Path(path) = expr else {
            return None;
        };
        let ident = path.path.get_ident()?;
        match self.lookup(&ident.to_string())? {
            Binding::Var(v) if self.vars[*v].ty.is_array() && !self.is_aggregate(*v) => Some(*v),
            _ => None,
        }
    }

    /// Whether `field` is an element of a tuple that a call with float arguments returns
    /// (`g(x).0`): the error [`super::CALL_TUPLE`] at the call.
    fn rejects_call_tuple(&self, field: &syn::ExprField) -> bool {
        // (`f64::sin_cos(x).1` is the body's own tuple.)
        if self.is_float_tuple_part(field) {
            return false;
        }
        let (syn::Expr::Call(call), syn::Member::Unnamed(_)) =
            (super::strip(&field.base), &field.member)
        else {
            return false;
        };
        let floats = call
            .args
            .iter()
            .any(|a| self.is_float_expr(a) || self.array_arg(a).is_some());
        if floats {
            self.cx.error(&field.base, super::CALL_TUPLE);
        }
        floats
    }

    fn lower_field(
        &mut self,
        expr: &syn::Expr,
        field: &syn::ExprField,
        out: &mut Vec<Stmt>,
    ) -> Value {
        if self.is_place_expr(expr) {
            if let Some(place) = self.place_expr(expr, out) {
                return self.load(place, expr.span(), out);
            }
        }
        if let Some(value) = self.lower_field_of_a_result(field, out) {
            return value;
        }
        // `x.sin_cos().0` (and `f64::sin_cos(x).1`, `(a, b).0`): the part of the tuple the
        // base lowers to; the other part's code is left for LLVM to drop.
        if let syn::Member::Unnamed(index) = &field.member {
            let base = super::strip(&field.base);
            if self.is_float_tuple_part(field) {
                if let Value::Tuple(items) = self.lower_expr(base, out) {
                    return match items.into_iter().nth(index.index as usize) {
                        Some(item) => item,
                        None => {
                            self.cx.error(&field.member, "no such tuple element");
                            Value::Error
                        }
                    };
                }
            }
        }
        if self.rejects_call_tuple(field) {
            return Value::Error;
        }
        if let (syn::Expr::Path(p), syn::Member::Unnamed(index)) = (&*field.base, &field.member) {
            if let Some(ident) = p.path.get_ident() {
                if let Some(Binding::Tuple(items)) = self.lookup(&ident.to_string()) {
                    return match items.get(index.index as usize) {
                        Some(item) => binding_value(std::slice::from_ref(item)).into_first(),
                        None => {
                            self.cx.error(&field.member, "no such tuple element");
                            Value::Error
                        }
                    };
                }
            }
        }
        self.opaque_value(expr, Ty::Unknown, out)
    }

    /// Whether `field` is a float part of a tuple that the body builds: `x.sin_cos().0`,
    /// `f64::sin_cos(x).1` of a float `x`, `(a, b).0` of a float `a`.
    fn is_float_tuple_part(&self, field: &syn::ExprField) -> bool {
        let syn::Member::Unnamed(index) = &field.member else {
            return false;
        };
        match super::strip(&field.base) {
            syn::Expr::Tuple(t) => t
                .elems
                .iter()
                .nth(index.index as usize)
                .is_some_and(|e| self.is_float_expr(e)),
            syn::Expr::MethodCall(m) => {
                m.method == "sin_cos" && m.args.is_empty() && self.is_float_expr(&m.receiver)
            }
            syn::Expr::Call(c) => {
                let sin_cos = matches!(&*c.func, syn::Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| s.ident == "sin_cos"));
                sin_cos && c.args.len() == 1 && c.args.iter().all(|a| self.is_float_expr(a))
            }
            _ => false,
        }
    }

    /// The call whose result `field` reads a named field of (`(a + b).x` is of `a.add(b)`,
    /// see `user_operator`): a method or function of the user's, which returns a struct.
    fn struct_call_of_field(&self, field: &syn::ExprField) -> Option<syn::Expr> {
        if !matches!(field.member, syn::Member::Named(_)) {
            return None;
        }
        let base = match self.struct_operator(&field.base, None) {
            Some(call) => syn::Expr::MethodCall(call),
            None => super::strip(&field.base).clone(),
        };
        // (A call with a differentiated argument: `config().rate` is read as written.)
        let of_a_user_call = self.is_user_call(&base)
            && match &base {
                syn::Expr::Call(c) => c
                    .args
                    .iter()
                    .any(|a| self.is_float_expr(a) || self.is_place_expr(a)),
                _ => true,
            };
        of_a_user_call.then_some(base)
    }

    /// `(a + b).x`, `p.mid(q).x`, `centre(a, b).y`: a named field of the struct that a call
    /// of the user's returns (an operator on a struct of the user's is one, see
    /// `user_operator`), read from the result bound to a variable. `None` for another field.
    fn lower_field_of_a_result(
        &mut self,
        field: &syn::ExprField,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let base = self.struct_call_of_field(field)?;
        // (The call's result is a struct, whatever the statement expects of the field.)
        let wanted = self
            .result_shape
            .replace(super::results::ResultShape::Aggregate);
        let value = self.lower_expr(&base, out);
        self.result_shape = wanted;
        match value {
            Value::Op(Operand::Var(v)) if self.is_aggregate(v) => {
                let place = super::places::Place {
                    root: v,
                    steps: vec![crate::ir::Step::Field(field.member.clone())],
                    mutable: false,
                    copied: false,
                };
                Some(self.load(place, field.span(), out))
            }
            Value::Error => Some(Value::Error),
            _ => {
                self.cx.error(
                    &field.base,
                    "#[reverse] reads fields of a struct a call returns; bind this value with \
                     `let` first",
                );
                Some(Value::Error)
            }
        }
    }

    /// `Pair(x, y)`: a tuple struct's constructor (a `CamelCase` name, by Rust's naming
    /// convention), an aggregate like a struct expression, or an enum variant's
    /// (`Shape::Circle(r)`, see `enums`). `None` for any other call.
    fn lower_constructor(
        &mut self,
        call: &syn::ExprCall,
        path: &syn::Path,
        out: &mut Vec<Stmt>,
    ) -> Option<Value> {
        let last = path.segments.last()?;
        let camel = last
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase());
        if !camel
            || super::rename::is_wrapper(path)
            || !call
                .args
                .iter()
                .any(|a| self.is_float_expr(a) || self.is_place_expr(a))
        {
            return None;
        }
        // `Shape::Circle(r)`: an enum variant (see `enums`).
        let variant = match super::enums::is_variant_path(path) {
            true => match self.enum_variant(path) {
                Some(variant) => Some(variant),
                None => return Some(Value::Error),
            },
            false => None,
        };
        let mut fields = Vec::new();
        for (k, arg) in call.args.iter().enumerate() {
            let member = syn::Member::Unnamed(syn::Index::from(k));
            let op = if self.is_place_expr(arg) {
                let place = self.place_expr(arg, out)?;
                self.copy_place(place, arg.span(), out)
            } else {
                match self.lower_expr(arg, out) {
                    Value::Op(op) => op,
                    Value::Error => return Some(Value::Error),
                    _ => {
                        self.cx.error(
                            arg,
                            "#[reverse] takes a number, an array or a struct as the value of a \
                             field; bind this value to a name of its own first",
                        );
                        return Some(Value::Error);
                    }
                }
            };
            fields.push((member.to_token_stream(), op));
        }
        Some(self.struct_value(
            path.to_token_stream(),
            fields,
            true,
            variant,
            call.span(),
            out,
        ))
    }

    /// `V2 { x: k, ..base }`: a copy of `base` (of the struct's type, `Default::default()`
    /// too) whose fields as written are assigned, after their values are computed in order:
    /// `{ let f = k; let mut u: V2 = base; u.x = f; u }`.
    fn lower_struct_update(
        &mut self,
        s: &syn::ExprStruct,
        rest: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Value {
        if s.qself.is_some() || super::enums::is_variant_path(&s.path) {
            self.cx.error(
                rest,
                "#[reverse] takes struct update syntax (`..base`) for a struct with a plain \
                 path (`V2 { x: k, ..base }`); write every field",
            );
            return Value::Error;
        }
        let path = &s.path;
        let span = rest.span();
        let update = syn::Ident::new("__revad_update", span);
        let mut stmts: Vec<syn::Stmt> = Vec::new();
        let mut assigns: Vec<syn::Stmt> = Vec::new();
        for (k, field) in s.fields.iter().enumerate() {
            let value = syn::Ident::new(&format!("__revad_field{k}"), field.expr.span());
            let (expr, member) = (&field.expr, &field.member);
            stmts.push(syn::parse_quote_spanned!(field.expr.span()=> let #value = #expr;));
            assigns.push(syn::parse_quote_spanned!(field.expr.span()=> #update.#member = #value;));
        }
        let block: syn::Expr = syn::parse_quote_spanned!(span=> {
            #(#stmts)*
            let mut #update: #path = #rest;
            #(#assigns)*
            #update
        });
        self.lower_expr(&block, out)
    }

    /// `Particle { pos: [x, y, z], mass: m }`: an aggregate (see `places`).
    fn lower_struct(&mut self, s: &syn::ExprStruct, out: &mut Vec<Stmt>) -> Value {
        if let Some(rest) = &s.rest {
            return self.lower_struct_update(s, rest, out);
        }
        if s.qself.is_some() {
            self.cx.error(&s.path, "#[reverse] needs a struct expression with a plain path (`Particle { .. }`, `Self { .. }`)");
            return Value::Error;
        }
        // `Shape::Rect { w, h }`: an enum variant (see `enums`).
        let variant = match super::enums::is_variant_path(&s.path) {
            true => match self.enum_variant(&s.path) {
                Some(variant) => Some(variant),
                None => return Value::Error,
            },
            false => None,
        };
        let mut fields = Vec::new();
        for field in &s.fields {
            // A part of an aggregate may be a float, an array or a struct: a copy of it.
            if self.is_place_expr(&field.expr) {
                if let Some(place) = self.place_expr(&field.expr, out) {
                    let op = self.copy_place(place, field.expr.span(), out);
                    fields.push((field.member.to_token_stream(), op));
                    continue;
                }
            }
            let value = self.lower_expr(&field.expr, out);
            let op = match value {
                Value::Op(op) => op,
                Value::Error => return Value::Error,
                _ => {
                    self.cx.error(
                        &field.expr,
                        "#[reverse] takes a number, an array or a struct as the value of a \
                         field; bind this value to a name of its own first",
                    );
                    return Value::Error;
                }
            };
            fields.push((field.member.to_token_stream(), op));
        }
        self.struct_value(
            s.path.to_token_stream(),
            fields,
            false,
            variant,
            s.span(),
            out,
        )
    }

    /// `let __s = path { fields };` (or `path(fields)` for a tuple struct): an aggregate
    /// whose adjoint is shaped like itself.
    fn struct_value(
        &mut self,
        path: proc_macro2::TokenStream,
        fields: Vec<(proc_macro2::TokenStream, Operand)>,
        tuple: bool,
        variant: Option<crate::ir::Variant>,
        span: proc_macro2::Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let var = self.fresh("s", Ty::Unknown, false, span);
        self.vars[var].ty = Ty::Array(ArrayInfo {
            elem: None,
            shape: Shape::Like(var),
            agg: true,
        });
        self.user_structs.push(var);
        let lit = crate::ir::StructLit {
            path,
            fields,
            tuple,
            variant,
        };
        out.push(IrStmt {
            kind: StmtKind::Let {
                var,
                rhs: Rhs::StructLit(lit),
                ty: None,
            },
            span,
        });
        Value::Op(Operand::Var(var))
    }

    fn lower_array(&mut self, array: &syn::ExprArray, out: &mut Vec<Stmt>) -> Value {
        // An integer array (`[0usize, 2, 1]`) is data: inactive, emitted as written.
        let int_literal = |e: &syn::Expr| {
            matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })
                if !matches!(i.suffix(), "f32" | "f64"))
        };
        // So is an array of unit variants (`[Mode::Lin, Mode::Sq]`: a `CamelCase` name after
        // the enum's, where a constant's is `UPPER_CASE`).
        let unit_variant = |e: &syn::Expr| match super::strip(e) {
            syn::Expr::Path(p) => {
                super::enums::is_variant_path(&p.path)
                    && p.path.segments.last().is_some_and(|s| {
                        let name = s.ident.to_string();
                        name.starts_with(|c: char| c.is_ascii_uppercase())
                            && name.contains(|c: char| c.is_ascii_lowercase())
                    })
            }
            _ => false,
        };
        if array.elems.iter().any(int_literal) || array.elems.iter().any(unit_variant) {
            let expr = syn::Expr::Array(array.clone());
            return self.opaque_value(&expr, Ty::Other, out);
        }
        if array.elems.iter().any(is_array_expr) {
            return self.nested_array(&syn::Expr::Array(array.clone()), array.span(), out);
        }
        let mut elems = Vec::new();
        for e in &array.elems {
            match self.lower_expr(e, out) {
                Value::Op(op) => elems.push(op),
                Value::Error => return Value::Error,
                _ => {
                    self.cx.error(e, ARRAY_OF_NUMBERS);
                    return Value::Error;
                }
            }
        }
        let elem = elems
            .iter()
            .map(|e| self.ty_of(e))
            .fold(Ty::Unknown, |a, b| join(&a, &b));
        let elem = match elem {
            Ty::Float(t) => t,
            _ => None,
        };
        let len = proc_macro2::Literal::usize_unsuffixed(elems.len()).into_token_stream();
        let ty = Ty::Array(ArrayInfo {
            elem,
            shape: Shape::Fixed(len),
            agg: false,
        });
        Value::Op(self.let_temp(out, Rhs::ArrayLit(elems), ty, array.span()))
    }

    /// A 2-D (or deeper) array built in the body, `[[0.0; D]; T]` or `[[1.0, 2.0], [3.0,
    /// 4.0]]`, from constants: an aggregate (a nested container, see `places`) whose
    /// elements the body may then write (`q[t][i] += ..`) and read (`q[t][i]`). One built
    /// from variables is rejected (its elements' derivatives would be lost), but for the rows
    /// written out in a `let` (see `build_nested_array`).
    fn nested_array(
        &mut self,
        expr: &syn::Expr,
        at: proc_macro2::Span,
        out: &mut Vec<Stmt>,
    ) -> Value {
        let opaque = self.opaque(expr);
        // (Lengths are `usize`s, whatever they read: `vec![vec![0.0; n + 1]; b.len()]`; the
        // item repeated is a constant, or reads integers only.)
        let constant_item = self
            .opaque(repeated_item(expr))
            .flows
            .iter()
            .all(|&r| matches!(self.vars[r].ty, Ty::Usize | Ty::I32));
        if !constant_item {
            self.cx.error_at(
                at,
                "#[reverse] builds 2-D arrays from constants (`[[0.0; D]; T]`) and, in a \
                 `let`, from rows written out (`let m = [[c, -s], [s, c]];`); start from one \
                 and assign its elements (`q[t][i] = x;`)",
            );
            return Value::Error;
        }
        let ty = Ty::Array(ArrayInfo {
            elem: None,
            shape: Shape::Like(usize::MAX),
            agg: true,
        });
        let var = self.let_opaque(out, "t", ty, opaque, expr.span());
        if let Ty::Array(info) = &mut self.vars[var].ty {
            info.shape = Shape::Like(var);
        }
        Value::Op(Operand::Var(var))
    }

    fn lower_repeat(&mut self, repeat: &syn::ExprRepeat, out: &mut Vec<Stmt>) -> Value {
        if is_array_expr(&repeat.expr) || super::results::is_struct_value(&repeat.expr) {
            return self.nested_array(&syn::Expr::Repeat(repeat.clone()), repeat.span(), out);
        }
        let value = self.lower_expr(&repeat.expr, out);
        let Some(elem) = self.number(value, &repeat.expr, ARRAY_OF_NUMBERS) else {
            return Value::Error;
        };
        let len = repeat.len.to_token_stream();
        let elem_ty = match self.ty_of(&elem) {
            Ty::Float(t) => t,
            Ty::Unknown | Ty::Other | Ty::Usize | Ty::I32 | Ty::Bool | Ty::Array(_) => {
                if !self.is_float_expr(&repeat.expr) {
                    let e = syn::Expr::Repeat(repeat.clone());
                    return self.opaque_value(&e, Ty::Other, out);
                }
                None
            }
        };
        let ty = Ty::Array(ArrayInfo {
            elem: elem_ty,
            shape: Shape::Fixed(len.clone()),
            agg: false,
        });
        Value::Op(self.let_temp(out, Rhs::ArrayRepeat(elem, len), ty, repeat.span()))
    }

    fn lower_macro(&mut self, mac: &syn::Macro, out: &mut Vec<Stmt>) -> Value {
        if !mac.path.is_ident("vec") {
            self.cx
                .error(&mac.path, super::rename::macro_message(&mac.path, false));
            return Value::Error;
        }
        let tokens = &mac.tokens;
        let repeat: syn::Result<syn::ExprRepeat> = syn::parse2(quote!([#tokens]));
        let Ok(repeat) = repeat else {
            if let Some(value) = self.lower_vec_literal(mac, out) {
                return value;
            }
            self.cx.error(
                mac,
                "#[reverse] supports `vec![x; n]`; for a vector of given values write an array \
                 `[a, b, c]`",
            );
            return Value::Error;
        };
        // `vec![vec![0.0; n]; m]`, `vec![[0.0; 3]; n]`: a nested container, as `[[0.0; D]; T]`;
        // `vec![P2::default(); n]`, `vec![P2 { x: 0.0, y: 0.0 }; n]` too, of structs.
        let nested = match super::strip(&repeat.expr) {
            syn::Expr::Macro(inner) => inner.mac.path.is_ident("vec"),
            inner => is_array_expr(inner) || super::results::is_struct_value(inner),
        };
        if nested {
            let value = self.nested_array(&vec_repeat_call(&repeat, false), mac.span(), out);
            if let Value::Op(Operand::Var(v)) = value {
                let witness = vec_repeat_call(&repeat, true).into_token_stream();
                self.witnesses.push((v, witness));
            }
            return value;
        }
        let value = self.lower_expr(&repeat.expr, out);
        let Some(elem) = self.number(
            value,
            &repeat.expr,
            "#[reverse] supports vectors of numbers",
        ) else {
            return Value::Error;
        };
        let elem_ty = match self.ty_of(&elem) {
            Ty::Float(t) => t,
            _ if self.is_float_expr(&repeat.expr) => None,
            _ => {
                let e: syn::Expr = syn::Expr::Macro(syn::ExprMacro {
                    attrs: vec![],
                    mac: mac.clone(),
                });
                return self.opaque_value(&e, Ty::Other, out);
            }
        };
        let len = self.lower_int_operand(&repeat.len, Ty::Usize, out);
        let ty = Ty::Array(ArrayInfo {
            elem: elem_ty,
            shape: Shape::Len(len.clone()),
            agg: false,
        });
        Value::Op(self.let_temp(out, Rhs::VecRepeat(elem, len), ty, mac.span()))
    }

    // ---- assignment -----------------------------------------------------------------------

    /// `v = e;`, `v op= e;`, `a[i] = e;`, `a[i] op= e;`.
    pub(super) fn lower_assign(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) {
        let (left, right, op) = match expr {
            syn::Expr::Assign(a) => (&*a.left, &*a.right, None),
            syn::Expr::Binary(b) => (&*b.left, &*b.right, Some(b.op)),
            _ => return,
        };
        if let (syn::Expr::Tuple(places), None) = (super::strip(left), op) {
            return self.destructuring_assign(places, right, out);
        }
        // `s = Shape::Circle(x);`, `layer.bias = None;` on a value with derivatives that the
        // body takes apart by variant: its adjoint is in the variant it had, which the parts
        // bound by a `match` read.
        if op.is_none()
            && is_variant_value(right)
            && self.is_place_expr(left)
            && super::enums::root_name(left).is_some_and(|r| self.variant_roots.contains(&r))
        {
            self.cx.error(
                right,
                "#[reverse] does not assign an enum's variant (or `None`, `Some(..)`) to a value \
                 with derivatives: its adjoint keeps the variant it had; bind the new value to a \
                 new name (`let s2 = Shape::Circle(x);`)",
            );
            return;
        }
        // (Only where `left` calls nothing: it is written once per item.)
        if let (syn::Expr::Index(_) | syn::Expr::Field(_), syn::Expr::Array(items), None) =
            (super::strip(left), super::strip(right), op)
        {
            if has_parens(&left.to_token_stream()) {
                self.cx.error(
                    left,
                    "#[reverse] writes a row given as an array literal item by item; bind the \
                     index to a variable first (`let k = ..; p[k] = [..];`)",
                );
                return;
            }
            return self.assign_row(left, items, out);
        }
        if self.is_place_expr(left) && !matches!(left, syn::Expr::Path(_)) {
            self.assign_place(expr, left, right, op, out);
            return;
        }
        match left {
            syn::Expr::Path(path) if path.path.get_ident().is_some() => {
                let ident = path.path.get_ident().cloned();
                let Some(ident) = ident else { return };
                let var = match self.lookup(&ident.to_string()) {
                    Some(Binding::Var(v)) => *v,
                    Some(Binding::Poisoned) => return,
                    Some(Binding::View(_)) => {
                        self.cx.error(left, "#[reverse] cannot assign a slice to a variable again; bind the new slice to a new name (`let v2 = &x[a..b];`)");
                        return;
                    }
                    Some(
                        Binding::Tuple(_)
                        | Binding::Closure(_)
                        | Binding::Place(_)
                        | Binding::Chain(_),
                    ) => {
                        self.cx.error(left, "#[reverse] can assign to numbers and array elements; assign the elements of a tuple one by one");
                        return;
                    }
                    None => {
                        self.cx.error(left, "#[reverse] can assign to local variables only");
                        return;
                    }
                };
                self.assign_var(expr, var, right, op, out);
            }
            syn::Expr::Index(index) => {
                // An element of a slice (`let v = &mut x[a..b]; v[i] = ..`): of its base.
                let target = match self.view_target(index, out) {
                    Some(Some(target)) => Some(target),
                    Some(None) => return,
                    None => None,
                };
                let Some(array) = target.as_ref().map(|t| t.0).or_else(|| self.array_var(&index.expr)) else {
                    if self.is_float_expr(&index.expr) {
                        self.cx.error(&index.expr, "#[reverse] can assign to elements of float arrays bound to a name");
                        return;
                    }
                    self.opaque_stmt(expr, out);
                    return;
                };
                let idx = match target {
                    Some((_, path)) => path,
                    None => Path::index(self.lower_int_operand(&index.index, Ty::Usize, out)),
                };
                let elem = match &self.vars[array].ty {
                    Ty::Array(info) => info.elem,
                    _ => None,
                };
                let Some((op, value)) = self.element_assignment(expr, array, &idx, elem, index.span(), right, op, out) else {
                    return;
                };
                out.push(IrStmt { kind: StmtKind::IndexAssign { array, index: idx, op, value }, span: expr.span() });
            }
            syn::Expr::Field(_) => self.cx.error(
                left,
                "assigning to a field is not supported by #[reverse]; use separate variables",
            ),
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_)) && self.is_poisoned(&u.expr) => {}
            // `*out = ..` on a `&mut f64` parameter: the body's copy of it.
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.deref_var(&u.expr).is_some() => {
                match self.deref_var(&u.expr) {
                    Some(var) if self.vars[var].mutable => self.assign_var(expr, var, right, op, out),
                    _ => self.cx.error(
                        left,
                        "#[reverse] assigns through `*v` for a `&mut f64` parameter and for the \
                         element of a loop over `xs.iter_mut()`; this one is read-only",
                    ),
                }
            }
            // `*calls += 1` through a `&mut` to inactive data (a counter): as written.
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_))
                    && !self.is_float_expr(right)
                    && matches!(&*u.expr, syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| {
                        matches!(self.lookup(&i.to_string()), Some(Binding::Var(v))
                            if !self.vars[*v].ty.is_float() && !self.vars[*v].ty.is_array())
                    })) =>
            {
                self.opaque_stmt(expr, out);
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.cx.error(
                left,
                "assigning through a reference is not supported by #[reverse]; return the value instead",
            ),
            _ => self.cx.error(left, "#[reverse] cannot assign to this place; assign to a variable or an array element"),
        }
    }

    /// `(a, b) = right;` (a destructuring assignment) as `let (t0, t1) = right; a = t0;
    /// b = t1;`: every value is computed before any place is written (`(a, b) = (b, a + b)`),
    /// and `right` may be a tuple or a call's (see `results`). `_` assigns nothing.
    fn destructuring_assign(
        &mut self,
        places: &syn::ExprTuple,
        right: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let temps: Vec<syn::Ident> = (0..places.elems.len())
            .map(|k| {
                let span = places.elems[k].span();
                syn::Ident::new(&format!("__ad_destructured{k}"), span)
            })
            .collect();
        let mut stmts: Vec<syn::Stmt> = vec![syn::parse_quote_spanned! {right.span()=>
            let (#(#temps,)*) = #right;
        }];
        for (place, temp) in places.elems.iter().zip(&temps) {
            if !matches!(super::strip(place), syn::Expr::Infer(_)) {
                stmts.push(syn::parse_quote_spanned!(place.span()=> #place = #temp;));
            }
        }
        self.push_scope();
        self.lower_stmts(&stmts, out, super::Tail::Discard);
        self.pop_scope();
    }

    /// `p[i] = [a, b, c];` (a row of a nested array, an array field) as `let t0 = a; ..;
    /// p[i][0] = t0; ..`: every item is computed before the row is written (`p[i] = [p[i][1],
    /// p[i][0]]`).
    fn assign_row(&mut self, left: &syn::Expr, items: &syn::ExprArray, out: &mut Vec<Stmt>) {
        let temps: Vec<syn::Ident> = (0..items.elems.len())
            .map(|k| syn::Ident::new(&format!("__ad_item{k}"), items.elems[k].span()))
            .collect();
        let mut stmts: Vec<syn::Stmt> = Vec::new();
        for (item, temp) in items.elems.iter().zip(&temps) {
            stmts.push(syn::parse_quote_spanned!(item.span()=> let #temp = #item;));
        }
        for (k, temp) in temps.iter().enumerate() {
            let k = syn::Index::from(k);
            stmts.push(syn::parse_quote_spanned!(left.span()=> #left[#k] = #temp;));
        }
        self.push_scope();
        self.lower_stmts(&stmts, out, super::Tail::Discard);
        self.pop_scope();
    }

    /// `place = right` (or `place op= right`) for a part of an aggregate: a float store, or
    /// an inactive statement when `right` is not a float expression (`self.steps += 1`).
    fn assign_place(
        &mut self,
        expr: &syn::Expr,
        left: &syn::Expr,
        right: &syn::Expr,
        op: Option<syn::BinOp>,
        out: &mut Vec<Stmt>,
    ) {
        // A struct expression is an aggregate value (`b.pos = V2 { x, y };`); any other value
        // of a type the macro cannot see (`b.pos = V2::default();`, `b.hit = None;`) is a
        // store of an inactive value: the part's old adjoint stops there.
        let overwrite = !self.is_float_expr(right)
            && op.is_none()
            && !self.plainly_inactive(right)
            && !self.calls_closure(right);
        if overwrite && !matches!(super::strip(right), syn::Expr::Struct(_)) {
            let Some(place) = self.writable_part(left, out) else {
                return;
            };
            let value = self.opaque(right);
            let value = self.let_opaque(out, "t", Ty::Other, value, right.span());
            self.store(place, AssignOp::Set, Operand::Var(value), expr.span(), out);
            return;
        }
        if !overwrite && !self.is_float_expr(right) {
            // An integer (or other inactive) field: rustc knows it carries no derivative, so
            // the aggregate's value does not flow through the statement; the value does.
            let root = self.place_expr(left, &mut Vec::new()).map(|p| p.root);
            let start = out.len();
            self.opaque_stmt(expr, out);
            let right_flows = self.opaque(right).flows;
            for stmt in &mut out[start..] {
                if let StmtKind::Opaque { flows, .. } = &mut stmt.kind {
                    flows.retain(|v| Some(*v) != root || right_flows.contains(v));
                }
            }
            return;
        }
        let Some(place) = self.writable_part(left, out) else {
            return;
        };
        // `b.pos = b.vel;`: a copy of another part, a float, an array or a struct.
        if op.is_none() && self.is_place_expr(right) && !self.is_aggregate_var(right) {
            if let Some(source) = self.place_expr(right, out) {
                let value = self.copy_place(source, right.span(), out);
                self.store(place, AssignOp::Set, value, expr.span(), out);
            }
            return;
        }
        let path = Path(place.steps.clone());
        // `b.vel = b.pos.scale(0.5);`: a call's result stored whole may be a struct as well
        // as a float, taken for an aggregate (see `results`).
        // (Not into an element of a nested container of floats: `q[2][1] = g(..)`.)
        let stored_whole = op.is_none()
            && self.passes_on_aggregates()
            && self.calls_a_companion(right)
            && !self.reaches_float(&place);
        if stored_whole {
            self.result_shape = Some(super::results::ResultShape::Aggregate);
        }
        let assignment =
            self.element_assignment(expr, place.root, &path, None, left.span(), right, op, out);
        if stored_whole {
            self.result_shape = None;
        }
        let Some((op, mut value)) = assignment else {
            return;
        };
        // `rows[i] = x.to_vec();`: the place gets a copy of the `Vec`, whose length the sweeps
        // read again, shaped like the place.
        if let Operand::Var(v) = value {
            if matches!(&self.vars[v].ty, Ty::Array(info) if !info.agg && matches!(info.shape, Shape::Len(_)))
            {
                let ty = Ty::Array(ArrayInfo {
                    elem: None,
                    shape: Shape::Place(place.root, path.clone()),
                    agg: true,
                });
                value = self.let_temp(out, Rhs::Copy(Operand::Var(v)), ty, right.span());
            }
        }
        // (Its adjoint has the place's shape, which the reverse sweep has where the value
        // itself is gone.)
        if let (true, Operand::Var(v)) = (stored_whole, &value) {
            if let Ty::Array(info) = &mut self.vars[*v].ty {
                if info.agg {
                    info.shape = Shape::Place(place.root, path.clone());
                }
            }
        }
        self.store(place, op, value, expr.span(), out);
    }

    /// The part of an aggregate that `left` denotes, for a write: `None` after an error (a
    /// read-only part, or a whole aggregate through a reference).
    fn writable_part(
        &mut self,
        left: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Option<super::places::Place> {
        let place = self.place_expr(left, out)?;
        if !place.mutable {
            self.cx.error(
                left,
                "#[reverse] writes parts of an aggregate through a `mut` variable, a `&mut` \
                 parameter or `&mut self`, or a `&mut` binding of them; this one is read-only",
            );
            return None;
        }
        if place.steps.is_empty() {
            self.cx.error(
                left,
                "#[reverse] cannot assign a whole aggregate through a reference; assign its fields",
            );
            return None;
        }
        Some(place)
    }

    /// Whether `expr` is a value of a type without derivatives as written: what kills
    /// derivatives (a comparison, a cast to an integer, `.len()`), an integer, boolean,
    /// character or string literal, a name bound to an integer or a boolean, and arithmetic
    /// of them.
    fn plainly_inactive(&self, expr: &syn::Expr) -> bool {
        if super::rename::kills_derivative(expr) {
            return true;
        }
        match super::strip(expr) {
            syn::Expr::Lit(lit) => !matches!(lit.lit, syn::Lit::Float(_)),
            syn::Expr::Unary(u) => self.plainly_inactive(&u.expr),
            syn::Expr::Binary(b) => {
                self.plainly_inactive(&b.left) && self.plainly_inactive(&b.right)
            }
            syn::Expr::Path(p) => matches!(
                self.lower_path_peek(p),
                Some(Ty::Usize | Ty::I32 | Ty::Bool)
            ),
            _ => false,
        }
    }

    /// The operator and the value of `array<path> op= right`: `=`, `+=` and `-=` as they are,
    /// any other compound assignment as `=` of the operation on the element's old value
    /// (`elem` is its precision, when known). `None` after an error.
    #[allow(clippy::too_many_arguments)]
    fn element_assignment(
        &mut self,
        expr: &syn::Expr,
        array: VarId,
        path: &Path,
        elem: Option<FloatTy>,
        at: proc_macro2::Span,
        right: &syn::Expr,
        op: Option<syn::BinOp>,
        out: &mut Vec<Stmt>,
    ) -> Option<(AssignOp, Operand)> {
        let value = self.lower_expr(right, out);
        let value = self.number(value, right, EXPECTED_NUMBER)?;
        match op.map(assign_kind) {
            None => Some((AssignOp::Set, value)),
            Some(AssignKind::Add) => Some((AssignOp::Add, value)),
            Some(AssignKind::Sub) => Some((AssignOp::Sub, value)),
            Some(AssignKind::Other(bin)) => {
                let old = self.let_temp(out, Rhs::Index(array, path.clone()), Ty::Float(elem), at);
                let ty = join(&self.ty_of(&old), &self.ty_of(&value));
                let new = self.let_temp(out, Rhs::Binary(bin, old, value), ty, expr.span());
                Some((AssignOp::Set, new))
            }
            Some(AssignKind::Unsupported) => {
                self.cx.error(expr, COMPOUND_ASSIGN);
                None
            }
        }
    }

    fn assign_var(
        &mut self,
        expr: &syn::Expr,
        var: VarId,
        right: &syn::Expr,
        op: Option<syn::BinOp>,
        out: &mut Vec<Stmt>,
    ) {
        if self.vars[var].ty.is_array() && op.is_none() && self.assign_vec(expr, var, right, out) {
            return;
        }
        let float_target = match &self.vars[var].ty {
            Ty::Float(_) => true,
            Ty::Array(info) if info.agg => {
                if op.is_none()
                    && !matches!(super::strip(right), syn::Expr::If(_) | syn::Expr::Match(_))
                {
                    return self.assign_struct(expr, var, right, out);
                }
                self.cx.error(
                    expr,
                    "assigning a whole struct is supported by #[reverse] from a variable, a \
                     struct expression or a call (`q = r;`, `q = q.step(dt);`); bind this value \
                     with `let` first, or assign its fields (`q.pos[0] = ..;`)",
                );
                return;
            }
            Ty::Array(_) => {
                if let (syn::Expr::Assign(assign), None) = (expr, op) {
                    if self.assign_whole_array(&assign.left, right, out) {
                        return;
                    }
                }
                self.cx.error(
                    expr,
                    "assigning a whole array is not supported by #[reverse]; assign its elements \
                     in a loop",
                );
                return;
            }
            // `flag = x > 1.0;` assigns a `bool`, `k = y as usize;` an integer.
            Ty::Unknown => self.is_float_expr(right) && !super::rename::kills_derivative(right),
            _ => false,
        };
        if !float_target {
            self.opaque_stmt(expr, out);
            return;
        }
        let value = self.lower_expr(right, out);
        let Some(value) = self.number(value, right, EXPECTED_NUMBER) else {
            return;
        };
        if matches!(self.vars[var].ty, Ty::Unknown) {
            self.vars[var].ty = match self.ty_of(&value) {
                Ty::Float(t) => Ty::Float(t),
                _ => Ty::Float(None),
            };
        }
        let (op, value) = match op.map(assign_kind) {
            None => (AssignOp::Set, value),
            Some(AssignKind::Add) => (AssignOp::Add, value),
            Some(AssignKind::Sub) => (AssignOp::Sub, value),
            Some(AssignKind::Other(bin)) => {
                let ty = join(&self.vars[var].ty.clone(), &self.ty_of(&value));
                (
                    AssignOp::Set,
                    self.let_temp(
                        out,
                        Rhs::Binary(bin, Operand::Var(var), value),
                        ty,
                        expr.span(),
                    ),
                )
            }
            Some(AssignKind::Unsupported) => {
                self.cx.error(expr, COMPOUND_ASSIGN);
                return;
            }
        };
        out.push(IrStmt {
            kind: StmtKind::Assign { var, op, value },
            span: expr.span(),
        });
    }

    /// `q = value;` for a whole struct `q` (`b = b.step(dt);`, `q = r;`, `q = Body { .. };`):
    /// a call of the runtime's `assign(&mut q, value)`, whose reverse sweep moves the adjoint
    /// of the new value of `q` to `value` (and zeroes that of the old one).
    fn assign_struct(
        &mut self,
        expr: &syn::Expr,
        var: VarId,
        right: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) {
        if matches!(
            super::strip(right),
            syn::Expr::Call(_) | syn::Expr::MethodCall(_)
        ) {
            self.result_shape = Some(super::results::ResultShape::Aggregate);
        }
        let value = self.lower_expr(right, out);
        self.result_shape = None;
        let value = match value {
            Value::Op(Operand::Var(w)) if self.is_aggregate(w) => Operand::Var(w),
            // A part of an aggregate (`q = ps[i]`): a copy of it.
            Value::Place(place) => self.copy_place(place, right.span(), out),
            Value::Error => return,
            _ => {
                self.cx.error(
                    right,
                    "#[reverse] assigns a whole struct from a struct value (a variable, a struct \
                     expression or a call); this is not one",
                );
                return;
            }
        };
        let path = quote::quote!(::revad::__private::assign);
        let callee = self.runtime_callee(path, None, 2, expr.span());
        let rhs = Rhs::Call(crate::ir::Call {
            callee,
            args: vec![Operand::Var(var), value],
            by_ref: vec![false, false],
            by_mut: vec![true, false],
            parts: Vec::new(),
            paths: vec![None, None],
            method: false,
            closures: Vec::new(),
            receiver_old: None,
        });
        self.let_temp(out, rhs, Ty::Other, expr.span());
    }

    /// An inactive statement, emitted as written (with variables renamed).
    pub(super) fn opaque_stmt(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) {
        if self.calls_closure(expr) {
            // `k = g(k);`: the closures are inlined before the statement.
            return self.with_closure_calls(expr, None, out, |this, rewritten, out| {
                this.opaque_stmt_as_written(rewritten, out);
            });
        }
        self.opaque_stmt_as_written(expr, out);
    }

    fn opaque_stmt_as_written(&mut self, expr: &syn::Expr, out: &mut Vec<Stmt>) {
        let (writes, opaque) = match expr {
            // The place and the value are renamed apart: the assignment itself is the
            // statement's effect, not an unsupported expression.
            syn::Expr::Assign(a) => {
                let (left, right) = (self.opaque(&a.left), self.opaque(&a.right));
                let mut right = right;
                let (l, r) = (&left.expr, &right.expr);
                right.expr = quote!(#l = #r);
                right.reads.extend(left.reads);
                (self.written(&a.left), right)
            }
            syn::Expr::Binary(b) if super::is_compound_assign(&b.op) => {
                let (left, right) = (self.opaque(&b.left), self.opaque(&b.right));
                let mut right = right;
                let (l, op, r) = (&left.expr, &b.op, &right.expr);
                right.expr = quote!(#l #op #r);
                right.reads.extend(left.reads);
                right.flows.extend(left.flows);
                (self.written(&b.left), right)
            }
            _ => (Vec::new(), self.opaque(expr)),
        };
        let tokens = opaque.expr;
        out.push(IrStmt {
            kind: StmtKind::Opaque {
                tokens: quote!(#tokens;),
                writes,
                flows: opaque.flows,
                if_active: opaque.if_active,
            },
            span: expr.span(),
        });
    }

    fn written(&self, place: &syn::Expr) -> Vec<VarId> {
        match place {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| match self.lookup(&i.to_string()) {
                    Some(Binding::Var(v)) => Some(vec![*v]),
                    _ => None,
                })
                .unwrap_or_default(),
            syn::Expr::Index(i) => self.written(&i.expr),
            syn::Expr::Paren(p) => self.written(&p.expr),
            _ => Vec::new(),
        }
    }
}

enum AssignKind {
    Add,
    Sub,
    Other(BinOp),
    Unsupported,
}

/// Whether a callee is a method (its first argument is the receiver).
enum CalleeShape {
    Method,
    Other,
}

fn kind_of(kind: &crate::ir::CalleeKind) -> CalleeShape {
    match kind {
        crate::ir::CalleeKind::Method(_) => CalleeShape::Method,
        _ => CalleeShape::Other,
    }
}

/// Whether `path` names an associated function (`Self::f`, `Type::f`, `Type::<T>::f`).
fn is_associated_path(path: &syn::Path) -> bool {
    let segments: Vec<_> = path.segments.iter().collect();
    let Some(owner) = segments.len().checked_sub(2).map(|k| segments[k]) else {
        return false;
    };
    owner.ident == "Self"
        || owner
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase())
        || !owner.arguments.is_none()
}

fn assign_kind(op: syn::BinOp) -> AssignKind {
    match op {
        syn::BinOp::AddAssign(_) => AssignKind::Add,
        syn::BinOp::SubAssign(_) => AssignKind::Sub,
        syn::BinOp::MulAssign(_) => AssignKind::Other(BinOp::Mul),
        syn::BinOp::DivAssign(_) => AssignKind::Other(BinOp::Div),
        syn::BinOp::RemAssign(_) => AssignKind::Other(BinOp::Rem),
        _ => AssignKind::Unsupported,
    }
}

/// The one message for an array element that is not a number.
const ARRAY_OF_NUMBERS: &str = "#[reverse] supports arrays of numbers";

/// The one message for an assigned value that is not a number.
const EXPECTED_NUMBER: &str = "expected a number";

/// The one message for a compound assignment other than `+=`, `-=`, `*=`, `/=`, `%=`.
const COMPOUND_ASSIGN: &str = "this compound assignment is not supported on floats";

/// The one message for a call of an associated function with float arguments.
const ASSOCIATED_CALL: &str = "#[reverse] cannot differentiate calls of trait methods and of \
     library types' associated functions (`Trait::f(..)`, `std::..::f(..)`); write the \
     operation itself (`x + y` for `Add::add(x, y)`), or call a function or method annotated \
     with #[reverse] (`Type::f(..)`, `value.f(..)`)";

/// The error for a float method that is not in the rule table.
fn not_an_intrinsic(name: &str) -> String {
    if name.starts_with("to_") && name != "to_radians" && name != "to_degrees" {
        // `to_f64`, `to_i32` of `num_traits::ToPrimitive`, `to_f64` of `revad::Float`.
        return format!(
            "`{name}` converts the value to a plain number, so its derivative would be lost; \
             #[reverse] differentiates values that stay of the float type: compute with them \
             as floats, or convert only values that carry no derivative"
        );
    }
    let instead = match name {
        "sin_cos" => " (call `sin` and `cos`)",
        _ => "",
    };
    format!(
        "`{name}` is not a float intrinsic #[reverse] can differentiate; use the intrinsics \
         ({}){instead}",
        crate::rules::names()
    )
}

fn rename_is_killing(name: &str) -> bool {
    super::rename::KILLING_METHODS.contains(&name)
}

/// The operand for a literal.
pub(super) fn literal(lit: &syn::Lit) -> Operand {
    let kind = match lit {
        syn::Lit::Float(f) => LitKind::Float(suffix_float(f.suffix())),
        syn::Lit::Int(i) => match i.suffix() {
            "f64" => LitKind::Float(Some(FloatTy::F64)),
            "f32" => LitKind::Float(Some(FloatTy::F32)),
            _ => LitKind::Int,
        },
        _ => LitKind::Unknown,
    };
    Operand::Lit(lit.to_token_stream(), kind)
}

fn suffix_float(suffix: &str) -> Option<FloatTy> {
    match suffix {
        "f64" => Some(FloatTy::F64),
        "f32" => Some(FloatTy::F32),
        _ => None,
    }
}

/// The type of `a op b` from the types of `a` and `b`.
pub(super) fn join(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Float(x), Ty::Float(y)) => Ty::Float(x.or(*y)),
        (Ty::Float(x), _) | (_, Ty::Float(x)) => Ty::Float(*x),
        (Ty::Unknown, other) | (other, Ty::Unknown) => other.clone(),
        (Ty::Usize, _) | (_, Ty::Usize) => Ty::Usize,
        (Ty::I32, _) | (_, Ty::I32) => Ty::I32,
        _ => Ty::Other,
    }
}

/// Whether `expr` can be emitted in operand position as written: a literal, a path, or a
/// negated literal.
fn is_atomic(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Lit(_) | syn::Expr::Path(_) => true,
        syn::Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Neg(_)) && matches!(&*u.expr, syn::Expr::Lit(_))
        }
        _ => false,
    }
}

fn binding_value(items: &[Binding]) -> Value {
    Value::Tuple(
        items
            .iter()
            .map(|b| match b {
                Binding::Var(v) => Value::Op(Operand::Var(*v)),
                Binding::Tuple(inner) => binding_value(inner),
                Binding::Closure(c) => Value::Closure(c.clone()),
                Binding::View(v) => Value::View(v.clone()),
                Binding::Place(p) => Value::Place(p.clone()),
                Binding::Poisoned | Binding::Chain(_) => Value::Error,
            })
            .collect(),
    )
}

impl Value {
    /// The first element of a tuple value (for `binding_value` of one item).
    fn into_first(self) -> Value {
        match self {
            Value::Tuple(mut items) if !items.is_empty() => items.swap_remove(0),
            other => other,
        }
    }
}

/// An array expression (`[a, b]`, `[x; N]`), under parentheses.
/// The type of `expr` when it is what an iterator chain says about its items, without
/// derivatives whatever they are: `.count()` (a `usize`), `.any(..)` and `.all(..)` (a
/// `bool`), `.position(..)` and `.rposition(..)` (an `Option<usize>`, then `usize` after
/// `.unwrap()`, `.unwrap_or(k)`, `.unwrap_or_default()`, `.expect(..)`, or `bool` after
/// `.is_some()`, `.is_none()`), on a chain that starts with `.iter()` or `.into_iter()` (a
/// method of those names on a type of the user's may compute a float).
fn counted(expr: &syn::Expr) -> Option<Ty> {
    let syn::Expr::MethodCall(call) = super::strip(expr) else {
        return None;
    };
    let name = call.method.to_string();
    let after_position = |ty: Ty| {
        let syn::Expr::MethodCall(inner) = super::strip(&call.receiver) else {
            return None;
        };
        (matches!(inner.method.to_string().as_str(), "position" | "rposition")
            && from_an_iterator(&inner.receiver))
        .then_some(ty)
    };
    // `xs.iter().enumerate().max_by(cmp).map(|(i, _)| i).unwrap()`: the index of a pick.
    let index_of_pick = || {
        let syn::Expr::MethodCall(map) = super::strip(&call.receiver) else {
            return None;
        };
        let first = match map.args.first().map(super::strip) {
            Some(syn::Expr::Closure(c)) if map.method == "map" && map.args.len() == 1 => {
                match (c.inputs.first(), super::strip(&c.body)) {
                    (Some(syn::Pat::Tuple(t)), syn::Expr::Path(body)) => {
                        matches!(t.elems.first(), Some(syn::Pat::Ident(i)) if body.path.is_ident(&i.ident))
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        (first && super::desugar::enumerated_pick(&map.receiver).is_some()).then_some(Ty::Usize)
    };
    match name.as_str() {
        "unwrap" | "expect" | "unwrap_or" | "unwrap_or_default" if index_of_pick().is_some() => {
            Some(Ty::Usize)
        }
        "count" if call.args.is_empty() => from_an_iterator(&call.receiver).then_some(Ty::Usize),
        "any" | "all" => from_an_iterator(&call.receiver).then_some(Ty::Bool),
        "position" | "rposition" => from_an_iterator(&call.receiver).then_some(Ty::Other),
        "unwrap" | "unwrap_or" | "unwrap_or_default" | "expect" => after_position(Ty::Usize),
        "is_some" | "is_none" => after_position(Ty::Bool),
        _ => None,
    }
}

/// The integer type of the arithmetic `expr` that an operand states without variables: a
/// length (`xs.len() - 1`, a `usize`) or a cast (`(k as i32) * 2`).
/// Whether `op` is `+ - * / %`.
fn is_arithmetic(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::Add(_)
            | syn::BinOp::Sub(_)
            | syn::BinOp::Mul(_)
            | syn::BinOp::Div(_)
            | syn::BinOp::Rem(_)
    )
}

fn operand_int_ty(expr: &syn::Expr) -> Option<Ty> {
    match super::strip(expr) {
        syn::Expr::Binary(b) => operand_int_ty(&b.left).or_else(|| operand_int_ty(&b.right)),
        syn::Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => Some(Ty::Usize),
        syn::Expr::Cast(c) => match &*c.ty {
            syn::Type::Path(p) if p.path.is_ident("usize") => Some(Ty::Usize),
            syn::Type::Path(p) if p.path.is_ident("i32") => Some(Ty::I32),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `expr` is an iterator chain: methods down to an `.iter()` or `.into_iter()`.
fn from_an_iterator(expr: &syn::Expr) -> bool {
    match super::strip(expr) {
        syn::Expr::MethodCall(call) => {
            matches!(call.method.to_string().as_str(), "iter" | "into_iter")
                || from_an_iterator(&call.receiver)
        }
        _ => false,
    }
}

fn is_array_expr(expr: &syn::Expr) -> bool {
    matches!(
        super::strip(expr),
        syn::Expr::Array(_) | syn::Expr::Repeat(_)
    )
}

/// The item a nested repetition repeats: `e` of `[[e; N]; M]` and of
/// `repeat_n(repeat_n(e, n).collect(), m).collect()` (see `vec_repeat_call`).
fn repeated_item(expr: &syn::Expr) -> &syn::Expr {
    match super::strip(expr) {
        syn::Expr::Repeat(r) => repeated_item(&r.expr),
        syn::Expr::MethodCall(m) if m.method == "collect" => match super::strip(&m.receiver) {
            syn::Expr::Call(c) if c.args.len() == 2 => repeated_item(&c.args[0]),
            _ => expr,
        },
        _ => expr,
    }
}

/// The methods of a `Vec` that change its length.
const RESIZING: &[&str] = &[
    "push",
    "pop",
    "insert",
    "remove",
    "swap_remove",
    "extend",
    "extend_from_slice",
    "append",
    "truncate",
    "clear",
    "resize",
    "retain",
    "drain",
    "dedup",
    "split_off",
];

/// `mem::swap(&mut a, &mut b)` as the assignments `{ let t = a; a = b; b = t; }`, and
/// `mem::replace(&mut a, v)` as `{ let t = a; a = v; t }`: the same moves, which the lowering
/// follows. (`std::mem::swap(p, q)` of `&mut` references swaps `*p` and `*q`.) `None` for any
/// other call.
fn mem_swap_or_replace(call: &syn::ExprCall, path: &syn::Path) -> Option<syn::Expr> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (owner, name) = match names.as_slice() {
        [.., owner, name] => (owner.as_str(), name.as_str()),
        _ => return None,
    };
    if owner != "mem" || call.args.len() != 2 || !matches!(name, "swap" | "replace") {
        return None;
    }
    let place = |arg: &syn::Expr| -> Option<syn::Expr> {
        match super::strip(arg) {
            syn::Expr::Reference(r) if r.mutability.is_some() => Some((*r.expr).clone()),
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                Some(syn::parse_quote_spanned!(arg.span()=> *#p))
            }
            _ => None,
        }
    };
    let a = place(&call.args[0])?;
    let span = call.func.span();
    let t = syn::Ident::new(
        "__ad_moved",
        proc_macro2::Span::mixed_site().located_at(span),
    );
    Some(match name {
        "swap" => {
            let b = place(&call.args[1])?;
            syn::parse_quote_spanned!(span=> { let #t = #a; #a = #b; #b = #t; })
        }
        _ => {
            let v = &call.args[1];
            syn::parse_quote_spanned!(span=> { let #t = #a; #a = #v; #t })
        }
    })
}

/// `vec![e; n]` as a call that the lowering reads through (it does not see into macros), with
/// `vec!`s nested in `e` alike: `::std::iter::repeat_n(e, n).collect::<Vec<_>>()`, the same
/// vector; with every length 0 when `empty` (a value of its type that reads no variable).
fn vec_repeat_call(repeat: &syn::ExprRepeat, empty: bool) -> syn::Expr {
    let elem = match super::strip(&repeat.expr) {
        syn::Expr::Macro(inner) if inner.mac.path.is_ident("vec") => {
            let tokens = &inner.mac.tokens;
            match syn::parse2::<syn::ExprRepeat>(quote!([#tokens])) {
                Ok(inner) => vec_repeat_call(&inner, empty),
                Err(_) => (*repeat.expr).clone(),
            }
        }
        _ => (*repeat.expr).clone(),
    };
    let len = match empty {
        true => quote!(0),
        false => repeat.len.to_token_stream(),
    };
    syn::parse_quote_spanned! {repeat.span()=>
        ::std::iter::repeat_n(#elem, #len).collect::<::std::vec::Vec<_>>()
    }
}

/// Whether `tokens` hold a parenthesized group (a call, a method call, a macro, a tuple).
fn has_parens(tokens: &proc_macro2::TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Group(g) => {
            g.delimiter() == proc_macro2::Delimiter::Parenthesis || has_parens(&g.stream())
        }
        _ => false,
    })
}

/// Whether `expr` is a variant of an enum: `Shape::Circle(x)`, `Shape::Rect { .. }`,
/// `Shape::Empty`, `Some(x)`, `None`.
fn is_variant_value(expr: &syn::Expr) -> bool {
    let path = match super::strip(expr) {
        syn::Expr::Call(c) => match super::strip(&c.func) {
            syn::Expr::Path(p) => &p.path,
            _ => return false,
        },
        syn::Expr::Struct(s) => &s.path,
        syn::Expr::Path(p) if p.path.is_ident("None") => return true,
        // (A unit variant, `Shape::Empty`, is `CamelCase`; a constant, `Vec3::ZERO`, is not.)
        syn::Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| {
                s.ident
                    .to_string()
                    .contains(|c: char| c.is_ascii_lowercase())
            }) =>
        {
            &p.path
        }
        _ => return false,
    };
    let variant = super::enums::is_variant_path(path)
        && path.segments.last().is_some_and(|s| {
            s.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        });
    variant || super::enums::is_some_path(path)
}
