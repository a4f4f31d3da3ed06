//! The generated corpus exercises every construct the fuzzer promises (see the crate docs):
//! a generator change that silently stopped emitting one would make the fuzzer test less.

/// The source of every program of this build.
const ALL: &str = include_str!(concat!(env!("OUT_DIR"), "/all_sources.rs"));

#[test]
fn the_corpus_covers_the_subset() {
    let constructs = [
        // Statements and expressions.
        "let mut ",
        ": f64 = ",
        " += ",
        " -= ",
        " *= ",
        " /= ",
        " % ",
        " as f64",
        "} else {",
        "return ",
        // Loops.
        "for i",
        "..=",
        ").rev()",
        ").step_by(",
        ".iter() {",
        "for &",
        ".iter().enumerate() {",
        "while ",
        "loop {",
        "break;",
        "continue;",
        // Arrays and parameters.
        "[0.0; ",
        "vec![0.0; ",
        ".push(",
        ".pop().unwrap()",
        ".insert(",
        ".remove(",
        ".swap(",
        ": &[f64]",
        ": Vec<f64>",
        ": &Vec<f64>",
        ": [f64; ",
        ": usize",
        ".len()",
        // Closures, chains, calls, attributes, f32.
        "= |c",
        ".map(|&",
        ".copied()",
        ".zip(",
        ".enumerate().map(",
        ".filter(",
        ".fold(",
        ".product::<",
        ".sum::<",
        "#[ad::reverse(wrt(",
        "-> f32",
        "_h0(",
    ];
    for c in constructs {
        assert!(ALL.contains(c), "no generated program contains `{c}`");
    }
    // Every intrinsic of the rule table, as a method or as a path.
    for i in ad::rules::INTRINSICS {
        let (method, path) = (format!(".{}(", i.name), format!("::{}(", i.name));
        assert!(
            ALL.contains(&method) || ALL.contains(&path),
            "no generated program calls `{}`",
            i.name
        );
    }
    // A call with the same argument twice, `h(x, x)`.
    let twice = ALL.lines().any(|l| {
        l.split("_h").skip(1).any(|rest| {
            let args = rest
                .split_once('(')
                .and_then(|(_, a)| a.split_once(')'))
                .map(|(a, _)| a);
            args.is_some_and(|a| {
                let parts: Vec<&str> = a.split(", ").collect();
                parts.len() >= 2 && parts[0] == parts[1]
            })
        })
    });
    assert!(twice, "no call passes the same argument twice");
}
