//! Gradients of the random programs of `build.rs`: each generated `_grad` must return the
//! primal value exactly and a gradient that agrees with finite differences
//! (`ad::check::gradient`) wherever the program is smooth.

use ad::check;
use ad_random_programs::{COUNT, PROGRAMS, SOURCES, TRACED};
use proptest::prelude::*;

/// What checking one program at one point did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Value and gradient checked.
    Checked,
    /// Value checked; the finite-difference stencil straddles a branch or kink of the
    /// program, so the gradient was not compared.
    Straddles,
}

/// The step `ad::check::finite_difference` uses for coordinate `x`.
fn step(x: f64) -> f64 {
    1e-3 * x.abs().max(1.0)
}

/// Whether some point of the finite-difference stencil around `x` (±2 steps in each
/// coordinate, sampled at half steps out to ±3 for margin) takes a different branch, kink
/// side or step value than `x` itself.
fn straddles(traced: fn(f64, f64, f64) -> (f64, Vec<f64>), x: [f64; 3], trace: &[f64]) -> bool {
    (0..3).any(|i| {
        (-6..=6).filter(|&j| j != 0).any(|j| {
            let mut p = x;
            p[i] += f64::from(j) * step(x[i]) / 2.0;
            traced(p[0], p[1], p[2]).1 != trace
        })
    })
}

/// Checks program `k` at `x`; the error names the program and prints its source.
fn check_program(k: usize, x: [f64; 3]) -> Result<Outcome, String> {
    let (name, f, grad) = PROGRAMS[k];
    let fail = |what: String| format!("{name} at {x:?}: {what}\n{}", SOURCES[k]);
    let primal = f(x[0], x[1], x[2]);
    let (value, (d0, d1, d2)) = grad(x[0], x[1], x[2]);
    if value.to_bits() != primal.to_bits() {
        return Err(fail(format!(
            "{name}_grad returns the value {value:e}, the primal is {primal:e}"
        )));
    }
    let (mirrored, trace) = TRACED[k](x[0], x[1], x[2]);
    if mirrored.to_bits() != primal.to_bits() {
        return Err(fail(format!(
            "the traced mirror returns {mirrored:e}, the primal {primal:e} (a generator bug)"
        )));
    }
    if straddles(TRACED[k], x, &trace) {
        return Ok(Outcome::Straddles);
    }
    check::gradient(|v| f(v[0], v[1], v[2]), &x, &[d0, d1, d2]).map_err(|e| fail(e.to_string()))?;
    Ok(Outcome::Checked)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn gradients_agree_with_finite_differences(
        x0 in -2.0..2.0f64,
        x1 in -2.0..2.0f64,
        x2 in -2.0..2.0f64,
    ) {
        for k in 0..PROGRAMS.len() {
            if let Err(e) = check_program(k, [x0, x1, x2]) {
                prop_assert!(false, "{}", e);
            }
        }
    }
}

#[test]
fn every_program_at_fixed_points() {
    let points = [[0.3, -0.7, 1.1], [-1.3, 0.9, -0.2], [1.7, 1.2, -1.6]];
    let mut failures = Vec::new();
    let mut straddling = Vec::new();
    for x in points {
        for (k, &(name, _, _)) in PROGRAMS.iter().enumerate() {
            match check_program(k, x) {
                Ok(Outcome::Checked) => {}
                Ok(Outcome::Straddles) => straddling.push((name, x)),
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // A straddled point is skipped; if many were, the test would test little.
    assert!(
        straddling.len() <= points.len() * PROGRAMS.len() / 20,
        "too many points straddle a kink: {straddling:?}"
    );
}

#[test]
fn the_corpus_has_the_intended_size_and_shape() {
    assert_eq!(COUNT, 60);
    assert_eq!(PROGRAMS.len(), COUNT);
    assert_eq!(SOURCES.len(), COUNT);
    assert_eq!(TRACED.len(), COUNT);
    for (k, ((name, _, _), source)) in PROGRAMS.iter().zip(SOURCES).enumerate() {
        assert_eq!(*name, format!("p_{k}"));
        assert!(source.contains(&format!(
            "pub fn {name}(x0: f64, x1: f64, x2: f64) -> f64 {{"
        )));
    }
}

/// Every construct the generator promises appears somewhere in the corpus.
#[test]
fn the_corpus_covers_the_constructs() {
    let all = SOURCES.concat();
    let constructs = [
        "let mut ",
        " += ",
        " -= ",
        " *= ",
        " /= ",
        ": f64 = ",
        "if ",
        "} else {",
        " / ",
        " - ",
        " * ",
        " = -",
        "f64::",
        ".sin()",
        ".cos()",
        ".tan()",
        ".tanh()",
        ".atan()",
        ".exp()",
        ".ln()",
        ".sqrt()",
        ".powi(",
        ".powf(",
        ".max(",
        ".min(",
        ".mul_add(",
        ".hypot(",
        ".atan2(",
        ".abs()",
        ".log(",
        "let b",
    ];
    for c in constructs {
        assert!(all.contains(c), "no program contains `{c}`");
    }
    // Shadowing: some `let NAME = ...` whose right-hand side reads NAME.
    let shadows = all.lines().any(|l| {
        let l = l.trim_start();
        l.strip_prefix("let ")
            .and_then(|rest| rest.split_once(" = "))
            .is_some_and(|(name, rhs)| {
                rhs.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|word| word == name.trim_start_matches("mut "))
            })
    });
    assert!(shadows, "no program shadows a variable");
}
