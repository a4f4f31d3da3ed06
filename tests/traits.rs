//! Trait methods: `#[revad::reverse]` on a trait and on its impl blocks, `#[reverse]` on the
//! methods; the derivatives called on a concrete type (`model.loss_grad(..)`), through a
//! generic bound (`fn fit<M: Model>`), and of a trait's default method, checked against
//! closed forms and finite differences of the primal.
#![allow(
    clippy::assign_op_pattern,
    reason = "the forms under test are written as users write them"
)]

use approx::assert_relative_eq;
use revad::reverse;

/// A model of one input, differentiable in its parameters and its input.
#[reverse]
pub trait Model {
    /// The model's prediction at `x`.
    #[reverse]
    fn eval(&self, x: f64) -> f64;

    /// The squared error at `(x, y)`: a default method, differentiated once for every impl.
    #[reverse]
    fn loss(&self, x: f64, y: f64) -> f64 {
        let e = self.eval(x) - y;
        e * e
    }

    /// Not differentiated: a trait may have other methods.
    fn name(&self) -> &'static str;
}

/// `w x + b`.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Linear {
    /// Slope.
    pub w: f64,
    /// Intercept.
    pub b: f64,
}

#[reverse]
impl Model for Linear {
    #[reverse]
    fn eval(&self, x: f64) -> f64 {
        self.w * x + self.b
    }

    fn name(&self) -> &'static str {
        "linear"
    }
}

/// `a sin(k x)`, with its own `loss` (a weighted error).
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Wave {
    /// Amplitude.
    pub a: f64,
    /// Frequency.
    pub k: f64,
}

#[reverse]
impl Model for Wave {
    #[reverse]
    fn eval(&self, x: f64) -> f64 {
        self.a * (self.k * x).sin()
    }

    #[reverse]
    fn loss(&self, x: f64, y: f64) -> f64 {
        let e = self.eval(x) - y;
        2.0 * e * e
    }

    fn name(&self) -> &'static str {
        "wave"
    }
}

/// A generic caller: dispatches statically to each impl's derivatives.
#[reverse]
fn fit<M: Model>(m: &M, x: f64, y: f64) -> f64 {
    let p = m.eval(x);
    m.loss(x, y) + 0.5 * p * p
}

/// A caller on a concrete type, through the trait's methods.
#[reverse]
fn both(lin: &Linear, wave: &Wave, x: f64) -> f64 {
    lin.eval(x) * wave.eval(x) + wave.loss(x, 1.0) + lin.loss(x, 0.5)
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn an_impl_method_has_its_gradient() {
    let lin = Linear { w: 1.5, b: -0.5 };
    let (value, (dlin, dx)) = lin.eval_grad(2.0);
    assert_eq!(value, lin.eval(2.0));
    assert_eq!((dlin.w, dlin.b, dx), (2.0, 1.0, 1.5));
    let wave = Wave { a: 0.7, k: 1.3 };
    let (value, (dwave, dx)) = wave.eval_grad(0.4);
    assert_eq!(value, wave.eval(0.4));
    assert_relative_eq!(dwave.a, (1.3f64 * 0.4).sin(), max_relative = 1e-14);
    assert_relative_eq!(
        dwave.k,
        0.7 * 0.4 * (1.3f64 * 0.4).cos(),
        max_relative = 1e-14
    );
    assert_relative_eq!(dx, 0.7 * 1.3 * (1.3f64 * 0.4).cos(), max_relative = 1e-14);
}

#[test]
fn a_default_method_has_its_gradient_for_each_impl() {
    let lin = Linear { w: 1.5, b: -0.5 };
    let (x, y) = (2.0, 1.0);
    let (value, (dlin, dx, dy)) = lin.loss_grad(x, y);
    assert_eq!(value, lin.loss(x, y));
    let e = lin.w * x + lin.b - y;
    assert_relative_eq!(dlin.w, 2.0 * e * x, max_relative = 1e-14);
    assert_relative_eq!(dlin.b, 2.0 * e, max_relative = 1e-14);
    assert_relative_eq!(dx, 2.0 * e * lin.w, max_relative = 1e-14);
    assert_relative_eq!(dy, -2.0 * e, max_relative = 1e-14);
    // The seed scales the vjp.
    let (_, (dlin3, _, _)) = lin.loss_vjp(x, y, 3.0);
    assert_relative_eq!(dlin3.w, 3.0 * dlin.w, max_relative = 1e-14);
}

#[test]
fn an_overriding_method_has_its_own_gradient() {
    let wave = Wave { a: 0.7, k: 1.3 };
    let (x, y) = (0.4, 0.1);
    let (value, (dwave, dx, dy)) = wave.loss_grad(x, y);
    assert_eq!(value, wave.loss(x, y));
    let e = wave.eval(x) - y;
    assert_relative_eq!(dy, -4.0 * e, max_relative = 1e-14);
    let fd_a = central(|a| Wave { a, k: wave.k }.loss(x, y), wave.a);
    let fd_k = central(|k| Wave { a: wave.a, k }.loss(x, y), wave.k);
    let fd_x = central(|x| wave.loss(x, y), x);
    assert_relative_eq!(dwave.a, fd_a, max_relative = 1e-7);
    assert_relative_eq!(dwave.k, fd_k, max_relative = 1e-7);
    assert_relative_eq!(dx, fd_x, max_relative = 1e-7);
}

#[test]
fn a_generic_caller_dispatches_to_each_impl() {
    let (x, y) = (0.8, 0.3);
    let lin = Linear { w: -1.2, b: 0.4 };
    let (value, (dlin, dx, dy)) = fit_grad(&lin, x, y);
    assert_eq!(value, fit(&lin, x, y));
    // fit = (w x + b - y)² + (w x + b)² / 2
    let (p, e) = (lin.w * x + lin.b, lin.w * x + lin.b - y);
    assert_relative_eq!(dlin.w, 2.0 * e * x + p * x, max_relative = 1e-14);
    assert_relative_eq!(dlin.b, 2.0 * e + p, max_relative = 1e-14);
    assert_relative_eq!(dx, (2.0 * e + p) * lin.w, max_relative = 1e-14);
    assert_relative_eq!(dy, -2.0 * e, max_relative = 1e-14);

    let wave = Wave { a: 0.7, k: 1.3 };
    let (value, (dwave, dx, _)) = fit_grad(&wave, x, y);
    assert_eq!(value, fit(&wave, x, y));
    let fd_a = central(|a| fit(&Wave { a, k: wave.k }, x, y), wave.a);
    let fd_k = central(|k| fit(&Wave { a: wave.a, k }, x, y), wave.k);
    let fd_x = central(|x| fit(&wave, x, y), x);
    assert_relative_eq!(dwave.a, fd_a, max_relative = 1e-7);
    assert_relative_eq!(dwave.k, fd_k, max_relative = 1e-7);
    assert_relative_eq!(dx, fd_x, max_relative = 1e-7);
    assert_eq!((lin.name(), wave.name()), ("linear", "wave"));
}

#[test]
fn a_caller_on_concrete_types_calls_the_trait_methods() {
    let lin = Linear { w: 1.1, b: 0.2 };
    let wave = Wave { a: 0.9, k: 0.6 };
    let x = 0.7;
    let (value, (dlin, dwave, dx)) = both_grad(&lin, &wave, x);
    assert_eq!(value, both(&lin, &wave, x));
    let fd = |f: &dyn Fn(f64) -> f64, v: f64| central(f, v);
    assert_relative_eq!(
        dlin.w,
        fd(&|w| both(&Linear { w, b: lin.b }, &wave, x), lin.w),
        max_relative = 1e-7
    );
    assert_relative_eq!(
        dlin.b,
        fd(&|b| both(&Linear { w: lin.w, b }, &wave, x), lin.b),
        max_relative = 1e-7
    );
    assert_relative_eq!(
        dwave.a,
        fd(&|a| both(&lin, &Wave { a, k: wave.k }, x), wave.a),
        max_relative = 1e-7
    );
    assert_relative_eq!(
        dwave.k,
        fd(&|k| both(&lin, &Wave { a: wave.a, k }, x), wave.k),
        max_relative = 1e-7
    );
    assert_relative_eq!(dx, fd(&|x| both(&lin, &wave, x), x), max_relative = 1e-7);
}

/// A trait in one module, its impl in another that imports it by name (the import brings the
/// trait's derivatives along), and a caller in a third.
mod shapes {
    pub mod def {
        /// Something with an area.
        #[revad::reverse]
        pub trait Area {
            /// The area.
            #[reverse]
            fn area(&self) -> f64;
        }
    }

    pub mod disc {
        use super::def::Area;

        /// A disc of radius `r`.
        #[derive(Clone, Debug, PartialEq, revad::Adjoint)]
        pub struct Disc {
            /// Radius.
            pub r: f64,
        }

        #[revad::reverse]
        impl Area for Disc {
            #[reverse]
            fn area(&self) -> f64 {
                3.0 * self.r * self.r
            }
        }
    }

    use def::Area as _;

    /// The area of `d` scaled by `s`, on the concrete type (the trait imported anonymously).
    #[revad::reverse]
    pub fn scaled(d: &disc::Disc, s: f64) -> f64 {
        s * d.area()
    }
}

#[test]
fn a_trait_and_its_impl_in_other_modules() {
    use shapes::def::Area;
    let d = shapes::disc::Disc { r: 1.5 };
    let (value, dd) = d.area_grad();
    assert_eq!(value, d.area());
    assert_eq!(dd.r, 6.0 * d.r);
    let (value, (dd, ds)) = shapes::scaled_grad(&d, 2.0);
    assert_eq!(value, shapes::scaled(&d, 2.0));
    assert_eq!((dd.r, ds), (12.0 * d.r, d.area()));
}

/// A trait whose methods take `&mut self`, and one differentiated only along `x`
/// (`wrt(x)`, the same in the trait and the impl).
#[reverse]
pub trait Stepper {
    /// Scales the state by `x` and returns it.
    #[reverse]
    fn step(&mut self, x: f64) -> f64;

    /// The state times `x`, differentiated along `x` only.
    #[reverse(wrt(x))]
    fn probe(&self, x: f64) -> f64;
}

/// One float of state.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Cell1 {
    /// The state.
    pub w: f64,
}

#[reverse]
impl Stepper for Cell1 {
    #[reverse]
    fn step(&mut self, x: f64) -> f64 {
        self.w = self.w * x;
        self.w
    }

    #[reverse(wrt(x))]
    fn probe(&self, x: f64) -> f64 {
        self.w * x * x
    }
}

#[test]
fn mut_self_and_wrt_methods_of_a_trait() {
    let mut c = Cell1 { w: 2.0 };
    // step: w' = w x; the result's derivative along the state on entry is x, along x is w.
    let (value, (dc, dx)) = c.step_grad(3.0);
    assert_eq!((value, c.w), (6.0, 6.0));
    assert_eq!((dc.w, dx), (3.0, 2.0));
    // probe = w x², along x only: 2 w x.
    let (value, dx) = c.probe_grad(0.5);
    assert_eq!((value, dx), (1.5, 6.0));
}
