// A checkpointed loop cannot leave early: each recomputed step must run to its end.
use revad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    #[revad::checkpoint(snapshots = 4)] //~ ERROR `break`, `continue` or `return`
    for _ in 0..n {
        s = s.sin() * x;
        if s > 0.5 {
            break;
        }
    }
    s
}

fn main() {}
