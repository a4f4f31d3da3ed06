// The macro cannot see a callee's return type: a mismatch is one error at the call, which
// says to write the type (see tests/soundness.rs for the version that compiles).
use ad::reverse;

#[reverse]
fn doubled_in_f64(x: f32) -> f64 {
    (x * 2.0) as f64
}

#[reverse]
fn f(x: f32) -> f32 {
    (doubled_in_f64(x) * 3.0) as f32
}

fn main() {}
