//! Without the feature `nalgebra`, an operator on a part of an aggregate whose result has a
//! field read or a method called that no float has (`(ps[i].pos - ps[j].pos).x`,
//! `(a.pos - b.pos).norm()`) is the struct's operator, `#[revad::reverse] impl Sub for V2`:
//! in loops, which keep its result for their reverse sweep. Checked against finite
//! differences and a closed form.

use approx::assert_relative_eq;
use revad::reverse;
use std::ops::Sub;

/// A point of the plane.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct V2 {
    /// The first coordinate.
    pub x: f64,
    /// The second coordinate.
    pub y: f64,
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

#[reverse]
impl V2 {
    /// `|v|`, named like nalgebra's.
    #[reverse]
    pub fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

/// A particle.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Particle {
    /// Position.
    pub pos: V2,
    /// Mass.
    pub m: f64,
}

/// `Σ_{i<j} m_i m_j / |p_i - p_j| + (p_i - p_j)_x`.
#[reverse]
fn potential(ps: &[Particle]) -> f64 {
    let mut e = 0.0;
    for i in 0..ps.len() {
        for j in (i + 1)..ps.len() {
            e += ps[i].m * ps[j].m / (ps[i].pos - ps[j].pos).norm() + (ps[i].pos - ps[j].pos).x;
        }
    }
    e
}

#[test]
fn operators_on_fields_of_elements_with_fields_and_methods_read() {
    let at = |q: &[f64]| -> Vec<Particle> {
        q.chunks(3)
            .map(|c| Particle {
                pos: V2 { x: c[0], y: c[1] },
                m: c[2],
            })
            .collect()
    };
    let q = [0.0, 0.0, 1.0, 1.0, 1.0, 2.0, -1.0, 2.0, 0.5];
    let ps = at(&q);
    let (v, g) = potential_grad(&ps);
    assert_eq!(v.to_bits(), potential(&ps).to_bits());
    let got: Vec<f64> = g.iter().flat_map(|p| [p.pos.x, p.pos.y, p.m]).collect();
    let h = 1e-6;
    for (k, got) in got.iter().enumerate() {
        let (mut a, mut b) = (q, q);
        a[k] += h;
        b[k] -= h;
        let fd = (potential(&at(&a)) - potential(&at(&b))) / (2.0 * h);
        assert_relative_eq!(*got, fd, epsilon = 1e-8, max_relative = 1e-6);
    }
    // ∂x_0: from (p_0 - p_j)_x, +1 for each j > 0; ∂m_0 = m_1 / √2 + m_2 / √5.
    assert_relative_eq!(
        g[0].m,
        2.0 / 2.0_f64.sqrt() + 0.5 / 5.0_f64.sqrt(),
        max_relative = 1e-14
    );
}
