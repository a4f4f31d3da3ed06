//! Compile-fail cases: code outside the subset `#[reverse]` supports must be rejected with an
//! error at the offending construct. `TRYBUILD=overwrite cargo test --test ui` rewrites the
//! `.stderr` snapshots; review the diff before committing.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
