use revad::reverse;

#[reverse]
fn positives(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().filter(|v| **v > 0.0) {
        if *v > 2.0 {
            continue;
        }
        s += v;
    }
    s
}

fn main() {}
