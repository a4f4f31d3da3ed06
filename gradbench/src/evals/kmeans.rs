//! `kmeans`: the k-means cost f(C) = Σᵢ minⱼ ‖Cⱼ − Pᵢ‖² (`cost`), and the Newton direction
//! J·H⁻¹ from its gradient J and its Hessian H (`dir`).
//!
//! H is diagonal (each term depends on one centroid, through a sum of squares of its
//! coordinates taken one at a time), so H·1, one Hessian-vector product, is its diagonal; the
//! generated `cost_hvp` gives the gradient with it in the same sweep.

use super::Runner;
use revad::reverse;
use serde_json::Value;

/// The k-means cost of the row-major `d`-dimensional `points` for the row-major `centroids`.
///
/// Each point's nearest centroid is found first (an index: the comparisons choose it, no value
/// flows from them), then that centroid's squared distance is added, so the derivatives go
/// through the chosen centroid only.
#[reverse(hessian, wrt(centroids))]
pub fn cost(points: &[f64], centroids: &[f64], d: usize) -> f64 {
    let n = points.len() / d;
    let k = centroids.len() / d;
    let mut total = 0.0;
    for i in 0..n {
        let p = &points[i * d..(i + 1) * d];
        let mut nearest = 0;
        let mut best = f64::INFINITY;
        for j in 0..k {
            let c = &centroids[j * d..(j + 1) * d];
            let mut dist = 0.0;
            for l in 0..d {
                let e = c[l] - p[l];
                dist += e * e;
            }
            if dist < best {
                best = dist;
                nearest = j;
            }
        }
        let c = &centroids[nearest * d..(nearest + 1) * d];
        let mut dist = 0.0;
        for l in 0..d {
            let e = c[l] - p[l];
            dist += e * e;
        }
        total += dist;
    }
    total
}

/// J·H⁻¹ for the cost at `centroids`: the gradient divided elementwise by the diagonal of the
/// Hessian (H·1, H being diagonal).
pub fn dir(points: &[f64], centroids: &[f64], d: usize, ones: &[f64]) -> Vec<f64> {
    let (_, gradient, diagonal) = cost_hvp(points, centroids, d, ones);
    gradient.iter().zip(&diagonal).map(|(g, h)| g / h).collect()
}

fn matrix(value: &Value, name: &str) -> Result<(Vec<f64>, usize), String> {
    let rows = value[name]
        .as_array()
        .ok_or_else(|| format!("kmeans: missing {name}"))?;
    let d = rows.first().and_then(Value::as_array).map_or(0, Vec::len);
    let mut flat = Vec::with_capacity(rows.len() * d);
    for row in rows {
        let row = row
            .as_array()
            .filter(|r| r.len() == d)
            .ok_or_else(|| format!("kmeans: {name} rows of unequal lengths"))?;
        for x in row {
            flat.push(
                x.as_f64()
                    .ok_or_else(|| format!("kmeans: {name} not numbers"))?,
            );
        }
    }
    Ok((flat, d))
}

struct KMeans {
    points: Vec<f64>,
    centroids: Vec<f64>,
    ones: Vec<f64>,
    d: usize,
    dir: bool,
    cost: f64,
    direction: Vec<f64>,
}

impl Runner for KMeans {
    fn run(&mut self) {
        if self.dir {
            self.direction = dir(&self.points, &self.centroids, self.d, &self.ones);
        } else {
            self.cost = cost(&self.points, &self.centroids, self.d);
        }
    }

    fn output(&self) -> Value {
        if self.dir {
            Value::from(
                self.direction
                    .chunks(self.d)
                    .map(<[f64]>::to_vec)
                    .collect::<Vec<_>>(),
            )
        } else {
            Value::from(self.cost)
        }
    }
}

/// Prepares `cost` or `dir` for the input `{"points": [[..]..], "centroids": [[..]..]}`.
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let dir = match function {
        "cost" => false,
        "dir" => true,
        _ => return Err(format!("kmeans has no {function}")),
    };
    let (points, d) = matrix(input, "points")?;
    let (centroids, dc) = matrix(input, "centroids")?;
    if d == 0 || d != dc {
        return Err("kmeans: points and centroids of different dimensions".into());
    }
    let ones = vec![1.0; centroids.len()];
    Ok(Box::new(KMeans {
        points,
        centroids,
        ones,
        d,
        dir,
        cost: 0.0,
        direction: Vec::new(),
    }))
}
