//! GradBench's protocol: one JSON message per line in, one JSON answer per line out.
//!
//! | message | answer |
//! |---|---|
//! | `{"id": N, "kind": "start", "eval": .., "config": ..}` | `{"id": N, "tool": "revad"}` |
//! | `{"id": N, "kind": "define", "module": M}` | `{"id": N, "success": S}`: `S` says whether `M` is in [`SUPPORTED`] |
//! | `{"id": N, "kind": "evaluate", "module": M, "function": F, "input": I}` | `{"id": N, "success": true, "output": O, "timings": [..]}` |
//! | `{"id": N, "kind": "analysis", "of": K, "valid": V, ..}` | `{"id": N}` |
//! | `{"id": N, "kind": "end"}` | none: [`serve`] returns |
//!
//! An evaluation converts its input once (the `prepare` timing), then runs the function at least
//! `input.min_runs` times and until the runs add up to `input.min_seconds` (both optional: one
//! run, no minimum time), with one `evaluate` timing per run. A failure (an input that does not
//! parse, an unknown function, a panic) is answered `{"id": N, "success": false, "error": ..}`
//! and the loop goes on.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

use serde_json::{json, Value};

use crate::evals::{self, SUPPORTED};

/// The name this tool gives in its answer to `start`.
pub const TOOL: &str = "revad";

/// Answers the messages read from `input` on `output`, one line each, until an `end` message or
/// the end of `input`.
///
/// A line that is not a JSON object with an `id` is an `InvalidData` error: the eval and the
/// tool no longer agree on anything, so there is nothing sensible to answer.
pub fn serve(input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = serde_json::from_str(&line).map_err(invalid)?;
        let id = message
            .get("id")
            .cloned()
            .ok_or_else(|| invalid(format!("message without an `id`: {line}")))?;
        let kind = message.get("kind").and_then(Value::as_str).unwrap_or("");
        let answer = match kind {
            "end" => return Ok(()),
            "start" => json!({ "id": id, "tool": TOOL }),
            "define" => define(id, &message),
            "evaluate" => evaluate(id, &message),
            // `analysis` (the eval's verdict on an earlier output) and anything newer: an
            // acknowledgement is all the eval waits for.
            _ => json!({ "id": id }),
        };
        serde_json::to_writer(&mut output, &answer)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}

/// `{"id": N, "success": S}`, with an `error` saying why when the module is not supported.
fn define(id: Value, message: &Value) -> Value {
    let module = message.get("module").and_then(Value::as_str).unwrap_or("");
    if SUPPORTED.contains(&module) {
        json!({ "id": id, "success": true })
    } else {
        json!({ "id": id, "success": false, "error": format!("module `{module}` is not supported") })
    }
}

/// Runs one evaluation and answers with its output and timings, or with the error.
fn evaluate(id: Value, message: &Value) -> Value {
    let module = message.get("module").and_then(Value::as_str).unwrap_or("");
    let function = message
        .get("function")
        .and_then(Value::as_str)
        .unwrap_or("");
    let input = message.get("input").unwrap_or(&Value::Null);
    // A panic in an eval (a malformed input that passed parsing, say) fails this message only.
    let result = panic::catch_unwind(AssertUnwindSafe(|| run(module, function, input)));
    match result {
        Ok(Ok((output, timings))) => {
            json!({ "id": id, "success": true, "output": output, "timings": timings })
        }
        Ok(Err(error)) => json!({ "id": id, "success": false, "error": error }),
        Err(payload) => {
            let error = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "the evaluation panicked".to_string());
            json!({ "id": id, "success": false, "error": error })
        }
    }
}

/// Prepares the function's input, runs it as often as the input asks, and returns its last
/// output with the timings: `prepare` first, then one `evaluate` per run.
fn run(module: &str, function: &str, input: &Value) -> Result<(Value, Vec<Value>), String> {
    let (min_runs, min_seconds) = runs(input);
    let start = Instant::now();
    let mut runner = evals::prepare(module, function, input)?;
    let mut timings = vec![timing("prepare", start.elapsed().as_nanos())];
    let mut total = 0.0;
    let mut done = 0;
    while done < min_runs || total < min_seconds {
        let start = Instant::now();
        runner.run();
        let elapsed = start.elapsed();
        timings.push(timing("evaluate", elapsed.as_nanos()));
        total += elapsed.as_secs_f64();
        done += 1;
    }
    Ok((runner.output(), timings))
}

/// `min_runs` (at least 1) and `min_seconds` of an input; 1 and 0 where it has none (`hello`'s
/// inputs are bare numbers).
fn runs(input: &Value) -> (u64, f64) {
    let min_runs = input.get("min_runs").and_then(Value::as_u64).unwrap_or(1);
    let min_seconds = input
        .get("min_seconds")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    (min_runs.max(1), min_seconds)
}

fn timing(name: &str, nanoseconds: u128) -> Value {
    json!({ "name": name, "nanoseconds": nanoseconds as u64 })
}

fn invalid(error: impl ToString) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error.to_string())
}
