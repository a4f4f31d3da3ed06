#[reverse]
fn energy(p: &Particle, g: f64) -> f64 {
    let v2 = p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1];
    0.5 * p.mass * v2 + p.mass * g * p.pos[1]
}

#[reverse]
fn total(ps: &[Particle], g: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..ps.len() {
        let p = &ps[i];
        e += energy(p, g) + p.kinetic();
    }
    e
}

#[reverse]
fn kick(p: &mut Particle, f: f64, dt: f64) {
    p.vel[0] += dt * f / p.mass;
    p.pos[0] += dt * p.vel[0];
    p.id += 1;
}

#[reverse]
fn spawn(x: f64) -> Particle {
    Particle {
        pos: [x, x * x],
        vel: [0.0, 0.0],
        mass: 2.0,
        id: 1,
    }
}

#[reverse]
fn kinetic(&self) -> f64 {
    0.5 * self.mass * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1])
}
