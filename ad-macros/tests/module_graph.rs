//! The import graph of the macro's source files has no cycle, and no backend imports another:
//! data flows one way, syntax → IR → analyses → backends, with the driver on top.
//!
//! Each file under `src/` is a module (`src/ir/lower/mod.rs` is `ir::lower`). A file depends on
//! another when it names a path into it (`use crate::ir::Body;`, `super::shared::zero(..)`,
//! `crate::ir::{visit::walk, Body}`); a path into one of its own submodules does not count.
//! `cargo test -p revad-macros --test module_graph -- --nocapture` prints the graph's size
//! and each file's dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// A token of the little lexer below: enough of Rust to read paths.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Other,
}

/// The tokens of `source`, without comments, strings and characters.
fn lex(source: &str) -> Vec<Tok> {
    let s: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || (next == Some('#') && raw_string_at(&s, i))) {
            // A raw string: r"..", r#".."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while s[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if s[j] == '"' && (0..hashes).all(|h| s.get(j + 1 + h) == Some(&'#')) {
                    i = j + 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push(Tok::Other);
        } else if c == '"' {
            i += 1;
            while s[i] != '"' {
                i += if s[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(Tok::Other);
        } else if c == '\'' {
            // A character literal ('a', '\n', '\'') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if s.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                    i += 1;
                }
            }
            out.push(Tok::Other);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(s[start..i].iter().collect()));
        } else {
            out.push(match c {
                ':' if next == Some(':') => {
                    i += 1;
                    Tok::PathSep
                }
                '{' => Tok::Open,
                '}' => Tok::Close,
                ',' => Tok::Comma,
                _ => Tok::Other,
            });
            i += 1;
        }
    }
    out
}

/// Whether `s[i..]` starts a raw string `r#".."#` (not an identifier `r#name`).
fn raw_string_at(s: &[char], i: usize) -> bool {
    let mut j = i + 1;
    while s.get(j) == Some(&'#') {
        j += 1;
    }
    s.get(j) == Some(&'"')
}

/// Every path of `toks` that starts with `crate` or `super`, as segments (a `use` group gives
/// one path per item).
fn paths(toks: &[Tok]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let starts = matches!(&toks[i], Tok::Ident(n) if n == "crate" || n == "super")
            && (i == 0 || toks[i - 1] != Tok::PathSep);
        if starts {
            i = path_from(toks, i, Vec::new(), &mut out);
        } else {
            i += 1;
        }
    }
    out
}

/// Reads a path at `toks[i]` after `prefix`; returns the index after it.
fn path_from(
    toks: &[Tok],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match toks.get(i) {
            Some(Tok::Ident(name)) => {
                if name != "self" {
                    prefix.push(name.clone());
                }
                i += 1;
            }
            Some(Tok::Open) => {
                i += 1;
                loop {
                    match toks.get(i) {
                        Some(Tok::Close) => return i + 1,
                        Some(Tok::Ident(_) | Tok::Open) => {
                            i = path_from(toks, i, prefix.clone(), out);
                        }
                        // `,`, `*`
                        Some(_) => i += 1,
                        None => return i,
                    }
                }
            }
            _ => {
                out.push(prefix);
                return i;
            }
        }
        if toks.get(i) == Some(&Tok::PathSep) {
            i += 1;
        } else {
            out.push(prefix);
            return i;
        }
    }
}

/// The module of a file under `src/`.
fn module_of(relative: &Path) -> Module {
    let mut parts: Module = relative
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The module a path in `from` reaches: the longest prefix of it that is a file.
fn resolve(from: &Module, path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let mut full = Vec::new();
    let mut segments = path.iter().peekable();
    match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segments.next();
        }
        _ => {
            full.extend(from.iter().cloned());
            while segments.peek().map(|s| s.as_str()) == Some("super") {
                segments.next();
                full.pop();
            }
        }
    }
    full.extend(segments.cloned());
    (0..=full.len())
        .rev()
        .map(|k| full[..k].to_vec())
        .find(|m| modules.contains(m))
}

/// The files under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The import graph of the files under `src`: each module and the modules it depends on.
fn graph(src: &Path) -> (BTreeMap<Module, BTreeSet<Module>>, usize) {
    let mut paths_of = Vec::new();
    files(src, &mut paths_of);
    let mut lines = 0;
    let sources: Vec<(Module, String)> = paths_of
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("a source file is readable");
            lines += text.lines().count();
            (module_of(p.strip_prefix(src).expect("under src")), text)
        })
        .collect();
    let modules: BTreeSet<Module> = sources.iter().map(|(m, _)| m.clone()).collect();
    let mut edges = BTreeMap::new();
    for (module, text) in &sources {
        let deps: BTreeSet<Module> = paths(&lex(text))
            .iter()
            // `pub(crate)`, `pub(super)`: a visibility, not a path into a module.
            .filter(|p| p.len() > 1)
            .filter_map(|p| resolve(module, p, &modules))
            // Its own submodules (and itself) do not count.
            .filter(|m| !m.starts_with(module))
            .collect();
        edges.insert(module.clone(), deps);
    }
    (edges, lines)
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(st: &mut State<'a>, v: &'a Module) {
        let n = st.index.len();
        st.index.insert(v, n);
        st.low.insert(v, n);
        st.stack.push(v);
        st.on_stack.insert(v);
        let edges = st.edges;
        for w in edges.get(v).into_iter().flatten() {
            if !st.index.contains_key(w) {
                visit(st, w);
                let lw = st.low[w];
                let lv = st.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if st.on_stack.contains(w) {
                let iw = st.index[w];
                let lv = st.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if st.low[v] == st.index[v] {
            let mut component = Vec::new();
            loop {
                let w = st.stack.pop().expect("on the stack");
                st.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                st.out.push(component);
            }
        }
    }
    let mut st = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !st.index.contains_key(v) {
            visit(&mut st, v);
        }
    }
    st.out
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

#[test]
fn the_macros_files_import_each_other_without_a_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (edges, lines) = graph(&src);
    let count: usize = edges.values().map(BTreeSet::len).sum();
    println!("{} files, {lines} lines, {count} import edges", edges.len());
    for (module, deps) in &edges {
        let deps: Vec<String> = deps.iter().map(name).collect();
        println!("{} -> {}", name(module), deps.join(", "));
    }
    assert!(
        edges.len() > 40,
        "the graph has {} files: src/ not read?",
        edges.len()
    );
    assert!(count > 100, "the graph has {count} edges: paths not read?");
    let found = cycles(&edges);
    let described: Vec<String> = found
        .iter()
        .map(|c| c.iter().map(name).collect::<Vec<_>>().join(" <-> "))
        .collect();
    assert!(found.is_empty(), "import cycles: {described:#?}");
}

/// The backends: each a module of `codegen` (with its submodules), selected by the driver.
const BACKENDS: &[&str] = &[
    "tape",
    "cps",
    "forward",
    "jacobian",
    "hessian",
    "derivative",
];

/// The backend a module belongs to, if any.
fn backend_of(m: &Module) -> Option<&'static str> {
    match m.as_slice() {
        [codegen, backend, ..] if codegen == "codegen" => {
            BACKENDS.iter().copied().find(|b| backend == b)
        }
        _ => None,
    }
}

#[test]
fn no_backend_imports_another() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (edges, _) = graph(&src);
    let mut found = Vec::new();
    for (module, deps) in &edges {
        let Some(from) = backend_of(module) else {
            continue;
        };
        for dep in deps {
            if backend_of(dep).is_some_and(|to| to != from) {
                found.push(format!("{} -> {}", name(module), name(dep)));
            }
        }
    }
    let backends = edges.keys().filter(|m| backend_of(m).is_some()).count();
    assert!(
        backends >= BACKENDS.len(),
        "only {backends} backend modules found"
    );
    assert!(
        found.is_empty(),
        "backends importing each other: {found:#?}"
    );
}

#[test]
fn the_reader_finds_paths_groups_and_cycles() {
    let toks = lex(
        "use crate::ir::{visit::walk, Body, self, lower::*};\n// crate::not::this\n\
         let s = \"crate::nor::this\"; super::shared::zero(x); a::crate_like::b; 'a: loop {}",
    );
    let found: Vec<String> = paths(&toks).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        found,
        [
            "crate::ir::visit::walk",
            "crate::ir::Body",
            "crate::ir",
            "crate::ir::lower",
            "super::shared::zero"
        ]
    );
    let m = |s: &str| -> Module { s.split("::").map(String::from).collect() };
    let modules: BTreeSet<Module> = [m("ir"), m("codegen"), m("codegen::shared")].into();
    let from = m("codegen::cps");
    let path: Vec<String> = ["super", "shared", "zero"].map(String::from).into();
    assert_eq!(resolve(&from, &path, &modules), Some(m("codegen::shared")));
    let mut edges = BTreeMap::new();
    edges.insert(m("a"), BTreeSet::from([m("b")]));
    edges.insert(m("b"), BTreeSet::from([m("c")]));
    edges.insert(m("c"), BTreeSet::from([m("a")]));
    edges.insert(m("d"), BTreeSet::from([m("a")]));
    assert_eq!(cycles(&edges), vec![vec![m("a"), m("b"), m("c")]]);
}
