//! The differential fuzzer of `#[revad::reverse]`: random programs over the whole documented
//! subset, each differentiated by the macro and checked against a forward-mode oracle, under
//! both backends: the default tape backend and the continuation-passing `#[reverse(cps)]`.
//!
//! # What runs
//!
//! `build.rs` generates, from a seed (a splitmix64, no dependencies), `AD_FUZZ_COUNT`
//! programs (1000 by default, with a fixed seed, so CI runs the same corpus every time) and
//! splits them over the test files `tests/fuzz_0.rs` .. `tests/fuzz_3.rs`, which cargo compiles
//! in parallel. Each program is emitted from one model four times:
//!
//! 1. as Rust functions annotated with `#[revad::reverse]` (a main function and up to two
//!    helpers it calls): the generated `NAME_grad` and `NAME_vjp` are under test;
//! 2. the same functions under `#[revad::reverse(cps)]`, in the module `programs_cps` of the
//!    test file (for the first `AD_FUZZ_CPS_COUNT` programs, 250 by default, spread over the
//!    shards: CPS code is slower to compile);
//! 3. as an oracle generic over the harness's scalar type, run on `num-dual`'s forward-mode
//!    dual numbers, one pass per input direction;
//! 4. the same oracle run on an absolute-value dual (value, and the sum over computation paths
//!    of the products of absolute local partials), which gives the rounding tolerance.
//!
//! The programs (not the library's, below) are also under `#[revad::forward]`, with the same
//! `wrt(..)`, on the main function and its helpers; see `forward_avoid` in `build.rs` for
//! shapes left out.
//!
//! At three random points per program, the tests require that `_grad` and `_vjp` return the
//! plain function's value bit for bit, that the oracle does too, and that each gradient
//! component lies within `1e-10 * |oracle| + 1e-13 * absdual` (for `f32` programs
//! `1e-5 * |oracle| + 5e-5 * absdual`, the same number of units of roundoff); `_vjp` is
//! checked with a seed other than one. The CPS copy's `_grad` and `_vjp` must pass the same
//! checks, and must return the tape backend's gradients bit for bit (`to_bits()`), except
//! that `0.0` and `-0.0` count as equal, and that where the tape's `_vjp` fuses its last
//! loop's reverse sweep into the forward one (adding the iterations' contributions in the
//! other order) they must agree to `ABS` per unit of the absolute-value dual. `_jvp` is called at each point along one
//! pseudo-random tangent `t` (multiples of 1/64 in [-1, 1]): it must return the value and the
//! `&mut` buffers bit for bit, and satisfy `ṙ = Σ grad·t` and `s·ṙ + Σ s_k·ḃ_k = Σ vjp·t`
//! (`ṙ`, `ḃ_k`: the tangents of the value and of the buffers on return; `s`, `s_k`: the
//! seeds of `_vjp`) to twice the oracle's tolerance summed over the inputs. A failure prints the program's source, the inputs and
//! how they were passed, and the generator's seed.
//!
//! # What the programs contain
//!
//! - parameters `f64` (or `f32`: a fifth of the programs are `f32` throughout), `&[f64]`,
//!   `[f64; N]`, `Vec<f64>`, `&Vec<f64>` and `usize`, sometimes `#[revad::reverse(wrt(..))]`;
//! - `let`, `let mut`, typed lets, shadowing, tuple literals taken apart
//!   (`let (p, q) = (a * b, w[0]);`), block expressions, `+ - * / %`, unary minus,
//!   compound assignment, `as` casts of loop indices;
//! - `if`/`else` on float and integer conditions, as statements and as expressions, early
//!   `return` inside branches and loops;
//! - `for i in a..b`, `a..=b`, `.rev()`, `.step_by(k)`, `for x in xs.iter()`, `for &x in xs`,
//!   `for (i, &x) in xs.iter().enumerate()`, `while`, `loop` with `break`/`continue`, a
//!   `while` on a float condition, nested loops; `#[revad::checkpoint]` (or `(snapshots = k)`,
//!   `k` from 1 to 3) on about a third of the range loops of a function's body whose body does
//!   not jump (not in the oracle, which runs the loop as written);
//! - local arrays `[0.0; N]` and `vec![0.0; n]` read and written at index expressions
//!   (`i`, `N - 1 - i`, `(i + k) % N`, constants); local 2-D arrays `let mut q: [[f64; N];
//!   N] = [[0.0; N]; N];` written element by element (`q[i][j] = ..`, `q[i][j] += ..`, in
//!   loops too) and read (`q[i][j]`), and constant tables `let tab = [[1.0, 2.0], [3.0,
//!   4.0]];` (typed or not) read at index expressions (`tab[i][0]`);
//! - calls of helper functions, with the same argument twice (`h(x, x)`, `dot(w, w)`), local
//!   arrays as arguments (`h(&h0, x)`), and helpers returning `[f64; N]`, `Vec<f64>` (bound by
//!   `let`, sometimes typed, then indexed or iterated) or `(f64, f64)` (taken apart by
//!   `let (a, b) = h(..)`);
//! - `&mut` float parameters (`&mut f64`, `&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`) of
//!   the main function and of helpers, written by `*o = ..`, `*o += ..`, `s[i] op= ..` and
//!   `for v in s.iter_mut()` (also `&mut h`, `.enumerate()`, `.zip(ys.iter())`), functions
//!   returning `()` whose results are their `&mut` parameters, and callers passing `&mut m`
//!   (a local float), `&mut h` (a local array), `&mut *o` and a `&mut` parameter as it is
//!   (`h(s, x)`), or `&*s` to a helper that only reads. For a main function with `&mut`
//!   parameters the harness passes buffers built from the inputs, requires `_grad`/`_vjp` to
//!   leave them as the function does, bit for bit, and checks the gradient (the adjoints of
//!   the buffers on entry included) against the oracle's derivative of
//!   `seed · value + Σ seed_k · buffer_k` with random seeds on the buffers on return
//!   (zero for `_grad`);
//! - helpers under `#[revad::reverse(wrt(..))]` leaving out one parameter, called with a
//!   constant there (a literal, or a constant array `let k = [0.5, 1.5];` passed as `&k`);
//! - closures capturing values (`let f = |c: f64| c * t;` then `f(x)`), and helpers called
//!   in a closure over the array it iterates
//!   (`let c = w.iter().map(|&p| h(&w, p)).collect::<Vec<f64>>();`, then indexed or summed);
//! - iterator chains: `map`/`sum`, `copied`, `zip`, `enumerate`, `filter`, `fold`,
//!   `product`, `(0..n).map(..)`;
//! - methods and traits (a quarter of the programs): a struct `QkS` with float fields and
//!   `#[derive(Clone, revad::Adjoint)]`, which the main function builds from its parameters
//!   (`let obj = QkS { fa: x0, fb: xs0[1], fc: 0.5 };`); an inherent `impl` block under
//!   `#[revad::reverse]` with an associated function without receiver (`fn f(a0: f64)`) and a
//!   `&self` method reading the fields (`self.fa`, in closures too) and calling `Self::f(..)`;
//!   a trait `QkTr` under `#[revad::reverse]` with one required method `eval(&self, a0)`, its
//!   `impl` for the struct (calling `self.m(..)` and `Self::f(..)`), and a function generic
//!   over it, `q_k_g<M: QkTr>(m: &M, a1: f64)`, calling `m.eval(..)`. The main function calls
//!   `obj.m(..)`, `QkS::f(..)`, `obj.eval(..)` and `q_k_g(&obj, ..)` like helpers (in
//!   closures too). The oracle is the same code generic over `T: Real` (`struct QkS<T>`,
//!   `trait QkTr<T>`);
//! - a written instance (60% of the programs with a user type): the main function binds
//!   `let mut obj = QkS { .. };`, reads its fields (`obj.fa`) and writes it after reading it
//!   through the methods (`let t = obj.m(x); obj.fa = ..;`, at the top, in loops, where the
//!   next iteration reads it again, and in `if` arms): `obj.fa = ..`, `obj.fa += ..`,
//!   `obj.fa *= ..`, `obj.bump(..)` of a `&mut self` method that writes fields of `self`
//!   (after reading them and calling `self.m(..)`), `obj = obj.next(..)` of a `&self` method
//!   returning `Self` (a struct expression `QkS { fa: .., .. }`), and `obj = QkS { .. }`; the
//!   fields stay within the bound the methods assume (assigned values within 1, factors
//!   within 1, and a budget for the increments over all their executions). Closures capture
//!   no written instance. Where the macro rejects a shape, `AVOID_OBJ_*` in `build/gen.rs`
//!   says what is generated instead (findings 17-20 of `fuzz-findings.md`: a whole-struct
//!   assignment becomes `let mut obj = QkS { .. };`, and `next` is defined but not called);
//! - every intrinsic of the rule table, as a method and as `f64::name(..)`, on arguments
//!   built to lie in its smooth domain (`ln(0.5 + x * x)`, `asin(0.75 * x.tanh())`), and the
//!   piecewise-smooth ones (`max min abs signum floor ceil round trunc fract copysign
//!   rem_euclid %`) anywhere: the oracle
//!   takes the same branch, and at an exact tie uses the rule table's convention;
//! - zero adjoints through infinite partials: `sqrt cbrt ln powf(.., 0.5)` of an argument
//!   exactly zero (`(t - t).sqrt()`, `(t * 0.0).cbrt()`) behind a `max` or `min` that takes
//!   the other side (`(0.5 + x * x).max(..)`). The macro multiplies the zero adjoint by the
//!   infinite partial as zero (`rules::times_partial`); the oracle's `lift` skips zero
//!   partials alike (num-dual alone would give `0 · ∞ = NaN`), and a NaN anywhere else still
//!   fails the comparison.
//!
//! The programs with a 2-D array or a user type get no `_jvp` check (`#[revad::forward]`
//! rejects nested containers and methods, as documented): see `forward_avoid` in `build.rs`.
//! They do get CPS copies, as every program does but those of the shape of a known CPS bug.
//!
//! Values stay bounded: each value carries a bound, anything that could exceed 8 is squashed
//! with a scaled `tanh`, loops run two to ten times, and updates inside loops are kept small.
//! The shapes that exposed macro bugs are avoided behind the `AVOID_*` constants of
//! `build/gen.rs` (listed in `fuzz-findings.md` at the repository root) until they are fixed;
//! programs of the shape of a known bug of the CPS backend get no CPS copy (`cps_avoid` in
//! `build.rs`).
//!
//! # Running more programs
//!
//! ```sh
//! # 10 000 programs from a fresh seed (printed in any failure report):
//! AD_FUZZ_SEED=fresh AD_FUZZ_COUNT=10000 cargo test -p revad-random-programs
//! # again with a given seed:
//! AD_FUZZ_SEED=0x1234 AD_FUZZ_COUNT=10000 cargo test -p revad-random-programs
//! # 2000 programs, every one also under #[reverse(cps)]:
//! AD_FUZZ_SEED=fresh AD_FUZZ_COUNT=2000 AD_FUZZ_CPS_COUNT=2000 cargo test -p revad-random-programs
//! ```
//!
//! To read the generated programs, open `fuzz_*.rs` under
//! `target/debug/build/revad-random-programs-*/out/`.
//!
//! # This library
//!
//! The library itself holds [`COUNT`] programs `p_k(x0: f64, x1: f64, x2: f64) -> f64` from
//! a fixed seed, so that the `cross_crate` test can call `#[reverse]` functions of another
//! crate; shard 0 checks them like the others. [`SOURCES`] has their source text.

include!(concat!(env!("OUT_DIR"), "/programs.rs"));
