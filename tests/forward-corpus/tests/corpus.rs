//! Integration tests of `revad` again, with `#[revad::forward]` on every `#[reverse]` function that
//! forward mode takes, and each of the tests' calls of `NAME_grad` / `NAME_vjp` going through
//! a wrapper that checks `JVP·t = Σ gradient·t` on three pseudo-random tangents at the
//! test's own inputs before returning the reverse mode's result to the test's assertions
//! (the copies and wrappers are written by `build.rs`, which describes them).
#![allow(
    missing_docs,
    dead_code,
    unused_imports,
    unused_macros,
    unused_mut,
    unused_variables,
    clippy::all,
    reason = "copies of the integration tests, each of which uses part of the shared modules"
)]

macro_rules! corpus {
    ($($name:ident),*) => {
        $(
            mod $name {
                include!(concat!(env!("OUT_DIR"), "/forward/", stringify!($name), ".rs"));
            }
        )*
    };
}

corpus!(
    aggregate_loops,
    call_results,
    calls,
    checks,
    closures,
    cps,
    custom_derivative,
    f32,
    generics,
    intrinsics,
    loops,
    mutation,
    recursion_depth,
    soundness,
    straight_line,
    views,
    vectors
);

mod counts {
    include!(concat!(env!("OUT_DIR"), "/forward/counts.rs"));
}

/// The corpus keeps its size: a change that silently drops functions from it fails here
/// (396 functions under `#[revad::forward]`, 345 with a checking wrapper when it was written;
/// `OUT_DIR/forward/report.txt` says why each other `#[reverse]` function is left out).
#[test]
fn functions_under_forward_mode_and_checked() {
    assert!(counts::FORWARD.len() >= 401, "{}", counts::FORWARD.len());
    assert!(counts::CHECKED.len() >= 358, "{}", counts::CHECKED.len());
}
