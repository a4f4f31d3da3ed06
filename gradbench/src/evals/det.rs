//! `det`: the determinant of an ℓ × ℓ matrix by expansion by minors along the first row,
//! recursively (cmpad's `det_by_minor`); `gradient` from `det_grad`.

use serde::Deserialize;
use serde_json::Value;

use super::{parse, runner, unknown_function, Runner};

/// The eval's input.
#[derive(Deserialize)]
pub struct Input {
    /// The matrix, row-major.
    #[serde(rename = "A")]
    pub a: Vec<f64>,
    /// Its order ℓ.
    pub ell: usize,
}

/// The determinant of the minor of the ℓ × ℓ matrix `a` (row-major) made of its rows
/// `row..ℓ` and of the columns not in the bit set `removed` (which has `row` bits).
///
/// Expands along the minor's first row: Σⱼ ±a[row][j] · det(minor without row, column j), the
/// sign alternating over the minor's columns.
#[revad::reverse]
pub fn minor(a: &[f64], ell: usize, row: usize, removed: u64) -> f64 {
    if row + 1 == ell {
        // One column is left: the lowest bit not in `removed`.
        let j = (!removed).trailing_zeros() as usize;
        return a[row * ell + j];
    }
    let mut det = 0.0;
    let mut positive = true;
    for j in 0..ell {
        if removed & (1 << j) == 0 {
            let term = a[row * ell + j] * minor(a, ell, row + 1, removed | (1 << j));
            if positive {
                det += term;
            } else {
                det -= term;
            }
            positive = !positive;
        }
    }
    det
}

/// The determinant of the ℓ × ℓ matrix `a` (row-major), ℓ ≤ 64.
#[revad::reverse]
pub fn det(a: &[f64], ell: usize) -> f64 {
    minor(a, ell, 0, 0)
}

/// The gradient of [`det`] in `a`, row-major.
pub fn gradient(a: &[f64], ell: usize) -> Vec<f64> {
    det_grad(a, ell).1
}

/// `primal` or `gradient` of an [`Input`].
pub fn prepare(function: &str, input: &Value) -> Result<Box<dyn Runner>, String> {
    let input: Input = parse(input)?;
    if input.ell == 0 || input.ell > 64 || input.a.len() != input.ell * input.ell {
        return Err(format!(
            "`A` must hold ℓ² numbers for 1 ≤ ℓ ≤ 64; it holds {} for ℓ = {}",
            input.a.len(),
            input.ell
        ));
    }
    match function {
        "primal" => Ok(runner(input, |i| det(&i.a, i.ell), |y| (*y).into())),
        "gradient" => Ok(runner(
            input,
            |i| gradient(&i.a, i.ell),
            |g| g.clone().into(),
        )),
        _ => Err(unknown_function("det", function)),
    }
}
