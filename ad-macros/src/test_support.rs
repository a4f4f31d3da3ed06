//! Test support (reading the annotated functions of a fixture, comparing with a snapshot) and
//! the expansion snapshots: `tests/expand/NAME.rs` expanded and pretty-printed must equal
//! `tests/expand/NAME.expanded.rs`. `AD_SNAPSHOTS=overwrite cargo test -p revad-macros`
//! rewrites the expected files; review the diff like code. The IR snapshots are in
//! `ir::print`, the derive's in `derive`.

use std::path::Path;

use proc_macro2::TokenStream;

/// The `#[reverse]` functions of `source`: the attribute's arguments and the function
/// without the attribute.
pub(crate) fn reverse_functions(source: &str) -> Vec<(TokenStream, syn::ItemFn)> {
    functions_with(source, "reverse")
}

/// The functions and methods of `source` with the attribute `name`, each with the
/// attribute's arguments and without the attribute.
fn functions_with(source: &str, name: &str) -> Vec<(TokenStream, syn::ItemFn)> {
    let file: syn::File = syn::parse_str(source).unwrap();
    let mut functions = Vec::new();
    // Functions, and the methods of `impl` blocks (as functions: the expansion is the same).
    let candidates = file.items.into_iter().flat_map(|item| match item {
        syn::Item::Fn(func) => vec![func],
        // (A block with the attribute expands as a whole: `annotated_blocks`.)
        syn::Item::Impl(block) if !has_attr(&block.attrs, name) => block
            .items
            .into_iter()
            .filter_map(|item| match item {
                syn::ImplItem::Fn(m) => Some(syn::ItemFn {
                    attrs: m.attrs,
                    vis: m.vis,
                    sig: m.sig,
                    block: Box::new(m.block),
                }),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    });
    for mut func in candidates {
        let attr = func
            .attrs
            .iter()
            .position(|a| a.path().segments.last().is_some_and(|s| s.ident == name));
        let args = match attr.map(|i| func.attrs.remove(i)) {
            Some(attr) => match attr.meta {
                syn::Meta::List(list) => list.tokens,
                _ => TokenStream::new(),
            },
            None => continue,
        };
        functions.push((args, func));
    }
    functions
}

/// Whether `attrs` hold the attribute `name` (`#[name]`, `#[path::name]`).
fn has_attr(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs
        .iter()
        .any(|a| a.path().segments.last().is_some_and(|s| s.ident == name))
}

/// The traits and impl blocks of `source` with `#[reverse]` on the block, without it.
fn annotated_blocks(source: &str) -> Vec<TokenStream> {
    let file: syn::File = syn::parse_str(source).unwrap();
    let mut blocks = Vec::new();
    for item in file.items {
        let mut item = item;
        let attrs = match &mut item {
            syn::Item::Trait(t) => &mut t.attrs,
            syn::Item::Impl(i) => &mut i.attrs,
            _ => continue,
        };
        let Some(k) = attrs.iter().position(|a| {
            a.path()
                .segments
                .last()
                .is_some_and(|s| s.ident == "reverse")
        }) else {
            continue;
        };
        attrs.remove(k);
        blocks.push(quote::quote!(#item));
    }
    blocks
}

/// Every `#[reverse]` function of `source` expanded and pretty-printed, then every trait and
/// impl block with `#[reverse]` (an inherent block's methods expanded after it, as rustc
/// does: the attribute on the block only marks theirs).
fn expand_source(source: &str) -> String {
    let mut items = Vec::new();
    expand_functions(source, &mut items);
    for block in annotated_blocks(source) {
        let tokens = timed(|| crate::driver::reverse(TokenStream::new(), block));
        let expanded: syn::File = syn::parse2(tokens).unwrap();
        for item in expanded.items {
            match item {
                syn::Item::Impl(i) if i.trait_.is_none() => {
                    expand_functions(&quote::quote!(#i).to_string(), &mut items)
                }
                item => items.push(item),
            }
        }
    }
    prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: Vec::new(),
        items,
    })
}

/// The expansions of the `#[forward]` and `#[reverse]` functions of `source` (and of the
/// methods of its impl blocks without the attribute), pushed to `items`.
fn expand_functions(source: &str, items: &mut Vec<syn::Item>) {
    // `#[forward]`'s items, without the function (which `#[reverse]`'s expansion shows).
    for (args, func) in functions_with(source, "forward") {
        let func_tokens = quote::quote!(#func);
        let tokens = timed(|| crate::driver::forward(args, func_tokens));
        let expanded: syn::File = syn::parse2(tokens).unwrap();
        items.extend(
            expanded
                .items
                .into_iter()
                .filter(|item| !matches!(item, syn::Item::Fn(f) if f.sig.ident == func.sig.ident)),
        );
    }
    for (args, func) in reverse_functions(source) {
        let func_tokens = quote::quote!(#func);
        let tokens = timed(|| crate::driver::reverse(args, func_tokens));
        let expanded: syn::File = syn::parse2(tokens).unwrap();
        items.extend(expanded.items);
    }
}

thread_local! {
    /// The time spent in the attributes themselves (`driver::reverse`, `driver::forward`) on
    /// this thread, without the parsing and printing around them.
    static MACRO_TIME: std::cell::Cell<std::time::Duration> = const {
        std::cell::Cell::new(std::time::Duration::ZERO)
    };
}

/// `expand()`, its time added to [`MACRO_TIME`].
fn timed(expand: impl FnOnce() -> TokenStream) -> TokenStream {
    let start = std::time::Instant::now();
    let tokens = expand();
    MACRO_TIME.with(|t| t.set(t.get() + start.elapsed()));
    tokens
}

fn check(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let source = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
    let actual = expand_source(&source);
    assert_snapshot(
        &dir.join(format!("{name}.expanded.rs")),
        &format!("expansion of {name}"),
        &actual,
    );
}

/// Compares `actual` with the snapshot at `path` (`what` names it in the failure), or
/// rewrites the snapshot under `AD_SNAPSHOTS=overwrite`.
pub(crate) fn assert_snapshot(path: &Path, what: &str, actual: &str) {
    if std::env::var_os("AD_SNAPSHOTS").is_some_and(|v| v == "overwrite") {
        std::fs::write(path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        expected == actual,
        "{what} changed; run with AD_SNAPSHOTS=overwrite and review.\n--- actual ---\n{actual}"
    );
}

/// A tool, not a check: `AD_EXPAND=path/to/file.rs cargo test -p revad-macros expand_file
/// -- --nocapture` prints the expansion of the `#[reverse]` functions in that file.
#[test]
fn expand_file() {
    if let Some(path) = std::env::var_os("AD_EXPAND") {
        let source = read_tool_input(&path);
        println!("{}", expand_source(&source));
    }
}

/// A tool, not a check: `AD_EXPAND_STATS=path/to/file.rs cargo test -p revad-macros
/// expansion_size -- --nocapture` prints the lines of the annotated items of the file and of
/// their expansion (both pretty-printed), and the attributes' own time: in all, and for the
/// slowest item (the expansion only, without the parsing and printing around it;
/// `benches/compile-time.sh` runs it on its corpus, in a debug build as cargo builds proc
/// macros for debug builds, and in a release build).
#[test]
fn expansion_size() {
    let Some(path) = std::env::var_os("AD_EXPAND_STATS") else {
        return;
    };
    let source = read_tool_input(&path);
    let file: syn::File = syn::parse_str(&source).unwrap();
    let lines = |items: Vec<syn::Item>| {
        prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items,
        })
        .lines()
        .count()
    };
    let (mut source_lines, mut expanded_lines) = (0, 0);
    let mut slowest = (std::time::Duration::ZERO, 0, String::new());
    let mut total = std::time::Duration::ZERO;
    for item in file.items {
        let text = quote::quote!(#item).to_string();
        MACRO_TIME.with(|t| t.set(std::time::Duration::ZERO));
        let expanded = expand_source(&text);
        let took = MACRO_TIME.with(std::cell::Cell::get);
        total += took;
        let expanded = expanded.lines().count();
        if expanded == 0 {
            continue;
        }
        let own = lines(vec![item]);
        source_lines += own;
        expanded_lines += expanded;
        if took > slowest.0 {
            slowest = (took, own, text.chars().take(80).collect());
        }
    }
    println!(
        "expansion: {source_lines} source lines of annotated items, {expanded_lines} expanded: {:.2}x",
        expanded_lines as f64 / source_lines.max(1) as f64
    );
    println!(
        "expansion time ({}): {:.0} ms in all; slowest item: {:.1} ms for {} source lines ({} ..)",
        if cfg!(debug_assertions) {
            "macro built for debug"
        } else {
            "macro built for release"
        },
        total.as_secs_f64() * 1e3,
        slowest.0.as_secs_f64() * 1e3,
        slowest.1,
        slowest.2
    );
}

/// The file a tool test was given. Tests run in `ad-macros/`; a relative path that is not
/// found there is taken from the workspace root, where `cargo` was run.
pub(crate) fn read_tool_input(path: &std::ffi::OsStr) -> String {
    let path = Path::new(path);
    let path = if path.exists() {
        path.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
    };
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

#[test]
fn straight_line() {
    check("straight_line");
}

#[test]
fn loops() {
    check("loops");
}

/// `let v = &xs[i];` and `if let Some(w) = xs.last()`, `match xs.get(i)`: the element read as
/// a value, under the test the `Option` stands for.
#[test]
fn element_refs() {
    check("element_refs");
}

/// A chain of 40 doublings expands to 40 forward and 40 reverse lines: sharing is kept.
#[test]
fn sharing_chain() {
    check("sharing_chain");
}

#[test]
fn calls() {
    check("calls");
}

#[test]
fn checkpoint() {
    check("checkpoint");
}

#[test]
fn recompute() {
    check("recompute");
}

#[test]
fn closures() {
    check("closures");
}

/// A function argument called through its companions; a closure passed to a function,
/// lifted into a hidden function, with its captured variables' adjoint cells.
#[test]
fn function_args() {
    check("function_args");
}

/// `&mut` and `&f64` parameters, a callee writing through `&mut`, a tuple result.
#[test]
fn mutation() {
    check("mutation");
}

/// The CPS backend on one function per construct.
#[test]
fn cps() {
    check("cps");
}

/// Views (sub-slices, `split_at`, chunks, windows, `iter().rev()`, `copy_from_slice`):
/// index arithmetic on the base array, no copies.
#[test]
fn views() {
    check("views");
}

/// Growing and reshaping float vectors, both backends.
#[test]
fn vectors() {
    check("vectors");
}

/// The expansion of the fixture `tests/expand/{fixture}.rs`, as a function from a
/// function's name to the text of its `NAME_vjp`.
fn vjp_of(fixture: &str) -> impl Fn(&str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let source = std::fs::read_to_string(dir.join(format!("{fixture}.rs"))).unwrap();
    let expanded = expand_source(&source);
    move |name: &str| {
        let start = expanded.find(&format!("fn {name}_vjp(")).unwrap();
        let end = start + expanded[start..].find("\n}\n").unwrap();
        expanded[start..end].to_string()
    }
}

/// A local array written by one loop and read by later ones is read again by the reverse
/// sweep, not stored per read; written after the reads, the reads are stored.
#[test]
fn array_reads() {
    check("array_reads");
    let vjp = vjp_of("array_reads");
    // (The inner loop of `exp_then_read` runs its reverse in its forward: nothing of it is
    // stored or read again.)
    let fused = vjp("exp_then_read");
    assert!(!fused.contains("__stack.push(__t5)"), "{fused}");
    assert!(!fused.contains("(0..e.len()).rev()"), "{fused}");
    assert!(fused.contains("for __j_2 in 0..e.len()"), "{fused}");
    let read_only = vjp("exp_then_read_squared");
    // (The first loop stores its `exp`s: transcendentals are stored, not evaluated again.)
    assert!(!read_only.contains("__stack.push(__t5)"), "{read_only}");
    assert!(!read_only.contains("__stack.push(__j_2)"), "{read_only}");
    assert!(read_only.contains("let __t5 = e[__j_2];"), "{read_only}");
    assert!(
        read_only.contains("for __j_2 in (0..e.len()).rev()"),
        "{read_only}"
    );
    let written = vjp("written_after");
    assert!(written.contains("__stack.push(__t5);"), "{written}");
}

/// The last loop's reverse sweep fused into the forward sweep of `NAME_vjp`: nothing
/// pushed, no second pass; scaled afterwards when more work follows the loop.
#[test]
fn fused_loops() {
    check("fused_loops");
    let vjp = vjp_of("fused_loops");
    for fused in ["dot", "mean_square", "log_sum_exp"] {
        let code = vjp(fused);
        assert!(!code.contains("(0..x.len()).rev()"), "{code}");
    }
    assert!(!vjp("dot").contains("__stack"));
    assert!(vjp("mean_square")
        .contains("__adj_w = ::revad::__private::rules::scale_fused(__adj_w, __adj_s);"));
    assert!(vjp("log_sum_exp")
        .contains("__adj_m += ::revad::__private::rules::scale_fused(__adj_m_in_loop, __adj_s);"));
    assert!(vjp("compound").contains(".rev()"));
    // (Each row walked once, forward, its adjoints' slices taken before.)
    let rows = vjp("row_sums");
    assert!(
        !rows.contains(".rev()") && !rows.contains("__stack"),
        "{rows}"
    );
    assert!(
        rows.contains("let __adj_m = &mut __adj_m[i * n..][..n];"),
        "{rows}"
    );
    assert!(vjp("row_squares").contains("for j in (0..n).rev()"));
    // (`acc[i] += ..`, then the sum of `acc`: the sum reversed first, each row walked once.)
    let sums = vjp_of("loops")("matvec_sum");
    assert!(!sums.contains("for j in (0..n).rev()"), "{sums}");
    assert!(sums.contains("for __i_2 in (0..n).rev()"), "{sums}");
    let summed = vjp("accumulated_then_summed");
    assert!(!summed.contains("for j in (0..n).rev()"), "{summed}");
    assert!(summed.contains("in (0..acc.len()).rev()"), "{summed}");
}

/// Structs, places, struct expressions, `&mut` structs, methods (the tape backend).
#[test]
fn structs() {
    check("structs");
}

/// Enums: `match` arms that bind variant fields (direct `match` reads, no clones),
/// variant expressions, an enum result.
#[test]
fn enums() {
    check("enums");
}

#[test]
fn forward() {
    check("forward");
}

/// Loops, slices and chains over aggregates: the items are places (`ps[__i1].mass`),
/// nothing is copied.
#[test]
fn aggregate_loops() {
    check("aggregate_loops");
}

/// Trait methods: `#[reverse]` on a trait (the derivatives declared, a default method's
/// defined), on an impl block (defined, through the trait's macro, which adds the type's
/// inherent copies of the split companions), and a generic caller over the trait.
#[test]
fn traits() {
    check("traits");
}

/// Associated functions without a receiver, in an inherent impl block with `#[reverse]`:
/// their derivatives and companions are associated functions (`Self::sq_vjp`,
/// `__ad_fwd_sq`), and callers reach them through the type (`Foo::__ad_fwd_sq`).
#[test]
fn assoc_fns() {
    check("assoc_fns");
}

/// A generic inherent impl block (`impl<T> Model<T> where T: Float`): the items of its
/// method and associated function name the block's `T` without declaring it, their float
/// type, with `T: ::revad::Float` in their `where` clauses.
#[test]
fn generic_impls() {
    check("generic_impls");
}

/// A `bool` returned beside a `&mut` output (no seed for it), and a caller that branches on
/// it: the call made before the `if`, its result a `bool` without an adjoint.
#[test]
fn flags() {
    check("flags");
}

/// Generic functions over `revad::Float`: `T` and its constants where others have `f64`.
#[test]
fn generics() {
    check("generics");
}
