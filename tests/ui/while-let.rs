// `while let` has no trip count the macro can record; the error must name it and suggest `loop`.
use revad::reverse;

#[reverse]
fn f(x: f64, n: u32) -> f64 {
    let mut k = n;
    let mut s = x;
    while let Some(m) = k.checked_sub(1) { //~ ERROR `while let` is not supported
        k = m;
        s *= x;
    }
    s
}

fn main() {}
