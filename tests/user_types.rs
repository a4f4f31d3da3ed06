//! Programs written around a user's own vector type, as users write them: a `Vec3` with its
//! own `dot`, `norm`, `cross` and a constructor `Vec3::new`, values built by constructors and
//! kept in loops and by callers, methods of call results (`u.scaled(k).dot(&w)`), a struct
//! returned by a call, and whole-struct assignment (`p = p.step(dt);`, `q = r;`). Each
//! gradient is checked against a closed form or finite differences of a plain-float copy of
//! the function.
//!
//! The methods named like `nalgebra`'s (`dot`, `norm`, `cross`) are the user's: without
//! `revad`'s feature `nalgebra` by their names, and with it because their receivers are known
//! to be of the user's type (`self`, a parameter of type `Vec3`, a struct expression's value).

use approx::assert_relative_eq;
use revad::reverse;

/// A vector in space.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct Vec3 {
    /// First coordinate.
    pub x: f64,
    /// Second coordinate.
    pub y: f64,
    /// Third coordinate.
    pub z: f64,
}

#[reverse]
impl Vec3 {
    /// The vector `(x, y, z)`.
    #[reverse]
    pub fn new(x: f64, y: f64, z: f64) -> Self {
        Vec3 { x, y, z }
    }

    /// The dot product.
    #[reverse]
    pub fn dot(&self, o: &Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// The Euclidean norm.
    #[reverse]
    pub fn norm(&self) -> f64 {
        self.dot(self).sqrt()
    }

    /// The cross product.
    #[reverse]
    pub fn cross(&self, o: &Vec3) -> Vec3 {
        Vec3 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    /// `k` times the vector.
    #[reverse]
    pub fn scaled(&self, k: f64) -> Vec3 {
        Vec3::new(self.x * k, self.y * k, self.z * k)
    }
}

/// `u . w + |u|` with `u = (a, b, 1)` and `w = (b, a, 2)` built by struct expressions.
#[reverse]
pub fn dot_and_norm(a: f64, b: f64) -> f64 {
    let u = Vec3 { x: a, y: b, z: 1.0 };
    let w = Vec3 { x: b, y: a, z: 2.0 };
    u.dot(&w) + u.norm()
}

/// The same through the constructor, `u x w` read by its norm, and a parameter's method.
#[reverse]
pub fn constructed(a: f64, b: f64, c: &Vec3) -> f64 {
    let u = Vec3::new(a, b, 1.0);
    let w = Vec3::new(b, a, 2.0);
    let n = u.cross(&w);
    n.norm() + c.dot(&u)
}

/// Constructors in a loop: each value is kept for the reverse sweep of its iteration.
#[reverse]
pub fn constructed_in_a_loop(a: f64, b: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..4 {
        let u = Vec3::new(a * i as f64, b, 1.0);
        s += u.dot(&u) * b;
    }
    s
}

/// A method of a method's result, and of a constructor's.
#[reverse]
pub fn chained(a: f64, b: f64) -> f64 {
    let u = Vec3::new(a, b, 1.0);
    let w = Vec3 { x: b, y: a, z: 2.0 };
    u.scaled(a).dot(&w) + Vec3::new(a, a, b).norm()
}

/// A struct returned by a call.
#[reverse]
pub fn made(a: f64, b: f64) -> Vec3 {
    Vec3::new(a * b, b, a)
}

/// A caller of [`made`] and [`constructed_in_a_loop`] (through their split companions).
#[reverse]
pub fn caller(a: f64, b: f64) -> f64 {
    let v = made(a, b);
    let k = v.scaled(2.0);
    k.x + k.y * k.z + constructed_in_a_loop(v.y, a)
}

/// Whole-struct assignment in a loop: `u = u.scaled(dt);`, then from another variable and a
/// struct expression.
#[reverse]
pub fn reassigned(a: f64, dt: f64) -> f64 {
    let mut u = Vec3::new(a, 1.0, 2.0);
    for _ in 0..3 {
        u = u.scaled(dt);
    }
    let first = u.x + u.y * u.z;
    let r = Vec3 {
        x: dt,
        y: a * a,
        z: 0.5,
    };
    u = r;
    let second = u.dot(&u);
    u = Vec3 {
        x: u.y,
        y: u.x,
        z: a,
    };
    first + second + u.x * u.z
}

/// [`reassigned`] in plain floats.
fn reassigned_plain(a: f64, dt: f64) -> f64 {
    let k = dt * dt * dt;
    let (x, y, z) = (a * k, k, 2.0 * k);
    let first = x + y * z;
    let second = dt * dt + a.powi(4) + 0.25;
    first + second + a * a * a
}

/// A body under a constant force, stepped by explicit Euler.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct Body {
    /// Position.
    pub pos: Vec3,
    /// Velocity.
    pub vel: Vec3,
}

#[reverse]
impl Body {
    /// One step of length `dt` with drag `c`.
    #[reverse]
    pub fn step(&self, dt: f64, c: f64) -> Body {
        let speed = self.vel.norm();
        let drag = c * speed;
        let vel = Vec3::new(
            self.vel.x - dt * drag * self.vel.x,
            self.vel.y - dt * (9.81 + drag * self.vel.y),
            self.vel.z - dt * drag * self.vel.z,
        );
        Body {
            pos: Vec3::new(
                self.pos.x + dt * vel.x,
                self.pos.y + dt * vel.y,
                self.pos.z + dt * vel.z,
            ),
            vel,
        }
    }
}

/// The height after `n` steps of a body thrown at speed `(vx, vy, 0)`, drag `c`.
#[reverse]
pub fn height(vx: f64, vy: f64, c: f64, n: usize) -> f64 {
    let mut b = Body {
        pos: Vec3::new(0.0, 1.0, 0.0),
        vel: Vec3::new(vx, vy, 0.0),
    };
    for _ in 0..n {
        b = b.step(0.01, c);
    }
    b.pos.y + 0.1 * b.pos.x
}

/// [`height`] in plain floats.
fn height_plain(vx: f64, vy: f64, c: f64, n: usize) -> f64 {
    let (mut p, mut v) = ([0.0, 1.0, 0.0], [vx, vy, 0.0_f64]);
    let dt = 0.01;
    for _ in 0..n {
        let speed = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let drag = c * speed;
        v = [
            v[0] - dt * drag * v[0],
            v[1] - dt * (9.81 + drag * v[1]),
            v[2] - dt * drag * v[2],
        ];
        p = [p[0] + dt * v[0], p[1] + dt * v[1], p[2] + dt * v[2]];
    }
    p[1] + 0.1 * p[0]
}

fn fd2(f: impl Fn(f64, f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let h = 1e-6;
    (
        (f(a + h, b) - f(a - h, b)) / (2.0 * h),
        (f(a, b + h) - f(a, b - h)) / (2.0 * h),
    )
}

#[test]
fn a_user_types_own_dot_and_norm() {
    let (a, b) = (1.0, 2.0);
    let (v, (da, db)) = dot_and_norm_grad(a, b);
    assert_eq!(v, dot_and_norm(a, b));
    // u . w = 2ab + 2, |u| = sqrt(a^2 + b^2 + 1).
    let n = (a * a + b * b + 1.0).sqrt();
    assert_relative_eq!(v, 2.0 * a * b + 2.0 + n, max_relative = 1e-15);
    assert_relative_eq!(da, 2.0 * b + a / n, max_relative = 1e-15);
    assert_relative_eq!(db, 2.0 * a + b / n, max_relative = 1e-15);
}

#[test]
fn constructors_cross_products_and_parameters() {
    let c = Vec3::new(0.5, -1.0, 2.0);
    for (a, b) in [(1.0, 2.0), (-0.5, 0.25)] {
        let (v, (da, db, dc)) = constructed_grad(a, b, &c);
        assert_eq!(v, constructed(a, b, &c));
        let plain = |a: f64, b: f64| {
            let (u, w) = ([a, b, 1.0], [b, a, 2.0]);
            let n = [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ];
            (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() + c.x * a + c.y * b + c.z
        };
        assert_relative_eq!(v, plain(a, b), max_relative = 1e-14);
        let (fa, fb) = fd2(plain, a, b);
        assert_relative_eq!(da, fa, max_relative = 1e-7);
        assert_relative_eq!(db, fb, max_relative = 1e-7);
        assert_eq!(dc, Vec3Adjoint { x: a, y: b, z: 1.0 });
    }
}

#[test]
fn constructed_values_kept_in_loops_and_by_callers() {
    let (a, b) = (0.75, 1.5);
    // s = b sum_i (a^2 i^2 + b^2 + 1) = b (14 a^2 + 4 b^2 + 4).
    let (v, (da, db)) = constructed_in_a_loop_grad(a, b);
    assert_eq!(v, constructed_in_a_loop(a, b));
    assert_relative_eq!(
        v,
        b * (14.0 * a * a + 4.0 * b * b + 4.0),
        max_relative = 1e-14
    );
    assert_relative_eq!(da, 28.0 * a * b, max_relative = 1e-14);
    assert_relative_eq!(db, 14.0 * a * a + 12.0 * b * b + 4.0, max_relative = 1e-14);

    let ones = Vec3Adjoint {
        x: 1.0,
        y: 1.0,
        z: 1.0,
    };
    let (v, (da, db)) = made_vjp(a, b, ones);
    assert_eq!(v, Vec3::new(a * b, b, a));
    // The vector-Jacobian product with ones: the derivatives of ab + b + a.
    assert_eq!((da, db), (b + 1.0, a + 1.0));

    // k = 2 (ab, b, a): f = 2ab + 4ab + s(b, a) with s(p, q) = q (14 p^2 + 4 q^2 + 4).
    let plain = |a: f64, b: f64| 6.0 * a * b + a * (14.0 * b * b + 4.0 * a * a + 4.0);
    let (v, (da, db)) = caller_grad(a, b);
    assert_eq!(v, caller(a, b));
    assert_relative_eq!(v, plain(a, b), max_relative = 1e-14);
    assert_relative_eq!(
        da,
        6.0 * b + 14.0 * b * b + 12.0 * a * a + 4.0,
        max_relative = 1e-14
    );
    assert_relative_eq!(db, 6.0 * a + 28.0 * a * b, max_relative = 1e-14);
}

#[test]
fn methods_of_call_results() {
    for (a, b) in [(1.0, 2.0), (0.3, -1.1)] {
        let (v, (da, db)) = chained_grad(a, b);
        assert_eq!(v, chained(a, b));
        // (a^2, ab, a) . (b, a, 2) + sqrt(2a^2 + b^2).
        let n = (2.0 * a * a + b * b).sqrt();
        assert_relative_eq!(v, 2.0 * a * a * b + 2.0 * a + n, max_relative = 1e-14);
        assert_relative_eq!(da, 4.0 * a * b + 2.0 + 2.0 * a / n, max_relative = 1e-14);
        assert_relative_eq!(db, 2.0 * a * a + b / n, max_relative = 1e-14);
    }
}

#[test]
fn whole_struct_assignment() {
    for (a, dt) in [(1.0, 0.5), (-0.7, 1.3)] {
        let (v, (da, ddt)) = reassigned_grad(a, dt);
        assert_eq!(v, reassigned(a, dt));
        assert_relative_eq!(v, reassigned_plain(a, dt), max_relative = 1e-14);
        let (fa, fdt) = fd2(reassigned_plain, a, dt);
        assert_relative_eq!(da, fa, max_relative = 1e-7);
        assert_relative_eq!(ddt, fdt, max_relative = 1e-7);
    }
}

#[test]
fn a_simulation_stepped_by_reassignment() {
    let (vx, vy, c) = (3.0, 4.0, 0.05);
    for n in [0, 1, 7, 50] {
        let (v, (dvx, dvy, dc)) = height_grad(vx, vy, c, n);
        assert_eq!(v, height(vx, vy, c, n));
        assert_relative_eq!(v, height_plain(vx, vy, c, n), max_relative = 1e-13);
        let h = 1e-6;
        let fd = |f: &dyn Fn(f64) -> f64, x: f64| (f(x + h) - f(x - h)) / (2.0 * h);
        let fvx = fd(&|x| height_plain(x, vy, c, n), vx);
        let fvy = fd(&|x| height_plain(vx, x, c, n), vy);
        let fc = fd(&|x| height_plain(vx, vy, x, n), c);
        assert_relative_eq!(dvx, fvx, epsilon = 1e-9, max_relative = 1e-6);
        assert_relative_eq!(dvy, fvy, epsilon = 1e-9, max_relative = 1e-6);
        assert_relative_eq!(dc, fc, epsilon = 1e-9, max_relative = 1e-6);
    }
}

/// A point mass.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct P {
    /// Position.
    pub pos: [f64; 2],
    /// Mass.
    pub mass: f64,
}

/// A copy of a parameter reassigned from a struct expression that reads it, in a loop.
#[reverse]
pub fn evolve(p: &P, dt: f64) -> f64 {
    let mut q = p.clone();
    for _ in 0..3 {
        q = P {
            pos: [q.pos[0] + dt * q.pos[1], q.pos[1] * q.mass],
            mass: q.mass,
        };
    }
    q.pos[0]
}

#[test]
fn a_struct_reassigned_from_an_expression_that_reads_it() {
    let p = P {
        pos: [0.5, 2.0],
        mass: 1.5,
    };
    let dt = 0.25;
    let (v, (dp, ddt)) = evolve_grad(&p, dt);
    assert_eq!(v, evolve(&p, dt));
    // x3 = x0 + dt y0 (1 + m + m^2), y's are y0 m^k.
    let (x0, y0, m) = (p.pos[0], p.pos[1], p.mass);
    let s = 1.0 + m + m * m;
    assert_relative_eq!(v, x0 + dt * y0 * s, max_relative = 1e-15);
    assert_relative_eq!(dp.pos[0], 1.0, max_relative = 1e-15);
    assert_relative_eq!(dp.pos[1], dt * s, max_relative = 1e-15);
    assert_relative_eq!(dp.mass, dt * y0 * (1.0 + 2.0 * m), max_relative = 1e-15);
    assert_relative_eq!(ddt, y0 * s, max_relative = 1e-15);
}

/// A distribution made by a function.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Gaussian {
    /// Mean.
    pub mu: f64,
    /// Standard deviation.
    pub sigma: f64,
}

/// `N(a, a^2)`.
#[reverse]
pub fn make(a: f64) -> Gaussian {
    Gaussian {
        mu: a,
        sigma: a * a,
    }
}

/// A standardised residual, reading the distribution by reference.
#[reverse]
pub fn z(g: &Gaussian, x: f64) -> f64 {
    (x - g.mu) / g.sigma
}

/// A struct result only borrowed by the caller (was robustness finding F18: taken for an
/// array).
#[reverse]
pub fn fit(a: f64, x: f64) -> f64 {
    let g = make(a);
    z(&g, x)
}

/// An array result only borrowed by the caller, as an aggregate too.
#[reverse]
pub fn powers(a: f64) -> [f64; 3] {
    [a, a * a, a * a * a]
}

/// The sum of a borrowed array result.
#[reverse]
pub fn total(v: &[f64; 3]) -> f64 {
    v[0] + v[1] + v[2]
}

/// [`powers`] passed on by reference.
#[reverse]
pub fn sum_of_powers(a: f64) -> f64 {
    let p = powers(a);
    total(&p)
}

#[test]
fn a_borrowed_struct_result() {
    let (a, x) = (1.5, 0.25);
    let (v, (da, dx)) = fit_grad(a, x);
    assert_eq!(v, fit(a, x));
    // (x - a) / a^2.
    assert_relative_eq!(v, (x - a) / (a * a), max_relative = 1e-15);
    assert_relative_eq!(
        da,
        -1.0 / (a * a) - 2.0 * (x - a) / a.powi(3),
        max_relative = 1e-14
    );
    assert_relative_eq!(dx, 1.0 / (a * a), max_relative = 1e-15);
    let (v, da) = sum_of_powers_grad(a);
    assert_eq!(v, sum_of_powers(a));
    assert_relative_eq!(da, 1.0 + 2.0 * a + 3.0 * a * a, max_relative = 1e-15);
}
