//! Without the feature `nalgebra`, methods named like `nalgebra`'s (`dot`, `norm`, `cross`,
//! `norm_squared`, `transpose`) and constructors named like its aliases (`Vector3::new`) are
//! the user's own, whatever their receiver: here on values the macro cannot see the type of
//! (call results), checked against closed forms.

use approx::assert_relative_eq;
use revad::reverse;

/// A vector in space, named like `nalgebra`'s alias.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct Vector3 {
    /// Coordinates.
    pub c: [f64; 3],
}

#[reverse]
impl Vector3 {
    /// The vector `(x, y, z)`.
    #[reverse]
    pub fn new(x: f64, y: f64, z: f64) -> Self {
        Vector3 { c: [x, y, z] }
    }

    /// The dot product.
    #[reverse]
    pub fn dot(&self, o: &Vector3) -> f64 {
        self.c[0] * o.c[0] + self.c[1] * o.c[1] + self.c[2] * o.c[2]
    }

    /// The squared norm.
    #[reverse]
    pub fn norm_squared(&self) -> f64 {
        self.dot(self)
    }

    /// The norm.
    #[reverse]
    pub fn norm(&self) -> f64 {
        self.norm_squared().sqrt()
    }

    /// The cross product.
    #[reverse]
    pub fn cross(&self, o: &Vector3) -> Vector3 {
        let (a, b) = (self.c, o.c);
        Vector3 {
            c: [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ],
        }
    }
}

/// A vector made by a function: its type is not written at the call.
#[reverse]
pub fn point(t: f64) -> Vector3 {
    Vector3::new(t, t * t, 1.0)
}

/// `|p(a) x p(b)| + p(a) . p(b)` through methods of call results.
#[reverse]
pub fn area_and_dot(a: f64, b: f64) -> f64 {
    let p = point(a);
    let q = point(b);
    let n = p.cross(&q);
    n.norm() + p.dot(&q) + Vector3::new(a, b, 0.0).norm_squared()
}

#[test]
fn methods_named_like_nalgebras_are_the_users() {
    let (a, b) = (0.5, 2.0);
    let (v, (da, db)) = area_and_dot_grad(a, b);
    assert_eq!(v, area_and_dot(a, b));
    let plain = |a: f64, b: f64| {
        let (p, q) = ([a, a * a, 1.0], [b, b * b, 1.0]);
        let n = [
            p[1] * q[2] - p[2] * q[1],
            p[2] * q[0] - p[0] * q[2],
            p[0] * q[1] - p[1] * q[0],
        ];
        (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()
            + p[0] * q[0]
            + p[1] * q[1]
            + 1.0
            + a * a
            + b * b
    };
    assert_relative_eq!(v, plain(a, b), max_relative = 1e-14);
    let h = 1e-6;
    let fa = (plain(a + h, b) - plain(a - h, b)) / (2.0 * h);
    let fb = (plain(a, b + h) - plain(a, b - h)) / (2.0 * h);
    assert_relative_eq!(da, fa, max_relative = 1e-7);
    assert_relative_eq!(db, fb, max_relative = 1e-7);
}
