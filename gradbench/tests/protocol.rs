//! A protocol round trip: `start`, `define` (supported and not), `evaluate` (hello, repeated),
//! `analysis` and `end`, through the library's loop and through the built binary.

use std::io::Write;
use std::process::{Command, Stdio};

use revad_gradbench::protocol::serve;
use serde_json::{json, Value};

/// The session every test below feeds to the tool.
fn session() -> String {
    [
        json!({ "id": 0, "kind": "start", "eval": "hello" }),
        json!({ "id": 1, "kind": "define", "module": "hello" }),
        json!({ "id": 2, "kind": "define", "module": "no-such-eval" }),
        json!({
            "id": 3, "kind": "evaluate", "module": "hello", "function": "square",
            "input": { "min_runs": 2, "min_seconds": 0 }, "description": "no x",
        }),
        json!({
            "id": 4, "kind": "evaluate", "module": "hello", "function": "square",
            "input": { "x": 3.0, "min_runs": 2, "min_seconds": 0 }, "description": "3",
        }),
        json!({ "id": 5, "kind": "analysis", "of": 4, "valid": true }),
        // GradBench's hello sends bare numbers.
        json!({ "id": 6, "kind": "evaluate", "module": "hello", "function": "double", "input": 9.0 }),
        json!({ "id": 7, "kind": "evaluate", "module": "hello", "function": "cube", "input": 2.0 }),
        json!({ "id": 8, "kind": "end" }),
        // Never answered: the tool stops at `end`.
        json!({ "id": 9, "kind": "start" }),
    ]
    .iter()
    .map(|m| format!("{m}\n"))
    .collect()
}

/// The answers, parsed, one per line.
fn answers(output: &[u8]) -> Vec<Value> {
    std::str::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The `evaluate` timings of an answer, after checking that `prepare` comes first.
fn evaluate_timings(answer: &Value) -> Vec<u64> {
    let timings = answer["timings"].as_array().unwrap();
    assert_eq!(timings[0]["name"], "prepare");
    timings[1..]
        .iter()
        .map(|t| {
            assert_eq!(t["name"], "evaluate");
            t["nanoseconds"].as_u64().unwrap()
        })
        .collect()
}

fn check(answers: &[Value]) {
    assert_eq!(answers.len(), 8, "{answers:?}");
    for (answer, id) in answers.iter().zip([0, 1, 2, 3, 4, 5, 6, 7]) {
        assert_eq!(answer["id"], id, "{answer}");
    }
    assert_eq!(answers[0], json!({ "id": 0, "tool": "revad" }));
    assert_eq!(answers[1], json!({ "id": 1, "success": true }));
    assert_eq!(answers[2]["success"], false);
    // An input that is not a number fails that message only.
    assert_eq!(answers[3]["success"], false);
    assert!(answers[3]["error"]
        .as_str()
        .unwrap()
        .contains("invalid input"));
    assert_eq!(answers[4]["success"], true);
    assert_eq!(answers[4]["output"], 9.0);
    assert_eq!(evaluate_timings(&answers[4]).len(), 2);
    assert_eq!(answers[5], json!({ "id": 5 }));
    assert_eq!(answers[6]["output"], 18.0);
    assert_eq!(answers[7]["success"], false);
}

#[test]
fn round_trip_through_the_library() {
    let mut output = Vec::new();
    serve(session().as_bytes(), &mut output).unwrap();
    check(&answers(&output));
}

#[test]
fn round_trip_through_the_binary() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_revad-gradbench"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(session().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    check(&answers(&output.stdout));
}

/// `min_runs` and `min_seconds` of an eval's input: at least `min_runs` runs, and runs until
/// they add up to `min_seconds`, one `evaluate` timing each.
#[test]
fn runs_repeat_as_the_input_asks() {
    let messages = [
        json!({ "id": 0, "kind": "start" }),
        json!({ "id": 1, "kind": "define", "module": "lse" }),
        json!({
            "id": 2, "kind": "evaluate", "module": "lse", "function": "primal",
            "input": { "x": [1.0, 2.0, 3.0], "min_runs": 2, "min_seconds": 0 },
        }),
        json!({
            "id": 3, "kind": "evaluate", "module": "lse", "function": "gradient",
            "input": { "x": [1.0, 2.0, 3.0], "min_runs": 1, "min_seconds": 0.02 },
        }),
        json!({ "id": 4, "kind": "end" }),
    ];
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let mut output = Vec::new();
    serve(input.as_bytes(), &mut output).unwrap();
    let answers = answers(&output);
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[1]["success"], true);
    assert_eq!(evaluate_timings(&answers[2]).len(), 2);
    let expected = 3.0 + (1.0 + (-1.0f64).exp() + (-2.0f64).exp()).ln();
    assert!((answers[2]["output"].as_f64().unwrap() - expected).abs() < 1e-12);
    let timings = evaluate_timings(&answers[3]);
    assert!(
        timings.len() > 1,
        "a run of 3 numbers takes far less than 20 ms"
    );
    assert!(timings.iter().sum::<u64>() >= 20_000_000);
    assert_eq!(answers[3]["output"].as_array().unwrap().len(), 3);
}
