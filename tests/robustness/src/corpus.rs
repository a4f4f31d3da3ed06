//! The corpus: seed programs, their mutants, programs with unsupported constructs (this
//! package's `corpus/unsupported.rs` and the compile-fail cases of `tests/ui/`), and sanity
//! programs the classifier must flag.

use std::fmt;
use std::fs;
use std::path::Path;

use crate::mutate::mutants;

/// Why a program is in the corpus, which decides what is expected of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// Valid code in the supported subset: must compile with and without the attributes.
    Seed,
    /// A token-level mutation of a seed: anything but BAD.
    Mutant,
    /// A construct outside the subset: anything but BAD.
    Unsupported,
    /// A compile-fail case of `tests/ui/`: anything but BAD.
    Ui,
    /// A program the classifier must flag as BAD (proves the test can fail).
    Sanity,
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Category::Seed => "seed",
            Category::Mutant => "mutant",
            Category::Unsupported => "unsupported",
            Category::Ui => "ui",
            Category::Sanity => "sanity",
        };
        f.write_str(name)
    }
}

/// One program of the corpus: items placed in a module of their own.
#[derive(Clone, Debug)]
pub struct Program {
    /// A stable name: `seed/NAME`, `mutant/SEED/K-OPERATOR`, `unsupported/NAME`,
    /// `ui/NAME`, `sanity/NAME`; `cps/ID` for the copy of a seed, mutant or unsupported
    /// program under `#[reverse(cps)]`.
    pub id: String,
    /// Why the program is in the corpus.
    pub category: Category,
    /// The items.
    pub source: String,
}

/// Splits a corpus file into its programs: each starts at a line `//# NAME`.
pub fn split(text: &str) -> Vec<(String, String)> {
    let mut programs: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("//# ") {
            programs.push((name.trim().to_string(), String::new()));
        } else if let Some((_, body)) = programs.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    for (_, body) in &mut programs {
        let trimmed = body.trim_end().to_string();
        *body = trimmed + "\n";
    }
    programs
}

/// The whole corpus: `mutants_per_seed` mutants of each seed. `package` is this package's
/// directory, `workspace` the repository root.
pub fn load(package: &Path, workspace: &Path, mutants_per_seed: usize) -> Vec<Program> {
    let read = |path: &Path| {
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    };
    let mut programs = Vec::new();
    let seeds = split(&read(&package.join("corpus/seeds.rs")));
    for (name, source) in &seeds {
        programs.push(Program {
            id: format!("seed/{name}"),
            category: Category::Seed,
            source: source.clone(),
        });
    }
    for (name, source) in &seeds {
        for (k, mutant) in mutants(name, source, mutants_per_seed)
            .into_iter()
            .enumerate()
        {
            programs.push(Program {
                id: format!("mutant/{name}/{k}-{}", mutant.operator),
                category: Category::Mutant,
                source: mutant.source,
            });
        }
    }
    for (name, source) in split(&read(&package.join("corpus/unsupported.rs"))) {
        programs.push(Program {
            id: format!("unsupported/{name}"),
            category: Category::Unsupported,
            source,
        });
    }
    let mut ui: Vec<_> = fs::read_dir(workspace.join("tests/ui"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs"))
                .collect()
        })
        .unwrap_or_default();
    ui.sort();
    for path in ui {
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        programs.push(Program {
            id: format!("ui/{name}"),
            category: Category::Ui,
            source: read(&path),
        });
    }
    // Every seed, mutant and unsupported program again under the CPS backend: the same
    // verdicts are expected (accept or reject, never an error in generated code).
    let cps: Vec<Program> = programs
        .iter()
        .filter(|p| {
            matches!(
                p.category,
                Category::Seed | Category::Mutant | Category::Unsupported
            )
        })
        .map(|p| Program {
            id: format!("cps/{}", p.id),
            category: p.category,
            source: under_cps(&p.source),
        })
        .collect();
    programs.extend(cps);
    for (name, source) in split(&read(&package.join("corpus/sanity.rs"))) {
        programs.push(Program {
            id: format!("sanity/{name}"),
            category: Category::Sanity,
            source,
        });
    }
    programs
}

/// `source` with each `#[reverse]` attribute selecting the CPS backend.
pub fn under_cps(source: &str) -> String {
    source
        .replace("#[reverse]", "#[reverse(cps)]")
        .replace("#[revad::reverse]", "#[revad::reverse(cps)]")
        .replace("#[reverse(wrt(", "#[reverse(cps, wrt(")
        .replace("#[revad::reverse(wrt(", "#[revad::reverse(cps, wrt(")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_by_name_lines() {
        let text = "// header\n//# a\nfn a() {}\n\n//# b\nfn b() {}\n";
        let programs = split(text);
        assert_eq!(programs.len(), 2);
        assert_eq!(programs[0], ("a".to_string(), "fn a() {}\n".to_string()));
        assert_eq!(programs[1], ("b".to_string(), "fn b() {}\n".to_string()));
    }
}
