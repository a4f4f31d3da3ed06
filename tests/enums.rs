//! Enums with float payloads, matched in the body: the gradient of an enum parameter is its
//! adjoint enum (`#[derive(revad::Adjoint)]`), in the value's variant; checked against closed
//! forms and finite differences.

use approx::assert_relative_eq;
use revad::reverse;

#[path = "common/fd.rs"]
mod fd;

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

/// `if let` on a variant, with and without `else`: `1.5 x · w · h` for a rectangle (`w` and `h`
/// squared when `square`), `1.5 x · r` for a circle, `1.5 x` otherwise.
#[reverse]
fn scaled(x: f64, s: &Shape, square: bool) -> f64 {
    let mut a = x;
    if let Shape::Rect { w, h } = s {
        a *= w * h;
        if square {
            a *= w * h;
        }
    }
    let b = if let Shape::Circle(r) = s { a * r } else { a };
    1.5 * b
}

#[reverse]
fn scaled_via(x: f64, s: &Shape, square: bool) -> f64 {
    scaled(x, s, square)
}

#[test]
fn variants_tested_by_if_let() {
    for square in [false, true] {
        for s in shapes() {
            let x = 1.3;
            let (v, (dx, ds)) = scaled_grad(x, &s, square);
            let (v2, (dx2, ds2)) = scaled_via_grad(x, &s, square);
            assert_eq!(v.to_bits(), scaled(x, &s, square).to_bits());
            assert_eq!(v2.to_bits(), v.to_bits());
            let f = |q: &Shape| scaled(x, q, square);
            assert_close(&ds, &fd_shape(&f, &s));
            assert_close(&ds2, &ds);
            assert_relative_eq!(dx, v / x, max_relative = 1e-12);
            assert_relative_eq!(dx2, dx, max_relative = 1e-12);
        }
    }
}

/// A layer whose bias is optional: an `Option<f64>` field of a struct, whose adjoint is an
/// `Option` in the value's variant.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Layer {
    /// The weight.
    pub w: f64,
    /// The bias, if any.
    pub b: Option<f64>,
}

/// `tanh(w h + b)` through the layers, the bias read by `if let` (and `+ b²` by `match` on the
/// last layer's).
#[reverse]
fn through_layers(ls: &[Layer], x: f64) -> f64 {
    let mut h = x;
    for l in ls {
        h *= l.w;
        if let Some(b) = l.b {
            h += b;
        }
        h = h.tanh();
    }
    let last = &ls[ls.len() - 1];
    match last.b {
        Some(b) => h + b * b,
        None => h,
    }
}

#[reverse]
fn through_layers_via(ls: &[Layer], x: f64) -> f64 {
    through_layers(ls, x)
}

#[test]
fn optional_fields_matched_and_tested_by_if_let() {
    let layers = |p: &[f64], biased: &[bool]| -> Vec<Layer> {
        (0..biased.len())
            .map(|k| Layer {
                w: p[2 * k],
                b: biased[k].then_some(p[2 * k + 1]),
            })
            .collect()
    };
    for biased in [
        [true, false, true],
        [false, true, false],
        [true, true, true],
    ] {
        let p = [0.7, 0.1, -1.2, 0.4, 0.9, -0.3, 0.5];
        let ls = layers(&p, &biased);
        let x = p[6];
        let (v, (dls, dx)) = through_layers_grad(&ls, x);
        let (v2, (dls2, dx2)) = through_layers_via_grad(&ls, x);
        assert_eq!(v.to_bits(), through_layers(&ls, x).to_bits());
        assert_eq!(v2.to_bits(), v.to_bits());
        // (An unbiased layer's `p[2k + 1]` is read by nothing: its difference is 0.)
        let g = fd::fd(|q| through_layers(&layers(q, &biased), q[6]), &p);
        let mut flat = Vec::new();
        for (k, (dl, dl2)) in dls.iter().zip(&dls2).enumerate() {
            assert_relative_eq!(dl2.w, dl.w, max_relative = 1e-12);
            flat.push(dl.w);
            match (dl.b, biased[k]) {
                (Some(db), true) => {
                    assert_relative_eq!(dl2.b.unwrap(), db, max_relative = 1e-12);
                    flat.push(db);
                }
                (None, false) => {
                    assert!(dl2.b.is_none());
                    flat.push(0.0);
                }
                other => panic!("the bias's adjoint {other:?} is not in the bias's variant"),
            }
        }
        flat.push(dx);
        fd::close_all(&flat, &g);
        assert_relative_eq!(dx2, dx, max_relative = 1e-12);
    }
}

/// An `Option` field read by `Option`'s methods: `unwrap_or`, `map_or`, `map(..).unwrap_or`,
/// `unwrap_or_else`, and `unwrap` / `expect` behind `is_some()` / `is_none()`.
#[allow(
    clippy::unnecessary_unwrap,
    clippy::unnecessary_lazy_evaluations,
    reason = "forms users write"
)]
#[reverse]
fn bias_by_methods(l: &Layer, x: f64) -> f64 {
    let a = l.w * x + l.b.unwrap_or(0.0);
    let c = l.b.map_or(x, |b| b * x);
    let d = l.b.map(|b| b.sin()).unwrap_or(1.0);
    let e = l.b.unwrap_or_else(|| x * x);
    let f = if l.b.is_some() { l.b.unwrap() } else { 2.0 };
    let g = if l.b.is_none() {
        0.0
    } else {
        l.b.expect("a bias") * 3.0
    };
    a + c + d + e + f + g
}

#[reverse]
fn bias_by_methods_via(l: &Layer, x: f64) -> f64 {
    bias_by_methods(l, x)
}

#[test]
fn optional_fields_read_by_option_methods() {
    let x = 1.7;
    let with = Layer {
        w: 0.8,
        b: Some(-0.6),
    };
    let (v, (dl, dx)) = bias_by_methods_grad(&with, x);
    let (v2, (dl2, dx2)) = bias_by_methods_via_grad(&with, x);
    assert_eq!(v.to_bits(), bias_by_methods(&with, x).to_bits());
    assert_eq!(v2.to_bits(), v.to_bits());
    let b = -0.6f64;
    // a + c + d + e + f + g = w x + b + b x + sin b + b + b + 3 b.
    assert_relative_eq!(v, 0.8 * x + b + b * x + b.sin() + b + b + 3.0 * b);
    assert_relative_eq!(dl.w, x);
    assert_relative_eq!(dl.b.unwrap(), 1.0 + x + b.cos() + 1.0 + 1.0 + 3.0);
    assert_relative_eq!(dx, 0.8 + b);
    assert_eq!((dl2.w, dl2.b, dx2), (dl.w, dl.b, dx));

    let without = Layer { w: 0.8, b: None };
    let (v, (dl, dx)) = bias_by_methods_grad(&without, x);
    // w x + 0 + x + 1 + x² + 2 + 0.
    assert_relative_eq!(v, 0.8 * x + x + 1.0 + x * x + 2.0);
    assert_relative_eq!(dl.w, x);
    assert!(dl.b.is_none());
    assert_relative_eq!(dx, 0.8 + 1.0 + 2.0 * x);
}

/// A fieldless enum chosen per term.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub enum Power {
    /// `x`.
    Linear,
    /// `x²`.
    Square,
}

#[reverse]
fn term(x: f64, p: Power) -> f64 {
    if p == Power::Square {
        x * x
    } else {
        x
    }
}

/// Local arrays of unit variants, indexed and iterated: `x + x² + x²`, then `x + x²`.
#[allow(
    clippy::needless_range_loop,
    reason = "an index loop is a form users write"
)]
#[reverse]
fn terms_of_local_variants(x: f64) -> f64 {
    let powers = [Power::Linear, Power::Square];
    let mut s = 0.0;
    for i in 0..2 {
        s += term(x, powers[i]);
    }
    s += term(x, powers[1]);
    for p in [Power::Linear, Power::Square] {
        s += 2.0 * term(x, p);
    }
    s
}

#[test]
fn unit_variants_in_local_arrays() {
    let x = 1.3;
    let (v, dx) = terms_of_local_variants_grad(x);
    assert_eq!(v.to_bits(), terms_of_local_variants(x).to_bits());
    assert_relative_eq!(v, 3.0 * x + 4.0 * x * x, max_relative = 1e-15);
    assert_relative_eq!(dx, 3.0 + 8.0 * x, max_relative = 1e-15);
}

/// An activation of the user's.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub enum Activation {
    /// `tanh z`.
    Tanh,
    /// `max(z, 0)`.
    Relu,
}

impl Activation {
    /// The activation of `z`.
    #[reverse]
    pub fn apply(&self, z: f64) -> f64 {
        match self {
            Activation::Tanh => z.tanh(),
            Activation::Relu => z.max(0.0),
        }
    }
}

/// A neuron with its activation.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Unit {
    /// Weights.
    pub w: Vec<f64>,
    /// Bias.
    pub b: f64,
    /// Activation.
    pub act: Activation,
}

impl Unit {
    /// `act(w·x + b)`, the fields bound by one tuple `let` of references and a copy.
    #[reverse]
    pub fn out(&self, x: &[f64]) -> f64 {
        let (w, b, act) = (&self.w, self.b, &self.act);
        let z: f64 = w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + b;
        act.apply(z)
    }
}

#[test]
fn tuples_of_references_to_fields() {
    for act in [Activation::Tanh, Activation::Relu] {
        let u = Unit {
            w: vec![0.5, -0.2],
            b: 0.3,
            act,
        };
        let x = [1.0, 2.0];
        let (v, (du, dx)) = u.out_grad(&x);
        assert_eq!(v.to_bits(), u.out(&x).to_bits());
        let z: f64 = 0.5 - 0.4 + 0.3;
        let d = match act {
            Activation::Tanh => 1.0 - z.tanh().powi(2),
            Activation::Relu => 1.0,
        };
        assert_relative_eq!(du.w[0], d * 1.0, max_relative = 1e-15);
        assert_relative_eq!(du.w[1], d * 2.0, max_relative = 1e-15);
        assert_relative_eq!(du.b, d, max_relative = 1e-15);
        assert_relative_eq!(dx[0], d * 0.5, max_relative = 1e-15);
        assert_relative_eq!(dx[1], d * -0.2, max_relative = 1e-15);
    }
}
