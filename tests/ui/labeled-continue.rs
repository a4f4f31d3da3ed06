// A labeled `continue` is rejected at the label.
use ad::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut s = x;
    'outer: for i in 0..n {
        for j in 0..n {
            if i == j {
                continue 'outer; //~ ERROR labeled `continue` is not supported
            }
            s *= x;
        }
    }
    s
}

fn main() {}
