#[reverse]
fn halve(x0: f64) -> f64 {
    let mut x = x0;
    while x > 1.0 {
        x = x * 0.5;
    }
    x
}

#[reverse]
fn recurrence(x0: f64, a: f64, b: f64, n: usize) -> f64 {
    let mut x = x0;
    for _ in 0..n {
        x = x.sin() * a + x * b;
    }
    x
}

#[reverse]
fn dot(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s
}

#[reverse]
fn matvec_sum(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut acc = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            acc[i] += m[i * n + j] * x[j];
        }
    }
    let mut total = 0.0;
    for i in 0..n {
        total += acc[i];
    }
    total
}

#[reverse]
fn churn(m: &[f64], x: &[f64], n: usize) -> f64 {
    let mut acc = vec![1.0; n];
    let mut s = 0.0;
    for i in 0..n {
        for j in 1..n {
            s += acc[i] * x[j];
            acc[i] = acc[i] * 0.5 + m[j + i * n] * x[j];
            if x[j] > 0.0 {
                acc[i] += x[j - 1];
            }
        }
    }
    s
}
