//! With the feature `nalgebra`, `.norm()`, `.dot(..)`, `.cross(..)` of a value whose type the
//! macro cannot see (a struct's field, a call's result) are method calls that rustc resolves:
//! to `nalgebra`'s rules for a matrix field, and to the user's own methods for a type of the
//! user's named alike, in the same crate. Checked against closed forms and finite
//! differences.

use approx::assert_relative_eq;
use nalgebra::Vector3;
use revad::reverse;

/// A particle whose state is `nalgebra` vectors.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct Particle {
    /// Position.
    pub pos: Vector3<f64>,
    /// Velocity.
    pub vel: Vector3<f64>,
}

#[reverse]
impl Particle {
    /// `|v|^2 / 2 + g y + |x| (v . x)`.
    #[reverse]
    pub fn energy(&self, g: f64) -> f64 {
        0.5 * self.vel.norm_squared() + g * self.pos[1] + self.pos.norm() * self.vel.dot(&self.pos)
    }
}

/// A vector of the user's, with methods named like nalgebra's.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct Pair {
    /// First.
    pub a: f64,
    /// Second.
    pub b: f64,
}

#[reverse]
impl Pair {
    /// `a^2 + b^2`, named like nalgebra's.
    #[reverse]
    pub fn norm_squared(&self) -> f64 {
        self.a * self.a + self.b * self.b
    }

    /// The pair rotated a quarter turn.
    #[reverse]
    pub fn cross(&self, o: &Pair) -> Pair {
        Pair {
            a: self.a * o.b,
            b: -self.b * o.a,
        }
    }
}

/// A pair made by a function: its type is not written at the call.
#[reverse]
pub fn pair(t: f64) -> Pair {
    Pair { a: t, b: t * t }
}

/// The user's methods on call results, and nalgebra's on a field, in one function.
#[reverse]
pub fn mixed(p: &Particle, t: f64) -> f64 {
    let q = pair(t);
    // (Only borrowed below: the type says it is a struct, not an array.)
    let s: Pair = pair(2.0 * t);
    let r = q.cross(&s);
    r.norm_squared() + q.norm_squared() + p.vel.norm() * t
}

#[test]
fn a_fields_methods_are_nalgebras() {
    let p = Particle {
        pos: Vector3::new(1.0, 2.0, -0.5),
        vel: Vector3::new(0.3, -1.0, 2.0),
    };
    let g = 9.81;
    let (e, (dp, dg)) = p.energy_grad(g);
    assert_eq!(e, p.energy(g));
    let (x, v) = (p.pos, p.vel);
    let n = x.norm();
    // d/dv = v + |x| x; d/dx = g e_y + (v . x) x / |x| + |x| v.
    assert_relative_eq!(dp.vel, v + n * x, max_relative = 1e-14);
    let de_dx = Vector3::new(0.0, g, 0.0) + v.dot(&x) * x / n + n * v;
    assert_relative_eq!(dp.pos, de_dx, max_relative = 1e-14);
    assert_eq!(dg, x[1]);
}

#[test]
fn a_users_methods_named_like_nalgebras() {
    let p = Particle {
        pos: Vector3::new(1.0, 2.0, -0.5),
        vel: Vector3::new(0.3, -1.0, 2.0),
    };
    let t = 0.7;
    let (v, (dp, dt)) = mixed_grad(&p, t);
    assert_eq!(v, mixed(&p, t));
    // q = (t, t^2), s = (2t, 4t^2): r = (4t^3, -2t^3); |r|^2 = 20 t^6, |q|^2 = t^2 + t^4.
    let n = p.vel.norm();
    let plain = |t: f64| 20.0 * t.powi(6) + t * t + t.powi(4) + n * t;
    assert_relative_eq!(v, plain(t), max_relative = 1e-14);
    assert_relative_eq!(
        dt,
        120.0 * t.powi(5) + 2.0 * t + 4.0 * t.powi(3) + n,
        max_relative = 1e-13
    );
    assert_relative_eq!(dp.vel, t * p.vel / n, max_relative = 1e-14);
    assert_eq!(dp.pos, Vector3::zeros());
}

#[reverse]
impl Particle {
    /// The particle `dt` later. Arithmetic on a matrix field binds the field with its type
    /// first (`let v: Vector3<f64> = self.vel;`): the macro cannot see a field's type.
    #[reverse]
    pub fn advanced(&self, dt: f64) -> Particle {
        let p: Vector3<f64> = self.pos;
        let v: Vector3<f64> = self.vel;
        Particle {
            pos: p + v * dt,
            vel: v,
        }
    }
}

/// The distance from the origin after four steps, the particle reassigned in a loop.
#[reverse]
pub fn flight(p: &Particle, dt: f64) -> f64 {
    let mut q = p.advanced(dt);
    for _ in 0..3 {
        q = q.advanced(dt);
    }
    q.pos.norm()
}

#[test]
fn matrix_fields_bound_with_their_type() {
    let p = Particle {
        pos: Vector3::new(1.0, 2.0, 3.0),
        vel: Vector3::new(0.5, -1.0, 0.25),
    };
    let dt = 0.1;
    let (v, (dp, ddt)) = flight_grad(&p, dt);
    assert_eq!(v, flight(&p, dt));
    // |x + 4 dt v|.
    let x = p.pos + 4.0 * dt * p.vel;
    let n = x.norm();
    assert_relative_eq!(v, n, max_relative = 1e-15);
    assert_relative_eq!(dp.pos, x / n, max_relative = 1e-14);
    assert_relative_eq!(dp.vel, 4.0 * dt * x / n, max_relative = 1e-14);
    assert_relative_eq!(ddt, 4.0 * p.vel.dot(&x) / n, max_relative = 1e-14);
}
