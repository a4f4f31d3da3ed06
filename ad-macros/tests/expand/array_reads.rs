// Reads of a local array that nothing writes after them: the reverse sweep reads the array
// again (`let __t5 = e[__j_2];` at the start of the reverse of the inner loop) instead of
// storing each element read. Written after the reads, the elements read are stored.
use revad::reverse;

#[reverse]
fn exp_then_read(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..e.len() {
            s += e[j] * x[i];
        }
    }
    s
}

#[reverse]
fn written_after(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..e.len() {
            s += e[j] * x[i];
        }
        e[i % q.len()] = x[i];
    }
    s
}
