//! Writes a copy of each integration test of `revad` (and of the shared modules under
//! `tests/common/`) with every `#[reverse]` turned into `#[reverse(cps)]`, for
//! `tests/corpus.rs` to include: the whole corpus runs under both backends, with the same
//! assertions (closed forms, finite differences, and `checked`'s bit-for-bit comparison of
//! each function's gradient with the gradient through its caller `NAME_via`, which stays
//! under the tape backend and calls the CPS function through its split companions). Calls
//! between the other functions go through the CPS companions (`g::cps`).

use std::fs;
use std::path::{Path, PathBuf};

/// The integration tests whose functions the CPS backend takes (those left out are forward
/// mode, the Hessians and `cps` itself).
const FILES: &[&str] = &[
    "adjoint_derive",
    "aggregate_loops",
    "array_reads",
    "assoc_fns",
    "branch_bits",
    "call_results",
    "calls",
    "checkpoint",
    "checkpoint_loops",
    "checks",
    "clamp_and_chains",
    "closures",
    "const_generics",
    "custom_derivative",
    "element_options",
    "enums",
    "f32",
    "function_args",
    "flag_results",
    "fused_loops",
    "generic_impls",
    "generics",
    "higher_order",
    "inner_loops",
    "intrinsics",
    "iterator_adaptors",
    "labeled_loops",
    "long_tail",
    "loops",
    "memory",
    "mutation",
    "nested_examples",
    "nesting",
    "num_traits",
    "operators",
    "ported_reverse",
    "recompute",
    "recursion_depth",
    "reductions",
    "reversed_sequences",
    "soundness",
    "stop_gradient",
    "straight_line",
    "struct_mutation",
    "structs",
    "traits",
    "user_programs",
    "user_types",
    "vectors",
    "views",
    "zero_adjoints",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let tests = manifest.join("../../tests");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("cps");
    fs::create_dir_all(out.join("common")).unwrap();
    for entry in fs::read_dir(tests.join("common")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_name().unwrap();
            transform(&path, &out.join("common").join(name), &out, "");
        }
    }
    for name in FILES {
        let from = tests.join(format!("{name}.rs"));
        transform(&from, &out.join(format!("{name}.rs")), &out, name);
    }
    println!("cargo::rerun-if-changed=../../tests");
}

/// Copies `from` to `to` under the CPS backend, as items that can be included in a module.
/// `module` is the module the copy is included in (its `crate::` paths move there).
fn transform(from: &Path, to: &Path, out: &Path, module: &str) {
    println!("cargo::rerun-if-changed={}", from.display());
    let source = fs::read_to_string(from).unwrap();
    let mut text = String::new();
    // Open brackets of an inner attribute being skipped.
    let mut skipping = 0i32;
    let lines: Vec<&str> = source.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        let line = *line;
        let trimmed = line.trim_start();
        // Inner attributes and docs are not allowed in an included file.
        if skipping > 0 || trimmed.starts_with("#![") {
            skipping += line.matches('[').count() as i32 - line.matches(']').count() as i32;
            continue;
        }
        if trimmed.starts_with("//!") {
            continue;
        }
        // `NAME_via` callers stay under the tape backend: `checked` then compares each CPS
        // gradient bit for bit with the tape's, through the split companions. So does the
        // attribute of a trait or an impl block, which takes no arguments (its methods' own
        // attributes choose the backend).
        let item = lines[at + 1..]
            .iter()
            .map(|l| l.trim_start())
            .find(|l| !l.starts_with("#[") && !l.starts_with("//"))
            .map(|l| l.trim_start_matches("pub ").trim_start_matches("unsafe "));
        let via = item.is_some_and(|l| {
            l.starts_with("fn ")
                && l[3..]
                    .split('(')
                    .next()
                    .is_some_and(|n| n.ends_with("_via"))
        });
        let block = item.is_some_and(|l| l.starts_with("impl") || l.starts_with("trait "));
        if via || (block && trimmed.starts_with("#[")) {
            text.push_str(line);
            text.push('\n');
            continue;
        }
        let line = line
            .replace("#[reverse]", "#[reverse(cps)]")
            .replace("#[revad::reverse]", "#[revad::reverse(cps)]")
            .replace("#[reverse(wrt(", "#[reverse(cps, wrt(")
            .replace("#[revad::reverse(wrt(", "#[revad::reverse(cps, wrt(");
        let line = if module.is_empty() {
            line
        } else {
            line.replace("crate::", &format!("crate::{module}::"))
        };
        let line = match line.find("#[path = \"common/") {
            Some(at) => {
                let rest = &line[at + "#[path = \"".len()..];
                let file = &rest[..rest.find('"').unwrap()];
                format!("#[path = {:?}]", out.join(file).display().to_string())
            }
            None => line,
        };
        text.push_str(&line);
        text.push('\n');
    }
    fs::write(to, text).unwrap();
}
