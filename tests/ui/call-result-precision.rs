// The macro cannot see a callee's return type. A cast `as f32` of a call's result in an `f32`
// function is taken for a conversion from `f64` (see tests/views.rs); when the callee returns
// `f32` after all, the error at the call says to write the type (see tests/soundness.rs for
// the version that compiles).
use revad::reverse;

#[reverse]
fn doubled(x: f32) -> f32 {
    x * 2.0
}

#[reverse]
fn f(x: f32) -> f32 {
    (doubled(x) * 3.0) as f32
}

fn main() {}
