//! Robustness of `#[reverse]`: valid programs mutated at the token level, and programs with
//! each unsupported construct, must give either a macro error at a user span or an ordinary
//! rustc error in user code: never a panic, never an error inside generated code.
//!
//! The corpus (seeds from the integration tests and the README, deterministic mutants of
//! them, unsupported constructs, the compile-fail cases of `tests/ui/`, and the seeds,
//! mutants and unsupported programs again under `#[reverse(cps)]`) is compiled by one
//! nested `cargo check` (under `target/tests/robustness`), each program in a module of its
//! own, once with its attributes and once with them blanked out; `revad_robustness::classify`
//! says which errors are allowed. Programs known to expose a bug of the macro are listed in
//! `KNOWN_BAD` (with a minimal repro in `robustness-findings.md` at the repository root):
//! the test fails when one of them stops being BAD (remove it from the list) and when any
//! other program is BAD.
//!
//! `AD_ROBUSTNESS_MUTANTS=N` sets the number of mutants per seed (default 20);
//! `AD_ROBUSTNESS_VERBOSE=1` prints the diagnostics of every BAD program, known ones too.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use revad_robustness::classify::{classify, Class, Report, Verdict};
use revad_robustness::corpus::{self, Category, Program};
use revad_robustness::scratch::{target_dir, Outcome, Scratch};

/// Programs that are BAD because of a known bug of the macro, with the finding they show (a
/// section of `robustness-findings.md` at the repository root, which has a minimal repro of
/// each). Fixing a bug makes the test fail until its programs are removed from this list; the
/// failure message prints the list that matches the run.
const KNOWN_BAD: &[(&str, &str)] = &[
    ("mutant/compound-assign/13-type", "F1"),
    ("mutant/early-return/1-literal-suffix", "F1"),
    ("mutant/vec-output/5-literal-suffix", "F1"),
    ("mutant/closure-fold/12-type", "F1"),
    ("mutant/collect/8-literal-suffix", "F1"),
    ("mutant/collect/17-literal-suffix", "F1"),
    ("mutant/calls/12-ident", "F4"),
    ("cps/mutant/compound-assign/13-type", "F8"),
    ("cps/mutant/early-return/1-literal-suffix", "F8"),
    ("cps/mutant/local-arrays/3-prefix", "F8"),
    ("cps/mutant/vec-output/5-literal-suffix", "F8"),
    ("cps/mutant/closure-fold/12-type", "F8"),
    ("cps/mutant/collect/8-literal-suffix", "F8"),
    ("cps/mutant/collect/17-literal-suffix", "F8"),
    ("cps/mutant/calls/12-ident", "F8"),
    ("cps/mutant/recursion/14-prefix", "F8"),
    ("mutant/mut-out-param/7-literal-suffix", "F1"),
    ("mutant/mut-array-and-vec/16-literal-suffix", "F1"),
    ("mutant/array-argument-modified-after/7-type", "F1"),
    ("mutant/mut-out-param/13-ident", "F9"),
    ("mutant/call-results/0-swap", "F10"),
    ("unsupported/method-on-user-type", "F12"),
    ("mutant/mut-arguments/18-ident", "F13"),
    // (The CPS backend runs method calls and loops as the tape does: the same findings.)
    ("cps/unsupported/method-on-user-type", "F12"),
    ("cps/mutant/mut-arguments/18-ident", "F13"),
    ("cps/mutant/mut-out-param/7-literal-suffix", "F8"),
    ("cps/mutant/mut-array-and-vec/16-literal-suffix", "F8"),
    ("cps/mutant/array-argument-modified-after/7-type", "F8"),
    (
        "cps/mutant/array-argument-modified-after/18-literal-suffix",
        "F8",
    ),
    ("cps/mutant/mut-out-param/13-ident", "F9"),
    ("cps/mutant/call-results/0-swap", "F10"),
    ("cps/mutant/mut-arguments/8-suffix", "F11"),
    ("ui/num-traits-bare-float-to-f64", "F14"),
    ("ui/stop-gradient-shadowed", "F15"),
    ("ui/trait-impl-unannotated", "F16"),
    ("ui/trait-unannotated", "F17"),
    ("ui/assoc-fn-without-block-attribute", "F19"),
    ("ui/kept-type-not-clone", "F20"),
];

/// The number of crates the corpus is split into, each checked with and without attributes
/// (cargo checks two crates at a time on two cores).
const SHARDS: usize = 2;

/// The messages of the runtime's `#[diagnostic::on_unimplemented]` attributes: trait errors
/// the macro's generated code reports on purpose, at the user's construct.
fn runtime_messages(workspace: &Path) -> Vec<String> {
    let mut messages = Vec::new();
    let dir = workspace.join("ad-runtime/src");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("ad-runtime/src exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    files.sort();
    for file in files {
        let text = fs::read_to_string(&file).unwrap_or_default();
        for (i, _) in text.match_indices("#[diagnostic::on_unimplemented(") {
            let rest = &text[i..];
            let Some(m) = rest.find("message = \"") else {
                continue;
            };
            let rest = &rest[m + "message = \"".len()..];
            if let Some(end) = rest.find('"') {
                messages.push(unescape_continuations(&rest[..end]));
            }
        }
    }
    // The messages that name the user's item, which generated code declares itself: the
    // string constants of `ad-macros/src/codegen/messages.rs` (`{name}` stands for any text).
    let text = fs::read_to_string(workspace.join("ad-macros/src/codegen/messages.rs"))
        .expect("ad-macros/src/codegen/messages.rs exists");
    for (i, _) in text.match_indices(": &str =") {
        let rest = &text[i..];
        let Some(open) = rest.find('"') else {
            continue;
        };
        let rest = &rest[open + 1..];
        if let Some(end) = rest.find("\";") {
            messages.push(unescape_continuations(&rest[..end]));
        }
    }
    messages
}

/// A string literal's text with its line continuations (`\` at the end of a line, and the
/// indentation after it) removed.
fn unescape_continuations(literal: &str) -> String {
    let mut out = String::new();
    let mut lines = literal.split("\\\n");
    if let Some(first) = lines.next() {
        out.push_str(first);
    }
    for line in lines {
        out.push_str(line.trim_start());
    }
    out
}

/// The verdict on each program of `programs` checked in `outcome`.
fn reports(outcome: &Outcome, runtime: &[String]) -> Vec<Report> {
    (0..outcome.places.len())
        .map(|i| {
            classify(
                &outcome.places[i],
                &outcome.with[i],
                &outcome.plain[i],
                runtime,
            )
        })
        .collect()
}

/// The finding a known BAD program shows.
fn known_finding(id: &str) -> Option<&'static str> {
    KNOWN_BAD.iter().find(|(k, _)| *k == id).map(|(_, f)| *f)
}

/// What is wrong with a program's report, if anything.
fn problem(program: &Program, report: &Report) -> Option<String> {
    let known = known_finding(&program.id).is_some();
    match program.category {
        Category::Seed
            if report.verdict != Verdict::Accepted || !report.plain_errors.is_empty() =>
        {
            Some("a seed must compile with and without its attributes".to_string())
        }
        Category::Sanity if report.verdict != Verdict::Bad => {
            Some("a sanity program must be classified BAD: the classifier missed it".to_string())
        }
        Category::Sanity | Category::Seed => None,
        _ if report.verdict == Verdict::Bad && !known => {
            Some("BAD: a panic or an error in generated code".to_string())
        }
        _ if report.verdict != Verdict::Bad && known => Some(format!(
            "listed in KNOWN_BAD but now {}: remove it from the list",
            report.verdict
        )),
        _ => None,
    }
}

fn describe(program: &Program, report: &Report, offset: usize, why: &str) -> String {
    format!(
        "==== {} ({}): {why}\n---- program\n{}---- diagnostics\n{}",
        program.id,
        report.verdict,
        program.source,
        report.describe(offset)
    )
}

#[test]
fn mutated_and_unsupported_programs_never_fail_in_generated_code() {
    let started = Instant::now();
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = package
        .parent()
        .and_then(Path::parent)
        .expect("the package is at tests/robustness");
    let per_seed = std::env::var("AD_ROBUSTNESS_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let verbose = std::env::var_os("AD_ROBUSTNESS_VERBOSE").is_some();
    let programs = corpus::load(package, workspace, per_seed);
    let runtime = runtime_messages(workspace);
    assert!(
        !runtime.is_empty(),
        "no on_unimplemented message found in ad-runtime"
    );
    let scratch = Scratch {
        dir: target_dir(workspace).join("tests/robustness"),
        ad: workspace.to_path_buf(),
    };

    let outcome = scratch.check_all(&programs, SHARDS);
    let mut reports = reports(&outcome, &runtime);
    let mut failures = Vec::new();
    let aborted = outcome.aborted.iter().filter(|a| **a).count();
    for d in &outcome.stray {
        failures.push(format!(
            "==== an error outside every program ({}):\n{}\ncargo's stderr:\n{}",
            d.target, d.rendered, outcome.cargo_stderr
        ));
    }

    // Unexpected verdicts are checked again with each program alone in its crates, so that
    // no program's errors can affect another's.
    let unexpected: Vec<usize> = (0..programs.len())
        .filter(|&i| problem(&programs[i], &reports[i]).is_some())
        .collect();
    let mut offsets: Vec<usize> = outcome.places.iter().map(|p| p.start).collect();
    if !unexpected.is_empty() {
        let alone: Vec<Program> = unexpected.iter().map(|&i| programs[i].clone()).collect();
        let groups: Vec<Vec<usize>> = (0..alone.len()).map(|i| vec![i]).collect();
        let again = scratch.check("isolated", &alone, &groups);
        let again_reports = self::reports(&again, &runtime);
        for (k, &i) in unexpected.iter().enumerate() {
            reports[i] = again_reports[k].clone();
            offsets[i] = again.places[k].start;
        }
    }
    for (i, program) in programs.iter().enumerate() {
        if let Some(why) = problem(program, &reports[i]) {
            failures.push(describe(program, &reports[i], offsets[i], &why));
        } else if verbose && reports[i].verdict == Verdict::Bad {
            failures.push(describe(
                program,
                &reports[i],
                offsets[i],
                "known BAD (listed)",
            ));
        }
    }
    for (id, _) in KNOWN_BAD {
        if !programs.iter().any(|p| p.id == *id) {
            failures.push(format!(
                "==== {id}: listed in KNOWN_BAD but not in the corpus"
            ));
        }
    }

    // The summary: programs per category and verdict, errors per class.
    let mut table: BTreeMap<Category, [usize; 3]> = BTreeMap::new();
    let mut classes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut bad_reasons: BTreeMap<String, usize> = BTreeMap::new();
    for (program, report) in programs.iter().zip(&reports) {
        let row = table.entry(program.category).or_default();
        row[report.verdict.clone() as usize] += 1;
        for (class, n) in report.counts() {
            *classes.entry(class).or_default() += n;
        }
        for (_, class) in &report.errors {
            if let Class::Bad(reason) = class {
                *bad_reasons.entry(reason.clone()).or_default() += 1;
            }
        }
    }
    println!(
        "robustness corpus: {} programs, {per_seed} mutants per seed",
        programs.len()
    );
    println!(
        "{:<12} {:>9} {:>9} {:>9}",
        "category", "accepted", "rejected", "BAD"
    );
    for (category, [accepted, rejected, bad]) in &table {
        println!(
            "{:<12} {accepted:>9} {rejected:>9} {bad:>9}",
            category.to_string()
        );
    }
    println!("errors by class: {classes:?}");
    let echoes = reports.iter().filter(|r| r.counts().contains_key("echo"));
    println!("programs with echoes (tolerated): {}", echoes.count());
    let accepted: Vec<&str> = programs
        .iter()
        .zip(&reports)
        .filter(|(p, r)| p.category == Category::Unsupported && r.verdict == Verdict::Accepted)
        .map(|(p, _)| p.id.as_str())
        .collect();
    println!("unsupported programs the macro accepts: {accepted:?}");
    println!("BAD errors by reason: {bad_reasons:?}");
    println!("known BAD programs: {}", KNOWN_BAD.len());
    println!("programs rustc gave up on before type checking (checked alone): {aborted}");
    println!("time: {:.1} s", started.elapsed().as_secs_f64());

    // The list that matches this run, for updating KNOWN_BAD after a review.
    let mut matching = String::from("const KNOWN_BAD: &[(&str, &str)] = &[\n");
    for (program, report) in programs.iter().zip(&reports) {
        if report.verdict == Verdict::Bad && program.category != Category::Sanity {
            let finding = known_finding(&program.id).unwrap_or("NEW");
            matching.push_str(&format!("    ({:?}, {finding:?}),\n", program.id));
        }
    }
    matching.push_str("];\n");
    assert!(
        failures.is_empty(),
        "{} problem(s):\n\n{}\nKNOWN_BAD matching this run (review each NEW one first):\n{matching}",
        failures.len(),
        failures.join("\n"),
    );
}
