//! probe
#![allow(missing_docs)]
use ad::reverse;

const W: [f64; 3] = [1.0, 2.0, 3.0];
static S: [f64; 3] = [0.5, 0.25, 0.125];

#[reverse]
fn int_assign(x: &[f64]) -> f64 {
    let mut count = 0;
    let mut k = 0usize;
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            count = count + 1;
        }
        k = k + 1;
        let idx = i;
        s += x[idx] * (k as f64);
    }
    count = 0;
    s + count as f64
}

#[reverse]
fn perm_gather(x: &[f64]) -> f64 {
    let idx = [0usize, 2, 1];
    let mut s = 0.0;
    for k in 0..3 {
        s += x[idx[k]] * (k as f64 + 1.0);
    }
    s
}

#[reverse]
fn perm_param(x: &[f64], p: &[usize]) -> f64 {
    let mut s = 0.0;
    for k in 0..p.len() {
        s += x[p[k]] * x[k];
    }
    s
}

#[reverse]
fn perm_vec(x: &[f64]) -> f64 {
    let perm: Vec<usize> = (0..x.len()).rev().collect();
    let p2 = vec![2usize, 1, 0];
    let mut s = 0.0;
    for k in 0..x.len() {
        s += x[perm[k]] * (k as f64) + x[p2[k]];
    }
    s
}

#[reverse]
fn tail_if(x: f64) -> f64 {
    let y = x * x;
    if y > 1.0 {
        return y.sin();
    } else {
        return y.cos();
    }
}

#[reverse]
fn const_table(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += W[i] * x[i];
    }
    s
}

#[reverse]
fn const_ref(x: &[f64]) -> f64 {
    let w = &W;
    let mut s = 0.0;
    for i in 0..3 {
        s += w[i] * x[i];
    }
    s
}

#[reverse]
fn const_zip(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (wi, xi) in W.iter().zip(x) {
        s += wi * xi;
    }
    s
}

#[reverse]
fn static_table(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += S[i] * x[i];
    }
    s
}

#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[reverse]
fn dot_self(a: &[f64]) -> f64 {
    dot(a, a)
}

#[reverse]
fn dot_arr(a: [f64; 3]) -> f64 {
    dot(&a, &a) + dot(&a[1..], &a[..2])
}

#[reverse]
fn widen(x: f32) -> f64 {
    (x as f64).sin() * 2.0
}

#[reverse]
fn narrow(x: f32) -> f32 {
    (widen(x) * 3.0) as f32 + x
}

#[reverse]
fn windows_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(3) {
        s += w[0] * w[1] * w[2];
    }
    s
}

#[reverse]
fn chunk_dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (cx, cy) in x.chunks(2).zip(y.chunks(2)) {
        let _ = cy.len();
        for i in 0..cx.len() {
            s += cx[i] * cx[i];
        }
    }
    s
}

#[reverse]
fn chunk_dot2(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, c) in x.chunks(2).enumerate() {
        let t: f64 = c.iter().map(|v| v * v).sum();
        s += t * (k as f64 + 1.0);
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
fn halves(x: &[f64]) -> f64 {
    let (l, r) = x.split_at(2);
    let mut s = 0.0;
    for i in 0..l.len() {
        s += l[i] * r[i];
    }
    s + r[r.len() - 1]
}

#[reverse]
fn copy_reduce(x: &[f64]) -> f64 {
    let mut buf = [0.0; 4];
    buf[1..3].copy_from_slice(&x[0..2]);
    let mut b2 = vec![0.0; x.len()];
    b2.copy_from_slice(x);
    buf[0] * 2.0 + buf[1] * buf[2] + b2[2]
}

#[reverse]
fn mut_view(x: &[f64]) -> f64 {
    let mut h = vec![0.0; 4];
    let v = &mut h[1..3];
    v[0] = x[0] * x[1];
    v[1] += x[2];
    h[1] + h[2] * h[1]
}

#[test]
fn probe() {
    let x = [1.0, -2.0, 3.0];
    let x4 = [1.0, -2.0, 3.0, 0.5];
    println!("{:?}", int_assign_grad(&x));
    println!("{:?}", perm_gather_grad(&x));
    println!("{:?}", perm_param_grad(&x, &[2, 0, 1]));
    println!("{:?}", perm_vec_grad(&x));
    println!("{:?}", tail_if_grad(0.5));
    println!("{:?}", const_table_grad(&x));
    println!("{:?}", const_ref_grad(&x));
    println!("{:?}", const_zip_grad(&x));
    println!("{:?}", static_table_grad(&x));
    println!("{:?}", dot_self_grad(&x));
    println!("{:?}", dot_arr_grad(x));
    println!("{:?}", narrow_grad(0.3));
    println!("{:?}", windows_sum_grad(&x4));
    println!("{:?}", chunk_dot_grad(&x, &x4));
    println!("{:?}", chunk_dot2_grad(&x));
    println!("{:?}", horner_grad(&x, 2.0));
    println!("{:?}", halves_grad(&x4));
    println!("{:?}", copy_reduce_grad(&x));
    println!("{:?}", mut_view_grad(&x));
}
