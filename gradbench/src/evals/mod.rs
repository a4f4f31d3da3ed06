//! The evals (helper 2's local copy of the shared interface, dispatching to its evals).

pub mod ba;
pub mod ht;
pub mod kmeans;
pub mod particle;
pub mod saddle;

/// One prepared evaluation: its inputs converted, ready to run repeatedly.
pub trait Runner {
    /// Runs the function once (the timed part); keeps the result.
    fn run(&mut self);
    /// The output of the last run, in the eval's JSON format (untimed).
    fn output(&self) -> serde_json::Value;
}

/// The evals this tool supports, sorted.
pub const SUPPORTED: &[&str] = &["ba", "ht", "kmeans", "particle", "saddle"];

/// Converts `input` for `module`'s `function` (the untimed "prepare" step).
pub fn prepare(
    module: &str,
    function: &str,
    input: &serde_json::Value,
) -> Result<Box<dyn Runner>, String> {
    match module {
        "ba" => ba::prepare(function, input),
        "ht" => ht::prepare(function, input),
        "kmeans" => kmeans::prepare(function, input),
        "particle" => particle::prepare(function, input),
        "saddle" => saddle::prepare(function, input),
        _ => Err(format!("unsupported eval {module}")),
    }
}
