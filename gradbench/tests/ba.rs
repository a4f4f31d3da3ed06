//! `ba`: each observation's vjp rows against central differences of the reprojection error
//! (both branches of the rotation), and the sparse Jacobian's layout.

use revad_gradbench::evals::ba::{reprojection_error, reprojection_error_vjp, Problem, Sparse};
use serde_json::json;

/// The 15 inputs of one observation's error, flattened: camera, point, weight.
fn flat_error(v: &[f64; 15], feat: [f64; 2]) -> [f64; 2] {
    let cam: [f64; 11] = v[..11].try_into().unwrap();
    let x: [f64; 3] = v[11..14].try_into().unwrap();
    reprojection_error(cam, x, v[14], feat)
}

fn check(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) {
    let mut v = [0.0; 15];
    v[..11].copy_from_slice(&cam);
    v[11..14].copy_from_slice(&x);
    v[14] = w;
    let h = 1e-6;
    for (row, seed) in [[1.0, 0.0], [0.0, 1.0]].into_iter().enumerate() {
        let (value, (dcam, dx, dw)) = reprojection_error_vjp(cam, x, w, feat, seed);
        assert_eq!(value, reprojection_error(cam, x, w, feat));
        let ad: Vec<f64> = dcam.iter().chain(&dx).copied().chain([dw]).collect();
        for e in 0..15 {
            let (mut up, mut down) = (v, v);
            up[e] += h;
            down[e] -= h;
            let fd = (flat_error(&up, feat)[row] - flat_error(&down, feat)[row]) / (2.0 * h);
            assert!(
                (ad[e] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                "row {row} input {e}: {} vs {fd}",
                ad[e]
            );
        }
    }
}

#[test]
fn observation_jacobian_matches_finite_differences() {
    let cam = [
        0.1, -0.2, 0.3, 0.5, -0.4, -3.0, 2.0, 0.1, -0.2, 0.01, -0.002,
    ];
    check(cam, [0.3, 0.2, 4.0], 0.8, [0.2, -0.1]);
    // A zero rotation takes the other branch.
    let mut still = cam;
    still[..3].copy_from_slice(&[0.0; 3]);
    check(still, [0.3, 0.2, 4.0], 0.8, [0.2, -0.1]);
}

#[test]
fn sparse_layout() {
    let input = json!({
        "n": 2, "m": 3, "p": 20,
        "cam": [0.1, -0.2, 0.3, 0.5, -0.4, -3.0, 2.0, 0.1, -0.2, 0.01, -0.002],
        "x": [0.3, 0.2, 4.0], "w": 0.8, "feat": [0.2, -0.1],
    });
    let problem = Problem::from_json(&input).unwrap();
    let mut jac = Sparse::default();
    problem.jacobian(&mut jac);
    assert_eq!(jac.rows.len(), 3 * 20 + 1);
    assert_eq!(*jac.rows.last().unwrap(), 31 * 20);
    // Observation 3 sees camera 1 and point 0; its second row starts at 15·7.
    let start = jac.rows[7] as usize;
    assert_eq!(jac.cols[start], 11);
    assert_eq!(jac.cols[start + 11], 22);
    assert_eq!(jac.cols[start + 14], 22 + 9 + 3);
    // The weight rows: d(1 − w²)/dw.
    assert_eq!(*jac.vals.last().unwrap(), -1.6);
    let out = jac.to_json();
    assert_eq!(out["rows"].as_array().unwrap().len(), 31);
    assert_eq!(out["vals"][30], json!(-1.6));
}
