//! `ht`: hand tracking (ADBench). A skinned hand model is posed by 26 parameters θ (global
//! rotation and translation, then finger angles); the residuals are the differences between
//! observed points and the posed model's vertices (`simple`), or points interpolated on the
//! model's triangles with barycentric parameters u (`complicated`). The Jacobian is dense in θ
//! (26 columns, few against 3 residuals per point), so it comes from one forward-mode pass
//! carrying 26 tangents at once (`#[revad::forward(vector)]`). In the complicated variant, each
//! residual depends on its own point's two u's only, so two more tangents, u₀ of every point
//! together and u₁ of every point together, give the two u columns of the eval's output.

// The annotated functions take the model as slices (forward mode takes no structs), and so do
// the tangent functions generated from them, which do not carry a function's `allow`.
#![allow(clippy::too_many_arguments, clippy::needless_range_loop)]

use super::Runner;
use revad::{forward, Lanes};
use serde_json::Value;

/// Parameters of a pose.
pub const THETA: usize = 26;
/// Tangents carried by one forward pass. One pass of all 26 (or 28) tangents is several times
/// slower than passes of a few (measured on the eval's inputs: the tangent vectors of the
/// 10 000 vertices then far exceed the caches); 4 is the fastest measured.
const PASS: usize = 4;

/// The hand model: the bones' 4×4 transforms (row-major), the vertices and their weights.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Each bone's parent, −1 for the root (parents come before children).
    pub parents: Vec<i64>,
    /// Bone transforms relative to the parent, at rest: 16 per bone.
    pub base_relatives: Vec<f64>,
    /// Inverses of the absolute bone transforms at rest: 16 per bone.
    pub inverse_base_absolutes: Vec<f64>,
    /// Homogeneous vertex positions at rest: 4 per vertex.
    pub base_positions: Vec<f64>,
    /// Skinning weights, vertex-major: one per bone for each vertex.
    pub weights: Vec<f64>,
    /// Triangles: 3 vertex indices each.
    pub triangles: Vec<usize>,
    /// Whether the model is mirrored (x negated).
    pub is_mirrored: bool,
}

/// The posed vertex positions, 3 per vertex, for the pose θ.
#[forward(vector, wrt(theta))]
pub fn vertex_positions(
    theta: &[f64],
    parents: &[i64],
    base_relatives: &[f64],
    inverse_base_absolutes: &[f64],
    base_positions: &[f64],
    weights: &[f64],
    is_mirrored: bool,
) -> Vec<f64> {
    let bones = parents.len();
    // The pose parameters, 3 per column: global rotation, scale (1), global translation, then
    // one column of Euler angles per bone (the wrist and each finger's base first).
    let mut pose = vec![0.0; 3 * (bones + 3)];
    pose[0] = theta[0];
    pose[1] = theta[1];
    pose[2] = theta[2];
    pose[3] = 1.0;
    pose[4] = 1.0;
    pose[5] = 1.0;
    pose[6] = theta[3];
    pose[7] = theta[4];
    pose[8] = theta[5];
    let mut t = 6;
    let mut col = 5;
    for _finger in 0..5 {
        for joint in 2..5 {
            pose[3 * col] = theta[t];
            t += 1;
            if joint == 2 {
                pose[3 * col + 1] = theta[t];
                t += 1;
            }
            col += 1;
        }
        col += 1;
    }
    // Each bone's transform relative to its parent: its rest transform times the rotation
    // Rz·Ry·Rx of its Euler angles (x, z, y in the column).
    let mut relatives = vec![0.0; 16 * bones];
    for b in 0..bones {
        let (tx, tz, ty) = (
            pose[3 * (b + 3)],
            pose[3 * (b + 3) + 1],
            pose[3 * (b + 3) + 2],
        );
        let (sx, cx) = (tx.sin(), tx.cos());
        let (sy, cy) = (ty.sin(), ty.cos());
        let (sz, cz) = (tz.sin(), tz.cos());
        let rot = [
            cz * cy,
            cz * sy * sx - sz * cx,
            cz * sy * cx + sz * sx,
            sz * cy,
            sz * sy * sx + cz * cx,
            sz * sy * cx - cz * sx,
            -sy,
            cy * sx,
            cy * cx,
        ];
        for r in 0..4 {
            for c in 0..3 {
                relatives[16 * b + 4 * r + c] = base_relatives[16 * b + 4 * r] * rot[c]
                    + base_relatives[16 * b + 4 * r + 1] * rot[3 + c]
                    + base_relatives[16 * b + 4 * r + 2] * rot[6 + c];
            }
            relatives[16 * b + 4 * r + 3] = base_relatives[16 * b + 4 * r + 3];
        }
    }
    // Absolute transforms down the tree, then the skinning transforms.
    let mut absolutes = vec![0.0; 16 * bones];
    for b in 0..bones {
        let parent = parents[b];
        if parent < 0 {
            for e in 0..16 {
                absolutes[16 * b + e] = relatives[16 * b + e];
            }
        } else {
            let pb = 16 * parent as usize;
            for r in 0..4 {
                for c in 0..4 {
                    let mut s = 0.0;
                    for k in 0..4 {
                        s += absolutes[pb + 4 * r + k] * relatives[16 * b + 4 * k + c];
                    }
                    absolutes[16 * b + 4 * r + c] = s;
                }
            }
        }
    }
    let mut transforms = vec![0.0; 16 * bones];
    for b in 0..bones {
        for r in 0..4 {
            for c in 0..4 {
                let mut s = 0.0;
                for k in 0..4 {
                    s += absolutes[16 * b + 4 * r + k] * inverse_base_absolutes[16 * b + 4 * k + c];
                }
                transforms[16 * b + 4 * r + c] = s;
            }
        }
    }
    // Linear blend skinning (bones of zero weight skipped).
    let vertices = base_positions.len() / 4;
    let mut positions = vec![0.0; 3 * vertices];
    for v in 0..vertices {
        let (px, py, pz, pw) = (
            base_positions[4 * v],
            base_positions[4 * v + 1],
            base_positions[4 * v + 2],
            base_positions[4 * v + 3],
        );
        let mut acc = [0.0; 3];
        for b in 0..bones {
            let w = weights[v * bones + b];
            if w != 0.0 {
                for r in 0..3 {
                    let m = 16 * b + 4 * r;
                    acc[r] += w
                        * (transforms[m] * px
                            + transforms[m + 1] * py
                            + transforms[m + 2] * pz
                            + transforms[m + 3] * pw);
                }
            }
        }
        positions[3 * v] = acc[0];
        positions[3 * v + 1] = acc[1];
        positions[3 * v + 2] = acc[2];
        if is_mirrored {
            positions[3 * v] = -acc[0];
        }
    }
    // The global transform: rotation by the angle-axis vector (identity below 10⁻⁴), its
    // columns scaled, then the translation.
    let norm = (pose[0] * pose[0] + pose[1] * pose[1] + pose[2] * pose[2]).sqrt();
    let mut rot = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    if norm >= 0.0001 {
        let (x, y, z) = (pose[0] / norm, pose[1] / norm, pose[2] / norm);
        let (s, c) = (norm.sin(), norm.cos());
        rot[0] = x * x + (1.0 - x * x) * c;
        rot[1] = x * y * (1.0 - c) - z * s;
        rot[2] = x * z * (1.0 - c) + y * s;
        rot[3] = x * y * (1.0 - c) + z * s;
        rot[4] = y * y + (1.0 - y * y) * c;
        rot[5] = y * z * (1.0 - c) - x * s;
        rot[6] = x * z * (1.0 - c) - y * s;
        rot[7] = z * y * (1.0 - c) + x * s;
        rot[8] = z * z + (1.0 - z * z) * c;
    }
    for r in 0..3 {
        for c in 0..3 {
            rot[3 * r + c] *= pose[3 + c];
        }
    }
    for v in 0..vertices {
        let (x, y, z) = (positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]);
        for r in 0..3 {
            positions[3 * v + r] =
                rot[3 * r] * x + rot[3 * r + 1] * y + rot[3 * r + 2] * z + pose[6 + r];
        }
    }
    positions
}

/// The simple variant's residuals: each observed point minus its corresponding vertex.
#[forward(vector, wrt(theta))]
pub fn simple_residuals(
    theta: &[f64],
    parents: &[i64],
    base_relatives: &[f64],
    inverse_base_absolutes: &[f64],
    base_positions: &[f64],
    weights: &[f64],
    is_mirrored: bool,
    correspondences: &[usize],
    points: &[f64],
) -> Vec<f64> {
    let positions = vertex_positions(
        theta,
        parents,
        base_relatives,
        inverse_base_absolutes,
        base_positions,
        weights,
        is_mirrored,
    );
    let mut err = vec![0.0; 3 * correspondences.len()];
    for i in 0..correspondences.len() {
        let v = correspondences[i];
        for j in 0..3 {
            err[3 * i + j] = points[3 * i + j] - positions[3 * v + j];
        }
    }
    err
}

/// The complicated variant's residuals: each observed point minus the point of barycentric
/// coordinates (u₀, u₁, 1 − u₀ − u₁) on its corresponding triangle.
#[forward(vector, wrt(theta, us))]
pub fn complicated_residuals(
    theta: &[f64],
    us: &[f64],
    parents: &[i64],
    base_relatives: &[f64],
    inverse_base_absolutes: &[f64],
    base_positions: &[f64],
    weights: &[f64],
    is_mirrored: bool,
    triangles: &[usize],
    correspondences: &[usize],
    points: &[f64],
) -> Vec<f64> {
    let positions = vertex_positions(
        theta,
        parents,
        base_relatives,
        inverse_base_absolutes,
        base_positions,
        weights,
        is_mirrored,
    );
    let mut err = vec![0.0; 3 * correspondences.len()];
    for i in 0..correspondences.len() {
        let t = 3 * correspondences[i];
        let (a, b, c) = (triangles[t], triangles[t + 1], triangles[t + 2]);
        let (u0, u1) = (us[2 * i], us[2 * i + 1]);
        for j in 0..3 {
            let hand = u0 * positions[3 * a + j]
                + u1 * positions[3 * b + j]
                + (1.0 - u0 - u1) * positions[3 * c + j];
            err[3 * i + j] = points[3 * i + j] - hand;
        }
    }
    err
}

/// One eval input: the model, the observations and the pose.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    /// The hand model.
    pub model: Model,
    /// The pose θ (26).
    pub theta: Vec<f64>,
    /// For each observed point, its vertex (simple) or triangle (complicated).
    pub correspondences: Vec<usize>,
    /// The observed points, 3 each.
    pub points: Vec<f64>,
    /// The barycentric parameters, 2 per point (complicated), or empty (simple).
    pub us: Vec<f64>,
}

impl Problem {
    /// The residuals, 3 per observed point.
    pub fn objective(&self) -> Vec<f64> {
        let m = &self.model;
        if self.us.is_empty() {
            simple_residuals(
                &self.theta,
                &m.parents,
                &m.base_relatives,
                &m.inverse_base_absolutes,
                &m.base_positions,
                &m.weights,
                m.is_mirrored,
                &self.correspondences,
                &self.points,
            )
        } else {
            complicated_residuals(
                &self.theta,
                &self.us,
                &m.parents,
                &m.base_relatives,
                &m.inverse_base_absolutes,
                &m.base_positions,
                &m.weights,
                m.is_mirrored,
                &m.triangles,
                &self.correspondences,
                &self.points,
            )
        }
    }

    /// The Jacobian, row-major: one row per residual, with the columns of the eval's output
    /// (the two u columns first in the complicated variant, then θ). Forward passes of
    /// [`PASS`] tangents each: column `c` of the output is lane `c mod PASS` of pass
    /// `c / PASS`.
    pub fn jacobian(&self) -> (usize, Vec<f64>) {
        let m = &self.model;
        let rows = 3 * self.correspondences.len();
        let u_cols = if self.us.is_empty() { 0 } else { 2 };
        let cols = u_cols + THETA;
        let mut jac = vec![0.0; rows * cols];
        for first in (0..cols).step_by(PASS) {
            // The tangent of output column c: a u column (every point's u_c at once, each
            // residual depending on its own point's u only), or θ's column c − u_cols.
            let lane = |c: usize| -> Option<usize> {
                (first..first + PASS).contains(&c).then(|| c - first)
            };
            let seeds: Vec<Lanes<f64, PASS>> = (0..THETA).map(|k| unit(lane(u_cols + k))).collect();
            let d = if u_cols == 0 {
                simple_residuals_jvp_vec(
                    &self.theta,
                    &m.parents,
                    &m.base_relatives,
                    &m.inverse_base_absolutes,
                    &m.base_positions,
                    &m.weights,
                    m.is_mirrored,
                    &self.correspondences,
                    &self.points,
                    &seeds,
                )
                .1
            } else {
                let u_seeds: Vec<Lanes<f64, PASS>> =
                    (0..self.us.len()).map(|k| unit(lane(k % 2))).collect();
                complicated_residuals_jvp_vec(
                    &self.theta,
                    &self.us,
                    &m.parents,
                    &m.base_relatives,
                    &m.inverse_base_absolutes,
                    &m.base_positions,
                    &m.weights,
                    m.is_mirrored,
                    &m.triangles,
                    &self.correspondences,
                    &self.points,
                    &seeds,
                    &u_seeds,
                )
                .1
            };
            let width = PASS.min(cols - first);
            for (r, t) in d.iter().enumerate() {
                jac[r * cols + first..r * cols + first + width].copy_from_slice(&t.0[..width]);
            }
        }
        (cols, jac)
    }

    /// Reads the eval's input.
    pub fn from_json(input: &Value) -> Result<Problem, String> {
        let data = &input["data"];
        let model = &data["model"];
        let theta = floats(&input["theta"], "theta")?;
        if theta.len() != THETA {
            return Err(format!(
                "ht: theta has {} entries, not {THETA}",
                theta.len()
            ));
        }
        let parents = model["parents"]
            .as_array()
            .ok_or("ht: missing parents")?
            .iter()
            .map(|p| p.as_i64().ok_or("ht: parents not integers"))
            .collect::<Result<Vec<i64>, _>>()?;
        let bones = parents.len();
        for (b, &p) in parents.iter().enumerate() {
            if p >= b as i64 {
                return Err("ht: a bone's parent must come before it".into());
            }
        }
        let base_relatives = floats(&model["base_relatives"], "base_relatives")?;
        let inverse_base_absolutes =
            floats(&model["inverse_base_absolutes"], "inverse_base_absolutes")?;
        let base_positions = floats(&model["base_positions"], "base_positions")?;
        let weights = floats(&model["weights"], "weights")?;
        let vertices = base_positions.len() / 4;
        if base_relatives.len() != 16 * bones
            || inverse_base_absolutes.len() != 16 * bones
            || base_positions.len() != 4 * vertices
            || weights.len() != bones * vertices
        {
            return Err("ht: model arrays of inconsistent sizes".into());
        }
        let triangles = indices(&model["triangles"], "triangles")?;
        let correspondences = indices(&data["correspondences"], "correspondences")?;
        let points = floats(&data["points"], "points")?;
        let us = match input.get("us") {
            Some(us) if !us.is_null() => floats(us, "us")?,
            _ => Vec::new(),
        };
        let n = correspondences.len();
        if points.len() != 3 * n || !(us.is_empty() || us.len() == 2 * n) {
            return Err("ht: points or us of the wrong size".into());
        }
        let bound = if us.is_empty() {
            vertices
        } else {
            if triangles.iter().any(|&v| v >= vertices) {
                return Err("ht: triangle vertex out of range".into());
            }
            triangles.len() / 3
        };
        if correspondences.iter().any(|&c| c >= bound) {
            return Err("ht: correspondence out of range".into());
        }
        Ok(Problem {
            model: Model {
                parents,
                base_relatives,
                inverse_base_absolutes,
                base_positions,
                weights,
                triangles,
                is_mirrored: model["is_mirrored"].as_bool().unwrap_or(false),
            },
            theta,
            correspondences,
            points,
            us,
        })
    }
}

/// The tangent with 1 in lane `k`, or zero.
fn unit<const N: usize>(k: Option<usize>) -> Lanes<f64, N> {
    let mut l = [0.0; N];
    if let Some(k) = k {
        l[k] = 1.0;
    }
    Lanes(l)
}

/// All numbers of a nested JSON array, flattened in order.
fn floats(value: &Value, name: &str) -> Result<Vec<f64>, String> {
    fn walk(v: &Value, out: &mut Vec<f64>) -> bool {
        match v {
            Value::Array(a) => a.iter().all(|x| walk(x, out)),
            Value::Number(n) => n.as_f64().map(|x| out.push(x)).is_some(),
            _ => false,
        }
    }
    let mut out = Vec::new();
    if walk(value, &mut out) {
        Ok(out)
    } else {
        Err(format!("ht: {name} is not an array of numbers"))
    }
}

/// All non-negative integers of a nested JSON array, flattened in order.
fn indices(value: &Value, name: &str) -> Result<Vec<usize>, String> {
    fn walk(v: &Value, out: &mut Vec<usize>) -> bool {
        match v {
            Value::Array(a) => a.iter().all(|x| walk(x, out)),
            Value::Number(n) => n.as_u64().map(|x| out.push(x as usize)).is_some(),
            _ => false,
        }
    }
    let mut out = Vec::new();
    if walk(value, &mut out) {
        Ok(out)
    } else {
        Err(format!("ht: {name} is not an array of indices"))
    }
}

struct Ht {
    problem: Problem,
    jacobian: bool,
    err: Vec<f64>,
    jac: (usize, Vec<f64>),
}

impl Runner for Ht {
    fn run(&mut self) {
        if self.jacobian {
            self.jac = self.problem.jacobian();
        } else {
            self.err = self.problem.objective();
        }
    }

    fn output(&self) -> Value {
        if self.jacobian {
            let (cols, jac) = &self.jac;
            Value::from(jac.chunks(*cols).map(<[f64]>::to_vec).collect::<Vec<_>>())
        } else {
            Value::from(self.err.clone())
        }
    }
}

/// Prepares `objective` or `jacobian` for the eval's input.
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let jacobian = match function {
        "objective" => false,
        "jacobian" => true,
        _ => return Err(format!("ht has no {function}")),
    };
    Ok(Box::new(Ht {
        problem: Problem::from_json(input)?,
        jacobian,
        err: Vec::new(),
        jac: (0, Vec::new()),
    }))
}
