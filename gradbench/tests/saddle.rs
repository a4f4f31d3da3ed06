//! `saddle`: the four mode combinations agree with GradBench's answer, and the outer gradient
//! (through the inner ascent) matches central differences of the outer objective.

use revad_gradbench::evals::saddle::{
    max_inner_forward, max_inner_forward_grad, max_inner_forward_jvp, max_inner_reverse,
    max_inner_reverse_grad, max_inner_reverse_jvp, saddle,
};

/// GradBench's expected saddle from (1, 1): every coordinate.
const EXPECTED: f64 = 8.246324826140356e-06;

#[test]
fn four_combinations_reach_the_known_answer() {
    for name in ["ff", "fr", "rf", "rr"] {
        let s = saddle(name, [1.0, 1.0]).unwrap();
        for v in s {
            assert!((v - EXPECTED).abs() < 1e-15, "{name}: {s:?}");
        }
    }
    assert!(saddle("xx", [1.0, 1.0]).is_none());
}

#[test]
fn outer_gradients_match_finite_differences() {
    let start = [1.0, 1.0];
    let h = 1e-6;
    for x in [[0.5, -0.3], [0.9, 0.8], [-0.2, 0.4]] {
        let fd = |f: fn([f64; 2], [f64; 2]) -> f64, k: usize| {
            let (mut up, mut down) = (x, x);
            up[k] += h;
            down[k] -= h;
            (f(up, start) - f(down, start)) / (2.0 * h)
        };
        let fd_r = [fd(max_inner_reverse, 0), fd(max_inner_reverse, 1)];
        let fd_f = [fd(max_inner_forward, 0), fd(max_inner_forward, 1)];
        let rr = max_inner_reverse_grad(x, start).1;
        let rf = max_inner_forward_grad(x, start).1;
        let fr = [
            max_inner_reverse_jvp(x, start, [1.0, 0.0]).1,
            max_inner_reverse_jvp(x, start, [0.0, 1.0]).1,
        ];
        let ff = [
            max_inner_forward_jvp(x, start, [1.0, 0.0]).1,
            max_inner_forward_jvp(x, start, [0.0, 1.0]).1,
        ];
        for (name, g, reference) in [
            ("rr", rr, fd_r),
            ("fr", fr, fd_r),
            ("rf", rf, fd_f),
            ("ff", ff, fd_f),
        ] {
            for k in 0..2 {
                assert!(
                    (g[k] - reference[k]).abs() <= 1e-5 * (1.0 + reference[k].abs()),
                    "{name} at {x:?}: {g:?} vs {reference:?}"
                );
            }
        }
    }
}
