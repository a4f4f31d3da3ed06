//! The program model shared by the generator and the emissions.
//!
//! One [`Func`] is printed by [`Printer`] as the plain Rust function that carries
//! `#[revad::reverse]` (`oracle: false`), the same function under `#[revad::reverse(cps)]` (`cps:
//! true`: the continuation-passing backend), and as a function generic over the harness's
//! `Real` scalar (`oracle: true`), which the tests instantiate with a num-dual forward-mode
//! dual number and with the absolute-value dual that gives the rounding tolerance. The plain
//! and oracle printings differ only where the types differ: literals become `T::cst(..)`, float
//! comparisons read `.re()`, `f64` becomes `T`, `sum`/`product` become the folds that the
//! standard library performs.

use std::fmt::Write as _;

/// A float expression.
#[derive(Clone, Debug)]
pub enum E {
    /// A float variable (or a closure parameter).
    Var(String),
    /// `*x` for a loop variable `x: &f64`.
    Deref(String),
    /// A float literal (non-negative; negative ones are `Neg(Lit)`).
    Lit(f64),
    /// Unary minus.
    Neg(Box<E>),
    /// `+ - * / %`.
    Bin(&'static str, Box<E>, Box<E>),
    /// An intrinsic: `args[0].name(args[1..])`, or `f64::name(args)` when `path`.
    Intr(&'static str, Vec<E>, bool),
    /// `x.powi(n)` (or `f64::powi(x, n)` when the flag is set).
    Powi(Box<E>, i32, bool),
    /// `a[i]`.
    Index(String, I),
    /// `q[i][j]` of a 2-D array; the flag: its element type is known (a typed table, or a
    /// `let mut q: [[f64; N]; N]`), so a method may be called on it.
    Index2(String, I, I, bool),
    /// `i as f64`.
    Cast(I),
    /// `if c { a } else { b }`.
    If(Box<C>, Box<E>, Box<E>),
    /// `{ stmts; tail }`.
    Block(Vec<S>, Box<E>),
    /// A call of another generated function.
    Call(String, Vec<A>),
    /// A call of a closure bound by `let`.
    CallClosure(String, Vec<E>),
    /// An iterator chain.
    Chain(Box<Chain>),
    /// `revad::stop_gradient(e)`; in the oracle printing a constant of its value.
    Stop(Box<E>),
    /// `Ty { f: e, .. }`: a value of the program's [`UserType`].
    Struct(String, Vec<(String, E)>),
}

/// An argument of a call of a generated function.
#[derive(Clone, Debug)]
pub enum A {
    /// A float.
    F(E),
    /// A slice argument: the text of the expression (`xs`, `&h`), the same in both printings.
    Slice(String),
    /// A `&mut` argument: the text of the expression (`&mut m3`, `&mut h0`, `s`, `&mut *o`),
    /// the same in both printings.
    Mut(String),
}

/// What a generated function returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ret {
    /// A float.
    F,
    /// `()` (the results are `&mut` parameters).
    Unit,
    /// `[f64; N]`, from an array literal.
    Arr,
    /// `Vec<f64>`, from `vec![a, b, ..]`.
    Vec,
    /// `(f64, f64)`.
    Tup,
    /// `Self` (a method of the [`UserType`] that builds a new value, from a struct
    /// expression [`E::Struct`]).
    SelfTy,
}

/// An integer (`usize`) expression, identical in both printings.
#[derive(Clone, Debug)]
pub enum I {
    /// A variable.
    Var(String),
    /// A literal.
    Lit(usize),
    /// `a op b`.
    Bin(&'static str, Box<I>, Box<I>),
    /// `xs.len()`.
    Len(String),
}

/// A condition.
#[derive(Clone, Debug)]
pub enum C {
    /// A comparison of floats.
    F(&'static str, E, E),
    /// A comparison of integers.
    I(&'static str, I, I),
}

/// The target of an assignment.
#[derive(Clone, Debug)]
pub enum Lv {
    /// A variable.
    Var(String),
    /// An element of an array.
    Idx(String, I),
    /// An element of a 2-D array, `q[i][j]`.
    Idx2(String, I, I),
    /// `*x` for a `&mut f64` (a parameter, or the element of an `iter_mut()` loop).
    Deref(String),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum S {
    /// `let [mut] name[: f64] = e;`
    Let {
        name: String,
        mutable: bool,
        typed: bool,
        e: E,
    },
    /// `lv op e;` with `op` one of `= += -= *= /=`.
    Assign { lv: Lv, op: &'static str, e: E },
    /// `let mut name = [0.0; len];` or, with `vec`, `let mut name = vec![0.0; vec];`.
    LetArr {
        name: String,
        len: usize,
        vec: Option<I>,
    },
    /// `let mut name: [[f64; len]; len] = [[0.0; len]; len];`: a local 2-D array.
    LetArr2 { name: String, len: usize },
    /// `let name[: [[f64; N]; N]] = [[1.0, 2.0], [3.0, 4.0]];`: a local 2-D constant table.
    LetTab {
        name: String,
        rows: Vec<Vec<f64>>,
        typed: bool,
    },
    /// `let name = [0.5, -0.75, 1.5];`: a constant array, passed by `&name` where a callee's
    /// `wrt(..)` leaves out a slice parameter (`&[0.5, ..]` in the call is rejected: "references
    /// are not supported here").
    LetConst { name: String, xs: Vec<f64> },
    /// `let [mut] name = e;` (an integer).
    LetInt { name: String, mutable: bool, e: I },
    /// `name += 1;` (an integer).
    IncInt(String),
    /// `if c { then } [else { els }]`.
    If {
        c: C,
        then: Vec<S>,
        els: Option<Vec<S>>,
    },
    /// `for pat in it { body }`, with `#[revad::checkpoint(snapshots = k)]` (`Some(k)`, `k`
    /// 0 for the attribute without argument) in the plain printing when the body does not
    /// `break`, `continue` or `return` (the generator sets it on range loops of the function's
    /// body only).
    For {
        pat: Pat,
        it: It,
        body: Vec<S>,
        checkpoint: Option<usize>,
    },
    /// `while c { body }`.
    While { c: C, body: Vec<S> },
    /// `loop { body }`.
    Loop(Vec<S>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return e;`
    Return(E),
    /// `return;` (in a function returning `()`).
    ReturnUnit,
    /// A call as a statement (of a function returning `()`).
    CallStmt(E),
    /// `let name[: ty] = call;` for a call returning an array or a `Vec` (`ret`), with the
    /// type written when `typed`.
    LetCall {
        name: String,
        ret: Ret,
        typed: bool,
        call: E,
    },
    /// `let (a, b) = call;`
    LetTuple { names: Vec<String>, call: E },
    /// `let (a, b)[: (f64, f64)] = (e1, e2);`: a tuple literal taken apart.
    LetTupleLit {
        names: Vec<String>,
        typed: bool,
        es: Vec<E>,
    },
    /// `for v in src { body }` with `src` one of `xs.iter_mut()`, `&mut xs`,
    /// `xs.iter_mut().enumerate()` (pattern `(i, v)`), `xs.iter_mut().zip(ys.iter())`
    /// (pattern `(v, y)`).
    IterMut {
        v: String,
        xs: String,
        form: IterMutForm,
        body: Vec<S>,
    },
    /// `name.swap(i, j);`
    Swap { name: String, i: I, j: I },
    /// `name.push(e); let tl = name.len() - 1; name.swap(k, tl); let t =
    /// name.pop().unwrap(); name.insert(k, t); name.remove(k + 1 or k);`: the `Vec` keeps its length, with
    /// `name[k] = e` when `keep`, unchanged otherwise.
    Cycle {
        name: String,
        k: I,
        e: E,
        t: String,
        keep: bool,
    },
    /// `let [mut] name = Ty { f: e, .. };`: an instance of the program's [`UserType`].
    LetStruct {
        name: String,
        ty: String,
        fields: Vec<(String, E)>,
        mutable: bool,
    },
    /// `let name = |p: f64, ..| body;`
    LetClosure {
        name: String,
        params: Vec<String>,
        body: E,
    },
}

/// The form of an `iter_mut()` loop.
#[derive(Clone, Debug)]
pub enum IterMutForm {
    /// `for v in xs.iter_mut()`.
    Plain,
    /// `for v in &mut xs`.
    Borrow,
    /// `for (i, v) in xs.iter_mut().enumerate()`.
    Enumerate(String),
    /// `for (v, y) in xs.iter_mut().zip(ys.iter())`: `(y, sequence)`, the sequence
    /// `ys.iter()` or `ys.iter().rev()`; `y` is read as `*y`.
    Zip(String, String),
}

/// The pattern of a `for` loop.
#[derive(Clone, Debug)]
pub enum Pat {
    /// An integer index `i`.
    Int(String),
    /// `x` bound to `&f64` (read as `*x`).
    Ref(String),
    /// `&x`.
    Val(String),
    /// `(i, &x)` over `.enumerate()`.
    Enum(String, String),
}

/// What a `for` loop iterates over.
#[derive(Clone, Debug)]
pub enum It {
    /// `a..b` or `a..=b`, optionally `.rev()` or `.step_by(k)`.
    Range {
        lo: I,
        hi: I,
        incl: bool,
        rev: bool,
        step: Option<usize>,
    },
    /// `xs.iter()`.
    Iter(String),
    /// `xs` itself (a slice reference parameter) or `&h` (a local array).
    Plain(String),
    /// `xs.iter().enumerate()`.
    Enumerate(String),
}

/// An iterator chain, from a fixed menu of shapes.
#[derive(Clone, Debug)]
pub enum Chain {
    /// `xs.iter().map(|&p| body).sum::<f64>()`, or `.copied().map(|p| ..)` when `copied`.
    MapSum {
        xs: String,
        p: String,
        body: E,
        copied: bool,
    },
    /// `xs.iter().zip(ys.iter()).map(|(&p, &q)| body).sum::<f64>()`.
    ZipSum {
        xs: String,
        ys: String,
        p: String,
        q: String,
        body: E,
    },
    /// `xs.iter().enumerate().map(|(i, &p)| body).sum::<f64>()`.
    EnumSum {
        xs: String,
        i: String,
        p: String,
        body: E,
    },
    /// `xs.iter().filter(|&&p| p > lit).map(|&q| body).sum::<f64>()`.
    FilterSum {
        xs: String,
        p: String,
        op: &'static str,
        lit: f64,
        q: String,
        body: E,
    },
    /// `xs.iter().fold(init, |acc, &p| body)`.
    Fold {
        xs: String,
        init: E,
        acc: String,
        p: String,
        body: E,
    },
    /// `xs.iter().map(|&p| body).product::<f64>()`.
    MapProduct { xs: String, p: String, body: E },
    /// `(0..n).map(|i| body).sum::<f64>()`.
    RangeSum { n: I, i: String, body: E },
    /// `xs.iter().map(|&p| body).collect::<Vec<f64>>()` (the body calls a helper, often with
    /// `xs` itself as an argument).
    MapCollect { xs: String, p: String, body: E },
}

/// A parameter of a generated function.
#[derive(Clone, Debug)]
pub enum Param {
    /// `name: f64`.
    Scalar(String),
    /// `name: &[f64]`.
    Slice(String),
    /// `name: [f64; N]`.
    Array(String),
    /// `name: Vec<f64>`.
    Vec(String),
    /// `name: &Vec<f64>`.
    VecRef(String),
    /// `name: usize`.
    Int(String),
    /// `name: &mut f64`.
    MutScalar(String),
    /// `name: &mut [f64]`.
    MutSlice(String),
    /// `name: &mut [f64; N]`.
    MutArray(String),
    /// `name: &mut Vec<f64>`.
    MutVec(String),
    /// `name: &M` for the type parameter `M` of a generic function (see [`Func::bound`]).
    Obj(String),
}

impl Param {
    /// The parameter's name.
    pub fn name(&self) -> &str {
        match self {
            Param::Scalar(n)
            | Param::Slice(n)
            | Param::Array(n)
            | Param::Vec(n)
            | Param::VecRef(n)
            | Param::Int(n)
            | Param::MutScalar(n)
            | Param::MutSlice(n)
            | Param::MutArray(n)
            | Param::MutVec(n)
            | Param::Obj(n) => n,
        }
    }
}

/// One generated function.
#[derive(Clone, Debug)]
pub struct Func {
    /// Its name.
    pub name: String,
    /// Its parameters.
    pub params: Vec<Param>,
    /// `Some(names)` for `#[revad::reverse(wrt(names))]`.
    pub wrt: Option<Vec<String>>,
    /// Its statements.
    pub body: Vec<S>,
    /// What it returns.
    pub ret: Ret,
    /// Its final expression: one float ([`Ret::F`]), none ([`Ret::Unit`]), the elements of
    /// the array, `Vec` or tuple.
    pub tail: Vec<E>,
    /// A method's receiver (`&self`, or `&mut self` with [`Func::mut_self`]), printed before
    /// the parameters.
    pub receiver: bool,
    /// The receiver is `&mut self`.
    pub mut_self: bool,
    /// `Some(trait)`: a function generic over `M: trait` (its [`Param::Obj`] is a `&M`).
    pub bound: Option<String>,
}

/// A user type: a struct with float fields (`#[derive(Clone, revad::Adjoint)]`), an inherent
/// `impl` block under `#[revad::reverse]` with an associated function without receiver and a
/// `&self` method (and, where the main function writes the instance, a `&mut self` method
/// `bump` and a `&self` method `next` returning `Self`), a trait under `#[revad::reverse]` with one required method, its `impl` for
/// the struct, and a function generic over the trait. The functions' bodies read the fields
/// as `self.NAME`.
#[derive(Clone, Debug)]
pub struct UserType {
    /// The struct's name.
    pub ty: String,
    /// The trait's name.
    pub tr: String,
    /// The field names.
    pub fields: Vec<String>,
    /// The associated functions and methods of the inherent `impl` block.
    pub inherent: Vec<Func>,
    /// The trait's required method, as the struct's `impl` defines it.
    pub eval: Func,
    /// The free function generic over the trait.
    pub generic: Func,
}

impl Param {
    /// A `&mut` float parameter.
    pub fn is_mut(&self) -> bool {
        matches!(
            self,
            Param::MutScalar(_) | Param::MutSlice(_) | Param::MutArray(_) | Param::MutVec(_)
        )
    }
}

/// Prints the model as Rust.
pub struct Printer {
    /// The oracle printing (generic over `T: Real`) instead of the plain one.
    pub oracle: bool,
    /// The float type of the program: `f64` or `f32`.
    pub fty: &'static str,
    /// The length of every array of the program.
    pub len: usize,
    /// Under the continuation-passing backend, `#[revad::reverse(cps)]` (plain printing only).
    pub cps: bool,
}

const IND: &str = "    ";

/// Whether printed statements contain `break`, `continue` or `return` (anywhere: a checkpointed
/// loop may not jump, and an inner loop's jumps are left out too, to be simple).
fn jumps(code: &str) -> bool {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| matches!(word, "break" | "continue" | "return"))
}

impl Printer {
    /// `f64` or, in the oracle, `T`.
    fn ty(&self) -> &'static str {
        if self.oracle {
            "T"
        } else {
            self.fty
        }
    }

    fn prec(&self, e: &E) -> u8 {
        match e {
            E::Var(_)
            | E::Intr(..)
            | E::Powi(..)
            | E::Index(..)
            | E::Index2(..)
            | E::Call(..)
            | E::CallClosure(..)
            | E::Chain(..)
            | E::Struct(..)
            | E::Stop(_) => 5,
            E::Lit(_) => {
                if self.oracle {
                    5
                } else {
                    4
                }
            }
            E::Deref(_) | E::Neg(_) => 3,
            // `i as f64 < x` would parse `f64<` as generics: parenthesise casts.
            E::Cast(_) => {
                if self.oracle {
                    5
                } else {
                    0
                }
            }
            E::Bin(op, ..) => match *op {
                "*" | "/" | "%" => 2,
                _ => 1,
            },
            E::If(..) | E::Block(..) => 0,
        }
    }

    /// `e`, parenthesised if its precedence is below `min`.
    pub fn expr(&self, e: &E, min: u8, ind: usize) -> String {
        let s = self.bare(e, ind);
        if self.prec(e) < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn lit(&self, v: f64) -> String {
        if self.oracle {
            format!("T::cst({v:?})")
        } else {
            format!("{v:?}")
        }
    }

    /// A literal that may be negative (`-0.5`, or `T::cst(-0.5)`).
    fn flit(&self, v: f64) -> String {
        if v < 0.0 && !self.oracle {
            format!("-{:?}", -v)
        } else {
            self.lit(v)
        }
    }

    fn bare(&self, e: &E, ind: usize) -> String {
        match e {
            E::Var(n) => n.clone(),
            E::Deref(n) => format!("*{n}"),
            E::Lit(v) => self.lit(*v),
            E::Neg(a) => {
                let min = if matches!(**a, E::Neg(_)) { 4 } else { 3 };
                format!("-{}", self.expr(a, min, ind))
            }
            E::Bin(op, a, b) => {
                let p = self.prec(e);
                format!("{} {op} {}", self.expr(a, p, ind), self.expr(b, p + 1, ind))
            }
            E::Intr(name, args, path) => {
                if *path {
                    let ty = if self.oracle { "T" } else { self.fty };
                    format!("{ty}::{name}({})", self.args(args, ind))
                } else {
                    format!(
                        "{}.{name}({})",
                        self.expr(&args[0], 4, ind),
                        self.args(&args[1..], ind)
                    )
                }
            }
            E::Powi(a, n, path) => {
                if *path {
                    format!("{}::powi({}, {n})", self.ty(), self.expr(a, 0, ind))
                } else {
                    format!("{}.powi({n})", self.expr(a, 4, ind))
                }
            }
            E::Index(a, i) => format!("{a}[{}]", self.int(i, 0)),
            E::Index2(a, i, j, _) => format!("{a}[{}][{}]", self.int(i, 0), self.int(j, 0)),
            E::Cast(i) => {
                if self.oracle {
                    format!("T::cst({} as {})", self.int(i, 3), self.fty)
                } else {
                    format!("{} as {}", self.int(i, 3), self.fty)
                }
            }
            E::If(c, a, b) => format!(
                "if {} {} else {}",
                self.cond(c, ind),
                self.arm(a, ind),
                self.arm(b, ind)
            ),
            E::Block(stmts, tail) => {
                let mut s = String::from("{\n");
                for st in stmts {
                    s += &self.stmt(st, ind + 1);
                }
                let _ = writeln!(s, "{}{}", IND.repeat(ind + 1), self.expr(tail, 0, ind + 1));
                s + &IND.repeat(ind) + "}"
            }
            E::Call(f, args) => {
                let args: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        A::F(e) => self.expr(e, 0, ind),
                        A::Slice(s) | A::Mut(s) => s.clone(),
                    })
                    .collect();
                format!("{f}({})", args.join(", "))
            }
            E::CallClosure(f, args) => format!("{f}({})", self.args(args, ind)),
            E::Chain(c) => self.chain(c, ind),
            E::Stop(a) => {
                if self.oracle {
                    format!("T::cst({}.re())", self.expr(a, 5, ind))
                } else {
                    format!("revad::stop_gradient({})", self.expr(a, 0, ind))
                }
            }
            E::Struct(ty, fields) => self.struct_expr(ty, fields, ind),
        }
    }

    /// `Ty { f: e, .. }`.
    fn struct_expr(&self, ty: &str, fields: &[(String, E)], ind: usize) -> String {
        let fs: Vec<String> = fields
            .iter()
            .map(|(f, e)| format!("{f}: {}", self.expr(e, 0, ind)))
            .collect();
        format!("{ty} {{ {} }}", fs.join(", "))
    }

    fn sum(&self) -> String {
        if self.oracle {
            // What `Sum for f64` does (it starts from -0.0).
            "fold(T::cst(-0.0), |s, v| s + v)".to_string()
        } else {
            format!("sum::<{}>()", self.fty)
        }
    }

    fn chain(&self, c: &Chain, ind: usize) -> String {
        let x = |e: &E| self.expr(e, 0, ind);
        match c {
            Chain::MapSum {
                xs,
                p,
                body,
                copied,
            } => {
                if *copied {
                    format!("{xs}.iter().copied().map(|{p}| {}).{}", x(body), self.sum())
                } else {
                    format!("{xs}.iter().map(|&{p}| {}).{}", x(body), self.sum())
                }
            }
            Chain::ZipSum { xs, ys, p, q, body } => format!(
                "{xs}.iter().zip({ys}.iter()).map(|(&{p}, &{q})| {}).{}",
                x(body),
                self.sum()
            ),
            Chain::EnumSum { xs, i, p, body } => format!(
                "{xs}.iter().enumerate().map(|({i}, &{p})| {}).{}",
                x(body),
                self.sum()
            ),
            Chain::FilterSum {
                xs,
                p,
                op,
                lit,
                q,
                body,
            } => {
                let c = if self.oracle {
                    format!("{p}.re() {op} {lit:?}")
                } else {
                    format!("{p} {op} {lit:?}")
                };
                format!(
                    "{xs}.iter().filter(|&&{p}| {c}).map(|&{q}| {}).{}",
                    x(body),
                    self.sum()
                )
            }
            Chain::Fold {
                xs,
                init,
                acc,
                p,
                body,
            } => format!("{xs}.iter().fold({}, |{acc}, &{p}| {})", x(init), x(body)),
            Chain::MapProduct { xs, p, body } => {
                let prod = if self.oracle {
                    "fold(T::cst(1.0), |s, v| s * v)".to_string()
                } else {
                    format!("product::<{}>()", self.fty)
                };
                format!("{xs}.iter().map(|&{p}| {}).{prod}", x(body))
            }
            Chain::MapCollect { xs, p, body } => format!(
                "{xs}.iter().map(|&{p}| {}).collect::<Vec<{}>>()",
                x(body),
                self.ty()
            ),
            Chain::RangeSum { n, i, body } => format!(
                "(0..{}).map(|{i}| {}).{}",
                self.int(n, 0),
                x(body),
                self.sum()
            ),
        }
    }

    fn args(&self, args: &[E], ind: usize) -> String {
        args.iter()
            .map(|a| self.expr(a, 0, ind))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// An integer expression.
    pub fn int(&self, i: &I, min: u8) -> String {
        match i {
            I::Var(n) => n.clone(),
            I::Lit(v) => v.to_string(),
            I::Len(a) => format!("{a}.len()"),
            I::Bin(op, a, b) => {
                let p = match *op {
                    "*" | "/" | "%" => 2,
                    _ => 1,
                };
                let s = format!("{} {op} {}", self.int(a, p), self.int(b, p + 1));
                if p < min {
                    format!("({s})")
                } else {
                    s
                }
            }
        }
    }

    fn cond(&self, c: &C, ind: usize) -> String {
        match c {
            C::F(op, a, b) => {
                if self.oracle {
                    format!(
                        "{}.re() {op} {}.re()",
                        self.expr(a, 4, ind),
                        self.expr(b, 4, ind)
                    )
                } else {
                    format!("{} {op} {}", self.expr(a, 1, ind), self.expr(b, 1, ind))
                }
            }
            C::I(op, a, b) => format!("{} {op} {}", self.int(a, 1), self.int(b, 1)),
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

    fn it(&self, it: &It) -> String {
        match it {
            It::Range {
                lo,
                hi,
                incl,
                rev,
                step,
            } => {
                let r = format!(
                    "{}{}{}",
                    self.int(lo, 2),
                    if *incl { "..=" } else { ".." },
                    self.int(hi, 2)
                );
                if *rev {
                    format!("({r}).rev()")
                } else if let Some(k) = step {
                    format!("({r}).step_by({k})")
                } else {
                    r
                }
            }
            It::Iter(xs) => format!("{xs}.iter()"),
            It::Plain(xs) => xs.clone(),
            It::Enumerate(xs) => format!("{xs}.iter().enumerate()"),
        }
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
                if *typed {
                    format!(": {}", self.ty())
                } else {
                    String::new()
                },
                self.expr(e, 0, ind)
            ),
            S::Assign { lv, op, e } => {
                let lv = match lv {
                    Lv::Var(n) => n.clone(),
                    Lv::Deref(n) => format!("*{n}"),
                    Lv::Idx(a, i) => format!("{a}[{}]", self.int(i, 0)),
                    Lv::Idx2(a, i, j) => format!("{a}[{}][{}]", self.int(i, 0), self.int(j, 0)),
                };
                // A field (`obj.fa *= ..`) likewise: the plain function reads it on the right too.
                if self.oracle && *op != "=" && (lv.contains('[') || lv.contains('.')) {
                    // `h[i] /= h[i].sin()` borrows `h` twice with an overloaded `/=`; for
                    // floats it is `h[i] = h[i] / h[i].sin()`, rounding included.
                    let bop = &op[..1];
                    format!("{pad}{lv} = {lv} {bop} ({});\n", self.expr(e, 0, ind))
                } else {
                    format!("{pad}{lv} {op} {};\n", self.expr(e, 0, ind))
                }
            }
            S::LetArr { name, len, vec } => {
                let zero = self.lit(0.0);
                match vec {
                    Some(n) => {
                        let n = self.int(n, 0);
                        if self.oracle {
                            format!("{pad}let mut {name} = vec![{zero}; {n}];\n")
                        } else {
                            format!(
                                "{pad}let mut {name}: Vec<{}> = vec![{zero}; {n}];\n",
                                self.fty
                            )
                        }
                    }
                    None => {
                        if self.oracle {
                            format!("{pad}let mut {name} = [{zero}; {len}];\n")
                        } else {
                            format!(
                                "{pad}let mut {name}: [{}; {len}] = [{zero}; {len}];\n",
                                self.fty
                            )
                        }
                    }
                }
            }
            S::LetArr2 { name, len } => {
                let zero = self.lit(0.0);
                if self.oracle {
                    format!("{pad}let mut {name} = [[{zero}; {len}]; {len}];\n")
                } else {
                    format!(
                        "{pad}let mut {name}: [[{}; {len}]; {len}] = [[{zero}; {len}]; {len}];\n",
                        self.fty
                    )
                }
            }
            S::LetTab { name, rows, typed } => {
                let rs: Vec<String> = rows
                    .iter()
                    .map(|r| {
                        let r: Vec<String> = r.iter().map(|&x| self.flit(x)).collect();
                        format!("[{}]", r.join(", "))
                    })
                    .collect();
                let ty = if *typed && !self.oracle {
                    let n = rows.len();
                    format!(": [[{}; {n}]; {n}]", self.fty)
                } else {
                    String::new()
                };
                format!("{pad}let {name}{ty} = [{}];\n", rs.join(", "))
            }
            S::LetConst { name, xs } => {
                let xs: Vec<String> = xs.iter().map(|&x| self.flit(x)).collect();
                format!("{pad}let {name} = [{}];\n", xs.join(", "))
            }
            S::LetInt { name, mutable, e } => format!(
                "{pad}let {}{name}: usize = {};\n",
                if *mutable { "mut " } else { "" },
                self.int(e, 0)
            ),
            S::IncInt(n) => format!("{pad}{n} += 1;\n"),
            S::If { c, then, els } => {
                let mut s = format!(
                    "{pad}if {} {{\n{}{pad}}}",
                    self.cond(c, ind),
                    self.stmts(then, ind + 1)
                );
                if let Some(els) = els {
                    let _ = write!(s, " else {{\n{}{pad}}}", self.stmts(els, ind + 1));
                }
                s + "\n"
            }
            S::For {
                pat,
                it,
                body,
                checkpoint,
            } => {
                let pat = match pat {
                    Pat::Int(i) => i.clone(),
                    Pat::Ref(x) => x.clone(),
                    Pat::Val(x) => format!("&{x}"),
                    Pat::Enum(i, x) => format!("({i}, &{x})"),
                };
                let body = self.stmts(body, ind + 1);
                let attribute = match checkpoint {
                    Some(k) if !self.oracle && !jumps(&body) => match k {
                        0 => format!("{pad}#[revad::checkpoint]\n"),
                        k => format!("{pad}#[revad::checkpoint(snapshots = {k})]\n"),
                    },
                    _ => String::new(),
                };
                format!(
                    "{attribute}{pad}for {pat} in {} {{\n{body}{pad}}}\n",
                    self.it(it)
                )
            }
            S::While { c, body } => format!(
                "{pad}while {} {{\n{}{pad}}}\n",
                self.cond(c, ind),
                self.stmts(body, ind + 1)
            ),
            S::Loop(body) => format!("{pad}loop {{\n{}{pad}}}\n", self.stmts(body, ind + 1)),
            S::Break => format!("{pad}break;\n"),
            S::Continue => format!("{pad}continue;\n"),
            S::Swap { name, i, j } => {
                format!(
                    "{pad}{name}.swap({}, {});\n",
                    self.int(i, 0),
                    self.int(j, 0)
                )
            }
            S::Cycle {
                name,
                k,
                e,
                t,
                keep,
            } => {
                let k = self.int(k, 0);
                let gone = if *keep { k.clone() } else { format!("{k} + 1") };
                format!(
                    "{pad}{name}.push({});\n{pad}let {t}l = {name}.len() - 1;\n\
                     {pad}{name}.swap({k}, {t}l);\n{pad}let {t} = {name}.pop().unwrap();\n\
                     {pad}{name}.insert({k}, {t});\n{pad}{name}.remove({gone});\n",
                    self.expr(e, 0, ind)
                )
            }
            S::Return(e) => format!("{pad}return {};\n", self.expr(e, 0, ind)),
            S::ReturnUnit => format!("{pad}return;\n"),
            S::CallStmt(e) => format!("{pad}{};\n", self.expr(e, 0, ind)),
            S::LetCall {
                name,
                ret,
                typed,
                call,
            } => {
                let ty = if *typed {
                    format!(": {}", self.ret_ty(*ret))
                } else {
                    String::new()
                };
                format!("{pad}let {name}{ty} = {};\n", self.expr(call, 0, ind))
            }
            S::LetTuple { names, call } => format!(
                "{pad}let ({}) = {};\n",
                names.join(", "),
                self.expr(call, 0, ind)
            ),
            S::LetTupleLit { names, typed, es } => {
                let ty = match typed {
                    true => format!(": ({})", vec![self.ty(); names.len()].join(", ")),
                    false => String::new(),
                };
                let es: Vec<String> = es.iter().map(|e| self.expr(e, 0, ind)).collect();
                format!(
                    "{pad}let ({}){ty} = ({});\n",
                    names.join(", "),
                    es.join(", ")
                )
            }
            S::IterMut { v, xs, form, body } => {
                let (pat, src) = match form {
                    IterMutForm::Plain => (v.clone(), format!("{xs}.iter_mut()")),
                    IterMutForm::Borrow => (v.clone(), format!("&mut {xs}")),
                    IterMutForm::Enumerate(i) => (
                        format!("({i}, {v})"),
                        format!("{xs}.iter_mut().enumerate()"),
                    ),
                    IterMutForm::Zip(y, ys) => {
                        (format!("({v}, {y})"), format!("{xs}.iter_mut().zip({ys})"))
                    }
                };
                format!(
                    "{pad}for {pat} in {src} {{\n{}{pad}}}\n",
                    self.stmts(body, ind + 1)
                )
            }
            S::LetStruct {
                name,
                ty,
                fields,
                mutable,
            } => format!(
                "{pad}let {}{name} = {};\n",
                if *mutable { "mut " } else { "" },
                self.struct_expr(ty, fields, ind)
            ),
            S::LetClosure { name, params, body } => {
                let ps: Vec<String> = params
                    .iter()
                    .map(|p| format!("{p}: {}", self.ty()))
                    .collect();
                format!(
                    "{pad}let {name} = |{}| {};\n",
                    ps.join(", "),
                    self.expr(body, 0, ind)
                )
            }
        }
    }

    /// The type of a parameter.
    fn param(&self, p: &Param) -> String {
        let t = self.ty();
        match p {
            Param::Scalar(n) => format!("{n}: {t}"),
            Param::Slice(n) => format!("{n}: &[{t}]"),
            Param::Array(n) => format!("{n}: [{t}; {}]", self.len),
            Param::Vec(n) => format!("{n}: Vec<{t}>"),
            Param::VecRef(n) => format!("{n}: &Vec<{t}>"),
            Param::Int(n) => format!("{n}: usize"),
            Param::MutScalar(n) => format!("{n}: &mut {t}"),
            Param::MutSlice(n) => format!("{n}: &mut [{t}]"),
            Param::MutArray(n) => format!("{n}: &mut [{t}; {}]", self.len),
            Param::MutVec(n) => format!("{n}: &mut Vec<{t}>"),
            Param::Obj(n) => format!("{n}: &M"),
        }
    }

    /// The type of a result.
    fn ret_ty(&self, r: Ret) -> String {
        let t = self.ty();
        match r {
            Ret::F => t.to_string(),
            Ret::Unit => "()".to_string(),
            Ret::Arr => format!("[{t}; {}]", self.len),
            Ret::Vec => format!("Vec<{t}>"),
            Ret::Tup => format!("({t}, {t})"),
            Ret::SelfTy => "Self".to_string(),
        }
    }

    /// The final expression of a function.
    fn tail(&self, f: &Func) -> Option<String> {
        let es: Vec<String> = f.tail.iter().map(|e| self.expr(e, 0, 1)).collect();
        match f.ret {
            Ret::F | Ret::SelfTy => Some(es[0].clone()),
            Ret::Unit => None,
            Ret::Arr => Some(format!("[{}]", es.join(", "))),
            Ret::Vec => Some(format!("vec![{}]", es.join(", "))),
            Ret::Tup => Some(format!("({})", es.join(", "))),
        }
    }

    /// The whole function, with its attribute (plain) or its generic parameter (oracle).
    pub fn func(&self, f: &Func) -> String {
        self.func_in(f, "", "pub ")
    }

    /// The function indented by `pad` (in an `impl` block), with the visibility `vis`.
    fn func_in(&self, f: &Func, pad: &str, vis: &str) -> String {
        let mut s = String::new();
        let mut params: Vec<String> = f.params.iter().map(|p| self.param(p)).collect();
        if f.receiver {
            let r = if f.mut_self { "&mut self" } else { "&self" };
            params.insert(0, r.to_string());
        }
        if self.oracle {
            // In an `impl` block the block has the float type parameter.
            let mut generics = Vec::new();
            if pad.is_empty() {
                generics.push(format!("T: Real<F = {}>", self.fty));
            }
            if let Some(tr) = &f.bound {
                generics.push(format!("M: {tr}<T>"));
            }
            let generics = if generics.is_empty() {
                String::new()
            } else {
                format!("<{}>", generics.join(", "))
            };
            let _ = writeln!(
                s,
                "{pad}{vis}fn {}{generics}({}){} {{",
                f.name,
                params.join(", "),
                self.arrow(f.ret)
            );
        } else {
            let attr = "revad::reverse";
            match &f.wrt {
                Some(w) if self.cps => {
                    let _ = writeln!(s, "{pad}#[{attr}(cps, wrt({}))]", w.join(", "));
                }
                Some(w) => {
                    let _ = writeln!(s, "{pad}#[{attr}(wrt({}))]", w.join(", "));
                }
                None if self.cps => {
                    let _ = writeln!(s, "{pad}#[{attr}(cps)]");
                }
                None => {
                    let _ = writeln!(s, "{pad}#[{attr}]");
                }
            }
            let generics = match &f.bound {
                Some(tr) => format!("<M: {tr}>"),
                None => String::new(),
            };
            let _ = writeln!(
                s,
                "{pad}{vis}fn {}{generics}({}){} {{",
                f.name,
                params.join(", "),
                self.arrow(f.ret)
            );
        }
        let body = self.stmts(&f.body, 1);
        if let Some(t) = self.tail(f) {
            let body = format!("{body}    {t}\n");
            for line in body.lines() {
                let _ = writeln!(s, "{pad}{line}");
            }
        } else {
            for line in body.lines() {
                let _ = writeln!(s, "{pad}{line}");
            }
        }
        let _ = writeln!(s, "{pad}}}");
        s
    }

    /// The user type: the struct, its inherent `impl` block, the trait, its `impl` for the
    /// struct and the generic function (plain: under `#[revad::reverse]`; oracle: generic
    /// over `T: Real`).
    pub fn user_type(&self, u: &UserType) -> String {
        let mut s = String::new();
        let t = self.ty();
        let fields: Vec<String> = u.fields.iter().map(|f| format!("pub {f}: {t}")).collect();
        let fields = fields.join(", ");
        let (ty, tr) = (&u.ty, &u.tr);
        if self.oracle {
            let real = format!("T: Real<F = {}>", self.fty);
            let _ = writeln!(s, "#[derive(Clone)]\npub struct {ty}<T> {{ {fields} }}\n");
            let _ = writeln!(s, "impl<{real}> {ty}<T> {{");
            for f in &u.inherent {
                s += &self.func_in(f, IND, "pub ");
            }
            let _ = writeln!(s, "}}\n");
            let _ = writeln!(
                s,
                "pub trait {tr}<T> {{\n    fn eval(&self, a0: T) -> T;\n}}\n"
            );
            let _ = writeln!(s, "impl<{real}> {tr}<T> for {ty}<T> {{");
            s += &self.func_in(&u.eval, IND, "");
            let _ = writeln!(s, "}}\n");
        } else {
            let _ = writeln!(
                s,
                "#[derive(Clone, revad::Adjoint)]\npub struct {ty} {{ {fields} }}\n"
            );
            let _ = writeln!(s, "#[revad::reverse]\nimpl {ty} {{");
            for f in &u.inherent {
                s += &self.func_in(f, IND, "pub ");
            }
            let _ = writeln!(s, "}}\n");
            let _ = writeln!(
                s,
                "#[revad::reverse]\npub trait {tr} {{\n    #[revad::reverse]\n    fn eval(&self, a0: {t}) -> {t};\n}}\n"
            );
            let _ = writeln!(s, "#[revad::reverse]\nimpl {tr} for {ty} {{");
            s += &self.func_in(&u.eval, IND, "");
            let _ = writeln!(s, "}}\n");
        }
        s += &self.func(&u.generic);
        s
    }

    /// ` -> R`, or nothing for `()`.
    fn arrow(&self, r: Ret) -> String {
        match r {
            Ret::Unit => String::new(),
            r => format!(" -> {}", self.ret_ty(r)),
        }
    }
}
