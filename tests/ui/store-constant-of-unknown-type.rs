use revad::reverse;
use std::f64::consts::PI;

const TWO: f64 = 2.0;

// `TWO * PI` names no float the macro can see: the value it must keep is pointed at, not
// named by an internal temporary.
#[reverse]
fn scaled(s: f64) -> f64 {
    s * (TWO * PI).sqrt()
}

fn main() {}
