//! With the feature `nalgebra`, `a + b * k` is still `a.add(b.mul(k))` on a struct of the
//! user's whose operator impls have `#[revad::reverse]`, beside `nalgebra`'s arithmetic in the
//! same function: on parameters, on copies of them carried through a loop, and on the results
//! of other operators. Checked against closed forms and finite differences.

use approx::assert_relative_eq;
use nalgebra::Vector3;
use revad::reverse;
use std::ops::{Add, Mul, Sub};

/// A point of the plane.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct P2 {
    /// The first coordinate.
    pub x: f64,
    /// The second coordinate.
    pub y: f64,
}

#[revad::reverse]
impl Add for P2 {
    type Output = P2;
    #[reverse]
    fn add(self, o: P2) -> P2 {
        P2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }
}

#[revad::reverse]
impl Sub for P2 {
    type Output = P2;
    #[reverse]
    fn sub(self, o: P2) -> P2 {
        P2 {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }
}

#[revad::reverse]
impl Mul<f64> for P2 {
    type Output = P2;
    #[reverse]
    fn mul(self, k: f64) -> P2 {
        P2 {
            x: self.x * k,
            y: self.y * k,
        }
    }
}

/// `c = a + k b`, `d = 2 (c - a) = 2 k b`: `c_x d_y + |u + v|²`.
#[reverse]
fn mixed(a: P2, b: P2, k: f64, u: Vector3<f64>, v: Vector3<f64>) -> f64 {
    let c = a + b * k;
    let d = (c - a) * 2.0;
    let w = u + v;
    c.x * d.y + w.dot(&w)
}

/// `n` steps of `p ← p + v h`, `v ← v - p h` from copies of the parameters: `p_x + 2 p_y`.
#[reverse]
fn stepped(p0: P2, v0: P2, h: f64, n: usize) -> f64 {
    let mut p = p0;
    let mut v = v0;
    for _ in 0..n {
        p = p + v * h;
        v = v - p * h;
    }
    p.x + 2.0 * p.y
}

fn stepped_primal(p: [f64; 2], v: [f64; 2], h: f64, n: usize) -> f64 {
    let (mut p, mut v) = (p, v);
    for _ in 0..n {
        p = [p[0] + v[0] * h, p[1] + v[1] * h];
        v = [v[0] - p[0] * h, v[1] - p[1] * h];
    }
    p[0] + 2.0 * p[1]
}

#[test]
fn operators_beside_matrices() {
    let (a, b, k) = (P2 { x: 0.5, y: -1.5 }, P2 { x: 2.0, y: 0.25 }, 1.5);
    let (u, v) = (Vector3::new(1.0, -2.0, 0.5), Vector3::new(0.25, 3.0, -1.0));
    let (value, (da, db, dk, du, dv)) = mixed_grad(a, b, k, u, v);
    // c_x d_y = (a_x + k b_x) 2 k b_y.
    let cx = a.x + k * b.x;
    let w = u + v;
    assert_eq!(value, cx * (2.0 * k * b.y) + w.dot(&w));
    assert_relative_eq!(da.x, 2.0 * k * b.y, epsilon = 1e-12);
    assert_relative_eq!(da.y, 0.0, epsilon = 1e-12);
    assert_relative_eq!(db.x, k * 2.0 * k * b.y, epsilon = 1e-12);
    assert_relative_eq!(db.y, cx * 2.0 * k, epsilon = 1e-12);
    assert_relative_eq!(dk, b.x * 2.0 * k * b.y + cx * 2.0 * b.y, epsilon = 1e-12);
    for i in 0..3 {
        assert_relative_eq!(du[i], 2.0 * w[i], epsilon = 1e-12);
        assert_relative_eq!(dv[i], 2.0 * w[i], epsilon = 1e-12);
    }
}

#[test]
fn operators_on_copies_carried_through_a_loop() {
    let (p, v, h, n) = (P2 { x: 1.0, y: 0.5 }, P2 { x: -0.5, y: 2.0 }, 0.1, 7);
    let (value, (dp, dv, dh)) = stepped_grad(p, v, h, n);
    let at = |p: [f64; 2], v: [f64; 2], h: f64| stepped_primal(p, v, h, n);
    let (p2, v2) = ([p.x, p.y], [v.x, v.y]);
    assert_eq!(value, at(p2, v2, h));
    let e = 1e-6;
    let fd = |f: &dyn Fn(f64) -> f64| (f(e) - f(-e)) / (2.0 * e);
    let checks = [
        (dp.x, fd(&|d| at([p.x + d, p.y], v2, h))),
        (dp.y, fd(&|d| at([p.x, p.y + d], v2, h))),
        (dv.x, fd(&|d| at(p2, [v.x + d, v.y], h))),
        (dv.y, fd(&|d| at(p2, [v.x, v.y + d], h))),
        (dh, fd(&|d| at(p2, v2, h + d))),
    ];
    for (got, want) in checks {
        assert_relative_eq!(got, want, epsilon = 1e-7);
    }
}
