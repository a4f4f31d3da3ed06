//! Nothing but the benchmark `gradients.rs`: `cargo bench -p revad-bench`
//! prints its ratios to the hand-written adjoints and the peer crates.
