//! Generates the differential fuzzer's programs (see the crate documentation in `src/lib.rs`).
//!
//! - `$OUT_DIR/programs.rs`: [`LIB_COUNT`] programs `p_k(x0: f64, x1: f64, x2: f64) -> f64`
//!   of the library, from a fixed seed (the `cross_crate` test calls them from another crate).
//! - `$OUT_DIR/fuzz_{s}.rs` for each of the [`SHARDS`] test files `tests/fuzz_{s}.rs`: the
//!   `#[revad::reverse]` programs, the same programs under `#[revad::reverse(cps)]` (module
//!   `programs_cps`: the library's and the first programs of the shard, [`DEFAULT_CPS_COUNT`]
//!   over all shards, less those of the shape of a known CPS bug, see [`cps_avoid`]), their
//!   oracles (generic over the harness's `Real`), and a table of cases with the inputs at
//!   which the tests compare them.
//!
//! - `$OUT_DIR/all_sources.rs`: the source of every program, for `tests/coverage.rs`, and
//!   `$OUT_DIR/avoid.rs`, the `AVOID_*` flags it reads.
//!
//! Environment: `AD_FUZZ_SEED` (a number, decimal or `0x` hex, or `fresh` for one from the
//! clock), `AD_FUZZ_COUNT` (the number of programs, default [`DEFAULT_COUNT`]) and
//! `AD_FUZZ_CPS_COUNT` (how many of them also get a CPS copy, default [`DEFAULT_CPS_COUNT`]
//! or all of them if fewer).

#[path = "build/ast.rs"]
mod ast;
#[path = "build/gen.rs"]
mod random;

use std::fmt::Write as _;
use std::path::Path;

use ast::{Func, Lv, Param, Printer, Ret, UserType, S};
use random::{Helper, Opts, Rng, HK, OBJ};

/// The number of flat elements of a parameter (0 for an integer).
fn width(p: &Param, len: usize) -> usize {
    match p {
        Param::Scalar(_) | Param::MutScalar(_) => 1,
        Param::Int(_) | Param::Obj(_) => 0,
        _ => len,
    }
}

/// The seed of the CI corpus.
const DEFAULT_SEED: u64 = 0x00ad_f022_2026_0001;
/// The number of programs of the CI corpus.
const DEFAULT_COUNT: usize = 1000;
/// The number of programs that also get a copy under `#[revad::reverse(cps)]`: CPS code takes
/// longer to compile (a copy of each of the 1000 programs made the fuzzer's build about four
/// times slower), so CI checks a quarter of the corpus under both backends.
const DEFAULT_CPS_COUNT: usize = 250;
/// The number of test files the programs are split over (compiled in parallel).
const SHARDS: usize = 4;
/// The seed of the library's programs (fixed: other crates' tests call them).
const LIB_SEED: u64 = 0x00ad_5eed_2024_0611;
/// The number of library programs.
const LIB_COUNT: usize = 8;
/// Points at which each program is checked.
const POINTS: usize = 3;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-env-changed=AD_FUZZ_SEED");
    println!("cargo:rerun-if-env-changed=AD_FUZZ_COUNT");
    println!("cargo:rerun-if-env-changed=AD_FUZZ_CPS_COUNT");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    let seed = match std::env::var("AD_FUZZ_SEED") {
        Ok(s) if s == "fresh" => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_nanos() as u64,
        Ok(s) => match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).expect("AD_FUZZ_SEED: hex number"),
            None => s.parse().expect("AD_FUZZ_SEED: a number, 0x.. or `fresh`"),
        },
        Err(_) => DEFAULT_SEED,
    };
    let count: usize = std::env::var("AD_FUZZ_COUNT")
        .map(|s| s.parse().expect("AD_FUZZ_COUNT: a number"))
        .unwrap_or(DEFAULT_COUNT);
    let cps_count: usize = std::env::var("AD_FUZZ_CPS_COUNT")
        .map(|s| s.parse().expect("AD_FUZZ_CPS_COUNT: a number"))
        .unwrap_or(DEFAULT_CPS_COUNT)
        .min(count);

    let mut lib_rng = Rng::new(LIB_SEED);
    let lib: Vec<Program> = (0..LIB_COUNT)
        .map(|k| program(&mut lib_rng, format!("p_{k}"), true))
        .collect();
    std::fs::write(out.join("programs.rs"), lib_file(&lib)).expect("write programs.rs");

    let mut rng = Rng::new(seed);
    let programs: Vec<Program> = (0..count)
        .map(|k| program(&mut rng, format!("q_{k}"), false))
        .collect();
    let all: String = lib.iter().chain(&programs).map(Program::source).collect();
    std::fs::write(out.join("all_sources.rs"), all).expect("write all_sources.rs");
    // The flags `tests/coverage.rs` reads to know which shapes of a written instance to require.
    {
        use random::avoid::*;
        let flags = [
            ("AVOID_OBJ_WHOLE_ASSIGN", AVOID_OBJ_WHOLE_ASSIGN),
            (
                "AVOID_OBJ_METHOD_STRUCT_RESULT",
                AVOID_OBJ_METHOD_STRUCT_RESULT,
            ),
        ];
        let text: String = flags
            .iter()
            .map(|(n, v)| format!("pub const {n}: bool = {v};\n"))
            .collect();
        std::fs::write(out.join("avoid.rs"), text).expect("write avoid.rs");
    }
    for s in 0..SHARDS {
        let part = &programs[s * count / SHARDS..(s + 1) * count / SHARDS];
        // The first programs of each shard get a CPS copy, `cps_count` in all.
        let cps = (s + 1) * cps_count / SHARDS - s * cps_count / SHARDS;
        let lib_part: &[Program] = if s == 0 { &lib } else { &[] };
        std::fs::write(
            out.join(format!("fuzz_{s}.rs")),
            shard_file(seed, part, cps, lib_part),
        )
        .expect("write a shard");
    }
}

/// A main function with its helpers and the points at which it is checked.
struct Program {
    fty: &'static str,
    len: usize,
    helpers: Vec<Func>,
    /// The user type the main function calls the methods of, if any.
    user: Option<UserType>,
    main: Func,
    points: Vec<Vec<f64>>,
    seed: f64,
    /// The seeds of the `&mut` parameters on return, flattened.
    out_seeds: Vec<f64>,
    /// A library program (`revad_random_programs::p_k`).
    lib: bool,
}

impl Program {
    /// The number of float inputs, flattened.
    fn inputs(&self) -> usize {
        self.main.params.iter().map(|p| width(p, self.len)).sum()
    }

    /// The number of flat outputs of the `&mut` parameters.
    fn outs(&self) -> usize {
        self.main
            .params
            .iter()
            .filter(|p| p.is_mut())
            .map(|p| width(p, self.len))
            .sum()
    }

    /// The `let mut` bindings of the `&mut` arguments (`mut_k`, from the flat inputs `x`), and
    /// the expression that flattens them after the call.
    fn buffers(&self) -> (String, String) {
        let mut k = 0;
        let mut pre = String::new();
        let mut post = String::from("{ let mut o = Vec::new(); ");
        for (n, p) in self.main.params.iter().enumerate() {
            let w = width(p, self.len);
            let elems = (k..k + w)
                .map(|i| format!("x[{i}]"))
                .collect::<Vec<_>>()
                .join(", ");
            match p {
                Param::MutScalar(_) => {
                    let _ = write!(pre, "let mut mut_{n} = {elems}; ");
                    let _ = write!(post, "o.push(mut_{n}); ");
                }
                Param::MutSlice(_) | Param::MutArray(_) => {
                    let _ = write!(pre, "let mut mut_{n} = [{elems}]; ");
                    let _ = write!(post, "o.extend(mut_{n}.iter().copied()); ");
                }
                Param::MutVec(_) => {
                    let _ = write!(pre, "let mut mut_{n} = vec![{elems}]; ");
                    let _ = write!(post, "o.extend(mut_{n}.iter().copied()); ");
                }
                _ => {}
            }
            k += w;
        }
        post += "o }";
        (pre, post)
    }

    /// The tangent arguments of `_jvp` (one per active float parameter, of its type) from the
    /// flat tangents `t`: the `let mut` bindings of the `&mut` ones (`tan_k`), the
    /// arguments, and the expression that flattens the `&mut` tangents after the call.
    fn tangents(&self) -> (String, String, String) {
        let mut k = 0;
        let mut pre = String::new();
        let mut args = Vec::new();
        let mut post = String::from("{ let mut o = Vec::new(); ");
        for (n, p) in self.main.params.iter().enumerate() {
            let w = width(p, self.len);
            let elems = (k..k + w)
                .map(|i| format!("t[{i}]"))
                .collect::<Vec<_>>()
                .join(", ");
            k += w;
            let active = match &self.main.wrt {
                Some(ws) => ws.iter().any(|x| x == p.name()),
                None => true,
            };
            if !active {
                continue;
            }
            match p {
                Param::Int(_) | Param::Obj(_) => {}
                Param::Scalar(_) => args.push(elems),
                Param::Slice(_) => args.push(format!("&[{elems}]")),
                Param::Array(_) => args.push(format!("[{elems}]")),
                Param::Vec(_) => args.push(format!("vec![{elems}]")),
                Param::VecRef(_) => args.push(format!("&vec![{elems}]")),
                Param::MutScalar(_) => {
                    let _ = write!(pre, "let mut tan_{n} = {elems}; ");
                    let _ = write!(post, "o.push(tan_{n}); ");
                    args.push(format!("&mut tan_{n}"));
                }
                Param::MutSlice(_) | Param::MutArray(_) => {
                    let _ = write!(pre, "let mut tan_{n} = [{elems}]; ");
                    let _ = write!(post, "o.extend(tan_{n}.iter().copied()); ");
                    args.push(format!("&mut tan_{n}"));
                }
                Param::MutVec(_) => {
                    let _ = write!(pre, "let mut tan_{n} = vec![{elems}]; ");
                    let _ = write!(post, "o.extend(tan_{n}.iter().copied()); ");
                    args.push(format!("&mut tan_{n}"));
                }
            }
        }
        post += "o }";
        (pre, args.join(", "), post)
    }

    /// The seeds of the `&mut` parameters, as arguments of `_vjp`, from the flat `so`.
    fn seed_args(&self) -> String {
        let mut k = 0;
        let mut out = Vec::new();
        for p in self.main.params.iter().filter(|p| p.is_mut()) {
            let w = width(p, self.len);
            let elems = (k..k + w)
                .map(|i| format!("so[{i}]"))
                .collect::<Vec<_>>()
                .join(", ");
            out.push(match p {
                Param::MutScalar(_) => elems,
                Param::MutArray(_) => format!("[{elems}]"),
                _ => format!("vec![{elems}]"),
            });
            k += w;
        }
        out.join(", ")
    }

    /// The flat indices of the active inputs, in the order of the gradient.
    fn active(&self) -> Vec<usize> {
        let mut k = 0;
        let mut out = Vec::new();
        for p in &self.main.params {
            let n = width(p, self.len);
            let on = match &self.main.wrt {
                Some(w) => w.iter().any(|x| x == p.name()),
                None => true,
            };
            if on {
                out.extend(k..k + n);
            }
            k += n;
        }
        out
    }

    /// The arguments of a call, built from the flat inputs `x`.
    fn args(&self) -> String {
        let mut k = 0;
        let mut out = Vec::new();
        for (n, p) in self.main.params.iter().enumerate() {
            let elems = |k: usize| {
                (k..k + self.len)
                    .map(|i| format!("x[{i}]"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push(match p {
                Param::Scalar(_) => {
                    k += 1;
                    format!("x[{}]", k - 1)
                }
                Param::Int(_) => self.len.to_string(),
                Param::Obj(_) => unreachable!("not a parameter of a main function"),
                Param::Slice(_) => {
                    k += self.len;
                    format!("&[{}]", elems(k - self.len))
                }
                Param::Array(_) => {
                    k += self.len;
                    format!("[{}]", elems(k - self.len))
                }
                Param::Vec(_) => {
                    k += self.len;
                    format!("vec![{}]", elems(k - self.len))
                }
                Param::VecRef(_) => {
                    k += self.len;
                    format!("&vec![{}]", elems(k - self.len))
                }
                Param::MutScalar(_) => {
                    k += 1;
                    format!("&mut mut_{n}")
                }
                Param::MutSlice(_) | Param::MutArray(_) | Param::MutVec(_) => {
                    k += self.len;
                    format!("&mut mut_{n}")
                }
            });
        }
        out.join(", ")
    }

    fn source(&self) -> String {
        self.plain(false)
    }

    /// The source under the continuation-passing backend, `#[revad::reverse(cps)]`.
    fn source_cps(&self) -> String {
        self.plain(true)
    }

    fn plain(&self, cps: bool) -> String {
        let s = self.printed(cps);
        if cps || !self.forward() {
            return s;
        }
        // Under `#[revad::forward]` too, with the same `wrt(..)`: `#[revad::reverse(ARGS)]` becomes
        // `#[revad::forward(ARGS)]` followed by it.
        let mut out = String::new();
        for line in s.lines() {
            if let Some(rest) = line.strip_prefix("#[revad::reverse") {
                let _ = writeln!(out, "#[revad::forward{rest}");
            }
            out += line;
            out += "\n";
        }
        out
    }

    /// The functions under `#[revad::reverse]` (or `#[revad::reverse(cps)]`) alone.
    fn printed(&self, cps: bool) -> String {
        let p = Printer {
            oracle: false,
            fty: self.fty,
            len: self.len,
            cps,
        };
        let mut s = String::new();
        if let Some(u) = &self.user {
            s += &p.user_type(u);
            s += "\n";
        }
        for h in &self.helpers {
            s += &p.func(h);
            s += "\n";
        }
        s += &p.func(&self.main);
        s
    }

    /// Whether the program is also under `#[revad::forward]` (its `NAME_jvp` checked): every
    /// generated program but those of a shape `forward_avoid` lists. (Forward 1, fixed: after
    /// `v.remove(i)` with the value dropped, `NAME_jvp` read the tangent of the element that
    /// was at `i`.)
    fn forward(&self) -> bool {
        let avoided = forward_avoid::AVOID_FORWARD_NESTED && self.nested()
            || forward_avoid::AVOID_FORWARD_METHODS && self.user.is_some();
        !self.lib && !avoided
    }

    /// Whether the program has a local 2-D array or table (`[[`).
    fn nested(&self) -> bool {
        self.printed(false).contains("[[")
    }

    fn oracle(&self) -> String {
        let p = Printer {
            oracle: true,
            fty: self.fty,
            len: self.len,
            cps: false,
        };
        let mut s = String::new();
        if let Some(u) = &self.user {
            s += &p.user_type(u);
            s += "\n";
        }
        for h in &self.helpers {
            s += &p.func(h);
            s += "\n";
        }
        s += &p.func(&self.main);
        s
    }
}

/// Shapes that `#[revad::forward]` rejects: a program with one gets no `NAME_jvp` check.
mod forward_avoid {
    /// A local 2-D array or table (`[[0.0; N]; N]`): documented, "#[revad::forward] does not
    /// differentiate structs, tuples of arrays, nested containers or methods yet".
    pub const AVOID_FORWARD_NESTED: bool = true;
    /// A user type with methods and a trait: documented as above (methods).
    pub const AVOID_FORWARD_METHODS: bool = true;
}

/// Known bugs of the CPS backend: a program with one of these shapes gets no CPS copy (the
/// entries of `fuzz-findings.md`; set a flag to `false` when its bug is fixed).
mod cps_avoid {
    /// CPS 1: an element of a local array written after an assignment to a float variable
    /// (in the continuation block that the assignment opens) does not compile (E0597/E0716):
    /// the element's new cell dies with that block, but the array of cells, which has one
    /// lifetime for all its elements, is read by back parts outside it.
    pub const AVOID_CPS_ARRAY_WRITE_AFTER_ASSIGN: bool = false;
    /// A local 2-D array or table (`[[0.0; N]; N]`): was documented as rejected under
    /// `#[reverse(cps)]`, which now takes nested containers (and user types: programs with one
    /// get a CPS copy too).
    pub const AVOID_CPS_NESTED: bool = false;
    /// CPS 4: a `Vec` collected from a closure that calls a `#[reverse(cps)]` function, then
    /// an element in an operation with a literal that a method is called on: E0689 "can't call
    /// method `tanh` on ambiguous numeric type `{float}`" (the element's type is lost):
    ///
    /// ```text
    /// #[revad::reverse(cps)]
    /// pub fn h(a0: f64, a1: f64) -> f64 { a0 * a1.sin() }
    /// #[revad::reverse(cps)]
    /// pub fn e3(x0: f64, r0: &Vec<f64>) -> f64 {
    ///     let c = r0.iter().map(|&p| h(p, x0)).collect::<Vec<f64>>();
    ///     (0.5 * c[1]).tanh()
    /// }
    /// ```
    pub const AVOID_CPS_COLLECT_CALL: bool = false;
    /// CPS 3: a `&mut [f64]` / `&mut Vec<f64>` parameter passed twice to a callee that reads
    /// it (`dot(&*s, &*s)`) and not modified afterwards: E0382 (a `Vec<&NumR>` of cells moved
    /// into a continuation closure, then borrowed).
    pub const AVOID_CPS_MUT_ARRAY_TWICE: bool = false;
}

impl Program {
    /// Whether the program has the shape of a known CPS bug (see [`cps_avoid`]).
    fn cps_avoided(&self) -> bool {
        let twice = self.main.params.iter().filter(|p| p.is_mut()).any(|p| {
            let n = p.name();
            self.source().contains(&format!("&*{n}, &*{n})"))
        });
        (cps_avoid::AVOID_CPS_MUT_ARRAY_TWICE && twice)
            || (cps_avoid::AVOID_CPS_NESTED && self.nested())
            || (cps_avoid::AVOID_CPS_COLLECT_CALL && self.printed(false).contains(".collect::<"))
            || cps_avoid::AVOID_CPS_ARRAY_WRITE_AFTER_ASSIGN
                && self
                    .helpers
                    .iter()
                    .chain([&self.main])
                    .any(|f| write_after_assign(&f.body))
    }
}

/// Whether an element of an array is written after (in execution order: a loop body runs
/// twice) an assignment to a float variable.
fn write_after_assign(body: &[S]) -> bool {
    fn walk(body: &[S], assigned: &mut bool) -> bool {
        body.iter().any(|s| match s {
            S::Assign { lv: Lv::Var(_), .. } => {
                *assigned = true;
                false
            }
            S::Assign {
                lv: Lv::Idx(..), ..
            } => *assigned,
            S::If { then, els, .. } => {
                let before = *assigned;
                let mut a = before;
                let mut b = before;
                let hit = walk(then, &mut a) || els.as_ref().is_some_and(|e| walk(e, &mut b));
                *assigned = a || b;
                hit
            }
            S::For { body, .. } | S::While { body, .. } | S::Loop(body) => {
                walk(body, assigned) || walk(body, assigned)
            }
            _ => false,
        })
    }
    walk(body, &mut false)
}

fn program(rng: &mut Rng, name: String, lib: bool) -> Program {
    let fty = if !lib && rng.chance(0.2) {
        "f32"
    } else {
        "f64"
    };
    let len = if lib { 3 } else { rng.range(2, 4) };
    let mut helpers = Vec::new();
    let mut helper_sigs = Vec::new();
    if !lib {
        let n = rng.weighted(&[5, 4, 2]);
        for j in 0..n {
            let (kinds, ret): (Vec<HK>, Ret) = match rng.below(9) {
                0 => (vec![HK::S, HK::S], Ret::F),
                1 => (vec![HK::S], Ret::F),
                2 => (vec![HK::Sl, HK::S], Ret::F),
                3 => (vec![HK::Sl, HK::Sl], Ret::F),
                4 => (vec![HK::S, HK::S, HK::S], Ret::F),
                // `&mut` parameters: a result, or `()`.
                5 => {
                    let ret = if rng.chance(0.5) { Ret::F } else { Ret::Unit };
                    (vec![HK::MutS, HK::S], ret)
                }
                6 => {
                    let ret = if rng.chance(0.6) { Ret::Unit } else { Ret::F };
                    let other = if rng.chance(0.3) { HK::Sl } else { HK::S };
                    (vec![HK::MutSl, other], ret)
                }
                // Array, `Vec` and tuple results.
                7 => {
                    let kinds = if rng.chance(0.5) {
                        vec![HK::Sl, HK::S]
                    } else {
                        vec![HK::S, HK::S]
                    };
                    let ret = if rng.chance(0.5) { Ret::Arr } else { Ret::Vec };
                    (kinds, ret)
                }
                _ => {
                    let kinds = if rng.chance(0.5) {
                        vec![HK::Sl, HK::S]
                    } else {
                        vec![HK::S, HK::S]
                    };
                    (kinds, Ret::Tup)
                }
            };
            let params: Vec<Param> = kinds
                .iter()
                .enumerate()
                .map(|(i, k)| match k {
                    HK::S => Param::Scalar(format!("a{i}")),
                    HK::Sl => Param::Slice(format!("w{i}")),
                    HK::MutS => Param::MutScalar(format!("ou{i}")),
                    HK::MutSl => Param::MutSlice(format!("su{i}")),
                    HK::Ref => unreachable!("only the generic function of a user type"),
                })
                .collect();
            let hname = format!("{name}_h{j}");
            let opts = Opts {
                len,
                stmts: rng.range(1, 5),
                helpers: Vec::new(),
                mut_bound: random::LIMIT,
                ret,
                squash_out: true,
                stop_gradient: !lib,
                fields: Vec::new(),
                obj: None,
            };
            let (mut f, bound) = random::function(rng, hname.clone(), params, opts);
            // `#[revad::reverse(wrt(..))]` leaving out one parameter of a helper without
            // `&mut` ones: its callers pass a constant (a literal, a constant array) there.
            let mut inactive = Vec::new();
            if kinds.len() >= 2
                && !kinds.iter().any(|k| matches!(k, HK::MutS | HK::MutSl))
                && rng.chance(0.3)
            {
                let out = rng.below(kinds.len());
                inactive.push(out);
                f.wrt = Some(
                    f.params
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != out)
                        .map(|(_, p)| p.name().to_string())
                        .collect(),
                );
            }
            helpers.push(f);
            helper_sigs.push(Helper {
                name: hname,
                kinds,
                bound,
                ret,
                inactive,
            });
        }
    }
    let user =
        (!lib && rng.chance(USER_TYPES)).then(|| user_type(rng, &name, len, &mut helper_sigs));
    let needs_array = helper_sigs.iter().any(|h| h.kinds.contains(&HK::Sl));
    let mut params = Vec::new();
    let scalars = if lib { 3 } else { rng.range(1, 3) };
    for i in 0..scalars {
        params.push(Param::Scalar(format!("x{i}")));
    }
    if !lib {
        let arrays = rng.range(usize::from(needs_array), 2);
        for i in 0..arrays {
            params.push(match rng.below(4) {
                0 => Param::Slice(format!("xs{i}")),
                1 => Param::Array(format!("a{i}")),
                2 => Param::Vec(format!("v{i}")),
                _ => Param::VecRef(format!("r{i}")),
            });
        }
        if rng.chance(0.3) {
            params.push(Param::Int("n0".to_string()));
        }
        // `&mut` parameters: inputs on entry, outputs on return.
        let muts = rng.weighted(&[60, 30, 10]);
        for i in 0..muts {
            params.push(match rng.below(4) {
                0 => Param::MutScalar(format!("om{i}")),
                1 => Param::MutSlice(format!("sm{i}")),
                2 => Param::MutArray(format!("am{i}")),
                _ => Param::MutVec(format!("vm{i}")),
            });
        }
    }
    let has_mut = params.iter().any(Param::is_mut);
    let ret = if has_mut && rng.chance(0.4) {
        Ret::Unit
    } else {
        Ret::F
    };
    let opts = Opts {
        len,
        stmts: rng.range(4, 14),
        helpers: helper_sigs,
        mut_bound: 2.0,
        ret,
        squash_out: false,
        stop_gradient: !lib,
        fields: Vec::new(),
        obj: user.as_ref().map(|u| random::Obj {
            ty: u.ty.clone(),
            fields: u.fields.clone(),
            bump: u
                .inherent
                .iter()
                .find(|f| f.name == "bump")
                .map(|f| f.params.len()),
        }),
    };
    let (mut main, _) = random::function(rng, name, params, opts);
    let floats: Vec<String> = main
        .params
        .iter()
        .filter(|p| !matches!(p, Param::Int(_)))
        .map(|p| p.name().to_string())
        .collect();
    if !lib && !has_mut && floats.len() >= 2 && rng.chance(0.15) {
        let mut w: Vec<String> = floats.iter().filter(|_| rng.chance(0.5)).cloned().collect();
        if w.is_empty() || w.len() == floats.len() {
            w = vec![floats[rng.below(floats.len())].clone()];
        }
        main.wrt = Some(w);
    }
    let mut p = Program {
        fty,
        len,
        helpers,
        user,
        main,
        points: Vec::new(),
        seed: rng.pick(&[0.5, -1.5, 2.0, 0.3]),
        out_seeds: Vec::new(),
        lib,
    };
    p.out_seeds = (0..p.outs())
        .map(|_| rng.pick(&[0.5, -1.5, 2.0, 0.3, -0.75, 1.0]))
        .collect();
    let n = p.inputs();
    p.points = (0..POINTS)
        .map(|_| (0..n).map(|_| 3.6 * rng.unit() - 1.8).collect())
        .collect();
    p
}

/// The share of the programs with a user type (see [`user_type`]).
const USER_TYPES: f64 = 0.25;
/// The share of those whose main function writes the instance (`let mut obj`, see
/// [`user_type`]).
const WRITTEN_OBJS: f64 = 0.6;

/// A user type of the program `name` ([`UserType`]), and the helpers through which its main
/// function calls it (added to `sigs`): the method `obj.m(..)`, the associated function
/// `Ty::f(..)`, the trait method on the concrete type `obj.eval(..)` and the generic function
/// `name_g(&obj, ..)`. The method calls `Self::f(..)`, the trait's impl calls `self.m(..)`
/// and `Self::f(..)`, the generic function `m.eval(..)`.
///
/// In [`WRITTEN_OBJS`] of the programs the main function binds `let mut obj` and writes it
/// after reading it (see `random::Obj::bump`), and the inherent `impl` block has two more
/// methods for that: `fn bump(&mut self, a0, ..)`, which writes fields of `self` (after
/// reading them, and `self.m(..)`), and `fn next(&self, a0) -> Self`, which returns a struct
/// expression `Ty { fa: .., .. }`.
fn user_type(rng: &mut Rng, name: &str, len: usize, sigs: &mut Vec<Helper>) -> UserType {
    // CamelCase (`Q3S`): the macro takes `q_3_s::f(..)` for a function of a module, by
    // Rust's naming convention.
    let camel: String = name.to_uppercase().replace('_', "");
    let ty = format!("{camel}S");
    let tr = format!("{camel}Tr");
    let fields: Vec<String> = ["fa", "fb", "fc"][..rng.range(1, 3)]
        .iter()
        .map(|f| f.to_string())
        .collect();
    let reads: Vec<String> = fields.iter().map(|f| format!("self.{f}")).collect();
    let helper = |name: String, kinds: Vec<HK>| Helper {
        name,
        kinds,
        bound: random::LIMIT,
        ret: Ret::F,
        inactive: Vec::new(),
    };
    let opts = |helpers: Vec<Helper>, fields: &[String], stmts: usize| Opts {
        len,
        stmts,
        helpers,
        mut_bound: random::LIMIT,
        ret: Ret::F,
        squash_out: true,
        stop_gradient: true,
        fields: fields.to_vec(),
        obj: None,
    };
    let scalars = |n: usize| -> (Vec<HK>, Vec<Param>) {
        (
            vec![HK::S; n],
            (0..n).map(|i| Param::Scalar(format!("a{i}"))).collect(),
        )
    };
    let (f_kinds, f_params) = scalars(rng.range(1, 2));
    let stmts = rng.range(1, 4);
    let (f, _) = random::function(rng, "f".to_string(), f_params, opts(Vec::new(), &[], stmts));
    let (m_kinds, m_params) = scalars(rng.range(1, 2));
    let stmts = rng.range(1, 4);
    let hs = vec![helper("Self::f".to_string(), f_kinds.clone())];
    let (mut m, _) = random::function(rng, "m".to_string(), m_params, opts(hs, &reads, stmts));
    m.receiver = true;
    let stmts = rng.range(1, 4);
    let hs = vec![
        helper("self.m".to_string(), m_kinds.clone()),
        helper("Self::f".to_string(), f_kinds.clone()),
    ];
    let (mut eval, _) = random::function(
        rng,
        "eval".to_string(),
        scalars(1).1,
        opts(hs, &reads, stmts),
    );
    eval.receiver = true;
    let mut inherent = vec![f, m];
    if rng.chance(WRITTEN_OBJS) {
        let hs = || {
            vec![
                helper("self.m".to_string(), m_kinds.clone()),
                helper("Self::f".to_string(), f_kinds.clone()),
            ]
        };
        let stmts = rng.range(1, 4);
        let params = scalars(rng.range(1, 2)).1;
        let bump = random::writer(
            rng,
            "bump".to_string(),
            params,
            opts(hs(), &reads, stmts),
            random::Writer::Bump,
        );
        let stmts = rng.range(1, 4);
        let next = random::writer(
            rng,
            "next".to_string(),
            scalars(1).1,
            opts(hs(), &reads, stmts),
            random::Writer::Next(ty.clone()),
        );
        inherent.extend([bump, next]);
    }
    let gname = format!("{name}_g");
    let stmts = rng.range(1, 4);
    let params = vec![Param::Obj("m".to_string()), Param::Scalar("a1".to_string())];
    let hs = vec![helper("m.eval".to_string(), vec![HK::S])];
    let (mut generic, _) = random::function(rng, gname.clone(), params, opts(hs, &[], stmts));
    generic.bound = Some(tr.clone());
    // The trait method is called at least once: `0.5 * (tail + m.eval(a1))` (bounded by
    // `LIMIT` like the tail).
    let call = ast::E::Call(
        "m.eval".to_string(),
        vec![ast::A::F(ast::E::Var("a1".into()))],
    );
    let tail = generic.tail.pop().expect("a float result");
    generic.tail.push(ast::E::Bin(
        "*",
        Box::new(ast::E::Lit(0.5)),
        Box::new(ast::E::Bin("+", Box::new(tail), Box::new(call))),
    ));
    sigs.push(helper(format!("{OBJ}.m"), m_kinds));
    sigs.push(helper(format!("{ty}::f"), f_kinds));
    sigs.push(helper(format!("{OBJ}.eval"), vec![HK::S]));
    sigs.push(helper(gname, vec![HK::Ref, HK::S]));
    UserType {
        ty,
        tr,
        fields,
        inherent,
        eval,
        generic,
    }
}

/// A float literal of the program's type (rounded to `f32` for `f32` programs).
fn flit(x: f64, fty: &str) -> String {
    if fty == "f32" {
        format!("{:?}", x as f32)
    } else {
        format!("{x:?}")
    }
}

fn lib_file(lib: &[Program]) -> String {
    let mut s = String::from("// @generated by tests/random-programs/build.rs; do not edit.\n\n");
    let _ = writeln!(
        s,
        "/// The number of library programs.\npub const COUNT: usize = {};\n",
        lib.len()
    );
    s += "/// The library programs (with everything `#[revad::reverse]` generates for them).\n";
    s += "#[allow(clippy::all, clippy::pedantic, warnings, missing_docs)]\n";
    s += "mod generated {\n";
    for p in lib {
        s += &p.source();
        s += "\n";
    }
    s += "}\npub use generated::*;\n\n";
    s += "/// The source text of each library program.\npub static SOURCES: &[&str] = &[\n";
    for p in lib {
        let _ = writeln!(s, "    r#\"{}\"#,", p.source());
    }
    s += "];\n";
    s
}

/// A shard: the programs, the CPS copies of the library programs and of the first `cps`
/// programs, the oracles, and the cases.
fn shard_file(seed: u64, programs: &[Program], cps: usize, lib: &[Program]) -> String {
    let mut s = String::from("// @generated by tests/random-programs/build.rs; do not edit.\n\n");
    let _ = writeln!(
        s,
        "/// The generator's seed.\npub const SEED: u64 = {seed:#x};\n"
    );
    s += "/// The `#[revad::reverse]` programs.\n";
    s += "#[allow(clippy::all, clippy::pedantic, warnings, missing_docs)]\n";
    s += "pub mod programs {\n";
    for p in programs {
        s += &p.source();
        s += "\n";
    }
    s += "}\n\n/// The same programs under `#[revad::reverse(cps)]`, with the same names.\n";
    s += "#[allow(clippy::all, clippy::pedantic, warnings, missing_docs)]\n";
    s += "pub mod programs_cps {\n";
    // The programs with a CPS copy: the library's and the first `cps` others, less those of
    // the shape of a known CPS bug.
    let all: Vec<(&Program, bool)> = lib
        .iter()
        .map(|p| (p, !p.cps_avoided()))
        .chain(
            programs
                .iter()
                .enumerate()
                .map(|(k, p)| (p, k < cps && !p.cps_avoided())),
        )
        .collect();
    for (p, _) in all.iter().filter(|(_, cps)| *cps) {
        s += &p.source_cps();
        s += "\n";
    }
    s += "}\n\n/// The oracles: the same programs, generic over the harness's scalar.\n";
    s += "#[allow(clippy::all, clippy::pedantic, warnings, missing_docs)]\n";
    s += "pub mod oracles {\n    use crate::common::Real;\n\n";
    for p in lib.iter().chain(programs) {
        s += &p.oracle();
        s += "\n";
    }
    s += "}\n\n";
    for fty in ["f64", "f32"] {
        let _ = writeln!(
            s,
            "/// The `{fty}` cases.\n#[allow(clippy::all, clippy::pedantic, warnings)]\npub static CASES_{}: &[crate::common::Case<{fty}>] = &[",
            fty.to_uppercase()
        );
        for &(p, cps) in all.iter().filter(|(p, _)| p.fty == fty) {
            s += &case(p, cps);
        }
        s += "];\n\n";
    }
    s
}

/// The case of one program; `cps`: it has a copy in `programs_cps`.
fn case(p: &Program, cps: bool) -> String {
    let name = &p.main.name;
    let path = if p.lib {
        "revad_random_programs".to_string()
    } else {
        "programs".to_string()
    };
    let args = p.args();
    let (pre, bufs) = p.buffers();
    let unit = p.main.ret == Ret::Unit;
    let seeds = p.seed_args();
    let vjp_seeds = match (unit, seeds.is_empty()) {
        (true, _) => seeds.clone(),
        (false, true) => "s".to_string(),
        (false, false) => format!("s, {seeds}"),
    };
    let points: Vec<String> = p
        .points
        .iter()
        .map(|pt| {
            let xs: Vec<String> = pt.iter().map(|&x| flit(x, p.fty)).collect();
            format!("&[{}]", xs.join(", "))
        })
        .collect();
    let active: Vec<String> = p.active().iter().map(usize::to_string).collect();
    let out_seeds: Vec<String> = p.out_seeds.iter().map(|&x| flit(x, p.fty)).collect();
    // `(value, flat gradient, flat buffers)` of `_grad` / `_vjp` of a module.
    let grad = |m: &str| {
        if unit {
            "None".to_string()
        } else {
            format!(
                "Some(|x| {{
            {pre}let (v, g) = {m}::{name}_grad({args});
            (v, crate::common::flat(g), {bufs})
        }})"
            )
        }
    };
    let vjp = |m: &str| {
        let v = if unit { "0.0" } else { "v" };
        format!(
            "|x, s, so| {{
            let _ = (s, so);
            {pre}let (v, g) = {m}::{name}_vjp({args}, {vjp_seeds});
            let _ = v;
            ({v}, crate::common::flat(g), {bufs})
        }}"
        )
    };
    let (cps_grad, cps_vjp) = if cps {
        (
            grad("programs_cps"),
            format!("Some({})", vjp("programs_cps")),
        )
    } else {
        ("None".to_string(), "None".to_string())
    };
    // `_jvp` on flat inputs `x` and flat tangents `t` (one per input; those of inactive inputs
    // are not passed): the value, its tangent, the `&mut` buffers and their tangents on return.
    let jvp = if p.forward() {
        let (tpre, targs, tbufs) = p.tangents();
        let call = format!("{path}::{name}_jvp({args}, {targs})");
        let body = if unit {
            format!("{call};\n            (0.0, 0.0, {bufs}, {tbufs})")
        } else {
            format!("let (v, d) = {call};\n            (v, d, {bufs}, {tbufs})")
        };
        format!(
            "Some(|x, t| {{
            let _ = t;
            {pre}{tpre}{body}
        }})"
        )
    } else {
        "None".to_string()
    };
    let plain = if unit {
        format!("|x| {{ {pre}{path}::{name}({args}); (0.0, {bufs}) }}")
    } else {
        format!("|x| {{ {pre}let v = {path}::{name}({args}); (v, {bufs}) }}")
    };
    let oracle = if unit {
        format!("|x| {{ {pre}oracles::{name}({args}); (crate::common::Real::cst(0.0), {bufs}) }}")
    } else {
        format!("|x| {{ {pre}let v = oracles::{name}({args}); (v, {bufs}) }}")
    };
    format!(
        r####"    crate::common::Case {{
        name: "{name}",
        source: r###"{source}"###,
        call: "{name}({args})",
        inputs: {inputs},
        active: &[{active}],
        points: &[{points}],
        seed: {seed},
        unit: {unit},
        out_seeds: &[{out_seeds}],
        plain: {plain},
        grad: {grad},
        vjp: {vjp},
        cps_grad: {cps_grad},
        cps_vjp: {cps_vjp},
        jvp: {jvp},
        dual: {oracle},
        abs: {oracle},
    }},
"####,
        source = p.source(),
        inputs = p.inputs(),
        active = active.join(", "),
        points = points.join(", "),
        seed = flit(p.seed, p.fty),
        out_seeds = out_seeds.join(", "),
        grad = grad(&path),
        vjp = vjp(&path),
    )
}
