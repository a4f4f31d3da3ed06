#[reverse]
fn window_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += w[0] * w[1];
    }
    s
}

#[reverse]
fn chunked_dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (cx, cy) in x.chunks(4).zip(y.chunks(4)) {
        for i in 0..cx.len() {
            s += cx[i] * cy[i];
        }
    }
    s
}

#[reverse]
fn horner(c: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for ci in c.iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

#[reverse]
fn tail_and_halves(x: &[f64]) -> f64 {
    let tail = &x[1..];
    let (l, r) = x.split_at(2);
    tail[0] * l[1] + r[0]
}

#[reverse]
fn copy_and_write(x: &[f64]) -> f64 {
    let mut buf = [0.0; 4];
    buf[1..3].copy_from_slice(&x[..2]);
    let v = &mut buf[2..];
    v[1] = x[2] * 2.0;
    buf[1] * buf[2] + buf[3]
}

const WEIGHTS: [f64; 3] = [0.5, 1.5, 2.0];

#[reverse]
fn weighted(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (w, v) in WEIGHTS.iter().zip(x) {
        s += w * v;
    }
    s
}

#[reverse]
fn windows_chain(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum::<f64>()
}
