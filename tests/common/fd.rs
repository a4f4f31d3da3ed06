//! Central finite differences, the reference the gradients of the integration tests are
//! compared with where no closed form is written out.

/// The central difference of `f` at `x` along every coordinate, with the step
/// `1e-6 * max(|x_i|, 1)`.
pub fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[i] += h;
            down[i] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

/// `a` and `b` have one length and agree entry by entry to `1e-6 * max(|b|, 1)`.
pub fn close_all(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (a, b) in a.iter().zip(b) {
        assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "{a} vs {b}");
    }
}
