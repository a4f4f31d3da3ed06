//! Finite-difference gradient checks, used by this crate's tests and offered to users.
//!
//! ```
//! use revad_runtime::check;
//!
//! // f(x, y) = x² y, so ∇f = (2xy, x²).
//! let f = |v: &[f64]| v[0] * v[0] * v[1];
//! let at = [3.0, 4.0];
//! check::gradient(f, &at, &[24.0, 9.0]).unwrap();
//! assert!(check::gradient(f, &at, &[24.0, 9.5]).is_err());
//! ```

use core::fmt;

/// The numerical gradient of `f` at `x` by fourth-order central differences.
///
/// Each partial uses the five-point stencil
/// `(f(x-2h) - 8 f(x-h) + 8 f(x+h) - f(x+2h)) / 12h` with `h = 1e-3 · max(1, |xᵢ|)`, whose
/// truncation error (`O(h⁴)`) and rounding error (`O(ε/h)`) are both about `1e-12` relative
/// for smooth functions of moderate curvature.
pub fn finite_difference<F: Fn(&[f64]) -> f64>(f: F, x: &[f64]) -> Vec<f64> {
    let mut point = x.to_vec();
    (0..x.len())
        .map(|i| {
            let h = 1e-3 * x[i].abs().max(1.0);
            let mut at = |offset: f64| {
                point[i] = x[i] + offset;
                let value = f(&point);
                point[i] = x[i];
                value
            };
            let (m2, m1, p1, p2) = (at(-2.0 * h), at(-h), at(h), at(2.0 * h));
            (m2 - 8.0 * m1 + 8.0 * p1 - p2) / (12.0 * h)
        })
        .collect()
}

/// Tolerances of [`gradient_with`]: a partial passes when
/// `|analytic - numeric| <= abs + rel · max(|analytic|, |numeric|)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance.
    pub rel: f64,
    /// Absolute tolerance, for partials near zero.
    pub abs: f64,
}

impl Default for Tolerance {
    /// `rel = 1e-6`, `abs = 1e-8`.
    fn default() -> Self {
        Tolerance {
            rel: 1e-6,
            abs: 1e-8,
        }
    }
}

/// The partial derivatives that disagreed in a [`gradient`] check.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// The point the gradient was checked at.
    pub at: Vec<f64>,
    /// `(index, analytic, numeric)` for each partial outside the tolerance.
    pub partials: Vec<(usize, f64, f64)>,
    /// Whether the lengths of the analytic and numerical gradients differed.
    pub length: Option<(usize, usize)>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((analytic, numeric)) = self.length {
            return write!(
                f,
                "the gradient has {analytic} partials but the function has {numeric} inputs"
            );
        }
        write!(f, "gradient mismatch at {:?}:", self.at)?;
        for &(i, a, n) in &self.partials {
            write!(f, "\n  ∂f/∂x[{i}]: analytic {a:e}, finite difference {n:e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Mismatch {}

/// Checks `analytic` against the finite-difference gradient of `f` at `x` with the default
/// [`Tolerance`].
pub fn gradient<F: Fn(&[f64]) -> f64>(f: F, x: &[f64], analytic: &[f64]) -> Result<(), Mismatch> {
    gradient_with(f, x, analytic, Tolerance::default())
}

/// Checks `analytic` against the finite-difference gradient of `f` at `x`.
pub fn gradient_with<F: Fn(&[f64]) -> f64>(
    f: F,
    x: &[f64],
    analytic: &[f64],
    tol: Tolerance,
) -> Result<(), Mismatch> {
    if analytic.len() != x.len() {
        return Err(Mismatch {
            at: x.to_vec(),
            partials: Vec::new(),
            length: Some((analytic.len(), x.len())),
        });
    }
    let numeric = finite_difference(f, x);
    let partials: Vec<(usize, f64, f64)> = analytic
        .iter()
        .zip(&numeric)
        .enumerate()
        .filter(|&(_, (&a, &n))| !close(a, n, tol))
        .map(|(i, (&a, &n))| (i, a, n))
        .collect();
    if partials.is_empty() {
        Ok(())
    } else {
        Err(Mismatch {
            at: x.to_vec(),
            partials,
            length: None,
        })
    }
}

/// Whether `a` and `b` agree within `tol` (infinities of the same sign agree).
pub fn close(a: f64, b: f64, tol: Tolerance) -> bool {
    a == b || (a - b).abs() <= tol.abs + tol.rel * a.abs().max(b.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_accurate_for_smooth_functions() {
        let g = finite_difference(|v| v[0].sin() * v[1].exp(), &[0.7, -0.3]);
        let exact = [
            0.7_f64.cos() * (-0.3_f64).exp(),
            0.7_f64.sin() * (-0.3_f64).exp(),
        ];
        for (g, e) in g.iter().zip(exact) {
            assert!((g - e).abs() < 1e-11, "{g} vs {e}");
        }
    }

    #[test]
    fn mismatch_names_the_partial() {
        let err = gradient(|v| v[0] * v[1], &[2.0, 5.0], &[5.0, 3.0]).unwrap_err();
        assert_eq!(err.partials.len(), 1);
        assert_eq!(err.partials[0].0, 1);
        assert!(err.to_string().contains("∂f/∂x[1]"));
    }

    #[test]
    fn length_mismatch_is_reported() {
        let err = gradient(|v| v[0], &[1.0, 2.0], &[1.0]).unwrap_err();
        assert_eq!(err.length, Some((1, 2)));
    }
}
