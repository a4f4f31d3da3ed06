use ad::reverse;

#[derive(Clone, Debug, PartialEq)]
pub struct Particle {
    pub pos: [f64; 2],
    pub vel: [f64; 2],
    pub mass: f64,
    pub id: usize,
}
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleAdj {
    pub pos: [f64; 2],
    pub vel: [f64; 2],
    pub mass: f64,
    pub id: ad::Zero,
}
impl ad::Adjoint for Particle {
    type Adj = ParticleAdj;
    fn zero_adjoint(&self) -> ParticleAdj {
        ParticleAdj { pos: [0.0; 2], vel: [0.0; 2], mass: 0.0, id: ad::Zero }
    }
    fn accumulate(acc: &mut ParticleAdj, o: &ParticleAdj) {
        ad::__private::Accumulate::accumulate(acc, o)
    }
}
impl ad::__private::Accumulate for ParticleAdj {
    fn accumulate(&mut self, o: &Self) {
        self.pos.accumulate(&o.pos);
        self.vel.accumulate(&o.vel);
        self.mass += o.mass;
    }
}
use ad::__private::Accumulate as _;

#[reverse]
fn energy(p: &Particle, k: f64) -> f64 {
    let v2 = p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1];
    0.5 * p.mass * v2 + k * p.pos[1]
}

#[reverse]
fn total(ps: &[Particle], m: &[[f64; 3]]) -> f64 {
    let mut e = 0.0;
    for i in 0..ps.len() {
        let p = &ps[i];
        e += p.mass * p.pos[0] * m[i][2] + energy(p, 2.0);
    }
    e
}

#[reverse]
fn step(p: &mut Particle, dt: f64) {
    p.pos[0] += dt * p.vel[0];
    p.vel[0] *= 0.5;
    p.id += 1;
}

#[reverse]
fn run(p: &Particle, dt: f64) -> f64 {
    let mut q = Particle { pos: p.pos, vel: [p.vel[0], p.vel[1] * 2.0], mass: p.mass, id: 0 };
    for _ in 0..3 {
        step(&mut q, dt);
    }
    q.pos[0] * q.mass
}

impl Particle {
    #[reverse]
    fn kinetic(&self) -> f64 {
        0.5 * self.mass * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1])
    }

    #[reverse]
    fn push(&mut self, f: f64) {
        self.vel[0] += f / self.mass;
    }
}

#[reverse]
fn uses_methods(p: &Particle, f: f64) -> f64 {
    let mut q = p.clone();
    q.push(f);
    q.kinetic() + p.kinetic()
}

impl Particle {
    fn clone_like(&self) -> Particle { self.clone() }
}

fn p0() -> Particle {
    Particle { pos: [1.0, 2.0], vel: [0.5, -1.5], mass: 3.0, id: 7 }
}

#[test]
fn scratch() {
    let p = p0();
    let (e, (dp, dk)) = energy_grad(&p, 2.0);
    assert_eq!(e, energy(&p, 2.0));
    assert_eq!(dk, 2.0);
    assert_eq!(dp.mass, 0.5 * (0.25 + 2.25));
    assert_eq!(dp.vel, [3.0 * 0.5, 3.0 * -1.5]);
    assert_eq!(dp.pos, [0.0, 2.0]);
    let ps = vec![p0(), Particle { mass: 2.0, ..p0() }];
    let m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let (t, (dps, dm)) = total_grad(&ps, &m);
    assert_eq!(t, total(&ps, &m));
    assert_eq!(dm[1][2], 2.0 * 1.0);
    println!("{dps:?}");
    let (r, (dp, ddt)) = run_grad(&p, 0.1);
    assert_eq!(r, run(&p, 0.1));
    println!("{dp:?} {ddt}");
    let (k, dk) = p.kinetic_grad();
    println!("{k} {dk:?}");
}
