// A labeled `break` is rejected; the error suggests a flag.
use ad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    'outer: for _ in 0..n {
        for _ in 0..n {
            s *= x;
            if s > 10.0 {
                break 'outer; //~ ERROR labeled `break` is not supported
            }
        }
    }
    s
}

fn main() {}
