//! Lowering of a function body to the IR (see the parent module for the shape).
//!
//! By concern: `scope` (variables, scopes, blocks), `bind` (`let` and patterns), `jumps`
//! (flags and guards for `return`/`break`/`continue`), `expr` (expressions), `control`
//! (branches, `match`, and loops, built in one place by `push_loop`), `iter` (iterator chains
//! lowered to loops), `closure` (closures inlined at their calls), `conversions` (`T::from_f64`
//! and `T::from_i32` in generic code), `gradient` (`revad::stop_gradient`), `rename` (the opaque parts, renamed), `views` (slices of
//! float arrays as base + offset + length, and the `for` loops over them). This module holds
//! the entry point and the statement lists.
//!
//! In: the `syn::Block` of the function and its validated signature. Out: a [`Body`], or
//! errors at the spans of every construct outside the supported subset (lowering keeps going
//! after an error so that all of them are reported at once).
//!
//! Jumps become flags and guards, so that every block of the IR runs to its end:
//!
//! ```text
//! // Before                          // After
//! loop {                             let mut __brk0 = false;
//!     s = s * 0.5;                   loop {
//!     if s < 1.0 { break; }              s = s * 0.5;
//!     n += 1;                            let __c1 = s < 1.0;
//! }                                      if __c1 { __brk0 = true; }
//!                                        let __g2 = !__brk0;
//!                                        if __g2 { n += 1; }
//!                                        if __brk0 { break; }     // the loop's exit check
//!                                    }
//! ```

use std::collections::{BTreeSet, HashMap};

use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::Ident;

use super::names::Names;
use super::{
    Block, Body, FloatTy, LitKind, Opaque, Operand, Output, Path, Rhs, Stmt, StmtKind, Ty, Var,
    VarId,
};
use crate::error::Errors;
use crate::parse::{ParamKind, Passing, RetTy, Signature};

mod bind;
mod checks;
mod closure;
mod control;
mod conversions;
mod desugar;
mod enums;
mod expr;
mod gradient;
mod grow;
mod hoist;
mod iter;
mod iter_mut;
mod jumps;
pub(crate) mod linalg;
mod options;
mod places;
mod rename;
mod results;
mod scope;
mod views;
mod whole;

use jumps::{Jumps, LoopCtx, RetCtx};

/// Lowers `block`, the body of a function with signature `sig`, for `#[revad::forward]` when
/// `forward` (see [`Lowerer::forward`]).
pub(crate) fn lower(
    cx: &Errors,
    sig: &Signature,
    block: &syn::Block,
    forward: bool,
) -> Option<Body> {
    let mut lowerer = Lowerer::new(cx, sig);
    lowerer.forward = forward;
    lowerer.variant_roots = enums::variant_roots(block);
    let mut stmts = Vec::new();
    let writebacks = lowerer.copy_mut_params(&mut stmts);
    // `std::iter::zip(a, b)`: `a.into_iter().zip(b)`.
    let unzipped = iter::free_zips(block);
    let block = unzipped.as_ref().unwrap_or(block);
    // `if c { ..; return a; } ..; b` in a function returning an array or a tuple: `if c {
    // ..; a } else { ..; b }`.
    let hoisted;
    let block = match sig.ret {
        RetTy::Scalar(_) | RetTy::Unit => block,
        _ if !rename::contains_return(block) => block,
        _ => match jumps::returns_as_branches(&block.stmts) {
            Some(stmts) => {
                hoisted = syn::Block {
                    brace_token: block.brace_token,
                    stmts,
                };
                &hoisted
            }
            None => block,
        },
    };
    // `std::array::from_fn(|i| ..)` or a 2-D array literal as the result (see
    // `desugar::array_result`).
    let arrayed;
    let block = match desugar::array_result(block, &sig.ret) {
        Some(stmts) => {
            arrayed = syn::Block {
                brace_token: block.brace_token,
                stmts,
            };
            &arrayed
        }
        None => block,
    };
    let returns = rename::contains_return(block);
    if returns {
        if !matches!(sig.ret, RetTy::Scalar(_) | RetTy::Unit) {
            let span = rename::first_return_span(block).unwrap_or_else(Span::call_site);
            cx.error_at(
                span,
                "early `return` is supported in functions that return a scalar (`f64`, \
                 `f32`) or `()`, and in others as the last statement of an `if` without \
                 `else` in the function's body (`if c { return a; }`); compute the result in \
                 a variable and return it at the end",
            );
            return None;
        }
        lowerer.start_returns(jumps::RetKind::Function, &mut stmts);
    }
    let tail = if returns { Tail::Return } else { Tail::Value };
    // A struct returned by a call (`Point::new(x, y)` as the result): the call's result is
    // the struct.
    if let (RetTy::Aggregate(_), Some(syn::Stmt::Expr(expr, None))) = (&sig.ret, block.stmts.last())
    {
        // (Not a tuple struct's or a variant's constructor, `Some(x)`, `Pair(a, b)`: a
        // function's name starts in lower case.)
        let call = match strip(expr) {
            syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.last()
                .is_some_and(|s| !s.ident.to_string().starts_with(char::is_uppercase))),
            syn::Expr::MethodCall(_) => true,
            _ => false,
        };
        if call {
            lowerer.struct_result = Some(strip(expr));
        }
    }
    let (value, _) = lowerer.lower_stmts(&block.stmts, &mut stmts, tail);
    if !sig.valid {
        // The return type was rejected: nothing to match the result against.
        return None;
    }
    let output = match &lowerer.ret {
        Some(RetCtx { value: Some(v), .. }) if !matches!(sig.ret, RetTy::Unit) => {
            Output::Scalar(Operand::Var(*v))
        }
        Some(_) => Output::Tuple(Vec::new()),
        None => lowerer.output(&sig.ret, value, block)?,
    };
    lowerer.finish_growth(&mut stmts);
    let block = Block { id: 0, stmts };
    control::check_checkpoints(cx, &block);
    if cx.has_errors() {
        return None;
    }
    // A lifted closure's function reads the items of the body too (`|x| c * x * K`).
    if !lowerer.items.is_empty() {
        let items = &lowerer.items;
        for hoisted in &mut lowerer.hoisted {
            let body = &hoisted.body;
            hoisted.body = quote!({ #(#[allow(dead_code, unused_imports)] #items)* #body });
        }
    }
    Some(Body {
        vars: lowerer.vars,
        block,
        output,
        writebacks,
        blocks: lowerer.blocks,
        callees: lowerer.callees,
        enums: lowerer.enums,
        hoisted: lowerer.hoisted,
        items: lowerer.items,
        witnesses: lowerer.witnesses,
        declared: lowerer.declared,
    })
}

/// What a name in scope refers to.
#[derive(Clone, Debug)]
enum Binding {
    Var(VarId),
    /// A tuple bound by `let t = (a, b);`: `t.0` is `a`.
    Tuple(Vec<Binding>),
    /// A closure bound by `let f = |x| ..;`: calls are inlined.
    Closure(closure::Closure),
    /// A name whose value was an error: its uses report nothing more.
    Poisoned,
    /// A slice of a float array (`let t = &x[1..];`): its elements are the base's.
    View(views::View),
    /// A part of an aggregate (`let l = &self.layers[k];`): its floats are the root's.
    Place(places::Place),
    /// An iterator chain bound by `let` (`let it = xs.iter().map(|v| v * w);`), lowered
    /// where it is consumed (`it.sum()`, see `iter::BoundChain`).
    Chain(iter::BoundChain),
}

/// The value of a lowered expression.
#[derive(Clone, Debug)]
enum Value {
    Op(Operand),
    Tuple(Vec<Value>),
    /// A closure value (see `closure`).
    Closure(closure::Closure),
    /// `()`: statements, loops, assignments.
    Unit,
    /// `!`: `return`, `break`, `continue`.
    Never,
    /// `!` of a branch, arm or block that ends in a panic (`_ => unreachable!()`, `else {
    /// panic!("..") }`): the other branch's value is the value after it.
    Panics,
    /// An expression that was already reported as an error: its uses report nothing more.
    Error,
    /// A slice of a float array (see `views`).
    View(views::View),
    /// An item of an iterator chain over an aggregate (`ps.iter().map(|p| ..)`): a part of
    /// it, which the closure's parameter binds (see `places`). `lower_expr` never returns one.
    Place(places::Place),
}

/// What to do with the tail expression of a block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// Its value is not used (loop bodies, blocks in statement position).
    Discard,
    /// It is the value of the block.
    Value,
    /// It is the function's result: assign it to the return slot (the body has `return`s).
    Return,
}

struct Lowerer<'a> {
    cx: &'a Errors,
    sig: &'a Signature,
    vars: Vec<Var>,
    names: Names,
    scopes: Vec<HashMap<String, Binding>>,
    blocks: usize,
    loops: Vec<LoopCtx>,
    ret: Option<RetCtx>,
    /// Inside an `if` or `match` that produces a value, where jumps are not supported.
    in_value_branch: usize,
    /// Functions with derivatives called so far.
    callees: Vec<super::Callee>,
    /// The variables that hold the result of such a call (a scalar, as far as the macro knows).
    call_results: Vec<VarId>,
    /// Those of calls that pass variables by `&mut`.
    mut_calls: Vec<VarId>,
    /// The variables holding a matrix made by a rule of the runtime (`m * v`, `Vector3::new`:
    /// see `linalg`).
    matrix_values: Vec<VarId>,
    /// The call that is the function's result when it returns a struct (see `results`).
    struct_result: Option<*const syn::Expr>,
    /// The body's copies of the `&mut` parameters (the user's names are `&mut` references).
    mut_refs: Vec<VarId>,
    /// The names bound to a reference to a float element (`let v = &xs[i];`): the IR holds
    /// the value, and a call that takes `&f64` gets `&v`.
    element_refs: Vec<VarId>,
    /// The shape the statement being lowered gives the result of its call (see `results`).
    result_shape: Option<results::ResultShape>,
    /// Aggregates made by a struct expression: values of a type of the user's, which has no
    /// arithmetic rule (`linalg`'s are `nalgebra`'s matrices).
    user_structs: Vec<VarId>,
    /// Lowering for `#[revad::forward]`, whose code takes no aggregate call results: a call's
    /// result passed on whole to another call is taken for a float there, for an aggregate
    /// in reverse mode (see `results`).
    forward: bool,
    /// The parts of that result, once the call is lowered: whether each is an array.
    pending_parts: Option<Vec<bool>>,
    /// Names a `for` loop over a sequence of `views` binds in its body.
    for_bindings: Vec<(Ident, Binding)>,
    /// The items of loops over constant tables, and the parts of tuple items taken apart
    /// (`for &(t, w) in GAUSS.iter()`): read as written.
    table_items: Vec<VarId>,
    /// Depth of closure bodies being inlined (growing a vector there is rejected).
    closure_depth: usize,
    /// The enums whose variants the body reaches or builds (see `enums`).
    enums: Vec<crate::ir::EnumAlias>,
    /// The closures passed to functions, lifted (see `hoist`).
    hoisted: Vec<crate::ir::Hoisted>,
    /// The `const`, `static` and `use` items of the body (see `Body::items`), and the names
    /// they declare.
    items: Vec<proc_macro2::TokenStream>,
    item_names: Vec<String>,
    /// See `Body::witnesses`.
    witnesses: Vec<(VarId, proc_macro2::TokenStream)>,
    /// See `Body::declared`.
    declared: Vec<(VarId, proc_macro2::TokenStream)>,
    /// The labels of labeled blocks, which are rejected: a `break` to one is not another
    /// error.
    block_labels: Vec<String>,
    /// How many indices reach a float in a nested container of floats (`[[f64; 2]; 3]`,
    /// `Vec<Vec<f64>>`: 2), where its type or its initializer says (see `places::rows`).
    float_depth: HashMap<VarId, usize>,
    /// The names whose values the body takes apart by variant (`match s { Shape::Circle(r)
    /// => .. }`, `if let Some(b) = l.bias`, `l.bias.unwrap_or(..)`: see `enums::variant_roots`).
    variant_roots: Vec<String>,
}

impl<'a> Lowerer<'a> {
    /// The tokens of an operand: the variable's name, or the literal.
    fn op_tokens(&self, op: &Operand) -> proc_macro2::TokenStream {
        match op {
            Operand::Var(v) => self.vars[*v].name.to_token_stream(),
            Operand::Lit(t, _) => t.clone(),
        }
    }

    fn new(cx: &'a Errors, sig: &'a Signature) -> Self {
        let mut lowerer = Lowerer {
            cx,
            sig,
            vars: Vec::new(),
            names: Names::default(),
            scopes: vec![HashMap::new()],
            blocks: 1,
            loops: Vec::new(),
            ret: None,
            in_value_branch: 0,
            callees: Vec::new(),
            call_results: Vec::new(),
            mut_calls: Vec::new(),
            struct_result: None,
            matrix_values: Vec::new(),
            mut_refs: Vec::new(),
            element_refs: Vec::new(),
            result_shape: None,
            user_structs: Vec::new(),
            forward: false,
            pending_parts: None,
            enums: Vec::new(),
            for_bindings: Vec::new(),
            table_items: Vec::new(),
            closure_depth: 0,
            hoisted: Vec::new(),
            items: Vec::new(),
            item_names: Vec::new(),
            witnesses: Vec::new(),
            declared: Vec::new(),
            block_labels: Vec::new(),
            float_depth: HashMap::new(),
            variant_roots: Vec::new(),
        };
        for (index, param) in sig.params.iter().enumerate() {
            let ty = match &param.kind {
                ParamKind::Scalar(t) => Ty::Float(Some(*t)),
                ParamKind::Array { elem, .. } | ParamKind::Slice { elem } => {
                    Ty::Array(super::ArrayInfo {
                        elem: Some(*elem),
                        shape: super::Shape::Like(index),
                        agg: false,
                    })
                }
                ParamKind::Aggregate { .. } => Ty::Array(super::ArrayInfo {
                    elem: None,
                    shape: super::Shape::Like(index),
                    agg: true,
                }),
                ParamKind::Inactive => inactive_param_ty(&param.ty),
            };
            // (`self` cannot be bound again: the receiver is `__self` in generated code.)
            let name = match param.ident == "self" {
                true => lowerer.names.fixed("self"),
                false => lowerer.names.user(&param.ident),
            };
            let id = lowerer.new_var(name, ty, param.mutable, param.ident.span());
            if let ParamKind::Aggregate { .. } = param.kind {
                if let Some(depth) = lowerer.type_depth(&param.ty) {
                    lowerer.float_depth.insert(id, depth);
                }
            }
            lowerer.vars[id].param = Some(index);
            lowerer.vars[id].temp = false;
            // `*x` on a `&f64` (or `&mut f64`) is `x`: the generated code binds the value.
            lowerer.vars[id].deref =
                param.passing != Passing::Value && matches!(param.kind, ParamKind::Scalar(_));
            let binding = if param.rejected {
                Binding::Poisoned
            } else {
                Binding::Var(id)
            };
            lowerer.bind(&param.ident, binding);
        }
        lowerer
    }

    /// A by-value `mut` float or array parameter becomes a local copy (`let mut x_1 = x;`,
    /// `let mut a_1 = a.clone();`): the parameter keeps its value on entry, which is what a
    /// caller's split companions pass again to the reverse sweep, and the planner keeps the
    /// values the body assigns like those of any local.
    ///
    /// A `&mut` float parameter is a copy too: the parameter (bound by the generated code to
    /// its value on entry) is an input, the copy is written by the body and is the output
    /// that codegen writes back through the reference. Returns those outputs, in order.
    fn copy_mut_params(&mut self, out: &mut Vec<Stmt>) -> Vec<super::Writeback> {
        let mut writebacks = Vec::new();
        for (index, param) in self.sig.params.iter().enumerate() {
            let float = !matches!(param.kind, ParamKind::Inactive);
            let by_mut_ref = param.passing == Passing::MutRef;
            if !(float && (param.mutable || by_mut_ref) && !param.rejected) {
                continue;
            }
            self.vars[index].mutable = false;
            let ty = self.vars[index].ty.clone();
            let copy = self.user_var(&param.ident, ty, true);
            self.vars[copy].deref = self.vars[index].deref;
            if let Some(&depth) = self.float_depth.get(&index) {
                self.float_depth.insert(copy, depth);
            }
            out.push(Stmt {
                kind: StmtKind::Let {
                    var: copy,
                    rhs: Rhs::Copy(Operand::Var(index)),
                    ty: None,
                },
                span: param.ident.span(),
            });
            self.bind(&param.ident, Binding::Var(copy));
            if by_mut_ref {
                self.mut_refs.push(copy);
                writebacks.push(super::Writeback {
                    param: index,
                    var: copy,
                });
            }
        }
        writebacks
    }

    /// Whether the statement `v.sort_by(..);` (see `desugar::reordered_in_place`) reorders a
    /// float array, slice or `Vec` bound to a name.
    fn reorders_floats(&self, stmt: &syn::Stmt) -> bool {
        let syn::Stmt::Expr(syn::Expr::MethodCall(call), _) = stmt else {
            return false;
        };
        let syn::Expr::Path(p) = strip(&call.receiver) else {
            return false;
        };
        match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
            Some(Binding::Var(v)) => matches!(&self.vars[*v].ty, Ty::Array(info) if !info.agg),
            _ => false,
        }
    }

    // ---- statements -----------------------------------------------------------------------

    /// Lowers a list of statements into `out`, guarding what follows a statement that may
    /// jump. Returns the value of the tail expression (if `tail` is `Value`) and the jumps.
    fn lower_stmts(
        &mut self,
        stmts: &[syn::Stmt],
        out: &mut Vec<Stmt>,
        tail: Tail,
    ) -> (Value, Jumps) {
        if stmts.iter().any(is_empty_stmt) {
            // A stray `;` does nothing: lower the statements without it.
            let stmts: Vec<syn::Stmt> = stmts
                .iter()
                .filter(|s| !is_empty_stmt(s))
                .cloned()
                .collect();
            return self.lower_stmts(&stmts, out, tail);
        }
        // `let Some(v) = xs.get(i) else { .. };`: a test and a `let` (see `desugar::let_else`).
        if stmts
            .iter()
            .any(|s| matches!(s, syn::Stmt::Local(l) if desugar::let_else(l).is_some()))
        {
            let stmts: Vec<syn::Stmt> = stmts
                .iter()
                .flat_map(|s| match s {
                    syn::Stmt::Local(l) => match desugar::let_else(l) {
                        Some(parts) => parts.to_vec(),
                        None => vec![s.clone()],
                    },
                    s => vec![s.clone()],
                })
                .collect();
            return self.lower_stmts(&stmts, out, tail);
        }
        // `let [a, b] = g(s);`: the result bound, then its elements (see
        // `desugar::array_pattern_of_call`); `let (i, v) = xs.iter().enumerate().max_by(..)
        // .unwrap();`: the index, then the element (`desugar::enumerated_pick_pattern`);
        // `let Neuron { w, b } = self;`: a `let` per field (`desugar::struct_pattern`).
        let split = |l: &syn::Local| {
            desugar::array_pattern_of_call(l)
                .or_else(|| desugar::enumerated_pick_pattern(l))
                .or_else(|| desugar::struct_pattern(l, &|e| self.is_reference_name(e)))
        };
        let rewrite = |s: &syn::Stmt| {
            desugar::lent_parts(s).or_else(|| match s {
                syn::Stmt::Local(l) => split(l),
                _ => None,
            })
        };
        if stmts.iter().any(|s| rewrite(s).is_some()) {
            let stmts: Vec<syn::Stmt> = stmts
                .iter()
                .flat_map(|s| rewrite(s).unwrap_or_else(|| vec![s.clone()]))
                .collect();
            return self.lower_stmts(&stmts, out, tail);
        }
        // `let z; if c { z = a; } else { z = b; }`: `let z = if c { a } else { b };` (see
        // `desugar::deferred_lets`).
        if let Some(stmts) = desugar::deferred_lets(stmts) {
            return self.lower_stmts(&stmts, out, tail);
        }
        // `fn sq(v: f64) -> f64 { v * v }` in the body: `let sq = |v: f64| -> f64 { v * v };`
        // at the start of the block (see `desugar::nested_fns`).
        if let Some(stmts) = desugar::nested_fns(stmts) {
            return self.lower_stmts(&stmts, out, tail);
        }
        let mut jumps = Jumps::default();
        for (k, stmt) in stmts.iter().enumerate() {
            let last = k + 1 == stmts.len();
            self.expect_result_shape(stmts, k);
            let (value, j) = self.lower_stmt(stmt, out, last, tail);
            if last {
                jumps.merge(j);
                return (value, jumps);
            }
            if j.any() {
                let rest = &stmts[k + 1..];
                if matches!(value, Value::Never) {
                    // `return x; more` — what follows a plain jump never runs.
                    jumps.merge(j);
                    return (Value::Never, jumps);
                }
                let guard = self.guard(
                    &j,
                    out,
                    rest.first().map_or(Span::call_site(), Spanned::span),
                );
                let mut then = Vec::new();
                self.push_scope();
                let (value, j_rest) = self.lower_stmts(rest, &mut then, tail);
                self.pop_scope();
                if !matches!(value, Value::Unit | Value::Never) {
                    self.cx.error_at(
                        rest.last().map_or(Span::call_site(), Spanned::span),
                        "a block whose value is used cannot contain `break` or `continue` \
                         before its end; assign the value to a variable instead",
                    );
                }
                let then = self.new_block(then);
                let els = self.new_block(Vec::new());
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond: guard,
                        then,
                        els,
                        phis: Vec::new(),
                    },
                    span: Span::call_site(),
                });
                jumps.merge(j);
                jumps.merge(j_rest);
                return (Value::Unit, jumps);
            }
        }
        (Value::Unit, jumps)
    }

    /// A `const`, a `static` that is not `mut`, or a `use` in the body: kept for every
    /// generated function (see `Body::items`), once per name (they all share one scope
    /// there); any other item is an error.
    fn lower_item(&mut self, item: &syn::Item) {
        let name = match item {
            syn::Item::Const(c) => Some(c.ident.to_string()),
            syn::Item::Static(s) if matches!(s.mutability, syn::StaticMutability::None) => {
                Some(s.ident.to_string())
            }
            syn::Item::Use(_) => None,
            syn::Item::Fn(f) if desugar::inactive_fn(f) => Some(f.sig.ident.to_string()),
            _ => {
                self.cx.error(
                    item,
                    "items inside a #[reverse] function other than `const`, `static`, `use` and \
                     `fn`s (without generics or recursion where they take floats) are not \
                     supported; move the item out of the function",
                );
                return;
            }
        };
        if let Some(name) = name {
            if self.item_names.contains(&name) {
                self.cx.error(
                    item,
                    "#[reverse] declares the items of the body once for the whole function; \
                     give this one a name of its own",
                );
                return;
            }
            self.item_names.push(name);
        }
        self.items.push(item.to_token_stream());
    }

    fn lower_stmt(
        &mut self,
        stmt: &syn::Stmt,
        out: &mut Vec<Stmt>,
        last: bool,
        tail: Tail,
    ) -> (Value, Jumps) {
        // `v.sort_by(cmp);`, `v.reverse();` of a float array or `Vec`: a permutation gathered
        // (see `desugar::reordered_in_place`). (Not a copy of a struct's array field, whose
        // type rustc knows only: `let mut h = p.hist;`.)
        if let Some(reordered) = desugar::reordered_in_place(stmt) {
            if self.reorders_floats(stmt) {
                return self.lower_stmt(&reordered, out, last, tail);
            }
        }
        match stmt {
            syn::Stmt::Local(local) => (self.lower_let(local, out), Jumps::default()),
            syn::Stmt::Item(item) => {
                self.lower_item(item);
                (Value::Unit, Jumps::default())
            }
            syn::Stmt::Macro(mac) if checks::is_check(&mac.mac) => {
                self.lower_check(&mac.mac, out);
                (Value::Unit, Jumps::default())
            }
            syn::Stmt::Macro(mac) => {
                self.cx
                    .error(&mac.mac.path, rename::macro_message(&mac.mac.path, true));
                (Value::Unit, Jumps::default())
            }
            syn::Stmt::Expr(syn::Expr::Macro(m), semi) if checks::is_check(&m.mac) => {
                // A panic as the value of a block (a branch's, an arm's): it never completes.
                if last && semi.is_none() && tail == Tail::Value && checks::panics(&m.mac) {
                    self.lower_check(&m.mac, out);
                    return (Value::Panics, Jumps::default());
                }
                // A check or diagnostic as a statement; as the value of a block, rejected.
                if last && semi.is_none() && tail != Tail::Discard {
                    self.cx
                        .error(&m.mac.path, rename::macro_message(&m.mac.path, true));
                    return (Value::Error, Jumps::default());
                }
                self.lower_check(&m.mac, out);
                (Value::Unit, Jumps::default())
            }
            syn::Stmt::Expr(expr, Some(_)) if self.lower_vec_stmt(expr, out) => {
                (Value::Unit, Jumps::default())
            }
            syn::Stmt::Expr(expr, semi) => {
                let is_tail = last && semi.is_none();
                let want = is_tail && tail != Tail::Discard;
                if is_tail && tail == Tail::Return && !is_jump(expr) {
                    if let Some(result) = self.lower_tail_branches(expr, out) {
                        return result;
                    }
                    let (value, jumps) = self.lower_expr_jumps(expr, out, true);
                    self.assign_return(value, expr, out);
                    return (Value::Unit, jumps);
                }
                let (value, jumps) = self.lower_expr_jumps(expr, out, want);
                if !want {
                    self.discard_call_result(&value);
                }
                if is_tail {
                    (value, jumps)
                } else if matches!(value, Value::Never) {
                    (Value::Never, jumps)
                } else {
                    (Value::Unit, jumps)
                }
            }
        }
    }

    /// The result of a call made for its writes through `&mut` (`step(&mut s, dt);`) is
    /// unused and may be `()`: its type is left to rustc, and it gets no adjoint.
    fn discard_call_result(&mut self, value: &Value) -> bool {
        let Value::Op(Operand::Var(v)) = value else {
            return false;
        };
        if !self.call_results.contains(v) || !self.mut_calls.contains(v) {
            return false;
        }
        self.vars[*v].ty = Ty::Other;
        true
    }

    /// `__ret = value;` for the tail of a function with early returns, or of a closure's.
    fn assign_return(&mut self, value: Value, expr: &syn::Expr, out: &mut Vec<Stmt>) {
        let Some(RetCtx {
            value: Some(slot),
            kind,
            ..
        }) = self.ret
        else {
            return;
        };
        match value {
            Value::Op(op)
                if kind == jumps::RetKind::ClosureFloat
                    && matches!(self.ty_of(&op), Ty::Usize | Ty::I32 | Ty::Bool | Ty::Other) =>
            {
                self.cx.error(
                    expr,
                    "#[reverse] supports `return` in closures that return a float or nothing; \
                     make the returned value the closure's last expression",
                )
            }
            Value::Op(op) => out.push(Stmt {
                kind: StmtKind::Assign {
                    var: slot,
                    op: super::AssignOp::Set,
                    value: op,
                },
                span: expr.span(),
            }),
            Value::Never | Value::Unit | Value::Error | Value::Panics => {}
            Value::Tuple(_) | Value::Closure(_) | Value::View(_) | Value::Place(_) => {
                self.cx.error(
                    expr,
                    "expected a scalar result, found a tuple, a slice or a closure",
                )
            }
        }
    }

    /// Lowers an expression, reporting the jumps it may make. `want` says whether its value
    /// is used.
    fn lower_expr_jumps(
        &mut self,
        expr: &syn::Expr,
        out: &mut Vec<Stmt>,
        want: bool,
    ) -> (Value, Jumps) {
        match expr {
            syn::Expr::Return(ret) => (Value::Never, self.lower_return(ret, out)),
            syn::Expr::Break(brk) => (Value::Never, self.lower_break(brk, out)),
            syn::Expr::Continue(cont) => (Value::Never, self.lower_continue(cont, out)),
            syn::Expr::If(_) | syn::Expr::Match(_) | syn::Expr::Block(_) => {
                self.lower_control(expr, out, want)
            }
            syn::Expr::While(_) | syn::Expr::ForLoop(_) | syn::Expr::Loop(_) => {
                self.lower_loop(expr, out)
            }
            syn::Expr::Assign(_) => {
                self.lower_assign(expr, out);
                (Value::Unit, Jumps::default())
            }
            syn::Expr::Binary(bin) if is_compound_assign(&bin.op) => {
                self.lower_assign(expr, out);
                (Value::Unit, Jumps::default())
            }
            syn::Expr::Paren(p) => self.lower_expr_jumps(&p.expr, out, want),
            _ => (self.lower_expr(expr, out), Jumps::default()),
        }
    }

    // ---- let ------------------------------------------------------------------------------

    /// The output of the function, shaped like its return type.
    fn output(&mut self, ret: &RetTy, value: Value, block: &syn::Block) -> Option<Output> {
        let span = block
            .stmts
            .last()
            .map_or_else(|| block.brace_token.span.close(), Spanned::span);
        match (ret, value) {
            (RetTy::Unit, Value::Unit) => Some(Output::Tuple(Vec::new())),
            (RetTy::Unit, value) if self.discard_call_result(&value) => {
                Some(Output::Tuple(Vec::new()))
            }
            (RetTy::Scalar(_), Value::Op(op)) => Some(Output::Scalar(op)),
            (RetTy::Inactive, Value::Op(op)) => Some(Output::Inactive(op)),
            (RetTy::Array { .. } | RetTy::Vec(_), Value::Op(Operand::Var(v)))
                if self.vars[v].ty.is_array() =>
            {
                Some(Output::ArrayVar(v))
            }
            (RetTy::Aggregate(_), Value::Op(Operand::Var(v))) if self.is_aggregate(v) => {
                Some(Output::ArrayVar(v))
            }
            (RetTy::Tuple(types), Value::Tuple(items)) if types.len() == items.len() => types
                .iter()
                .zip(items)
                .map(|(ty, item)| self.output(ty, item, block))
                .collect::<Option<Vec<_>>>()
                .map(Output::Tuple),
            (_, Value::Error) => None,
            (_, Value::Never) => {
                self.cx
                    .error_at(span, "the function must end with its result expression");
                None
            }
            (_, Value::Unit) => {
                self.cx.error_at(
                    span,
                    "the function body must end with the result expression (without a `;`)",
                );
                None
            }
            (RetTy::Array { .. } | RetTy::Vec(_), Value::Op(Operand::Var(v)))
                if self.array_result(v) =>
            {
                Some(Output::ArrayVar(v))
            }
            (RetTy::Tuple(_), Value::Op(Operand::Var(v))) if self.call_results.contains(&v) => {
                self.cx.error_at(span, CALL_TUPLE);
                None
            }
            (RetTy::Aggregate(ty), _)
                if ["Option", "Result"]
                    .iter()
                    .any(|t| ty.to_string().starts_with(&format!("{t} <"))) =>
            {
                self.cx.error_at(
                    span,
                    "#[reverse] differentiates results that are floats, arrays, tuples and \
                     structs, not `Option` or `Result`; return the value (a NaN or a default \
                     where there is none) and test it in the caller",
                );
                None
            }
            _ => {
                self.cx.error_at(
                    span,
                    "#[reverse] cannot match this result to the return type; return a variable or \
                     an array literal for array outputs, and a tuple expression for tuples",
                );
                None
            }
        }
    }
}

/// The one message for a tuple returned by a call and not taken apart by `let`.
pub(super) const CALL_TUPLE: &str = "#[reverse] takes a tuple returned by a call apart by name: \
                                      write `let (a, b) = g(..);` and use `a` and `b`";

/// The one message for an array or tuple result of a call, which the macro takes for a scalar.
pub(super) const CALL_RESULT_NOT_SCALAR: &str =
    "#[reverse] takes this call's result for a scalar: it reads an array result from the `let` \
     that binds the call (`let out = g(..);` followed by `out[i]`, `out.iter()`, `&out`, or \
     `let out: [f64; N] = g(..);`); bind the call that way";

/// The one message for another use of an iterator bound by `let` (see `iter::BoundChain`).
const BOUND_CHAIN: &str = "#[reverse] consumes an iterator bound by `let` with `.sum()`, \
     `.product()` or `.collect()`; for other uses, write the chain where it is used";

/// The one message for `if let` and `while let` (in a condition, or anywhere in an expression).
pub(super) const IF_LET: &str = "`if let` and `while let` are not supported by #[reverse]; use \
     `match`, or `loop` with a `match` that `break`s";

/// The type of an inactive parameter or annotated local, for the roles the macro cares about.
fn inactive_param_ty(ty: &syn::Type) -> Ty {
    match ty {
        syn::Type::Path(p) if p.path.is_ident("usize") => Ty::Usize,
        syn::Type::Path(p) if p.path.is_ident("i32") => Ty::I32,
        syn::Type::Path(p) if p.path.is_ident("bool") => Ty::Bool,
        _ => Ty::Other,
    }
}

/// Whether `ty` names a float type anywhere (`Vec<f64>`, `[f32; 3]`, `Option<T>` for a float
/// type parameter `T` of `sig`).
fn mentions_float_type(ty: &syn::Type, sig: &Signature) -> bool {
    fn any_ident(tokens: proc_macro2::TokenStream, sig: &Signature) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => sig.float_named(&i).is_some(),
            proc_macro2::TokenTree::Group(g) => any_ident(g.stream(), sig),
            _ => false,
        })
    }
    any_ident(ty.to_token_stream(), sig)
}

/// `expr` without the parentheses (and invisible groups) around it.
fn strip(mut expr: &syn::Expr) -> &syn::Expr {
    loop {
        match expr {
            syn::Expr::Paren(p) => expr = &p.expr,
            syn::Expr::Group(g) => expr = &g.expr,
            _ => return expr,
        }
    }
}

pub(crate) fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// An empty statement, a stray `;` (which syn parses as an empty verbatim expression).
fn is_empty_stmt(stmt: &syn::Stmt) -> bool {
    matches!(stmt, syn::Stmt::Expr(syn::Expr::Verbatim(tokens), Some(_)) if tokens.is_empty())
}

fn is_jump(expr: &syn::Expr) -> bool {
    matches!(
        expr,
        syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_)
    )
}
