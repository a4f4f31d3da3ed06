// A function's last loop, fused: each iteration's reverse runs right after its forward, in
// `NAME_vjp` (the split companions keep two sweeps). Returned as it is (the seed is the
// accumulator's adjoint); followed by more work (the loop's reverse runs with the
// accumulator's adjoint 1, then what it added is multiplied: in place, or through an adjoint
// of its own for a variable the statements after the loop also read); not fused (the
// accumulator feeds the loop).
use revad::reverse;

#[reverse]
fn dot(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s
}

#[reverse]
fn mean_square(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] * w).powi(2);
    }
    s / x.len() as f64
}

#[reverse]
fn log_sum_exp(x: &[f64]) -> f64 {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] - m).exp();
    }
    m + s.ln()
}

#[reverse]
fn compound(x: &[f64], r: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += s * r + x[i];
    }
    s
}

// An inner loop whose reverse runs in its forward too: what follows it in the iteration only
// passes its accumulator's adjoint on (`total += s`), so that adjoint is known before it runs;
// one pass over each row, its slices of `m`, `x` and their adjoints taken once.
#[reverse(wrt(m, x))]
fn row_sums(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut s = 0.0;
        for j in 0..n {
            s += m[i * n + j] * x[j];
        }
        total += s;
    }
    total
}

// What follows the inner loop reads its result (`s * s`): it is walked again by its reverse.
#[reverse(wrt(m, x))]
fn row_squares(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut s = 0.0;
        for j in 0..n {
            s += m[i * n + j] * x[j];
        }
        total += s * s;
    }
    total
}

// `acc[i] += ..` in a double loop, then `acc.iter().sum()`: the sum's reverse runs first (it
// reads `acc.len()` only, which element writes do not change), then the double loop fused.
#[reverse(wrt(m, x))]
fn accumulated_then_summed(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut acc = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            acc[i] += m[i * n + j] * x[j];
        }
    }
    acc.iter().sum::<f64>()
}
