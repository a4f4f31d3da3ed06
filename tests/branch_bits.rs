//! A branch's condition is kept on the value stack as one bit. A bit popped and then pushed
//! again at the same place must read back as pushed (fuzz finding 16: a helper called in a
//! chain's closure pushed and popped `true`, the next call pushed `false` there and its reverse
//! sweep read `true`, taking the other branch's adjoint: a panic when the branches keep
//! different values, a wrong derivative when they keep the same).

use approx::assert_relative_eq;
use revad::reverse;

#[reverse]
fn g(a: f64) -> f64 {
    let p = (a + a.sin()) * a.to_radians();
    if p < a {
        a.sin()
    } else {
        a.cos()
    }
}

/// The same branch as `t` in the chain, the other one in `u`.
#[reverse]
fn uses(x: f64, xs: &[f64]) -> f64 {
    let t = g(x);
    let s = (0..xs.len()).map(|i| xs[i] * g(x)).sum::<f64>();
    let u = g(-x);
    s + u + t
}

#[test]
fn the_other_branch_after_a_chain_gets_its_own_derivative() {
    let xs = [0.3, -1.2, 0.7];
    for x in [0.4, 1.1, -0.8] {
        let branch = |a: f64| (a + a.sin()) * a.to_radians() < a;
        assert_ne!(
            branch(x),
            branch(-x),
            "the test needs the other branch at -x"
        );
        let (value, (dx, dxs)) = uses_grad(x, &xs);
        assert_eq!(value, uses(x, &xs));
        let sum: f64 = xs.iter().sum();
        // g'(a) = cos a where `p < a`, -sin a otherwise; d/dx g(-x) = -g'(-x).
        let dg = |a: f64| {
            if (a + a.sin()) * a.to_radians() < a {
                a.cos()
            } else {
                -a.sin()
            }
        };
        assert_relative_eq!(dx, dg(x) * (1.0 + sum) - dg(-x), max_relative = 1e-14);
        for (d, _) in dxs.iter().zip(&xs) {
            assert_relative_eq!(*d, g(x), max_relative = 1e-15);
        }
    }
}

#[reverse]
fn h(a0: f64) -> f64 {
    let (tl0, tl1) = (a0 + a0.sin(), (a0).to_radians());
    let t3: f64 = if tl0 * tl1 < a0 {
        (0.5 * (tl0 / a0.atan().tanh().cosh()))
            .tanh()
            .cosh()
            .log10()
    } else {
        let b2 = tl0;
        b2 * f64::tanh(a0)
    };
    (tl1 / (0.5 * t3).tanh().cosh()).atan2(a0) / (a0)
}

/// Fuzz finding 16 as the generator found it (minimised): the branches keep different
/// numbers of values, so the stale bit made the reverse sweep pop past the end.
#[reverse]
fn r1(x0: f64, xs0: &[f64]) -> f64 {
    let t2 = h(x0);
    let t13 = (0..xs0.len()).map(|i| xs0[i] * h(x0)).sum::<f64>();
    let h15 = h(-0.01 * x0);
    t13 + h15 + t2
}

#[test]
fn fuzz_finding_16_against_finite_differences() {
    let x0 = 1.415232361600775;
    let xs0 = [-0.23809648397477057, -1.1860485676194625];
    let (value, (dx, dxs)) = r1_grad(x0, &xs0);
    assert_eq!(value, r1(x0, &xs0));
    let eps = 1e-6;
    let fd = (r1(x0 + eps, &xs0) - r1(x0 - eps, &xs0)) / (2.0 * eps);
    assert_relative_eq!(dx, fd, max_relative = 1e-6);
    for (i, d) in dxs.iter().enumerate() {
        let mut up = xs0;
        let mut down = xs0;
        up[i] += eps;
        down[i] -= eps;
        let fd = (r1(x0, &up) - r1(x0, &down)) / (2.0 * eps);
        assert_relative_eq!(*d, fd, max_relative = 1e-6);
    }
}
