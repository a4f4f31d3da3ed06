//! A GradBench tool for the `ad` library: the evals, and the JSON-lines protocol.

pub mod evals;
pub mod protocol;
