//! `ode`: the gradient of the last element against finite differences, the primal against
//! RK4 written with one array per stage (as the eval's reference is), and the outputs through
//! `prepare`.

mod common;

use common::{check_gradient, evaluate, numbers, Numbers};
use revad_gradbench::evals::ode::{gradient, primal};
use serde_json::json;

/// RK4 with arrays k1..k4 and a temporary y, stage by stage.
fn reference(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let h = 2.0 / s as f64;
    let f = |y: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|i| if i == 0 { x[0] } else { x[i] * y[i - 1] })
            .collect()
    };
    let mut y = vec![0.0; n];
    for _ in 0..s {
        let k1 = f(&y);
        let y1: Vec<f64> = (0..n).map(|i| y[i] + h * k1[i] / 2.0).collect();
        let k2 = f(&y1);
        let y2: Vec<f64> = (0..n).map(|i| y[i] + h * k2[i] / 2.0).collect();
        let k3 = f(&y2);
        let y3: Vec<f64> = (0..n).map(|i| y[i] + h * k3[i]).collect();
        let k4 = f(&y3);
        for i in 0..n {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y
}

#[test]
fn primal_is_rk4() {
    let x = Numbers::new(1).vec(9, 0.0, 1.0);
    for s in [1, 2, 10] {
        assert_eq!(primal(&x, s), reference(&x, s), "s = {s}");
    }
    // With many steps, close to the exact solution's last element, x₀ Πᵢ xᵢ 2ⁿ / n!.
    let x = [0.5, 0.75, 1.5];
    let exact = 0.5 * 0.75 * 1.5 * 8.0 / 6.0;
    assert!((primal(&x, 100)[2] - exact).abs() < 1e-9);
}

#[test]
fn gradient_of_the_last_element_matches_finite_differences() {
    for (seed, n, s) in [(2, 1, 1), (3, 2, 3), (4, 7, 5)] {
        let x = Numbers::new(seed).vec(n, 0.0, 1.0);
        let last = |x: &[f64]| *primal(x, s).last().unwrap();
        check_gradient(last, &x, &gradient(&x, s), 1e-7);
    }
}

#[test]
fn outputs_through_prepare() {
    let input = json!({ "x": [0.2, 0.4, 0.6, 0.8], "s": 3, "min_runs": 1, "min_seconds": 0 });
    assert_eq!(
        numbers(&evaluate("ode", "primal", &input)),
        primal(&[0.2, 0.4, 0.6, 0.8], 3)
    );
    assert_eq!(numbers(&evaluate("ode", "gradient", &input)).len(), 4);
}
