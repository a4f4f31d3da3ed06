//! Loops, slices and iterator chains over aggregates (`&[Particle]`, `Vec<Vec<f64>>`,
//! `self.layers`): the items are places, read where they are used; gradients are checked
//! against closed forms and central finite differences.

#![allow(
    clippy::needless_range_loop,
    reason = "the closed forms read more clearly by index"
)]

use revad::reverse;

// ---- the test's types, with hand-written adjoints ---------------------------------------

/// A point mass.
#[derive(Clone, Debug, PartialEq)]
pub struct Particle {
    /// Position.
    pub pos: [f64; 2],
    /// Velocity.
    pub vel: [f64; 2],
    /// Mass.
    pub mass: f64,
    /// An inactive label.
    pub id: usize,
}

/// The adjoint of a [`Particle`].
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleAdj {
    /// Position.
    pub pos: [f64; 2],
    /// Velocity.
    pub vel: [f64; 2],
    /// Mass.
    pub mass: f64,
    /// An inactive label has no adjoint.
    pub id: revad::Zero,
}

impl revad::Adjoint for Particle {
    type Adj = ParticleAdj;
    fn zero_adjoint(&self) -> ParticleAdj {
        ParticleAdj {
            pos: [0.0; 2],
            vel: [0.0; 2],
            mass: 0.0,
            id: revad::Zero,
        }
    }
    fn accumulate(acc: &mut ParticleAdj, o: &ParticleAdj) {
        revad::__private::Accumulate::accumulate(acc, o)
    }
}

impl revad::__private::Accumulate for ParticleAdj {
    fn accumulate(&mut self, o: &Self) {
        self.pos.accumulate(&o.pos);
        self.vel.accumulate(&o.vel);
        self.mass += o.mass;
    }
}

/// One dense layer: `y = tanh(w x + b)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// Weights, row by row.
    pub w: Vec<Vec<f64>>,
    /// Biases.
    pub b: Vec<f64>,
}

/// The adjoint of a [`Layer`].
#[derive(Clone, Debug, PartialEq)]
pub struct LayerAdj {
    /// Weights, row by row.
    pub w: Vec<Vec<f64>>,
    /// Biases.
    pub b: Vec<f64>,
}

impl revad::Adjoint for Layer {
    type Adj = LayerAdj;
    fn zero_adjoint(&self) -> LayerAdj {
        LayerAdj {
            w: self.w.iter().map(|r| vec![0.0; r.len()]).collect(),
            b: vec![0.0; self.b.len()],
        }
    }
    fn accumulate(acc: &mut LayerAdj, o: &LayerAdj) {
        revad::__private::Accumulate::accumulate(acc, o)
    }
}

impl revad::__private::Accumulate for LayerAdj {
    fn accumulate(&mut self, o: &Self) {
        for (a, b) in self.w.iter_mut().zip(&o.w) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        for (x, y) in self.b.iter_mut().zip(&o.b) {
            *x += y;
        }
    }
}

/// A stack of layers.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// The layers, first to last.
    pub layers: Vec<Layer>,
    /// Output scale.
    pub scale: f64,
}

/// The adjoint of a [`Net`].
#[derive(Clone, Debug, PartialEq)]
pub struct NetAdj {
    /// The layers' adjoints.
    pub layers: Vec<LayerAdj>,
    /// Output scale.
    pub scale: f64,
}

impl revad::Adjoint for Net {
    type Adj = NetAdj;
    fn zero_adjoint(&self) -> NetAdj {
        NetAdj {
            layers: self
                .layers
                .iter()
                .map(revad::Adjoint::zero_adjoint)
                .collect(),
            scale: 0.0,
        }
    }
    fn accumulate(acc: &mut NetAdj, o: &NetAdj) {
        revad::__private::Accumulate::accumulate(acc, o)
    }
}

impl revad::__private::Accumulate for NetAdj {
    fn accumulate(&mut self, o: &Self) {
        for (a, b) in self.layers.iter_mut().zip(&o.layers) {
            a.accumulate(b);
        }
        self.scale += o.scale;
    }
}

/// Particles under a uniform field.
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    /// The particles.
    pub particles: Vec<Particle>,
    /// Field strength.
    pub g: f64,
}

/// The adjoint of a [`System`].
#[derive(Clone, Debug, PartialEq)]
pub struct SystemAdj {
    /// The particles' adjoints.
    pub particles: Vec<ParticleAdj>,
    /// Field strength.
    pub g: f64,
}

impl revad::Adjoint for System {
    type Adj = SystemAdj;
    fn zero_adjoint(&self) -> SystemAdj {
        SystemAdj {
            particles: self
                .particles
                .iter()
                .map(revad::Adjoint::zero_adjoint)
                .collect(),
            g: 0.0,
        }
    }
    fn accumulate(acc: &mut SystemAdj, o: &SystemAdj) {
        revad::__private::Accumulate::accumulate(acc, o)
    }
}

impl revad::__private::Accumulate for SystemAdj {
    fn accumulate(&mut self, o: &Self) {
        for (a, b) in self.particles.iter_mut().zip(&o.particles) {
            a.accumulate(b);
        }
        self.g += o.g;
    }
}

// ---- helpers: data, flattening, finite differences ---------------------------------------

fn particles() -> Vec<Particle> {
    vec![
        Particle {
            pos: [1.0, 2.0],
            vel: [0.5, -1.5],
            mass: 3.0,
            id: 7,
        },
        Particle {
            pos: [-0.5, 0.25],
            vel: [2.0, 0.75],
            mass: 0.5,
            id: 8,
        },
        Particle {
            pos: [0.3, -1.2],
            vel: [-0.4, 1.1],
            mass: 1.5,
            id: 9,
        },
    ]
}

/// `pos, vel, mass` of each particle, in order.
fn flatten(ps: &[Particle]) -> Vec<f64> {
    ps.iter()
        .flat_map(|p| [p.pos[0], p.pos[1], p.vel[0], p.vel[1], p.mass])
        .collect()
}

fn flatten_adj(ps: &[ParticleAdj]) -> Vec<f64> {
    ps.iter()
        .flat_map(|p| [p.pos[0], p.pos[1], p.vel[0], p.vel[1], p.mass])
        .collect()
}

fn unflatten(x: &[f64]) -> Vec<Particle> {
    x.chunks(5)
        .enumerate()
        .map(|(k, c)| Particle {
            pos: [c[0], c[1]],
            vel: [c[2], c[3]],
            mass: c[4],
            id: k,
        })
        .collect()
}

fn layer() -> Layer {
    Layer {
        w: vec![
            vec![0.3, -0.2, 0.5, 0.1],
            vec![-0.4, 0.6, 0.2, -0.3],
            vec![0.1, 0.1, -0.7, 0.4],
        ],
        b: vec![0.05, -0.1, 0.2],
    }
}

fn flatten_layer(w: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    w.iter().flatten().chain(b).copied().collect()
}

/// A layer of the shape of `like` from `x` (the weights row by row, then the biases).
fn unflatten_layer(like: &Layer, x: &[f64]) -> Layer {
    let mut k = 0;
    let mut next = || {
        k += 1;
        x[k - 1]
    };
    Layer {
        w: like
            .w
            .iter()
            .map(|r| r.iter().map(|_| next()).collect())
            .collect(),
        b: like.b.iter().map(|_| next()).collect(),
    }
}

#[track_caller]
fn assert_close(a: f64, b: f64) {
    assert!(
        (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs())),
        "{a} != {b}"
    );
}

#[track_caller]
fn assert_all_close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_close(*x, *y);
    }
}

/// Checks the gradient of `f` over the particles' floats against finite differences.
#[track_caller]
fn check_particles(f: impl Fn(&[Particle]) -> f64, ps: &[Particle], grad: &[ParticleAdj]) {
    let x = flatten(ps);
    if let Err(e) = revad::check::gradient(|x| f(&unflatten(x)), &x, &flatten_adj(grad)) {
        panic!("{e}");
    }
}

// ---- 1. `for` loops whose items are aggregates -------------------------------------------

#[reverse]
fn kinetic_for(ps: &[Particle]) -> f64 {
    let mut e = 0.0;
    for p in ps {
        e += 0.5 * p.mass * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1]);
    }
    e
}

#[test]
fn for_over_slice_of_structs_matches_closed_form() {
    let ps = particles();
    let (e, dps) = kinetic_for_grad(&ps);
    assert_eq!(e, kinetic_for(&ps));
    for (p, d) in ps.iter().zip(&dps) {
        let v2 = p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1];
        assert_close(d.mass, 0.5 * v2);
        assert_close(d.vel[0], p.mass * p.vel[0]);
        assert_close(d.vel[1], p.mass * p.vel[1]);
        assert_eq!(d.pos, [0.0, 0.0]);
    }
}

#[allow(clippy::ptr_arg, reason = "`&Vec` of structs is the form under test")]
#[reverse]
fn potential_iter(ps: &Vec<Particle>, g: f64) -> f64 {
    let mut u = 0.0;
    for p in ps.iter() {
        u += g * p.mass * p.pos[1];
    }
    u
}

#[test]
fn for_over_iter_of_vec_ref_matches_closed_form() {
    let ps = particles();
    let (u, (dps, dg)) = potential_iter_grad(&ps, 9.8);
    assert_eq!(u, potential_iter(&ps, 9.8));
    assert_close(dg, ps.iter().map(|p| p.mass * p.pos[1]).sum());
    for (p, d) in ps.iter().zip(&dps) {
        assert_close(d.mass, 9.8 * p.pos[1]);
        assert_close(d.pos[1], 9.8 * p.mass);
        assert_eq!((d.pos[0], d.vel), (0.0, [0.0, 0.0]));
    }
}

/// An owned `Vec<Particle>` iterated by value (not `mut`: nothing can change it).
#[reverse]
fn momentum_owned(ps: Vec<Particle>) -> f64 {
    let mut m = 0.0;
    for p in ps {
        m += p.mass * p.vel[0];
    }
    m
}

#[test]
fn for_over_owned_vec_matches_closed_form() {
    let ps = particles();
    let (m, dps) = momentum_owned_grad(ps.clone());
    assert_eq!(m, momentum_owned(ps.clone()));
    for (p, d) in ps.iter().zip(&dps) {
        assert_close(d.mass, p.vel[0]);
        assert_close(d.vel[0], p.mass);
    }
}

/// `enumerate`, `rev` (order matters: a Horner scheme), `skip` and `take`.
#[reverse]
fn weighted(ps: &[Particle]) -> f64 {
    let mut a = 0.0;
    for (i, p) in ps.iter().enumerate() {
        a += (i as f64 + 1.0) * p.mass * p.pos[0];
    }
    let mut h = 0.0;
    for p in ps.iter().rev() {
        h = h * p.mass + p.vel[1];
    }
    let mut c = 0.0;
    for p in ps.iter().skip(1).take(1) {
        c += p.pos[1] * p.pos[1];
    }
    a + h + c
}

fn weighted_plain(ps: &[Particle]) -> f64 {
    let a: f64 = (0..ps.len())
        .map(|i| (i as f64 + 1.0) * ps[i].mass * ps[i].pos[0])
        .sum();
    let mut h = 0.0;
    for i in (0..ps.len()).rev() {
        h = h * ps[i].mass + ps[i].vel[1];
    }
    a + h + ps[1].pos[1] * ps[1].pos[1]
}

#[test]
fn enumerate_rev_skip_take_match_index_loops() {
    let ps = particles();
    let (v, dps) = weighted_grad(&ps);
    assert_close(v, weighted_plain(&ps));
    // Closed forms: a = sum (i+1) m_i x_i; h = v0 + m0 (v1 + m1 v2) with vN = vel[1] (the
    // last particle first); c = y1^2.
    let [p0, p1, p2] = [&ps[0], &ps[1], &ps[2]];
    assert_close(dps[0].pos[0], p0.mass);
    assert_close(dps[2].pos[0], 3.0 * p2.mass);
    assert_close(dps[1].pos[1], 2.0 * p1.pos[1]);
    assert_close(dps[0].vel[1], 1.0);
    assert_close(dps[1].vel[1], p0.mass);
    assert_close(dps[2].vel[1], p0.mass * p1.mass);
    assert_close(dps[0].mass, p0.pos[0] + p1.vel[1] + p1.mass * p2.vel[1]);
    assert_close(dps[1].mass, 2.0 * p1.pos[0] + p0.mass * p2.vel[1]);
    assert_close(dps[2].mass, 3.0 * p2.pos[0]);
    check_particles(weighted_plain, &ps, &dps);
}

/// `zip` of a sequence of structs with a float slice, and of two sequences of structs.
#[reverse]
fn zipped(ps: &[Particle], ws: &[f64], qs: &[Particle]) -> f64 {
    let mut s = 0.0;
    for (p, w) in ps.iter().zip(ws) {
        s += w * p.mass * p.pos[0];
    }
    for (w, p) in ws.iter().zip(ps) {
        s += w * p.vel[1];
    }
    for (p, q) in ps.iter().zip(qs.iter()) {
        s += p.pos[0] * q.pos[1] - p.pos[1] * q.pos[0];
    }
    s
}

#[test]
fn zip_with_floats_and_structs_matches_closed_form() {
    let ps = particles();
    let mut qs = particles();
    qs.truncate(2);
    qs[0].pos = [0.7, -0.3];
    let ws = [2.0, -1.0, 0.5];
    let (s, (dps, dws, dqs)) = zipped_grad(&ps, &ws, &qs);
    assert_eq!(s, zipped(&ps, &ws, &qs));
    for i in 0..3 {
        let p = &ps[i];
        let mut dx = ws[i] * p.mass;
        let mut dy = 0.0;
        if i < 2 {
            dx += qs[i].pos[1];
            dy -= qs[i].pos[0];
            assert_close(dqs[i].pos[1], p.pos[0]);
            assert_close(dqs[i].pos[0], -p.pos[1]);
        }
        assert_close(dps[i].pos[0], dx);
        assert_close(dps[i].pos[1], dy);
        assert_close(dps[i].mass, ws[i] * p.pos[0]);
        assert_close(dps[i].vel[1], ws[i]);
        assert_close(dws[i], p.mass * p.pos[0] + p.vel[1]);
    }
    assert_eq!(dqs.len(), 2);
}

// ---- 2. layers: float arrays inside aggregates used as slices ----------------------------

impl Layer {
    /// `sum_i tanh(w_i . x + b_i)`: items of `self.w` (rows), zipped with `&self.b`, and an
    /// inner dot product over a row.
    #[reverse]
    fn forward_sum(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (row, bi) in self.w.iter().zip(&self.b) {
            let mut dot = 0.0;
            for (w, xi) in row.iter().zip(x) {
                dot += w * xi;
            }
            s += (dot + bi).tanh();
        }
        s
    }

    /// Row `i` as a slice in an iterator chain, a row bound by `let`, and a sub-slice.
    #[reverse]
    fn row_forms(&self, x: &[f64], i: usize) -> f64 {
        let a: f64 = self.w[i].iter().zip(x).map(|(w, xi)| w * xi).sum();
        let row = &self.w[i];
        let mut b = 0.0;
        for (w, xi) in row.iter().zip(x) {
            b += w * xi * xi;
        }
        let mid = &self.w[i][1..3];
        let c = mid[0] * mid[1] * mid.len() as f64;
        let mut d = 0.0;
        for (k, w) in mid.iter().enumerate() {
            d += w * x[k + 1];
        }
        let n = self.w[i].len() as f64;
        a + b + c + d / n
    }
}

fn forward_sum_plain(l: &Layer, x: &[f64]) -> f64 {
    (0..l.w.len())
        .map(|i| {
            let dot: f64 = (0..x.len()).map(|j| l.w[i][j] * x[j]).sum();
            (dot + l.b[i]).tanh()
        })
        .sum()
}

#[test]
fn layer_rows_zip_biases_match_finite_differences() {
    let l = layer();
    let x = [0.4, -1.1, 0.9, 0.2];
    let (s, (dl, dx)) = l.forward_sum_grad(&x);
    assert_close(s, forward_sum_plain(&l, &x));
    // Closed form: d/db_i = 1 - tanh^2, d/dw_ij = (1 - tanh^2) x_j.
    for i in 0..3 {
        let dot: f64 = (0..4).map(|j| l.w[i][j] * x[j]).sum();
        let t = (dot + l.b[i]).tanh();
        assert_close(dl.b[i], 1.0 - t * t);
        for j in 0..4 {
            assert_close(dl.w[i][j], (1.0 - t * t) * x[j]);
        }
    }
    let flat = flatten_layer(&l.w, &l.b);
    let analytic = flatten_layer(&dl.w, &dl.b);
    if let Err(e) = revad::check::gradient(
        |p| forward_sum_plain(&unflatten_layer(&l, p), &x),
        &flat,
        &analytic,
    ) {
        panic!("{e}");
    }
    if let Err(e) = revad::check::gradient(|x| forward_sum_plain(&l, x), &x, &dx) {
        panic!("{e}");
    }
}

#[test]
fn row_as_slice_chain_subslice_and_len_match_closed_form() {
    let l = layer();
    let x = [0.4, -1.1, 0.9, 0.2];
    let (v, (dl, dx)) = l.row_forms_grad(&x, 1);
    assert_eq!(v, l.row_forms(&x, 1));
    let w = &l.w[1];
    for j in 0..4 {
        let mut dw = x[j] + x[j] * x[j];
        if j == 1 {
            dw += 2.0 * w[2] + x[1] / 4.0;
        }
        if j == 2 {
            dw += 2.0 * w[1] + x[2] / 4.0;
        }
        assert_close(dl.w[1][j], dw);
        let mut d = w[j] + 2.0 * w[j] * x[j];
        if j == 1 || j == 2 {
            d += w[j] / 4.0;
        }
        assert_close(dx[j], d);
    }
    assert!(dl.w[0].iter().chain(&dl.w[2]).all(|&g| g == 0.0));
    assert_eq!(dl.b, vec![0.0; 3]);
}

#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len().min(b.len()) {
        s += a[i] * b[i];
    }
    s
}

impl Net {
    /// `for l in &self.layers` (a place), the rows of each layer, and a row passed whole to
    /// an annotated function.
    #[reverse]
    fn score(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for l in &self.layers {
            for (k, row) in l.w.iter().enumerate() {
                s += dot(row, x) * l.b[k];
            }
            s += dot(&l.w[0], &l.b);
        }
        self.scale * s
    }
}

fn score_plain(n: &Net, x: &[f64]) -> f64 {
    let d = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
    let mut s = 0.0;
    for l in &n.layers {
        for k in 0..l.w.len() {
            s += d(&l.w[k], x) * l.b[k];
        }
        s += d(&l.w[0], &l.b);
    }
    n.scale * s
}

#[test]
fn layers_of_a_net_match_finite_differences() {
    let mut second = layer();
    second.w.truncate(2);
    second.b = vec![0.3, -0.6];
    for r in &mut second.w {
        r.truncate(2);
    }
    let net = Net {
        layers: vec![layer(), second],
        scale: 1.5,
    };
    let x = [0.4, -1.1, 0.9, 0.2];
    let (s, (dn, dx)) = net.score_grad(&x);
    assert_close(s, score_plain(&net, &x));
    assert_close(dn.scale, score_plain(&net, &x) / 1.5);
    // Flatten the two layers and the scale.
    let flat_net = |n: &Net| {
        let mut v: Vec<f64> = n
            .layers
            .iter()
            .flat_map(|l| flatten_layer(&l.w, &l.b))
            .collect();
        v.push(n.scale);
        v
    };
    let flat_adj = |n: &NetAdj| {
        let mut v: Vec<f64> = n
            .layers
            .iter()
            .flat_map(|l| flatten_layer(&l.w, &l.b))
            .collect();
        v.push(n.scale);
        v
    };
    let rebuild = |p: &[f64]| {
        let mut k = 0;
        let layers = net
            .layers
            .iter()
            .map(|l| {
                let n = flatten_layer(&l.w, &l.b).len();
                k += n;
                unflatten_layer(l, &p[k - n..k])
            })
            .collect();
        Net {
            layers,
            scale: p[k],
        }
    };
    if let Err(e) = revad::check::gradient(
        |p| score_plain(&rebuild(p), &x),
        &flat_net(&net),
        &flat_adj(&dn),
    ) {
        panic!("{e}");
    }
    if let Err(e) = revad::check::gradient(|x| score_plain(&net, x), &x, &dx) {
        panic!("{e}");
    }
}

/// Nested `Vec<Vec<f64>>` (and `&[[f64; 3]]`) iterated row by row, element by element.
#[allow(clippy::ptr_arg, reason = "`&Vec<Vec<f64>>` is the form under test")]
#[reverse]
fn frobenius(m: &Vec<Vec<f64>>, a: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for row in m.iter() {
        for v in row {
            s += v * v;
        }
    }
    for (i, row) in a.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            s += (i + j) as f64 * *v;
        }
    }
    s
}

#[test]
fn nested_containers_iterated_match_closed_form() {
    let m = vec![vec![1.0, -2.0], vec![0.5, 3.0, 4.0]];
    let a = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let (s, (dm, da)) = frobenius_grad(&m, &a);
    assert_eq!(s, frobenius(&m, &a));
    for (row, drow) in m.iter().zip(&dm) {
        assert_eq!(row.len(), drow.len());
        for (v, d) in row.iter().zip(drow) {
            assert_close(*d, 2.0 * v);
        }
    }
    for i in 0..2 {
        for j in 0..3 {
            assert_close(da[i][j], (i + j) as f64);
        }
    }
}

/// `chunks` of a row, and `copy_from_slice` into a `mut` aggregate's array.
#[reverse]
fn chunked(l: &Layer, p: &Particle, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in l.w[0].chunks(2) {
        s += c[0] * c[c.len() - 1];
    }
    let mut q = p.clone();
    q.pos.copy_from_slice(&x[..2]);
    s + q.pos[0] * q.mass + q.pos[1] * q.vel[0]
}

#[test]
fn chunks_and_copy_from_slice_match_closed_form() {
    let l = layer();
    let p = particles()[0].clone();
    let x = [0.7, -0.2, 9.0];
    let (v, (dl, dp, dx)) = chunked_grad(&l, &p, &x);
    assert_close(v, chunked(&l, &p, &x));
    let w = &l.w[0];
    assert_all_close(&dl.w[0], &[w[1], w[0], w[3], w[2]]);
    assert_close(dx[0], p.mass);
    assert_close(dx[1], p.vel[0]);
    assert_eq!(dx[2], 0.0);
    assert_eq!(dp.pos, [0.0, 0.0]);
    assert_close(dp.mass, x[0]);
    assert_close(dp.vel[0], x[1]);
}

// ---- 1b. `iter_mut` over a mutable aggregate ---------------------------------------------

/// An Euler step: `iter_mut` over a `&mut [Particle]`, then `iter_mut` over each velocity.
#[reverse]
fn euler(ps: &mut [Particle], dt: f64, g: f64) {
    for p in ps.iter_mut() {
        p.pos[0] += dt * p.vel[0];
        p.pos[1] += dt * p.vel[1];
        p.vel[1] -= dt * g / p.mass;
        for v in p.vel.iter_mut() {
            *v *= 1.0 - 0.1 * dt;
        }
    }
}

fn euler_plain(ps: &mut [Particle], dt: f64, g: f64) {
    for p in ps.iter_mut() {
        p.pos[0] += dt * p.vel[0];
        p.pos[1] += dt * p.vel[1];
        p.vel[1] -= dt * g / p.mass;
        for v in p.vel.iter_mut() {
            *v *= 1.0 - 0.1 * dt;
        }
    }
}

/// `c . euler(ps, dt, g)` for fixed weights `c` (one per output float).
fn euler_objective(c: &[f64], x: &[f64]) -> f64 {
    let n = x.len() - 2;
    let mut ps = unflatten(&x[..n]);
    euler_plain(&mut ps, x[n], x[n + 1]);
    flatten(&ps).iter().zip(c).map(|(a, b)| a * b).sum()
}

#[test]
fn euler_step_iter_mut_vjp_matches_finite_differences() {
    let ps0 = particles();
    let (dt, g) = (0.1, 9.8);
    let mut ps = ps0.clone();
    let mut expected = ps0.clone();
    euler_plain(&mut expected, dt, g);
    let c: Vec<f64> = (0..15).map(|k| 0.3 + 0.1 * k as f64).collect();
    let seed = unflatten(&c)
        .iter()
        .map(|p| ParticleAdj {
            pos: p.pos,
            vel: p.vel,
            mass: p.mass,
            id: revad::Zero,
        })
        .collect::<Vec<_>>();
    let ((), (dps, ddt, dg)) = euler_vjp(&mut ps, dt, g, seed);
    assert_eq!(flatten(&ps), flatten(&expected));
    let mut x = flatten(&ps0);
    x.extend([dt, g]);
    let mut analytic = flatten_adj(&dps);
    analytic.extend([ddt, dg]);
    if let Err(e) = revad::check::gradient(|x| euler_objective(&c, x), &x, &analytic) {
        panic!("{e}");
    }
}

impl System {
    /// `&mut self`: `iter_mut().enumerate()` over `self.particles` and `&mut self.particles`,
    /// reading `self.g` in the bodies.
    #[reverse]
    fn kick(&mut self, dt: f64) {
        for (i, p) in self.particles.iter_mut().enumerate() {
            p.vel[1] -= (i as f64 + 1.0) * dt * self.g * p.mass;
        }
        for p in &mut self.particles {
            p.pos[0] += dt * p.vel[0] * self.g;
        }
    }

    #[reverse]
    fn kinetic(&self) -> f64 {
        self.particles
            .iter()
            .map(|p| 0.5 * p.mass * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1]))
            .sum()
    }
}

/// A `mut` copy changed by `for p in &mut ps` and `for_each` over `iter_mut`, then read.
#[reverse]
fn kicked_energy(ps: &[Particle], f: f64) -> f64 {
    let mut qs = ps.to_vec();
    for p in &mut qs {
        p.vel[0] += f / p.mass;
    }
    qs.iter_mut().for_each(|p| p.pos[1] *= f);
    let mut e = 0.0;
    for q in &qs {
        e += q.mass * q.vel[0] * q.vel[0] + q.pos[1];
    }
    e
}

fn kicked_energy_plain(ps: &[Particle], f: f64) -> f64 {
    ps.iter()
        .map(|p| {
            let v = p.vel[0] + f / p.mass;
            p.mass * v * v + p.pos[1] * f
        })
        .sum()
}

#[test]
fn mut_self_iter_mut_vjp_matches_finite_differences() {
    let sys0 = System {
        particles: particles(),
        g: 9.8,
    };
    let dt = 0.05;
    let c: Vec<f64> = (0..15).map(|k| 1.0 - 0.07 * k as f64).collect();
    let seed = SystemAdj {
        particles: unflatten(&c)
            .iter()
            .map(|p| ParticleAdj {
                pos: p.pos,
                vel: p.vel,
                mass: p.mass,
                id: revad::Zero,
            })
            .collect(),
        g: 0.25,
    };
    let mut sys = sys0.clone();
    let ((), (dsys, ddt)) = sys.kick_vjp(dt, seed);
    let objective = |x: &[f64]| {
        let mut s = System {
            particles: unflatten(&x[..15]),
            g: x[15],
        };
        s.kick(x[16]);
        flatten(&s.particles)
            .iter()
            .zip(&c)
            .map(|(a, b)| a * b)
            .sum::<f64>()
            + 0.25 * s.g
    };
    let mut expected = sys0.clone();
    expected.kick(dt);
    assert_eq!(sys, expected);
    let mut x = flatten(&sys0.particles);
    x.extend([sys0.g, dt]);
    let mut analytic = flatten_adj(&dsys.particles);
    analytic.extend([dsys.g, ddt]);
    if let Err(e) = revad::check::gradient(objective, &x, &analytic) {
        panic!("{e}");
    }
}

#[test]
fn for_over_mut_ref_and_for_each_iter_mut_match_finite_differences() {
    let ps = particles();
    let (e, (dps, df)) = kicked_energy_grad(&ps, 0.7);
    assert_close(e, kicked_energy_plain(&ps, 0.7));
    check_particles(|q| kicked_energy_plain(q, 0.7), &ps, &dps);
    let h = 1e-6;
    let fd = (kicked_energy_plain(&ps, 0.7 + h) - kicked_energy_plain(&ps, 0.7 - h)) / (2.0 * h);
    assert!((df - fd).abs() < 1e-6, "{df} {fd}");
}

/// `fill` on a field of a `mut` aggregate, and `iter_mut` over a field zipped with a slice.
#[reverse]
fn refill(p: &Particle, x: &[f64], s: f64) -> f64 {
    let mut q = p.clone();
    q.vel.fill(s * s);
    for (v, xi) in q.pos.iter_mut().zip(x) {
        *v += xi * s;
    }
    q.vel[0] * q.mass + q.pos[0] * q.pos[1]
}

#[test]
fn fill_and_iter_mut_on_a_field_match_closed_form() {
    let p = particles()[1].clone();
    let x = [0.3, -0.8];
    let s = 1.7;
    let (v, (dp, dx, ds)) = refill_grad(&p, &x, s);
    let (a, b) = (p.pos[0] + x[0] * s, p.pos[1] + x[1] * s);
    assert_close(v, s * s * p.mass + a * b);
    assert_close(dp.mass, s * s);
    assert_eq!(dp.vel, [0.0, 0.0]);
    assert_all_close(&dp.pos, &[b, a]);
    assert_all_close(&dx, &[b * s, a * s]);
    assert_close(ds, 2.0 * s * p.mass + x[0] * b + x[1] * a);
}

// ---- 3. iterator chains whose items are aggregates ---------------------------------------

#[reverse]
fn chains(ps: &[Particle], ws: &[f64]) -> f64 {
    let a = ps.iter().map(|p| p.mass * p.vel[0]).sum::<f64>();
    let b: f64 = ps.iter().zip(ws).map(|(p, w)| w * p.mass).sum();
    let c = ps[0].pos.iter().map(|v| v * v).sum::<f64>();
    let d = ps
        .iter()
        .filter(|p| p.mass > 1.0)
        .fold(0.0, |acc, p| acc + p.pos[1] * p.mass);
    let e: f64 = ps
        .iter()
        .rev()
        .zip(ws)
        .enumerate()
        .map(|(i, (p, w))| i as f64 * w * p.vel[1])
        .sum();
    a + b + c + d + e
}

fn chains_plain(ps: &[Particle], ws: &[f64]) -> f64 {
    let n = ps.len();
    let mut s = 0.0;
    for i in 0..n {
        let p = &ps[i];
        s += p.mass * p.vel[0] + ws[i] * p.mass;
        if p.mass > 1.0 {
            s += p.pos[1] * p.mass;
        }
        s += i as f64 * ws[i] * ps[n - 1 - i].vel[1];
    }
    s + ps[0].pos[0] * ps[0].pos[0] + ps[0].pos[1] * ps[0].pos[1]
}

#[test]
fn chains_over_structs_match_finite_differences() {
    let ps = particles();
    let ws = [0.5, -2.0, 1.25];
    let (v, (dps, dws)) = chains_grad(&ps, &ws);
    assert_close(v, chains_plain(&ps, &ws));
    check_particles(|q| chains_plain(q, &ws), &ps, &dps);
    if let Err(e) = revad::check::gradient(|w| chains_plain(&ps, w), &ws, &dws) {
        panic!("{e}");
    }
    // Two of the partials in closed form.
    assert_close(dps[0].mass, ps[0].vel[0] + ws[0] + ps[0].pos[1]);
    assert_close(dws[2], ps[2].mass + 2.0 * ps[0].vel[1]);
}

#[test]
fn method_chain_over_self_field_matches_closed_form() {
    let sys = System {
        particles: particles(),
        g: 1.0,
    };
    let (k, dsys) = sys.kinetic_grad();
    assert_close(k, sys.kinetic());
    for (p, d) in sys.particles.iter().zip(&dsys.particles) {
        assert_close(d.mass, 0.5 * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1]));
        assert_all_close(&d.vel, &[p.mass * p.vel[0], p.mass * p.vel[1]]);
    }
    assert_eq!(dsys.g, 0.0);
}

// ---- calls, methods and copies on items ----------------------------------------------------

impl Particle {
    #[reverse]
    fn kin(&self) -> f64 {
        0.5 * self.mass * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1])
    }

    #[reverse]
    fn push(&mut self, f: f64) {
        self.vel[0] += f / self.mass;
    }
}

#[reverse]
fn height_energy(p: &Particle, k: f64) -> f64 {
    k * p.mass * p.pos[1]
}

/// An item passed to an annotated function and used as a method receiver, a clone of an
/// item, and a chain that maps items to a part of them.
#[reverse]
fn item_calls(ps: &[Particle], f: f64) -> f64 {
    let mut e = 0.0;
    for p in ps.iter() {
        let q = p.clone();
        e += q.mass * f + p.kin() + height_energy(p, f);
    }
    e + ps.iter().map(|p| p.pos).map(|v| v[0] * f).sum::<f64>()
}

fn item_calls_plain(ps: &[Particle], f: f64) -> f64 {
    ps.iter()
        .map(|p| {
            let k = 0.5 * p.mass * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1]);
            p.mass * f + k + f * p.mass * p.pos[1] + p.pos[0] * f
        })
        .sum()
}

#[test]
fn items_passed_to_functions_methods_and_clones_match_finite_differences() {
    let ps = particles();
    let (e, (dps, df)) = item_calls_grad(&ps, 1.3);
    assert_close(e, item_calls_plain(&ps, 1.3));
    check_particles(|q| item_calls_plain(q, 1.3), &ps, &dps);
    let expected: f64 = ps
        .iter()
        .map(|p| p.mass + p.mass * p.pos[1] + p.pos[0])
        .sum();
    assert_close(df, expected);
}

/// `iter_mut` over structs zipped with `iter_mut` over floats; a `&mut self` method called on
/// each item.
#[reverse]
fn push_all(ps: &mut [Particle], xs: &mut [f64], f: f64) {
    for (p, x) in ps.iter_mut().zip(xs.iter_mut()) {
        p.push(f * *x);
        *x *= p.mass + p.vel[0];
    }
}

fn push_all_plain(ps: &mut [Particle], xs: &mut [f64], f: f64) {
    for (p, x) in ps.iter_mut().zip(xs.iter_mut()) {
        p.vel[0] += f * *x / p.mass;
        *x *= p.mass + p.vel[0];
    }
}

#[test]
fn iter_mut_zip_with_method_calls_vjp_matches_finite_differences() {
    let ps0 = particles();
    let xs0 = [0.2, -0.7, 1.1];
    let f = 0.9;
    let c: Vec<f64> = (0..18).map(|k| 0.5 - 0.05 * k as f64).collect();
    let objective = |x: &[f64]| {
        let mut ps = unflatten(&x[..15]);
        let mut xs = x[15..18].to_vec();
        push_all_plain(&mut ps, &mut xs, x[18]);
        let mut out = flatten(&ps);
        out.extend(&xs);
        out.iter().zip(&c).map(|(a, b)| a * b).sum::<f64>()
    };
    let seed: Vec<ParticleAdj> = unflatten(&c[..15])
        .iter()
        .map(|p| ParticleAdj {
            pos: p.pos,
            vel: p.vel,
            mass: p.mass,
            id: revad::Zero,
        })
        .collect();
    let (mut ps, mut xs) = (ps0.clone(), xs0);
    let ((), (dps, dxs, df)) = push_all_vjp(&mut ps, &mut xs, f, seed, c[15..].to_vec());
    let (mut eps, mut exs) = (ps0.clone(), xs0);
    push_all_plain(&mut eps, &mut exs, f);
    assert_eq!(flatten(&ps), flatten(&eps));
    assert_eq!(xs, exs);
    let mut x = flatten(&ps0);
    x.extend(xs0);
    x.push(f);
    let mut analytic = flatten_adj(&dps);
    analytic.extend(&dxs);
    analytic.push(df);
    if let Err(e) = revad::check::gradient(objective, &x, &analytic) {
        panic!("{e}");
    }
}

// ---- slices and windows of sequences of structs --------------------------------------------

/// `windows` of structs, a slice of structs iterated and indexed, and two parts of one item
/// passed to an annotated function.
#[reverse]
fn neighbours(ps: &[Particle]) -> f64 {
    let mut s = 0.0;
    for w in ps.windows(2) {
        s += w[0].mass * w[1].pos[0];
    }
    for p in &ps[1..] {
        s += dot(&p.pos, &p.vel);
    }
    let tail = &ps[1..];
    s + tail[1].vel[0] * tail.len() as f64
}

fn neighbours_plain(ps: &[Particle]) -> f64 {
    let mut s = 0.0;
    for i in 0..ps.len() - 1 {
        s += ps[i].mass * ps[i + 1].pos[0];
    }
    for p in &ps[1..] {
        s += p.pos[0] * p.vel[0] + p.pos[1] * p.vel[1];
    }
    s + ps[2].vel[0] * (ps.len() - 1) as f64
}

#[test]
fn windows_and_slices_of_structs_match_finite_differences() {
    let ps = particles();
    let (s, dps) = neighbours_grad(&ps);
    assert_close(s, neighbours_plain(&ps));
    check_particles(neighbours_plain, &ps, &dps);
    assert_close(dps[1].pos[0], ps[0].mass + ps[1].vel[0]);
    assert_close(dps[2].vel[0], ps[2].pos[0] + 2.0);
}

// ---- a `&mut` slice of floats iterated as it is: its items are places too -----------------

#[reverse]
fn doubled_tail(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    let r = &mut y[1..];
    for v in r {
        *v = 2.0 * *v * *v;
    }
    y[0] * y[1] + y[2]
}

#[reverse(cps)]
fn doubled_tail_cps(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    let r = &mut y[1..];
    for v in r {
        *v = 2.0 * *v * *v;
    }
    y[0] * y[1] + y[2]
}

#[test]
fn mut_slice_items_written_through_match_closed_form_both_backends() {
    let x = [1.5, -0.5, 2.0];
    // y = [x0, 2 x1^2, 2 x2^2]; f = x0 * 2 x1^2 + 2 x2^2.
    let f = x[0] * 2.0 * x[1] * x[1] + 2.0 * x[2] * x[2];
    let g = [2.0 * x[1] * x[1], 4.0 * x[0] * x[1], 4.0 * x[2]];
    for (v, dx) in [doubled_tail_grad(&x), doubled_tail_cps_grad(&x)] {
        assert_close(v, f);
        assert_all_close(&dx, &g);
    }
}

// ---- a `bool` field as a filter -------------------------------------------------------------

/// A value with a switch.
#[derive(Clone, Debug, PartialEq)]
pub struct Tagged {
    /// The value.
    pub x: f64,
    /// Whether it counts.
    pub on: bool,
}

/// The adjoint of a [`Tagged`].
#[derive(Clone, Debug, PartialEq)]
pub struct TaggedAdj {
    /// The value's adjoint.
    pub x: f64,
    /// A `bool` has no adjoint.
    pub on: revad::Zero,
}

impl revad::Adjoint for Tagged {
    type Adj = TaggedAdj;
    fn zero_adjoint(&self) -> TaggedAdj {
        TaggedAdj {
            x: 0.0,
            on: revad::Zero,
        }
    }
    fn accumulate(acc: &mut TaggedAdj, o: &TaggedAdj) {
        revad::__private::Accumulate::accumulate(acc, o)
    }
}

impl revad::__private::Accumulate for TaggedAdj {
    fn accumulate(&mut self, o: &Self) {
        self.x += o.x;
    }
}

#[reverse]
fn switched(ts: &[Tagged]) -> f64 {
    ts.iter().filter(|t| t.on).map(|t| t.x * t.x).sum::<f64>()
}

#[test]
fn filter_on_a_bool_field_matches_closed_form() {
    let ts = [
        Tagged { x: 1.5, on: true },
        Tagged { x: -2.0, on: false },
        Tagged { x: 0.5, on: true },
    ];
    let (s, dts) = switched_grad(&ts);
    assert_close(s, 1.5 * 1.5 + 0.5 * 0.5);
    let dx: Vec<f64> = dts.iter().map(|d| d.x).collect();
    assert_all_close(&dx, &[3.0, 0.0, 1.0]);
}
