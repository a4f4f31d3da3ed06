//! The JSON-lines protocol (a minimal stand-in; the shared crate's version replaces it).

use crate::evals;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::time::Instant;

/// Answers messages from stdin on stdout until `end` or end of input.
pub fn serve() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let id = msg["id"].clone();
        let answer = match msg["kind"].as_str() {
            Some("start") => json!({"id": id, "tool": "ad"}),
            Some("define") => {
                let module = msg["module"].as_str().unwrap_or("");
                json!({"id": id, "success": evals::SUPPORTED.contains(&module)})
            }
            Some("evaluate") => evaluate(&msg),
            Some("end") => break,
            _ => json!({"id": id}),
        };
        writeln!(out, "{answer}").expect("stdout");
        out.flush().expect("stdout");
    }
}

fn evaluate(msg: &Value) -> Value {
    let id = msg["id"].clone();
    let input = &msg["input"];
    let min_runs = input["min_runs"].as_u64().unwrap_or(1).max(1);
    let min_seconds = input["min_seconds"].as_f64().unwrap_or(0.0);
    let start = Instant::now();
    let prepared = evals::prepare(
        msg["module"].as_str().unwrap_or(""),
        msg["function"].as_str().unwrap_or(""),
        input,
    );
    let prepare_ns = start.elapsed().as_nanos() as u64;
    let mut runner = match prepared {
        Ok(r) => r,
        Err(e) => return json!({"id": id, "success": false, "error": e}),
    };
    let mut timings = vec![json!({"name": "prepare", "nanoseconds": prepare_ns})];
    let begin = Instant::now();
    let mut runs = 0;
    while runs < min_runs || begin.elapsed().as_secs_f64() < min_seconds {
        let t = Instant::now();
        runner.run();
        timings.push(json!({"name": "evaluate", "nanoseconds": t.elapsed().as_nanos() as u64}));
        runs += 1;
    }
    json!({"id": id, "success": true, "output": runner.output(), "timings": timings})
}
