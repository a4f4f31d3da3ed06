//! The random generator: programs over the whole documented subset of `#[revad::reverse]`.
//!
//! Values stay bounded by construction: each float value carries a bound on its magnitude,
//! anything that could exceed [`LIMIT`] is squashed with a scaled `tanh`, and every intrinsic
//! gets an argument built to lie inside its smooth domain (`ln(0.5 + x * x)`,
//! `asin(0.8 * x.tanh())`, ...). Loops have small trip counts; on entering a loop, the
//! bound of every variable it may update grows by [`SLACK`], and updates inside the loop are
//! kept within it (small increments, factors of magnitude at most one, squashed assignments).

use crate::ast::*;

/// Values whose bound exceeds this are squashed with `tanh`.
pub const LIMIT: f64 = 8.0;
/// How much an outer variable's bound may grow over all iterations of a loop.
const SLACK: f64 = 3.0;

/// Shapes that exposed bugs in the macro, avoided until those are fixed (see
/// `fuzz-findings.md` at the repository root). Set a flag to `false` to generate the shape again.
pub mod avoid {
    /// `#[revad::checkpoint]` on range loops of the function's body (none when set).
    pub const AVOID_CHECKPOINT: bool = false;
    /// A local array passed to a `#[reverse]` callee (`h(&h0, x)`). Supported since the
    /// finding (the array is pushed whole to the value stack; an array modified after the
    /// call is copied at the call). An array created in an `if` arm and passed to a callee is
    /// a documented rejection, which the generator always avoids (it tracks where arrays are
    /// created); the flag, when set, avoids every local array as an argument.
    pub const AVOID_LOCAL_ARRAY_AS_CALL_ARG: bool = false;
    /// A `&Vec<f64>` parameter passed where the callee takes `&[f64]` (`h(r0, r0)`): the
    /// generated code does not type-check (E0308, `&&[f64]` expected, `&&Vec<f64>` found).
    pub const AVOID_VEC_REF_AS_SLICE_ARG: bool = false;
    /// An intrinsic applied directly to the result of a call that borrows an array or `Vec`
    /// parameter (`h(&a, &a).sin()`, `f64::tanh(h(&v, x))`): rejected as "`sin` has no
    /// derivative known to #[reverse]". When set, the generator writes `(0.5 * h(&a, &a)).sin()`.
    pub const AVOID_INTRINSIC_OF_CALL_RESULT: bool = false;
    /// A closure call inside an `if` condition (`if f(x) > 0.0`): rejected as "this use of a
    /// closure is not a call it can inline".
    pub const AVOID_CLOSURE_CALL_IN_CONDITION: bool = false;
    /// An arithmetic operation on two such call results (`h(&a, x) * h(&a, y)`): rejected as
    /// "cannot differentiate this expression .. declare its variables with float types". When
    /// set, the generator writes `h(&a, x) * (0.5 * h(&a, y))`.
    pub const AVOID_OP_ON_TWO_CALL_RESULTS: bool = false;
    /// `tanh` of a large argument: the rule `tanh'(x) = 1 - y * y` (from the output `y`)
    /// cancels where `tanh` saturates, and the gradient loses relative accuracy (`f32`,
    /// `x = 4`: about 1e-4). When set, `tanh` gets an argument of magnitude at most 1.6
    /// (`x.atan().tanh()`) unless it is already scaled down (`(0.1 * x).tanh()`).
    pub const AVOID_SATURATED_TANH: bool = true;
    /// An array or `Vec` result of a call bound inside an `if` arm (`if c { let r = g(x);
    /// s = r[1]; }`), or anywhere after an early `return` (the macro lowers the rest of the
    /// body into an arm): rejected as "needs the array `r` again in the reverse sweep, but it
    /// is created inside an `if` or `match` arm" (finding 6). When set, the generator binds
    /// array results only outside arms and before any early `return`.
    pub const AVOID_ARRAY_RESULT_IN_ARM: bool = false;
    /// A local array passed to a callee after an early `return` (not in any arm the user
    /// wrote): the same rejection (finding 6). When set, local arrays created after an early
    /// `return` count as created in an arm (not passed to callees).
    pub const AVOID_ARRAY_AFTER_EARLY_RETURN: bool = false;
    /// A writable array (a local array or a `&mut` parameter) passed to a callee inside an
    /// `if` arm and modified after the call: the copy the macro makes at the call is created
    /// in the arm and rejected as "needs the array `__s_2_old10` again in the reverse sweep,
    /// but it is created inside an `if` or `match` arm" (finding 7; an internal name, at the
    /// declaration). When set, no writable array is passed to a callee inside an arm (or after
    /// an early `return`).
    pub const AVOID_MODIFIED_ARRAY_ARG_IN_ARM: bool = false;
    /// `*o` of a `&mut f64` (a parameter, an `iter_mut()` element) as the whole argument of a
    /// call (`sq(*o)`): the generated code passes `&f64` (E0308 "expected `f64`, found
    /// `&f64`" at the callee's name; finding 8). When set, the generator writes `1.0 * *o`.
    pub const AVOID_DEREF_MUT_AS_CALL_ARG: bool = false;
    /// A `let mut m = g(..);` (or `= f64::tanh(g(..))`) passed by `&mut m` to a callee: the
    /// macro takes `m` for an array result, and its code does not compile (E0608 "cannot
    /// index into a value of type `f64`", E0277 "`f64: Restore` is not satisfied" on the
    /// attribute; finding 9). When set, variables initialised from an expression with a call
    /// of a helper are not passed by `&mut`.
    pub const AVOID_MUT_ARG_FROM_CALL_RESULT: bool = false;
    /// `&*a` of a `&mut [f64; N]` parameter passed to a callee inside an `if` condition
    /// (`if dot(&*a, &*a) < x`): E0614 "type `[f64; 2]` cannot be dereferenced" in the
    /// generated code (finding 10). When set, such arguments are not generated in conditions.
    pub const AVOID_DEREF_MUT_ARRAY_IN_CONDITION: bool = false;
    /// An intrinsic at a pole of its partial behind a `max` or `min` that does not take it
    /// (`(0.5 + x * x).max((t - t).sqrt())`): the macro's zero adjoint through the infinite
    /// partial gives zero (`rules::times_partial`), and so does the oracle (its `lift` skips
    /// zero partials). When set, the generator writes no such shape.
    pub const AVOID_ZERO_ADJOINT_AT_POLE: bool = false;
    /// A helper called in the closure of an iterator chain (`(0..n).map(|i| xs[i] * h(x))
    /// .sum::<f64>()`), with calls of the same helper before and after it taking other
    /// branches of an `if` in the helper: `_grad` panics, "the value stack has no f64 left to
    /// pop; this is a bug in #[reverse]" (finding 16, fixed: a popped bit stayed set in the value stack). When set, chain closures (but the
    /// `.map(|&p| h(..)).collect()` shape) call no helper.
    pub const AVOID_HELPER_CALL_IN_CHAIN: bool = false;
    /// Field writes of a `let mut obj` in the main function (`obj.fa = ..`, `obj.fa += ..`,
    /// `obj.fa *= ..`). When set, none are generated.
    pub const AVOID_OBJ_FIELD_WRITE: bool = false;
    /// `obj.bump(..)` of a `&mut self` method. When set, none is generated.
    pub const AVOID_OBJ_MUT_METHOD: bool = false;
    /// `obj = obj.next(..)` of a `&self` method returning `Self`. When set, none is generated.
    pub const AVOID_OBJ_NEXT: bool = false;
    /// `obj = Ty { .. }`. When set, none is generated.
    pub const AVOID_OBJ_STRUCT_ASSIGN: bool = false;
    /// A call that reads a `let mut` struct (`obj.m(..)`, `q_k_g(&obj, ..)`, `obj.bump(..)`, or
    /// a field as the whole argument, `h(obj.fb)`) inside an `if` arm or after an early
    /// `return`, the struct written at or after the call: E0277 "the trait bound `Q5S:
    /// Default` is not satisfied" at the attribute (finding 17). When set, a main function
    /// that writes its instance makes no such call there (it reads the fields instead, and
    /// passes `1.0 * obj.fb`).
    pub const AVOID_OBJ_CALL_IN_ARM: bool = false;
    /// Assigning a whole struct, `obj = obj.next(..)` or `obj = Ty { .. }`: rejected, "assigning
    /// a whole struct is not supported by #[reverse]; assign its fields (`q.pos[0] = ..;`), or
    /// bind the new value to a new name (`let q2 = ..;`)" (finding 18). When set, the generator
    /// binds the new value to the same name instead, `let mut obj = obj.next(..);`.
    pub const AVOID_OBJ_WHOLE_ASSIGN: bool = false;
    /// A struct result of a method call bound by `let` (`let q = obj.next(x);`, typed or not,
    /// and `obj.next(x).fa`): rejected, "must keep `q` (a struct or nested container) for the
    /// reverse sweep .. but cannot name its type; build it from a struct expression or a call"
    /// (finding 19; a free function's struct result compiles). With
    /// [`AVOID_OBJ_WHOLE_ASSIGN`] too, `next` is defined but not called.
    pub const AVOID_OBJ_METHOD_STRUCT_RESULT: bool = false;
    /// A struct bound by `let` after an early `return` (or inside an `if` arm): E0277 "the trait
    /// bound `Q5S: Default` is not satisfied" at the attribute (finding 17, like
    /// [`AVOID_OBJ_CALL_IN_ARM`]). When set, `let mut obj = Ty { .. }` (see
    /// [`AVOID_OBJ_WHOLE_ASSIGN`]) is generated only outside arms, before any early `return`.
    pub const AVOID_STRUCT_LET_IN_ARM: bool = false;
    /// A field of a `let mut` receiver as the whole argument of its method, `obj.bump(obj.fa)`
    /// (`&mut self`) or `obj.eval(obj.fb)` (a `&self` trait method): E0502 "cannot borrow
    /// value as immutable because it is also borrowed as mutable" in the generated code
    /// (finding 20; `obj.bump(obj.fa * 2.0)` compiles). When set, the generator writes
    /// `1.0 * obj.fa` for a field of a written instance as the whole argument of any call.
    pub const AVOID_RECEIVER_FIELD_ARG: bool = false;
}

/// Whether `e` is a call whose result type the macro loses: a call with an argument that
/// borrows an array or `Vec` parameter (`h(&a, x)`), possibly negated.
fn is_call(e: &E) -> bool {
    match e {
        E::Call(_, args) => args
            .iter()
            .any(|a| matches!(a, A::Slice(s) if s.starts_with('&'))),
        E::Neg(a) => is_call(a),
        _ => false,
    }
}
use avoid::*;

#[path = "../../common/splitmix.rs"]
mod splitmix;
pub use splitmix::Rng;

fn v(name: &str) -> E {
    E::Var(name.to_string())
}
fn lit(x: f64) -> E {
    E::Lit(x)
}
fn bin(op: &'static str, a: E, b: E) -> E {
    let b = if AVOID_OP_ON_TWO_CALL_RESULTS && is_call(&a) && is_call(&b) {
        E::Bin("*", Box::new(E::Lit(0.5)), Box::new(b))
    } else {
        b
    };
    E::Bin(op, Box::new(a), Box::new(b))
}
fn ilit(x: usize) -> I {
    I::Lit(x)
}

/// Whether `e` reads a typed value (a method called on it has a known receiver type).
fn typed(e: &E) -> bool {
    match e {
        E::Lit(_) => false,
        E::Neg(a) => typed(a),
        E::Bin(_, a, b) => typed(a) || typed(b),
        E::Intr(_, args, _) => args.iter().any(typed),
        E::Powi(a, _, _) => typed(a),
        E::Stop(a) => typed(a),
        E::If(_, a, b) => typed(a) || typed(b),
        E::Block(_, t) => typed(t),
        E::Index2(_, _, _, t) => *t,
        _ => true,
    }
}

/// A float variable in scope.
#[derive(Clone, Debug, Default)]
struct FV {
    name: String,
    bound: f64,
    mutable: bool,
    /// The loop depth at which it was declared.
    depth: usize,
    /// A `&f64` loop variable, read as `*x`.
    deref: bool,
    unread: bool,
    /// Written through `*x` (a `&mut f64` parameter, an `iter_mut()` element).
    mutref: bool,
    /// How to pass it to a `&mut f64` parameter (`&mut m3`, `&mut *om0`), if it may be.
    mutarg: Option<String>,
    /// Initialised from an expression that calls a helper (see
    /// [`AVOID_MUT_ARG_FROM_CALL_RESULT`]).
    from_call: bool,
}

/// An array in scope.
#[derive(Clone, Debug, Default)]
struct AV {
    name: String,
    bound: f64,
    /// A local `[0.0; N]` or `vec![0.0; n]`, which may be written.
    local: bool,
    depth: usize,
    /// How to pass it where a `&[f64]` is expected (`xs`, `&h`).
    slice: String,
    /// Whether its name is a reference (`for &x in xs` works directly).
    is_ref: bool,
    /// A `&Vec<f64>` parameter.
    vecref: bool,
    /// A local `vec![0.0; n]`, which may grow and shrink.
    growable: bool,
    /// A `&mut` parameter (iterated with `.iter()` only).
    mutparam: bool,
    /// How to pass it to a `&mut [f64]` parameter (`&mut h0`, `sm0`), if it may be.
    mutarg: Option<String>,
    /// Created inside an `if` arm (passing it to a callee is a documented rejection).
    in_arm: bool,
    /// A `&mut [f64; N]` parameter.
    mut_array: bool,
    /// A 2-D array whose element type is known (see [`E::Index2`]).
    typed: bool,
}

/// An integer variable in scope with its range.
#[derive(Clone, Debug)]
struct IV {
    name: String,
    lo: usize,
    hi: usize,
}

/// The kinds of parameters a helper takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HK {
    /// `f64`.
    S,
    /// `&[f64]`.
    Sl,
    /// `&mut f64`.
    MutS,
    /// `&mut [f64]`.
    MutSl,
    /// A reference to the program's user-type instance ([`OBJ`]): `&obj`.
    Ref,
}

/// The name of the instance of the program's user type in its main function.
pub const OBJ: &str = "obj";

/// The bound on the fields of the user type that its methods assume.
const FIELD: f64 = 2.0;
/// The bound of a value assigned to a field of a `let mut obj` (by `obj.fa = ..`, `obj.bump(..)`,
/// `obj = obj.next(..)`, `obj = Ty { .. }`): below [`FIELD`], so that `+=` / `-=` writes have
/// room to grow it.
const ASSIGNED: f64 = 1.0;

/// The program's user-type instance [`OBJ`] in its main function (see [`Opts::obj`]).
#[derive(Clone, Debug)]
pub struct Obj {
    /// The struct's name.
    pub ty: String,
    /// Its field names.
    pub fields: Vec<String>,
    /// `Some(k)`: the main function binds `let mut obj` and writes it after reading it (fields,
    /// `obj.bump(..)` with `k` arguments, `obj = obj.next(..)`, `obj = Ty { .. }`).
    pub bump: Option<usize>,
}

/// The writes of a `let mut obj` (see [`Obj::bump`]).
#[derive(Clone, Debug)]
struct ObjW {
    ty: String,
    fields: Vec<String>,
    /// For each field, a bound on what its `+=` / `-=` writes add over all their executions:
    /// the field stays within `ASSIGNED + inc` (at most [`FIELD`]), since every other write
    /// assigns a value within [`ASSIGNED`] or multiplies by a factor within 1.
    inc: Vec<f64>,
    /// The arity of `bump`.
    bump: usize,
    /// The writes generated so far.
    writes: usize,
}

/// A generated helper function that `main` may call.
#[derive(Clone, Debug)]
pub struct Helper {
    /// Its name.
    pub name: String,
    /// Its parameter kinds.
    pub kinds: Vec<HK>,
    /// A bound on its value.
    pub bound: f64,
    /// What it returns.
    pub ret: Ret,
    /// The parameters its `#[revad::reverse(wrt(..))]` leaves out (callers pass constants).
    pub inactive: Vec<usize>,
}

impl Helper {
    /// Called as an expression: a float result and no `&mut` parameter.
    fn in_expr(&self) -> bool {
        self.ret == Ret::F && !self.kinds.iter().any(|k| matches!(k, HK::MutS | HK::MutSl))
    }
}

/// The bound of every `&mut` parameter of a helper on return (the helper squashes them).
pub const OUT_BOUND: f64 = 2.0;

/// Options for one function.
pub struct Opts {
    /// The array length of the program.
    pub len: usize,
    /// Statements to generate (about).
    pub stmts: usize,
    /// The helpers this function may call.
    pub helpers: Vec<Helper>,
    /// The bound of the `&mut` parameters on entry.
    pub mut_bound: f64,
    /// What the function returns.
    pub ret: Ret,
    /// Squash the `&mut` parameters to [`OUT_BOUND`] before returning (a helper).
    pub squash_out: bool,
    /// May wrap expressions in `revad::stop_gradient` (not in the library's programs, whose
    /// gradients other crates' tests check against finite differences of the primal).
    pub stop_gradient: bool,
    /// Fields read as float values (`self.fa` in a method).
    pub fields: Vec<String>,
    /// The function starts with `let obj = Ty { f: .., .. };` (see [`OBJ`]), fields initialised
    /// from its parameters (`let mut obj`, written, with [`Obj::bump`]).
    pub obj: Option<Obj>,
}

/// The generator state for one function.
pub struct G<'r> {
    rng: &'r mut Rng,
    len: usize,
    fv: Vec<FV>,
    av: Vec<AV>,
    iv: Vec<IV>,
    /// 2-D arrays in scope: local `[[0.0; N]; N]` (`local`, written) and constant tables.
    a2: Vec<AV>,
    /// `let k = [..];` constant arrays for callees' inactive parameters, declared at the
    /// start of the function.
    consts: Vec<S>,
    /// Closures bound by `let`: name and arity.
    clos: Vec<(String, usize, f64)>,
    helpers: Vec<Helper>,
    next: usize,
    loop_depth: usize,
    mult: usize,
    /// Inside a loop body (and not inside a closure): `break`/`continue` allowed.
    breakable: bool,
    budget: usize,
    /// An `if` (or a loop) may still be nested here.
    nest: usize,
    /// Generating a condition (see [`AVOID_CLOSURE_CALL_IN_CONDITION`]).
    in_cond: bool,
    /// Arrays that a loop iterates over, which its body must not write.
    frozen: Vec<String>,
    /// What the function returns.
    ret: Ret,
    /// No early `return` (a helper that squashes its `&mut` parameters at the end).
    no_return: bool,
    /// The depth of `if` arms around the current statement.
    arm: usize,
    /// An early `return` has been generated (see [`AVOID_ARRAY_AFTER_EARLY_RETURN`]).
    returned: bool,
    /// See [`Opts::stop_gradient`].
    stop_gradient: bool,
    /// Generating the body of an iterator chain's closure (see
    /// [`AVOID_HELPER_CALL_IN_CHAIN`]).
    in_chain: bool,
    /// The writes of a `let mut obj` (see [`Obj::bump`]).
    objw: Option<ObjW>,
    /// The struct this function writes: [`OBJ`] (with `objw`), or `self` in `bump` (see
    /// [`AVOID_OBJ_CALL_IN_ARM`]).
    written: Option<&'static str>,
}

impl<'r> G<'r> {
    /// A generator for a function with the given parameters.
    pub fn new(rng: &'r mut Rng, params: &[Param], opts: Opts) -> Self {
        let mut g = G {
            rng,
            len: opts.len,
            fv: Vec::new(),
            av: Vec::new(),
            a2: Vec::new(),
            consts: Vec::new(),
            iv: Vec::new(),
            clos: Vec::new(),
            helpers: opts.helpers,
            next: 0,
            loop_depth: 0,
            mult: 1,
            breakable: false,
            budget: opts.stmts,
            nest: 2,
            in_cond: false,
            frozen: Vec::new(),
            ret: opts.ret,
            no_return: opts.squash_out,
            arm: 0,
            returned: false,
            stop_gradient: opts.stop_gradient,
            in_chain: false,
            objw: None,
            written: None,
        };
        for p in params {
            let name = p.name().to_string();
            let arr = |slice: String, is_ref: bool| AV {
                name: name.clone(),
                bound: 2.0,
                local: false,
                depth: 0,
                slice,
                is_ref,
                vecref: matches!(p, Param::VecRef(_)),
                growable: false,
                ..Default::default()
            };
            match p {
                Param::Scalar(_) => g.fv.push(FV {
                    name: name.clone(),
                    bound: 2.0,
                    mutable: false,
                    depth: 0,
                    deref: false,
                    unread: true,
                    ..Default::default()
                }),
                Param::Slice(_) | Param::VecRef(_) => g.av.push(arr(name.clone(), true)),
                Param::Array(_) | Param::Vec(_) => g.av.push(arr(format!("&{name}"), false)),
                Param::Int(_) => g.iv.push(IV {
                    name: name.clone(),
                    lo: opts.len,
                    hi: opts.len,
                }),
                Param::MutScalar(_) => g.fv.push(FV {
                    name: name.clone(),
                    bound: opts.mut_bound,
                    mutable: true,
                    depth: 0,
                    deref: true,
                    unread: true,
                    mutref: true,
                    mutarg: Some(format!("&mut *{name}")),
                    from_call: false,
                }),
                Param::MutSlice(_) | Param::MutArray(_) | Param::MutVec(_) => g.av.push(AV {
                    name: name.clone(),
                    bound: opts.mut_bound,
                    local: true,
                    depth: 0,
                    slice: format!("&*{name}"),
                    is_ref: false,
                    vecref: false,
                    growable: false,
                    mutparam: true,
                    mutarg: Some(name.clone()),
                    in_arm: false,
                    mut_array: matches!(p, Param::MutArray(_)),
                    typed: false,
                }),
                // Only passed on to the trait's methods (`m.eval(..)` as a helper).
                Param::Obj(_) => {}
            }
        }
        for f in &opts.fields {
            g.fv.push(FV {
                name: f.clone(),
                bound: FIELD,
                unread: true,
                ..Default::default()
            });
        }
        g
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next - 1)
    }

    // ---- expressions ---------------------------------------------------------------------

    /// A variable read: recent and unread ones are favoured.
    fn pick_fv(&mut self) -> (E, f64) {
        let n = self.fv.len();
        if n == 0 {
            // Only arrays in scope (a helper of slices).
            let a = self.av[self.rng.below(self.av.len())].clone();
            let i = self.index();
            return (E::Index(a.name, i), a.bound);
        }
        let idx = match self.rng.below(10) {
            0..=4 => n - 1 - self.rng.below(n.min(3)),
            5..=6 => {
                let unread: Vec<usize> = (0..n).filter(|&i| self.fv[i].unread).collect();
                if unread.is_empty() {
                    self.rng.below(n)
                } else {
                    self.rng.pick(&unread)
                }
            }
            _ => self.rng.below(n),
        };
        let name = self.fv[idx].name.clone();
        // The newest binding of that name.
        let var = self.fv.iter_mut().rev().find(|f| f.name == name).unwrap();
        var.unread = false;
        if var.deref {
            (E::Deref(name), var.bound)
        } else {
            (E::Var(name), var.bound)
        }
    }

    /// An index expression valid for every array of the program.
    fn index(&mut self) -> I {
        let l = self.len;
        let fits: Vec<IV> = self.iv.iter().filter(|i| i.hi < l).cloned().collect();
        let any: Vec<IV> = self.iv.clone();
        match self.rng.below(6) {
            0..=2 if !fits.is_empty() => {
                let i = fits[self.rng.below(fits.len())].clone();
                match self.rng.below(4) {
                    0 | 1 => I::Var(i.name),
                    2 => I::Bin("-", Box::new(ilit(l - 1)), Box::new(I::Var(i.name))),
                    _ => I::Bin(
                        "%",
                        Box::new(I::Bin(
                            "+",
                            Box::new(I::Var(i.name)),
                            Box::new(ilit(self.rng.range(1, l))),
                        )),
                        Box::new(ilit(l)),
                    ),
                }
            }
            3 if !any.is_empty() => {
                let i = any[self.rng.below(any.len())].clone();
                I::Bin("%", Box::new(I::Var(i.name)), Box::new(ilit(l)))
            }
            _ => ilit(self.rng.below(l)),
        }
    }

    fn leaf(&mut self) -> (E, f64) {
        match self.rng.below(12) {
            0..=6 => self.pick_fv(),
            7 => {
                let x = self
                    .rng
                    .pick(&[0.25, 0.5, 0.75, 1.5, 2.0, 2.5, 3.0, 0.3, 0.1, 1.25]);
                if self.rng.chance(0.2) {
                    (E::Neg(Box::new(lit(x))), x)
                } else {
                    (lit(x), x)
                }
            }
            8..=10 if !self.a2.is_empty() && (self.av.is_empty() || self.rng.chance(0.3)) => {
                let a = self.a2[self.rng.below(self.a2.len())].clone();
                let (i, j) = (self.index(), self.index());
                // A local `[[0.0; N]; N]` is typed; a table only when written with its type.
                (E::Index2(a.name, i, j, a.typed), a.bound)
            }
            8..=10 if !self.av.is_empty() => {
                let a = self.av[self.rng.below(self.av.len())].clone();
                let i = self.index();
                (E::Index(a.name, i), a.bound)
            }
            11 if !self.iv.is_empty() => {
                let i = self.iv[self.rng.below(self.iv.len())].clone();
                (E::Cast(I::Var(i.name)), i.hi as f64)
            }
            _ => self.pick_fv(),
        }
    }

    /// An intrinsic call, as a method or (one time in four, or always when the receiver's
    /// type is not known) as `f64::name(..)`.
    fn call(&mut self, name: &'static str, args: Vec<E>) -> E {
        let args: Vec<E> = args
            .into_iter()
            .map(|a| {
                if AVOID_INTRINSIC_OF_CALL_RESULT && is_call(&a) {
                    bin("*", lit(0.5), a)
                } else {
                    a
                }
            })
            .collect();
        let scaled = matches!(&args[0], E::Bin("*", c, _) if matches!(**c, E::Lit(c) if c < 0.75));
        let args = if AVOID_SATURATED_TANH && name == "tanh" && !scaled {
            vec![self.call("atan", args)]
        } else {
            args
        };
        let path = self.rng.chance(0.25) || !typed(&args[0]);
        E::Intr(name, args, path)
    }

    /// An expression of nesting depth at most `depth` and a bound of its magnitude.
    pub fn expr(&mut self, depth: usize) -> (E, f64) {
        if depth == 0 || self.rng.chance(0.2) {
            return self.leaf();
        }
        let helpers = usize::from(self.helpers.iter().any(Helper::in_expr));
        let clos =
            usize::from(!(self.clos.is_empty() || AVOID_CLOSURE_CALL_IN_CONDITION && self.in_cond));
        let k = self
            .rng
            .weighted(&[4, 3, 2, 1, 6, 3, 2, 2 * helpers, 2 * clos]);
        let (e, b) = match k {
            0 => {
                let (l, bl) = self.expr(depth - 1);
                let (r, br) = self.expr(depth - 1);
                let op = if self.rng.chance(0.5) { "+" } else { "-" };
                (bin(op, l, r), bl + br)
            }
            1 => {
                let (l, bl) = self.expr(depth - 1);
                let (r, br) = self.expr(depth - 1);
                (bin("*", l, r), bl * br)
            }
            2 => {
                let (l, bl) = self.expr(depth - 1);
                let (d, lo, _) = self.positive(depth - 1, 0.5);
                let d = if self.rng.chance(0.3) {
                    E::Neg(Box::new(d))
                } else {
                    d
                };
                (bin("/", l, d), bl / lo)
            }
            3 => {
                let (a, b) = self.expr(depth - 1);
                match a {
                    E::Neg(inner) => (*inner, b),
                    a => (E::Neg(Box::new(a)), b),
                }
            }
            4 => self.unary(depth - 1),
            5 => self.binary(depth - 1),
            6 => self.kink(depth - 1),
            7 => self.helper_call(),
            _ => {
                let (name, arity, bound) = self.clos[self.rng.below(self.clos.len())].clone();
                let args = (0..arity)
                    .map(|_| {
                        let (e, b) = self.expr(depth - 1);
                        self.squash(e, b, 2.0).0
                    })
                    .collect();
                (E::CallClosure(name, args), bound)
            }
        };
        // Now and then a value through which no derivative flows.
        let e = if self.stop_gradient && self.rng.chance(0.03) {
            E::Stop(Box::new(e))
        } else {
            e
        };
        self.limit(e, b)
    }

    /// A call of a helper: scalar arguments are expressions (sometimes the same variable
    /// twice), slice arguments are arrays in scope (sometimes the same one twice).
    fn helper_call(&mut self) -> (E, f64) {
        let hs: Vec<Helper> = self
            .helpers
            .iter()
            .filter(|h| h.in_expr())
            .filter(|h| self.may_call(h))
            .cloned()
            .collect();
        if hs.is_empty() || AVOID_HELPER_CALL_IN_CHAIN && self.in_chain {
            return self.leaf();
        }
        let h = hs[self.rng.below(hs.len())].clone();
        let arm = self.arm > 0 || self.returned;
        let in_cond = self.in_cond;
        let slices: Vec<String> = self
            .av
            .iter()
            .filter(|a| !(AVOID_DEREF_MUT_ARRAY_IN_CONDITION && a.mut_array && in_cond))
            .filter(|a| !(AVOID_LOCAL_ARRAY_AS_CALL_ARG && a.local && !a.mutparam))
            .filter(|a| !(a.local && a.in_arm))
            .filter(|a| !(AVOID_MODIFIED_ARRAY_ARG_IN_ARM && a.mutarg.is_some() && arm))
            .filter(|a| !(AVOID_VEC_REF_AS_SLICE_ARG && a.vecref))
            .map(|a| a.slice.clone())
            .collect();
        if slices.is_empty() && h.kinds.contains(&HK::Sl) {
            return self.leaf();
        }
        let twice = self.rng.chance(0.35);
        let mut args: Vec<A> = Vec::new();
        let mut first_s: Option<E> = None;
        let mut first_sl: Option<String> = None;
        for (n, k) in h.kinds.iter().enumerate() {
            if h.inactive.contains(&n) {
                args.push(self.constant_arg(*k));
                continue;
            }
            match k {
                HK::S => {
                    let e = match (&first_s, twice) {
                        (Some(e), true) => e.clone(),
                        _ => {
                            let (e, b) = self.expr(1);
                            let e = self.squash(e, b, 2.0).0;
                            self.scalar_arg(e)
                        }
                    };
                    first_s.get_or_insert(e.clone());
                    args.push(A::F(e));
                }
                HK::Sl => {
                    let s = match (&first_sl, twice) {
                        (Some(s), true) => s.clone(),
                        _ => slices[self.rng.below(slices.len())].clone(),
                    };
                    first_sl.get_or_insert(s.clone());
                    args.push(A::Slice(s));
                }
                HK::Ref => args.push(A::Slice(format!("&{OBJ}"))),
                HK::MutS | HK::MutSl => unreachable!("not called in an expression"),
            }
        }
        (E::Call(h.name, args), h.bound)
    }

    /// Squashes `e` with `tanh` if its bound exceeds [`LIMIT`].
    fn limit(&mut self, e: E, b: f64) -> (E, f64) {
        if b > LIMIT {
            (self.scaled_tanh(e, b), 1.0)
        } else {
            (e, b)
        }
    }

    /// `tanh(c * e)` with `c` about `1.5 / b`, so that the argument stays moderate.
    fn scaled_tanh(&mut self, e: E, b: f64) -> E {
        let c = 1.5 / b;
        if c >= 0.75 {
            return self.call("tanh", vec![e]);
        }
        let mag = 10f64.powf(c.log10().floor() - 1.0);
        let c = (c / mag).round() * mag;
        let digits = (-mag.log10()).round().max(0.0) as usize;
        let c: f64 = format!("{c:.digits$}").parse().unwrap();
        let arg = bin("*", lit(c), e);
        self.call("tanh", vec![arg])
    }

    /// `e` with a bound of at most `l`.
    fn squash(&mut self, e: E, b: f64, l: f64) -> (E, f64) {
        if b <= l {
            (e, b)
        } else if b <= 1.0 {
            (bin("*", lit(l), e), l * b)
        } else if l >= 1.0 {
            (self.scaled_tanh(e, b), 1.0)
        } else {
            let t = self.scaled_tanh(e, b);
            (bin("*", lit(l), t), l)
        }
    }

    /// An expression with a typed receiver.
    fn arg(&mut self, depth: usize) -> (E, f64) {
        let (e, b) = self.expr(depth);
        if typed(&e) {
            (e, b)
        } else {
            self.pick_fv()
        }
    }

    /// An expression bounded below by `min_lo > 0`: `(e, lower, upper)`.
    fn positive(&mut self, depth: usize, min_lo: f64) -> (E, f64, f64) {
        let (x, b) = self.arg(depth);
        match self.rng.below(6) {
            0..=2 => {
                let (x, b) = self.squash(x, b, 3.0);
                let c = self.rng.pick(&[0.5_f64, 1.0, 1.5, 2.0]).max(min_lo);
                let sq = if matches!(x, E::Var(_)) && self.rng.chance(0.6) {
                    bin("*", x.clone(), x)
                } else {
                    let path = self.rng.chance(0.2);
                    E::Powi(Box::new(x), 2, path)
                };
                (bin("+", lit(c), sq), c, c + b * b)
            }
            3 => {
                let c = self.rng.pick(&[1.5_f64, 2.0]).max(min_lo + 1.0);
                let f = self.rng.pick(&["tanh", "sin", "cos"]);
                let s = self.call(f, vec![x]);
                (bin("+", lit(c), s), c - 1.0, c + 1.0)
            }
            4 => {
                let (x, b) = self.squash(x, b, 1.0);
                let e = (-b).exp();
                let ex = self.call("exp", vec![x]);
                if e < min_lo {
                    let c = 1.5_f64.max(min_lo);
                    (bin("+", lit(c), ex), c, c + b.exp())
                } else {
                    (ex, e, b.exp())
                }
            }
            _ => {
                let (x, b) = self.squash(x, b, 1.5);
                let cosh = self.call("cosh", vec![x]);
                if min_lo <= 1.0 {
                    (cosh, 1.0, b.cosh())
                } else {
                    let c = self.rng.pick(&[0.5_f64, 1.0]).max(min_lo - 1.0);
                    (bin("+", lit(c), cosh), 1.0 + c, c + b.cosh())
                }
            }
        }
    }

    fn unary(&mut self, depth: usize) -> (E, f64) {
        let (a, b) = self.arg(depth);
        let name = self.rng.pick(&[
            "sin",
            "cos",
            "tanh",
            "atan",
            "exp",
            "exp2",
            "exp_m1",
            "sinh",
            "cosh",
            "tan",
            "asin",
            "acos",
            "atanh",
            "asinh",
            "ln",
            "log2",
            "log10",
            "sqrt",
            "cbrt",
            "recip",
            "acosh",
            "ln_1p",
            "powi",
            "powi",
            "to_radians",
            "to_degrees",
        ]);
        match name {
            "sin" | "cos" | "tanh" => (self.call(name, vec![a]), 1.0),
            "to_radians" => (self.call(name, vec![a]), b * 0.018),
            "to_degrees" => {
                let (a, b) = self.squash(a, b, 1.5);
                (self.call(name, vec![a]), b * 57.3)
            }
            "atan" => (self.call(name, vec![a]), 1.6),
            "asinh" => (self.call(name, vec![a]), (b + (1.0 + b * b).sqrt()).ln()),
            "exp" | "exp2" | "exp_m1" | "sinh" | "cosh" => {
                let (a, b) = self.squash(a, b, 1.5);
                (self.call(name, vec![a]), b.exp() + 1.0)
            }
            "tan" | "asin" | "acos" | "atanh" => {
                let (a, _) = self.squash(a, b, 0.75);
                (self.call(name, vec![a]), 3.2)
            }
            "ln" | "log2" | "log10" | "sqrt" | "cbrt" | "recip" | "ln_1p" => {
                let (p, lo, hi) = self.positive(depth, 0.5);
                let bound = match name {
                    "sqrt" | "cbrt" => hi.sqrt().max(1.0),
                    "recip" => 1.0 / lo,
                    _ => hi.ln().abs().max(lo.ln().abs()) * 3.5 + 1.0,
                };
                if matches!(name, "cbrt" | "recip") && self.rng.chance(0.3) {
                    // A negative argument.
                    let n = E::Neg(Box::new(p));
                    return (self.call(name, vec![n]), bound);
                }
                (self.call(name, vec![p]), bound)
            }
            "acosh" => {
                let (p, _, hi) = self.positive(depth, 1.25);
                (self.call(name, vec![p]), hi.acosh())
            }
            _ => {
                let path = self.rng.chance(0.25);
                if self.rng.chance(0.3) {
                    let (p, lo, _) = self.positive(depth, 0.5);
                    let n = self.rng.pick(&[-1, -2, -3]);
                    (E::Powi(Box::new(p), n, path), lo.powi(n))
                } else {
                    let n = self.rng.pick(&[0, 1, 2, 3, 4, 5]);
                    let (a, b) = self.squash(a, b, 1.5);
                    (E::Powi(Box::new(a), n, path), b.powi(n).max(1.0))
                }
            }
        }
    }

    fn binary(&mut self, depth: usize) -> (E, f64) {
        match self.rng.below(6) {
            0 | 1 => {
                let (a, ba) = self.arg(depth);
                let (b, bb) = self.expr(depth);
                let (c, bc) = self.expr(depth);
                (self.call("mul_add", vec![a, b, c]), ba * bb + bc)
            }
            2 => {
                let (y, _) = self.arg(depth);
                let (x, _, _) = self.positive(depth, 0.5);
                (self.call("atan2", vec![y, x]), 1.6)
            }
            3 => {
                let (x, bx) = self.arg(depth);
                let (y, _, hi) = self.positive(depth, 0.5);
                if self.rng.chance(0.5) {
                    (self.call("hypot", vec![x, y]), bx + hi)
                } else {
                    (self.call("hypot", vec![y, x]), bx + hi)
                }
            }
            4 => {
                let (base, lo, hi) = self.positive(depth, 0.5);
                let (p, bp) = if self.rng.chance(0.3) {
                    let x = self.rng.pick(&[0.5, 1.5, 2.5]);
                    (lit(x), x)
                } else {
                    let (p, bp) = self.arg(depth);
                    self.squash(p, bp, 1.5)
                };
                (
                    self.call("powf", vec![base, p]),
                    hi.max(1.0 / lo).powf(bp).max(1.0),
                )
            }
            _ => {
                let (x, lo, hi) = self.positive(depth, 0.5);
                let base = if self.rng.chance(0.5) {
                    lit(self.rng.pick(&[2.0, 3.0, 10.0]))
                } else {
                    self.positive(depth, 1.5).0
                };
                let b = (hi.ln().abs().max(lo.ln().abs()) / 0.4).max(1.0);
                (self.call("log", vec![x, base]), b)
            }
        }
    }

    /// A piecewise-smooth operation (the oracle follows the same branch; at exact ties it
    /// uses the rule table's conventions).
    fn kink(&mut self, depth: usize) -> (E, f64) {
        if !AVOID_ZERO_ADJOINT_AT_POLE && self.rng.chance(0.12) {
            return self.behind_kink(depth);
        }
        match self.rng.below(8) {
            0..=2 => {
                let (a, ba) = self.arg(depth);
                let (b, bb) = self.expr(depth);
                let name = self.rng.pick(&["max", "min", "clamp"]);
                if name == "clamp" {
                    // Bounds `lo <= hi` always: `b - p <= b + p` for `p > 0`, or a constant
                    // `lo < 0 < hi = p`. The value lies between them.
                    let (p, _, hi) = self.positive(depth, 0.5);
                    return if self.rng.chance(0.5) {
                        let lo = bin("-", b.clone(), p.clone());
                        let up = bin("+", b, p);
                        (self.call(name, vec![a, lo, up]), bb + hi)
                    } else {
                        let c = self.rng.pick(&[0.5_f64, 1.0]);
                        (self.call(name, vec![a, lit(-c), p]), c.max(hi))
                    };
                }
                (self.call(name, vec![a, b]), ba.max(bb))
            }
            3 => {
                let (a, b) = self.arg(depth);
                (self.call("abs", vec![a]), b)
            }
            4 => {
                let (a, _) = self.arg(depth);
                let (w, bw) = self.expr(depth);
                if self.rng.chance(0.3) {
                    // `|w|` with the sign of `a`.
                    return (self.call("copysign", vec![w, a]), bw);
                }
                let s = self.call("signum", vec![a]);
                (bin("*", s, w), bw)
            }
            5 | 6 => {
                let (a, b) = self.arg(depth);
                let name = self.rng.pick(&["floor", "ceil", "round", "trunc", "fract"]);
                let step = self.call(name, vec![a.clone()]);
                let (w, bw) = self.expr(depth);
                let (a2, b2) = self.squash(a, b, LIMIT);
                (bin("+", bin("*", step, w), a2), (b + 1.0) * bw + b2)
            }
            _ => {
                let (a, b) = self.arg(depth);
                // `%`, or `rem_euclid` (within the divisor, whatever the dividend).
                let euclid = self.rng.chance(0.3);
                if self.rng.chance(0.5) {
                    let m = self.rng.pick(&[0.75, 1.5, 2.0]);
                    if euclid {
                        return (self.call("rem_euclid", vec![a, lit(m)]), m);
                    }
                    (bin("%", a, lit(m)), m.min(b))
                } else {
                    let (d, _, hi) = self.positive(depth, 0.5);
                    if euclid {
                        return (self.call("rem_euclid", vec![a, d]), hi);
                    }
                    (bin("%", a, d), hi.min(b))
                }
            }
        }
    }

    /// An intrinsic at a pole of its partial, behind a `max` or `min` that never takes it:
    /// `(0.5 + x * x).max((t - t).sqrt())`, `(-p).min((t * 0.0).cbrt())`, with the argument
    /// exactly zero (`sqrt cbrt ln powf(.., 0.5)`; `ln` only under `max`, its `-inf` would
    /// win a `min`). Its adjoint is zero, and a zero adjoint contributes zero through the
    /// infinite partial (`rules::times_partial`); the oracle skips zero partials alike.
    fn behind_kink(&mut self, depth: usize) -> (E, f64) {
        let (p, _, hi) = self.positive(depth, 0.5);
        let (x, _) = self.pick_fv();
        let zero = if self.rng.chance(0.5) {
            bin("-", x.clone(), x)
        } else {
            bin("*", x, lit(0.0))
        };
        let max = self.rng.chance(0.6);
        let f = if max {
            self.rng.pick(&["sqrt", "cbrt", "ln", "powf"])
        } else {
            self.rng.pick(&["sqrt", "cbrt", "powf"])
        };
        let pole = if f == "powf" {
            self.call(f, vec![zero, lit(0.5)])
        } else {
            self.call(f, vec![zero])
        };
        if max {
            (self.call("max", vec![p, pole]), hi)
        } else {
            (self.call("min", vec![E::Neg(Box::new(p)), pole]), hi)
        }
    }

    /// A float condition (or, inside loops, sometimes an integer one).
    fn cond(&mut self) -> C {
        if !self.iv.is_empty() && self.rng.chance(0.25) {
            let i = self.iv[self.rng.below(self.iv.len())].clone();
            let k = self.rng.range(i.lo, i.hi.max(i.lo));
            let op = self.rng.pick(&[">", "<", ">=", "<=", "=="]);
            if self.rng.chance(0.3) {
                return C::I(
                    "==",
                    I::Bin("%", Box::new(I::Var(i.name)), Box::new(ilit(2))),
                    ilit(0),
                );
            }
            return C::I(op, I::Var(i.name), ilit(k));
        }
        self.in_cond = true;
        let (a, _) = self.arg(1);
        let b = if self.rng.chance(0.4) {
            let x = self.rng.pick(&[0.0, 0.5, 0.25, 1.0, 1.5]);
            if self.rng.chance(0.4) && x != 0.0 {
                E::Neg(Box::new(lit(x)))
            } else {
                lit(x)
            }
        } else {
            self.expr(1).0
        };
        self.in_cond = false;
        let op = self.rng.pick(&[">", "<", ">=", "<="]);
        C::F(op, a, b)
    }

    // ---- statements ----------------------------------------------------------------------

    fn push_fv(&mut self, name: String, bound: f64, mutable: bool) {
        let mutarg = mutable.then(|| format!("&mut {name}"));
        self.fv.push(FV {
            name,
            bound,
            mutable,
            depth: self.loop_depth,
            deref: false,
            unread: true,
            mutref: false,
            mutarg,
            from_call: false,
        });
    }

    /// Whether `e` calls a generated helper.
    fn calls_helper(&self, e: &E) -> bool {
        let p = crate::ast::Printer {
            oracle: false,
            fty: "f64",
            len: self.len,
            cps: false,
        };
        p.expr(e, 0, 0).contains("_h")
    }

    /// Marks the newest variable as initialised from `e`.
    fn note_init(&mut self, e: &E) {
        let calls = self.calls_helper(e);
        if let Some(f) = self.fv.last_mut() {
            f.from_call = calls;
        }
    }

    /// A scalar argument of a call (see [`AVOID_DEREF_MUT_AS_CALL_ARG`]).
    fn scalar_arg(&self, e: E) -> E {
        match &e {
            E::Deref(n)
                if AVOID_DEREF_MUT_AS_CALL_ARG
                    && self.fv.iter().any(|f| &f.name == n && f.mutref) =>
            {
                bin("*", lit(1.0), e)
            }
            // A field of a `let mut obj` as the whole argument: in an arm, finding 17; of a
            // method of `obj`, finding 20.
            E::Var(n)
                if (!self.obj_calls() || AVOID_RECEIVER_FIELD_ARG) && self.written_field(n) =>
            {
                bin("*", lit(1.0), e)
            }
            _ => e,
        }
    }

    /// The bounds of everything in scope, to merge the arms of an `if`.
    fn snap(&self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        (
            self.fv.iter().map(|f| f.bound).collect(),
            self.av.iter().map(|a| a.bound).collect(),
            self.a2.iter().map(|a| a.bound).collect(),
        )
    }

    fn join(&mut self, s: &(Vec<f64>, Vec<f64>, Vec<f64>)) {
        for (a, b) in self.a2.iter_mut().zip(&s.2) {
            a.bound = a.bound.max(*b);
        }
        for (f, b) in self.fv.iter_mut().zip(&s.0) {
            f.bound = f.bound.max(*b);
        }
        for (a, b) in self.av.iter_mut().zip(&s.1) {
            a.bound = a.bound.max(*b);
        }
    }

    fn scope(&self) -> (usize, usize, usize, usize, usize) {
        (
            self.fv.len(),
            self.av.len(),
            self.iv.len(),
            self.clos.len(),
            self.a2.len(),
        )
    }

    fn restore(&mut self, s: (usize, usize, usize, usize, usize)) {
        self.a2.truncate(s.4);
        self.fv.truncate(s.0);
        self.av.truncate(s.1);
        self.iv.truncate(s.2);
        self.clos.truncate(s.3);
    }

    /// The right-hand side of an update of an outer variable of bound `b` declared at loop
    /// depth `depth`: `(op, e, new bound)`.
    fn update_rhs(&mut self, b: f64, depth: usize, me: E) -> (&'static str, E, f64) {
        let in_loop = depth < self.loop_depth;
        let k = self.rng.below(9);
        match k {
            0..=4 => {
                let op = if k < 3 { "+=" } else { "-=" };
                let l = if in_loop {
                    SLACK / self.mult as f64
                } else {
                    1.5
                };
                let (e, be) = self.expr(2);
                let (e, be) = self.squash(e, be, l);
                (op, e, if in_loop { b } else { b + be })
            }
            5 | 6 => {
                let l = if in_loop { 1.0 } else { 1.25 };
                let (e, be) = self.expr(2);
                let (e, be) = self.squash(e, be, l);
                ("*=", e, if in_loop { b } else { b * be })
            }
            7 => {
                let min = if in_loop { 1.0 } else { 0.5 };
                let (d, lo, _) = self.positive(1, min);
                ("/=", d, b / lo)
            }
            _ => {
                // `name = f(name, ..)`.
                let f = self.rng.pick(&["sin", "cos", "tanh", "atan"]);
                let me = self.call(f, vec![me]);
                let (e, be) = self.expr(2);
                let (e, nb) = match self.rng.below(3) {
                    0 => (bin("+", me, e), 1.6 + be),
                    1 => (bin("-", e, me), 1.6 + be),
                    _ => (bin("*", me, e), 1.6 * be),
                };
                let lim = if in_loop { b.max(1.0) } else { LIMIT };
                let (e, nb) = self.squash(e, nb, lim);
                ("=", e, if in_loop { b } else { nb })
            }
        }
    }

    /// An update of a mutable float variable in scope.
    fn assign(&mut self, out: &mut Vec<S>, outer: bool) {
        let muts: Vec<usize> = (0..self.fv.len())
            .filter(|&i| self.fv[i].mutable && (!outer || self.fv[i].depth < self.loop_depth))
            .collect();
        if muts.is_empty() {
            return;
        }
        let i = self.rng.pick(&muts);
        let (name, b, depth) = (self.fv[i].name.clone(), self.fv[i].bound, self.fv[i].depth);
        let mutref = self.fv[i].mutref;
        let me = if mutref {
            E::Deref(name.clone())
        } else {
            v(&name)
        };
        let (op, e, nb) = self.update_rhs(b, depth, me);
        let lv = if mutref {
            Lv::Deref(name)
        } else {
            Lv::Var(name)
        };
        out.push(S::Assign { lv, op, e });
        self.fv[i].bound = nb;
        self.fv[i].unread = true;
    }

    /// A write of an element of a local array.
    fn write(&mut self, out: &mut Vec<S>, outer: bool) {
        let locals2 = self
            .a2
            .iter()
            .any(|a| a.local && (!outer || a.depth < self.loop_depth));
        let locals: Vec<usize> = (0..self.av.len())
            .filter(|&i| self.av[i].local && !self.frozen.contains(&self.av[i].name))
            .filter(|&i| !outer || self.av[i].depth < self.loop_depth)
            .collect();
        if locals2 && (locals.is_empty() || self.rng.chance(0.4)) {
            return self.write2(out, outer);
        }
        if locals.is_empty() {
            return;
        }
        let i = self.rng.pick(&locals);
        let (name, b, depth) = (self.av[i].name.clone(), self.av[i].bound, self.av[i].depth);
        let idx = self.index();
        let in_loop = depth < self.loop_depth;
        let (op, e, nb) = if self.rng.chance(0.5) {
            let (e, be) = self.expr(2);
            let lim = if in_loop { b.max(1.0) } else { LIMIT };
            let (e, be) = self.squash(e, be, lim);
            ("=", e, if in_loop { b } else { b.max(be) })
        } else {
            let (op, e, _) = self.update_rhs(b, depth, v(&name));
            if op == "=" {
                // `update_rhs` would read the array as a scalar: fall back to an increment.
                let (e, be) = self.expr(1);
                let l = if in_loop {
                    SLACK / self.mult as f64
                } else {
                    1.5
                };
                let (e, be) = self.squash(e, be, l);
                ("+=", e, if in_loop { b } else { b + be })
            } else {
                let nb = match op {
                    "+=" | "-=" if !in_loop => b + 1.5,
                    "*=" if !in_loop => b * 1.25,
                    "/=" => b * 2.0,
                    _ => b,
                };
                (op, e, nb)
            }
        };
        out.push(S::Assign {
            lv: Lv::Idx(name, idx),
            op,
            e,
        });
        self.av[i].bound = nb;
    }

    /// A write of an element of a local 2-D array: `q[i][j] = ..` or `q[i][j] op= ..`.
    fn write2(&mut self, out: &mut Vec<S>, outer: bool) {
        let locals: Vec<usize> = (0..self.a2.len())
            .filter(|&i| self.a2[i].local && (!outer || self.a2[i].depth < self.loop_depth))
            .collect();
        if locals.is_empty() {
            return;
        }
        let k = self.rng.pick(&locals);
        let (name, b, depth) = (self.a2[k].name.clone(), self.a2[k].bound, self.a2[k].depth);
        let (i, j) = (self.index(), self.index());
        let in_loop = depth < self.loop_depth;
        let me = E::Index2(name.clone(), i.clone(), j.clone(), true);
        let (op, e, nb) = if self.rng.chance(0.4) {
            let (e, be) = self.expr(2);
            let lim = if in_loop { b.max(1.0) } else { LIMIT };
            let (e, be) = self.squash(e, be, lim);
            ("=", e, if in_loop { b } else { b.max(be) })
        } else {
            self.update_rhs(b, depth, me)
        };
        out.push(S::Assign {
            lv: Lv::Idx2(name, i, j),
            op,
            e,
        });
        self.a2[k].bound = nb;
    }

    /// A local 2-D array `let mut q = [[0.0; N]; N];` (with a first write), or a constant
    /// table `let tab = [[1.0, 2.0], [3.0, 4.0]];`.
    fn array2(&mut self, out: &mut Vec<S>) {
        let l = self.len;
        if self.rng.chance(0.65) {
            let name = self.fresh("q");
            out.push(S::LetArr2 {
                name: name.clone(),
                len: l,
            });
            self.a2.push(AV {
                name,
                bound: 0.0,
                local: true,
                depth: self.loop_depth,
                typed: true,
                ..Default::default()
            });
            self.write2(out, false);
        } else {
            let name = self.fresh("tab");
            let rows: Vec<Vec<f64>> = (0..l)
                .map(|_| {
                    (0..l)
                        .map(|_| self.rng.pick(&[0.5, 1.0, 1.5, -0.5, 2.0, 0.25, -1.25]))
                        .collect()
                })
                .collect();
            let typed = self.rng.chance(0.4);
            out.push(S::LetTab {
                name: name.clone(),
                rows,
                typed,
            });
            let first = E::Index2(name.clone(), self.index(), ilit(0), false);
            self.a2.push(AV {
                name,
                bound: 2.0,
                local: false,
                depth: self.loop_depth,
                // An untyped table's elements are `{float}` until a use fixes their type: its
                // first read goes into a typed `let` (a method called on an element before
                // that, even `f64::atan(tab[i][0])`, is E0689).
                typed: true,
                ..Default::default()
            });
            let t = self.fresh("t");
            out.push(S::Let {
                name: t.clone(),
                mutable: false,
                typed: true,
                e: first,
            });
            self.push_fv(t, 2.0, false);
        }
    }

    /// `let c = xs.iter().map(|&p| h(p, xs)).collect::<Vec<f64>>();`: a helper called in a
    /// closure that borrows the vector it iterates (or another array), then the collected
    /// `Vec` read at once by index or summed.
    fn map_collect(&mut self, out: &mut Vec<S>) {
        let hs: Vec<Helper> = self
            .helpers
            .iter()
            .filter(|h| h.in_expr() && h.kinds.contains(&HK::S))
            .filter(|h| self.may_call(h))
            .cloned()
            .collect();
        let arrays: Vec<AV> = self
            .av
            .iter()
            .filter(|a| !(a.local && a.in_arm))
            .filter(|a| !(AVOID_VEC_REF_AS_SLICE_ARG && a.vecref))
            .filter(|a| !self.frozen.contains(&a.name) || !a.local)
            .cloned()
            .collect();
        if hs.is_empty() || arrays.is_empty() {
            return;
        }
        let h = hs[self.rng.below(hs.len())].clone();
        let a = arrays[self.rng.below(arrays.len())].clone();
        let p = self.fresh("p");
        let scope = self.scope();
        let saved_break = self.breakable;
        self.breakable = false;
        self.fv.push(FV {
            name: p.clone(),
            bound: a.bound,
            mutable: false,
            depth: self.loop_depth,
            ..Default::default()
        });
        let mut first = true;
        let mut args = Vec::new();
        for (n, k) in h.kinds.iter().enumerate() {
            if h.inactive.contains(&n) {
                args.push(self.constant_arg(*k));
                continue;
            }
            match k {
                HK::S if first => {
                    first = false;
                    let (e, _) = self.squash(v(&p), a.bound, 2.0);
                    args.push(A::F(e));
                }
                HK::S => {
                    let (e, b) = self.expr(1);
                    args.push(A::F(self.squash(e, b, 2.0).0));
                }
                HK::Sl => {
                    let s = if self.rng.chance(0.7) {
                        a.slice.clone()
                    } else {
                        arrays[self.rng.below(arrays.len())].slice.clone()
                    };
                    args.push(A::Slice(s));
                }
                HK::Ref => args.push(A::Slice(format!("&{OBJ}"))),
                HK::MutS | HK::MutSl => unreachable!("not called in an expression"),
            }
        }
        self.restore(scope);
        self.breakable = saved_break;
        let name = self.fresh("c");
        out.push(S::Let {
            name: name.clone(),
            mutable: false,
            typed: false,
            e: E::Chain(Box::new(Chain::MapCollect {
                xs: a.name.clone(),
                p,
                body: E::Call(h.name.clone(), args),
            })),
        });
        self.av.push(AV {
            name: name.clone(),
            bound: h.bound,
            local: false,
            depth: self.loop_depth,
            slice: format!("&{name}"),
            ..Default::default()
        });
        let t = self.fresh("t");
        let e = if self.rng.chance(0.5) {
            let i = self.index();
            E::Index(name, i)
        } else {
            let q = self.fresh("p");
            E::Chain(Box::new(Chain::MapSum {
                xs: name,
                p: q.clone(),
                body: bin("*", lit(0.5), v(&q)),
                copied: false,
            }))
        };
        out.push(S::Let {
            name: t.clone(),
            mutable: false,
            typed: false,
            e,
        });
        self.push_fv(t, h.bound * self.len as f64, false);
    }

    /// The argument of a parameter that a helper's `wrt(..)` leaves out: a constant.
    fn constant_arg(&mut self, k: HK) -> A {
        let c = [0.5, -0.75, 1.5, 0.25];
        match k {
            HK::S => A::F(lit(self.rng.pick(&[0.5, 1.5, 0.25]))),
            _ => {
                let name = self.fresh("k");
                let xs = (0..self.len).map(|_| self.rng.pick(&c)).collect();
                self.consts.push(S::LetConst {
                    name: name.clone(),
                    xs,
                });
                A::Slice(format!("&{name}"))
            }
        }
    }

    /// A local array reordered by `swap`, or a local `Vec` that grows and shrinks back to its
    /// length (`push`, `swap`, `pop().unwrap()`, `insert`, `remove`): an element is replaced
    /// by a new value, or the new value is dropped again.
    fn reshape(&mut self, out: &mut Vec<S>) {
        let locals: Vec<usize> = (0..self.av.len())
            .filter(|&i| self.av[i].local && !self.frozen.contains(&self.av[i].name))
            .collect();
        if locals.is_empty() {
            return;
        }
        let i = self.rng.pick(&locals);
        let (name, b, depth) = (self.av[i].name.clone(), self.av[i].bound, self.av[i].depth);
        let k = self.index();
        if !self.av[i].growable {
            let j = self.index();
            out.push(S::Swap { name, i: k, j });
            return;
        }
        let in_loop = depth < self.loop_depth;
        let (e, be) = self.expr(2);
        let lim = if in_loop { b.max(1.0) } else { LIMIT };
        let (e, be) = self.squash(e, be, lim);
        let keep = self.rng.chance(0.5);
        if keep {
            self.av[i].bound = if in_loop { b } else { b.max(be) };
        }
        let t = self.fresh("p");
        out.push(S::Cycle {
            name,
            k,
            e,
            t,
            keep,
        });
    }

    /// Enters a loop with `trips` iterations: outer mutable values may grow by [`SLACK`].
    fn enter_loop(&mut self, trips: usize) -> (usize, bool) {
        let saved = (self.mult, self.breakable);
        self.mult *= trips.max(1);
        self.loop_depth += 1;
        self.breakable = true;
        self.nest = self.nest.saturating_sub(1);
        for f in &mut self.fv {
            if f.mutable {
                f.bound += SLACK;
            }
        }
        for a in self.av.iter_mut().chain(self.a2.iter_mut()) {
            if a.local {
                a.bound += SLACK;
            }
        }
        saved
    }

    fn leave_loop(&mut self, saved: (usize, bool)) {
        self.mult = saved.0;
        self.breakable = saved.1;
        self.loop_depth -= 1;
        self.nest += 1;
    }

    /// Before a loop: most of the time, a mutable value for the loop to carry.
    fn carried(&mut self, out: &mut Vec<S>) {
        let any = self.fv.iter().any(|f| f.mutable)
            || self
                .av
                .iter()
                .any(|a| a.local && !self.frozen.contains(&a.name));
        if !any || self.rng.chance(0.3) {
            let name = self.fresh("m");
            let (e, b) = self.expr(2);
            let typed = !typed(&e);
            out.push(S::Let {
                name: name.clone(),
                mutable: true,
                typed,
                e,
            });
            self.push_fv(name, b, true);
            if let Some(S::Let { e, .. }) = out.last() {
                let e = e.clone();
                self.note_init(&e);
            }
        }
    }

    /// A loop body: an update of a value the loop carries (a variable or an array element
    /// from outside the loop), then a few statements.
    fn loop_body(&mut self, out: &mut Vec<S>) {
        let outer_arr = self
            .av
            .iter()
            .any(|a| a.local && a.depth < self.loop_depth && !self.frozen.contains(&a.name))
            || self.a2.iter().any(|a| a.local && a.depth < self.loop_depth);
        if self.objw.is_some() && self.rng.chance(0.3) {
            // The instance, carried from one iteration to the next.
            self.obj_write(out);
        } else if outer_arr && self.rng.chance(0.4) {
            self.write(out, true);
        } else {
            self.assign(out, true);
        }
        self.body(out);
    }

    /// A block of a few statements.
    fn body(&mut self, out: &mut Vec<S>) {
        let n = self.rng.range(1, 4).min(self.budget.max(1));
        for _ in 0..n {
            self.stmt(out);
        }
    }

    /// A `for` loop.
    fn for_loop(&mut self, out: &mut Vec<S>) {
        self.carried(out);
        let l = self.len;
        let scope = self.scope();
        let arrays = !self.av.is_empty();
        let k = self.rng.weighted(&[
            3,
            1,
            1,
            1,
            1,
            2,
            2 * usize::from(arrays),
            2 * usize::from(arrays),
            2 * usize::from(arrays),
        ]);
        let frozen = self.frozen.len();
        let (pat, it, trips) = match k {
            0..=5 => {
                let i = self.fresh("i");
                let n_int: Option<String> = self
                    .iv
                    .iter()
                    .find(|v| v.name.starts_with('n'))
                    .map(|v| v.name.clone());
                let hi_l = if let (Some(n), true) = (&n_int, self.rng.chance(0.5)) {
                    I::Var(n.clone())
                } else if arrays && self.rng.chance(0.5) {
                    I::Len(self.av[self.rng.below(self.av.len())].name.clone())
                } else {
                    ilit(l)
                };
                let (lo, hi, incl, rev, step, lo_v, hi_v, trips) = match k {
                    0 => (ilit(0), hi_l, false, false, None, 0, l - 1, l),
                    1 => (ilit(0), ilit(l - 1), true, false, None, 0, l - 1, l),
                    2 => (ilit(0), hi_l, false, true, None, 0, l - 1, l),
                    3 => {
                        let hi = l + self.rng.below(3);
                        let s = self.rng.range(2, 3);
                        (
                            ilit(0),
                            ilit(hi),
                            false,
                            false,
                            Some(s),
                            0,
                            hi - 1,
                            hi.div_ceil(s),
                        )
                    }
                    4 => (ilit(1), hi_l, false, false, None, 1, l - 1, l - 1),
                    _ => {
                        let t = self.rng.range(2, 4);
                        let rev = self.rng.chance(0.3);
                        (ilit(0), ilit(t), false, rev, None, 0, t - 1, t)
                    }
                };
                self.iv.push(IV {
                    name: i.clone(),
                    lo: lo_v,
                    hi: hi_v,
                });
                let it = It::Range {
                    lo,
                    hi,
                    incl,
                    rev,
                    step,
                };
                (Pat::Int(i), it, trips)
            }
            _ => {
                let a = self.av[self.rng.below(self.av.len())].clone();
                self.frozen.push(a.name.clone());
                let x = self.fresh("e");
                let (pat, it) = match k {
                    6 => (Pat::Ref(x.clone()), It::Iter(a.name.clone())),
                    7 => {
                        let it = if a.mutparam {
                            It::Iter(a.name.clone())
                        } else if a.is_ref && self.rng.chance(0.6) {
                            It::Plain(a.name.clone())
                        } else if !a.is_ref && self.rng.chance(0.5) {
                            It::Plain(format!("&{}", a.name))
                        } else {
                            It::Iter(a.name.clone())
                        };
                        (Pat::Val(x.clone()), it)
                    }
                    _ => {
                        let i = self.fresh("i");
                        self.iv.push(IV {
                            name: i.clone(),
                            lo: 0,
                            hi: l - 1,
                        });
                        (Pat::Enum(i, x.clone()), It::Enumerate(a.name.clone()))
                    }
                };
                self.fv.push(FV {
                    name: x,
                    bound: a.bound + if a.local { SLACK } else { 0.0 },
                    mutable: false,
                    depth: self.loop_depth + 1,
                    deref: matches!(pat, Pat::Ref(_)),
                    unread: false,
                    ..Default::default()
                });
                (pat, it, l)
            }
        };
        // A range loop of the function's body (not in an arm, not after an early `return`)
        // is checkpointed about one time in three, under a budget of 1 to 3 snapshots or the
        // default. (Chosen by a hash of the loop's shape, not by `rng`: the programs of a seed
        // stay those they were before checkpoints, attributes aside.)
        let top = self.loop_depth == 0 && self.arm == 0 && !self.returned;
        let checkpoint = match (&it, top) {
            (It::Range { .. }, true) if !avoid::AVOID_CHECKPOINT => {
                let hash = format!("{pat:?} {it:?}")
                    .bytes()
                    .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                    });
                (hash % 3 == 0).then_some((hash / 3 % 4) as usize)
            }
            _ => None,
        };
        let saved = self.enter_loop(trips);
        let mut body = Vec::new();
        self.loop_body(&mut body);
        self.leave_loop(saved);
        self.restore(scope);
        self.frozen.truncate(frozen);
        out.push(S::For {
            pat,
            it,
            body,
            checkpoint,
        });
    }

    /// A `while` or `loop` with an integer counter, or a `while` on a float condition.
    fn while_loop(&mut self, out: &mut Vec<S>) {
        self.carried(out);
        let k = self.fresh("k");
        let t = self.rng.range(2, 4);
        match self.rng.below(3) {
            0 => {
                // while k < t { k += 1; .. }
                out.push(S::LetInt {
                    name: k.clone(),
                    mutable: true,
                    e: ilit(0),
                });
                let scope = self.scope();
                let saved = self.enter_loop(t);
                let mut body = vec![S::IncInt(k.clone())];
                self.iv.push(IV {
                    name: k.clone(),
                    lo: 1,
                    hi: t,
                });
                self.loop_body(&mut body);
                self.leave_loop(saved);
                self.restore(scope);
                out.push(S::While {
                    c: C::I("<", I::Var(k), ilit(t)),
                    body,
                });
            }
            1 => {
                // loop { if k >= t { break; } k += 1; .. }
                out.push(S::LetInt {
                    name: k.clone(),
                    mutable: true,
                    e: ilit(0),
                });
                let scope = self.scope();
                let saved = self.enter_loop(t);
                let mut body = vec![
                    S::If {
                        c: C::I(">=", I::Var(k.clone()), ilit(t)),
                        then: vec![S::Break],
                        els: None,
                    },
                    S::IncInt(k.clone()),
                ];
                self.iv.push(IV {
                    name: k.clone(),
                    lo: 1,
                    hi: t,
                });
                self.loop_body(&mut body);
                self.leave_loop(saved);
                self.restore(scope);
                out.push(S::Loop(body));
            }
            _ => {
                // let mut s = e; while s < c { s += 1.5 + x.sin(); .. }: the float counter
                // grows by at least 0.5 per iteration.
                let s = self.fresh("m");
                let (e, b) = self.arg(1);
                let (e, _) = self.squash(e, b, 2.0);
                out.push(S::Let {
                    name: s.clone(),
                    mutable: true,
                    typed: false,
                    e,
                });
                let c: f64 = self.rng.pick(&[1.0, 2.0, 3.0]);
                let trips = ((c + 2.0) / 0.5).ceil() as usize;
                let scope = self.scope();
                let saved = self.enter_loop(trips);
                let (x, _) = self.arg(1);
                let f = self.rng.pick(&["sin", "cos", "tanh"]);
                let inc = bin("+", lit(1.5), self.call(f, vec![x]));
                let mut body = vec![S::Assign {
                    lv: Lv::Var(s.clone()),
                    op: "+=",
                    e: inc,
                }];
                self.loop_body(&mut body);
                self.leave_loop(saved);
                self.restore(scope);
                out.push(S::While {
                    c: C::F("<", v(&s), lit(c)),
                    body,
                });
                // After the loop, s < c + 2.5.
                self.push_fv(s, c + 2.5, false);
            }
        }
    }

    /// An iterator chain over an array in scope (or a range): `(chain, bound)`.
    fn chain(&mut self) -> (E, f64) {
        let a = self.av[self.rng.below(self.av.len())].clone();
        let l = self.len as f64;
        let p = self.fresh("p");
        // The initial value of a fold, from outside the closure.
        let (init, bi) = self.expr(1);
        let (init, bi) = if typed(&init) {
            (init, bi)
        } else {
            // A constant would leave the accumulator's type open to the closure's method calls.
            self.pick_fv()
        };
        let (init, _) = self.squash(init, bi, 2.0);
        // The closure parameter is a float in scope inside the body.
        let scope = self.scope();
        let saved_break = self.breakable;
        let saved_chain = self.in_chain;
        self.in_chain = true;
        self.breakable = false;
        self.fv.push(FV {
            name: p.clone(),
            bound: a.bound,
            mutable: false,
            depth: self.loop_depth,
            deref: false,
            unread: false,
            ..Default::default()
        });
        let k = self.rng.below(7);
        let body_expr = |g: &mut Self, lim: f64| {
            let (e, b) = g.expr(2);
            // Read the closure parameter most of the time.
            let e = if g.rng.chance(0.8) {
                let pe = v(&p);
                match g.rng.below(3) {
                    0 => bin("*", pe, e),
                    1 => bin("+", pe, e),
                    _ => {
                        let s = g.call("sin", vec![pe]);
                        bin("*", s, e)
                    }
                }
            } else {
                e
            };
            g.squash(e, (b + 1.0) * (a.bound + 1.0), lim)
        };
        let r = match k {
            0 => {
                let (body, b) = body_expr(self, 2.0);
                let copied = self.rng.chance(0.3);
                (
                    Chain::MapSum {
                        xs: a.name.clone(),
                        p: p.clone(),
                        body,
                        copied,
                    },
                    b * l,
                )
            }
            1 => {
                let ys = self.av[self.rng.below(self.av.len())].name.clone();
                let q = self.fresh("q");
                self.fv.push(FV {
                    name: q.clone(),
                    bound: 2.0 + SLACK,
                    mutable: false,
                    depth: self.loop_depth,
                    deref: false,
                    unread: false,
                    ..Default::default()
                });
                let (body, b) = body_expr(self, 2.0);
                let body = bin("*", body, v(&q));
                (
                    Chain::ZipSum {
                        xs: a.name.clone(),
                        ys,
                        p: p.clone(),
                        q,
                        body,
                    },
                    b * (2.0 + SLACK) * l,
                )
            }
            2 => {
                let i = self.fresh("i");
                self.iv.push(IV {
                    name: i.clone(),
                    lo: 0,
                    hi: self.len - 1,
                });
                let (body, b) = body_expr(self, 2.0);
                (
                    Chain::EnumSum {
                        xs: a.name.clone(),
                        i,
                        p: p.clone(),
                        body,
                    },
                    b * l,
                )
            }
            3 => {
                let q = self.fresh("q");
                self.fv.pop();
                self.fv.push(FV {
                    name: q.clone(),
                    bound: a.bound,
                    mutable: false,
                    depth: self.loop_depth,
                    deref: false,
                    unread: false,
                    ..Default::default()
                });
                let (e, b) = self.expr(2);
                let body = bin("*", v(&q), e);
                let (body, b) = self.squash(body, b * a.bound, 2.0);
                let op = self.rng.pick(&[">", "<"]);
                let x = self.rng.pick(&[0.0, 0.5, -0.5]);
                (
                    Chain::FilterSum {
                        xs: a.name.clone(),
                        p: p.clone(),
                        op,
                        lit: x,
                        q,
                        body,
                    },
                    b * l,
                )
            }
            4 => {
                let acc = self.fresh("acc");
                self.fv.push(FV {
                    name: acc.clone(),
                    bound: 8.0,
                    mutable: false,
                    depth: self.loop_depth,
                    deref: false,
                    unread: false,
                    ..Default::default()
                });
                let (e, b) = self.expr(2);
                let e = bin("*", v(&p), e);
                let (e, _) = self.squash(e, b * a.bound, 2.0);
                let c = self.rng.pick(&[0.5, 0.75, -0.5]);
                let body = bin("+", bin("*", v(&acc), lit(c)), e);
                (
                    Chain::Fold {
                        xs: a.name.clone(),
                        init,
                        acc,
                        p: p.clone(),
                        body,
                    },
                    8.0,
                )
            }
            5 => {
                let (e, b) = body_expr(self, 0.5);
                let _ = b;
                let body = bin("+", lit(1.0), e);
                (
                    Chain::MapProduct {
                        xs: a.name.clone(),
                        p: p.clone(),
                        body,
                    },
                    1.5f64.powf(l),
                )
            }
            _ => {
                self.fv.pop();
                let i = self.fresh("i");
                self.iv.push(IV {
                    name: i.clone(),
                    lo: 0,
                    hi: self.len - 1,
                });
                let n = if self.rng.chance(0.5) {
                    I::Len(a.name.clone())
                } else {
                    ilit(self.len)
                };
                let (e, b) = self.expr(2);
                let (e, b) = self.squash(e, b, 2.0);
                let body = bin("*", E::Index(a.name.clone(), I::Var(i.clone())), e);
                (Chain::RangeSum { n, i, body }, b * a.bound * l)
            }
        };
        self.restore(scope);
        self.breakable = saved_break;
        self.in_chain = saved_chain;
        let (c, b) = r;
        (E::Chain(Box::new(c)), b)
    }

    /// One statement (or a few, for compound shapes).
    pub fn stmt(&mut self, out: &mut Vec<S>) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let muts = usize::from(self.fv.iter().any(|f| f.mutable));
        let locals = usize::from(self.av.iter().chain(&self.a2).any(|a| a.local));
        let map_call = usize::from(
            !self.av.is_empty()
                && self
                    .helpers
                    .iter()
                    .any(|h| h.in_expr() && h.kinds.contains(&HK::S)),
        );
        let arrays = usize::from(!self.av.is_empty());
        let nest = usize::from(self.nest > 0);
        let loops = usize::from(self.loop_depth < 2 && self.nest > 0);
        let helpers = usize::from(self.helpers.iter().any(Helper::in_expr));
        let stmt_helpers = usize::from(self.helpers.iter().any(|h| !h.in_expr()));
        let brk = usize::from(self.breakable);
        let writable = usize::from(
            self.av
                .iter()
                .any(|a| a.mutarg.is_some() && !self.frozen.contains(&a.name)),
        );
        // Early `return;` in a function returning `()` is rejected by design ("early `return`
        // is supported in functions that return a scalar").
        let ret = usize::from(!self.no_return && self.ret == Ret::F);
        let objw = usize::from(self.objw.is_some());
        let k = self.rng.weighted(&[
            6,                    // 0 let
            2,                    // 1 let mut
            4 * muts,             // 2 assign
            1,                    // 3 shadow
            2 * nest,             // 4 if statement
            nest,                 // 5 let = if
            1,                    // 6 block expression
            3 * loops,            // 7 for
            loops,                // 8 while / loop
            1,                    // 9 local array
            2 * locals,           // 10 element write
            1,                    // 11 closure
            2 * arrays,           // 12 chain
            2 * helpers,          // 13 helper call
            ret,                  // 14 early return
            2 * brk,              // 15 break / continue
            2 * loops * writable, // 16 iter_mut loop
            4 * stmt_helpers,     // 17 call with &mut arguments or an array/tuple result
            1,                    // 18 local 2-D array or constant table
            2 * map_call,         // 19 helper called in a closure, collected
            3 * objw,             // 20 a write of `let mut obj`
        ]);
        match k {
            0 if self.rng.chance(0.1) => {
                // `let (p, q) = (a * b, w[0]);`
                let names = vec![self.fresh("tl"), self.fresh("tl")];
                let (a, ba) = self.expr(2);
                let (b, bb) = self.expr(2);
                let typed = !typed(&a) || !typed(&b) || self.rng.chance(0.2);
                let calls = [&a, &b].map(|e| self.calls_helper(e));
                out.push(S::LetTupleLit {
                    names: names.clone(),
                    typed,
                    es: vec![a, b],
                });
                for ((name, bound), calls) in names.into_iter().zip([ba, bb]).zip(calls) {
                    self.push_fv(name, bound, false);
                    if let Some(f) = self.fv.last_mut() {
                        f.from_call = calls;
                    }
                }
            }
            0 | 1 => {
                let name = self.fresh(if k == 0 { "t" } else { "m" });
                let (e, b) = self.expr(3);
                out.push(S::Let {
                    name: name.clone(),
                    mutable: k == 1,
                    // A constant needs its type, or a method call on it would not compile.
                    typed: self.rng.chance(0.15) || !typed(&e),
                    e,
                });
                self.push_fv(name, b, k == 1);
                if let Some(S::Let { e, .. }) = out.last() {
                    let e = e.clone();
                    self.note_init(&e);
                }
            }
            2 => self.assign(out, false),
            3 => {
                // Not a field (`self.fa`), which cannot be shadowed.
                let imm: Vec<usize> = (0..self.fv.len())
                    .filter(|&i| {
                        !self.fv[i].mutable && !self.fv[i].deref && !self.fv[i].name.contains('.')
                    })
                    .collect();
                if imm.is_empty() {
                    return;
                }
                let i = self.rng.pick(&imm);
                let name = self.fv[i].name.clone();
                let f = self.rng.pick(&["sin", "cos", "tanh", "atan"]);
                let me = self.call(f, vec![v(&name)]);
                let (e, b) = self.expr(1);
                let (e, b) = if self.rng.chance(0.5) {
                    (bin("*", me, e), 1.6 * b)
                } else {
                    (bin("+", e, me), 1.6 + b)
                };
                let (e, b) = self.limit(e, b);
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: false,
                    e,
                });
                self.push_fv(name, b, false);
            }
            4 => {
                let c = self.cond();
                let scope = self.scope();
                let before = self.snap();
                self.nest -= 1;
                self.arm += 1;
                let mut then = Vec::new();
                self.body(&mut then);
                self.restore(scope);
                let els = if self.rng.chance(0.6) {
                    let after_then = self.snap();
                    let mut els = Vec::new();
                    self.body(&mut els);
                    self.restore(scope);
                    self.join(&after_then);
                    Some(els)
                } else {
                    None
                };
                self.join(&before);
                self.nest += 1;
                self.arm -= 1;
                out.push(S::If { c, then, els });
            }
            5 => {
                let c = self.cond();
                self.arm += 1;
                let (a, ba) = self.arm();
                let (b, bb) = self.arm();
                self.arm -= 1;
                let name = self.fresh("t");
                let e = E::If(Box::new(c), Box::new(a), Box::new(b));
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: self.rng.chance(0.2) || !typed(&e),
                    e,
                });
                self.push_fv(name, ba.max(bb), false);
            }
            6 => {
                let (e, b) = self.block_expr();
                let name = self.fresh("t");
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: false,
                    e,
                });
                self.push_fv(name, b, false);
            }
            7 => self.for_loop(out),
            8 => self.while_loop(out),
            9 => {
                let name = self.fresh("h");
                let vec = if self.rng.chance(0.4) {
                    let n_int = self.iv.iter().find(|v| v.name.starts_with('n')).cloned();
                    Some(match n_int {
                        Some(n) if self.rng.chance(0.5) => I::Var(n.name),
                        _ if arrays == 1 && self.rng.chance(0.5) => {
                            I::Len(self.av[self.rng.below(self.av.len())].name.clone())
                        }
                        _ => ilit(self.len),
                    })
                } else {
                    None
                };
                let slice = format!("&{name}");
                let growable = vec.is_some();
                let mutarg = Some(format!("&mut {name}"));
                let in_arm = self.arm > 0 || AVOID_ARRAY_AFTER_EARLY_RETURN && self.returned;
                out.push(S::LetArr {
                    name: name.clone(),
                    len: self.len,
                    vec,
                });
                self.av.push(AV {
                    name,
                    bound: 0.0,
                    local: true,
                    depth: self.loop_depth,
                    slice,
                    is_ref: false,
                    vecref: false,
                    growable,
                    mutparam: false,
                    mutarg,
                    in_arm,
                    mut_array: false,
                    typed: false,
                });
                self.write(out, false);
            }
            10 if self.rng.chance(0.35) => self.reshape(out),
            10 => self.write(out, false),
            11 => {
                let name = self.fresh("f");
                let arity = self.rng.range(1, 2);
                let params: Vec<String> = (0..arity).map(|_| self.fresh("c")).collect();
                let scope = self.scope();
                let saved_break = self.breakable;
                self.breakable = false;
                // Closures capture immutable values only (a later assignment of a captured
                // `let mut` would conflict with the closure's borrow).
                let saved_fv = self.fv.clone();
                let saved_av = self.av.clone();
                let saved_a2 = self.a2.clone();
                self.fv.retain(|f| !f.mutable);
                self.av.retain(|a| !a.local);
                self.a2.retain(|a| !a.local);
                // Nor a `let mut obj` (or `self` in `bump`), which later statements write:
                // neither its fields nor the methods and functions that borrow it.
                let saved_helpers = self.helpers.clone();
                if let Some(written) = self.written {
                    let field = format!("{written}.");
                    self.fv.retain(|f| !f.name.starts_with(&field));
                    self.helpers
                        .retain(|h| !h.name.starts_with(&field) && !h.kinds.contains(&HK::Ref));
                }
                for p in &params {
                    self.fv.push(FV {
                        name: p.clone(),
                        bound: 2.0,
                        mutable: false,
                        depth: self.loop_depth,
                        deref: false,
                        unread: true,
                        ..Default::default()
                    });
                }
                let (mut body, b) = self.expr(2);
                // Read every parameter.
                for p in &params {
                    body = bin("*", body, v(p));
                }
                let (body, b) = self.limit(body, b * 4.0);
                self.helpers = saved_helpers;
                self.fv = saved_fv;
                self.av = saved_av;
                self.a2 = saved_a2;
                self.restore(scope);
                self.breakable = saved_break;
                out.push(S::LetClosure {
                    name: name.clone(),
                    params,
                    body,
                });
                self.clos.push((name.clone(), arity, b));
                // And call it.
                let args: Vec<E> = (0..arity)
                    .map(|_| {
                        let (e, b) = self.expr(1);
                        self.squash(e, b, 2.0).0
                    })
                    .collect();
                let t = self.fresh("t");
                out.push(S::Let {
                    name: t.clone(),
                    mutable: false,
                    typed: false,
                    e: E::CallClosure(name, args),
                });
                self.push_fv(t, b, false);
            }
            12 => {
                let (e, b) = self.chain();
                let name = self.fresh("t");
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: self.rng.chance(0.3),
                    e,
                });
                self.push_fv(name, b, false);
            }
            13 => {
                let (e, b) = self.helper_call();
                let name = self.fresh("t");
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: !typed(&e),
                    e,
                });
                self.push_fv(name, b, false);
            }
            14 => {
                self.returned = true;
                let c = self.cond();
                let r = if self.ret == Ret::Unit {
                    S::ReturnUnit
                } else {
                    let (e, b) = self.expr(2);
                    let (e, _) = self.squash(e, b, LIMIT);
                    S::Return(e)
                };
                out.push(S::If {
                    c,
                    then: vec![r],
                    els: None,
                });
            }
            16 => self.iter_mut_loop(out),
            17 => self.stmt_call(out),
            18 => self.array2(out),
            19 => self.map_collect(out),
            20 => self.obj_write(out),
            _ => {
                let c = self.cond();
                let s = if self.rng.chance(0.5) {
                    S::Break
                } else {
                    S::Continue
                };
                out.push(S::If {
                    c,
                    then: vec![s],
                    els: None,
                });
            }
        }
    }

    /// `for v in xs.iter_mut() { *v = ..; .. }` over a local array or a `&mut` parameter
    /// (also `&mut xs`, `.enumerate()`, `.zip(ys.iter())` and `.zip(ys.iter().rev())`). The
    /// array is mutably borrowed by
    /// the loop: its body neither reads nor writes it other than through `*v`.
    fn iter_mut_loop(&mut self, out: &mut Vec<S>) {
        let cands: Vec<usize> = (0..self.av.len())
            .filter(|&i| self.av[i].mutarg.is_some() && !self.frozen.contains(&self.av[i].name))
            .collect();
        if cands.is_empty() {
            return;
        }
        let ai = self.rng.pick(&cands);
        let a = self.av.remove(ai);
        let el = self.fresh("el");
        let others: Vec<AV> = self.av.clone();
        let scope = self.scope();
        let frozen = self.frozen.len();
        let form = match self.rng.below(5) {
            0 if !a.mutparam => IterMutForm::Borrow,
            1 => {
                let i = self.fresh("i");
                self.iv.push(IV {
                    name: i.clone(),
                    lo: 0,
                    hi: self.len - 1,
                });
                IterMutForm::Enumerate(i)
            }
            2 | 3 if !others.is_empty() => {
                let ys = others[self.rng.below(others.len())].clone();
                let y = self.fresh("y");
                self.frozen.push(ys.name.clone());
                self.fv.push(FV {
                    name: y.clone(),
                    bound: ys.bound + if ys.local { SLACK } else { 0.0 },
                    mutable: false,
                    depth: self.loop_depth + 1,
                    deref: true,
                    unread: true,
                    ..Default::default()
                });
                let seq = match self.rng.below(2) {
                    0 => format!("{}.iter().rev()", ys.name),
                    _ => format!("{}.iter()", ys.name),
                };
                IterMutForm::Zip(y, seq)
            }
            _ => IterMutForm::Plain,
        };
        let saved = self.enter_loop(self.len);
        // The element: its updates stay within the array's bound plus the loop's slack.
        let b = a.bound + SLACK;
        self.fv.push(FV {
            name: el.clone(),
            bound: b,
            mutable: true,
            depth: a.depth,
            deref: true,
            unread: true,
            mutref: true,
            mutarg: None,
            from_call: false,
        });
        let me = E::Deref(el.clone());
        let mut body = Vec::new();
        let (op, e, _) = if self.rng.chance(0.4) {
            let (e, be) = self.expr(2);
            let (e, _) = self.squash(e, be, b.max(1.0));
            ("=", e, b)
        } else {
            self.update_rhs(b, a.depth, me)
        };
        body.push(S::Assign {
            lv: Lv::Deref(el.clone()),
            op,
            e,
        });
        if self.rng.chance(0.6) {
            self.body(&mut body);
        }
        self.leave_loop(saved);
        self.restore(scope);
        self.frozen.truncate(frozen);
        let mut a = a;
        a.bound = b;
        let xs = a.name.clone();
        self.av.insert(ai, a);
        out.push(S::IterMut {
            v: el,
            xs,
            form,
            body,
        });
    }

    /// A call of a helper as a statement: with `&mut` arguments (a local `let mut` float,
    /// a local array, a `&mut` parameter passed on as it is, `&mut *o` for a `&mut f64`
    /// parameter), or with an array, `Vec` or tuple result taken apart by `let`.
    fn stmt_call(&mut self, out: &mut Vec<S>) {
        let hs: Vec<Helper> = self
            .helpers
            .iter()
            .filter(|h| !h.in_expr())
            .cloned()
            .collect();
        let h = hs[self.rng.below(hs.len())].clone();
        if AVOID_ARRAY_RESULT_IN_ARM
            && matches!(h.ret, Ret::Arr | Ret::Vec)
            && (self.arm > 0 || self.returned)
        {
            return;
        }
        // The scalar arguments first: a `&mut` argument must not be read by them.
        let mut args: Vec<Option<A>> = Vec::new();
        let mut text = String::new();
        let p = crate::ast::Printer {
            oracle: false,
            fty: "f64",
            len: self.len,
            cps: false,
        };
        for (n, k) in h.kinds.iter().enumerate() {
            if h.inactive.contains(&n) {
                args.push(Some(self.constant_arg(*k)));
            } else if *k == HK::S {
                let (e, b) = self.expr(1);
                let e = self.squash(e, b, 2.0).0;
                let e = self.scalar_arg(e);
                text += &p.expr(&e, 0, 0);
                text += " ";
                args.push(Some(A::F(e)));
            } else {
                args.push(None);
            }
        }
        let mentioned = |name: &str| {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name)
        };
        // The `&mut` arguments (at most one per helper), then the slices.
        let mut mut_name: Option<String> = None;
        let mut mut_fv: Option<usize> = None;
        let mut mut_av: Option<usize> = None;
        for (j, k) in h.kinds.iter().enumerate() {
            match k {
                HK::MutS => {
                    let c: Vec<usize> = (0..self.fv.len())
                        .filter(|&i| {
                            let f = &self.fv[i];
                            f.mutarg.is_some()
                                && f.bound <= LIMIT
                                && !(AVOID_MUT_ARG_FROM_CALL_RESULT && f.from_call)
                                && !mentioned(&f.name)
                                // the newest binding of that name
                                && self.fv[i + 1..].iter().all(|g| g.name != f.name)
                        })
                        .collect();
                    if c.is_empty() {
                        return;
                    }
                    let i = self.rng.pick(&c);
                    mut_name = Some(self.fv[i].name.clone());
                    mut_fv = Some(i);
                    args[j] = Some(A::Mut(self.fv[i].mutarg.clone().unwrap()));
                }
                HK::MutSl => {
                    let c: Vec<usize> = (0..self.av.len())
                        .filter(|&i| {
                            let a = &self.av[i];
                            a.mutarg.is_some()
                                && a.bound <= LIMIT
                                && !a.in_arm
                                && !self.frozen.contains(&a.name)
                                && !mentioned(&a.name)
                        })
                        .collect();
                    if c.is_empty() {
                        return;
                    }
                    let i = self.rng.pick(&c);
                    mut_name = Some(self.av[i].name.clone());
                    mut_av = Some(i);
                    args[j] = Some(A::Mut(self.av[i].mutarg.clone().unwrap()));
                }
                _ => {}
            }
        }
        let twice = self.rng.chance(0.35);
        let arm = self.arm > 0 || self.returned;
        let mut first_sl: Option<String> = None;
        for (j, k) in h.kinds.iter().enumerate() {
            if *k != HK::Sl || args[j].is_some() {
                continue;
            }
            let slices: Vec<String> = self
                .av
                .iter()
                .filter(|a| !(AVOID_LOCAL_ARRAY_AS_CALL_ARG && a.local && !a.mutparam))
                .filter(|a| !(a.local && a.in_arm))
                .filter(|a| !(AVOID_MODIFIED_ARRAY_ARG_IN_ARM && a.mutarg.is_some() && arm))
                .filter(|a| Some(&a.name) != mut_name.as_ref())
                .map(|a| a.slice.clone())
                .collect();
            if slices.is_empty() {
                return;
            }
            let sl = match (&first_sl, twice) {
                (Some(s), true) => s.clone(),
                _ => slices[self.rng.below(slices.len())].clone(),
            };
            first_sl.get_or_insert(sl.clone());
            args[j] = Some(A::Slice(sl));
        }
        let args: Vec<A> = args.into_iter().map(Option::unwrap).collect();
        let call = E::Call(h.name.clone(), args);
        // The `&mut` argument on return: the helper squashes it to OUT_BOUND.
        if let Some(i) = mut_fv {
            let f = &mut self.fv[i];
            let in_loop = f.depth < self.loop_depth;
            f.bound = if in_loop {
                f.bound.max(OUT_BOUND)
            } else {
                OUT_BOUND
            };
            f.unread = true;
        }
        if let Some(i) = mut_av {
            let a = &mut self.av[i];
            let in_loop = a.depth < self.loop_depth;
            a.bound = if in_loop {
                a.bound.max(OUT_BOUND)
            } else {
                OUT_BOUND
            };
        }
        match h.ret {
            Ret::Unit => out.push(S::CallStmt(call)),
            Ret::F => {
                let name = self.fresh("t");
                out.push(S::Let {
                    name: name.clone(),
                    mutable: false,
                    typed: self.rng.chance(0.2),
                    e: call,
                });
                self.push_fv(name, h.bound, false);
            }
            Ret::SelfTy => unreachable!("only the user type's `next`, not a helper"),
            Ret::Tup => {
                let names = vec![self.fresh("tu"), self.fresh("tu")];
                out.push(S::LetTuple {
                    names: names.clone(),
                    call,
                });
                for n in names {
                    self.push_fv(n, h.bound, false);
                }
            }
            Ret::Arr | Ret::Vec => {
                let name = self.fresh("res");
                out.push(S::LetCall {
                    name: name.clone(),
                    ret: h.ret,
                    typed: self.rng.chance(0.3),
                    call,
                });
                self.av.push(AV {
                    name: name.clone(),
                    bound: h.bound,
                    local: false,
                    depth: self.loop_depth,
                    slice: format!("&{name}"),
                    is_ref: false,
                    ..Default::default()
                });
                // Read it at once, by index or by iterating it.
                let t = self.fresh("t");
                let e = if self.rng.chance(0.5) {
                    let i = self.index();
                    E::Index(name, i)
                } else {
                    let q = self.fresh("p");
                    E::Chain(Box::new(Chain::MapSum {
                        xs: name,
                        p: q.clone(),
                        body: bin("*", lit(0.5), v(&q)),
                        copied: self.rng.chance(0.3),
                    }))
                };
                out.push(S::Let {
                    name: t.clone(),
                    mutable: false,
                    typed: false,
                    e,
                });
                self.push_fv(t, h.bound * self.len as f64, false);
            }
        }
    }

    /// The end of a function: its result, and (for a helper) its `&mut` parameters squashed
    /// to [`OUT_BOUND`].
    pub fn finish(&mut self, params: &[Param], squash_out: bool) -> (Vec<S>, Vec<E>) {
        let mut stmts = Vec::new();
        let tail = match self.ret {
            Ret::F => vec![self.tail()],
            Ret::Unit => {
                // The result goes into a `&mut` parameter.
                let t = self.tail();
                let muts: Vec<&Param> = params.iter().filter(|p| p.is_mut()).collect();
                let p = muts[self.rng.below(muts.len())].clone();
                let op = if self.rng.chance(0.5) { "=" } else { "+=" };
                let lv = match &p {
                    Param::MutScalar(n) => Lv::Deref(n.clone()),
                    other => Lv::Idx(other.name().to_string(), self.index()),
                };
                stmts.push(S::Assign { lv, op, e: t });
                if let Some(f) = self.fv.iter_mut().find(|f| f.name == p.name()) {
                    f.bound += LIMIT;
                }
                if let Some(a) = self.av.iter_mut().find(|a| a.name == p.name()) {
                    a.bound += LIMIT;
                }
                Vec::new()
            }
            Ret::Arr | Ret::Vec => {
                let mut es = vec![self.tail()];
                for _ in 1..self.len {
                    let (e, b) = self.expr(2);
                    es.push(self.squash(e, b, LIMIT).0);
                }
                es
            }
            Ret::Tup => {
                let (e, b) = self.expr(2);
                vec![self.tail(), self.squash(e, b, LIMIT).0]
            }
            Ret::SelfTy => unreachable!("built by `writer`"),
        };
        if squash_out {
            for p in params {
                let name = p.name().to_string();
                match p {
                    Param::MutScalar(_) => {
                        let b = self.fv.iter().find(|f| f.name == name).unwrap().bound;
                        if b > OUT_BOUND {
                            let e = self.squash(E::Deref(name.clone()), b, OUT_BOUND).0;
                            stmts.push(S::Assign {
                                lv: Lv::Deref(name),
                                op: "=",
                                e,
                            });
                        }
                    }
                    Param::MutSlice(_) | Param::MutArray(_) | Param::MutVec(_) => {
                        let b = self.av.iter().find(|a| a.name == name).unwrap().bound;
                        if b > OUT_BOUND {
                            let el = self.fresh("el");
                            let e = self.squash(E::Deref(el.clone()), b, OUT_BOUND).0;
                            stmts.push(S::IterMut {
                                v: el.clone(),
                                xs: name,
                                form: IterMutForm::Plain,
                                body: vec![S::Assign {
                                    lv: Lv::Deref(el),
                                    op: "=",
                                    e,
                                }],
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
        (stmts, tail)
    }

    /// Whether a call that borrows a `let mut obj` may be generated here (see
    /// [`AVOID_OBJ_CALL_IN_ARM`]).
    fn obj_calls(&self) -> bool {
        self.written.is_none() || !(AVOID_OBJ_CALL_IN_ARM && (self.arm > 0 || self.returned))
    }

    /// Whether `name` is a field of the struct this function writes (`obj.fa`, `self.fa`).
    fn written_field(&self, name: &str) -> bool {
        self.written
            .is_some_and(|w| name.strip_prefix(w).is_some_and(|r| r.starts_with('.')))
    }

    /// Whether the helper `h` may be called here: one that borrows the instance [`OBJ`]
    /// (`obj.m`, `q_k_g(&obj, ..)`) only where [`G::obj_calls`] allows.
    fn may_call(&self, h: &Helper) -> bool {
        let borrows =
            self.written_field(&h.name) || self.objw.is_some() && h.kinds.contains(&HK::Ref);
        !borrows || self.obj_calls()
    }

    /// A read of the instance [`OBJ`] through a method or a function that borrows it
    /// (`let t = obj.m(..);`, `obj.eval(..)`, `q_k_g(&obj, ..)`).
    fn obj_read(&mut self, out: &mut Vec<S>) {
        let field = format!("{OBJ}.");
        let (e, b) = if self.obj_calls() {
            let saved = self.helpers.clone();
            self.helpers
                .retain(|h| h.name.starts_with(&field) || h.kinds.contains(&HK::Ref));
            let r = self.helper_call();
            self.helpers = saved;
            r
        } else {
            // A field (`obj.fa`), where no call may borrow the instance.
            let fields = self.objw.as_ref().map_or(Vec::new(), |w| w.fields.clone());
            let f = &fields[self.rng.below(fields.len())];
            (v(&format!("{field}{f}")), FIELD)
        };
        let name = self.fresh("t");
        out.push(S::Let {
            name: name.clone(),
            mutable: false,
            typed: !typed(&e),
            e,
        });
        self.push_fv(name, b, false);
    }

    /// A write of the `let mut obj` (see [`Obj::bump`]), often right after a read of it through
    /// a method (`let t = obj.m(x); obj.fa = ..;`: the method's reverse sweep needs the
    /// instance as it was at the call): `obj.fa = ..`, `obj.fa += ..`, `obj.fa *= ..`,
    /// `obj.bump(..)`, `obj = obj.next(..)`, `obj = Ty { .. }`.
    fn obj_write(&mut self, out: &mut Vec<S>) {
        let Some(o) = self.objw.clone() else {
            return;
        };
        let calls = usize::from(self.obj_calls());
        if calls == 1 && self.rng.chance(0.5) {
            self.obj_read(out);
        }
        let arm = self.arm > 0 || self.returned;
        // With `AVOID_OBJ_WHOLE_ASSIGN`, `let mut obj = obj.next(..)` is finding 19, and
        // `let mut obj = Ty { .. }` in an arm finding 17.
        let next = !(AVOID_OBJ_WHOLE_ASSIGN && AVOID_OBJ_METHOD_STRUCT_RESULT);
        let literal = !(AVOID_OBJ_WHOLE_ASSIGN && AVOID_STRUCT_LET_IN_ARM && arm);
        let k = self.rng.weighted(&[
            usize::from(!AVOID_OBJ_FIELD_WRITE) * 6,
            usize::from(!AVOID_OBJ_MUT_METHOD) * 2 * calls,
            usize::from(!AVOID_OBJ_NEXT && next) * 2 * calls,
            usize::from(!AVOID_OBJ_STRUCT_ASSIGN && literal),
        ]);
        // `obj = ..`, or with `AVOID_OBJ_WHOLE_ASSIGN` a new binding `let mut obj = ..`.
        let whole = |e: E| match e {
            E::Struct(ty, fields) if AVOID_OBJ_WHOLE_ASSIGN => S::LetStruct {
                name: OBJ.to_string(),
                ty,
                fields,
                mutable: true,
            },
            e if AVOID_OBJ_WHOLE_ASSIGN => S::Let {
                name: OBJ.to_string(),
                mutable: true,
                typed: false,
                e,
            },
            e => S::Assign {
                lv: Lv::Var(OBJ.to_string()),
                op: "=",
                e,
            },
        };
        let arg = |g: &mut Self| {
            let (e, b) = g.expr(2);
            let e = g.squash(e, b, 2.0).0;
            A::F(g.scalar_arg(e))
        };
        match k {
            0 => {
                let i = self.rng.below(o.fields.len());
                let lv = Lv::Var(format!("{OBJ}.{}", o.fields[i]));
                let mult = self.mult as f64;
                let room = (FIELD - ASSIGNED - o.inc[i]).min(0.3) / mult;
                let mut op = self.rng.pick(&["=", "=", "+=", "-=", "*=", "*="]);
                if matches!(op, "+=" | "-=") && room < 0.01 {
                    op = "*=";
                }
                let (e, b) = self.expr(2);
                let e = match op {
                    "+=" | "-=" => {
                        let (e, be) = self.squash(e, b, room);
                        if let Some(w) = self.objw.as_mut() {
                            w.inc[i] += be * mult;
                        }
                        e
                    }
                    "=" => self.squash(e, b, ASSIGNED).0,
                    // A factor within 1.
                    _ => self.squash(e, b, 1.0).0,
                };
                out.push(S::Assign { lv, op, e });
            }
            1 => {
                let args = (0..o.bump).map(|_| arg(self)).collect();
                out.push(S::CallStmt(E::Call(format!("{OBJ}.bump"), args)));
            }
            2 => {
                let args = vec![arg(self)];
                out.push(whole(E::Call(format!("{OBJ}.next"), args)));
            }
            _ => {
                let fields = o
                    .fields
                    .iter()
                    .map(|f| {
                        let (e, b) = self.expr(2);
                        (f.clone(), self.squash(e, b, ASSIGNED).0)
                    })
                    .collect();
                out.push(whole(E::Struct(o.ty.clone(), fields)));
            }
        }
        if let Some(w) = self.objw.as_mut() {
            w.writes += 1;
        }
    }

    /// An arm of an `if` expression: an expression or a block.
    fn arm(&mut self) -> (E, f64) {
        if self.rng.chance(0.3) {
            self.block_expr()
        } else {
            self.expr(2)
        }
    }

    /// `{ let b = ..; tail }` whose tail reads `b`.
    fn block_expr(&mut self) -> (E, f64) {
        let name = self.fresh("b");
        let (e, b) = self.arg(2);
        let scope = self.scope();
        let st = S::Let {
            name: name.clone(),
            mutable: false,
            typed: self.rng.chance(0.2),
            e,
        };
        self.push_fv(name.clone(), b, false);
        let (e2, b2) = self.expr(1);
        let (tail, bt) = if self.rng.chance(0.5) {
            (bin("*", v(&name), e2), b * b2)
        } else {
            (bin("+", e2, v(&name)), b + b2)
        };
        self.restore(scope);
        let (tail, bt) = self.limit(tail, bt);
        (E::Block(vec![st], Box::new(tail)), bt)
    }

    /// The final expression: reads the unread and mutable values and the local arrays.
    pub fn tail(&mut self) -> E {
        let mut terms: Vec<(E, f64)> = Vec::new();
        let names: Vec<FV> = self
            .fv
            .iter()
            .filter(|f| (f.unread || f.mutable) && !f.deref)
            .cloned()
            .collect();
        for f in names.iter().rev().take(4) {
            terms.push((v(&f.name), f.bound));
        }
        let locals: Vec<AV> = self.av.iter().filter(|a| a.local).cloned().collect();
        for a in locals.iter().take(2) {
            let idx = ilit(self.rng.below(self.len));
            terms.push((E::Index(a.name.clone(), idx), a.bound));
        }
        let locals2: Vec<AV> = self.a2.iter().filter(|a| a.local).cloned().collect();
        for a in locals2.iter().take(1) {
            let (i, j) = (
                ilit(self.rng.below(self.len)),
                ilit(self.rng.below(self.len)),
            );
            terms.push((E::Index2(a.name.clone(), i, j, true), a.bound));
        }
        if terms.is_empty() || self.rng.chance(0.3) {
            terms.push(self.expr(2));
        }
        let (mut e, mut b) = terms[0].clone();
        for (t, bt) in terms.into_iter().skip(1) {
            let (t, bt) = if self.rng.chance(0.3) {
                let f = self.rng.pick(&["sin", "cos", "tanh"]);
                (self.call(f, vec![t]), 1.0)
            } else {
                (t, bt)
            };
            match self.rng.below(4) {
                0 => {
                    e = bin("-", e, t);
                    b += bt;
                }
                1 => {
                    e = bin("*", e, t);
                    b *= bt;
                }
                _ => {
                    e = bin("+", e, t);
                    b += bt;
                }
            }
            let (e2, b2) = self.limit(e, b);
            e = e2;
            b = b2;
        }
        e
    }
}

/// Generates a body of about `opts.stmts` statements and a tail for the given parameters.
pub fn function(rng: &mut Rng, name: String, params: Vec<Param>, opts: Opts) -> (Func, f64) {
    let ret = opts.ret;
    let squash_out = opts.squash_out;
    let obj = opts.obj.clone();
    let mut g = G::new(rng, &params, opts);
    let mut body = Vec::new();
    if let Some(o) = obj {
        // Fields from the parameters (a variable, an element, a literal), bounded by the bound
        // the methods assume (by `ASSIGNED` when the instance is written, see `ObjW::inc`).
        let l = if o.bump.is_some() { ASSIGNED } else { FIELD };
        let fields = o
            .fields
            .iter()
            .map(|f| {
                let (e, b) = g.leaf();
                (f.clone(), g.squash(e, b, l).0)
            })
            .collect();
        body.push(S::LetStruct {
            name: OBJ.to_string(),
            ty: o.ty.clone(),
            fields,
            mutable: o.bump.is_some(),
        });
        if let Some(bump) = o.bump {
            // Its fields are read directly too (`obj.fa`).
            for f in &o.fields {
                g.fv.push(FV {
                    name: format!("{OBJ}.{f}"),
                    bound: FIELD,
                    unread: true,
                    ..Default::default()
                });
            }
            g.written = Some(OBJ);
            g.objw = Some(ObjW {
                ty: o.ty,
                inc: vec![0.0; o.fields.len()],
                fields: o.fields,
                bump,
                writes: 0,
            });
        }
    }
    while g.budget > 0 {
        g.stmt(&mut body);
    }
    if let Some(w) = &g.objw {
        // At least one write, and a read after the last one, which the result depends on.
        if w.writes == 0 {
            g.obj_read(&mut body);
            g.obj_write(&mut body);
        }
        g.obj_read(&mut body);
    }
    let (end, tail) = g.finish(&params, squash_out);
    body.extend(end);
    let body = std::mem::take(&mut g.consts)
        .into_iter()
        .chain(body)
        .collect();
    (
        Func {
            name,
            params,
            wrt: None,
            ret,
            body,
            tail,
            receiver: false,
            mut_self: false,
            bound: None,
        },
        LIMIT,
    )
}

/// What a method of the user type that writes its instance does (see [`writer`]).
pub enum Writer {
    /// `fn bump(&mut self, ..)`: writes fields of `self`.
    Bump,
    /// `fn next(&self, ..) -> Self`: builds a new value, `Ty { f: .., .. }` (the struct's
    /// name).
    Next(String),
}

/// A method of the user type for a main function that writes its instance: a body of about
/// `opts.stmts` statements reading the fields (`opts.fields`, `self.NAME`) and the parameters,
/// then, for [`Writer::Bump`], writes of some of the fields (`self.fa = ..`, `self.fb *= ..`;
/// later writes read the earlier ones), or for [`Writer::Next`] a struct expression. Every
/// field assigned is within [`ASSIGNED`], and a factor is within 1 (see `ObjW::inc`).
pub fn writer(rng: &mut Rng, name: String, params: Vec<Param>, opts: Opts, kind: Writer) -> Func {
    let fields = opts.fields.clone();
    let mut g = G::new(rng, &params, opts);
    if matches!(kind, Writer::Bump) {
        g.written = Some("self");
    }
    let mut body = Vec::new();
    while g.budget > 0 {
        g.stmt(&mut body);
    }
    // The first write reads what the body computed (the tail reads the unread values).
    let first = |g: &mut G<'_>| {
        let t = g.tail();
        g.squash(t, LIMIT, ASSIGNED).0
    };
    let (ret, tail, mut_self) = match kind {
        Writer::Bump => {
            let n = g.rng.range(1, fields.len());
            let start = g.rng.below(fields.len());
            for j in 0..n {
                let f = &fields[(start + j) % fields.len()];
                let (op, e) = if j == 0 {
                    ("=", first(&mut g))
                } else {
                    let (e, b) = g.expr(2);
                    if g.rng.chance(0.5) {
                        ("=", g.squash(e, b, ASSIGNED).0)
                    } else {
                        ("*=", g.squash(e, b, 1.0).0)
                    }
                };
                body.push(S::Assign {
                    lv: Lv::Var(f.clone()),
                    op,
                    e,
                });
            }
            (Ret::Unit, Vec::new(), true)
        }
        Writer::Next(ty) => {
            let fs = fields
                .iter()
                .enumerate()
                .map(|(j, f)| {
                    let e = if j == 0 {
                        first(&mut g)
                    } else {
                        let (e, b) = g.expr(2);
                        g.squash(e, b, ASSIGNED).0
                    };
                    (f.trim_start_matches("self.").to_string(), e)
                })
                .collect();
            (Ret::SelfTy, vec![E::Struct(ty, fs)], false)
        }
    };
    Func {
        name,
        params,
        wrt: None,
        ret,
        body,
        tail,
        receiver: true,
        mut_self,
        bound: None,
    }
}
