//! Enums with float payloads, matched in the body: the gradient of an enum parameter is its
//! adjoint enum (`#[derive(revad::Adjoint)]`), in the value's variant; checked against closed
//! forms and finite differences.

use approx::assert_relative_eq;
use revad::reverse;

/// A shape with float payloads of each kind: tuple, struct, unit, array.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub enum Shape {
    /// A radius.
    Circle(f64),
    /// A width and a height.
    Rect {
        /// Width.
        w: f64,
        /// Height.
        h: f64,
    },
    /// Nothing.
    Empty,
    /// Three numbers.
    Poly([f64; 3]),
}

/// Central finite difference of `f` along the float `g` changes.
fn fd(f: &dyn Fn(&Shape) -> f64, s: &Shape, g: &dyn Fn(&mut Shape, f64)) -> f64 {
    let h = 1e-6;
    let (mut a, mut b) = (s.clone(), s.clone());
    g(&mut a, h);
    g(&mut b, -h);
    (f(&a) - f(&b)) / (2.0 * h)
}

/// The finite-difference gradient of `f` at `s`, in `s`'s variant.
fn fd_shape(f: &dyn Fn(&Shape) -> f64, s: &Shape) -> ShapeAdjoint {
    match s {
        Shape::Circle(_) => ShapeAdjoint::Circle(fd(f, s, &|q, e| {
            if let Shape::Circle(r) = q {
                *r += e
            }
        })),
        Shape::Rect { .. } => ShapeAdjoint::Rect {
            w: fd(f, s, &|q, e| {
                if let Shape::Rect { w, .. } = q {
                    *w += e
                }
            }),
            h: fd(f, s, &|q, e| {
                if let Shape::Rect { h, .. } = q {
                    *h += e
                }
            }),
        },
        Shape::Empty => ShapeAdjoint::Empty,
        Shape::Poly(_) => {
            let d = |k: usize| {
                fd(f, s, &|q, e| {
                    if let Shape::Poly(p) = q {
                        p[k] += e
                    }
                })
            };
            ShapeAdjoint::Poly([d(0), d(1), d(2)])
        }
    }
}

fn assert_close(a: &ShapeAdjoint, b: &ShapeAdjoint) {
    let tol = |x: f64, y: f64| assert_relative_eq!(x, y, epsilon = 1e-6, max_relative = 1e-6);
    match (a, b) {
        (ShapeAdjoint::Circle(x), ShapeAdjoint::Circle(y)) => tol(*x, *y),
        (ShapeAdjoint::Rect { w: a, h: b }, ShapeAdjoint::Rect { w: c, h: d }) => {
            tol(*a, *c);
            tol(*b, *d);
        }
        (ShapeAdjoint::Empty, ShapeAdjoint::Empty) => {}
        (ShapeAdjoint::Poly(x), ShapeAdjoint::Poly(y)) => (0..3).for_each(|k| tol(x[k], y[k])),
        _ => panic!("variants differ: {a:?} and {b:?}"),
    }
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape::Circle(1.3),
        Shape::Rect { w: 2.0, h: 3.0 },
        Shape::Empty,
        Shape::Poly([0.5, -1.5, 2.5]),
    ]
}

#[reverse]
fn area(s: &Shape, k: f64) -> f64 {
    match s {
        Shape::Circle(r) => 3.0 * r * r * k,
        Shape::Rect { w, h } => w * h * k,
        Shape::Empty => 0.0,
        Shape::Poly(pts) => pts[0] * pts[1] * k + pts[2],
    }
}

#[test]
fn each_arm_kind_closed_form() {
    let (a, (ds, dk)) = area_grad(&Shape::Rect { w: 2.0, h: 3.0 }, 1.5);
    assert_relative_eq!(a, 9.0);
    assert_eq!(ds, ShapeAdjoint::Rect { w: 4.5, h: 3.0 });
    assert_relative_eq!(dk, 6.0);

    let (a, (ds, dk)) = area_grad(&Shape::Circle(2.0), 0.5);
    assert_relative_eq!(a, 3.0 * 4.0 * 0.5);
    assert_close(&ds, &ShapeAdjoint::Circle(2.0 * 3.0 * 2.0 * 0.5));
    assert_relative_eq!(dk, 3.0 * 4.0);

    let (a, (ds, dk)) = area_grad(&Shape::Empty, 0.5);
    assert_eq!((a, ds, dk), (0.0, ShapeAdjoint::Empty, 0.0));

    let (a, (ds, dk)) = area_grad(&Shape::Poly([2.0, 3.0, 4.0]), 0.5);
    assert_relative_eq!(a, 7.0);
    assert_close(&ds, &ShapeAdjoint::Poly([1.5, 1.0, 1.0]));
    assert_relative_eq!(dk, 6.0);
}

#[test]
fn each_arm_kind_finite_differences() {
    for s in shapes() {
        let (_, (ds, _)) = area_grad(&s, 1.7);
        assert_close(&ds, &fd_shape(&|q| area(q, 1.7), &s));
    }
}

/// Wildcards, `..`, a guard on inactive data, `*s` as the scrutinee (bindings by value).
#[reverse]
fn weighted(s: &Shape, n: usize) -> f64 {
    match *s {
        Shape::Rect { w, .. } if n > 2 => w * w,
        Shape::Rect { h, .. } => h.sin(),
        Shape::Circle(r) => r.exp(),
        _ => 1.0,
    }
}

#[test]
fn wildcards_rest_and_guards() {
    for n in [1, 3] {
        for s in shapes() {
            let (y, ds) = weighted_grad(&s, n);
            assert_relative_eq!(y, weighted(&s, n));
            assert_close(&ds, &fd_shape(&|q| weighted(q, n), &s));
        }
    }
}

#[reverse]
fn total(shapes: &[Shape], k: f64) -> f64 {
    let mut sum = 0.0;
    for s in shapes.iter() {
        sum += match s {
            Shape::Circle(r) => r * r * k,
            Shape::Rect { w, h } => w * h,
            Shape::Empty => k,
            Shape::Poly(p) => p[0] + p[1] * p[2],
        };
    }
    #[allow(
        clippy::needless_range_loop,
        reason = "`shapes[i]` as a scrutinee is the case"
    )]
    for i in 0..shapes.len() {
        sum += match shapes[i] {
            Shape::Circle(r) => r,
            _ => 0.0,
        };
    }
    sum
}

#[test]
fn a_slice_of_shapes_summed_in_a_loop() {
    let xs = shapes();
    let (y, (dxs, dk)) = total_grad(&xs, 0.5);
    assert_relative_eq!(y, total(&xs, 0.5));
    assert_eq!(dxs.len(), xs.len());
    for (i, s) in xs.iter().enumerate() {
        let f = |q: &Shape| {
            let mut ys = xs.clone();
            ys[i] = q.clone();
            total(&ys, 0.5)
        };
        assert_close(&dxs[i], &fd_shape(&f, s));
    }
    assert_relative_eq!(dk, 1.3 * 1.3 + 1.0);
}

/// An enum in a struct field, matched in a method of the struct.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Body {
    /// Its shape.
    pub shape: Shape,
    /// Mass per area.
    pub density: f64,
}

impl Body {
    /// Area times density.
    #[reverse]
    pub fn mass(&self) -> f64 {
        let a = match &self.shape {
            Shape::Circle(r) => 3.0 * r * r,
            Shape::Rect { w, h } => w * h,
            Shape::Empty => 0.0,
            Shape::Poly(p) => p[0].abs() + p[1].abs() + p[2].abs(),
        };
        a * self.density
    }
}

#[test]
fn a_nested_enum_in_a_struct_field() {
    for s in shapes() {
        let b = Body {
            shape: s.clone(),
            density: 1.5,
        };
        let (m, db) = b.mass_grad();
        assert_relative_eq!(m, b.mass());
        let f = |q: &Shape| {
            Body {
                shape: q.clone(),
                density: 1.5,
            }
            .mass()
        };
        assert_close(&db.shape, &fd_shape(&f, &s));
        let a = b.mass() / 1.5;
        assert_relative_eq!(db.density, a);
    }
}

/// An enum built and matched in the body.
#[reverse]
fn built(x: f64, y: f64, round: bool) -> f64 {
    let c = Shape::Circle(2.0 * x);
    let s = Shape::Rect { w: x, h: y * y };
    let a = match c {
        Shape::Circle(r) => r * r,
        _ => 0.0,
    };
    let b = match &s {
        Shape::Rect { w, h } => w * h,
        _ => 0.0,
    };
    if round {
        a
    } else {
        b
    }
}

#[test]
fn an_enum_built_and_matched_in_the_body() {
    let (v, (dx, dy)) = built_grad(1.5, 2.0, true);
    assert_relative_eq!(v, 9.0);
    assert_relative_eq!(dx, 8.0 * 1.5);
    assert_relative_eq!(dy, 0.0);
    let (v, (dx, dy)) = built_grad(1.5, 2.0, false);
    assert_relative_eq!(v, 6.0);
    assert_relative_eq!(dx, 4.0);
    assert_relative_eq!(dy, 2.0 * 1.5 * 2.0);
}

/// An enum result, through `_vjp`.
#[reverse]
fn rect(x: f64, y: f64) -> Shape {
    Shape::Rect {
        w: x * y,
        h: y.sin(),
    }
}

#[reverse]
fn circle(x: f64) -> Shape {
    Shape::Circle(x * x)
}

#[test]
fn an_enum_result_through_vjp() {
    let seed = ShapeAdjoint::Rect { w: 2.0, h: 3.0 };
    let (s, (dx, dy)) = rect_vjp(1.5, 0.5, seed);
    assert_eq!(
        s,
        Shape::Rect {
            w: 0.75,
            h: 0.5f64.sin()
        }
    );
    assert_relative_eq!(dx, 2.0 * 0.5);
    assert_relative_eq!(dy, 2.0 * 1.5 + 3.0 * 0.5f64.cos());
    let (s, dx) = circle_vjp(3.0, ShapeAdjoint::Circle(0.5));
    assert_eq!(s, Shape::Circle(9.0));
    assert_relative_eq!(dx, 0.5 * 6.0);
}

impl Shape {
    /// The area (or a stand-in for it).
    #[reverse]
    pub fn area(&self) -> f64 {
        match self {
            Shape::Circle(r) => 3.0 * r * r,
            Shape::Rect { w, h } => w * h,
            Shape::Empty => 0.0,
            Shape::Poly(p) => p[0] * p[1] * p[2],
        }
    }
}

#[test]
fn a_method_on_an_enum() {
    for s in shapes() {
        let (a, ds) = s.area_grad();
        assert_relative_eq!(a, s.area());
        assert_close(&ds, &fd_shape(&|q| q.area(), &s));
    }
}
