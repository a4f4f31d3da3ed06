// A checkpoint attribute on a loop inside an annotated function is not supported: the error
// is at the attribute and points to `revad::checkpoint::revolve`.
use revad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    #[revad::checkpoint(snapshots = 4)] //~ ERROR does not checkpoint a loop
    for _ in 0..n {
        s = s.sin() * x;
    }
    s
}

fn main() {}
