//! A readable rendering of a lowered [`Body`], for snapshot tests and for debugging.
//!
//! One IR statement per line, nested blocks indented by four spaces. The code reads like
//! Rust; what Rust cannot say goes into a `//` comment at the end of the line.
//!
//! ```text
//! fn recurrence(x0*: f64, a*: f64, b*: f64, n: usize) -> x
//!     let mut x*: f64 = x0
//!     for _ in 0..n {  // block 1; trips __trips4; up 0..n
//!         let __t0*: f64 = sin(x)
//!         let __t1*: f64 = __t0 * a
//!         let __t2*: f64 = x * b
//!         let __t3*: f64 = __t1 + __t2
//!         x = __t3
//!     }
//! ```
//!
//! - The header lists the parameters in order and, after `->`, the output ([`Output`]: an
//!   operand, an array variable, or a tuple of these). Then one comment per callee
//!   ([`Body::callees`]): its path, arity and alias.
//! - A variable is written with its IR name ([`Var::name`](super::Var)). Where it is defined
//!   (a parameter, a `let`, a phi, a `for` loop variable) it also shows `mut` if
//!   [`Var::mutable`](super::Var), `*` if active (only when the printer is given an
//!   [`Activity`]), and its [`Ty`]: `f64`/`f32`, `float` (precision not settled yet),
//!   `[f64; 3]`, `[f64; len n]` (a `Vec` of length `n`), `[f64; like xs]` (the shape of the
//!   parameter `xs`), `usize`, `i32`, `bool`, `other` (known not to be a float) and `?`
//!   (unknown). A `let` with a type written by the user says so: `// declared usize`.
//! - Right-hand sides ([`Rhs`]): `a`, `-a`, `a + b`, `sin(a)` (an intrinsic of the rule
//!   table), `a as f32`, `xs[i]`, `[a, b]`, `[a; N]`, `vec![a; n]`, `call g(a, &w)` (a
//!   function with a derivative; `&` marks an argument passed by reference), and
//!   `opaque { tokens }`: an inactive expression, emitted as written. Its comment lists the
//!   variables that flow into it (`flows`, whose derivative it would drop: `activity`
//!   reports an active one) and says `not cheap` when the reverse sweep may not evaluate it
//!   again.
//! - `v = a`, `v += a`, `xs[i] -= a` are assignments; `opaque { tokens }` on its own line is
//!   an inactive statement (its comment lists the variables it `writes` and what `flows`).
//! - `if c { .. } else { .. }` shows the ids of its blocks, and the values of an `if`
//!   expression after the closing brace: `} phis [t: f64 = (a | b)]`, where `a` comes from
//!   the `then` arm and `b` from the `else` arm.
//! - A loop is `while opaque { cond }`, `loop` or `for i: usize in range`; its comment gives
//!   its block, trip counter, exit flags (`break`, `return`), `continue` flag, and for a
//!   range: `up BASE` or `down BASE` for a plain range walked upwards or with `.rev()`, `not a plain range` for `step_by`.
//!
//! [`print`] renders a body as it is; [`Printer`] adds the function's name and activity
//! marks. The module is compiled for tests only: `AD_IR=path/to/file.rs cargo test -p
//! ad-macros ir_file -- --nocapture` prints the IR of every `#[reverse]` function of a file
//! (after `types::resolve`, with the activity of `NAME_vjp`), and the snapshot tests compare
//! the IR of `tests/expand/NAME.rs` with `tests/expand/NAME.ir` (`AD_SNAPSHOTS=overwrite`
//! rewrites them). [`contract`] checks the rules of the IR stated in the parent module.

use std::fmt::Write;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

use super::activity::Activity;
use super::{
    AssignOp, BinOp, Block, Body, LoopKind, Opaque, Operand, Output, Rhs, Shape, Stmt, StmtKind,
    Ty, VarId,
};

/// The IR of `body`, without a function name or activity marks.
pub(crate) fn print(body: &Body) -> String {
    Printer::new(body).print()
}

/// Renders a [`Body`]; see the module documentation for the format.
pub(crate) struct Printer<'b> {
    body: &'b Body,
    name: Option<String>,
    activity: Option<&'b Activity>,
}

impl<'b> Printer<'b> {
    pub(crate) fn new(body: &'b Body) -> Self {
        Printer {
            body,
            name: None,
            activity: None,
        }
    }

    /// Names the function in the header.
    pub(crate) fn name(mut self, name: impl ToString) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Marks active variables with a `*`.
    pub(crate) fn activity(mut self, activity: &'b Activity) -> Self {
        self.activity = Some(activity);
        self
    }

    pub(crate) fn print(&self) -> String {
        let mut out = String::new();
        let mut params: Vec<(usize, VarId)> = (self.body.vars.iter().enumerate())
            .filter_map(|(v, var)| Some((var.param?, v)))
            .collect();
        params.sort_unstable();
        let params: Vec<String> = params.iter().map(|&(_, v)| self.decl(v)).collect();
        let name = self
            .name
            .as_deref()
            .map_or(String::new(), |n| format!(" {n}"));
        let _ = writeln!(
            out,
            "fn{name}({}) -> {}",
            params.join(", "),
            self.output(&self.body.output)
        );
        for w in &self.body.writebacks {
            let _ = writeln!(
                out,
                "    // on return: *{} = {}",
                self.var(w.param),
                self.var(w.var)
            );
        }
        for (i, callee) in self.body.callees.iter().enumerate() {
            let _ = writeln!(
                out,
                "    // callee {i}: {} ({} arguments, through {})",
                tokens(&callee.path),
                callee.arity,
                callee.alias
            );
        }
        self.block(&self.body.block, 1, &mut out);
        out
    }

    fn block(&self, block: &Block, depth: usize, out: &mut String) {
        for stmt in &block.stmts {
            self.stmt(stmt, depth, out);
        }
    }

    fn stmt(&self, stmt: &Stmt, depth: usize, out: &mut String) {
        let indent = "    ".repeat(depth);
        let line = |out: &mut String, text: String, notes: Vec<String>| {
            if notes.is_empty() {
                let _ = writeln!(out, "{indent}{text}");
            } else {
                let _ = writeln!(out, "{indent}{text}  // {}", notes.join("; "));
            }
        };
        match &stmt.kind {
            StmtKind::Let { var, rhs, ty } => {
                let mut notes = Vec::new();
                if let Some(ty) = ty {
                    notes.push(format!("declared {}", tokens(ty)));
                }
                if self.body.vars[*var].deref {
                    notes.push("bound by reference".into());
                }
                if let Rhs::Opaque(opaque) = rhs {
                    notes.extend(opaque_notes(self, opaque));
                }
                line(
                    out,
                    format!("let {} = {}", self.decl(*var), self.rhs(rhs)),
                    notes,
                );
            }
            StmtKind::Assign { var, op, value } => line(
                out,
                format!("{} {} {}", self.var(*var), assign_op(*op), self.op(value)),
                Vec::new(),
            ),
            StmtKind::IndexAssign {
                array,
                index,
                op,
                value,
            } => line(
                out,
                format!(
                    "{}{} {} {}",
                    self.var(*array),
                    self.path(index),
                    assign_op(*op),
                    self.op(value)
                ),
                Vec::new(),
            ),
            StmtKind::VecOp { vec, op } => line(out, self.vec_op(*vec, op), Vec::new()),
            StmtKind::If {
                cond,
                then,
                els,
                phis,
            } => {
                line(
                    out,
                    format!("if {} {{", self.op(cond)),
                    vec![format!("block {}", then.id)],
                );
                self.block(then, depth + 1, out);
                line(out, "} else {".into(), vec![format!("block {}", els.id)]);
                self.block(els, depth + 1, out);
                if phis.is_empty() {
                    line(out, "}".into(), Vec::new());
                } else {
                    let phis: Vec<String> = phis
                        .iter()
                        .map(|p| {
                            format!(
                                "{} = ({} | {})",
                                self.decl(p.var),
                                self.op(&p.then),
                                self.op(&p.els)
                            )
                        })
                        .collect();
                    line(out, format!("}} phis [{}]", phis.join(", ")), Vec::new());
                }
            }
            StmtKind::Loop(l) => {
                let head = match &l.kind {
                    LoopKind::While { cond } => {
                        format!("while opaque {{ {} }}", tokens(&cond.expr))
                    }
                    LoopKind::Infinite => "loop".into(),
                    LoopKind::Range(r) => {
                        let var = r.var.map_or_else(|| "_".into(), |v| self.decl(v));
                        format!("for {var} in {}", tokens(&r.range.expr))
                    }
                };
                let mut notes = vec![
                    format!("block {}", l.body.id),
                    format!("trips {}", self.var(l.trips)),
                ];
                if !l.exits.is_empty() {
                    notes.push(format!("exits {}", self.vars(&l.exits)));
                }
                if let Some(cont) = l.cont {
                    notes.push(format!("cont {}", self.var(cont)));
                }
                if let Some(c) = &l.checkpoint {
                    notes.push(match c.snapshots {
                        Some(k) => format!("checkpoint {k}"),
                        None => "checkpoint".into(),
                    });
                }
                if let LoopKind::Range(r) = &l.kind {
                    match &r.walk {
                        crate::ir::Walk::Up(base) => notes.push(format!("up {}", tokens(base))),
                        crate::ir::Walk::Down(base) => notes.push(format!("down {}", tokens(base))),
                        crate::ir::Walk::Other => notes.push("not a plain range".into()),
                    }
                }
                line(out, format!("{head} {{"), notes);
                self.block(&l.body, depth + 1, out);
                line(out, "}".into(), Vec::new());
            }
            StmtKind::Opaque {
                tokens: t,
                writes,
                flows,
                ..
            } => {
                let mut notes = Vec::new();
                if !writes.is_empty() {
                    notes.push(format!("writes {}", self.vars(writes)));
                }
                if !flows.is_empty() {
                    notes.push(format!("flows {}", self.vars(flows)));
                }
                line(out, format!("opaque {{ {} }}", tokens(t)), notes);
            }
        }
    }

    fn vec_op(&self, vec: VarId, op: &crate::ir::VecOp) -> String {
        use crate::ir::{Shrink, VecOp};
        let v = self.var(vec);
        match op {
            VecOp::Push(a) => format!("{v}.push({})", self.op(a)),
            VecOp::Insert(i, a) => format!("{v}.insert({}, {})", self.op(i), self.op(a)),
            VecOp::Extend { src, old } => format!(
                "{v}.extend_from_slice({}) old {}",
                self.var(*src),
                self.var(*old)
            ),
            VecOp::Resize { len, value, old } => format!(
                "{v}.resize({}, {}) old {}",
                self.op(len),
                self.op(value),
                self.var(*old)
            ),
            VecOp::Shrink { how, old } => {
                let how = match how {
                    Shrink::Truncate(n) => format!("truncate({})", self.op(n)),
                    Shrink::Clear => "clear()".into(),
                    Shrink::Pop => "pop()".into(),
                };
                format!("{v}.{how} old {}", self.var(*old))
            }
            VecOp::Swap(i, j) => format!("{v}.swap({}, {})", self.op(i), self.op(j)),
        }
    }

    fn rhs(&self, rhs: &Rhs) -> String {
        match rhs {
            Rhs::VecNew(None) => "Vec::new()".into(),
            Rhs::VecNew(Some(n)) => format!("Vec::with_capacity({})", self.op(n)),
            Rhs::VecLit(items) => format!("vec![{}]", self.ops(items)),
            Rhs::StructLit(lit) => format!(
                "{} {{ {} }}",
                tokens(&lit.path),
                lit.fields
                    .iter()
                    .map(|(m, op)| format!("{}: {}", tokens(m), self.op(op)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Rhs::ToVec(a) => format!("{}.to_vec()", self.op(a)),
            Rhs::Pop(v) => format!("{}.pop().unwrap()", self.var(*v)),
            Rhs::Remove(v, i) => format!("{}.remove({})", self.var(*v), self.op(i)),
            Rhs::Copy(a) => self.op(a),
            Rhs::Neg(a) => format!("-{}", self.op(a)),
            Rhs::Binary(op, a, b) => {
                let op = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                    BinOp::Rem => "%",
                };
                format!("{} {op} {}", self.op(a), self.op(b))
            }
            Rhs::Intrinsic(rule, args) => format!("{}({})", rule.name, self.ops(args)),
            Rhs::Cast(a, t) => format!("{} as {}", self.op(a), t.ident()),
            Rhs::Index(array, i) => format!("{}{}", self.var(*array), self.path(i)),
            Rhs::ArrayLit(items) => format!("[{}]", self.ops(items)),
            Rhs::ArrayRepeat(a, n) => format!("[{}; {}]", self.op(a), tokens(n)),
            Rhs::VecRepeat(a, n) => format!("vec![{}; {}]", self.op(a), self.op(n)),
            Rhs::Call(call) => {
                let args: Vec<String> = call
                    .args
                    .iter()
                    .zip(call.by_ref.iter().chain(std::iter::repeat(&false)))
                    .zip(call.by_mut.iter().chain(std::iter::repeat(&false)))
                    .enumerate()
                    .map(|(k, ((a, &r), &m))| {
                        let by = if m {
                            "&mut "
                        } else if r {
                            "&"
                        } else {
                            ""
                        };
                        let path = match call.paths.get(k) {
                            Some(Some(p)) => self.path(p),
                            _ => String::new(),
                        };
                        format!("{by}{}{path}", self.op(a))
                    })
                    .collect();
                let path = self
                    .body
                    .callees
                    .get(call.callee)
                    .map_or_else(|| format!("<callee {}>", call.callee), |c| tokens(&c.path));
                let old = match &call.receiver_old {
                    Some(old) => format!(" (reversed on {})", self.op(old)),
                    None => String::new(),
                };
                format!("call {path}({}){old}", args.join(", "))
            }
            Rhs::Part(tuple, k) => format!("{}.{k}", self.var(*tuple)),
            Rhs::Opaque(opaque) => format!("opaque {{ {} }}", tokens(&opaque.expr)),
            Rhs::Guard(flags) => {
                let flags: Vec<String> = flags.iter().map(|f| self.var(*f)).collect();
                format!("guard !({})", flags.join(" || "))
            }
        }
    }

    fn output(&self, output: &Output) -> String {
        match output {
            Output::Scalar(op) | Output::Inactive(op) => self.op(op),
            Output::ArrayVar(v) => self.var(*v),
            Output::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|o| self.output(o)).collect();
                format!("({})", items.join(", "))
            }
        }
    }

    fn op(&self, op: &Operand) -> String {
        match op {
            Operand::Var(v) => self.var(*v),
            Operand::Lit(t, _) => tokens(t),
        }
    }

    fn path(&self, path: &crate::ir::Path) -> String {
        path.0
            .iter()
            .map(|step| match step {
                crate::ir::Step::Index(i) => format!("[{}]", self.op(i)),
                crate::ir::Step::Field(m) => {
                    format!(".{}", tokens(&quote::ToTokens::to_token_stream(m)))
                }
                crate::ir::Step::Variant(v) => format!(
                    ".<{}::{}>.{}",
                    tokens(&v.enum_ty),
                    v.variant,
                    tokens(&quote::ToTokens::to_token_stream(&v.field))
                ),
            })
            .collect()
    }

    fn ops(&self, ops: &[Operand]) -> String {
        ops.iter()
            .map(|o| self.op(o))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A variable where it is used: its name.
    fn var(&self, v: VarId) -> String {
        match self.body.vars.get(v) {
            Some(var) => var.name.to_string(),
            None => format!("<var {v}>"),
        }
    }

    fn vars(&self, vars: &[VarId]) -> String {
        vars.iter()
            .map(|&v| self.var(v))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A variable where it is defined: `mut`, its name, `*` if active, and its type.
    fn decl(&self, v: VarId) -> String {
        let Some(var) = self.body.vars.get(v) else {
            return format!("<var {v}>");
        };
        let mutable = if var.mutable { "mut " } else { "" };
        let active = if self.activity.is_some_and(|a| a.active(v)) {
            "*"
        } else {
            ""
        };
        format!("{mutable}{}{active}: {}", var.name, self.ty(&var.ty))
    }

    fn ty(&self, ty: &Ty) -> String {
        let float =
            |t: Option<super::FloatTy>| t.map_or_else(|| "float".into(), |t| t.ident().to_string());
        match ty {
            Ty::Float(t) => float(*t),
            Ty::Array(info) => {
                let shape = match &info.shape {
                    Shape::Fixed(n) => tokens(n),
                    Shape::Len(n) => format!("len {}", self.op(n)),
                    Shape::Like(v) => format!("like {}", self.var(*v)),
                    Shape::Place(v, p) => format!("like {}{}", self.var(*v), self.path(p)),
                };
                match info.agg {
                    true => format!("aggregate {shape}"),
                    false => format!("[{}; {shape}]", float(info.elem)),
                }
            }
            Ty::Usize => "usize".into(),
            Ty::I32 => "i32".into(),
            Ty::Bool => "bool".into(),
            Ty::Other => "other".into(),
            Ty::Unknown => "?".into(),
        }
    }
}

fn assign_op(op: AssignOp) -> &'static str {
    match op {
        AssignOp::Set => "=",
        AssignOp::Add => "+=",
        AssignOp::Sub => "-=",
    }
}

fn opaque_notes(printer: &Printer<'_>, opaque: &Opaque) -> Vec<String> {
    let mut notes = Vec::new();
    if !opaque.flows.is_empty() {
        notes.push(format!("flows {}", printer.vars(&opaque.flows)));
    }
    if !opaque.cheap {
        notes.push("not cheap".into());
    }
    notes
}

/// Tokens as a Rust programmer would space them (`xs.len()`, `0..n`, `!(a || b)`), rather
/// than as `proc_macro2` prints them (`xs . len ()`). A heuristic, good enough for the
/// expressions the IR holds.
pub(crate) fn tokens(ts: &TokenStream) -> String {
    let mut pieces = Vec::new();
    flatten(ts.clone(), &mut pieces);
    mark_generics(&mut pieces);
    let mut out = String::new();
    // The previous piece, and whether it was a prefix operator.
    let mut prev: Option<(&Piece, bool)> = None;
    for piece in &pieces {
        let prefix = match (piece, prev) {
            (Piece::Punct(op), None) => is_prefix_op(op),
            (Piece::Punct(op), Some((p, _))) => is_prefix_op(op) && !is_value_end(p),
            _ => false,
        };
        if let Some((p, p_prefix)) = prev {
            if !p_prefix && space_between(p, piece) {
                out.push(' ');
            }
        }
        out.push_str(piece.text());
        prev = Some((piece, prefix));
    }
    out
}

#[derive(Debug)]
enum Piece {
    /// An identifier or a literal.
    Word(String),
    /// An operator (joint punctuation combined: `==`, `..`, `::`, `+=`).
    Punct(String),
    /// An opening delimiter (`<` of a turbofish included).
    Open(&'static str),
    /// A closing delimiter.
    Close(&'static str),
}

impl Piece {
    fn text(&self) -> &str {
        match self {
            Piece::Word(s) | Piece::Punct(s) => s,
            Piece::Open(s) | Piece::Close(s) => s,
        }
    }
}

fn flatten(ts: TokenStream, out: &mut Vec<Piece>) {
    let mut joint = false;
    for tt in ts {
        match tt {
            TokenTree::Ident(i) => out.push(Piece::Word(i.to_string())),
            TokenTree::Literal(l) => out.push(Piece::Word(l.to_string())),
            TokenTree::Punct(p) => {
                let c = p.as_char();
                match out.last_mut() {
                    Some(Piece::Punct(prev)) if joint => prev.push(c),
                    _ => out.push(Piece::Punct(c.to_string())),
                }
                joint = p.spacing() == Spacing::Joint;
                continue;
            }
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                if open.is_empty() {
                    flatten(g.stream(), out);
                } else {
                    out.push(Piece::Open(open));
                    flatten(g.stream(), out);
                    out.push(Piece::Close(close));
                }
            }
        }
        joint = false;
    }
}

/// Turns the angle brackets of a turbofish (`::<f64>`) into delimiters.
fn mark_generics(pieces: &mut [Piece]) {
    let mut depth = 0usize;
    for i in 0..pieces.len() {
        let after_path = i > 0 && matches!(&pieces[i - 1], Piece::Punct(p) if p == "::");
        match &pieces[i] {
            Piece::Punct(p) if p == "<" && after_path => {
                pieces[i] = Piece::Open("<");
                depth += 1;
            }
            Piece::Punct(p) if p == ">" && depth > 0 => {
                pieces[i] = Piece::Close(">");
                depth -= 1;
            }
            _ => {}
        }
    }
}

/// Words after which an operator is a prefix one and a group is not a call or an index.
const KEYWORDS: &[&str] = &[
    "as", "in", "if", "else", "match", "return", "move", "let", "mut", "break", "while", "for",
];

fn is_prefix_op(op: &str) -> bool {
    matches!(op, "-" | "!" | "&" | "*")
}

/// Whether `piece` can end an operand (so an operator after it is a binary one).
fn is_value_end(piece: &Piece) -> bool {
    match piece {
        Piece::Word(w) => !KEYWORDS.contains(&w.as_str()),
        Piece::Close(_) => true,
        Piece::Punct(_) | Piece::Open(_) => false,
    }
}

/// Whether a space separates `prev` (not a prefix operator) from `next`.
fn space_between(prev: &Piece, next: &Piece) -> bool {
    // Paths, fields and ranges are tight.
    let tight = |p: &str| matches!(p, "." | "::" | ".." | "..=");
    match (prev, next) {
        (Piece::Punct(p), _) if tight(p) => false,
        (_, Piece::Punct(n)) if tight(n) => false,
        (_, Piece::Punct(n)) if matches!(n.as_str(), "," | ";" | "?") => false,
        (Piece::Open("{"), _) | (_, Piece::Close("}")) => true,
        (Piece::Open(_), _) | (_, Piece::Close(_)) => false,
        (_, Piece::Open("{")) => true,
        // A call, an index, a macro or a turbofish: `f(x)`, `xs[i]`, `vec![..]`, `sum::<T>`.
        (Piece::Word(w), Piece::Open(_)) => KEYWORDS.contains(&w.as_str()),
        (Piece::Close(_), Piece::Open(_)) => false,
        (Piece::Punct(p), Piece::Open(_)) if p == "!" => false,
        // The `!` of a macro call.
        (Piece::Word(w), Piece::Punct(n)) if n == "!" => KEYWORDS.contains(&w.as_str()),
        _ => true,
    }
}

#[cfg(test)]
mod snapshots {
    //! IR snapshots: the lowered IR of every `#[reverse]` function of `tests/expand/NAME.rs`
    //! (after `types::resolve`, with the activity of `NAME_vjp` marked `*`) must equal
    //! `tests/expand/NAME.ir`. `AD_SNAPSHOTS=overwrite cargo test -p revad-macros` rewrites the
    //! expected files; review the diff like code.

    use std::path::Path;

    use crate::error::Errors;
    use crate::{ir, parse};

    /// The IR of every `#[reverse]` function of `source`.
    fn ir_of_source(source: &str) -> String {
        let mut out = String::new();
        for (args, func) in crate::test_support::reverse_functions(source) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&ir_of_function(args, &func));
        }
        out
    }

    fn ir_of_function(args: proc_macro2::TokenStream, func: &syn::ItemFn) -> String {
        let cx = Errors::new();
        let args = parse::Args::from_tokens(&cx, args);
        let sig = parse::Signature::from_syn(&cx, &func.sig, &args);
        let body = ir::lower::lower(&cx, &sig, &func.block, false);
        let printed = body.map(|mut body| {
            ir::types::resolve(&mut body, sig.default_float);
            if let Err(broken) = super::contract::check(&body) {
                panic!("{}: {broken}\n{}", func.sig.ident, super::print(&body));
            }
            let activity = ir::activity::analyse(&cx, &body, &sig);
            super::Printer::new(&body)
                .name(&func.sig.ident)
                .activity(&activity)
                .print()
        });
        match (cx.check(), printed) {
            (Ok(()), Some(printed)) => printed,
            (Err(err), _) => format!("fn {}: error: {err}\n", func.sig.ident),
            (Ok(()), None) => format!("fn {}: no IR\n", func.sig.ident),
        }
    }

    fn check(name: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
        let source = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        let actual = ir_of_source(&source);
        crate::test_support::assert_snapshot(
            &dir.join(format!("{name}.ir")),
            &format!("IR of {name}"),
            &actual,
        );
    }

    /// A tool, not a check: `AD_IR=path/to/file.rs cargo test -p revad-macros ir_file --
    /// --nocapture` prints the IR of the `#[reverse]` functions in that file.
    #[test]
    fn ir_file() {
        if let Some(path) = std::env::var_os("AD_IR") {
            let source = crate::test_support::read_tool_input(&path);
            println!("{}", ir_of_source(&source));
        }
    }

    #[test]
    fn ir_straight_line() {
        check("straight_line");
    }

    #[test]
    fn ir_loops() {
        check("loops");
    }

    #[test]
    fn ir_sharing_chain() {
        check("sharing_chain");
    }

    #[test]
    fn ir_calls() {
        check("calls");
    }

    #[test]
    fn ir_checkpoint() {
        check("checkpoint");
    }

    #[test]
    fn ir_closures() {
        check("closures");
    }

    #[test]
    fn cps() {
        check("cps");
    }

    #[test]
    fn ir_mutation() {
        check("mutation");
    }

    #[test]
    fn ir_views() {
        check("views");
    }

    #[test]
    fn ir_vectors() {
        check("vectors");
    }

    #[test]
    fn ir_array_reads() {
        check("array_reads");
    }

    #[test]
    fn ir_structs() {
        check("structs");
    }

    #[test]
    fn ir_enums() {
        check("enums");
    }

    #[test]
    fn ir_aggregate_loops() {
        check("aggregate_loops");
    }

    #[test]
    fn ir_generics() {
        check("generics");
    }

    /// The contract of the IR holds for every `#[reverse]` function of the workspace's tests
    /// and examples (at any depth: in modules and test functions).
    #[test]
    fn contract_holds_on_workspace_functions() {
        use syn::visit::Visit;
        struct Finder(Vec<syn::ItemFn>);
        impl<'ast> Visit<'ast> for Finder {
            fn visit_item_fn(&mut self, func: &'ast syn::ItemFn) {
                if func.attrs.iter().any(|a| {
                    a.path()
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "reverse")
                }) {
                    self.0.push(func.clone());
                }
                syn::visit::visit_item_fn(self, func);
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut checked = 0;
        for dir in ["tests", "tests/common", "examples"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let source = std::fs::read_to_string(&path).unwrap();
                let Ok(file) = syn::parse_file(&source) else {
                    continue;
                };
                let mut finder = Finder(Vec::new());
                finder.visit_file(&file);
                for mut func in finder.0 {
                    let attr = func.attrs.iter().position(|a| {
                        a.path()
                            .segments
                            .last()
                            .is_some_and(|s| s.ident == "reverse")
                    });
                    let args = match attr.map(|i| func.attrs.remove(i)).map(|a| a.meta) {
                        Some(syn::Meta::List(list)) => list.tokens,
                        _ => proc_macro2::TokenStream::new(),
                    };
                    let cx = Errors::new();
                    let args = parse::Args::from_tokens(&cx, args);
                    let sig = parse::Signature::from_syn(&cx, &func.sig, &args);
                    // Functions the macro rejects (the compile-fail cases) are skipped.
                    let Some(mut body) = ir::lower::lower(&cx, &sig, &func.block, false) else {
                        let _ = cx.check();
                        continue;
                    };
                    ir::types::resolve(&mut body, sig.default_float);
                    let check = |body: &ir::Body, after: &str| {
                        if let Err(broken) = super::contract::check(body) {
                            panic!(
                                "{}: {} (after {after}): {broken}\n{}",
                                path.display(),
                                func.sig.ident,
                                super::print(body)
                            );
                        }
                    };
                    check(&body, "types::resolve");
                    // The snapshots keep the contract (in the mode of split companions, where
                    // every float parameter is active and the most values are kept).
                    let split = sig.all_active();
                    let mut activity = ir::activity::analyse(&cx, &body, &split);
                    ir::snapshot::insert(&mut body, &mut activity);
                    check(&body, "snapshot::insert");
                    checked += 1;
                    let _ = cx.check();
                }
            }
        }
        assert!(checked > 0);
        eprintln!("contract checked on {checked} functions");
    }

    /// Without a name or activity: the plain IR.
    #[test]
    fn plain() {
        let source = "#[reverse] fn f(x: f64) -> f64 { x * x }";
        let (args, func) = crate::test_support::reverse_functions(source).remove(0);
        let cx = Errors::new();
        let sig = parse::Signature::from_syn(&cx, &func.sig, &parse::Args::from_tokens(&cx, args));
        let body = ir::lower::lower(&cx, &sig, &func.block, false).unwrap();
        assert_eq!(
            super::print(&body),
            "fn(x: f64) -> __t0\n    let __t0: f64 = x * x\n"
        );
    }

    /// The token printer spaces expressions the way rustfmt would.
    #[test]
    fn tokens_read_like_rust() {
        let cases = [
            ("xs.len()", "xs.len()"),
            ("0..n", "0..n"),
            ("(0..n).rev()", "(0..n).rev()"),
            ("!(a || b)", "!(a || b)"),
            ("x > 1.0", "x > 1.0"),
            ("-x * 2", "-x * 2"),
            ("a - -b", "a - -b"),
            ("i * n + j", "i * n + j"),
            ("f(a, b)[i]", "f(a, b)[i]"),
            ("xs.iter().sum::<f64>()", "xs.iter().sum::<f64>()"),
            (
                "::core::matches!(*m, Some(_))",
                "::core::matches!(*m, Some(_))",
            ),
            ("k as usize", "k as usize"),
            ("(0..n).step_by(2)", "(0..n).step_by(2)"),
            ("k += 1", "k += 1"),
            ("f64::EPSILON", "f64::EPSILON"),
        ];
        for (source, expected) in cases {
            let expr: syn::Expr = syn::parse_str(source).unwrap();
            let ts = quote::ToTokens::to_token_stream(&expr);
            assert_eq!(super::tokens(&ts), expected, "{source}");
        }
    }
}

/// Checks of the contract in `ir`'s module documentation, run on every body the snapshot
/// tests print (after `types::resolve`).
#[cfg(test)]
pub(crate) mod contract {
    use super::super::{Block, Body, LoopKind, Operand, Output, Rhs, StmtKind, Ty, VarId};

    struct Checker<'b> {
        body: &'b Body,
        defined: Vec<bool>,
        blocks: Vec<bool>,
    }

    /// `Err` with the first broken rule.
    pub(crate) fn check(body: &Body) -> Result<(), String> {
        let mut c = Checker {
            body,
            defined: body.vars.iter().map(|v| v.param.is_some()).collect(),
            blocks: vec![false; body.blocks],
        };
        for (id, var) in body.vars.iter().enumerate() {
            let name = &var.name;
            if body.vars[..id].iter().any(|w| w.name == *name) {
                return Err(format!("`{name}` is the name of two variables"));
            }
            if matches!(var.ty, Ty::Float(None)) {
                return Err(format!("`{name}` has an unsettled float type"));
            }
            if let Ty::Array(info) = &var.ty {
                if info.elem.is_none() {
                    return Err(format!("`{name}` has an unsettled element type"));
                }
            }
        }
        c.block(&body.block)?;
        if let Some(v) = c.defined.iter().position(|d| !d) {
            return Err(format!("`{}` is never defined", c.name(v)));
        }
        let mut out = Vec::new();
        output_ops(&body.output, &mut out);
        out.extend(body.writebacks.iter().map(|w| Operand::Var(w.var)));
        out.iter().try_for_each(|op| c.read(op))
    }

    fn output_ops(output: &Output, out: &mut Vec<Operand>) {
        match output {
            Output::Scalar(op) | Output::Inactive(op) => out.push(op.clone()),
            Output::ArrayVar(v) => out.push(Operand::Var(*v)),
            Output::Tuple(items) => items.iter().for_each(|o| output_ops(o, out)),
        }
    }

    impl Checker<'_> {
        fn name(&self, v: VarId) -> String {
            self.body.vars[v].name.to_string()
        }

        fn read(&self, op: &Operand) -> Result<(), String> {
            match op {
                Operand::Var(v) => self.read_var(*v),
                Operand::Lit(..) => Ok(()),
            }
        }

        fn read_var(&self, v: VarId) -> Result<(), String> {
            match self.defined.get(v) {
                Some(true) => Ok(()),
                Some(false) => Err(format!("`{}` is read before its definition", self.name(v))),
                None => Err(format!("variable {v} does not exist")),
            }
        }

        fn define(&mut self, v: VarId) -> Result<(), String> {
            if std::mem::replace(&mut self.defined[v], true) {
                return Err(format!("`{}` is defined twice", self.name(v)));
            }
            Ok(())
        }

        fn write(&self, v: VarId) -> Result<(), String> {
            self.read_var(v)?;
            if !self.body.vars[v].mutable {
                return Err(format!("`{}` is assigned but not mutable", self.name(v)));
            }
            Ok(())
        }

        fn block(&mut self, block: &Block) -> Result<(), String> {
            match self.blocks.get_mut(block.id) {
                Some(seen) if !*seen => *seen = true,
                _ => return Err(format!("block id {} is repeated or too large", block.id)),
            }
            for stmt in &block.stmts {
                match &stmt.kind {
                    StmtKind::Let { var, rhs, .. } => {
                        rhs.reads().iter().try_for_each(|&v| self.read_var(v))?;
                        if let Rhs::Pop(v) | Rhs::Remove(v, _) = rhs {
                            self.write(*v)?;
                        }
                        if let Rhs::Call(call) = rhs {
                            if call.callee >= self.body.callees.len()
                                || call.args.len() != call.by_ref.len()
                            {
                                return Err("a call does not match its callee".into());
                            }
                        }
                        self.define(*var)?;
                    }
                    StmtKind::Assign { var, value, .. } => {
                        self.read(value)?;
                        self.write(*var)?;
                    }
                    StmtKind::IndexAssign {
                        array,
                        index,
                        value,
                        ..
                    } => {
                        for i in index.operands() {
                            self.read(i)?;
                        }
                        self.read(value)?;
                        self.write(*array)?;
                    }
                    StmtKind::VecOp { vec, op } => {
                        op.reads().iter().try_for_each(|&v| self.read_var(v))?;
                        self.write(*vec)?;
                    }
                    StmtKind::If {
                        cond,
                        then,
                        els,
                        phis,
                    } => {
                        self.read(cond)?;
                        self.block(then)?;
                        self.block(els)?;
                        for phi in phis {
                            self.read(&phi.then)?;
                            self.read(&phi.els)?;
                            self.define(phi.var)?;
                        }
                    }
                    StmtKind::Loop(l) => {
                        for &flag in l.exits.iter().chain(&l.cont) {
                            self.write(flag)?;
                        }
                        match &l.kind {
                            LoopKind::While { cond } => {
                                cond.reads.iter().try_for_each(|&v| self.read_var(v))?
                            }
                            LoopKind::Infinite => {}
                            LoopKind::Range(r) => {
                                r.range.reads.iter().try_for_each(|&v| self.read_var(v))?;
                                if let Some(v) = r.var {
                                    self.define(v)?;
                                }
                            }
                        }
                        self.define(l.trips)?;
                        self.block(&l.body)?;
                    }
                    StmtKind::Opaque { writes, .. } => {
                        writes.iter().try_for_each(|&v| self.write(v))?;
                    }
                }
            }
            Ok(())
        }
    }
}
