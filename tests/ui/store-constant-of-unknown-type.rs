use revad::reverse;

/// A pair of constants.
fn pair() -> (f64, f64) {
    (2.0, 1.0)
}

// `pair().0` names no float the macro can see (a part of a call's result, whose type it does
// not know): the value it must keep is pointed at, not named by an internal temporary.
#[reverse]
fn scaled(s: f64) -> f64 {
    s * pair().0
}

fn main() {}
