//! The scratch workspace: programs compiled as modules of library crates, each crate twice
//! (with the `revad` attributes, and with them blanked out at the same byte offsets), checked by
//! one nested `cargo check` the way trybuild does it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::classify::{parse_cargo_json, program_of_file, AttrRange, Diagnostic, Placement};
use crate::corpus::Program;
use crate::lex::{ad_attributes, lex};

/// The target directory of the running test: the nearest ancestor of its executable with
/// cargo's `CACHEDIR.TAG`, else `CARGO_TARGET_DIR`, else `workspace/target`.
pub fn target_dir(workspace: &Path) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable has a path");
    exe.ancestors()
        .find(|p| p.join("CACHEDIR.TAG").is_file())
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from))
        .unwrap_or_else(|| workspace.join("target"))
}

/// A `cargo` command nested in the running test's: the same cargo, building into `target`,
/// without the outer build's target, jobserver and target-triple settings.
pub fn nested_cargo(target: &Path) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .env("CARGO_TARGET_DIR", target)
        .env_remove("CARGO_MAKEFLAGS")
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .env_remove("CARGO_BUILD_TARGET");
    command
}

/// A scratch workspace under a target directory.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// Where the scratch workspace is written.
    pub dir: PathBuf,
    /// The repository root: the `revad` package the scratch crates depend on.
    pub ad: PathBuf,
}

/// The diagnostics of one check, located in the programs.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Where each program was placed (same order as the programs given).
    pub places: Vec<Placement>,
    /// The errors with attributes, per program.
    pub with: Vec<Vec<Diagnostic>>,
    /// The errors without attributes, per program.
    pub plain: Vec<Vec<Diagnostic>>,
    /// Errors that no program contains.
    pub stray: Vec<Diagnostic>,
    /// Per program: whether rustc stopped before type checking one of its crates (then the
    /// program's results are incomplete, unless it was alone in its crates).
    pub aborted: Vec<bool>,
    /// Cargo's standard error, for reports.
    pub cargo_stderr: String,
}

/// Writes `contents` to `path` unless it already holds them (an unchanged file keeps its
/// modification time, so cargo does not check its crate again).
fn write_if_changed(path: &Path, contents: &str) {
    if fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return;
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir {}: {e}", parent.display()));
    }
    fs::write(path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// The `revad` attributes of a program's source, as byte ranges of it.
pub fn attribute_ranges(source: &str) -> Vec<AttrRange> {
    let tokens = lex(source).unwrap_or_else(|e| panic!("a program does not lex: {e}\n{source}"));
    ad_attributes(&tokens)
        .into_iter()
        .map(|a| AttrRange {
            start: tokens[a.hash].start,
            end: tokens[a.close].start + 1,
            args: a.args.map(|(o, c)| (tokens[o].start + 1, tokens[c].start)),
        })
        .collect()
}

/// `text` with the bytes of `ranges` replaced by spaces (newlines kept).
pub fn blank(text: &str, ranges: &[(usize, usize)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(start, end) in ranges {
        for b in &mut bytes[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(bytes).expect("attributes are ASCII")
}

/// A module that always fails to type-check: if its error is missing from a crate's
/// diagnostics, rustc stopped before type checking and the crate's results are incomplete.
const CANARY: &str = "mod canary {\n    fn canary() -> u32 {\n        1.0\n    }\n}\n";

impl Scratch {
    /// Checks `programs`, split into `groups` crates (each group a list of program indices).
    /// Each program is a module in a file of its own (`src/m<index>.rs`): rustc gives up on a
    /// file after some parse errors, but still checks the other files.
    pub fn check(&self, name: &str, programs: &[Program], groups: &[Vec<usize>]) -> Outcome {
        let root = self.dir.join(name);
        let mut places: Vec<Option<Placement>> = vec![None; programs.len()];
        let mut members = Vec::new();
        let header = "use revad::*;\n";
        for (g, group) in groups.iter().enumerate() {
            let (with_name, plain_name) = (format!("with{g}"), format!("plain{g}"));
            let mut lib = String::from("#![allow(warnings)]\n");
            let mut files = Vec::new();
            for &p in group {
                let program = &programs[p];
                lib.push_str(&format!("mod m{p}; // {}\n", program.id));
                let start = header.len();
                let text = format!("{header}{}", program.source);
                let attrs: Vec<AttrRange> = attribute_ranges(&program.source)
                    .into_iter()
                    .map(|a| AttrRange {
                        start: a.start + start,
                        end: a.end + start,
                        args: a.args.map(|(s, e)| (s + start, e + start)),
                    })
                    .collect();
                let blanks: Vec<(usize, usize)> = attrs.iter().map(|a| (a.start, a.end)).collect();
                files.push((format!("src/m{p}.rs"), text.clone(), blank(&text, &blanks)));
                places[p] = Some(Placement {
                    with_target: with_name.clone(),
                    plain_target: plain_name.clone(),
                    start,
                    end: text.len(),
                    attrs,
                });
            }
            lib.push_str(CANARY);
            for (crate_name, with) in [(&with_name, true), (&plain_name, false)] {
                let dir = root.join(crate_name);
                let manifest = format!(
                    "[package]\nname = \"{crate_name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                     publish = false\n\n[lib]\ndoctest = false\ntest = false\n\n\
                     [dependencies]\nrevad = {{ path = {:?}, features = [\"cps\"] }}\n",
                    self.ad.display().to_string()
                );
                write_if_changed(&dir.join("Cargo.toml"), &manifest);
                write_if_changed(&dir.join("src/lib.rs"), &lib);
                for (path, text, plain) in &files {
                    write_if_changed(&dir.join(path), if with { text } else { plain });
                }
                members.push(format!("{crate_name:?}"));
            }
        }
        let workspace = format!(
            "[workspace]\nresolver = \"2\"\nmembers = [{}]\n\n\
             [profile.dev]\ndebug = false\nincremental = false\n",
            members.join(", ")
        );
        write_if_changed(&root.join("Cargo.toml"), &workspace);
        // The repository's lock file: the same dependency versions, no network.
        if let Ok(lock) = fs::read_to_string(self.ad.join("Cargo.lock")) {
            write_if_changed(&root.join("Cargo.lock"), &lock);
        }
        let output = nested_cargo(&self.dir.join("target"))
            .args([
                "check",
                "--workspace",
                "--keep-going",
                "--message-format=json",
            ])
            .arg("--manifest-path")
            .arg(root.join("Cargo.toml"))
            .output()
            .unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let places: Vec<Placement> = places
            .into_iter()
            .map(|p| p.expect("every program is in a group"))
            .collect();
        let mut outcome = Outcome {
            with: vec![Vec::new(); programs.len()],
            plain: vec![Vec::new(); programs.len()],
            cargo_stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            ..Outcome::default()
        };
        let mut canaries = BTreeMap::new();
        for d in parse_cargo_json(&stdout) {
            if d.level != "error" {
                continue;
            }
            if d.file.is_none() && d.message == "mismatched types" && d.elsewhere {
                *canaries.entry(d.target.clone()).or_insert(0) += 1;
                continue;
            }
            let owner = d.file.as_deref().and_then(program_of_file).filter(|&i| {
                i < places.len()
                    && (places[i].with_target == d.target || places[i].plain_target == d.target)
            });
            match owner {
                Some(i) if places[i].with_target == d.target => outcome.with[i].push(d),
                Some(i) => outcome.plain[i].push(d),
                None => outcome.stray.push(d),
            }
        }
        outcome.aborted = vec![false; programs.len()];
        for (g, group) in groups.iter().enumerate() {
            let aborted = [format!("with{g}"), format!("plain{g}")]
                .iter()
                .any(|name| !canaries.contains_key(name));
            for &p in group {
                outcome.aborted[p] = aborted;
            }
        }
        outcome.places = places;
        outcome
    }

    /// Checks all `programs`, first in `shards` crates, then again in smaller crates those
    /// whose crate rustc gave up on before type checking (some errors, a `macro_rules!`
    /// invocation that matches no rule say, stop rustc after expansion): the programs that
    /// reported no error there cannot be the cause and are checked again together; the
    /// others in groups of eight, then alone.
    pub fn check_all(&self, programs: &[Program], shards: usize) -> Outcome {
        let n = programs.len();
        let mut result = Outcome {
            places: Vec::new(),
            with: vec![Vec::new(); n],
            plain: vec![Vec::new(); n],
            stray: Vec::new(),
            aborted: vec![false; n],
            cargo_stderr: String::new(),
        };
        let mut places = vec![None; n];
        let mut pending: Vec<Vec<usize>> = (0..shards.max(1))
            .map(|s| (s..n).step_by(shards.max(1)).collect())
            .filter(|g: &Vec<usize>| !g.is_empty())
            .collect();
        let mut round = 0;
        while !pending.is_empty() {
            round += 1;
            let subset: Vec<usize> = pending.iter().flatten().copied().collect();
            let local: Vec<Program> = subset.iter().map(|&i| programs[i].clone()).collect();
            let mut position = 0;
            let groups: Vec<Vec<usize>> = pending
                .iter()
                .map(|g| {
                    let ids = (position..position + g.len()).collect();
                    position += g.len();
                    ids
                })
                .collect();
            let outcome = self.check(&format!("round{round}"), &local, &groups);
            if round == 1 {
                result.cargo_stderr = outcome.cargo_stderr.clone();
            }
            result.stray.extend(outcome.stray);
            let mut next = Vec::new();
            for group in &groups {
                let global = |k: usize| subset[k];
                let aborted = outcome.aborted[group[0]];
                if !aborted || group.len() == 1 {
                    for &k in group {
                        let i = global(k);
                        result.with[i] = outcome.with[k].clone();
                        result.plain[i] = outcome.plain[k].clone();
                        result.aborted[i] = aborted;
                        places[i] = Some(outcome.places[k].clone());
                    }
                    continue;
                }
                let (quiet, noisy): (Vec<usize>, Vec<usize>) = group
                    .iter()
                    .partition(|&&k| outcome.with[k].is_empty() && outcome.plain[k].is_empty());
                if !quiet.is_empty() {
                    next.push(quiet.iter().map(|&k| global(k)).collect());
                }
                let size = if noisy.len() > 8 { 8 } else { 1 };
                for chunk in noisy.chunks(size) {
                    next.push(chunk.iter().map(|&k| global(k)).collect());
                }
            }
            pending = next;
        }
        result.places = places
            .into_iter()
            .map(|p| p.expect("every program was checked"))
            .collect();
        result
    }
}
