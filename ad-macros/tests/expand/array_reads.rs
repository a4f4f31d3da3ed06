// Reads of a local array that nothing writes after them: the reverse sweep reads the array
// again (`let __t5 = e[__j_2];` at the start of the reverse of the inner loop) instead of
// storing each element read (in `exp_then_read`, the inner loop's reverse runs right after its
// forward, with the element in scope). Written after the reads, the elements read are stored.
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

/// The same reads where the inner loop's reverse cannot run in its forward (what follows it
/// reads its result): its reverse reads `e` again.
#[reverse]
fn exp_then_read_squared(q: &[f64], x: &[f64]) -> f64 {
    let mut e = vec![0.0; q.len()];
    for j in 0..q.len() {
        e[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut r = 0.0;
        for j in 0..e.len() {
            r += e[j] * x[i];
        }
        s += r * r;
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
