//! User structs, nested containers, tuples and methods: the gradient of a struct parameter is
//! its adjoint struct (`#[derive(revad::Adjoint)]`), checked against closed forms and finite
//! differences.

use approx::assert_relative_eq;
use revad::reverse;

/// A point mass in the plane.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Particle {
    /// Position.
    pub pos: [f64; 2],
    /// Velocity.
    pub vel: [f64; 2],
    /// Mass.
    pub mass: f64,
    /// An inactive label: its adjoint is `revad::Zero`.
    pub id: usize,
}

fn particle(seed: f64) -> Particle {
    Particle {
        pos: [1.0 + seed, 2.0 - seed],
        vel: [0.5 * seed - 0.25, -1.5 + seed],
        mass: 3.0 + seed,
        id: 7,
    }
}

/// Central finite differences of `f` along every float of a particle.
fn fd_particle(f: impl Fn(&Particle) -> f64, p: &Particle) -> ParticleAdjoint {
    let h = 1e-6;
    let d = |g: &dyn Fn(&mut Particle, f64)| {
        let (mut a, mut b) = (p.clone(), p.clone());
        g(&mut a, h);
        g(&mut b, -h);
        (f(&a) - f(&b)) / (2.0 * h)
    };
    ParticleAdjoint {
        pos: [d(&|q, e| q.pos[0] += e), d(&|q, e| q.pos[1] += e)],
        vel: [d(&|q, e| q.vel[0] += e), d(&|q, e| q.vel[1] += e)],
        mass: d(&|q, e| q.mass += e),
        id: revad::Zero,
    }
}

fn assert_close(a: &ParticleAdjoint, b: &ParticleAdjoint) {
    for k in 0..2 {
        assert_relative_eq!(a.pos[k], b.pos[k], epsilon = 1e-7, max_relative = 1e-6);
        assert_relative_eq!(a.vel[k], b.vel[k], epsilon = 1e-7, max_relative = 1e-6);
    }
    assert_relative_eq!(a.mass, b.mass, epsilon = 1e-7, max_relative = 1e-6);
}

#[reverse]
fn energy(p: &Particle, g: f64) -> f64 {
    let v2 = p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1];
    0.5 * p.mass * v2 + p.mass * g * p.pos[1]
}

#[test]
fn field_reads_of_a_struct_reference() {
    let p = particle(0.3);
    let (e, (dp, dg)) = energy_grad(&p, 9.81);
    assert_eq!(e, energy(&p, 9.81));
    // Closed form.
    assert_eq!(dp.pos, [0.0, p.mass * 9.81]);
    assert_eq!(dp.vel, [p.mass * p.vel[0], p.mass * p.vel[1]]);
    let v2 = p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1];
    assert_eq!(dp.mass, 0.5 * v2 + 9.81 * p.pos[1]);
    assert_eq!(dp.id, revad::Zero);
    assert_eq!(dg, p.mass * p.pos[1]);
}

#[reverse]
fn energy_by_value(p: Particle) -> f64 {
    p.mass * p.pos[0] * p.pos[0] + p.vel[1].sin()
}

#[test]
fn a_struct_by_value() {
    let p = particle(0.1);
    let (e, dp) = energy_by_value_grad(p.clone());
    assert_eq!(e, energy_by_value(p.clone()));
    assert_close(&dp, &fd_particle(|q| energy_by_value(q.clone()), &p));
}

#[reverse]
fn total(ps: &[Particle], g: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..ps.len() {
        e += energy(&ps[i], g);
        if i > 0 {
            let d = ps[i].pos[0] - ps[i - 1].pos[0];
            e += 0.5 * d * d;
        }
    }
    e
}

#[test]
fn a_slice_of_structs_and_calls_on_its_elements() {
    let ps = vec![particle(0.0), particle(0.5), particle(-0.4)];
    let (e, (dps, dg)) = total_grad(&ps, 2.0);
    assert_eq!(e, total(&ps, 2.0));
    assert_eq!(dps.len(), 3);
    for k in 0..3 {
        let fd = fd_particle(
            |q| {
                let mut qs = ps.clone();
                qs[k] = q.clone();
                total(&qs, 2.0)
            },
            &ps[k],
        );
        assert_close(&dps[k], &fd);
    }
    let dg_closed: f64 = ps.iter().map(|p| p.mass * p.pos[1]).sum();
    assert_relative_eq!(dg, dg_closed, max_relative = 1e-14);
}

#[reverse]
fn kick(p: &mut Particle, f: f64, dt: f64) {
    p.vel[0] += dt * f / p.mass;
    p.pos[0] += dt * p.vel[0];
    p.id += 1;
}

#[test]
fn a_mut_struct_parameter() {
    let p0 = particle(0.2);
    let mut p = p0.clone();
    let mut expected = p0.clone();
    kick(&mut expected, 1.5, 0.1);
    // Seed: the adjoint of the particle on return; the gradient: of the particle on entry.
    let seed = ParticleAdjoint {
        pos: [1.0, 0.0],
        vel: [0.0, 0.0],
        mass: 0.0,
        id: revad::Zero,
    };
    let ((), (dp, df, ddt)) = kick_vjp(&mut p, 1.5, 0.1, seed);
    assert_eq!(p, expected);
    // pos0' = pos0 + dt (vel0 + dt f / m): closed form.
    assert_eq!(dp.pos, [1.0, 0.0]);
    assert_eq!(dp.vel, [0.1, 0.0]);
    assert_relative_eq!(
        dp.mass,
        -0.01 * 1.5 / (p0.mass * p0.mass),
        max_relative = 1e-14
    );
    assert_relative_eq!(df, 0.01 / p0.mass, max_relative = 1e-14);
    assert_relative_eq!(
        ddt,
        p0.vel[0] + 2.0 * 0.1 * 1.5 / p0.mass,
        max_relative = 1e-14
    );
}

#[reverse]
fn simulate(p: &Particle, f: f64) -> f64 {
    let mut q = Particle {
        pos: p.pos,
        vel: [p.vel[0], 2.0 * p.vel[1]],
        mass: p.mass,
        id: 0,
    };
    for _ in 0..4 {
        kick(&mut q, f, 0.1);
    }
    q.pos[0] * q.mass + q.vel[1]
}

#[test]
fn a_struct_expression_stepped_through_mut_calls_in_a_loop() {
    let p = particle(0.3);
    let (v, (dp, df)) = simulate_grad(&p, 2.0);
    assert_eq!(v, simulate(&p, 2.0));
    assert_close(&dp, &fd_particle(|q| simulate(q, 2.0), &p));
    let h = 1e-6;
    let fd = (simulate(&p, 2.0 + h) - simulate(&p, 2.0 - h)) / (2.0 * h);
    assert_relative_eq!(df, fd, max_relative = 1e-6);
}

#[reverse]
fn spawn(x: f64, v: f64) -> Particle {
    Particle {
        pos: [x, x * x],
        vel: [v.sin(), 0.0],
        mass: 2.0,
        id: 1,
    }
}

#[test]
fn a_struct_result_through_vjp() {
    let seed = ParticleAdjoint {
        pos: [1.0, 2.0],
        vel: [3.0, 4.0],
        mass: 5.0,
        id: revad::Zero,
    };
    let (p, (dx, dv)) = spawn_vjp(0.7, 0.2, seed);
    assert_eq!(p, spawn(0.7, 0.2));
    assert_eq!(dx, 1.0 + 2.0 * 2.0 * 0.7);
    assert_eq!(dv, 3.0 * 0.2f64.cos());
}

impl Particle {
    /// Kinetic energy, as a method.
    #[reverse]
    fn kinetic(&self) -> f64 {
        0.5 * self.mass * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1])
    }

    /// A force applied for one step, in place.
    #[reverse]
    fn push(&mut self, f: f64) {
        self.vel[0] += f / self.mass;
    }

    /// Potential energy at height `pos[1]`.
    #[reverse]
    fn potential(&self, g: f64) -> f64 {
        self.mass * g * self.pos[1]
    }

    /// Total energy, through the other methods.
    #[reverse]
    fn total_energy(&self, g: f64) -> f64 {
        self.kinetic() + self.potential(g)
    }
}

#[test]
fn methods_and_calls_between_them() {
    let p = particle(-0.2);
    let (k, dk) = p.kinetic_grad();
    assert_eq!(k, p.kinetic());
    assert_eq!(dk.vel, [p.mass * p.vel[0], p.mass * p.vel[1]]);
    let (e, (dp, dg)) = p.total_energy_grad(9.81);
    assert_eq!(e, p.total_energy(9.81));
    assert_close(&dp, &fd_particle(|q| q.total_energy(9.81), &p));
    assert_eq!(dg, p.mass * p.pos[1]);
}

impl Particle {
    /// Potential energy, differentiated with respect to the particle only (`wrt(self)`).
    #[reverse(wrt(self))]
    fn potential_of_self(&self, g: f64) -> f64 {
        self.mass * g * self.pos[1]
    }

    /// Kinetic energy plus work against `f`, with respect to the particle and `f`.
    #[reverse(wrt(self, f))]
    fn energy_and_work(&self, f: f64, dt: f64) -> f64 {
        self.kinetic() + f * self.vel[0] * dt
    }

    /// A force applied for one step, in place, with respect to the particle only.
    #[reverse(wrt(self))]
    fn push_self(&mut self, f: f64) {
        self.vel[0] += f / self.mass;
    }
}

#[test]
fn wrt_self_differentiates_the_receiver() {
    let p = Particle {
        pos: [1.5, 2.0],
        vel: [0.5, -1.0],
        mass: 4.0,
        id: 3,
    };
    // d(m g y) = (0, g m, 0, 0, g y): with respect to `self` only, the gradient is its adjoint.
    let (v, dp) = p.potential_of_self_grad(9.5);
    assert_eq!(v, 4.0 * 9.5 * 2.0);
    assert_eq!(dp.pos, [0.0, 4.0 * 9.5]);
    assert_eq!(dp.vel, [0.0, 0.0]);
    assert_eq!(dp.mass, 9.5 * 2.0);
    // 0.5 m |v|^2 + f v0 dt: d/dv = m v + (f dt, 0), d/dm = |v|^2 / 2, d/df = v0 dt; `dt`
    // is not differentiated.
    let (e, (dp, df)) = p.energy_and_work_grad(3.0, 0.25);
    assert_eq!(e, 0.5 * 4.0 * 1.25 + 3.0 * 0.5 * 0.25);
    assert_eq!(dp.pos, [0.0, 0.0]);
    assert_eq!(dp.vel, [4.0 * 0.5 + 3.0 * 0.25, -4.0]);
    assert_eq!(dp.mass, 0.5 * 1.25);
    assert_eq!(df, 0.5 * 0.25);
    // v0' = v0 + f / m; the seed on v0' pulls back to v0 (1) and m (-f / m^2).
    let mut q = p.clone();
    let seed = ParticleAdjoint {
        pos: [0.0; 2],
        vel: [1.0, 0.0],
        mass: 0.0,
        id: revad::Zero,
    };
    let ((), dq) = q.push_self_vjp(2.0, seed);
    assert_eq!(q.vel[0], 0.5 + 2.0 / 4.0);
    assert_eq!(dq.vel, [1.0, 0.0]);
    assert_eq!(dq.mass, -2.0 / 16.0);
    assert_eq!(dq.pos, [0.0, 0.0]);
}

#[reverse]
fn pushed_energy(p: &Particle, f: f64) -> f64 {
    let mut q = p.clone();
    q.push(f);
    q.push(f);
    q.kinetic() + p.kinetic()
}

#[test]
fn a_mut_method_on_a_local_copy() {
    let p = particle(0.4);
    let (e, (dp, df)) = pushed_energy_grad(&p, 0.3);
    assert_eq!(e, pushed_energy(&p, 0.3));
    assert_close(&dp, &fd_particle(|q| pushed_energy(q, 0.3), &p));
    // d/df of 0.5 m (v0 + 2 f / m)^2 = 2 (v0 + 2 f / m).
    assert_relative_eq!(df, 2.0 * (p.vel[0] + 0.6 / p.mass), max_relative = 1e-14);
}

#[test]
fn a_mut_method_vjp() {
    let p0 = particle(0.1);
    let mut p = p0.clone();
    let seed = ParticleAdjoint {
        pos: [0.0; 2],
        vel: [1.0, 0.0],
        mass: 0.0,
        id: revad::Zero,
    };
    let ((), (dp, df)) = p.push_vjp(0.5, seed);
    assert_eq!(p.vel[0], p0.vel[0] + 0.5 / p0.mass);
    assert_eq!(dp.vel, [1.0, 0.0]);
    assert_relative_eq!(dp.mass, -0.5 / (p0.mass * p0.mass), max_relative = 1e-14);
    assert_eq!(df, 1.0 / p0.mass);
}

/// Nested float containers as parameters.
#[reverse]
#[allow(
    clippy::ptr_arg,
    reason = "a `&Vec<Vec<f64>>` parameter is what this test is about"
)]
fn frobenius(m: &[[f64; 3]], v: &Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..3 {
            s += m[i][j] * m[i][j] * v[i][j];
        }
    }
    s
}

#[test]
fn nested_arrays_and_vecs() {
    let m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let v = vec![vec![0.5, -1.0, 2.0], vec![1.5, 0.25, -0.5]];
    let (s, (dm, dv)) = frobenius_grad(&m, &v);
    assert_eq!(s, frobenius(&m, &v));
    for i in 0..2 {
        for j in 0..3 {
            assert_eq!(dm[i][j], 2.0 * m[i][j] * v[i][j]);
            assert_eq!(dv[i][j], m[i][j] * m[i][j]);
        }
    }
}

#[reverse]
fn matrix_update(a: [[f64; 2]; 2], x: f64) -> f64 {
    let mut b = a;
    b[0][1] = x * b[1][0];
    b[1][1] *= x;
    b[0][0] * b[1][1] - b[0][1] * b[1][0]
}

#[test]
fn a_mut_nested_array_local() {
    let a = [[1.0, 2.0], [3.0, 4.0]];
    let (d, (da, dx)) = matrix_update_grad(a, 0.5);
    assert_eq!(d, matrix_update(a, 0.5));
    // d = a00 a11 x - x a10^2.
    assert_eq!(da, [[0.5 * 4.0, 0.0], [-2.0 * 0.5 * 3.0, 0.5]]);
    assert_eq!(dx, 1.0 * 4.0 - 9.0);
}

#[reverse]
fn tuple_param(t: (f64, [f64; 2]), k: usize) -> f64 {
    t.0 * t.1[k] + t.1[0].exp()
}

#[test]
fn tuple_parameters() {
    // `k: usize` is inactive: the gradient is the tuple's adjoint alone.
    let (v, dt) = tuple_param_grad((2.0, [0.5, -1.0]), 1);
    assert_eq!(v, tuple_param((2.0, [0.5, -1.0]), 1));
    assert_eq!(dt, (-1.0, [0.5f64.exp(), 2.0]));
}

/// Nested structs.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Spring {
    /// The two ends.
    pub ends: (Particle, Particle),
    /// Stiffness.
    pub k: f64,
}

#[reverse]
fn spring_energy(s: &Spring) -> f64 {
    let dx = s.ends.0.pos[0] - s.ends.1.pos[0];
    let dy = s.ends.0.pos[1] - s.ends.1.pos[1];
    0.5 * s.k * (dx * dx + dy * dy) + s.ends.0.kinetic() + s.ends.1.kinetic()
}

#[test]
fn nested_structs_and_methods_of_their_fields() {
    let s = Spring {
        ends: (particle(0.1), particle(0.7)),
        k: 3.0,
    };
    let (e, ds) = spring_energy_grad(&s);
    assert_eq!(e, spring_energy(&s));
    let dx = s.ends.0.pos[0] - s.ends.1.pos[0];
    assert_relative_eq!(ds.ends.0.pos[0], 3.0 * dx, max_relative = 1e-14);
    assert_relative_eq!(ds.ends.1.pos[0], -3.0 * dx, max_relative = 1e-14);
    assert_eq!(
        ds.ends.0.vel,
        [
            s.ends.0.mass * s.ends.0.vel[0],
            s.ends.0.mass * s.ends.0.vel[1]
        ]
    );
    let dy = s.ends.0.pos[1] - s.ends.1.pos[1];
    assert_relative_eq!(ds.k, 0.5 * (dx * dx + dy * dy), max_relative = 1e-14);
}

#[reverse]
fn counted(x: f64, calls: &mut usize) -> f64 {
    *calls += 1;
    x * x
}

#[reverse]
fn counted_twice(x: f64, calls: &mut usize) -> f64 {
    counted(x, calls) + counted(2.0 * x, calls)
}

/// (Not under `#[reverse(cps)]`, which rejects it.) A `&mut` to inactive data (a call counter) is written as the function writes it, once per
/// call of the function or of its gradient, and is not part of the gradient.
#[test]
fn a_mut_counter_parameter() {
    let mut calls = 0;
    let (v, dx) = counted_grad(3.0, &mut calls);
    assert_eq!((v, dx, calls), (9.0, 6.0, 1));
    let (v, dx) = counted_twice_grad(3.0, &mut calls);
    assert_eq!((v, dx, calls), (45.0, 30.0, 3));
}

/// A tuple struct.
#[derive(Clone, Debug, PartialEq, revad::Adjoint)]
pub struct Pair(pub f64, pub [f64; 2]);

#[reverse]
fn make_pair(x: f64) -> Pair {
    Pair(x * x, [x.sin(), 3.0])
}

#[reverse]
fn pair_norm(p: &Pair, k: f64) -> f64 {
    let q = Pair(p.0 * k, p.1);
    q.0 * q.0 + q.1[0] * q.1[1]
}

#[test]
fn tuple_structs_as_parameters_results_and_constructors() {
    let (p, dx) = make_pair_vjp(0.5, PairAdjoint(2.0, [1.0, 0.0]));
    assert_eq!(p, make_pair(0.5));
    assert_eq!(dx, 2.0 * 2.0 * 0.5 + 0.5f64.cos());
    let p = Pair(1.5, [2.0, -3.0]);
    let (v, (dp, dk)) = pair_norm_grad(&p, 2.0);
    assert_eq!(v, pair_norm(&p, 2.0));
    // v = (k p0)^2 + p1[0] p1[1].
    assert_eq!(dp, PairAdjoint(2.0 * 2.0 * 2.0 * 1.5, [-3.0, 2.0]));
    assert_eq!(dk, 2.0 * 2.0 * 1.5 * 1.5);
}

#[reverse]
fn optional_scale(x: f64, scale: Option<f64>) -> f64 {
    let s: f64 = scale.unwrap_or(1.0);
    x * x * s
}

/// An `Option` parameter is inactive: an option, not a value to differentiate.
#[test]
fn an_option_parameter_is_inactive() {
    assert_eq!(optional_scale_grad(3.0, Some(2.0)), (18.0, 12.0));
    assert_eq!(optional_scale_grad(3.0, None), (9.0, 6.0));
}

#[reverse]
fn through_two_references(x: &&[f64]) -> f64 {
    x[0] * x[1]
}

/// `&&[f64]` is a slice parameter.
#[test]
fn a_reference_to_a_slice_reference() {
    let v = [2.0, 5.0];
    let s: &[f64] = &v;
    assert_eq!(through_two_references_grad(&s), (10.0, vec![5.0, 2.0]));
}

/// A dense layer of an MLP.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Dense {
    /// Weights, one row per output.
    pub w: Vec<Vec<f64>>,
    /// Biases.
    pub b: Vec<f64>,
}

impl Dense {
    #[reverse]
    fn apply(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.b.len()];
        for (i, (row, b)) in self.w.iter().zip(&self.b).enumerate() {
            let mut s = *b;
            for (w, xi) in row.iter().zip(x) {
                s += w * xi;
            }
            y[i] = s.tanh();
        }
        y
    }
}

/// A two-layer perceptron.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Net {
    /// The layers, input first.
    pub layers: Vec<Dense>,
}

impl Net {
    #[reverse]
    fn predict(&self, x: &[f64]) -> Vec<f64> {
        let mut h = x.to_vec();
        for layer in &self.layers {
            h = layer.apply(&h);
        }
        h
    }

    #[reverse]
    fn loss(&self, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut total = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let out: Vec<f64> = self.predict(x);
            let e = out[0] - y;
            total += e * e;
        }
        total
    }
}

#[test]
fn an_mlp_loss_gradient_matches_finite_differences() {
    let net = Net {
        layers: vec![
            Dense {
                w: vec![vec![0.3, -0.2], vec![0.5, 0.1], vec![-0.4, 0.6]],
                b: vec![0.1, -0.1, 0.05],
            },
            Dense {
                w: vec![vec![0.7, -0.5, 0.2]],
                b: vec![0.0],
            },
        ],
    };
    let xs = vec![vec![0.5, -1.0], vec![1.5, 0.25], vec![-0.3, 0.8]];
    let ys = [0.2, -0.4, 0.6];
    let (l, (d, _, _)) = net.loss_grad(&xs, &ys);
    assert_eq!(l, net.loss(&xs, &ys));
    let h = 1e-6;
    for (li, layer) in net.layers.iter().enumerate() {
        for i in 0..layer.w.len() {
            for j in 0..layer.w[i].len() {
                let (mut up, mut down) = (net.clone(), net.clone());
                up.layers[li].w[i][j] += h;
                down.layers[li].w[i][j] -= h;
                let fd = (up.loss(&xs, &ys) - down.loss(&xs, &ys)) / (2.0 * h);
                assert_relative_eq!(
                    d.layers[li].w[i][j],
                    fd,
                    epsilon = 1e-8,
                    max_relative = 1e-6
                );
            }
            let (mut up, mut down) = (net.clone(), net.clone());
            up.layers[li].b[i] += h;
            down.layers[li].b[i] -= h;
            let fd = (up.loss(&xs, &ys) - down.loss(&xs, &ys)) / (2.0 * h);
            assert_relative_eq!(d.layers[li].b[i], fd, epsilon = 1e-8, max_relative = 1e-6);
        }
    }
}

/// Integer fields next to a float one.
#[derive(Clone, revad::Adjoint)]
pub struct Counts {
    /// A count, used as a float.
    pub n: usize,
    /// An exponent.
    pub k: i32,
    /// A weight.
    pub w: f64,
}

#[reverse]
fn counted_weight(q: &Counts, x: f64) -> f64 {
    let m = q.n as f64;
    let e = q.k;
    x * m * q.w + x.powi(e)
}

/// Integer fields read as a cast and as an exponent carry no derivative; their adjoints are
/// `revad::Zero`.
#[test]
fn integer_fields_cast_and_used_as_exponents() {
    let q = Counts { n: 3, k: 2, w: 0.5 };
    let (v, (dq, dx)) = counted_weight_grad(&q, 2.0);
    assert_eq!(v, counted_weight(&q, 2.0));
    assert_eq!(dx, 3.0 * 0.5 + 2.0 * 2.0);
    assert_eq!(dq.w, 2.0 * 3.0);
    assert_eq!((dq.n, dq.k), (revad::Zero, revad::Zero));
}

#[reverse]
fn leapfrog(p: &Particle, dt: f64) -> f64 {
    let mut q = p.clone();
    for _ in 0..5 {
        q.vel[0] -= dt * q.pos[0] * q.mass;
        q.pos[0] += dt * q.vel[0];
        q.vel[1] = q.vel[1] * 0.9 + q.pos[0];
    }
    q.pos[0] * q.vel[1]
}

/// A `mut` copy of a struct updated field by field in a loop (each overwritten float is kept
/// for the reverse sweep).
#[test]
fn a_struct_updated_in_a_loop_matches_finite_differences() {
    let p = particle(0.2);
    let (v, (dp, ddt)) = leapfrog_grad(&p, 0.1);
    assert_eq!(v, leapfrog(&p, 0.1));
    assert_close(&dp, &fd_particle(|q| leapfrog(q, 0.1), &p));
    let h = 1e-6;
    let fd = (leapfrog(&p, 0.1 + h) - leapfrog(&p, 0.1 - h)) / (2.0 * h);
    assert_relative_eq!(ddt, fd, max_relative = 1e-6);
}

/// A field copied into a local (`let t0 = s.fb;`) and passed on to an annotated callee that
/// takes a float by value: the copy is passed, not a reference to the field (it was E0308 in
/// the generated code, found by the fuzzer's methods campaign).
mod field_copied_then_passed {
    use approx::assert_relative_eq;
    use revad::reverse;

    #[derive(Clone, revad::Adjoint)]
    pub struct S {
        pub fa: f32,
        pub fb: f32,
    }

    #[revad::reverse]
    pub fn f(a0: f32, a1: f32) -> f32 {
        a0 * a1.sin()
    }

    #[revad::reverse]
    impl S {
        #[reverse]
        pub fn g(a0: f32, a1: f32) -> f32 {
            a0 * a1.cos()
        }
        #[reverse]
        pub fn m(&self, a0: f32) -> f32 {
            let t0 = self.fb;
            f(a0, t0) + Self::g(a0, t0) + self.fa
        }
    }

    #[revad::reverse]
    pub fn free(s: &S, a0: f32) -> f32 {
        let t0 = s.fb;
        let t1 = s.fa;
        f(t1, t0) * a0
    }

    #[test]
    fn against_closed_forms() {
        let s = S { fa: 0.5, fb: 1.5 };
        let (v, (ds, da)) = s.m_grad(2.0);
        assert_eq!(v, s.m(2.0));
        assert_relative_eq!(ds.fa, 1.0);
        assert_relative_eq!(
            ds.fb,
            2.0 * 1.5f32.cos() - 2.0 * 1.5f32.sin(),
            max_relative = 1e-6
        );
        assert_relative_eq!(da, 1.5f32.sin() + 1.5f32.cos(), max_relative = 1e-6);
        let (v, (ds, da)) = free_grad(&s, 3.0);
        assert_eq!(v, free(&s, 3.0));
        assert_relative_eq!(ds.fa, 1.5f32.sin() * 3.0, max_relative = 1e-6);
        assert_relative_eq!(ds.fb, 0.5 * 1.5f32.cos() * 3.0, max_relative = 1e-6);
        assert_relative_eq!(da, 0.5 * 1.5f32.sin(), max_relative = 1e-6);
    }
}

/// A struct with an integer field beside its floats: counters and denominators (`count / 2`,
/// `n - 1`) are integer arithmetic, whatever else the struct holds, under both backends.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Tally {
    /// A weight.
    pub w: f64,
    /// How many samples.
    pub n: usize,
    /// The sum of squared deviations (Welford's `M2`).
    pub m2: f64,
}

#[reverse]
impl Tally {
    /// The sample variance, `m2 / (n - 1)`.
    #[reverse]
    pub fn variance(&self) -> f64 {
        self.m2 / (self.n - 1) as f64
    }
}

#[reverse]
fn tally_mix(t: &Tally, x: f64) -> f64 {
    let half = t.n / 2;
    let m = t.n - 1;
    x * t.w * half as f64 + (t.n * 2) as f64 * x + m as f64 * t.variance()
}

#[reverse(cps)]
fn tally_mix_cps(t: &Tally, x: f64) -> f64 {
    let half = t.n / 2;
    let m = t.n - 1;
    x * t.w * half as f64 + (t.n * 2) as f64 * x + m as f64 * t.variance()
}

#[test]
fn integer_fields_are_integer_arithmetic() {
    let t = Tally {
        w: 0.5,
        n: 5,
        m2: 2.0,
    };
    let x = 1.5;
    // 2 x w + 10 x + 4 m2 / 4.
    let (value, (dt, dx)) = tally_mix_grad(&t, x);
    assert_eq!(value, tally_mix(&t, x));
    assert_eq!(value, 2.0 * x * 0.5 + 10.0 * x + 4.0 * (2.0 / 4.0));
    assert_eq!((dt.w, dt.m2, dx), (2.0 * x, 1.0, 2.0 * 0.5 + 10.0));
    let (value_cps, (dt_cps, dx_cps)) = tally_mix_cps_grad(&t, x);
    assert_eq!(value_cps, value);
    assert_eq!((dt_cps.w, dt_cps.m2, dx_cps), (dt.w, dt.m2, dx));
}
