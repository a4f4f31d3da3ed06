// A const generic parameter is rejected at the parameter; the error suggests a `const` item.
use revad::reverse;

#[reverse]
fn f<const N: usize>(w: [f64; N]) -> f64 { //~ ERROR const generic parameters are not supported
    let mut s = 0.0;
    for i in 0..N {
        s += w[i];
    }
    s
}

fn main() {}
