//! `particle`: the four mode combinations agree, match GradBench's answer, and their slope
//! matches central differences of the miss distance.

use revad_gradbench::evals::particle::{
    argmin, combination, miss_inner_forward, miss_inner_reverse,
};

/// GradBench's expected final control from w = 0.
const EXPECTED: f64 = 0.2071918746486116;

#[test]
fn four_combinations_reach_the_known_answer() {
    for name in ["ff", "fr", "rf", "rr"] {
        let w = argmin(combination(name).unwrap(), 0.0);
        assert!((w - EXPECTED).abs() < 1e-12, "{name}: {w}");
    }
}

#[test]
fn slopes_match_finite_differences() {
    let h = 1e-6;
    for w in [0.0, 0.1, 0.25] {
        let fd_r = (miss_inner_reverse(w + h) - miss_inner_reverse(w - h)) / (2.0 * h);
        let fd_f = (miss_inner_forward(w + h) - miss_inner_forward(w - h)) / (2.0 * h);
        for name in ["ff", "fr", "rf", "rr"] {
            let (value, slope) = combination(name).unwrap()(w);
            let (primal, fd) = if name.ends_with('r') {
                (miss_inner_reverse(w), fd_r)
            } else {
                (miss_inner_forward(w), fd_f)
            };
            assert_eq!(value.to_bits(), primal.to_bits(), "{name}");
            assert!(
                (slope - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                "{name} at {w}: {slope} vs {fd}"
            );
        }
    }
}
