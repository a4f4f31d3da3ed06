//! `kmeans`: the gradient and the Hessian's diagonal against central differences, H·1 against
//! the generated `cost_hessian_diag`, and `dir` against its closed form (centroid minus the
//! mean of its cluster).

use revad_gradbench::evals::kmeans::{cost, cost_grad, cost_hessian_diag, cost_hvp, dir};

/// A small deterministic input: n points and k centroids in d dimensions, the centroids the
/// last k points (so every cluster is nonempty), as the eval builds them.
fn input(n: usize, k: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut state = 12345u64;
    let points: Vec<f64> = (0..n * d)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    let centroids = points[(n - k) * d..].to_vec();
    (points, centroids)
}

#[test]
fn gradient_and_hessian_diagonal_match_finite_differences() {
    let (n, k, d) = (40, 4, 3);
    let (points, mut centroids) = input(n, k, d);
    // Move the centroids off the points so that no distance is a tie or zero.
    for (i, c) in centroids.iter_mut().enumerate() {
        *c += 0.01 * (i as f64 + 1.0).sin();
    }
    let ones = vec![1.0; k * d];
    let (value, gradient) = cost_grad(&points, &centroids, d);
    let (value2, gradient2, diagonal) = cost_hvp(&points, &centroids, d, &ones);
    assert_eq!(value, cost(&points, &centroids, d));
    assert_eq!(value, value2);
    let h = 1e-5;
    for e in 0..k * d {
        let mut up = centroids.clone();
        let mut down = centroids.clone();
        up[e] += h;
        down[e] -= h;
        let (fu, fd) = (cost(&points, &up, d), cost(&points, &down, d));
        let fd_grad = (fu - fd) / (2.0 * h);
        assert!(
            (gradient[e] - fd_grad).abs() <= 1e-6 * (1.0 + fd_grad.abs()),
            "{e}"
        );
        assert!((gradient2[e] - gradient[e]).abs() <= 1e-12 * (1.0 + gradient[e].abs()));
        let fd_hess =
            (cost_grad(&points, &up, d).1[e] - cost_grad(&points, &down, d).1[e]) / (2.0 * h);
        assert!(
            (diagonal[e] - fd_hess).abs() <= 1e-6 * (1.0 + fd_hess.abs()),
            "{e}"
        );
    }
    // The Hessian is diagonal, so H·1 is its diagonal.
    let (_, _, diag) = cost_hessian_diag(&points, &centroids, d);
    assert_eq!(diag, diagonal);
}

#[test]
fn direction_is_centroid_minus_cluster_mean() {
    let (n, k, d) = (50, 5, 2);
    let (points, centroids) = input(n, k, d);
    let direction = dir(&points, &centroids, d, &vec![1.0; k * d]);
    let mut sums = vec![0.0; k * d];
    let mut counts = vec![0usize; k];
    for p in points.chunks(d) {
        let dist =
            |j: usize| -> f64 { (0..d).map(|l| (centroids[j * d + l] - p[l]).powi(2)).sum() };
        let j = (0..k).min_by(|&a, &b| dist(a).total_cmp(&dist(b))).unwrap();
        counts[j] += 1;
        for l in 0..d {
            sums[j * d + l] += p[l];
        }
    }
    for j in 0..k {
        for l in 0..d {
            let expected = centroids[j * d + l] - sums[j * d + l] / counts[j] as f64;
            assert!((direction[j * d + l] - expected).abs() <= 1e-12, "{j} {l}");
        }
    }
}
