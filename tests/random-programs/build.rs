//! Generates `$OUT_DIR/programs.rs`: random straight-line programs of three `f64` inputs,
//! each annotated with `#[ad::reverse]`, and the tables that the tests walk.
//!
//! The generator is a fixed-seed splitmix64, so every build writes the same file. Values are
//! kept bounded (a running bound per variable; anything that could exceed [`LIMIT`] is wrapped
//! in `tanh`) and every intrinsic gets an argument inside its smooth domain, so that the
//! finite-difference check in the tests is accurate. The constructs that are only piecewise
//! smooth (`if`, `max`, `min`, `abs`, `signum`, `floor`, `%`, ...) are also emitted into a
//! *traced* mirror of each program that records every decision, so the tests can tell when a
//! finite-difference stencil straddles a kink and skip only that point.

use std::fmt::Write as _;
use std::path::Path;

/// The seed of the generator: change it to get a different (but again fixed) corpus.
const SEED: u64 = 0x00ad_5eed_2024_0611;
/// The number of programs.
const COUNT: usize = 60;
/// Values whose bound exceeds this are squashed with `tanh`.
const LIMIT: f64 = 6.0;
/// At most this many branch points (`if` conditions and kinks) per program.
const MAX_KINKS: usize = 8;
/// Whether to emit `f64::tanh(<constant expression>)`, e.g. `f64::tanh(3.0 + 2.0)` (this
/// once lowered to a method call on an untyped temporary, E0689; kept as a regression test).
const PATH_CALL_ON_CONSTANT: bool = true;
/// Literals: short (so no lint mistakes them for a constant) and never 0 or 1 as an operand.
const LITS: &[f64] = &[
    0.25, 0.5, 0.75, 1.5, 2.0, 2.5, 3.0, 0.3, 0.1, 1.25, 0.4, 0.6,
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let text = generate(SEED, COUNT);
    std::fs::write(Path::new(&out).join("programs.rs"), text).expect("write programs.rs");
}

// ---- random numbers ------------------------------------------------------------------------

/// splitmix64 (Steele, Lea and Flood 2014).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64) / ((1u64 << 53) as f64) < p
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }

    /// An index into `weights`, chosen with probability proportional to its weight.
    fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        let mut r = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        unreachable!()
    }
}

// ---- the program model ---------------------------------------------------------------------

#[derive(Clone, Debug)]
enum E {
    Var(String),
    /// A positive literal (negative ones are `Neg(Lit)`).
    Lit(f64),
    /// An integer literal (the exponent of `powi`).
    Int(i32),
    Neg(Box<E>),
    /// `+ - * / %`.
    Bin(&'static str, Box<E>, Box<E>),
    /// `> < >= <=`.
    Cmp(&'static str, Box<E>, Box<E>),
    /// `receiver.name(args)`.
    Method(&'static str, Box<E>, Vec<E>),
    /// `f64::name(args)`.
    Path(&'static str, Vec<E>),
    /// A value that is only piecewise smooth; the boolean `key` changes where it has a kink.
    KinkB(Box<E>, Box<E>),
    /// A value that is only piecewise smooth; the float `key` changes where it jumps.
    KinkF(Box<E>, Box<E>),
    /// `{ stmts; tail }`.
    Block(Vec<S>, Box<E>),
    /// `if cond { then } else { els }` (both arms are `Block`s or plain expressions).
    If(Box<E>, Box<E>, Box<E>),
}

#[derive(Clone, Debug)]
enum S {
    Let {
        name: String,
        mutable: bool,
        typed: bool,
        e: E,
    },
    Assign {
        name: String,
        op: &'static str,
        e: E,
    },
    If {
        cond: E,
        then: Vec<S>,
        els: Option<Vec<S>>,
    },
}

fn var(name: &str) -> E {
    E::Var(name.to_string())
}
fn lit(v: f64) -> E {
    E::Lit(v)
}
fn bin(op: &'static str, l: E, r: E) -> E {
    E::Bin(op, Box::new(l), Box::new(r))
}
fn cmp(op: &'static str, l: E, r: E) -> E {
    E::Cmp(op, Box::new(l), Box::new(r))
}
fn method(name: &'static str, recv: E, args: Vec<E>) -> E {
    E::Method(name, Box::new(recv), args)
}
/// `e.tanh()`; for a constant `e` (whose float type Rust cannot infer for a method call),
/// `f64::tanh(e)` if [`PATH_CALL_ON_CONSTANT`], else just a small literal.
fn tanh(e: E) -> E {
    let mut names = Vec::new();
    reads(&e, &mut names);
    if !names.is_empty() {
        method("tanh", e, vec![])
    } else if PATH_CALL_ON_CONSTANT || matches!(e, E::Lit(_)) {
        E::Path("tanh", vec![e])
    } else {
        lit(0.5)
    }
}

/// `tanh(c * e)` for `e` bounded by `b`, with `c` about `1.5 / b` so that the argument stays
/// in the part of `tanh` that is neither flat nor steep: squashing a large value without
/// scaling makes a steep function whose finite differences are inaccurate.
fn scaled_tanh(e: E, b: f64) -> E {
    let c = 1.5 / b;
    if c >= 0.75 {
        return tanh(e);
    }
    // Two significant digits, so the literal stays short.
    let mag = 10f64.powf(c.log10().floor() - 1.0);
    let c = (c / mag).round() * mag;
    let digits = (-mag.log10()).round().max(0.0) as usize;
    let c: f64 = format!("{c:.digits$}").parse().unwrap();
    tanh(bin("*", lit(c), e))
}

/// The names of the variables an expression reads.
fn reads(e: &E, out: &mut Vec<String>) {
    match e {
        E::Var(n) => out.push(n.clone()),
        E::Lit(_) | E::Int(_) => {}
        E::Neg(a) => reads(a, out),
        E::Bin(_, a, b) | E::Cmp(_, a, b) | E::KinkB(a, b) | E::KinkF(a, b) => {
            reads(a, out);
            reads(b, out);
        }
        E::Method(_, r, args) => {
            reads(r, out);
            args.iter().for_each(|a| reads(a, out));
        }
        E::Path(_, args) => args.iter().for_each(|a| reads(a, out)),
        E::Block(stmts, tail) => {
            for s in stmts {
                stmt_reads(s, out);
            }
            reads(tail, out);
        }
        E::If(c, t, f) => {
            reads(c, out);
            reads(t, out);
            reads(f, out);
        }
    }
}

fn stmt_reads(s: &S, out: &mut Vec<String>) {
    match s {
        S::Let { e, .. } => reads(e, out),
        S::Assign { name, op, e } => {
            if *op != "=" {
                out.push(name.clone());
            }
            reads(e, out);
        }
        S::If { cond, then, els } => {
            reads(cond, out);
            then.iter().for_each(|s| stmt_reads(s, out));
            els.iter().flatten().for_each(|s| stmt_reads(s, out));
        }
    }
}

// ---- printing ------------------------------------------------------------------------------

/// Prints the model as Rust with minimal parentheses; `traced` prints the mirror that records
/// every decision into `tr`.
struct Printer {
    traced: bool,
}

const IND: &str = "    ";

impl Printer {
    fn prec(&self, e: &E) -> u8 {
        match e {
            E::Var(_) | E::Lit(_) | E::Int(_) | E::Method(..) | E::Path(..) => 4,
            E::KinkB(_, v) | E::KinkF(_, v) => {
                if self.traced {
                    4
                } else {
                    self.prec(v)
                }
            }
            E::Neg(_) => 3,
            E::Bin(op, ..) => match *op {
                "*" | "/" | "%" => 2,
                _ => 1,
            },
            E::Cmp(..) => 0,
            E::Block(..) | E::If(..) => 5,
        }
    }

    fn expr(&self, e: &E, min: u8, ind: usize) -> String {
        let s = self.bare(e, ind);
        if self.prec(e) < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn bare(&self, e: &E, ind: usize) -> String {
        match e {
            E::Var(n) => n.clone(),
            E::Lit(v) => format!("{v:?}"),
            E::Int(i) => i.to_string(),
            E::Neg(a) => {
                let min = if matches!(**a, E::Neg(_)) { 4 } else { 3 };
                format!("-{}", self.expr(a, min, ind))
            }
            E::Bin(op, a, b) => {
                let p = self.prec(e);
                format!("{} {op} {}", self.expr(a, p, ind), self.expr(b, p + 1, ind))
            }
            E::Cmp(op, a, b) => {
                format!("{} {op} {}", self.expr(a, 1, ind), self.expr(b, 1, ind))
            }
            E::Method(name, recv, args) => format!(
                "{}.{name}({})",
                self.expr(recv, 4, ind),
                self.args(args, ind)
            ),
            E::Path(name, args) => format!("f64::{name}({})", self.args(args, ind)),
            E::KinkB(key, v) => {
                if self.traced {
                    format!(
                        "kink_b(&tr, {}, {})",
                        self.expr(key, 0, ind),
                        self.expr(v, 0, ind)
                    )
                } else {
                    self.bare(v, ind)
                }
            }
            E::KinkF(key, v) => {
                if self.traced {
                    format!(
                        "kink_f(&tr, {}, {})",
                        self.expr(key, 0, ind),
                        self.expr(v, 0, ind)
                    )
                } else {
                    self.bare(v, ind)
                }
            }
            E::Block(stmts, tail) => {
                let mut s = String::from("{\n");
                for st in stmts {
                    s += &self.stmt(st, ind + 1);
                }
                let _ = writeln!(s, "{}{}", IND.repeat(ind + 1), self.expr(tail, 0, ind + 1));
                s + &IND.repeat(ind) + "}"
            }
            E::If(c, t, f) => format!(
                "if {} {} else {}",
                self.cond(c, ind),
                self.arm(t, ind),
                self.arm(f, ind)
            ),
        }
    }

    fn args(&self, args: &[E], ind: usize) -> String {
        args.iter()
            .map(|a| self.expr(a, 0, ind))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn cond(&self, c: &E, ind: usize) -> String {
        if self.traced {
            format!("rec(&tr, {})", self.expr(c, 0, ind))
        } else {
            self.expr(c, 0, ind)
        }
    }

    fn arm(&self, e: &E, ind: usize) -> String {
        match e {
            E::Block(..) => self.bare(e, ind),
            _ => format!(
                "{{\n{}{}\n{}}}",
                IND.repeat(ind + 1),
                self.expr(e, 0, ind + 1),
                IND.repeat(ind)
            ),
        }
    }

    fn stmts(&self, stmts: &[S], ind: usize) -> String {
        stmts.iter().map(|s| self.stmt(s, ind)).collect()
    }

    fn stmt(&self, s: &S, ind: usize) -> String {
        let pad = IND.repeat(ind);
        match s {
            S::Let {
                name,
                mutable,
                typed,
                e,
            } => format!(
                "{pad}let {}{name}{} = {};\n",
                if *mutable { "mut " } else { "" },
                if *typed { ": f64" } else { "" },
                self.expr(e, 0, ind)
            ),
            S::Assign { name, op, e } => {
                format!("{pad}{name} {op} {};\n", self.expr(e, 0, ind))
            }
            S::If { cond, then, els } => {
                let mut s = format!(
                    "{pad}if {} {{\n{}{pad}}}",
                    self.cond(cond, ind),
                    self.stmts(then, ind + 1)
                );
                if let Some(els) = els {
                    let _ = write!(s, " else {{\n{}{pad}}}", self.stmts(els, ind + 1));
                }
                s + "\n"
            }
        }
    }
}

// ---- generation ----------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Var {
    name: String,
    bound: f64,
    mutable: bool,
    /// Not read since it was bound or last assigned: the final expression must read it.
    unread: bool,
}

struct Gen<'r> {
    rng: &'r mut Rng,
    vars: Vec<Var>,
    next_t: usize,
    next_m: usize,
    next_b: usize,
    kinks: usize,
    /// The last variable an expression picked, for fan-out (`v * v.sin() + v`).
    last_pick: Option<String>,
}

/// An intrinsic or operator drawn by [`Gen::expr`].
#[derive(Clone, Copy)]
enum Op {
    AddSub,
    Mul,
    Div,
    Neg,
    Unary,
    Binary,
    Kink,
}

impl Gen<'_> {
    fn lookup(&mut self, name: &str) -> &mut Var {
        self.vars
            .iter_mut()
            .rev()
            .find(|v| v.name == name)
            .expect("bound variable")
    }

    fn mark_read(&mut self, e: &E) {
        let mut names = Vec::new();
        reads(e, &mut names);
        for n in names {
            if let Some(v) = self.vars.iter_mut().rev().find(|v| v.name == n) {
                v.unread = false;
            }
        }
    }

    fn mark_stmt_read(&mut self, s: &S) {
        let mut names = Vec::new();
        stmt_reads(s, &mut names);
        for n in names {
            if let Some(v) = self.vars.iter_mut().rev().find(|v| v.name == n) {
                v.unread = false;
            }
        }
    }

    /// A variable to read: recent ones, unread ones and the last pick are favoured.
    fn pick_var(&mut self) -> (E, f64) {
        let n = self.vars.len();
        let idx = match self.rng.below(10) {
            0..=1 if self.last_pick.is_some() => {
                let name = self.last_pick.clone().unwrap();
                self.vars.iter().rposition(|v| v.name == name).unwrap()
            }
            0..=4 => n - 1 - self.rng.below(n.min(4)),
            5..=6 => {
                let unread: Vec<usize> = (0..n).filter(|&i| self.vars[i].unread).collect();
                if unread.is_empty() {
                    self.rng.below(n)
                } else {
                    self.rng.pick(&unread)
                }
            }
            _ => self.rng.below(n),
        };
        let v = &self.vars[idx];
        self.last_pick = Some(v.name.clone());
        (var(&v.name), v.bound)
    }

    fn leaf(&mut self) -> (E, f64) {
        if self.rng.chance(0.12) {
            let v = self.rng.pick(LITS);
            (lit(v), v)
        } else {
            self.pick_var()
        }
    }

    /// A leaf that reads a variable (intrinsic arguments are never constant).
    fn var_leaf(&mut self) -> (E, f64) {
        self.pick_var()
    }

    /// An expression of nesting depth at most `depth` and a bound of its absolute value.
    fn expr(&mut self, depth: usize) -> (E, f64) {
        if depth == 0 || self.rng.chance(0.2) {
            return self.leaf();
        }
        let ops = [
            Op::AddSub,
            Op::Mul,
            Op::Div,
            Op::Neg,
            Op::Unary,
            Op::Binary,
            Op::Kink,
        ];
        let kink_weight = usize::from(self.kinks < MAX_KINKS);
        let op = ops[self.rng.weighted(&[4, 3, 2, 1, 6, 3, kink_weight])];
        let (e, b) = match op {
            Op::AddSub => {
                let (l, bl) = self.expr(depth - 1);
                let (r, br) = self.expr(depth - 1);
                let op = if self.rng.chance(0.5) || same(&l, &r) {
                    "+"
                } else {
                    "-"
                };
                (bin(op, l, r), bl + br)
            }
            Op::Mul => {
                let (l, bl) = self.expr(depth - 1);
                let (r, br) = self.expr(depth - 1);
                (bin("*", l, r), bl * br)
            }
            Op::Div => {
                let (l, bl) = self.expr(depth - 1);
                let (d, lo, _) = self.positive(depth - 1, 0.5);
                (bin("/", l, d), bl / lo)
            }
            Op::Neg => {
                let (a, b) = self.expr(depth - 1);
                match a {
                    E::Neg(inner) => (*inner, b),
                    a => (E::Neg(Box::new(a)), b),
                }
            }
            Op::Unary => self.unary(depth - 1),
            Op::Binary => self.binary(depth - 1),
            Op::Kink => self.kink(depth - 1),
        };
        self.limit(e, b)
    }

    /// Squashes `e` with `tanh` if its bound exceeds [`LIMIT`].
    fn limit(&mut self, e: E, b: f64) -> (E, f64) {
        if b > LIMIT {
            (scaled_tanh(e, b), 1.0)
        } else {
            (e, b)
        }
    }

    /// `e` with a bound of at most `l`: as is, or `tanh(e)` (times `l` when `l < 1`).
    fn squash(&mut self, e: E, b: f64, l: f64) -> (E, f64) {
        if b <= l {
            (e, b)
        } else if b <= 1.0 {
            (bin("*", lit(l), e), l * b)
        } else if l >= 1.0 {
            (scaled_tanh(e, b), 1.0)
        } else {
            (bin("*", lit(l), scaled_tanh(e, b)), l)
        }
    }

    /// An expression that reads a variable: never a constant, whose type Rust could not
    /// infer as the receiver of a method call.
    fn arg(&mut self, depth: usize) -> (E, f64) {
        let (e, b) = self.expr(depth);
        let mut names = Vec::new();
        reads(&e, &mut names);
        if names.is_empty() {
            self.var_leaf()
        } else {
            (e, b)
        }
    }

    /// An expression bounded below by at least `min_lo > 0`: `(e, lower, upper)`.
    fn positive(&mut self, depth: usize, min_lo: f64) -> (E, f64, f64) {
        let (v, b) = self.arg(depth);
        match self.rng.below(6) {
            0..=2 => {
                let c = self.rng.pick(&[0.5_f64, 1.0, 1.5, 2.0]).max(min_lo);
                let sq = if matches!(v, E::Var(_)) && self.rng.chance(0.6) {
                    bin("*", v.clone(), v)
                } else {
                    method("powi", v, vec![E::Int(2)])
                };
                (bin("+", lit(c), sq), c, c + b * b)
            }
            3 => {
                let c = self.rng.pick(&[1.5_f64, 2.0]).max(min_lo + 1.0);
                let f = self.rng.pick(&["tanh", "sin", "cos"]);
                (bin("+", lit(c), method(f, v, vec![])), c - 1.0, c + 1.0)
            }
            4 => {
                let (v, b) = self.squash(v, b, 1.0);
                let e = (-b).exp();
                if e < min_lo {
                    let c = 1.5_f64.max(min_lo);
                    (bin("+", lit(c), method("exp", v, vec![])), c, c + b.exp())
                } else {
                    (method("exp", v, vec![]), e, b.exp())
                }
            }
            _ => {
                let (v, b) = self.squash(v, b, 1.5);
                let cosh = method("cosh", v, vec![]);
                if min_lo <= 1.0 {
                    (cosh, 1.0, b.cosh())
                } else {
                    // cosh is 1 at 0: shift it so that `log`'s base and `acosh`'s argument
                    // stay away from 1.
                    let c = self.rng.pick(&[0.5_f64, 1.0]).max(min_lo - 1.0);
                    (bin("+", lit(c), cosh), 1.0 + c, c + b.cosh())
                }
            }
        }
    }

    /// A call as a method (`v.f(..)`) or, one time in four, as a path (`f64::f(v, ..)`).
    fn call(&mut self, name: &'static str, recv: E, args: Vec<E>) -> E {
        if self.rng.chance(0.25) {
            let mut all = vec![recv];
            all.extend(args);
            E::Path(name, all)
        } else {
            method(name, recv, args)
        }
    }

    fn unary(&mut self, depth: usize) -> (E, f64) {
        let (a, b) = self.arg(depth);
        let name = self.rng.pick(&[
            "sin", "cos", "tanh", "atan", "sin", "cos", "tanh", "exp", "exp2", "exp_m1", "sinh",
            "cosh", "tan", "asin", "acos", "atanh", "asinh", "ln", "log2", "log10", "sqrt", "cbrt",
            "recip", "acosh", "ln_1p", "powi", "powi", "sqrt", "ln",
        ]);
        match name {
            "sin" | "cos" | "tanh" => (self.call(name, a, vec![]), 1.0),
            "atan" => (self.call(name, a, vec![]), 1.6),
            "asinh" => (self.call(name, a, vec![]), (b + (1.0 + b * b).sqrt()).ln()),
            "exp" | "exp2" | "exp_m1" | "sinh" | "cosh" => {
                let (a, b) = self.squash(a, b, 1.5);
                (self.call(name, a, vec![]), b.exp() + 1.0)
            }
            "tan" | "asin" | "acos" | "atanh" => {
                let (a, _) = self.squash(a, b, 0.75);
                (self.call(name, a, vec![]), 3.2)
            }
            "ln" | "log2" | "log10" | "sqrt" | "cbrt" | "recip" | "ln_1p" => {
                let (p, lo, hi) = self.positive(depth, 0.5);
                let bound = match name {
                    "sqrt" | "cbrt" => hi.sqrt().max(1.0),
                    "recip" => 1.0 / lo,
                    _ => hi.ln().abs().max(lo.ln().abs()) * 3.5 + 1.0,
                };
                (self.call(name, p, vec![]), bound)
            }
            "acosh" => {
                let (p, _, hi) = self.positive(depth, 1.25);
                (self.call(name, p, vec![]), hi.acosh())
            }
            "powi" => {
                if self.rng.chance(0.3) {
                    let (p, lo, _) = self.positive(depth, 0.5);
                    let n = self.rng.pick(&[-1, -2, -3]);
                    (self.call("powi", p, vec![E::Int(n)]), lo.powi(n))
                } else {
                    let n = self.rng.pick(&[2, 3, 4, 5]);
                    let (a, b) = self.squash(a, b, 1.5);
                    (self.call("powi", a, vec![E::Int(n)]), b.powi(n))
                }
            }
            _ => unreachable!("{name}"),
        }
    }

    fn binary(&mut self, depth: usize) -> (E, f64) {
        match self.rng.below(6) {
            0 | 1 => {
                let (a, ba) = self.arg(depth);
                let (b, bb) = self.expr(depth);
                let (c, bc) = self.expr(depth);
                (self.call("mul_add", a, vec![b, c]), ba * bb + bc)
            }
            2 => {
                let (y, _) = self.arg(depth);
                let (x, _, _) = self.positive(depth, 0.5);
                (self.call("atan2", y, vec![x]), 1.6)
            }
            3 => {
                let (x, bx) = self.arg(depth);
                let (y, _, hi) = self.positive(depth, 0.5);
                if self.rng.chance(0.5) {
                    (self.call("hypot", x, vec![y]), bx + hi)
                } else {
                    (self.call("hypot", y, vec![x]), bx + hi)
                }
            }
            4 => {
                let (base, lo, hi) = self.positive(depth, 0.5);
                let (p, bp) = self.arg(depth);
                let (p, bp) = self.squash(p, bp, 1.5);
                (self.call("powf", base, vec![p]), hi.max(1.0 / lo).powf(bp))
            }
            _ => {
                let (x, lo, hi) = self.positive(depth, 0.5);
                let base = if self.rng.chance(0.5) {
                    lit(self.rng.pick(&[2.0, 3.0, 10.0]))
                } else {
                    self.positive(depth, 1.5).0
                };
                let b = (hi.ln().abs().max(lo.ln().abs()) / 0.4).max(1.0);
                (self.call("log", x, vec![base]), b)
            }
        }
    }

    /// A piecewise-smooth value whose kink or jump the traced mirror records.
    fn kink(&mut self, depth: usize) -> (E, f64) {
        self.kinks += 1;
        match self.rng.below(8) {
            0..=2 => {
                let (a, ba) = self.arg(depth);
                let (mut b, mut bb) = self.expr(depth);
                if same(&a, &b) {
                    (b, bb) = self.leaf();
                }
                if same(&a, &b) {
                    (b, bb) = (lit(0.5), 0.5);
                }
                let name = self.rng.pick(&["max", "min"]);
                let key = cmp(">", a.clone(), b.clone());
                let v = self.call(name, a, vec![b]);
                (E::KinkB(Box::new(key), Box::new(v)), ba.max(bb))
            }
            3 => {
                let (a, b) = self.arg(depth);
                let key = cmp(">", a.clone(), lit(0.0));
                let v = self.call("abs", a, vec![]);
                (E::KinkB(Box::new(key), Box::new(v)), b)
            }
            4 => {
                let (a, _) = self.arg(depth);
                let (w, bw) = self.expr(depth);
                let key = cmp(">", a.clone(), lit(0.0));
                let s = self.call("signum", a, vec![]);
                (bin("*", E::KinkB(Box::new(key), Box::new(s)), w), bw)
            }
            5 | 6 => {
                let (a, b) = self.arg(depth);
                let name = self.rng.pick(&["floor", "ceil", "round", "trunc"]);
                let step = self.call(name, a.clone(), vec![]);
                let (w, bw) = self.expr(depth);
                let (a2, _) = self.squash(a, b, LIMIT);
                let v = bin(
                    "+",
                    bin("*", E::KinkF(Box::new(step.clone()), Box::new(step)), w),
                    a2,
                );
                (v, b.abs().ceil() * bw + b.min(LIMIT))
            }
            _ => {
                let (a, b) = self.arg(depth);
                let m = self.rng.pick(&[0.75, 1.5, 2.0]);
                let key = method("trunc", bin("/", a.clone(), lit(m)), vec![]);
                let v = bin("%", a, lit(m));
                (E::KinkF(Box::new(key), Box::new(v)), m.min(b))
            }
        }
    }

    fn fresh_t(&mut self) -> String {
        self.next_t += 1;
        format!("t{}", self.next_t - 1)
    }

    fn fresh_m(&mut self) -> String {
        self.next_m += 1;
        format!("m{}", self.next_m - 1)
    }

    fn fresh_b(&mut self) -> String {
        self.next_b += 1;
        format!("b{}", self.next_b - 1)
    }

    fn push_var(&mut self, name: String, bound: f64, mutable: bool) {
        self.vars.retain(|v| v.name != name);
        self.vars.push(Var {
            name,
            bound,
            mutable,
            unread: true,
        });
    }

    fn mutables(&self) -> Vec<String> {
        self.vars
            .iter()
            .filter(|v| v.mutable)
            .map(|v| v.name.clone())
            .collect()
    }

    /// `e` combined with `v` so that the result reads `v` (for shadowing and assignment).
    /// With `wrapped`, `v` only appears inside a call (`v = v * e` is clippy's
    /// `assign_op_pattern`).
    fn with_var(&mut self, name: &str, depth: usize, wrapped: bool) -> (E, f64) {
        let b = self.lookup(name).bound;
        let (e, be) = self.expr(depth);
        let (l, bl) = if !wrapped && self.rng.chance(0.5) {
            (var(name), b)
        } else {
            let f = self.rng.pick(&["sin", "cos", "tanh", "atan"]);
            (self.call(f, var(name), vec![]), 1.6)
        };
        let (e, b) = match self.rng.below(4) {
            0 => (bin("+", l, e), bl + be),
            1 if !same(&l, &e) => (bin("-", e, l), bl + be),
            _ => (bin("*", l, e), bl * be),
        };
        self.limit(e, b)
    }

    /// A block `{ let b = ..; tail }` whose tail reads `b`.
    fn block(&mut self, depth: usize) -> (E, f64) {
        let name = self.fresh_b();
        let (e, b) = self.arg(depth);
        let st = S::Let {
            name: name.clone(),
            mutable: false,
            typed: self.rng.chance(0.2),
            e,
        };
        self.vars.push(Var {
            name: name.clone(),
            bound: b,
            mutable: false,
            unread: true,
        });
        let (tail, bt) = self.with_var(&name, depth, false);
        self.vars.pop();
        self.last_pick = None;
        (E::Block(vec![st], Box::new(tail)), bt)
    }

    fn condition(&mut self) -> E {
        self.kinks += 1;
        let (a, _) = self.arg(1);
        let (mut b, _) = if self.rng.chance(0.3) {
            let v = self.rng.pick(LITS);
            if self.rng.chance(0.5) {
                (lit(v), v)
            } else {
                (E::Neg(Box::new(lit(v))), v)
            }
        } else {
            self.expr(1)
        };
        if same(&a, &b) {
            b = lit(0.5);
        }
        let op = self.rng.pick(&[">", "<", ">=", "<="]);
        cmp(op, a, b)
    }

    /// An update of the mutable `name`: a compound assignment or `name = f(name, ..)`.
    fn update(&mut self, name: &str, allow_plain: bool) -> S {
        let b = self.lookup(name).bound;
        let k = self.rng.below(if allow_plain { 9 } else { 8 });
        let (op, e, nb) = match k {
            0..=2 => {
                let (e, be) = self.rhs(name, 2, 1.5);
                ("+=", e, b + be)
            }
            3 | 4 => {
                let (e, be) = self.rhs(name, 2, 1.5);
                ("-=", e, b + be)
            }
            5 | 6 => {
                let (e, be) = self.rhs(name, 2, 1.25);
                ("*=", e, b * be)
            }
            7 => {
                let (d, lo, _) = self.positive(1, 0.5);
                ("/=", d, b / lo)
            }
            _ => {
                let (e, be) = self.with_var(name, 2, true);
                ("=", e, be)
            }
        };
        let s = S::Assign {
            name: name.to_string(),
            op,
            e,
        };
        self.mark_stmt_read(&s);
        let v = self.lookup(name);
        v.bound = nb;
        v.unread = true;
        s
    }

    /// The right-hand side of a compound assignment to `name`, bounded by `l`, and not of the
    /// form `name op x` (which clippy reads as a misrefactored assignment).
    fn rhs(&mut self, name: &str, depth: usize, l: f64) -> (E, f64) {
        for _ in 0..8 {
            let (e, b) = self.expr(depth);
            let direct = match &e {
                E::Bin(_, a, c) => {
                    matches!(&**a, E::Var(n) if n == name) || matches!(&**c, E::Var(n) if n == name)
                }
                _ => false,
            };
            if !direct {
                return self.squash(e, b, l);
            }
        }
        let (e, b) = self.leaf();
        self.squash(e, b, l)
    }

    fn statement(&mut self, out: &mut Vec<S>) {
        let muts = self.mutables();
        let can_kink = usize::from(self.kinks < MAX_KINKS);
        let has_mut = usize::from(!muts.is_empty());
        let k = self.rng.weighted(&[
            7,                  // let
            1,                  // let: f64
            2,                  // shadow
            2,                  // let mut (+ one update)
            4 * has_mut,        // compound / plain assignment
            can_kink,           // let x = if .. {} else {}
            can_kink * has_mut, // if .. { update } else { update }
            1,                  // let x = { let b = ..; .. }
        ]);
        match k {
            0 | 1 => {
                let name = self.fresh_t();
                let (e, b) = self.arg(3);
                self.mark_read(&e);
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: k == 1,
                    e,
                });
                self.push_var(name, b, false);
            }
            2 => {
                let imm: Vec<String> = self
                    .vars
                    .iter()
                    .filter(|v| !v.mutable)
                    .map(|v| v.name.clone())
                    .collect();
                if imm.is_empty() {
                    return;
                }
                let name = self
                    .rng
                    .pick(&imm.iter().map(String::as_str).collect::<Vec<_>>())
                    .to_string();
                let (e, b) = self.with_var(&name, 2, false);
                self.mark_read(&e);
                let mutable = self.rng.chance(0.25);
                out.push(S::Let {
                    name: name.clone(),
                    mutable,
                    typed: false,
                    e,
                });
                self.push_var(name.clone(), b, mutable);
                if mutable {
                    let s = self.update(&name, false);
                    out.push(s);
                }
            }
            3 => {
                let name = self.fresh_m();
                let (e, b) = self.arg(2);
                self.mark_read(&e);
                out.push(S::Let {
                    name: name.clone(),
                    mutable: true,
                    typed: false,
                    e,
                });
                self.push_var(name.clone(), b, true);
                let s = self.update(&name, false);
                out.push(s);
            }
            4 => {
                let name = self
                    .rng
                    .pick(&muts.iter().map(String::as_str).collect::<Vec<_>>())
                    .to_string();
                let s = self.update(&name, true);
                out.push(s);
            }
            5 => {
                let cond = self.condition();
                let (t, bt) = self.arm(2);
                let (mut f, mut bf) = self.arm(2);
                for _ in 0..4 {
                    if !same(&t, &f) {
                        break;
                    }
                    (f, bf) = self.arm(2);
                }
                if same(&t, &f) {
                    f = E::Neg(Box::new(f));
                }
                let name = self.fresh_t();
                let e = E::If(Box::new(cond), Box::new(t), Box::new(f));
                self.mark_read(&e);
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: false,
                    e,
                });
                self.push_var(name, bt.max(bf), false);
            }
            6 => {
                let cond = self.condition();
                self.mark_read(&cond);
                let a = self
                    .rng
                    .pick(&muts.iter().map(String::as_str).collect::<Vec<_>>())
                    .to_string();
                let b = self
                    .rng
                    .pick(&muts.iter().map(String::as_str).collect::<Vec<_>>())
                    .to_string();
                let before_a = self.lookup(&a).bound;
                let before_b = self.lookup(&b).bound;
                let then = self.arm_updates(&a);
                let after_then = self.lookup(&a).bound;
                self.lookup(&a).bound = before_a;
                let els = if self.rng.chance(0.8) {
                    Some(self.arm_updates(&b))
                } else {
                    None
                };
                let after_else = self.lookup(&b).bound;
                self.lookup(&a).bound = before_a.max(after_then);
                self.lookup(&b).bound = before_b.max(after_else);
                if a == b {
                    self.lookup(&a).bound = before_a.max(after_then).max(after_else);
                }
                // A read in one arm does not read what the other arm wrote.
                self.lookup(&a).unread = true;
                self.lookup(&b).unread = true;
                out.push(S::If { cond, then, els });
            }
            _ => {
                let name = self.fresh_t();
                let (e, b) = self.block(2);
                self.mark_read(&e);
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: false,
                    e,
                });
                self.push_var(name, b, false);
            }
        }
    }

    /// One arm of an `if` expression: an expression or a block.
    fn arm(&mut self, depth: usize) -> (E, f64) {
        if self.rng.chance(0.35) {
            self.block(depth)
        } else {
            self.arg(depth)
        }
    }

    /// One arm of an `if` statement: one or two updates of `name`, maybe through a local.
    fn arm_updates(&mut self, name: &str) -> Vec<S> {
        let mut out = Vec::new();
        let n = self.rng.range(1, 2);
        for _ in 0..n {
            out.push(self.update(name, true));
        }
        out
    }

    /// The return expression: reads every variable not read yet, and at least two terms.
    fn tail(&mut self) -> E {
        let mut terms: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.unread)
            .map(|v| v.name.clone())
            .collect();
        let last = self.vars.last().unwrap().name.clone();
        if !terms.contains(&last) {
            terms.push(last);
        }
        if terms.len() < 2 {
            let other = self
                .vars
                .iter()
                .rev()
                .find(|v| !terms.contains(&v.name))
                .map(|v| v.name.clone())
                .unwrap();
            terms.insert(0, other);
        }
        let mut e = var(&terms[0]);
        for t in &terms[1..] {
            let r = if self.rng.chance(0.3) {
                let f = self.rng.pick(&["sin", "cos", "tanh"]);
                self.call(f, var(t), vec![])
            } else {
                var(t)
            };
            let op = self.rng.pick(&["+", "+", "-", "*"]);
            e = bin(op, e, r);
        }
        e
    }
}

/// Whether two expressions print the same (clippy rejects `a - a`, `a > a`, equal arms).
fn same(a: &E, b: &E) -> bool {
    let p = Printer { traced: false };
    p.expr(a, 0, 0) == p.expr(b, 0, 0)
}

struct Program {
    name: String,
    stmts: Vec<S>,
    tail: E,
    kinks: usize,
}

fn program(rng: &mut Rng, k: usize) -> Program {
    let mut g = Gen {
        rng,
        vars: ["x0", "x1", "x2"]
            .iter()
            .map(|n| Var {
                name: n.to_string(),
                bound: 2.0,
                mutable: false,
                unread: true,
            })
            .collect(),
        next_t: 0,
        next_m: 0,
        next_b: 0,
        kinks: 0,
        last_pick: None,
    };
    let n = g.rng.range(5, 25);
    let mut stmts = Vec::new();
    while stmts.len() < n {
        g.statement(&mut stmts);
    }
    let tail = g.tail();
    Program {
        name: format!("p_{k}"),
        stmts,
        tail,
        kinks: g.kinks,
    }
}

fn render(p: &Program, traced: bool) -> String {
    let pr = Printer { traced };
    let mut s = String::new();
    if traced {
        let _ = writeln!(
            s,
            "    /// [`super::{}`], also returning every decision it took.",
            p.name
        );
        let _ = writeln!(
            s,
            "    pub fn {}(x0: f64, x1: f64, x2: f64) -> (f64, Vec<f64>) {{",
            p.name
        );
        s += "        let tr = RefCell::new(Vec::new());\n";
        s += &pr.stmts(&p.stmts, 2);
        let _ = writeln!(s, "        let value = {};", pr.expr(&p.tail, 0, 2));
        s += "        (value, tr.into_inner())\n    }\n";
    } else {
        let _ = writeln!(s, "#[ad::reverse]");
        let _ = writeln!(s, "pub fn {}(x0: f64, x1: f64, x2: f64) -> f64 {{", p.name);
        s += &pr.stmts(&p.stmts, 1);
        let _ = writeln!(s, "    {}", pr.expr(&p.tail, 0, 1));
        s += "}\n";
    }
    s
}

fn generate(seed: u64, count: usize) -> String {
    let mut rng = Rng(seed);
    let programs: Vec<Program> = (0..count).map(|k| program(&mut rng, k)).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// @generated by tests/random-programs/build.rs (seed {SEED:#x}); do not edit.\n"
    );
    let _ = writeln!(
        s,
        "/// The number of generated programs.\npub const COUNT: usize = {count};\n"
    );
    let mut sources = Vec::new();
    for p in &programs {
        let src = render(p, false);
        let _ = writeln!(
            s,
            "/// Random program `{}`: {} statements, {} branch points.",
            p.name,
            p.stmts.len(),
            p.kinks
        );
        s += &src;
        s += "\n";
        sources.push(src);
    }
    s +=
        "/// Mirrors of the programs that also record every branch decision: the outcome of each\n";
    s +=
        "/// `if` condition and of each kink test (`max`, `abs`, ...) and the value of each step\n";
    s += "/// function (`floor`, `%`, ...), in evaluation order. Two points with the same trace lie\n";
    s += "/// in the same smooth piece of the program.\n";
    s += "pub mod traced {\n    use core::cell::RefCell;\n\n";
    s += "    fn rec(tr: &RefCell<Vec<f64>>, c: bool) -> bool {\n";
    s += "        tr.borrow_mut().push(f64::from(u8::from(c)));\n        c\n    }\n\n";
    s += "    fn kink_b(tr: &RefCell<Vec<f64>>, c: bool, v: f64) -> f64 {\n";
    s += "        rec(tr, c);\n        v\n    }\n\n";
    s += "    fn kink_f(tr: &RefCell<Vec<f64>>, key: f64, v: f64) -> f64 {\n";
    s += "        tr.borrow_mut().push(key);\n        v\n    }\n\n";
    for p in &programs {
        s += &render(p, true);
        s += "\n";
    }
    s += "}\n\n";
    s += "/// The primal of a program.\npub type Primal = fn(f64, f64, f64) -> f64;\n";
    s += "/// The generated `_grad` of a program: its value and its three partials.\n";
    s += "pub type Gradient = fn(f64, f64, f64) -> (f64, (f64, f64, f64));\n";
    s += "/// A traced mirror of a program (see [`traced`]).\n";
    s += "pub type Traced = fn(f64, f64, f64) -> (f64, Vec<f64>);\n\n";
    s +=
        "/// Every program: its name, the primal and the gradient generated by `#[ad::reverse]`.\n";
    s += "pub static PROGRAMS: &[(&str, Primal, Gradient)] = &[\n";
    for p in &programs {
        let _ = writeln!(s, "    (\"{0}\", {0}, {0}_grad),", p.name);
    }
    s += "];\n\n/// The source text of each program, in the order of [`PROGRAMS`].\n";
    s += "pub static SOURCES: &[&str] = &[\n";
    for src in &sources {
        let _ = writeln!(s, "    r#\"{src}\"#,");
    }
    s += "];\n\n/// The traced mirror of each program, in the order of [`PROGRAMS`].\n";
    s += "pub static TRACED: &[Traced] = &[\n";
    for p in &programs {
        let _ = writeln!(s, "    traced::{},", p.name);
    }
    s += "];\n";
    s
}
