// A checkpointed loop is a statement of the function's body: not inside another loop or a
// branch (the schedule lives in the function's frame between its two sweeps).
use revad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..3 {
        #[revad::checkpoint(snapshots = 4)] //~ ERROR not one inside a branch or another loop
        for _ in 0..n {
            s = s.sin() * x;
        }
    }
    if x > 0.0 {
        #[revad::checkpoint] //~ ERROR not one inside a branch or another loop
        for _ in 0..n {
            s = s.cos() * x;
        }
    }
    s
}

fn main() {}
