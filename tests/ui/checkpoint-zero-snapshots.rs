// A checkpoint budget of zero snapshots is an error at the argument: the schedule keeps at
// least the state before the loop.
use revad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    #[revad::checkpoint(snapshots = 0)] //~ ERROR at least one snapshot
    for _ in 0..n {
        s = s.sin() * x;
    }
    s
}

fn main() {}
