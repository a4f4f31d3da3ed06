//! Nothing but the test `tests/compile_fail.rs`, which runs the compile-fail cases beside
//! this manifest.
