// `#[revad::checkpoint]` on a loop: `NAME_vjp` drives `revad::checkpoint::Revolve` with the
// loop's body as the step; the split companions run the loop as written.
use revad::reverse;

#[reverse]
fn checkpointed(x: f64, n: usize) -> f64 {
    let mut s = x;
    let mut k = 0usize;
    #[revad::checkpoint(snapshots = 4)]
    for i in 0..n {
        s = s.sin() * x + 0.1 * i as f64;
        k += 1;
    }
    s * s
}
