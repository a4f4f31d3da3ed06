#[reverse]
fn kinetic(ps: &[Particle]) -> f64 {
    let mut e = 0.0;
    for p in ps {
        e += 0.5 * p.mass * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1]);
    }
    e
}

#[reverse]
fn layer_sum(l: &Layer, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (row, bi) in l.w.iter().zip(&l.b) {
        let mut dot = 0.0;
        for (w, xi) in row.iter().zip(x) {
            dot += w * xi;
        }
        s += (dot + bi).tanh();
    }
    s
}

#[reverse]
fn euler(ps: &mut [Particle], dt: f64) {
    for p in ps.iter_mut() {
        p.pos[0] += dt * p.vel[0];
        for v in p.vel.iter_mut() {
            *v *= 0.5;
        }
    }
}

#[reverse]
fn chains(ps: &[Particle], ws: &[f64], l: &Layer) -> f64 {
    let a = ps.iter().map(|p| p.mass * p.vel[0]).sum::<f64>();
    let b: f64 = ps.iter().zip(ws).map(|(p, w)| w * p.mass).sum();
    let c: f64 = l.w[0][1..].iter().map(|v| v * v).sum();
    a + b + c
}
