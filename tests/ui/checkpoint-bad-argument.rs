// `#[revad::checkpoint]` takes no argument or `snapshots = k`.
use revad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    #[revad::checkpoint(memory = 4)] //~ ERROR takes no argument or `snapshots = k`
    for _ in 0..n {
        s = s.sin() * x;
    }
    s
}

fn main() {}
