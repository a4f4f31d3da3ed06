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

    #[test]
    fn binomials() {
        assert_eq!(beta(2, 3), 10);
        assert_eq!(beta(20, 3), 1771);
        assert_eq!(repetitions(2, 10), 3);
        assert_eq!(repetitions(2, 11), 4);
    }
}
