//! `let` and its patterns: bindings of names to variables, tuples and closures.

use super::*;

impl Lowerer<'_> {
    pub(super) fn lower_let(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) -> Value {
        if let Some(init) = &local.init {
            if let Some((else_token, _)) = &init.diverge {
                self.cx.error(
                    else_token,
                    "#[reverse] takes `let Some(v) = .. else { .. };` of an element \
                     (`xs.get(i)`, `xs.first()`, `xs.last()`, optionally `.copied()`) or a \
                     reduction (`xs.iter().copied().reduce(f64::max)`); for another `let .. \
                     else`, use `match` or `if` instead",
                );
                return Value::Error;
            }
        }
        // `let m = xs.iter().min_by(cmp).unwrap();`: the item, a reference (`*m` reads it).
        if let (syn::Pat::Ident(p), Some(init)) = (&local.pat, &local.init) {
            if let syn::Expr::MethodCall(call) = strip(&init.expr) {
                if p.by_ref.is_none() && p.mutability.is_none() && super::iter::is_reduction(call) {
                    let value = self.lower_let_plain(local, out);
                    if let Some(Binding::Var(v)) = self.lookup(&p.ident.to_string()) {
                        let v = *v;
                        self.vars[v].deref = true;
                    }
                    return value;
                }
            }
        }
        self.lower_let_plain(local, out)
    }

    /// [`Lowerer::lower_let`] of a `let` that is not a reduction's.
    fn lower_let_plain(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) -> Value {
        // `let c = a + b * k;` on structs of the user's: `let c = a.add(b * k);`, a method's
        // result.
        if let Some(call) = local
            .init
            .as_ref()
            .and_then(|init| self.user_operator(&init.expr))
        {
            let mut local = local.clone();
            if let Some(init) = &mut local.init {
                *init.expr = syn::Expr::MethodCall(call);
            }
            // (A struct, `Output = Self`, unless the `let` gives a type.)
            if self.result_shape.is_none() && !matches!(local.pat, syn::Pat::Type(_)) {
                self.result_shape = Some(super::results::ResultShape::Aggregate);
            }
            let value = self.lower_let(&local, out);
            // (Its value is a struct of the user's too: `c - a` is `c.sub(a)`.)
            let name = match &local.pat {
                syn::Pat::Type(t) => &*t.pat,
                pat => pat,
            };
            if let syn::Pat::Ident(p) = name {
                if let Some(Binding::Var(v)) = self.lookup(&p.ident.to_string()) {
                    let v = *v;
                    if self.is_aggregate(v) {
                        self.user_structs.push(v);
                    }
                }
            }
            return value;
        }
        // `let z: f64 = x.into();` (`x` an `f32` or an integer): `x as f64`, the same value
        // (`From` widens exactly, as `as` does).
        if let (syn::Pat::Type(typed), Some(init)) = (&local.pat, &local.init) {
            if let (Some(float), syn::Expr::MethodCall(call)) =
                (crate::parse::float_of(&typed.ty), strip(&init.expr))
            {
                if call.method == "into"
                    && call.args.is_empty()
                    && call.turbofish.is_none()
                    && matches!(float, crate::ir::FloatTy::F64 | crate::ir::FloatTy::F32)
                {
                    let (receiver, ty) = (&call.receiver, &typed.ty);
                    let mut local = local.clone();
                    if let Some(init) = &mut local.init {
                        let span = call.method.span();
                        *init.expr = syn::parse_quote_spanned!(span=> (#receiver) as #ty);
                    }
                    return self.lower_let(&local, out);
                }
            }
        }
        // `let p: [f64; 3] = std::array::from_fn(|i| f(i));`: the array literal
        // `[{ let i = 0usize; f(i) }, ..]`.
        if let (syn::Pat::Type(typed), Some(init)) = (&local.pat, &local.init) {
            if let Some(items) = super::desugar::array_from_fn(&typed.ty, &init.expr) {
                let mut local = local.clone();
                if let Some(init) = &mut local.init {
                    *init.expr = items;
                }
                return self.lower_let(&local, out);
            }
        }
        let (pat, annot) = match &local.pat {
            syn::Pat::Type(typed) => (&*typed.pat, Some((*typed.ty).clone())),
            pat => (pat, None),
        };
        let Some(init) = &local.init else {
            self.cx.error(
                local,
                "a `let` without a value is supported by #[reverse] only when the next \
                 statement gives it one, on every branch (`let x; if c { x = a; } else { x = \
                 b; }`); give the variable its first value where it is declared (`let x = \
                 ...;`)",
            );
            if let syn::Pat::Ident(p) = pat {
                self.bind(&p.ident, Binding::Poisoned);
            }
            return Value::Unit;
        };
        if annot.is_none() && self.split_place(pat, &init.expr, out) {
            return Value::Unit;
        }
        // A copy of a part whose type the `let` gives: `let v: Vector3<f64> = self.vel;`, a
        // matrix whose arithmetic is the runtime's rules, or `let mut a: V2 = q.pos;`, a struct
        // of the user's that the body may write field by field (`a.x = ..`) and whose
        // operators are its methods.
        if let (syn::Pat::Ident(p), Some(ty)) = (pat, &annot) {
            let plain = p.by_ref.is_none() && p.subpat.is_none();
            let matrix = super::linalg::names_a_matrix(ty);
            let part = matches!(
                super::strip(&init.expr),
                syn::Expr::Field(_) | syn::Expr::Index(_)
            );
            let user_struct = !matrix && part && self.names_a_struct(ty);
            if plain && (matrix || user_struct) && self.is_place_expr(&init.expr) {
                let Some(place) = self.place_expr(&init.expr, out) else {
                    return Value::Error;
                };
                let first_new = self.vars.len();
                let op = self.copy_place(place, p.ident.span(), out);
                let mutable = p.mutability.is_some();
                let declared = quote!(#ty);
                let id = self.bind_operand(&p.ident, op, mutable, annot.clone(), first_new, out);
                match matrix {
                    true => self.matrix_values.push(id),
                    false => self.user_structs.push(id),
                }
                if !self.declared.iter().any(|(v, _)| *v == id) {
                    self.declared.push((id, declared));
                }
                self.bind(&p.ident, Binding::Var(id));
                return Value::Unit;
            }
        }
        if annot.is_none() && self.split_tuple(pat, &init.expr, out) {
            return Value::Unit;
        }
        if annot.is_none() && self.bind_place(pat, &init.expr, out) {
            return Value::Unit;
        }
        if annot.is_none() && self.bind_element_ref(pat, &init.expr, out) {
            return Value::Unit;
        }
        if self.build_nested_array(pat, annot.as_ref(), &init.expr, out) {
            return Value::Unit;
        }
        // `let old = b.pos;` of a part used as a struct (see `results`), which later writes
        // of `b` do not change: a copy of it.
        let copied_part = matches!(
            self.result_shape,
            Some(super::results::ResultShape::Aggregate)
        ) && matches!(super::strip(&init.expr), syn::Expr::Field(_))
            && self.is_place_expr(&init.expr);
        if copied_part {
            self.result_shape = None;
            let first_new = self.vars.len();
            if let Some(place) = self.place_expr(&init.expr, out) {
                let op = self.copy_place(place, init.expr.span(), out);
                self.bind_pattern(pat, Value::Op(op), annot, first_new, out);
            }
            return Value::Unit;
        }
        // `let it = xs.iter().map(..);`: lowered where it is consumed (see `iter`).
        if let syn::Pat::Ident(p) = pat {
            let plain = p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none();
            if plain
                && annot.is_none()
                && self.mentions_float(&init.expr)
                && self.bindable_chain(&init.expr)
            {
                let chain = super::iter::BoundChain {
                    expr: std::rc::Rc::new((*init.expr).clone()),
                    scopes: std::rc::Rc::new(self.scopes.clone()),
                };
                self.bind(&p.ident, Binding::Chain(chain));
                return Value::Unit;
            }
        }
        let first_new = self.vars.len();
        let value = match self.lower_new_vec(&init.expr, annot.as_ref(), out) {
            Some(value) => value,
            None => self.lower_expr(&init.expr, out),
        };
        self.bind_pattern(pat, value, annot.clone(), first_new, out);
        if let syn::Pat::Ident(p) = pat {
            if let Some(Binding::Var(v)) = self.lookup(&p.ident.to_string()) {
                let v = *v;
                self.note_depth(v, annot.as_ref(), &init.expr);
            }
        }
        Value::Unit
    }

    /// `let m = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];`, a 2-D array literal with
    /// computed entries, as the constant it starts from and the writes of those entries:
    /// `let e0 = c; let e1 = -s; ..; let mut m = [[0.0, 0.0, 0.0], .., [0.0, 0.0, 1.0]];
    /// m[0][0] = e0; ..` (the entries are computed first, in order, as Rust does, and may
    /// read an `m` they shadow). Returns false, having lowered nothing, for any other `let`.
    fn build_nested_array(
        &mut self,
        pat: &syn::Pat,
        annot: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let syn::Pat::Ident(p) = pat else {
            return false;
        };
        if p.by_ref.is_some() || p.subpat.is_some() {
            return false;
        }
        let syn::Expr::Array(outer) = super::strip(init) else {
            return false;
        };
        let rows: Option<Vec<&syn::ExprArray>> = outer
            .elems
            .iter()
            .map(|row| match super::strip(row) {
                syn::Expr::Array(row) => Some(row),
                _ => None,
            })
            .collect();
        let Some(rows) = rows.filter(|rows| !rows.is_empty()) else {
            return false;
        };
        let scalar =
            |e: &syn::Expr| !matches!(super::strip(e), syn::Expr::Array(_) | syn::Expr::Repeat(_));
        let computed = |this: &Self, e: &syn::Expr| {
            !matches!(super::strip(e), syn::Expr::Lit(_))
                && !matches!(super::strip(e), syn::Expr::Unary(u) if matches!(super::strip(&u.expr), syn::Expr::Lit(_)))
                && !this.opaque(e).reads.is_empty()
        };
        if !rows.iter().all(|r| r.elems.iter().all(scalar))
            || !rows
                .iter()
                .any(|r| r.elems.iter().any(|e| computed(self, e)))
        {
            return false;
        }
        let mut stmts: Vec<syn::Stmt> = Vec::new();
        let mut writes: Vec<syn::Stmt> = Vec::new();
        let mut constant_rows = Vec::new();
        // (A float type parameter's zero is its constant: no literal is a `T`.)
        let float = self.sig.default_float;
        let zero: syn::Expr = match float.is_generic() {
            true => {
                let t = float.qualifier();
                syn::parse_quote!(#t::ZERO)
            }
            false => syn::parse_quote!(0.0),
        };
        for (i, row) in rows.iter().enumerate() {
            let mut items = Vec::new();
            for (j, item) in row.elems.iter().enumerate() {
                if !computed(self, item) {
                    items.push(item.clone());
                    continue;
                }
                let span = item.span();
                let temp = syn::Ident::new(&format!("__ad_entry{}_{i}_{j}", self.vars.len()), span);
                stmts.push(syn::parse_quote_spanned!(span=> let #temp = #item;));
                let name = &p.ident;
                writes.push(syn::parse_quote_spanned!(span=> #name[#i][#j] = #temp;));
                items.push(zero.clone());
            }
            constant_rows.push(quote::quote_spanned!(row.span()=> [#(#items),*]));
        }
        let name = &p.ident;
        let annot = annot.map(|ty| quote::quote!(: #ty));
        stmts.push(syn::parse_quote_spanned! {outer.span()=>
            let mut #name #annot = [#(#constant_rows),*];
        });
        stmts.extend(writes);
        self.lower_stmts(&stmts, out, super::Tail::Discard);
        true
    }

    /// `let v = &xs[i];` for an array of floats `xs`: `v` is the element's value, read as
    /// the element of `for v in xs.iter()` is (`*v`, `v * w`, `v.sin()`). The primal keeps the
    /// reference, so nothing writes `xs[i]` while `v` is read. Returns false, having lowered
    /// nothing, for any other `let`.
    fn bind_element_ref(&mut self, pat: &syn::Pat, init: &syn::Expr, out: &mut Vec<Stmt>) -> bool {
        let syn::Pat::Ident(p) = pat else {
            return false;
        };
        if p.by_ref.is_some() || p.subpat.is_some() || p.mutability.is_some() {
            return false;
        }
        // `let v = xs.first().unwrap();`: the check, then `let v = &xs[0];`.
        if let syn::Expr::MethodCall(call) = super::strip(init) {
            if let Some(super::options::ElementValue::Unwrapped {
                check,
                element,
                by_ref: true,
            }) = self.element_option_value(call)
            {
                self.lower_expr(&check, out);
                let reference: syn::Expr = syn::parse_quote_spanned!(element.span()=> &#element);
                return self.bind_element_ref(pat, &reference, out);
            }
        }
        let syn::Expr::Reference(r) = super::strip(init) else {
            return false;
        };
        let syn::Expr::Index(index) = super::strip(&r.expr) else {
            return false;
        };
        let floats = self
            .array_var(super::strip(&index.expr))
            .is_some_and(|v| matches!(&self.vars[v].ty, Ty::Array(info) if !info.agg));
        // (`&xs[a..b]` is a view: `views`.)
        let range = matches!(super::strip(&index.index), syn::Expr::Range(_));
        if r.mutability.is_some() || !floats || range {
            return false;
        }
        let first_new = self.vars.len();
        let op = match self.lower_expr(&r.expr, out) {
            Value::Op(op) => op,
            // (The error is reported.)
            _ => {
                self.bind(&p.ident, Binding::Poisoned);
                return true;
            }
        };
        let id = self.bind_operand(&p.ident, op, false, None, first_new, out);
        self.vars[id].deref = true;
        self.element_refs.push(id);
        self.bind(&p.ident, Binding::Var(id));
        true
    }

    /// `let (a, b) = p;` or `let [x, y] = xs[i];` for a part of an aggregate (a tuple or
    /// array parameter, a field, an element of a nested container): one `let` per name,
    /// `let a = p.0;`, `let x = xs[i][0];` (the place has no calls, so reading it again reads
    /// the same value). Returns false, having lowered nothing, for any other `let`.
    fn split_place(&mut self, pat: &syn::Pat, init: &syn::Expr, out: &mut Vec<Stmt>) -> bool {
        let names = |elems: &syn::punctuated::Punctuated<syn::Pat, syn::Token![,]>| {
            let last = elems.len().saturating_sub(1);
            elems.iter().enumerate().all(|(k, pat)| match pat {
                syn::Pat::Ident(p) => p.by_ref.is_none() && p.subpat.is_none(),
                syn::Pat::Wild(_) => true,
                syn::Pat::Rest(_) => k == last,
                _ => false,
            })
        };
        let (elems, tuple) = match pat {
            syn::Pat::Tuple(t) if names(&t.elems) => (&t.elems, true),
            syn::Pat::Slice(s) if names(&s.elems) => (&s.elems, false),
            _ => return false,
        };
        let place = super::strip(init);
        let reference = matches!(place, syn::Expr::Reference(_));
        if reference || !self.is_place_expr(place) || !super::desugar::pure_place(place) {
            return false;
        }
        // A tuple pattern ends with no `..` (whose parts would be counted from the end).
        if tuple && elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) {
            return false;
        }
        for (k, elem) in elems.iter().enumerate() {
            if !matches!(elem, syn::Pat::Ident(_)) {
                continue;
            }
            let part: syn::Expr = match tuple {
                true => {
                    let index = syn::Index::from(k);
                    syn::parse_quote_spanned!(elem.span()=> #place.#index)
                }
                false => syn::parse_quote_spanned!(elem.span()=> #place[#k]),
            };
            let stmt: syn::Stmt = syn::parse_quote_spanned!(elem.span()=> let #elem = #part;);
            if let syn::Stmt::Local(local) = stmt {
                self.lower_let(&local, out);
            }
        }
        true
    }

    /// `let (a, b) = (x, y);` as `let a = x; let b = y;` (each part bound as a `let` of its own
    /// binds it: a place is copied, `let (u, v) = (self.c, o.c);`), when no part names one of
    /// the pattern's names (`let (a, b) = (b, a);` reads the old values). Returns false, having
    /// lowered nothing, for any other `let`.
    fn split_tuple(&mut self, pat: &syn::Pat, init: &syn::Expr, out: &mut Vec<Stmt>) -> bool {
        let (syn::Pat::Tuple(pats), syn::Expr::Tuple(values)) = (pat, super::strip(init)) else {
            return false;
        };
        if pats.elems.len() != values.elems.len() || pats.elems.is_empty() {
            return false;
        }
        let mut names = Vec::new();
        for p in &pats.elems {
            match p {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    names.push(p.ident.to_string())
                }
                syn::Pat::Wild(_) => {}
                _ => return false,
            }
        }
        // (A field's name, `self.w`'s `w`, is no read of `w`.)
        if values
            .elems
            .iter()
            .any(|v| super::desugar::reads_any(v, &names))
        {
            return false;
        }
        for (p, v) in pats.elems.iter().zip(&values.elems) {
            let stmt: syn::Stmt = syn::parse_quote_spanned!(p.span()=> let #p = #v;);
            if let syn::Stmt::Local(local) = stmt {
                self.lower_let(&local, out);
            }
        }
        true
    }

    /// Binds `pat` to `value`: names get variables, tuples are taken apart.
    pub(super) fn bind_pattern(
        &mut self,
        pat: &syn::Pat,
        value: Value,
        annot: Option<syn::Type>,
        first_new: VarId,
        out: &mut Vec<Stmt>,
    ) {
        match (pat, value) {
            (syn::Pat::Ident(p), value) if p.by_ref.is_none() && p.subpat.is_none() => {
                let mutable = p.mutability.is_some();
                match value {
                    Value::Op(op) => {
                        let id = self.bind_operand(&p.ident, op, mutable, annot, first_new, out);
                        self.bind(&p.ident, Binding::Var(id));
                    }
                    Value::Tuple(items) => {
                        if mutable {
                            self.cx.error(p, "a mutable tuple is not supported by #[reverse]; bind each element to its own `let mut`");
                        }
                        let binding = self.tuple_binding(&p.ident, items, out);
                        self.bind(&p.ident, binding);
                    }
                    Value::Closure(closure) => self.bind(&p.ident, Binding::Closure(closure)),
                    Value::View(view) => self.bind(&p.ident, Binding::View(view)),
                    Value::Place(place) => self.bind(&p.ident, Binding::Place(place)),
                    Value::Error => self.bind(&p.ident, Binding::Poisoned),
                    Value::Unit | Value::Never => {
                        self.cx
                            .error(p, "this `let` binds `()`; #[reverse] expects a value");
                    }
                    Value::Panics => {
                        self.cx.error(
                            p,
                            "every branch of this `let`'s value panics; #[reverse] expects a value (panic in a \
                             statement of its own)",
                        );
                    }
                }
            }
            (syn::Pat::Wild(_), _) => {}
            (syn::Pat::Tuple(tuple), Value::Tuple(items)) if tuple.elems.len() == items.len() => {
                for (pat, item) in tuple.elems.iter().zip(items) {
                    let (pat, annot) = match pat {
                        syn::Pat::Type(typed) => (&*typed.pat, Some((*typed.ty).clone())),
                        pat => (pat, None),
                    };
                    self.bind_pattern(pat, item, annot, first_new, out);
                }
            }
            (syn::Pat::Tuple(tuple), value) if self.bind_parts(tuple, &value, out) => {}
            (syn::Pat::Slice(slice), Value::Op(Operand::Var(array)))
                if self.vars[array].ty.is_array() =>
            {
                self.bind_elements(slice, array, out)
            }
            // An item of a constant table of tuples (`for &(t, w) in GAUSS.iter()`): its
            // elements, read as written (`item.0`), constants beside the floats.
            (syn::Pat::Tuple(tuple), Value::Op(Operand::Var(v)))
                if matches!(self.vars[v].ty, Ty::Unknown | Ty::Other)
                    && !self.is_aggregate(v)
                    && self.table_items.contains(&v) =>
            {
                let name = self.vars[v].name.clone();
                for (k, pat) in tuple.elems.iter().enumerate() {
                    let (pat, annot) = match pat {
                        syn::Pat::Type(typed) => (&*typed.pat, Some((*typed.ty).clone())),
                        pat => (pat, None),
                    };
                    let field = syn::Index::from(k);
                    let opaque = Opaque::generated(quote!(#name.#field), vec![v]);
                    let part = self.let_opaque(out, "e", Ty::Unknown, opaque, pat.span());
                    self.table_items.push(part);
                    self.bind_pattern(pat, Value::Op(Operand::Var(part)), annot, first_new, out);
                }
            }
            (syn::Pat::Tuple(tuple), _) => self.cx.error(
                tuple,
                "#[reverse] can destructure a tuple written in place, as in \
                 `let (a, b) = (x, y);`, but not other values",
            ),
            (pat, _) => self.cx.error(
                pat,
                "this pattern is not supported by #[reverse]; bind the value to a name",
            ),
        }
    }

    /// `let [a, b, c] = x;` (or `[a, _, ..]`) for a float array `x`: each name is an element,
    /// `let a = x[0];`.
    fn bind_elements(&mut self, slice: &syn::PatSlice, array: VarId, out: &mut Vec<Stmt>) {
        let elem = match &self.vars[array].ty {
            Ty::Array(info) => Ty::Float(info.elem),
            _ => Ty::Float(None),
        };
        let last = slice.elems.len().saturating_sub(1);
        for (k, pat) in slice.elems.iter().enumerate() {
            match pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    let index = Operand::Lit(quote!(#k), LitKind::Int);
                    let rhs = Rhs::Index(array, crate::ir::Path::index(index));
                    let op = self.let_temp(out, rhs, elem.clone(), p.ident.span());
                    let first_new = self.vars.len() - 1;
                    let id = self.bind_operand(
                        &p.ident,
                        op,
                        p.mutability.is_some(),
                        None,
                        first_new,
                        out,
                    );
                    self.bind(&p.ident, Binding::Var(id));
                }
                syn::Pat::Wild(_) => {}
                syn::Pat::Rest(_) if k == last => {}
                other => self.cx.error(
                    other,
                    "#[reverse] takes a float array apart into names, `_` and a final `..` \
                     (`let [a, b, ..] = x;`); bind this element to a name",
                ),
            }
        }
    }

    /// `let name = op;`: reuses the temporary that computed `op` when there is one.
    pub(super) fn bind_operand(
        &mut self,
        ident: &Ident,
        op: Operand,
        mutable: bool,
        annot: Option<syn::Type>,
        first_new: VarId,
        out: &mut Vec<Stmt>,
    ) -> VarId {
        let annot_float = annot.as_ref().and_then(|t| self.sig.float_of(t));
        if let Operand::Var(t) = op {
            let fresh_temp = t >= first_new && self.vars[t].temp && self.vars[t].param.is_none();
            let last_defines = matches!(out.last(), Some(Stmt { kind: StmtKind::Let { var, .. }, .. }) if *var == t);
            // A `let mut` gets its own variable when the temporary is the output of an
            // operation whose reverse reads it (`x / y`, `x.exp()`): the mutable variable
            // will be overwritten.
            let reads_output = matches!(
                out.last(),
                Some(Stmt {
                    kind: StmtKind::Let {
                        rhs: Rhs::Binary(crate::ir::BinOp::Div, ..),
                        ..
                    },
                    ..
                })
            ) || matches!(
                out.last(),
                Some(Stmt { kind: StmtKind::Let { rhs: Rhs::Intrinsic(rule, _), .. }, .. }) if rule.reads_output
            );
            if fresh_temp && last_defines && !(mutable && reads_output) {
                self.rename_temp(t, ident, mutable);
                if let Some(Stmt {
                    kind: StmtKind::Let { ty, .. },
                    ..
                }) = out.last_mut()
                {
                    *ty = annot.as_ref().map(ToTokens::to_token_stream);
                }
                self.refine_declared(t, annot.as_ref(), annot_float);
                return t;
            }
        }
        let ty = self.ty_of(&op);
        let id = self.user_var(ident, ty, mutable);
        self.refine_declared(id, annot.as_ref(), annot_float);
        // A copy of an item taken by reference is one too (`let v = x;` then `*v`).
        if let (Operand::Var(t), false, None) = (&op, mutable, &annot) {
            self.vars[id].deref = self.vars[*t].deref;
        }
        let ty = annot.as_ref().map(ToTokens::to_token_stream);
        out.push(Stmt {
            kind: StmtKind::Let {
                var: id,
                rhs: Rhs::Copy(op),
                ty,
            },
            span: ident.span(),
        });
        id
    }

    /// Whether `ty` names a struct of the user's by Rust's naming convention: a path whose
    /// last name is `CamelCase`, not a float type (`T`), nor std's containers and strings.
    fn names_a_struct(&self, ty: &syn::Type) -> bool {
        let syn::Type::Path(p) = ty else {
            return false;
        };
        let Some(last) = p.path.segments.last() else {
            return false;
        };
        let name = last.ident.to_string();
        p.qself.is_none()
            && name.starts_with(|c: char| c.is_ascii_uppercase())
            && self.sig.float_of(ty).is_none()
            && !super::linalg::names_a_matrix(ty)
            && !matches!(
                name.as_str(),
                "Vec"
                    | "Option"
                    | "Box"
                    | "Rc"
                    | "Arc"
                    | "String"
                    | "HashMap"
                    | "BTreeMap"
                    | "VecDeque"
                    | "Cell"
                    | "RefCell"
            )
    }

    /// Uses a type annotation to settle the type of a new variable.
    pub(super) fn refine_declared(
        &mut self,
        id: VarId,
        annot: Option<&syn::Type>,
        float: Option<FloatTy>,
    ) {
        if let Some(t) = float {
            self.vars[id].ty = Ty::Float(Some(t));
        } else if let (Some(ty), true) = (annot, self.is_aggregate(id)) {
            // `let mut m: Model = Default::default();`: the type the reverse sweep pops.
            if !self.declared.iter().any(|(v, _)| *v == id) {
                self.declared.push((id, ty.to_token_stream()));
            }
        } else if let (Some(ty), Ty::Unknown) = (annot, &self.vars[id].ty) {
            // `let t: [f64; 3] = table();` of a call the macro does not see into: a float
            // array, as the annotation says (`Vec<f64>` too).
            let array = match ty {
                syn::Type::Array(a) => self
                    .sig
                    .float_of(&a.elem)
                    .map(|t| (t, crate::ir::Shape::Fixed(a.len.to_token_stream()))),
                syn::Type::Path(p) => p.path.segments.last().and_then(|s| match &s.arguments {
                    syn::PathArguments::AngleBracketed(args) if s.ident == "Vec" => {
                        match args.args.first() {
                            Some(syn::GenericArgument::Type(elem)) => self
                                .sig
                                .float_of(elem)
                                .map(|t| (t, crate::ir::Shape::Like(id))),
                            _ => None,
                        }
                    }
                    _ => None,
                }),
                _ => None,
            };
            match array {
                Some((t, shape)) => {
                    self.vars[id].ty = Ty::Array(crate::ir::ArrayInfo {
                        elem: Some(t),
                        shape,
                        agg: false,
                    })
                }
                // A type that mentions a float (`Option<f64>`) may hold differentiated values:
                // it stays unknown rather than known-inactive.
                None if !mentions_float_type(ty, self.sig) => {
                    self.vars[id].ty = inactive_param_ty(ty);
                    // `let m: Mode = if .. { Mode::A } else { Mode::B };`: a value of the
                    // user's that a reverse sweep may read (a callee's argument), pushed
                    // whole and popped as the type the `let` names.
                    if self.vars[id].ty == Ty::Other && !self.declared.iter().any(|(v, _)| *v == id)
                    {
                        self.declared.push((id, ty.to_token_stream()));
                    }
                }
                None => {}
            }
        }
    }

    /// Binds each element of a tuple value to a variable, for `let t = (a, b);`.
    pub(super) fn tuple_binding(
        &mut self,
        ident: &Ident,
        items: Vec<Value>,
        out: &mut Vec<Stmt>,
    ) -> Binding {
        let mut bindings = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let name = quote::format_ident!("{}_{}", ident, i, span = ident.span());
            match item {
                Value::Op(op) => {
                    let id = self.user_var(&name, self.ty_of(&op), false);
                    out.push(Stmt {
                        kind: StmtKind::Let {
                            var: id,
                            rhs: Rhs::Copy(op),
                            ty: None,
                        },
                        span: ident.span(),
                    });
                    bindings.push(Binding::Var(id));
                }
                Value::Tuple(inner) => bindings.push(self.tuple_binding(&name, inner, out)),
                Value::Closure(c) => bindings.push(Binding::Closure(c)),
                Value::View(v) => bindings.push(Binding::View(v)),
                Value::Place(p) => bindings.push(Binding::Place(p)),
                Value::Error => bindings.push(Binding::Poisoned),
                Value::Unit | Value::Never | Value::Panics => {
                    self.cx
                        .error(ident, "a tuple element of type `()` is not supported");
                }
            }
        }
        Binding::Tuple(bindings)
    }
}
