//! `ht` (not yet implemented).

use super::Runner;
use serde_json::Value;

/// Prepares a function of `ht`.
pub fn prepare(function: &str, _input: &Value) -> Result<Box<dyn Runner>, String> {
    Err(format!("ht: {function} not implemented"))
}
