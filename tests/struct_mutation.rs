//! A method read on a `mut` struct that is written afterwards: the method's reverse sweep
//! must see the struct as it was at the call, not as later statements (or later iterations)
//! left it. A caller cannot tell `&self` from `&mut self`, so it passes a `mut` receiver by
//! `&mut`, and the struct is copied before the call when something writes it later. Checked
//! against closed forms and finite differences of the primal.

#![allow(
    clippy::unnecessary_mut_passed,
    clippy::assign_op_pattern,
    clippy::field_reassign_with_default,
    reason = "`&mut x` passed to a reader, `b.m = b.pos.x * b.m` and fields written after \
              `Default` are forms #[reverse] must handle"
)]

use approx::assert_relative_eq;
use revad::reverse;

/// A body with a mass and a speed.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Body {
    /// Mass.
    pub mass: f64,
    /// Speed.
    pub v: f64,
}

#[reverse]
impl Body {
    /// `m v^2 / 2`.
    #[reverse]
    pub fn kinetic(&self) -> f64 {
        0.5 * self.mass * self.v * self.v
    }

    /// `m v s`.
    #[reverse]
    pub fn momentum(&self, s: f64) -> f64 {
        self.mass * self.v * s
    }

    /// `v <- v x + m`.
    #[reverse]
    pub fn push(&mut self, x: f64) {
        self.v = self.v * x + self.mass;
    }

    /// The body one step later.
    #[reverse]
    pub fn step(&self, dt: f64) -> Body {
        Body {
            mass: self.mass,
            v: self.v - dt * self.mass * self.v,
        }
    }
}

/// `kinetic` read, then the mass written.
#[reverse]
fn read_then_write_field(x: f64, y: f64) -> f64 {
    let mut a = Body { mass: 2.0, v: x };
    let k = a.kinetic();
    a.mass = y;
    k + a.mass
}

/// `kinetic` read, then a `&mut self` method.
#[reverse]
fn read_then_mut_method(x: f64, y: f64) -> f64 {
    let mut a = Body { mass: y, v: x };
    let k = a.kinetic();
    a.push(y);
    k * a.v
}

/// Reads and writes of the same body in a loop.
#[reverse]
fn read_in_a_loop(x: f64, y: f64) -> f64 {
    let mut a = Body { mass: x, v: y };
    let mut s = 0.0;
    for i in 0..3 {
        s += a.momentum(i as f64 + 1.0);
        a.push(x);
        a.mass *= y;
    }
    s + a.kinetic()
}

/// [`read_in_a_loop`] without the struct.
fn read_in_a_loop_plain(x: f64, y: f64) -> f64 {
    let (mut m, mut v) = (x, y);
    let mut s = 0.0;
    for i in 0..3 {
        s += m * v * (i as f64 + 1.0);
        v = v * x + m;
        m *= y;
    }
    s + 0.5 * m * v * v
}

/// A `&mut Body` parameter read by a method, then written by the caller.
#[reverse]
fn read_a_mut_parameter(b: &mut Body, x: f64) -> f64 {
    let k = b.kinetic();
    b.v *= x;
    k + b.v
}

fn fd(f: impl Fn(f64, f64) -> f64, x: f64, y: f64) -> (f64, f64) {
    let h = 1e-6;
    (
        (f(x + h, y) - f(x - h, y)) / (2.0 * h),
        (f(x, y + h) - f(x, y - h)) / (2.0 * h),
    )
}

#[test]
fn a_method_read_sees_the_struct_before_later_writes() {
    let (x, y) = (1.5, 3.0);
    // k = m x^2 / 2 with m = 2: dk/dx = 2x (the mass before it became y).
    let (v, (dx, dy)) = read_then_write_field_grad(x, y);
    assert_eq!(v, read_then_write_field(x, y));
    assert_eq!((dx, dy), (2.0 * x, 1.0));

    // k = y x^2 / 2, then v = x y + y: f = k (x y + y).
    let (v, (dx, dy)) = read_then_mut_method_grad(x, y);
    assert_eq!(v, read_then_mut_method(x, y));
    let k = 0.5 * y * x * x;
    let w = x * y + y;
    assert_relative_eq!(dx, y * x * w + k * y, max_relative = 1e-15);
    assert_relative_eq!(dy, 0.5 * x * x * w + k * (x + 1.0), max_relative = 1e-15);

    let (v, (dx, dy)) = read_in_a_loop_grad(0.7, 1.3);
    assert_eq!(v, read_in_a_loop(0.7, 1.3));
    assert_relative_eq!(v, read_in_a_loop_plain(0.7, 1.3), max_relative = 1e-14);
    let (fx, fy) = fd(read_in_a_loop_plain, 0.7, 1.3);
    assert_relative_eq!(dx, fx, max_relative = 1e-7);
    assert_relative_eq!(dy, fy, max_relative = 1e-7);
}

#[test]
fn a_mut_parameter_read_by_a_method_then_written() {
    let b0 = Body { mass: 2.0, v: 0.5 };
    let x = 3.0;
    let mut b = b0.clone();
    let (v, (db, dx)) = read_a_mut_parameter_grad(&mut b, x);
    let mut c = b0.clone();
    assert_eq!(v, read_a_mut_parameter(&mut c, x));
    assert_eq!(b, c);
    // f = m v^2 / 2 + x v: df/dm = v^2 / 2, df/dv = m v + x, df/dx = v.
    assert_eq!(db.mass, 0.5 * b0.v * b0.v);
    assert_eq!(db.v, b0.mass * b0.v + x);
    assert_eq!(dx, b0.v);
}

/// A reader of a body by shared reference.
#[reverse]
fn momentum_of(b: &Body) -> f64 {
    b.mass * b.v
}

/// A `mut` body lent to a reader by `&mut` (Rust coerces it to `&Body`), then written.
#[reverse]
fn lent_to_a_reader(x: f64, y: f64) -> f64 {
    let mut b = Body { mass: x, v: y };
    let p = momentum_of(&mut b);
    b.mass = y * y;
    p + momentum_of(&b)
}

#[test]
fn a_mut_struct_lent_to_a_shared_reference() {
    let (x, y) = (1.5, 0.5);
    let (v, (dx, dy)) = lent_to_a_reader_grad(x, y);
    assert_eq!(v, lent_to_a_reader(x, y));
    // f = x y + y^3.
    assert_eq!(v, x * y + y * y * y);
    assert_eq!(dx, y);
    assert_eq!(dy, x + 3.0 * y * y);
}

/// A body with two fields and methods of each kind, as the fuzzer's programs have them.
#[derive(Clone, Copy, Debug, PartialEq, revad::Adjoint)]
pub struct Q {
    /// First field.
    pub fa: f64,
    /// Second field.
    pub fb: f64,
}

#[reverse]
impl Q {
    /// `fa x + fb y`.
    #[reverse]
    pub fn m(&self, x: f64, y: f64) -> f64 {
        self.fa * x + self.fb * y
    }

    /// `fa <- fa x + fb`.
    #[reverse]
    pub fn bump(&mut self, x: f64) {
        self.fa = self.fa * x + self.fb;
    }

    /// The body with `fa` scaled by `x`.
    #[reverse]
    pub fn next(&self, x: f64) -> Self {
        Q {
            fa: self.fa * x,
            fb: self.fb,
        }
    }
}

/// Fuzz finding 17: a method read in an `if` arm, the struct written afterwards (the value
/// kept for the arm's reverse needed `Default`).
#[reverse]
fn read_in_an_arm(x: f64) -> f64 {
    let mut obj = Q { fa: x, fb: 1.0 };
    let mut s = 0.0;
    if x > 0.0 {
        let t = obj.m(x, x);
        s += t;
    }
    obj.fa = 2.0 * x;
    s + obj.m(x, 1.0)
}

/// Fuzz findings 18 and 19: whole-struct assignment from a method's struct result, in a loop.
#[reverse]
fn stepped(x: f64) -> f64 {
    let mut obj = Q { fa: x, fb: 0.5 };
    for _ in 0..3 {
        obj = obj.next(x);
    }
    let q = obj.next(2.0);
    q.fa + obj.fb
}

/// Fuzz finding 20: fields of the receiver as the whole arguments of its methods (E0502).
#[reverse]
fn fields_as_arguments(x: f64) -> f64 {
    let mut obj = Q { fa: x, fb: 2.0 };
    obj.bump(obj.fa);
    let t = obj.m(obj.fb, obj.fa);
    obj.fb = t;
    obj.m(obj.fb, x)
}

#[test]
fn fuzz_findings_17_to_20_closed_forms() {
    for x in [0.5, -0.75, 1.25] {
        // s = x^2 + x (x > 0), then 2x^2 + 1.
        let (v, dx) = read_in_an_arm_grad(x);
        assert_eq!(v, read_in_an_arm(x));
        let (arm, darm) = if x > 0.0 {
            (x * x + x, 2.0 * x + 1.0)
        } else {
            (0.0, 0.0)
        };
        assert_relative_eq!(v, arm + 2.0 * x * x + 1.0, max_relative = 1e-15);
        assert_relative_eq!(dx, darm + 4.0 * x, max_relative = 1e-15);

        // fa = x^4, then q.fa = 2 x^4.
        let (v, dx) = stepped_grad(x);
        assert_eq!(v, stepped(x));
        assert_relative_eq!(v, 2.0 * x.powi(4) + 0.5, max_relative = 1e-15);
        assert_relative_eq!(dx, 8.0 * x.powi(3), max_relative = 1e-15);

        // fa = x^2 + 2; t = 2 fa + 2 fa = 4 fa; f = fa t + t x = 4 fa (fa + x).
        let (v, dx) = fields_as_arguments_grad(x);
        assert_eq!(v, fields_as_arguments(x));
        let fa = x * x + 2.0;
        assert_relative_eq!(v, 4.0 * fa * (fa + x), max_relative = 1e-14);
        let dfa = 2.0 * x;
        assert_relative_eq!(
            dx,
            4.0 * dfa * (fa + x) + 4.0 * fa * (dfa + 1.0),
            max_relative = 1e-14
        );
    }
}

/// A field of the receiver as the argument of its `&mut self` method, nothing writing the
/// struct afterwards: the method's reverse sweep reads the argument as it was at the call (a
/// campaign program gave a wrong derivative here before the fix; `bump`'s reverse read
/// `obj.fa` after `bump` wrote it).
#[reverse]
fn field_argument_of_a_mut_method(om: &mut f64, x: f64) -> f64 {
    let mut obj = Q { fa: *om, fb: 0.5 };
    obj.bump(obj.fa);
    *om *= x;
    obj.fa + obj.fb
}

#[test]
fn a_field_of_the_receiver_as_its_mut_methods_argument() {
    for (om, x) in [(0.5, 2.0), (-1.25, 0.5), (2.0, -1.0)] {
        // fa = om^2 + 0.5; f = om^2 + 1.
        let (mut a, mut b) = (om, om);
        let (v, (dom, dx)) = field_argument_of_a_mut_method_grad(&mut a, x);
        assert_eq!(v, field_argument_of_a_mut_method(&mut b, x));
        assert_eq!(a, om * x);
        assert_relative_eq!(v, om * om + 1.0, max_relative = 1e-15);
        assert_relative_eq!(dom, 2.0 * om, max_relative = 1e-15);
        assert_eq!(dx, 0.0);
    }
}

/// A point, a part of [`Ball`].
#[derive(Clone, Copy, Debug, Default, PartialEq, revad::Adjoint)]
pub struct P2 {
    /// Abscissa.
    pub x: f64,
    /// Ordinate.
    pub y: f64,
}

#[reverse]
impl P2 {
    /// `P2 { x, y }`.
    #[reverse]
    pub fn new(x: f64, y: f64) -> P2 {
        P2 { x, y }
    }

    /// `k p`.
    #[reverse]
    pub fn scaled(&self, k: f64) -> P2 {
        P2 {
            x: self.x * k,
            y: self.y * k,
        }
    }

    /// `|p|^2`.
    #[reverse]
    pub fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }
}

/// A struct with a struct field, a counter and an `Option`.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Ball {
    /// Position.
    pub pos: P2,
    /// Mass.
    pub m: f64,
    /// Bounces.
    pub hits: usize,
    /// The last height, if any.
    pub last: Option<f64>,
}

#[reverse]
impl Ball {
    /// Puts the ball at `(x, x^2)`, with a struct expression.
    #[reverse]
    pub fn place_at(&mut self, x: f64) {
        self.pos = P2 { x, y: x * x };
        self.hits = 0;
    }

    /// Puts the ball at the origin, with a value the macro does not see into.
    #[reverse]
    pub fn stop(&mut self) {
        self.pos = P2::default();
    }
}

/// A field read, then overwritten by a constant struct: its old adjoint stops at the write.
#[reverse]
fn field_overwritten_by_a_constant(x: f64) -> f64 {
    let mut b = Ball {
        pos: P2 { x, y: x },
        m: 2.0,
        hits: 0,
        last: Some(1.0),
    };
    let r = b.pos.x * 3.0;
    b.pos = P2::default();
    b.pos.x * b.m + r
}

/// The same with a constant struct expression, under both backends.
#[reverse]
fn field_overwritten_by_a_struct_expression(x: f64) -> f64 {
    let mut b = Ball {
        pos: P2 { x, y: x },
        m: 2.0,
        hits: 0,
        last: None,
    };
    let r = b.pos.x * 3.0;
    b.pos = P2 { x: 0.0, y: 1.0 };
    b.pos.x * b.m + b.pos.y * r
}

#[reverse(cps)]
fn field_overwritten_by_a_struct_expression_cps(x: f64) -> f64 {
    let mut b = Ball {
        pos: P2 { x, y: x },
        m: 2.0,
        hits: 0,
        last: None,
    };
    let r = b.pos.x * 3.0;
    b.pos = P2 { x: 0.0, y: 1.0 };
    b.pos.x * b.m + b.pos.y * r
}

/// A field given a differentiated struct expression, then a call's result, beside writes of
/// a counter and an `Option` field.
#[reverse]
fn field_assigned_differentiated_structs(x: f64, y: f64) -> f64 {
    let mut b = Ball {
        pos: P2 { x, y: 0.0 },
        m: y,
        hits: 0,
        last: None,
    };
    b.m = b.pos.x * b.m;
    b.pos = P2 { x: x * y, y };
    b.hits = 3;
    b.last = Some(2.0);
    let s = b.pos.x * b.m + b.pos.y;
    b.pos = P2::new(s, x);
    b.pos.x + b.pos.y * y
}

#[reverse(cps)]
fn field_assigned_differentiated_structs_cps(x: f64, y: f64) -> f64 {
    let mut b = Ball {
        pos: P2 { x, y: 0.0 },
        m: y,
        hits: 0,
        last: None,
    };
    b.m = b.pos.x * b.m;
    b.pos = P2 { x: x * y, y };
    b.hits = 3;
    b.last = Some(2.0);
    let s = b.pos.x * b.m + b.pos.y;
    b.pos = P2::new(s, x);
    b.pos.x + b.pos.y * y
}

/// `&mut self` methods that overwrite a field.
#[reverse]
fn fields_overwritten_by_methods(x: f64) -> f64 {
    let mut b = Ball {
        pos: P2 { x, y: x },
        m: 2.0,
        hits: 0,
        last: None,
    };
    let r = b.pos.x * 3.0;
    b.place_at(x * 2.0);
    let s = b.pos.y * b.m;
    b.stop();
    r + s + b.pos.x
}

#[test]
fn a_field_overwritten_whole_loses_its_old_adjoint() {
    let x = 0.3;
    // 0 * 2 + 3x: the old position's adjoint stops at the write (it was 3 + 2 before the fix).
    let (v, d) = field_overwritten_by_a_constant_grad(x);
    assert_eq!(v, field_overwritten_by_a_constant(x));
    assert_eq!(d, 3.0);
    // 0 * 2 + 1 * 3x.
    let (v, d) = field_overwritten_by_a_struct_expression_grad(x);
    assert_eq!(v, field_overwritten_by_a_struct_expression(x));
    assert_eq!(d, 3.0);
    let (v, d) = field_overwritten_by_a_struct_expression_cps_grad(x);
    assert_eq!(v, field_overwritten_by_a_struct_expression(x));
    assert_eq!(d, 3.0);
    // 3x + (2x)^2 * 2 + 0.
    let (v, d) = fields_overwritten_by_methods_grad(x);
    assert_eq!(v, fields_overwritten_by_methods(x));
    assert_relative_eq!(d, 3.0 + 16.0 * x, max_relative = 1e-15);
}

#[test]
fn a_field_assigned_a_struct_expression_or_a_call() {
    let (x, y) = (0.3, 1.5);
    // s = (x y)(x y) + y, then f = s + x y.
    let f = |x: f64, y: f64| x * y * (x * y) + y + x * y;
    let (dx, dy) = (2.0 * x * y * y + y, 2.0 * x * x * y + 1.0 + x);
    let (v, (gx, gy)) = field_assigned_differentiated_structs_grad(x, y);
    assert_eq!(v, field_assigned_differentiated_structs(x, y));
    assert_relative_eq!(v, f(x, y), max_relative = 1e-15);
    assert_relative_eq!(gx, dx, max_relative = 1e-14);
    assert_relative_eq!(gy, dy, max_relative = 1e-14);
    let (v, (gx, gy)) = field_assigned_differentiated_structs_cps_grad(x, y);
    assert_eq!(v, field_assigned_differentiated_structs(x, y));
    assert_relative_eq!(gx, dx, max_relative = 1e-14);
    assert_relative_eq!(gy, dy, max_relative = 1e-14);
}

/// A struct started from `Default` and written field by field, at the top level and in a
/// loop (where the reverse sweep pops it by the type the `let` names).
#[reverse]
fn from_default(xs: &[f64]) -> f64 {
    let mut p = P2::default();
    p.x = xs[0] * 2.0;
    p.y = xs[1];
    let mut s = p.x * p.y;
    for x in xs {
        let mut q: P2 = Default::default();
        q.x = *x;
        q.y = q.x * q.x;
        s += q.x * q.y;
        // A method's result on a struct from `Default`, unannotated, in a loop.
        let mut r = P2::default();
        r.y = *x;
        let r2 = r.scaled(*x);
        s += r2.y;
    }
    s
}

#[test]
fn structs_started_from_default() {
    let xs = [1.5, -0.5, 2.0];
    let (v, g) = from_default_grad(&xs);
    assert_eq!(v, from_default(&xs));
    // 2 x0 x1 + Σ (x^3 + x^2).
    let d = |x: f64| 3.0 * x * x + 2.0 * x;
    let expected = [2.0 * xs[1] + d(xs[0]), 2.0 * xs[0] + d(xs[1]), d(xs[2])];
    for (a, b) in g.iter().zip(&expected) {
        assert_relative_eq!(*a, *b, max_relative = 1e-15);
    }
}

/// A field assigned another part: a struct, then floats, at the top level and in a loop.
#[reverse]
fn parts_assigned_parts(xs: &[f64], y: f64) -> f64 {
    let mut b = Ball {
        pos: P2 { x: y, y },
        m: y * 2.0,
        hits: 0,
        last: None,
    };
    let r = b.pos.x * 3.0;
    let mut v = P2 { x: xs[0], y: 1.0 };
    b.pos = v;
    v.y = b.m;
    b.m = b.pos.x;
    let mut s = b.pos.x * r + v.y * b.m + b.pos.y;
    for x in xs {
        v.x = *x;
        b.pos = v;
        b.m = b.pos.x * b.m;
        s += b.m;
    }
    s
}

#[test]
fn a_field_assigned_another_part() {
    let (xs, y) = ([0.7, 1.3, 2.0], 1.1);
    let (v, (g, gy)) = parts_assigned_parts_grad(&xs, y);
    assert_eq!(v, parts_assigned_parts(&xs, y));
    let mut p = xs.to_vec();
    p.push(y);
    let fd = revad::check::finite_difference(|p| parts_assigned_parts(&p[..3], p[3]), &p);
    for (a, b) in g.iter().chain([&gy]).zip(&fd) {
        assert_relative_eq!(*a, *b, max_relative = 1e-7);
    }
}

/// Method results of parts stored whole in fields (a struct, a float), and a method result
/// bound with its type in a loop.
#[reverse]
fn method_results_stored(xs: &[f64], y: f64) -> f64 {
    let mut b = Ball {
        pos: P2 { x: xs[0], y },
        m: y,
        hits: 0,
        last: None,
    };
    b.pos = b.pos.scaled(0.5);
    b.m = b.pos.norm2();
    let mut s = b.pos.x * b.m + b.pos.y;
    let p = P2 { x: xs[1], y };
    for x in xs {
        let v: P2 = p.scaled(*x);
        s += v.x * v.y;
    }
    s
}

#[test]
fn method_results_stored_in_fields() {
    let (xs, y) = ([0.7, 1.3, 2.0], 1.1);
    let (v, (g, gy)) = method_results_stored_grad(&xs, y);
    assert_eq!(v, method_results_stored(&xs, y));
    let mut p = xs.to_vec();
    p.push(y);
    let fd = revad::check::finite_difference(|p| method_results_stored(&p[..3], p[3]), &p);
    for (a, b) in g.iter().chain([&gy]).zip(&fd) {
        assert_relative_eq!(*a, *b, max_relative = 1e-7);
    }
}

/// A copy of a part, used as a struct after the part is written (`let old = b.pos;`), at the
/// top level and in a loop.
#[reverse]
fn old_part_kept(xs: &[f64]) -> f64 {
    let mut b = Ball {
        pos: P2 { x: xs[0], y: xs[1] },
        m: 0.5,
        hits: 0,
        last: None,
    };
    let first = b.pos;
    b.pos.x = b.pos.x + b.m * 0.1;
    let mut s = first.y * b.pos.x + first.x;
    for x in xs {
        let old = b.pos;
        b.pos.x = b.pos.x * x + b.m;
        b.pos.y = old.x * b.pos.y;
        s += old.y * b.pos.x;
    }
    s
}

#[test]
fn a_copy_of_a_part_keeps_the_old_value() {
    let xs = [0.7, 1.3, 2.0];
    let (v, g) = old_part_kept_grad(&xs);
    assert_eq!(v, old_part_kept(&xs));
    let fd = revad::check::finite_difference(old_part_kept, &xs);
    for (a, b) in g.iter().zip(&fd) {
        assert_relative_eq!(*a, *b, max_relative = 1e-7);
    }
}

/// Sequences of structs made by repetition (`vec![P2::default(); n]`, `vec![P2 { .. }; n]`,
/// `[P2::default(); 3]`), written field by field in loops.
#[reverse]
fn repeated_structs(xs: &[f64]) -> f64 {
    let mut ps = vec![P2::default(); xs.len()];
    let mut qs = vec![P2 { x: 1.0, y: 0.0 }; xs.len()];
    let mut rs = [P2::default(); 3];
    let mut s = 0.0;
    for i in 0..xs.len() {
        ps[i].x = xs[i];
        ps[i].y = xs[i] * xs[i];
        qs[i].y = qs[i].x * xs[i];
        rs[i % 3].x += xs[i];
        s += ps[i].x * ps[i].y + qs[i].y;
    }
    s + rs[0].x * rs[1].x
}

#[reverse(cps)]
fn repeated_structs_cps(xs: &[f64]) -> f64 {
    let mut ps = vec![P2::default(); xs.len()];
    let mut s = 0.0;
    for i in 0..xs.len() {
        ps[i].x = xs[i];
        ps[i].y = xs[i] * xs[i];
        s += ps[i].x * ps[i].y;
    }
    s
}

#[test]
fn sequences_of_repeated_structs() {
    let xs = [0.5, 2.0, -1.5];
    let (v, g) = repeated_structs_grad(&xs);
    assert_eq!(v, repeated_structs(&xs));
    // Σ (x^3 + x) + x0 x1.
    let expected = [
        3.0 * 0.25 + 1.0 + 2.0,
        3.0 * 4.0 + 1.0 + 0.5,
        3.0 * 2.25 + 1.0,
    ];
    for (a, b) in g.iter().zip(&expected) {
        assert_relative_eq!(*a, *b, max_relative = 1e-15);
    }
    let (v, g) = repeated_structs_cps_grad(&xs);
    assert_eq!(v, repeated_structs_cps(&xs));
    assert_eq!(g, vec![0.75, 12.0, 6.75]);
}
