//! The headline of every compile error of the ui cases speaks of the user's code: no `error:`
//! line, and no label under the spans of its main snippet (the primary span's among them),
//! names an item of the generated code (`__ad_..`, `__private`, `__callee..`, `__adj_..`).
//! Notes and helps after the main snippet may: rustc adds them (the trait a bound is on, the
//! type it is not implemented for).

use std::path::Path;

/// Names of the generated code that the user never wrote.
const INTERNAL: &[&str] = &["__ad_", "__private", "__callee", "__adj_"];

/// The headline and the labels of the main snippet of each error in `stderr`, with the line
/// they are on (1-based).
fn headlines(stderr: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !(line.starts_with("error:") || line.starts_with("error[")) {
            i += 1;
            continue;
        }
        out.push((i + 1, line.to_string()));
        i += 1;
        // The main snippet: up to the first note, help or blank line.
        while i < lines.len() {
            let line = lines[i];
            let trimmed = line.trim_start();
            if trimmed.is_empty()
                || trimmed.starts_with("= ")
                || line.starts_with("help:")
                || line.starts_with("note:")
                || line.starts_with("error")
                || line.starts_with("warning")
            {
                break;
            }
            if let Some(label) = annotation(line) {
                out.push((i + 1, label.to_string()));
            }
            i += 1;
        }
    }
    out
}

/// The text of an annotation line of a snippet (`   |     ^^^^ label`, `   | |`, `   | in
/// this ..`): a line with a gutter and no line number. Source lines have a number.
fn annotation(line: &str) -> Option<&str> {
    let (gutter, rest) = line.split_once('|')?;
    if !gutter.trim().is_empty() {
        return None;
    }
    Some(rest)
}

#[test]
fn no_error_headline_names_generated_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "stderr"))
        .collect();
    files.sort();
    assert!(files.len() > 50, "the ui cases are beside the manifest");
    let mut found = Vec::new();
    for file in &files {
        let stderr = std::fs::read_to_string(file).unwrap();
        for (line, text) in headlines(&stderr) {
            if let Some(name) = INTERNAL.iter().find(|n| text.contains(*n)) {
                let file = file.file_name().unwrap().to_string_lossy();
                found.push(format!("{file}:{line}: `{name}` in: {}", text.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "error headlines that name generated code:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_reads_headlines_and_labels() {
    let stderr = "error[E0599]: no method named `__ad_fwd_eval` found\n  --> m.rs:17:7\n   |\n17 \
                  |     m.eval(x) * x\n   |       ^^^^ method `__adj_x` not found\n   |\nhelp: the \
                  trait `__private::X` is not implemented\n\nerror: plain\n --> m.rs:1:1\n";
    let found: Vec<(usize, String)> = headlines(stderr);
    assert_eq!(found[0].0, 1);
    assert!(found[0].1.contains("__ad_fwd_eval"));
    assert!(found.iter().any(|(_, t)| t.contains("__adj_x")));
    assert!(!found.iter().any(|(_, t)| t.contains("__private")));
    assert!(found.iter().any(|(_, t)| t == "error: plain"));
}
