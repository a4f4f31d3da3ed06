//! `ht`: the Jacobian (one vector forward pass) against central differences of the residuals,
//! on a small synthetic hand of 22 bones, in both variants.

use revad_gradbench::evals::ht::{Model, Problem, THETA};

/// A deterministic pseudo-random number in [−1, 1).
fn next(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// A hand of 22 bones (a chain per finger under the wrist) and 12 vertices, each weighted on
/// two or three bones; 7 observed points.
fn problem(complicated: bool, mirrored: bool) -> Problem {
    let mut s = 7u64;
    let bones = 22;
    let parents: Vec<i64> = (0..bones as i64)
        .map(|b| {
            if b == 0 {
                -1
            } else if (b - 1) % 4 == 0 {
                0
            } else {
                b - 1
            }
        })
        .collect();
    let transform = |s: &mut u64| -> Vec<f64> {
        let mut m: Vec<f64> = (0..16).map(|_| 0.3 * next(s)).collect();
        for i in 0..4 {
            m[5 * i] += 1.0;
        }
        m[12] = 0.0;
        m[13] = 0.0;
        m[14] = 0.0;
        m[15] = 1.0;
        m
    };
    let base_relatives: Vec<f64> = (0..bones).flat_map(|_| transform(&mut s)).collect();
    let inverse_base_absolutes: Vec<f64> = (0..bones).flat_map(|_| transform(&mut s)).collect();
    let vertices = 12;
    let base_positions: Vec<f64> = (0..vertices)
        .flat_map(|_| [next(&mut s), next(&mut s), next(&mut s), 1.0])
        .collect();
    let mut weights = vec![0.0; vertices * bones];
    for v in 0..vertices {
        for k in 0..(2 + v % 2) {
            let b = (v * 5 + k * 7) % bones;
            weights[v * bones + b] = 0.3 + 0.2 * next(&mut s).abs();
        }
    }
    let triangles: Vec<usize> = (0..10)
        .flat_map(|t| [t, t + 1, (t + 2) % vertices])
        .collect();
    let n = 7;
    let correspondences: Vec<usize> = (0..n)
        .map(|i| (i * 3) % if complicated { 10 } else { vertices })
        .collect();
    let points: Vec<f64> = (0..3 * n).map(|_| next(&mut s)).collect();
    let us: Vec<f64> = if complicated {
        (0..2 * n).map(|_| 0.3 + 0.2 * next(&mut s)).collect()
    } else {
        Vec::new()
    };
    let theta: Vec<f64> = (0..THETA).map(|_| 0.4 * next(&mut s)).collect();
    Problem {
        model: Model {
            parents,
            base_relatives,
            inverse_base_absolutes,
            base_positions,
            weights,
            triangles,
            is_mirrored: mirrored,
        },
        theta,
        correspondences,
        points,
        us,
    }
}

fn check(p: &Problem) {
    let (cols, jac) = p.jacobian();
    let rows = 3 * p.correspondences.len();
    let u_cols = if p.us.is_empty() { 0 } else { 2 };
    assert_eq!(cols, THETA + u_cols);
    assert_eq!(jac.len(), rows * cols);
    let h = 1e-6;
    let central = |perturb: &dyn Fn(&mut Problem, f64)| -> Vec<f64> {
        let (mut up, mut down) = (p.clone(), p.clone());
        perturb(&mut up, h);
        perturb(&mut down, -h);
        let (fu, fd) = (up.objective(), down.objective());
        fu.iter()
            .zip(&fd)
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect()
    };
    for k in 0..THETA {
        let fd = central(&|q, e| q.theta[k] += e);
        for r in 0..rows {
            let ad = jac[r * cols + u_cols + k];
            assert!(
                (ad - fd[r]).abs() <= 1e-6 * (1.0 + fd[r].abs()),
                "theta {k} row {r}: {ad} vs {}",
                fd[r]
            );
        }
    }
    for c in 0..u_cols {
        // Column c: the derivative of each point's residuals in its own u_c.
        let fd = central(&|q, e| {
            for i in 0..q.correspondences.len() {
                q.us[2 * i + c] += e;
            }
        });
        for r in 0..rows {
            let ad = jac[r * cols + c];
            assert!(
                (ad - fd[r]).abs() <= 1e-6 * (1.0 + fd[r].abs()),
                "u{c} row {r}: {ad} vs {}",
                fd[r]
            );
        }
    }
}

#[test]
fn simple_jacobian_matches_finite_differences() {
    check(&problem(false, false));
    check(&problem(false, true));
}

#[test]
fn complicated_jacobian_matches_finite_differences() {
    check(&problem(true, false));
}

#[test]
fn small_rotation_uses_identity() {
    let mut p = problem(false, false);
    p.theta[0] = 1e-5;
    p.theta[1] = 0.0;
    p.theta[2] = 0.0;
    check(&p);
}
