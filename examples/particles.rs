//! A chain of particles joined by springs: the gradient of the total energy with respect to
//! every particle, from `#[revad::reverse]` on a method, checked against finite differences.
//!
//! Run it with `cargo run --example particles`.
//!
//! The particles are a user struct with `#[derive(revad::Adjoint)]`: the gradient of a
//! `&[Particle]` is a `Vec<ParticleAdjoint>`, one adjoint struct per particle, with the same
//! fields (`pos`, `vel`, `mass`). The energy is written as a Rust programmer would: methods on
//! the particle and on the system, fields read by name, loops over the particles.

use revad::reverse;

/// A point mass in the plane.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Particle {
    /// Position (m).
    pub pos: [f64; 2],
    /// Velocity (m/s).
    pub vel: [f64; 2],
    /// Mass (kg).
    pub mass: f64,
}

impl Particle {
    /// Kinetic energy, ½ m |v|².
    #[reverse]
    pub fn kinetic(&self) -> f64 {
        0.5 * self.mass * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1])
    }

    /// Potential energy in the gravity field `g`, m g y.
    #[reverse]
    pub fn potential(&self, g: f64) -> f64 {
        self.mass * g * self.pos[1]
    }
}

/// Springs of stiffness `k` and rest length `rest` between neighbours.
#[derive(Clone, Debug, revad::Adjoint)]
pub struct Springs {
    /// Stiffness (N/m).
    pub k: f64,
    /// Rest length (m).
    pub rest: f64,
}

impl Springs {
    /// The energy of the spring between `a` and `b`, ½ k (|a − b| − rest)².
    #[reverse]
    pub fn energy(&self, a: &Particle, b: &Particle) -> f64 {
        let dx = a.pos[0] - b.pos[0];
        let dy = a.pos[1] - b.pos[1];
        let stretch = (dx * dx + dy * dy).sqrt() - self.rest;
        0.5 * self.k * stretch * stretch
    }
}

/// The total energy of the chain: kinetic, gravitational and elastic.
#[reverse]
pub fn total_energy(particles: &[Particle], springs: &Springs, g: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..particles.len() {
        let p = &particles[i];
        e += p.kinetic() + p.potential(g);
        if i + 1 < particles.len() {
            e += springs.energy(p, &particles[i + 1]);
        }
    }
    e
}

/// A float of a particle, by name: for the finite-difference check.
type Field = fn(&mut Particle) -> &mut f64;

fn main() {
    let particles: Vec<Particle> = (0..4)
        .map(|i| {
            let t = i as f64;
            Particle {
                pos: [1.1 * t, 0.2 * t * t],
                vel: [0.3 - 0.1 * t, 0.05 * t],
                mass: 1.0 + 0.5 * t,
            }
        })
        .collect();
    let springs = Springs { k: 40.0, rest: 1.0 };
    let g = 9.81;

    let (energy, (d_particles, d_springs, d_g)) = total_energy_grad(&particles, &springs, g);
    println!("total energy: {energy:.6} J\n");
    println!("gradient with respect to each particle (∂E/∂pos, ∂E/∂vel, ∂E/∂mass):");
    for (i, d) in d_particles.iter().enumerate() {
        println!(
            "  particle {i}: pos [{:9.4}, {:9.4}]  vel [{:8.4}, {:8.4}]  mass {:8.4}",
            d.pos[0], d.pos[1], d.vel[0], d.vel[1], d.mass
        );
    }
    println!(
        "∂E/∂k = {:.6}, ∂E/∂rest = {:.6}, ∂E/∂g = {:.6}",
        d_springs.k, d_springs.rest, d_g
    );

    // Check every float of every particle against central finite differences.
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..particles.len() {
        let fields: [(&str, f64, Field); 5] = [
            ("pos[0]", d_particles[i].pos[0], |p| &mut p.pos[0]),
            ("pos[1]", d_particles[i].pos[1], |p| &mut p.pos[1]),
            ("vel[0]", d_particles[i].vel[0], |p| &mut p.vel[0]),
            ("vel[1]", d_particles[i].vel[1], |p| &mut p.vel[1]),
            ("mass", d_particles[i].mass, |p| &mut p.mass),
        ];
        for (name, exact, field) in fields {
            let (mut up, mut down) = (particles.clone(), particles.clone());
            *field(&mut up[i]) += h;
            *field(&mut down[i]) -= h;
            let fd =
                (total_energy(&up, &springs, g) - total_energy(&down, &springs, g)) / (2.0 * h);
            let err = (exact - fd).abs() / fd.abs().max(1.0);
            assert!(err < 1e-6, "particle {i} {name}: {exact} vs {fd}");
            worst = worst.max(err);
        }
    }
    println!("\nall 20 partial derivatives agree with finite differences (worst {worst:.1e})");
}
