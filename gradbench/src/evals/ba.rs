//! `ba`: bundle adjustment (ADBench). Each observation's reprojection error depends on one
//! camera (11 parameters), one point (3) and one weight (1), and each weight error on one
//! weight: the Jacobian is sparse, assembled in compressed-row order from one pair of
//! vector-Jacobian products (one per residual row) of each observation's error, and the
//! derivative of each weight error.

use super::Runner;
use revad::reverse;
use serde_json::{json, Value};

/// Parameters of a camera: Rodrigues rotation (3), centre (3), focal length, principal point
/// (2), radial distortion (2).
const CAM: usize = 11;
/// Nonzeros in one row of an observation's reprojection block: camera, point, weight.
const BLOCK: usize = CAM + 3 + 1;

/// The weighted reprojection error of the point `x` seen by the camera `cam` at `feat`.
#[reverse(wrt(cam, x, w))]
pub fn reprojection_error(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [f64; 2] {
    // The point relative to the camera centre, rotated by the angle-axis vector cam[0..3].
    let p = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let sqtheta = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
    let mut r = [0.0; 3];
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let (s, c) = (theta.sin(), theta.cos());
        let inv = 1.0 / theta;
        let a = [cam[0] * inv, cam[1] * inv, cam[2] * inv];
        let cross = [
            a[1] * p[2] - a[2] * p[1],
            a[2] * p[0] - a[0] * p[2],
            a[0] * p[1] - a[1] * p[0],
        ];
        let t = (a[0] * p[0] + a[1] * p[1] + a[2] * p[2]) * (1.0 - c);
        r[0] = p[0] * c + cross[0] * s + a[0] * t;
        r[1] = p[1] * c + cross[1] * s + a[1] * t;
        r[2] = p[2] * c + cross[2] * s + a[2] * t;
    } else {
        r[0] = p[0] + (cam[1] * p[2] - cam[2] * p[1]);
        r[1] = p[1] + (cam[2] * p[0] - cam[0] * p[2]);
        r[2] = p[2] + (cam[0] * p[1] - cam[1] * p[0]);
    }
    // Perspective division, radial distortion, focal length and principal point.
    let (u, v) = (r[0] / r[2], r[1] / r[2]);
    let rsq = u * u + v * v;
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let proj0 = u * l * cam[6] + cam[7];
    let proj1 = v * l * cam[6] + cam[8];
    [w * (proj0 - feat[0]), w * (proj1 - feat[1])]
}

/// The weight error 1 − w².
#[reverse]
pub fn weight_error(w: f64) -> f64 {
    1.0 - w * w
}

/// The problem, expanded from the eval's one camera, point, weight and feature.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Cameras.
    pub n: usize,
    /// Points.
    pub m: usize,
    /// Observations.
    pub p: usize,
    /// `n` cameras.
    pub cams: Vec<[f64; 11]>,
    /// `m` points.
    pub x: Vec<[f64; 3]>,
    /// `p` weights.
    pub w: Vec<f64>,
    /// `p` (camera, point) pairs.
    pub obs: Vec<(usize, usize)>,
    /// `p` features.
    pub feats: Vec<[f64; 2]>,
}

impl Problem {
    /// Expands the eval's input as GradBench does: observation i sees camera i mod n and point
    /// i mod m.
    pub fn from_json(input: &Value) -> Result<Problem, String> {
        let int = |k: &str| {
            input[k]
                .as_u64()
                .map(|v| v as usize)
                .ok_or_else(|| format!("ba: missing {k}"))
        };
        let floats = |k: &str| -> Result<Vec<f64>, String> {
            input[k]
                .as_array()
                .ok_or_else(|| format!("ba: missing {k}"))?
                .iter()
                .map(|v| v.as_f64().ok_or_else(|| format!("ba: {k} not numbers")))
                .collect()
        };
        let (n, m, p) = (int("n")?, int("m")?, int("p")?);
        let cam: [f64; 11] = floats("cam")?
            .try_into()
            .map_err(|_| "ba: cam needs 11 numbers")?;
        let x: [f64; 3] = floats("x")?
            .try_into()
            .map_err(|_| "ba: x needs 3 numbers")?;
        let feat: [f64; 2] = floats("feat")?
            .try_into()
            .map_err(|_| "ba: feat needs 2 numbers")?;
        let w = input["w"].as_f64().ok_or("ba: missing w")?;
        if n == 0 || m == 0 || p == 0 {
            return Err("ba: n, m, p must be positive".into());
        }
        Ok(Problem {
            n,
            m,
            p,
            cams: vec![cam; n],
            x: vec![x; m],
            w: vec![w; p],
            obs: (0..p).map(|i| (i % n, i % m)).collect(),
            feats: vec![feat; p],
        })
    }

    /// The reprojection errors (2 per observation) and weight errors (1 per observation).
    pub fn objective(&self, reproj: &mut [f64], w_err: &mut [f64]) {
        for (i, &(c, q)) in self.obs.iter().enumerate() {
            let e = reprojection_error(self.cams[c], self.x[q], self.w[i], self.feats[i]);
            reproj[2 * i] = e[0];
            reproj[2 * i + 1] = e[1];
        }
        for (e, &w) in w_err.iter_mut().zip(&self.w) {
            *e = weight_error(w);
        }
    }

    /// The Jacobian in compressed-row form: the 2p reprojection rows (each the camera's 11
    /// columns, the point's 3, the weight's 1), then the p weight rows.
    pub fn jacobian(&self, jac: &mut Sparse) {
        jac.clear();
        let point_col = CAM * self.n;
        let weight_col = point_col + 3 * self.m;
        for (i, &(c, q)) in self.obs.iter().enumerate() {
            for seed in [[1.0, 0.0], [0.0, 1.0]] {
                let (_, (dcam, dx, dw)) =
                    reprojection_error_vjp(self.cams[c], self.x[q], self.w[i], self.feats[i], seed);
                jac.cols.extend((0..CAM).map(|k| (CAM * c + k) as i64));
                jac.vals.extend_from_slice(&dcam);
                jac.cols
                    .extend((0..3).map(|k| (point_col + 3 * q + k) as i64));
                jac.vals.extend_from_slice(&dx);
                jac.cols.push((weight_col + i) as i64);
                jac.vals.push(dw);
                jac.rows.push(jac.vals.len() as i64);
            }
        }
        for (i, &w) in self.w.iter().enumerate() {
            let (_, dw) = weight_error_grad(w);
            jac.cols.push((weight_col + i) as i64);
            jac.vals.push(dw);
            jac.rows.push(jac.vals.len() as i64);
        }
    }
}

/// A sparse matrix in compressed-row form (`rows` has one more entry than there are rows).
#[derive(Clone, Debug, Default)]
pub struct Sparse {
    /// Where each row starts in `cols` and `vals`, and the total at the end.
    pub rows: Vec<i64>,
    /// The column of each nonzero.
    pub cols: Vec<i64>,
    /// The value of each nonzero.
    pub vals: Vec<f64>,
}

impl Sparse {
    fn clear(&mut self) {
        self.rows.clear();
        self.cols.clear();
        self.vals.clear();
        self.rows.push(0);
    }

    /// The eval's output: the first 30 entries of each list and its last one.
    pub fn to_json(&self) -> Value {
        let head = 2 * BLOCK;
        fn cut<T: Copy + Into<Value>>(v: &[T], head: usize) -> Value {
            let mut out: Vec<Value> = v.iter().take(head).map(|&x| x.into()).collect();
            if let Some(&last) = v.last() {
                out.push(last.into());
            }
            Value::from(out)
        }
        json!({
            "rows": cut(&self.rows, head),
            "cols": cut(&self.cols, head),
            "vals": cut(&self.vals, head),
        })
    }
}

struct Ba {
    problem: Problem,
    jacobian: bool,
    reproj: Vec<f64>,
    w_err: Vec<f64>,
    jac: Sparse,
}

impl Runner for Ba {
    fn run(&mut self) {
        if self.jacobian {
            self.problem.jacobian(&mut self.jac);
        } else {
            self.problem.objective(&mut self.reproj, &mut self.w_err);
        }
    }

    fn output(&self) -> Value {
        if self.jacobian {
            self.jac.to_json()
        } else {
            json!({
                "reproj_error": {"elements": [self.reproj[0], self.reproj[1]], "repeated": self.problem.p},
                "w_err": {"element": self.w_err[0], "repeated": self.problem.p},
            })
        }
    }
}

/// Prepares `objective` or `jacobian` for the eval's input.
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let jacobian = match function {
        "objective" => false,
        "jacobian" => true,
        _ => return Err(format!("ba has no {function}")),
    };
    let problem = Problem::from_json(input)?;
    let p = problem.p;
    let mut jac = Sparse::default();
    if jacobian {
        jac.rows.reserve(3 * p + 1);
        jac.cols.reserve((2 * BLOCK + 1) * p);
        jac.vals.reserve((2 * BLOCK + 1) * p);
    }
    Ok(Box::new(Ba {
        problem,
        jacobian,
        reproj: vec![0.0; 2 * p],
        w_err: vec![0.0; p],
        jac,
    }))
}
