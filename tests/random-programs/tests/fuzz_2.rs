//! Shard 2 of the differential fuzzer: the programs `build.rs` wrote to `fuzz_2.rs`,
//! checked against their num-dual oracles (see the crate documentation).

mod common;

include!(concat!(env!("OUT_DIR"), "/fuzz_2.rs"));

#[test]
fn gradients_agree_with_the_forward_mode_oracle() {
    common::run(SEED, CASES_F64, CASES_F32);
}
