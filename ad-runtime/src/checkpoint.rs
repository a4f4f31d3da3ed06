//! Checkpointed reversal of a long loop: binomial checkpointing (Griewank and Walther's
//! revolve) under a budget of stored states.
//!
//! A loop of `n` steps `x_{i+1} = step(i, x_i)` whose gradient is taken by keeping every
//! state holds `n` states for the reverse sweep. [`revolve`] keeps at most `snapshots` of them
//! (the initial state among them), and recomputes the others from the nearest snapshot when
//! the reverse sweep needs them. With `s` snapshots and `n` steps it evaluates each step at
//! most `t` times more, where `t` is the least integer with `C(s + t, s) ≥ n`: about
//! `s`-th root growth, so that 20 snapshots reverse 10⁸ steps with a few forward sweeps' worth
//! of recomputation ([`Stats::recomputation`] measures it).
//!
//! The gradient is the one of the loop that keeps every state, bit for bit: the reverse sweep
//! calls `step_vjp(i, x_i, ā_{i+1})` for `i = n - 1` down to `0` with the same states and
//! adjoints, and recomputing a state runs the same `step` on the same input.
//!
//! ```
//! use revad_runtime::checkpoint::{revolve, snapshots};
//!
//! // x_{i+1} = 0.5·x_i + 1 for 1000 steps: ∂x_n/∂x_0 = 0.5^n.
//! let (x_n, dx0, stats) = revolve(
//!     1000,
//!     snapshots::<4>(),
//!     3.0_f64,
//!     |_, x| 0.5 * x + 1.0,
//!     |_, _, adj: f64| 0.5 * adj,
//!     |_| 1.0,
//! );
//! assert!((x_n - 2.0).abs() < 1e-12);
//! assert_eq!(dx0, 0.5f64.powi(1000));
//! assert!(stats.max_snapshots <= 4);
//! ```

use core::num::NonZeroUsize;

/// A snapshot budget known at compile time; a budget of zero is a compile error when the
/// caller is built (`cargo build`; `cargo check` does not evaluate the constant).
///
/// ```compile_fail
/// let _ = revad_runtime::checkpoint::snapshots::<0>();
/// ```
pub const fn snapshots<const K: usize>() -> NonZeroUsize {
    const {
        assert!(
            K > 0,
            "a checkpoint budget needs at least one snapshot (the initial state)"
        )
    };
    match NonZeroUsize::new(K) {
        Some(k) => k,
        None => panic!("a checkpoint budget needs at least one snapshot"),
    }
}

/// What one [`revolve`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The number of steps of the loop, `n`.
    pub steps: usize,
    /// The number of calls of `step`: `n` for the forward sweep, plus the recomputations.
    pub forward_steps: usize,
    /// The most states held at once (snapshots, the initial state included).
    pub max_snapshots: usize,
}

impl Stats {
    /// Calls of `step` per step of the loop: 1 when every state was kept, more when states
    /// were recomputed (the cost of the reverse sweep's `step_vjp` calls not included).
    pub fn recomputation(&self) -> f64 {
        if self.steps == 0 {
            return 1.0;
        }
        self.forward_steps as f64 / self.steps as f64
    }
}

/// The state of the loop after `n` steps, the adjoint of the initial state, and what it cost.
///
/// - `step(i, &x_i)` is `x_{i+1}`;
/// - `step_vjp(i, &x_i, ā)` is the adjoint of `x_i` given `ā`, the adjoint of `x_{i+1}`;
///   adjoints of parameters the step reads go where the closure puts them (they are
///   accumulated for `i` from `n - 1` down to `0`, as in the loop that keeps every state);
/// - `seed(&x_n)` is the adjoint of the final state (the gradient of the loss of it).
///
/// At most `snapshots` states are held at once (plus the one being advanced). A generated
/// `NAME_vjp` of a `#[revad::reverse]` step function is a `step_vjp`: see
/// `examples/checkpoint.rs`.
pub fn revolve<S: Clone, A>(
    n: usize,
    snapshots: NonZeroUsize,
    x0: S,
    mut step: impl FnMut(usize, &S) -> S,
    mut step_vjp: impl FnMut(usize, &S, A) -> A,
    seed: impl FnOnce(&S) -> A,
) -> (S, A, Stats) {
    let mut stats = Stats {
        steps: n,
        forward_steps: 0,
        max_snapshots: 1,
    };
    if n == 0 {
        let adj = seed(&x0);
        return (x0, adj, stats);
    }
    let mut sweep = Sweep {
        step: &mut step,
        step_vjp: &mut step_vjp,
        stats: &mut stats,
        last: n - 1,
        end: None,
        seed: Some(seed),
        adj: None,
    };
    sweep.reverse(x0, n, snapshots.get());
    let (Some(end), Some(adj)) = (sweep.end, sweep.adj) else {
        unreachable!("the reverse sweep reaches step 0 after step n - 1")
    };
    (end, adj, stats)
}

/// The reverse sweep in progress.
struct Sweep<'a, S, A, F, V, D> {
    step: &'a mut F,
    step_vjp: &'a mut V,
    stats: &'a mut Stats,
    /// The last step, `n - 1`: reversing it first computes the final state and the seed.
    last: usize,
    end: Option<S>,
    seed: Option<D>,
    adj: Option<A>,
}

impl<S: Clone, A, F, V, D> Sweep<'_, S, A, F, V, D>
where
    F: FnMut(usize, &S) -> S,
    V: FnMut(usize, &S, A) -> A,
    D: FnOnce(&S) -> A,
{
    /// `x_b` from `x_a`.
    fn advance(&mut self, a: usize, b: usize, x: &S) -> S {
        let mut x = x.clone();
        for i in a..b {
            x = (self.step)(i, &x);
            self.stats.forward_steps += 1;
        }
        x
    }

    /// The reverse of step `i` from `x_i`.
    fn reverse_step(&mut self, i: usize, x: &S) {
        let adj = match self.adj.take() {
            Some(adj) => adj,
            None => {
                debug_assert_eq!(i, self.last);
                let end = (self.step)(i, x);
                self.stats.forward_steps += 1;
                let seed = self.seed.take().expect("seeded once");
                let adj = seed(&end);
                self.end = Some(end);
                adj
            }
        };
        self.adj = Some((self.step_vjp)(i, x, adj));
    }

    /// Reverses steps `0..n` from `x_0` with `s` snapshots (`x_0` among them).
    ///
    /// Each frame of the stack is a snapshot `x_a` and the snapshots `s` its segment may use
    /// (itself included); its segment ends where the frame above it starts, or at `n`. A
    /// segment of `l` steps with `s ≥ 2` snapshots is split after `l - C(s - 1 + t, s - 1)`
    /// steps (`t` the least with `C(s + t, s) ≥ l`): the right part is reversed first with
    /// `s - 1` snapshots, then the left part with `s` (Griewank's binomial schedule). (A stack
    /// rather than recursion: a budget of a million snapshots nests a million deep.)
    fn reverse(&mut self, x0: S, n: usize, s: usize) {
        let mut stack: Vec<(usize, S, usize)> = vec![(0, x0, s)];
        let mut b = n;
        while let Some(top) = stack.last() {
            let (a, s) = (top.0, top.2);
            match b - a {
                0 => {
                    stack.pop();
                }
                1 => {
                    self.reverse_step(a, &top.1);
                    b = a;
                }
                l if s == 1 => {
                    // One snapshot: recompute each state from `x_a` (quadratic).
                    for i in (a..a + l).rev() {
                        let x = self.advance(a, i, &top.1);
                        self.reverse_step(i, &x);
                    }
                    b = a;
                }
                l => {
                    let t = repetitions(s, l);
                    let m = a + l.saturating_sub(beta(s - 1, t)).max(1);
                    let x_m = self.advance(a, m, &top.1);
                    stack.push((m, x_m, s - 1));
                    self.stats.max_snapshots = self.stats.max_snapshots.max(stack.len());
                }
            }
        }
    }
}

/// The snapshot budget of `#[revad::checkpoint]` without `snapshots = ..`: 64 states, with
/// which a loop of 10⁸ steps runs each step at most 7 times (`C(64 + 6, 64) ≥ 10⁸`).
pub const DEFAULT_SNAPSHOTS: usize = 64;

/// The schedule of a loop checkpointed by `#[revad::checkpoint]`, driven by the generated
/// code one step at a time (the same binomial schedule as [`revolve`], whose `step` and
/// `step_vjp` are here the loop's own body, inlined in `NAME_vjp`).
///
/// The forward sweep calls [`forward`](Self::forward) until it returns `None`, running the
/// primal step it is given and handing the next state back with [`stepped`](Self::stepped);
/// [`end`](Self::end) is then the state after the loop. The reverse sweep calls
/// [`backward`](Self::backward) until it returns `None`: each action is a state `x_k` and
/// whether to reverse step `k` from it (its forward with the values it keeps, then its
/// reverse), or to run it and hand `x_{k+1}` back with [`stepped`](Self::stepped). Steps are
/// reversed from `n - 1` down to `0`, each once, and at most `snapshots` states are held at
/// once besides the one being advanced.
///
/// ```
/// use revad_runtime::checkpoint::Revolve;
///
/// // x_{k+1} = 0.5·x_k + k: the adjoint of x_0 is 0.5^n.
/// let mut schedule = Revolve::new(0..10usize, 3, 1.0_f64);
/// while let Some((k, x)) = schedule.forward() {
///     let i = schedule.index(k);
///     schedule.stepped(0.5 * x + i as f64);
/// }
/// let _x_n = schedule.end();
/// let (mut adj, mut reversed) = (1.0, Vec::new());
/// while let Some((k, x, reverse)) = schedule.backward() {
///     match reverse {
///         true => {
///             adj *= 0.5;
///             reversed.push(k);
///         }
///         false => schedule.stepped(0.5 * x + schedule.index(k) as f64),
///     }
/// }
/// assert_eq!(adj, 0.5f64.powi(10));
/// assert_eq!(reversed, (0..10).rev().collect::<Vec<_>>());
/// assert!(schedule.stats().max_snapshots <= 3);
/// ```
#[derive(Debug)]
pub struct Revolve<S, R> {
    range: R,
    n: usize,
    /// Snapshots `(a, x_a, s)`: the state at step `a` and the budget of its segment.
    stack: Vec<(usize, S, usize)>,
    /// The end of the segment of the top snapshot.
    b: usize,
    /// The state being advanced, if any.
    work: Option<Work<S>>,
    /// The state after the loop, once the forward sweep computed it.
    end: Option<S>,
    /// Whether the state handed out last is being advanced (`stepped` expected).
    lent: bool,
    stats: Stats,
}

/// A state being advanced towards `target`, then snapshotted or reversed.
#[derive(Debug)]
struct Work<S> {
    at: usize,
    x: Option<S>,
    target: usize,
    /// `Some(s)`: becomes a snapshot with budget `s`; `None`: step `target` is reversed.
    snapshot: Option<usize>,
}

impl<S: Clone, R: Iterator + Clone> Revolve<S, R> {
    /// The schedule of the loop `for i in range` from the state `x0`, holding at most
    /// `snapshots` states (the initial one among them).
    ///
    /// # Panics
    ///
    /// If `snapshots` is 0 (`#[revad::checkpoint(snapshots = 0)]` is a compile error), or if
    /// the range does not know its length.
    pub fn new(range: R, snapshots: usize, x0: S) -> Self {
        assert!(
            snapshots > 0,
            "a checkpoint budget needs at least one snapshot (the initial state)"
        );
        let n = match range.size_hint() {
            (lo, Some(hi)) if lo == hi => lo,
            _ => panic!("a checkpointed loop runs over a range of known length"),
        };
        Revolve {
            range,
            n,
            stack: vec![(0, x0, snapshots)],
            b: n,
            work: None,
            end: None,
            lent: false,
            stats: Stats {
                steps: n,
                forward_steps: 0,
                max_snapshots: 1,
            },
        }
    }

    /// The value of the loop variable at step `k` (the `k`-th item of the range).
    pub fn index(&self, k: usize) -> R::Item {
        match self.range.clone().nth(k) {
            Some(item) => item,
            None => panic!("step {k} is past the end of the checkpointed range"),
        }
    }

    /// The next step of the forward sweep: `(k, x_k)`, whose successor goes to
    /// [`stepped`](Self::stepped); `None` once the state after the loop is known.
    pub fn forward(&mut self) -> Option<(usize, S)> {
        if self.end.is_some() {
            return None;
        }
        if self.n == 0 {
            self.end = self.stack.first().map(|top| top.1.clone());
            return None;
        }
        match self.next_action(true) {
            Some((k, x, false)) => Some((k, x)),
            // The reversal of step `n - 1` comes first: its state is kept for the reverse
            // sweep, and a copy is advanced once more to the state after the loop.
            Some((k, x, true)) => {
                self.work = Some(Work {
                    at: k,
                    x: Some(x.clone()),
                    target: k,
                    snapshot: None,
                });
                self.lent = true;
                Some((k, x))
            }
            None => None,
        }
    }

    /// The state after the loop (after [`forward`](Self::forward) returned `None`).
    ///
    /// # Panics
    ///
    /// If the forward sweep has not run to its end.
    pub fn end(&mut self) -> S {
        match self.end.take() {
            Some(end) => end,
            None => panic!("Revolve::end before the forward sweep ran to its end"),
        }
    }

    /// The next action of the reverse sweep: `(k, x_k, reverse)`; when `reverse` is false,
    /// `x_{k+1}` goes to [`stepped`](Self::stepped).
    pub fn backward(&mut self) -> Option<(usize, S, bool)> {
        self.next_action(false)
    }

    /// Hands back the state after the step last given out to be run.
    pub fn stepped(&mut self, next: S) {
        self.stats.forward_steps += 1;
        if !self.lent {
            panic!("Revolve::stepped without a step given out");
        }
        self.lent = false;
        if self.end.is_none() && self.work.as_ref().is_some_and(|w| w.x.is_some()) {
            // The copy of `x_{n-1}` advanced by the forward sweep: the state after the loop.
            self.end = Some(next);
            return;
        }
        if let Some(work) = &mut self.work {
            work.at += 1;
            work.x = Some(next);
        }
    }

    /// What this schedule did so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The next step to run (`false`) or to reverse (`true`); in the forward sweep
    /// (`forward`), the reversal of step `n - 1` is returned without being consumed.
    fn next_action(&mut self, forward: bool) -> Option<(usize, S, bool)> {
        loop {
            if let Some(work) = &mut self.work {
                let Some(x) = work.x.take() else {
                    panic!(
                        "Revolve: the state after step {} was not handed back",
                        work.at
                    )
                };
                if work.at < work.target {
                    self.lent = true;
                    return Some((work.at, x, false));
                }
                let (target, snapshot) = (work.target, work.snapshot);
                self.work = None;
                match snapshot {
                    Some(s) => {
                        self.stack.push((target, x, s));
                        self.stats.max_snapshots = self.stats.max_snapshots.max(self.stack.len());
                        continue;
                    }
                    None => {
                        if !forward {
                            self.b = target;
                        }
                        return Some((target, x, true));
                    }
                }
            }
            let top = self.stack.last()?;
            let (a, s) = (top.0, top.2);
            match self.b - a {
                0 => {
                    self.stack.pop();
                }
                // (The forward sweep keeps this snapshot for the reverse of the last step:
                // `forward` keeps the state it hands out.)
                1 if forward => return Some((a, top.1.clone(), true)),
                1 => {
                    // Step `a` is reversed from this snapshot, its last use: moved out, not
                    // cloned (no copy of a `Vec` state per reversed step).
                    self.b = a;
                    let (_, x, _) = self.stack.pop()?;
                    return Some((a, x, true));
                }
                l if s == 1 => {
                    // One snapshot: each state is recomputed from `x_a` (quadratic).
                    self.work = Some(Work {
                        at: a,
                        x: Some(top.1.clone()),
                        target: a + l - 1,
                        snapshot: None,
                    });
                }
                l => {
                    let t = repetitions(s, l);
                    let m = a + l.saturating_sub(beta(s - 1, t)).max(1);
                    self.work = Some(Work {
                        at: a,
                        x: Some(top.1.clone()),
                        target: m,
                        snapshot: Some(s - 1),
                    });
                }
            }
        }
    }
}

/// `C(s + t, s)`, the most steps `s` snapshots reverse with `t` repetitions (saturating).
fn beta(s: usize, t: usize) -> usize {
    let mut b: u128 = 1;
    for k in 1..=t as u128 {
        // C(s + k, s) = C(s + k - 1, s)·(s + k)/k, exactly.
        b = b * (s as u128 + k) / k;
        if b >= usize::MAX as u128 {
            return usize::MAX;
        }
    }
    b as usize
}

/// The least `t` with `C(s + t, s) ≥ l`, for `s ≥ 2`.
fn repetitions(s: usize, l: usize) -> usize {
    let (mut t, mut b): (usize, u128) = (0, 1);
    while b < l as u128 {
        t += 1;
        b = b * (s as u128 + t as u128) / t as u128;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step whose reverse records the order of its calls.
    fn run(n: usize, s: usize) -> (Vec<usize>, Stats) {
        let mut order = Vec::new();
        let (end, _, stats) = revolve(
            n,
            NonZeroUsize::new(s).unwrap(),
            0usize,
            |i, x| {
                assert_eq!(*x, i, "state i is x_i");
                x + 1
            },
            |i, x, adj: ()| {
                assert_eq!(*x, i);
                order.push(i);
                adj
            },
            |_| (),
        );
        assert_eq!(end, n);
        (order, stats)
    }

    #[test]
    fn every_budget_reverses_every_step_once_in_order() {
        for n in 0..40 {
            for s in 1..=n + 1 {
                let (order, stats) = run(n, s);
                assert_eq!(order, (0..n).rev().collect::<Vec<_>>(), "n {n}, s {s}");
                assert!(stats.max_snapshots <= s, "n {n}, s {s}: {stats:?}");
                assert!(stats.forward_steps >= n);
            }
        }
    }

    #[test]
    fn binomial_bound_on_recomputation() {
        // With s snapshots and t = repetitions(s, n), no step runs more than t + 1 times.
        for (n, s) in [(1000, 2), (1000, 5), (100_000, 10), (1_000_000, 20)] {
            let mut runs = vec![0u32; n];
            let _ = revolve(
                n,
                NonZeroUsize::new(s).unwrap(),
                0usize,
                |i, x| {
                    runs[i] += 1;
                    x + 1
                },
                |_, _, adj: ()| adj,
                |_| (),
            );
            let t = repetitions(s, n) as u32;
            assert!(
                runs.iter().all(|&r| r >= 1 && r <= t + 1),
                "n {n}, s {s}, t {t}"
            );
        }
    }

    /// The reversals of a [`Revolve`] driven like generated code, with the steps it runs.
    fn drive(n: usize, s: usize) -> (Vec<usize>, Stats) {
        let mut schedule = Revolve::new(10..10 + n, s, 0usize);
        let mut held = 0;
        while let Some((k, x)) = schedule.forward() {
            assert_eq!(x, k, "state k is x_k");
            assert_eq!(schedule.index(k), 10 + k);
            schedule.stepped(x + 1);
        }
        assert_eq!(schedule.end(), n);
        let mut order = Vec::new();
        while let Some((k, x, reverse)) = schedule.backward() {
            assert_eq!(x, k);
            held = held.max(schedule.stack.len());
            match reverse {
                true => order.push(k),
                false => schedule.stepped(x + 1),
            }
        }
        assert!(held <= s, "n {n}, s {s}: {held} states held");
        (order, schedule.stats())
    }

    /// A state that counts its clones.
    struct Counted<'a>(usize, &'a core::cell::Cell<usize>);

    impl Clone for Counted<'_> {
        fn clone(&self) -> Self {
            self.1.set(self.1.get() + 1);
            Counted(self.0, self.1)
        }
    }

    #[test]
    fn a_snapshot_is_moved_into_the_reversal_that_uses_it_last() {
        // With a snapshot per step, the reverse sweep recomputes nothing: each step is
        // reversed from its own snapshot, which nothing needs after, so no state is cloned.
        for n in 1..12 {
            let clones = core::cell::Cell::new(0);
            let mut schedule = Revolve::new(0..n, n, Counted(0, &clones));
            while let Some((_, x)) = schedule.forward() {
                schedule.stepped(Counted(x.0 + 1, x.1));
            }
            assert_eq!(schedule.end().0, n);
            clones.set(0);
            let mut order = Vec::new();
            while let Some((k, x, reverse)) = schedule.backward() {
                assert!(reverse, "n {n}: step {k} recomputed");
                assert_eq!(x.0, k);
                order.push(k);
            }
            assert_eq!(order, (0..n).rev().collect::<Vec<_>>());
            assert_eq!(clones.get(), 0, "n {n}: states cloned in the reverse sweep");
        }
    }

    #[test]
    fn the_driven_schedule_is_revolves() {
        for n in 0..40 {
            for s in 1..=n + 1 {
                let (order, stats) = drive(n, s);
                assert_eq!(order, (0..n).rev().collect::<Vec<_>>(), "n {n}, s {s}");
                let (_, theirs) = run(n, s);
                assert_eq!(stats.max_snapshots, theirs.max_snapshots, "n {n}, s {s}");
                assert_eq!(stats.forward_steps, theirs.forward_steps, "n {n}, s {s}");
            }
        }
    }

    #[test]
    fn binomials() {
        assert_eq!(beta(2, 3), 10);
        assert_eq!(beta(20, 3), 1771);
        assert_eq!(repetitions(2, 10), 3);
        assert_eq!(repetitions(2, 11), 4);
    }
}
