// Programs the classifier must flag as BAD: each compiles as plain Rust but not with its
// attributes, for a reason the macro does not report. They prove the test can fail. Each
// program starts at a line `//# NAME` and is placed in its own module after `use revad::*;`.

//# generated-name-clash
#[reverse]
fn f(x: f64) -> f64 {
    x * x
}

/// A user function named like the one `#[reverse]` generates: the generated `f_vjp` clashes.
#[allow(dead_code)]
fn f_vjp() {}
