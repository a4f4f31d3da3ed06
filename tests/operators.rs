//! Arithmetic operators on a struct of the user's: `#[revad::reverse] impl Add for V2` (and
//! `Sub`, `Mul<f64>`, `Div<f64>`, `Neg`) differentiates the operator's method, and `a + b * k`
//! in annotated code calls it as `a.add(b.mul(k))`: in expressions, `let`s, assignments in
//! loops (a leapfrog step), methods of the type and chains of operators. Each gradient is
//! checked against finite differences of the primal and a closed form, and against the same
//! gradient through a caller `NAME_via` (the split companions).

use approx::assert_relative_eq;
use revad::{check, reverse};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A point of the plane.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct V2 {
    /// The first coordinate.
    pub x: f64,
    /// The second coordinate.
    pub y: f64,
}

#[revad::reverse]
impl Add for V2 {
    type Output = V2;
    #[reverse]
    fn add(self, o: V2) -> V2 {
        V2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }
}

#[revad::reverse]
impl Sub for V2 {
    type Output = V2;
    #[reverse]
    fn sub(self, o: V2) -> V2 {
        V2 {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }
}

#[revad::reverse]
impl Mul<f64> for V2 {
    type Output = V2;
    #[reverse]
    fn mul(self, k: f64) -> V2 {
        V2 {
            x: self.x * k,
            y: self.y * k,
        }
    }
}

#[revad::reverse]
impl Div<f64> for V2 {
    type Output = V2;
    #[reverse]
    fn div(self, k: f64) -> V2 {
        V2 {
            x: self.x / k,
            y: self.y / k,
        }
    }
}

#[revad::reverse]
impl Neg for V2 {
    type Output = V2;
    #[reverse]
    fn neg(self) -> V2 {
        V2 {
            x: -self.x,
            y: -self.y,
        }
    }
}

#[revad::reverse]
impl V2 {
    /// `|v|²`.
    #[revad::reverse]
    pub fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }

    /// `|v - o|²`, by the operator in a method.
    #[revad::reverse]
    pub fn dist2(self, o: V2) -> f64 {
        let d = self - o;
        d.norm2()
    }

    /// `(v + o) / 2`.
    #[revad::reverse]
    pub fn mid(self, o: V2) -> V2 {
        (self + o) / 2.0
    }

    /// `(v - o) · (v + o)`, of references: the operators on `*self` and `*o`.
    #[revad::reverse]
    pub fn cross_term(&self, o: &V2) -> f64 {
        let d = *self - *o;
        let s = *self + *o;
        d.x * s.x + d.y * s.y + (-*o).x
    }
}

/// `c = a + k b`, `d = -2 (c - a)`: `c_x c_y + d · c`.
#[reverse]
fn combined(a: V2, b: V2, k: f64) -> f64 {
    let c = a + b * k;
    let d = -(c - a) * 2.0;
    c.x * c.y + d.x * c.x + d.y * c.y
}

#[reverse]
fn combined_via(a: V2, b: V2, k: f64) -> f64 {
    combined(a, b, k)
}

/// `n` leapfrog steps of `p'' = -k p`, then `|p|² + |p0 - v0|² + mid(p, v)_x`.
#[reverse]
fn leapfrog(p0: V2, v0: V2, k: f64, n: usize) -> f64 {
    let mut p = p0;
    let mut v = v0;
    let dt = 0.1;
    for _ in 0..n {
        let a = p * (-k);
        v = v + a * dt;
        p = p + v * dt;
    }
    let m = p.mid(v);
    p.norm2() + p0.dist2(v0) + m.x
}

#[reverse]
fn leapfrog_via(p0: V2, v0: V2, k: f64, n: usize) -> f64 {
    leapfrog(p0, v0, k, n)
}

/// The gradient of `f(V2, V2, f64)` at `(a, b, k)`, flattened, and the primal's finite
/// differences.
fn flat(g: (V2Adjoint, V2Adjoint, f64)) -> [f64; 5] {
    [g.0.x, g.0.y, g.1.x, g.1.y, g.2]
}

#[test]
fn operators_in_expressions() {
    let (a, b, k) = (V2 { x: 1.0, y: 2.0 }, V2 { x: 0.5, y: -1.0 }, 3.0);
    let (v, g) = combined_grad(a, b, k);
    assert_eq!(v.to_bits(), combined(a, b, k).to_bits());
    let (v_via, g_via) = combined_via_grad(a, b, k);
    assert_eq!(v_via.to_bits(), v.to_bits());
    let g = flat(g);
    assert_eq!(flat(g_via), g);
    // c = a + k b, d = -2 k b: f = c_x c_y - 2 k (b · c).
    let fd = check::finite_difference(
        |q| combined(V2 { x: q[0], y: q[1] }, V2 { x: q[2], y: q[3] }, q[4]),
        &[a.x, a.y, b.x, b.y, k],
    );
    for (g, e) in g.iter().zip(&fd) {
        assert_relative_eq!(*g, *e, max_relative = 1e-8);
    }
    let c = V2 {
        x: a.x + k * b.x,
        y: a.y + k * b.y,
    };
    // ∂a_x = c_y - 2 k b_x.
    assert_relative_eq!(g[0], c.y - 2.0 * k * b.x, max_relative = 1e-14);
}

#[test]
fn operators_in_loops_and_methods() {
    let (p, v, k) = (V2 { x: 1.0, y: 0.5 }, V2 { x: 0.0, y: 1.0 }, 2.0);
    for n in [0, 1, 5] {
        let (value, g) = leapfrog_grad(p, v, k, n);
        assert_eq!(value.to_bits(), leapfrog(p, v, k, n).to_bits());
        let (_, g_via) = leapfrog_via_grad(p, v, k, n);
        let g = flat(g);
        for (a, b) in g.iter().zip(flat(g_via)) {
            assert_relative_eq!(*a, b, max_relative = 1e-14);
        }
        let fd = check::finite_difference(
            |q| leapfrog(V2 { x: q[0], y: q[1] }, V2 { x: q[2], y: q[3] }, q[4], n),
            &[p.x, p.y, v.x, v.y, k],
        );
        for (g, e) in g.iter().zip(&fd) {
            assert_relative_eq!(*g, *e, epsilon = 1e-9, max_relative = 1e-7);
        }
    }
    // The operators' own derivatives.
    let (_, (ga, gk)) = V2 { x: 1.0, y: -2.0 }.mul_vjp(3.0, V2Adjoint { x: 1.0, y: 1.0 });
    assert_eq!((ga.x, ga.y, gk), (3.0, 3.0, -1.0));
}

/// `(a + b).x (a - b).y + mid(a, b).y + a.cross_term(&b) + |b|² k`, reading fields of
/// operators' and methods' results, and passing `*b` by value.
#[reverse]
fn fields_of_results(a: V2, b: &V2, k: f64) -> f64 {
    (a + *b).x * (a - *b).y + a.mid(*b).y + a.cross_term(b) + (*b * k).norm2() / k
}

#[reverse]
fn fields_of_results_via(a: V2, b: &V2, k: f64) -> f64 {
    fields_of_results(a, b, k)
}

/// `Σ |p_i - p_{i-1}|²` and `Σ (p_i + p_{i-1}).x`: operators on the elements of a slice of
/// structs, whose results the loop keeps for its reverse sweep.
#[reverse]
fn path_length2(ps: &[V2]) -> f64 {
    let mut s = 0.0;
    for i in 1..ps.len() {
        let d = ps[i] - ps[i - 1];
        let m = ps[i] + ps[i - 1];
        s += d.norm2() + m.x * d.y;
    }
    s
}

#[reverse]
fn path_length2_via(ps: &[V2]) -> f64 {
    path_length2(ps)
}

/// The README's form: `Σ |p_i - p_{i-1}|²` in a closure over the indices.
#[reverse]
fn path_length2_by_map(ps: &[V2]) -> f64 {
    (1..ps.len())
        .map(|i| {
            let d = ps[i] - ps[i - 1];
            d.x * d.x + d.y * d.y
        })
        .sum()
}

#[reverse]
fn path_length2_by_map_via(ps: &[V2]) -> f64 {
    path_length2_by_map(ps)
}

/// A struct of the user's built by struct update syntax from a parameter and from
/// `Default::default()`: `(k, a_y)`, then `(k a_x, 0)`.
#[reverse]
fn updated(a: V2, k: f64) -> f64 {
    let v = V2 { x: k, ..a };
    let w = V2 {
        x: k * a.x,
        ..Default::default()
    };
    v.x * v.y + w.x + w.y
}

#[reverse]
fn updated_via(a: V2, k: f64) -> f64 {
    updated(a, k)
}

impl Default for V2 {
    fn default() -> V2 {
        V2 { x: 0.0, y: 0.0 }
    }
}

#[test]
fn fields_of_operator_and_method_results() {
    let (a, b, k) = (V2 { x: 1.0, y: 2.0 }, V2 { x: 0.5, y: -1.0 }, 3.0);
    let (v, (ga, gb, gk)) = fields_of_results_grad(a, &b, k);
    assert_eq!(v.to_bits(), fields_of_results(a, &b, k).to_bits());
    let (v_via, (ga2, gb2, gk2)) = fields_of_results_via_grad(a, &b, k);
    assert_eq!(v_via.to_bits(), v.to_bits());
    let g = [ga.x, ga.y, gb.x, gb.y, gk];
    assert_eq!([ga2.x, ga2.y, gb2.x, gb2.y, gk2], g);
    let fd = check::finite_difference(
        |q| fields_of_results(V2 { x: q[0], y: q[1] }, &V2 { x: q[2], y: q[3] }, q[4]),
        &[a.x, a.y, b.x, b.y, k],
    );
    for (g, e) in g.iter().zip(&fd) {
        assert_relative_eq!(*g, *e, epsilon = 1e-9, max_relative = 1e-7);
    }
    // f = (a_x + b_x)(a_y - b_y) + (a_y + b_y)/2 + |a|² - |b|² - b_x + k |b|²:
    // ∂a_x = a_y - b_y + 2 a_x, ∂b_y = -(a_x + b_x) + 1/2 - 2 b_y + 2 k b_y, ∂k = |b|².
    assert_relative_eq!(ga.x, a.y - b.y + 2.0 * a.x, max_relative = 1e-14);
    assert_relative_eq!(
        gb.y,
        -(a.x + b.x) + 0.5 - 2.0 * b.y + 2.0 * k * b.y,
        max_relative = 1e-14
    );
    assert_relative_eq!(gk, b.x * b.x + b.y * b.y, max_relative = 1e-14);
}

#[test]
fn operators_on_elements_of_a_slice() {
    let ps = [
        V2 { x: 1.0, y: 2.0 },
        V2 { x: 0.5, y: -1.0 },
        V2 { x: -2.0, y: 0.25 },
        V2 { x: 3.0, y: 1.5 },
    ];
    let (v, g) = path_length2_grad(&ps);
    assert_eq!(v.to_bits(), path_length2(&ps).to_bits());
    let (_, g_via) = path_length2_via_grad(&ps);
    assert_eq!(g_via, g);
    let flat: Vec<f64> = ps.iter().flat_map(|p| [p.x, p.y]).collect();
    let fd = check::finite_difference(
        |q| {
            let ps: Vec<V2> = q.chunks(2).map(|c| V2 { x: c[0], y: c[1] }).collect();
            path_length2(&ps)
        },
        &flat,
    );
    let got: Vec<f64> = g.iter().flat_map(|p| [p.x, p.y]).collect();
    for (g, e) in got.iter().zip(&fd) {
        assert_relative_eq!(*g, *e, epsilon = 1e-9, max_relative = 1e-7);
    }
    // The first point: ∂x_0 = -2 d_x - d_y, ∂y_0 = -2 d_y - m_x + ... with d = p1 - p0,
    // m = p1 + p0: f ∋ |d|² + m_x d_y.
    let (d, m) = (
        V2 {
            x: ps[1].x - ps[0].x,
            y: ps[1].y - ps[0].y,
        },
        V2 {
            x: ps[1].x + ps[0].x,
            y: ps[1].y + ps[0].y,
        },
    );
    assert_relative_eq!(g[0].x, -2.0 * d.x + d.y, max_relative = 1e-14);
    assert_relative_eq!(g[0].y, -2.0 * d.y - m.x, max_relative = 1e-14);
    // The README's form: 2 (p_i - p_{i-1}) - 2 (p_{i+1} - p_i) at each point.
    let (v, g) = path_length2_by_map_grad(&ps);
    assert_eq!(v.to_bits(), path_length2_by_map(&ps).to_bits());
    assert_eq!(path_length2_by_map_via_grad(&ps).1, g);
    for (k, gk) in g.iter().enumerate() {
        let (mut wx, mut wy) = (0.0, 0.0);
        if k > 0 {
            wx += 2.0 * (ps[k].x - ps[k - 1].x);
            wy += 2.0 * (ps[k].y - ps[k - 1].y);
        }
        if k + 1 < ps.len() {
            wx -= 2.0 * (ps[k + 1].x - ps[k].x);
            wy -= 2.0 * (ps[k + 1].y - ps[k].y);
        }
        assert_relative_eq!(gk.x, wx, max_relative = 1e-14);
        assert_relative_eq!(gk.y, wy, max_relative = 1e-14);
    }
}

#[test]
fn struct_update_syntax() {
    let (a, k) = (V2 { x: 1.5, y: 2.0 }, 3.0);
    let (v, (ga, gk)) = updated_grad(a, k);
    assert_eq!(v.to_bits(), updated(a, k).to_bits());
    let (_, (ga2, gk2)) = updated_via_grad(a, k);
    assert_eq!((ga2.x, ga2.y, gk2), (ga.x, ga.y, gk));
    // f = k a_y + k a_x.
    assert_eq!(v, k * a.y + k * a.x);
    assert_relative_eq!(ga.x, k, max_relative = 1e-15);
    assert_relative_eq!(ga.y, k, max_relative = 1e-15);
    assert_relative_eq!(gk, a.x + a.y, max_relative = 1e-15);
}

/// A particle whose state is two points.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Particle {
    /// Position.
    pub pos: V2,
    /// Velocity.
    pub vel: V2,
}

/// `n` steps of `p ← p + v dt` from typed copies of the fields (`let mut p: V2 = b.pos;`),
/// then `p_x + 2 p_y`: `x + n dt v_x + 2 (y + n dt v_y)`.
#[reverse]
fn drift(b: &Particle, dt: f64, n: usize) -> f64 {
    let mut p: V2 = b.pos;
    let v: V2 = b.vel;
    for _ in 0..n {
        p = p + v * dt;
    }
    p.x + 2.0 * p.y
}

#[reverse]
fn drift_via(b: &Particle, dt: f64, n: usize) -> f64 {
    drift(b, dt, n)
}

#[test]
fn operators_on_typed_copies_of_fields_in_a_loop() {
    let b = Particle {
        pos: V2 { x: 0.5, y: -1.0 },
        vel: V2 { x: 2.0, y: 0.25 },
    };
    let (dt, n) = (0.125, 8);
    let (v, (gb, gdt)) = drift_grad(&b, dt, n);
    assert_eq!(v.to_bits(), drift(&b, dt, n).to_bits());
    let (_, (gb_via, gdt_via)) = drift_via_grad(&b, dt, n);
    assert_eq!((&gb.pos, &gb.vel, gdt), (&gb_via.pos, &gb_via.vel, gdt_via));
    let t = n as f64 * dt;
    assert_eq!((gb.pos.x, gb.pos.y), (1.0, 2.0));
    assert_eq!((gb.vel.x, gb.vel.y), (t, 2.0 * t));
    assert_relative_eq!(
        gdt,
        n as f64 * (b.vel.x + 2.0 * b.vel.y),
        max_relative = 1e-14
    );
}

/// `Σ_{i<j} m_i m_j / |p_i - p_j|`, the operators on fields of elements
/// (`ps[i].pos - ps[j].pos`) and their results' methods called at once, kept by the loops for
/// their reverse sweep. (A field of such a result, `(ps[i].pos - ps[j].pos).x`, is taken
/// without the feature `nalgebra`: `tests/default-features`.)
#[reverse]
fn potential(ps: &[Particle], m: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..ps.len() {
        for j in (i + 1)..ps.len() {
            e += m[i] * m[j] / (ps[i].pos - ps[j].pos).norm2().sqrt();
        }
    }
    e + (ps[0].pos.x - ps[1].pos.x).abs()
}

#[reverse]
fn potential_via(ps: &[Particle], m: &[f64]) -> f64 {
    potential(ps, m)
}

#[test]
fn operators_on_fields_of_elements() {
    let at = |q: &[f64]| -> Vec<Particle> {
        q.chunks(2)
            .map(|c| Particle {
                pos: V2 { x: c[0], y: c[1] },
                vel: V2 { x: 0.0, y: 0.0 },
            })
            .collect()
    };
    let q = [0.0, 0.0, 1.0, 1.0, -1.0, 2.0];
    let m = [1.0, 2.0, 0.5];
    let ps = at(&q);
    let (v, (g, gm)) = potential_grad(&ps, &m);
    assert_eq!(v.to_bits(), potential(&ps, &m).to_bits());
    let (_, (g_via, gm_via)) = potential_via_grad(&ps, &m);
    assert_eq!(gm, gm_via);
    let got: Vec<f64> = g.iter().flat_map(|p| [p.pos.x, p.pos.y]).collect();
    let via: Vec<f64> = g_via.iter().flat_map(|p| [p.pos.x, p.pos.y]).collect();
    assert_eq!(got, via);
    let fd = check::finite_difference(|q| potential(&at(q), &m), &q);
    for (g, e) in got.iter().zip(&fd) {
        assert_relative_eq!(*g, *e, epsilon = 1e-8, max_relative = 1e-7);
    }
    // ∂m_0 = m_1 / |p_0 - p_1| + m_2 / |p_0 - p_2|.
    assert_relative_eq!(
        gm[0],
        2.0 / 2.0_f64.sqrt() + 0.5 / 5.0_f64.sqrt(),
        max_relative = 1e-14
    );
}

#[revad::reverse]
impl Mul<V2> for f64 {
    type Output = V2;
    /// `k v`, with the float on the left.
    #[reverse]
    fn mul(self, v: V2) -> Self::Output {
        V2 {
            x: self * v.x,
            y: Self::default() + self * v.y,
        }
    }
}

/// `n` steps of `v ← v - dt k p`, `p ← p + dt v` with the floats on the left (`dt * v`),
/// then `0.5 * (p + v)` and `(2.0 * k) * -v`: the methods that `impl Mul<V2> for f64` gives
/// the struct.
#[reverse]
fn floats_on_the_left(p0: V2, v0: V2, k: f64, n: usize) -> f64 {
    let (mut p, mut v) = (p0, v0);
    let dt = 0.1;
    for _ in 0..n {
        v = v - dt * k * p;
        p = p + dt * v;
    }
    let m = 0.5 * (p + v);
    let w = (2.0 * k) * -v;
    m.x + m.y * w.x
}

#[reverse]
fn floats_on_the_left_via(p0: V2, v0: V2, k: f64, n: usize) -> f64 {
    floats_on_the_left(p0, v0, k, n)
}

#[test]
fn floats_on_the_left_of_struct_operators() {
    let (p, v, k) = (V2 { x: 1.0, y: 0.5 }, V2 { x: 0.0, y: 1.0 }, 2.0);
    for n in [0, 1, 4] {
        let (value, g) = floats_on_the_left_grad(p, v, k, n);
        assert_eq!(value.to_bits(), floats_on_the_left(p, v, k, n).to_bits());
        let (_, g_via) = floats_on_the_left_via_grad(p, v, k, n);
        let g = flat(g);
        assert_eq!(flat(g_via), g);
        let fd = check::finite_difference(
            |q| floats_on_the_left(V2 { x: q[0], y: q[1] }, V2 { x: q[2], y: q[3] }, q[4], n),
            &[p.x, p.y, v.x, v.y, k],
        );
        for (g, e) in g.iter().zip(&fd) {
            assert_relative_eq!(*g, *e, epsilon = 1e-9, max_relative = 1e-7);
        }
    }
    // n = 0: m = (p + v) / 2, w = -2 k v: f = (p_x + v_x) / 2 - k (p_y + v_y) v_x.
    let (_, g) = floats_on_the_left_grad(p, v, k, 0);
    let g = flat(g);
    assert_eq!(g[0], 0.5);
    assert_eq!(g[2], 0.5 - k * (p.y + v.y));
    assert_eq!(g[4], -(p.y + v.y) * v.x);
    // The method's own derivative: ∂(k v)/∂k · (1, 1) = v_x + v_y.
    let (_, (gv, gk)) = v.revad_left_mul_vjp(3.0, V2Adjoint { x: 1.0, y: 1.0 });
    assert_eq!((gv.x, gv.y, gk), (3.0, 3.0, v.x + v.y));
}
