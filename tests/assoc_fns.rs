//! Associated functions without a receiver (`fn sq(x: f64) -> f64` in `impl Foo`): with
//! `#[revad::reverse]` on the inherent `impl` block, or with `Self` in their signature or body,
//! `#[reverse]` generates `Foo::sq_grad`, `Foo::sq_vjp` and the companions beside them, and
//! annotated code calls them as `Self::sq(..)` and `Foo::sq(..)`, from free functions and from
//! methods of the same block. Checked against closed forms and finite differences of the
//! primal, in f64 and f32 and generically.

use approx::assert_relative_eq;
use revad::reverse;

/// A namespace of differentiable associated functions.
pub struct Foo;

#[reverse]
impl Foo {
    /// `x²`.
    #[reverse]
    pub fn sq(x: f64) -> f64 {
        x * x
    }

    /// `x³` in single precision.
    #[reverse]
    pub fn cube(x: f32) -> f32 {
        x * x * x
    }

    /// `x³ + 2x`, for any float type.
    #[reverse]
    pub fn poly<T: revad::Float>(x: T) -> T {
        x * x * x + x + x
    }

    /// `sin(x²)`, through `Self::sq`.
    #[reverse]
    pub fn sin_sq(x: f64) -> f64 {
        Self::sq(x).sin()
    }

    /// `y·x²`, through `Foo::sq`.
    #[reverse]
    pub fn scaled(x: f64, y: f64) -> f64 {
        Foo::sq(x) * y
    }

    /// `x³ + 1` in single precision, through `Self::cube`.
    #[reverse]
    pub fn cube_plus_one(x: f32) -> f32 {
        Self::cube(x) + 1.0
    }

    /// Not differentiated: a block may hold other items.
    pub fn name() -> &'static str {
        "foo"
    }
}

/// `x² + 1`: a free function calling the associated one.
#[reverse]
fn user(x: f64) -> f64 {
    Foo::sq(x) + 1.0
}

/// `x²·sin x`, calling two associated functions.
#[reverse]
fn user_two(x: f64) -> f64 {
    Foo::sq(x) * x.sin() + Foo::poly(x) - Foo::poly::<f64>(x)
}

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn associated_functions_have_gradients() {
    assert_eq!(Foo::sq_grad(3.0), (9.0, 6.0));
    assert_eq!(Foo::sq_vjp(3.0, 0.5), (9.0, 3.0));
    assert_eq!(Foo::cube_grad(2.0f32), (8.0, 12.0));
    assert_eq!(Foo::poly_grad(2.0f64), (12.0, 14.0));
    assert_eq!(Foo::poly_grad(2.0f32), (12.0, 14.0));
    assert_eq!(Foo::name(), "foo");
}

#[test]
fn associated_functions_call_each_other() {
    let x = 0.7;
    let (v, d) = Foo::sin_sq_grad(x);
    assert_eq!(v, Foo::sin_sq(x));
    assert_relative_eq!(d, 2.0 * x * (x * x).cos(), max_relative = 1e-15);
    assert_relative_eq!(d, fd(Foo::sin_sq, x), max_relative = 1e-8);
    let (v, (dx, dy)) = Foo::scaled_grad(1.5, -2.0);
    assert_eq!(v, Foo::scaled(1.5, -2.0));
    assert_eq!((dx, dy), (2.0 * 1.5 * -2.0, 1.5 * 1.5));
    let (v, d) = Foo::cube_plus_one_grad(1.5f32);
    assert_eq!(v, Foo::cube_plus_one(1.5));
    assert_eq!(d, 3.0 * 1.5 * 1.5);
}

#[test]
fn free_functions_call_associated_functions() {
    assert_eq!(user_grad(3.0), (10.0, 6.0));
    let x = -1.25;
    let (v, d) = user_two_grad(x);
    assert_eq!(v, user_two(x));
    assert_relative_eq!(d, 2.0 * x * x.sin() + x * x * x.cos(), max_relative = 1e-14);
    assert_relative_eq!(d, fd(user_two, x), max_relative = 1e-8);
}

/// A scale factor: a method of its block calls the block's associated function.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Scale {
    /// The factor.
    pub k: f64,
}

#[reverse]
impl Scale {
    /// `x² + x`.
    #[reverse]
    fn sq_plus(x: f64) -> f64 {
        x * x + x
    }

    /// `k·(x² + x)`.
    #[reverse]
    fn apply(&self, x: f64) -> f64 {
        self.k * Self::sq_plus(x)
    }

    /// `k·(x² + x)` once more, through the type's name.
    #[reverse]
    fn apply_by_name(&self, x: f64) -> f64 {
        self.k * Scale::sq_plus(x)
    }
}

#[test]
fn methods_call_associated_functions_of_their_block() {
    let s = Scale { k: 1.75 };
    let x = 0.4;
    for (v, (ds, dx)) in [s.apply_grad(x), s.apply_by_name_grad(x)] {
        assert_eq!(v, s.apply(x));
        assert_eq!(ds.k, x * x + x);
        assert_relative_eq!(dx, 1.75 * (2.0 * x + 1.0), max_relative = 1e-15);
    }
}

/// Associated functions that name `Self` need no attribute on their block.
pub struct Bar;

#[reverse]
impl Bar {
    /// `eˣ`.
    #[reverse]
    fn exp(x: f64) -> f64 {
        x.exp()
    }
}

impl Bar {
    /// `x·eˣ`, through `Self::exp`: `Self` in the body says it is in an `impl` block.
    #[reverse]
    fn x_exp(x: f64) -> f64 {
        x * Self::exp(x)
    }

    /// `y·eˣ`: `Self` in the signature says so too.
    #[reverse]
    fn y_exp(x: f64, y: f64, _unit: Option<&Self>) -> f64 {
        y * Bar::exp(x)
    }
}

#[test]
fn an_associated_function_that_names_self_needs_no_block_attribute() {
    let x = 0.3;
    let (v, d) = Bar::x_exp_grad(x);
    assert_eq!(v, Bar::x_exp(x));
    assert_relative_eq!(d, (1.0 + x) * x.exp(), max_relative = 1e-15);
    assert_relative_eq!(d, fd(Bar::x_exp, x), max_relative = 1e-8);
    let (v, (dx, dy)) = Bar::y_exp_grad(x, 2.5, None);
    assert_eq!(v, Bar::y_exp(x, 2.5, None));
    assert_relative_eq!(dx, 2.5 * x.exp(), max_relative = 1e-15);
    assert_eq!(dy, x.exp());
}

/// Forward mode beside reverse mode, and alone.
pub struct Waves;

#[reverse]
impl Waves {
    /// `x·sin x`.
    #[revad::forward]
    #[reverse]
    pub fn x_sin(x: f64) -> f64 {
        x * x.sin()
    }

    /// `y·x·sin x`, forward mode only.
    #[revad::forward]
    pub fn y_x_sin(x: f64, y: f64) -> f64 {
        y * Self::x_sin(x)
    }
}

/// A damped oscillator with forward-mode methods.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Osc {
    /// Damping.
    pub c: f64,
}

impl Osc {
    /// `e^{-c t}·cos t`, differentiated with respect to `t` only.
    #[revad::forward(wrt(t))]
    pub fn at(&self, t: f64) -> f64 {
        (-self.c * t).exp() * t.cos()
    }
}

#[test]
fn forward_mode_on_associated_functions_and_methods() {
    let x = 0.9;
    let (v, d) = Waves::x_sin_jvp(x, 1.0);
    assert_eq!(v, Waves::x_sin(x));
    assert_relative_eq!(d, x.sin() + x * x.cos(), max_relative = 1e-15);
    let (v, d) = Waves::y_x_sin_jvp(x, 2.0, 0.5, 1.0);
    assert_eq!(v, Waves::y_x_sin(x, 2.0));
    assert_relative_eq!(
        d,
        0.5 * 2.0 * (x.sin() + x * x.cos()) + x * x.sin(),
        max_relative = 1e-14
    );
    let o = Osc { c: 0.3 };
    let t = 1.1;
    let (v, d) = o.at_jvp(t, 1.0);
    assert_eq!(v, o.at(t));
    assert_relative_eq!(d, fd(|t| o.at(t), t), max_relative = 1e-8);
}

/// A trait's associated functions without `self`: the trait's attribute says where they are.
#[reverse]
pub trait Shape {
    /// The area of the shape of size `r`.
    #[reverse]
    fn area(r: f64) -> f64;

    /// Twice the area: a default associated function, through `Self::area`.
    #[reverse]
    fn doubled(r: f64) -> f64 {
        2.0 * Self::area(r)
    }
}

/// A disk, of radius `r`.
#[derive(Clone, revad::Adjoint)]
pub struct Disk {
    /// An inactive tag.
    pub id: usize,
}

#[reverse]
impl Shape for Disk {
    #[reverse]
    fn area(r: f64) -> f64 {
        3.0 * r * r
    }
}

#[test]
fn a_traits_associated_functions_without_self() {
    assert_eq!(Disk::area_grad(2.0), (12.0, 12.0));
    assert_eq!(Disk::doubled_grad(2.0), (24.0, 24.0));
    assert_eq!(<Disk as Shape>::area_vjp(2.0, 0.5), (12.0, 6.0));
    assert_eq!(Disk { id: 1 }.id, 1);
}

/// `2·x·sin x`: a forward-mode caller of an associated function.
#[revad::forward]
fn forward_user(x: f64) -> f64 {
    2.0 * Waves::x_sin(x)
}

#[test]
fn forward_callers_call_associated_functions() {
    let x = -0.6;
    let (v, d) = forward_user_jvp(x, 1.0);
    assert_eq!(v, forward_user(x));
    assert_relative_eq!(d, 2.0 * (x.sin() + x * x.cos()), max_relative = 1e-15);
}

/// A trait whose impls give forward derivatives of their methods.
#[reverse]
pub trait Curve {
    /// The curve at `t`.
    #[reverse]
    fn at(&self, t: f64) -> f64;
}

/// `a·t² + sin t`.
#[derive(Clone, revad::Adjoint)]
pub struct Parabola {
    /// The leading coefficient.
    pub a: f64,
}

#[reverse]
impl Curve for Parabola {
    #[revad::forward(wrt(t))]
    #[reverse]
    fn at(&self, t: f64) -> f64 {
        self.a * t * t + t.sin()
    }
}

#[test]
fn forward_mode_on_a_trait_impls_method() {
    let p = Parabola { a: 1.5 };
    let t = 0.8;
    let (v, d) = p.at_jvp(t, 1.0);
    assert_eq!(v, p.at(t));
    assert_relative_eq!(d, 2.0 * 1.5 * t + t.cos(), max_relative = 1e-15);
    let (v, (dp, dt)) = p.at_grad(t);
    assert_eq!(v, p.at(t));
    assert_eq!(dp.a, t * t);
    assert_relative_eq!(dt, d, max_relative = 1e-15);
}
