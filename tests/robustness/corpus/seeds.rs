// Seed programs for the robustness test: valid `#[reverse]` code covering the documented
// subset, taken from the integration tests and the README. Each program starts at a line
// `//# NAME` and is placed in its own module, after `use revad::reverse;`. Every seed must
// compile with and without its attributes; the test mutates them token by token.

//# polynomial
#[reverse]
fn f(x: f64, y: f64) -> f64 {
    2.0 * x + x * x * y
}

//# piecewise
#[reverse]
fn piecewise(x: f64, k: i32) -> f64 {
    let mut s = x.sin() * x;
    if s > 0.5 {
        s = s.sqrt();
    } else {
        s *= 2.0;
    }
    s.powi(k) + f64::exp(-x)
}

//# dot3-wrt
#[reverse(wrt(w))]
fn dot3(w: [f64; 3], x: &[f64]) -> f64 {
    w[0] * x[0] + w[1] * x[1] + w[2] * x[2]
}

//# rotate
#[reverse]
fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let (ux, uy, uz, s) = (q[0], q[1], q[2], q[3]);
    let dot_uv = ux * v[0] + uy * v[1] + uz * v[2];
    let k = s * s - (ux * ux + uy * uy + uz * uz);
    let cross = [uy * v[2] - uz * v[1], uz * v[0] - ux * v[2], ux * v[1] - uy * v[0]];
    [
        2.0 * dot_uv * ux + k * v[0] + 2.0 * s * cross[0],
        2.0 * dot_uv * uy + k * v[1] + 2.0 * s * cross[1],
        2.0 * dot_uv * uz + k * v[2] + 2.0 * s * cross[2],
    ]
}

//# fanout
#[reverse]
fn fanout(x: f64) -> f64 {
    let a = x * 2.0;
    let b = a + a;
    a + a + b * b - a / 3.0
}

//# intrinsics
#[reverse]
fn intrinsics(x: f64, y: f64) -> f64 {
    let a = x.atan2(y) + x.hypot(y) + x.mul_add(y, 1.0);
    let b = y.abs().powf(1.5) + x.exp().log(2.0) + f64::sin(x) * f64::max(x, y);
    let c = x.min(y).signum() + (x % 0.7) + x.cbrt().tanh() + y.exp2().ln_1p();
    a * b - c
}

//# compound-assign
#[reverse]
fn compound(x: f64, y: f64) -> f64 {
    let mut s = x;
    s += y;
    s *= x;
    s -= 0.5 * y;
    s /= 1.0 + y * y;
    let t = -s;
    t * t
}

//# if-expression
#[reverse]
fn if_expression(x: f64, flag: bool, n: usize) -> f64 {
    let y = if flag && n > 2 { x * x } else { x.cos() };
    let z = {
        let w = y + 1.0;
        w * (n as f64)
    };
    if x < 0.0 || z > 10.0 {
        return z;
    }
    z + y
}

//# match-inactive
#[reverse]
fn match_inactive(x: f64, mode: u8) -> (f64, f64) {
    let x = x * 2.0;
    let y = match mode {
        0 => x.sin(),
        1 | 2 => x * x,
        _ => 1.0,
    };
    (x + y, y)
}

//# while
#[reverse]
fn halve_until_small(x0: f64) -> f64 {
    let mut x = x0;
    while x > 1.0 {
        x = x * 0.5;
    }
    x
}

//# loop-forms
#[reverse]
fn forms(w: &[f64], x: f64) -> f64 {
    let n = w.len();
    let mut s = 0.0;
    for i in 0..n {
        s += w[i] * x;
    }
    for i in 1..=3 {
        s += w[i] * w[i - 1];
    }
    for i in (0..n).rev() {
        s = s * 0.5 + w[i];
    }
    for i in (0..n).step_by(2) {
        s += w[i].sin();
    }
    for v in w.iter() {
        s += *v * *v;
    }
    for &v in w {
        s += v.exp() * 0.1;
    }
    for (i, &v) in w.iter().enumerate() {
        if i % 2 == 0 {
            s -= v * x;
        }
    }
    s
}

//# break-continue
#[reverse]
fn break_and_continue(x: f64, limit: f64) -> f64 {
    let mut s = x;
    let mut k = 0;
    loop {
        k += 1;
        if k % 3 == 0 {
            continue;
        }
        s = s * 1.1 + x.sin();
        if s > limit {
            break;
        }
        if k > 50 {
            break;
        }
    }
    s
}

//# early-return
#[reverse]
fn first_crossing(w: &[f64], threshold: f64) -> f64 {
    let mut acc = 0.0;
    for i in 0..w.len() {
        acc += w[i] * w[i];
        if acc > threshold {
            return acc.sqrt();
        }
    }
    -acc
}

//# nested-loops
#[reverse]
fn nested_with_branches(w: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut row = 0.0;
        for j in 0..n {
            let v = w[i * n + j];
            if v > 0.0 {
                row += v * v;
            } else {
                row -= v.sin();
            }
        }
        total += row.tanh() * (i as f64 + 1.0);
    }
    total
}

//# local-arrays
#[reverse]
fn local_arrays(x: &[f64]) -> f64 {
    let mut h = [0.0; 8];
    for i in 0..8 {
        h[i] = x[i % x.len()] * (i as f64 + 1.0);
    }
    for i in 1..8 {
        h[i] = h[i] * 0.5 + h[i - 1].sin();
    }
    let mut acc = vec![0.0; x.len()];
    for i in 0..x.len() {
        acc[i] += h[i % 8] * x[i];
    }
    acc[0] + h[7]
}

//# vec-output
#[reverse]
fn cumulative(x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    let mut running = 0.0;
    for i in 0..x.len() {
        running = running * 0.9 + x[i];
        out[i] = running.sin();
    }
    out
}

//# softmax-wrt
#[reverse(wrt(logits))]
fn softmax_cross_entropy(logits: &[f64], label: usize) -> f64 {
    let mut max = logits[0];
    for i in 1..logits.len() {
        max = max.max(logits[i]);
    }
    let mut sum = 0.0;
    for i in 0..logits.len() {
        sum += (logits[i] - max).exp();
    }
    sum.ln() + max - logits[label]
}

//# vec-params
#[reverse]
fn vec_params(a: Vec<f64>, b: &Vec<f64>, c: [f64; 2]) -> f64 {
    let mut s = c[0] * c[1];
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

//# closure-map-sum
#[reverse]
fn map_sum_captures_w(xs: &[f64], w: f64) -> f64 {
    xs.iter().map(|x| x * w).sum::<f64>()
}

//# closure-fold
#[reverse]
fn fold_with_scale(xs: &[f64], scale: f64) -> f64 {
    xs.iter().fold(1.0, |acc, &x| acc * (1.0 + scale * x))
}

//# iterator-chains
#[reverse]
fn zipped(xs: &[f64], ys: &[f64]) -> f64 {
    let dot: f64 = xs.iter().zip(ys).map(|(x, y)| x * y).sum();
    let weighted = xs.iter().enumerate().map(|(i, &x)| x * (i as f64 + 1.0)).sum::<f64>();
    let positive: f64 = ys.iter().filter(|y| **y > 0.0).map(|y| y.exp()).sum();
    dot.sin() + weighted + positive
}

//# collect
#[reverse]
fn collect_then_use(xs: &[f64], k: f64) -> Vec<f64> {
    let scaled: Vec<f64> = xs.iter().map(|x| (x * k).tanh()).collect();
    (0..scaled.len()).map(|i| scaled[i] * scaled[i]).collect::<Vec<f64>>()
}

//# let-closures
#[reverse]
fn let_bound_closures(x: f64, y: f64) -> f64 {
    let scale = x * 2.0;
    let f = |t: f64| t * scale + y;
    let g = |t: f64| f(t).sin() * f(t + 1.0);
    g(x) + f(y)
}

//# for-each
#[reverse]
fn for_each_accumulates(xs: &[f64]) -> f64 {
    let mut total = 0.0;
    xs.iter().for_each(|x| total += x.sqrt());
    total
}

//# calls
mod shapes {
    use revad::reverse;

    #[reverse]
    pub fn h(x: f64) -> f64 {
        x.sin() * x
    }
}

#[reverse]
fn g(a: f64, b: f64) -> f64 {
    a * b + a.exp()
}

#[reverse]
fn composed(x: f64, w: &[f64]) -> f64 {
    g(shapes::h(x), x) + self::shapes::h(w[0])
}

//# recursion
#[reverse]
fn pow_rec(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * pow_rec(x, n - 1)
    }
}

//# mutual-recursion
#[reverse]
fn is_even_weighted(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        is_odd_weighted(x * 1.5, n - 1).sin()
    }
}

#[reverse]
fn is_odd_weighted(x: f64, n: u32) -> f64 {
    if n == 0 {
        x * x
    } else {
        is_even_weighted(x - 0.25, n - 1) * x
    }
}

//# tree
#[reverse]
fn tree(values: &[f64], leaves: &[f64], i: usize) -> f64 {
    if i >= values.len() {
        leaves[i - values.len()]
    } else {
        values[i] * tree(values, leaves, 2 * i + 1) * tree(values, leaves, 2 * i + 2)
    }
}

//# custom-derivative
#[revad::derivative(vjp = solve_pullback)]
fn solve(a: f64) -> f64 {
    let mut y = a.cbrt();
    for _ in 0..50 {
        y -= (y * y * y + y - a) / (3.0 * y * y + 1.0);
    }
    y
}

fn solve_pullback(_a: f64, y: f64, seed: f64) -> f64 {
    seed / (3.0 * y * y + 1.0)
}

#[reverse]
fn solve_twice(a: f64, b: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..3 {
        total += solve(a * (i as f64 + 1.0)) * b;
    }
    total
}

//# f32
#[reverse]
fn recurrence32(x0: f32, a: f32, n: usize) -> f32 {
    let mut x = x0;
    for _ in 0..n {
        x = x.sin() * a + x * 0.9;
        if x > 0.8 {
            x = x.sqrt();
        }
    }
    x + f32::exp(-a) * 2.0_f32
}

//# mut-out-param
#[reverse]
fn accumulate(x: &[f64], acc: &mut f64) {
    for i in 0..x.len() {
        *acc += x[i] * x[i];
    }
    *acc = *acc * 0.5;
}

//# mut-slice-iter-mut
#[reverse]
fn scale_into(x: &[f64], k: f64, y: &mut [f64]) -> f64 {
    for (yi, xi) in y.iter_mut().zip(x.iter()) {
        *yi = k * xi * xi;
    }
    for (i, v) in y.iter_mut().enumerate() {
        *v += i as f64 * k;
    }
    y[0] + y[1]
}

//# mut-array-and-vec
#[reverse]
fn normalize_into(v: &mut [f64; 3], w: &mut Vec<f64>) -> f64 {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    for i in 0..3 {
        v[i] /= n;
        w[i] += v[i];
    }
    for e in v.iter_mut() {
        *e *= 2.0;
    }
    n
}

//# mut-arguments
#[reverse]
fn fill(out: &mut [f64; 3], x: f64) {
    for i in 0..3 {
        out[i] = x * (i as f64 + 1.0);
    }
}

#[reverse]
fn bump(acc: &mut f64, x: f64) -> f64 {
    *acc += x * x;
    x.sin()
}

#[reverse]
fn step(state: &mut [f64], dt: f64) -> f64 {
    let x = state[0];
    state[0] = x + dt * state[1];
    state[1] = state[1] - dt * x;
    x
}

#[reverse]
fn energy(state: &[f64]) -> f64 {
    state[0] * state[0] + state[1] * state[1]
}

#[reverse]
fn driver(x: f64, y: f64, s: &mut [f64], o: &mut f64) -> f64 {
    let mut buf = [0.0; 3];
    fill(&mut buf, x);
    let mut acc = y;
    let t = bump(&mut acc, x);
    let u = bump(&mut *o, t);
    step(s, 0.1);
    let e = step(s, 0.1);
    buf[0] + buf[2] * acc + u + e + energy(&*s)
}

//# call-results
#[reverse]
fn mix(v: [f64; 3]) -> [f64; 3] {
    [v[0] * 2.0, v[1] * v[2], v[2].sin()]
}

#[reverse]
fn squares(w: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; w.len()];
    for i in 0..w.len() {
        out[i] = w[i] * w[i];
    }
    out
}

#[reverse]
fn sincos(x: f64) -> (f64, f64) {
    (x.sin(), x.cos())
}

#[reverse]
fn results(v: [f64; 3], w: &[f64]) -> f64 {
    let m = mix(v);
    let sq = squares(w);
    let (s, c) = sincos(m[0]);
    let mut t = s * c;
    for x in sq.iter() {
        t += x.sqrt();
    }
    let typed: [f64; 3] = mix(m);
    t + typed[1] + sq.len() as f64
}

#[reverse]
fn returned(v: [f64; 3]) -> [f64; 3] {
    let out = mix(v);
    out
}

//# array-argument-modified-after
#[reverse]
fn dot(w: &[f64], v: &[f64]) -> f64 {
    w[0] * v[0] + w[1] * v[1]
}

#[reverse]
fn modified_after(x: f64) -> f64 {
    let mut h = [0.0; 2];
    h[0] = x;
    h[1] = x * x;
    let t = dot(&h, &h);
    h[1] = t;
    h[1] * x + dot(&h, &h)
}
