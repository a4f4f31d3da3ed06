//! Support for the forward-mode corpus (`tests/corpus.rs`): the deterministic tangents and
//! the check of `JVP·t = Σ gradient·t` that the wrappers `NAME_grad_checked` and
//! `NAME_vjp_checked` written by `build.rs` run.

use std::fmt::Debug;

/// A small linear congruential generator (Knuth's MMIX constants): deterministic tangents,
/// no dependency.
#[derive(Debug, Clone)]
pub struct Lcg(u64);

impl Lcg {
    /// A generator seeded from `name` (FNV-1a), so that each function draws its own tangents.
    pub fn new(name: &str) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Lcg(h)
    }

    /// The next draw, uniform in `[-1, 1)`.
    #[allow(clippy::should_implement_trait, reason = "a draw, not an iterator")]
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// A value made of floats (a tangent, a gradient, a seed), read as its floats in order.
pub trait Flat: Debug {
    /// Appends every float of `self`, in order, widened to `f64`.
    fn push_flat(&self, out: &mut Vec<f64>);

    /// Every float of `self`, in order.
    fn flat(&self) -> Vec<f64> {
        let mut out = Vec::new();
        self.push_flat(&mut out);
        out
    }

    /// Whether the floats are `f32` (the check then has `f32`'s tolerance).
    fn single(&self) -> bool {
        false
    }
}

impl Flat for f64 {
    fn push_flat(&self, out: &mut Vec<f64>) {
        out.push(*self);
    }
}

impl Flat for f32 {
    fn push_flat(&self, out: &mut Vec<f64>) {
        out.push(f64::from(*self));
    }

    fn single(&self) -> bool {
        true
    }
}

impl<T: Flat + ?Sized> Flat for &T {
    fn push_flat(&self, out: &mut Vec<f64>) {
        (**self).push_flat(out);
    }

    fn single(&self) -> bool {
        (**self).single()
    }
}

impl<T: Flat> Flat for [T] {
    fn push_flat(&self, out: &mut Vec<f64>) {
        for x in self {
            x.push_flat(out);
        }
    }

    fn single(&self) -> bool {
        self.iter().any(Flat::single)
    }
}

impl<T: Flat, const N: usize> Flat for [T; N] {
    fn push_flat(&self, out: &mut Vec<f64>) {
        self[..].push_flat(out);
    }

    fn single(&self) -> bool {
        self[..].single()
    }
}

impl<T: Flat> Flat for Vec<T> {
    fn push_flat(&self, out: &mut Vec<f64>) {
        self[..].push_flat(out);
    }

    fn single(&self) -> bool {
        self[..].single()
    }
}

macro_rules! tuple_flat {
    ($($t:ident . $i:tt),+) => {
        impl<$($t: Flat),+> Flat for ($($t,)+) {
            fn push_flat(&self, out: &mut Vec<f64>) {
                $(self.$i.push_flat(out);)+
            }

            fn single(&self) -> bool {
                false $(|| self.$i.single())+
            }
        }
    };
}

tuple_flat!(A.0);
tuple_flat!(A.0, B.1);
tuple_flat!(A.0, B.1, C.2);
tuple_flat!(A.0, B.1, C.2, D.3);

/// `Σ a·b` over the floats of `a` and `b` in order, with `Σ |a·b|` (the scale of the sum),
/// or `None` when their lengths differ.
pub fn dot(a: &dyn Flat, b: &dyn Flat) -> Option<(f64, f64)> {
    let (a, b) = (a.flat(), b.flat());
    (a.len() == b.len()).then(|| {
        a.iter()
            .zip(&b)
            .fold((0.0, 0.0), |(s, m), (x, y)| (s + x * y, m + (x * y).abs()))
    })
}

/// Panics unless `jvp` (the output's tangent, seeded by `seed`: `seed·Ṙ`) equals
/// `Σ gradient·tangent` (`pairs`: each active parameter's gradient with its tangent) to a
/// relative `1e-10` (`1e-4` for `f32`), with an absolute `1e-12` for values near 0. Both
/// sides non-finite is accepted (the order of `0·∞` differs between the modes).
#[track_caller]
pub fn check(name: &str, seed: &dyn Flat, jvp: &dyn Flat, pairs: &[(&dyn Flat, &dyn Flat)]) {
    let single = jvp.single() || pairs.iter().any(|(g, _)| g.single());
    let Some((lhs, mut scale)) = dot(seed, jvp) else {
        // A seed of zeros of another length (accepted by `NAME_vjp`): nothing to compare.
        return;
    };
    let mut rhs = 0.0;
    for (k, (g, t)) in pairs.iter().enumerate() {
        let Some((s, m)) = dot(*g, *t) else {
            panic!("{name}: gradient {k} has another length than its tangent: {g:?} against {t:?}");
        };
        rhs += s;
        scale += m;
    }
    if !lhs.is_finite() && !rhs.is_finite() {
        return;
    }
    let rel = if single { 1e-4 } else { 1e-10 };
    let abs = if single { 1e-6 } else { 1e-12 };
    assert!(
        (lhs - rhs).abs() <= rel * scale.max(lhs.abs()).max(rhs.abs()) + abs,
        "{name}: JVP·seed = {lhs:e} but Σ gradient·tangent = {rhs:e} (difference {:e})\n  \
         jvp: {jvp:?}\n  seed: {seed:?}\n  gradient, tangent: {pairs:?}",
        lhs - rhs,
    );
}

/// Panics unless the value `NAME_jvp` returns has the bits of the one `NAME_grad` (or
/// `NAME_vjp`) returns: both are the primal's.
#[track_caller]
pub fn same_value(name: &str, jvp: &dyn Flat, reverse: &dyn Flat) {
    let (a, b) = (jvp.flat(), reverse.flat());
    let same = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
    assert!(
        same,
        "{name}: the value of NAME_jvp, {jvp:?}, is not the value of the reverse mode, {reverse:?}"
    );
}
