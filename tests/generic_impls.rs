//! Methods and associated functions of a generic `impl` block over the float type
//! (`#[revad::reverse] impl<T: revad::Float> Model<T> { .. }`): the block's type parameter is a
//! float type of its functions, and its bounds and `where` clause reach the generated items.
//! Checked against closed forms and finite differences of the primal, at `f64` and `f32`.

use approx::assert_relative_eq;
use revad::{forward, reverse, Float};

/// A quadratic `w0·x² + w1·x + w2` over any float type.
#[derive(revad::Adjoint)]
pub struct Model<T> {
    /// The coefficients.
    pub w: [T; 3],
}

#[reverse]
impl<T: revad::Float> Model<T> {
    /// `w0·x² + w1·x + w2`.
    #[reverse]
    pub fn eval(&self, x: T) -> T {
        self.w[0] * x * x + self.w[1] * x + self.w[2]
    }

    /// `x²`, an associated function without a receiver.
    #[reverse]
    pub fn sq(x: T) -> T {
        x * x
    }

    /// `x³`, with a hand-written pullback (an associated function of the block).
    #[revad::derivative(vjp = Self::cube_pullback)]
    pub fn cube(x: T) -> T {
        x * x * x
    }

    /// The pullback of [`Model::cube`]: `seed·3x²`.
    pub fn cube_pullback(x: T, _out: T, seed: T) -> T {
        seed * T::from_f64(3.0) * x * x
    }

    /// `w0·x³`: a method calling the function with a hand-written pullback.
    #[reverse]
    pub fn cubic(&self, x: T) -> T {
        self.w[0] * Self::cube(x)
    }

    /// `eval(x)·x²`: a method calling a method and an associated function of the block.
    #[reverse]
    pub fn scaled(&self, x: T) -> T {
        self.eval(x) * Self::sq(x)
    }
}

/// A pair `(a, b)` with the block's bound in a `where` clause.
#[derive(revad::Adjoint)]
pub struct Pair<T> {
    /// The first entry.
    pub a: T,
    /// The second entry.
    pub b: T,
}

#[reverse]
impl<T> Pair<T>
where
    T: Float,
{
    /// `a·sin(x) + b·x³`.
    #[reverse]
    pub fn eval(&self, x: T) -> T {
        self.a * x.sin() + self.b * x * x * x
    }

    /// `exp(x)·y`, in an associated function with two parameters.
    #[reverse]
    pub fn exp_times(x: T, y: T) -> T {
        x.exp() * y
    }
}

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn generic_method_at_f64() {
    let m = Model {
        w: [1.5f64, -2.0, 0.5],
    };
    let x = 0.7;
    let (y, (dm, dx)) = m.eval_grad(x);
    assert_eq!(y.to_bits(), m.eval(x).to_bits());
    assert_relative_eq!(dm.w[0], x * x, epsilon = 1e-12);
    assert_relative_eq!(dm.w[1], x, epsilon = 1e-12);
    assert_relative_eq!(dm.w[2], 1.0, epsilon = 1e-12);
    assert_relative_eq!(dx, 2.0 * 1.5 * x - 2.0, epsilon = 1e-12);
    assert_relative_eq!(dx, fd(|x| m.eval(x), x), epsilon = 1e-6);
}

#[test]
fn generic_method_at_f32() {
    let m = Model {
        w: [1.5f32, -2.0, 0.5],
    };
    let x = 0.75f32;
    let (y, (dm, dx)) = m.eval_grad(x);
    assert_eq!(y.to_bits(), m.eval(x).to_bits());
    assert_relative_eq!(dm.w[0], x * x, epsilon = 1e-6);
    assert_relative_eq!(dm.w[1], x, epsilon = 1e-6);
    assert_relative_eq!(dm.w[2], 1.0, epsilon = 1e-6);
    assert_relative_eq!(dx, 2.0 * 1.5 * x - 2.0, epsilon = 1e-6);
}

#[test]
fn generic_associated_function() {
    assert_eq!(Model::<f64>::sq_grad(3.0), (9.0, 6.0));
    assert_eq!(Model::<f32>::sq_grad(3.0), (9.0, 6.0));
    assert_eq!(Model::<f64>::sq_vjp(3.0, 0.5), (9.0, 3.0));
    let (y, (dx, dy)) = Pair::<f64>::exp_times_grad(0.3, 2.0);
    assert_eq!(y.to_bits(), Pair::<f64>::exp_times(0.3, 2.0).to_bits());
    assert_relative_eq!(dx, 0.3f64.exp() * 2.0, epsilon = 1e-12);
    assert_relative_eq!(dy, 0.3f64.exp(), epsilon = 1e-12);
    let (_, (dx, dy)) = Pair::<f32>::exp_times_grad(0.3, 2.0);
    assert_relative_eq!(dx, 0.3f32.exp() * 2.0, epsilon = 1e-5);
    assert_relative_eq!(dy, 0.3f32.exp(), epsilon = 1e-5);
}

#[test]
fn generic_method_calling_the_block() {
    let m = Model {
        w: [0.5f64, 1.0, -1.0],
    };
    let x = 1.3;
    let (y, (dm, dx)) = m.scaled_grad(x);
    assert_eq!(y.to_bits(), m.scaled(x).to_bits());
    // d/dx [(w0 x² + w1 x + w2) x²] = (2 w0 x + w1) x² + 2 x (w0 x² + w1 x + w2)
    let p = m.eval(x);
    assert_relative_eq!(
        dx,
        (2.0 * 0.5 * x + 1.0) * x * x + 2.0 * x * p,
        epsilon = 1e-12
    );
    assert_relative_eq!(dx, fd(|x| m.scaled(x), x), epsilon = 1e-5);
    assert_relative_eq!(dm.w[0], x.powi(4), epsilon = 1e-12);
    assert_relative_eq!(dm.w[1], x.powi(3), epsilon = 1e-12);
    assert_relative_eq!(dm.w[2], x * x, epsilon = 1e-12);
}

#[test]
fn where_clause_reaches_the_generated_items() {
    let p = Pair { a: 0.8f64, b: -0.3 };
    let x = 0.9;
    let (y, (dp, dx)) = p.eval_grad(x);
    assert_eq!(y.to_bits(), p.eval(x).to_bits());
    assert_relative_eq!(dp.a, x.sin(), epsilon = 1e-12);
    assert_relative_eq!(dp.b, x * x * x, epsilon = 1e-12);
    assert_relative_eq!(dx, 0.8 * x.cos() - 0.9 * x * x, epsilon = 1e-12);
    assert_relative_eq!(dx, fd(|x| p.eval(x), x), epsilon = 1e-6);
    let q = Pair { a: 0.8f32, b: -0.3 };
    let (_, (dq, dx)) = q.eval_grad(0.9);
    assert_relative_eq!(dq.a, 0.9f32.sin(), epsilon = 1e-6);
    assert_relative_eq!(dx, 0.8 * 0.9f32.cos() - 0.9 * 0.81, epsilon = 1e-5);
}

/// A free function calling the generic method at `f64`.
#[reverse]
fn use_model(m: &Model<f64>, x: f64) -> f64 {
    m.eval(x) + Model::<f64>::sq(x)
}

#[test]
fn free_caller_at_a_concrete_type() {
    let m = Model {
        w: [1.0f64, 0.0, 2.0],
    };
    let (y, (dm, dx)) = use_model_grad(&m, 0.5);
    assert_eq!(y.to_bits(), use_model(&m, 0.5).to_bits());
    assert_relative_eq!(dx, 2.0 * 0.5 + 2.0 * 0.5, epsilon = 1e-12);
    assert_relative_eq!(dm.w[0], 0.25, epsilon = 1e-12);
}

/// A namespace of functions with hand-written derivatives.
pub struct Stable;

#[reverse]
impl Stable {
    /// `log(1 + eˣ)`, computed stably; its derivative is the logistic function.
    #[revad::derivative(vjp = softplus_pullback, jvp = softplus_tangent)]
    pub fn softplus(x: f64) -> f64 {
        if x > 30.0 {
            x
        } else {
            x.exp().ln_1p()
        }
    }

    /// `2·softplus(x)`, calling it from the block.
    #[reverse]
    pub fn twice(x: f64) -> f64 {
        Self::softplus(x) * 2.0
    }
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn softplus_pullback(x: f64, _out: f64, seed: f64) -> f64 {
    seed * logistic(x)
}

fn softplus_tangent(x: f64, _out: f64, dx: f64) -> f64 {
    dx * logistic(x)
}

/// `softplus(x) + x`, a free function calling the associated one.
#[reverse]
fn softplus_plus(x: f64) -> f64 {
    Stable::softplus(x) + x
}

/// `softplus(x)·x` in forward mode.
#[forward]
fn softplus_times(x: f64) -> f64 {
    Stable::softplus(x) * x
}

#[test]
fn derivative_in_an_annotated_block() {
    for x in [-2.0, 0.3, 40.0] {
        let (y, dx) = Stable::softplus_grad(x);
        assert_eq!(y.to_bits(), Stable::softplus(x).to_bits());
        assert_relative_eq!(dx, logistic(x), epsilon = 1e-12);
        assert_relative_eq!(
            Stable::softplus_vjp(x, 0.5).1,
            0.5 * logistic(x),
            epsilon = 1e-12
        );
        let (y, t) = Stable::softplus_jvp(x, 2.0);
        assert_eq!(y.to_bits(), Stable::softplus(x).to_bits());
        assert_relative_eq!(t, 2.0 * logistic(x), epsilon = 1e-12);
        let (y, dx) = Stable::twice_grad(x);
        assert_eq!(y.to_bits(), Stable::twice(x).to_bits());
        assert_relative_eq!(dx, 2.0 * logistic(x), epsilon = 1e-12);
        let (_, dx) = softplus_plus_grad(x);
        assert_relative_eq!(dx, logistic(x) + 1.0, epsilon = 1e-12);
        let (y, t) = softplus_times_jvp(x, 1.0);
        assert_eq!(y.to_bits(), softplus_times(x).to_bits());
        assert_relative_eq!(t, logistic(x) * x + Stable::softplus(x), epsilon = 1e-12);
    }
    assert_relative_eq!(
        Stable::softplus_grad(0.3).1,
        fd(Stable::softplus, 0.3),
        epsilon = 1e-6
    );
}

#[test]
fn derivative_in_a_generic_block() {
    let (y, dx) = Model::<f64>::cube_grad(1.5);
    assert_eq!(y.to_bits(), Model::<f64>::cube(1.5).to_bits());
    assert_relative_eq!(dx, 3.0 * 1.5 * 1.5, epsilon = 1e-12);
    let (_, dx) = Model::<f32>::cube_grad(1.5);
    assert_relative_eq!(dx, 3.0 * 1.5 * 1.5, epsilon = 1e-5);
    let m = Model {
        w: [2.0f64, 0.0, 0.0],
    };
    let (y, (dm, dx)) = m.cubic_grad(0.5);
    assert_eq!(y.to_bits(), m.cubic(0.5).to_bits());
    assert_relative_eq!(dx, 2.0 * 3.0 * 0.25, epsilon = 1e-12);
    assert_relative_eq!(dm.w[0], 0.125, epsilon = 1e-12);
    assert_relative_eq!(dx, fd(|x| m.cubic(x), 0.5), epsilon = 1e-6);
}

/// A scale `a`, whose method has a hand-written pullback.
#[derive(revad::Adjoint)]
pub struct Scale {
    /// The factor.
    pub a: f64,
}

impl Scale {
    /// `a·x`, with a hand-written pullback taking `self` first.
    #[revad::derivative(vjp = scale_pullback)]
    pub fn apply(&self, x: f64) -> f64 {
        self.a * x
    }
}

fn scale_pullback(s: &Scale, x: f64, _out: f64, seed: f64) -> (ScaleAdjoint, f64) {
    (ScaleAdjoint { a: seed * x }, seed * s.a)
}

/// `2·apply(x)`, calling the method.
#[reverse]
fn apply_twice(s: &Scale, x: f64) -> f64 {
    s.apply(x) * 2.0
}

#[test]
fn derivative_of_a_method() {
    let s = Scale { a: 3.0 };
    let (y, (ds, dx)) = s.apply_grad(2.0);
    assert_eq!(y.to_bits(), s.apply(2.0).to_bits());
    assert_relative_eq!(ds.a, 2.0, epsilon = 1e-12);
    assert_relative_eq!(dx, 3.0, epsilon = 1e-12);
    let (y, (ds, dx)) = apply_twice_grad(&s, 2.0);
    assert_eq!(y.to_bits(), apply_twice(&s, 2.0).to_bits());
    assert_relative_eq!(ds.a, 4.0, epsilon = 1e-12);
    assert_relative_eq!(dx, 6.0, epsilon = 1e-12);
}

/// A damped oscillator over a float type bounded by `num_traits::Float` on its block.
#[derive(revad::Adjoint)]
pub struct Damped<T> {
    /// The damping rate.
    pub k: T,
}

#[reverse]
impl<T: num_traits::Float> Damped<T> {
    /// `exp(-k·x)·cos(x)`, with the methods of `num_traits::Float`.
    #[reverse]
    pub fn eval(&self, x: T) -> T {
        (-self.k * x).exp() * x.cos()
    }

    /// The same in forward mode, along `x`.
    #[forward(wrt(x))]
    pub fn at(&self, x: T) -> T {
        (-self.k * x).exp() * x.cos()
    }
}

#[test]
fn block_bounded_by_num_traits() {
    let d = Damped { k: 0.4f64 };
    let x = 1.1;
    let (y, (dd, dx)) = d.eval_grad(x);
    assert_eq!(y.to_bits(), d.eval(x).to_bits());
    let e = (-0.4 * x).exp();
    assert_relative_eq!(dx, -0.4 * e * x.cos() - e * x.sin(), epsilon = 1e-12);
    assert_relative_eq!(dd.k, -x * e * x.cos(), epsilon = 1e-12);
    assert_relative_eq!(dx, fd(|x| d.eval(x), x), epsilon = 1e-6);
    // Forward mode, along x only.
    let (y, t) = d.at_jvp(x, 1.0);
    assert_eq!(y.to_bits(), d.at(x).to_bits());
    assert_relative_eq!(t, dx, epsilon = 1e-12);
    let d = Damped { k: 0.4f32 };
    let (_, (_, dx)) = d.eval_grad(1.1);
    let e = (-0.4f32 * 1.1).exp();
    assert_relative_eq!(
        dx,
        -0.4 * e * 1.1f32.cos() - e * 1.1f32.sin(),
        epsilon = 1e-5
    );
}
