//! Compile-fail cases: code outside the subset `#[reverse]` supports must be rejected with an
//! error at the offending construct. The cases are the `.rs` files of `tests/ui/`, each with
//! its `.stderr` snapshot; `TRYBUILD=overwrite cargo test -p revad-ui` rewrites the snapshots
//! (review the diff before committing).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("*.rs");
}
