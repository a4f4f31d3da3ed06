//! The generated corpus exercises every construct the fuzzer promises (see the crate docs):
//! a generator change that silently stopped emitting one would make the fuzzer test less.

/// The source of every program of this build.
const ALL: &str = include_str!(concat!(env!("OUT_DIR"), "/all_sources.rs"));

/// The generator's `AVOID_*` flags that decide which shapes are generated.
#[allow(dead_code)]
mod avoid {
    include!(concat!(env!("OUT_DIR"), "/avoid.rs"));
}

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
        "let (tl",
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
        "#[revad::checkpoint]\n",
        "#[revad::checkpoint(snapshots = ",
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
        "#[revad::reverse(wrt(",
        "-> f32",
        "_h0(",
        // `&mut` float parameters, written and read through them.
        ": &mut f64",
        ": &mut f32",
        ": &mut [f64]",
        ": &mut Vec<f64>",
        ": &mut [f64; ",
        "*om0 += ",
        "    *om0 = ",
        "*ou0 = ",
        "for el",
        ".iter_mut() {",
        ".iter_mut().enumerate() {",
        ".iter_mut().zip(",
        " in &mut h",
        // `&mut` arguments: a local float, a local array, `&mut *o`, a `&mut` parameter passed
        // on as it is, and read-only as `&*s`.
        "(&mut m",
        "(&mut h",
        "(&mut *om",
        "(&*sm",
        // Array, `Vec` and tuple results.
        "-> [f64; ",
        "-> Vec<f64>",
        "-> (f64, f64)",
        "let (tu",
        ": [f64; 3] = q_",
        ": Vec<f64> = q_",
        "let res",
        // Local arrays passed to callees.
        "(&h",
        // Gradient control.
        "revad::stop_gradient(",
        // Local 2-D arrays and constant tables.
        "= [[0.0; ",
        "let tab",
        " = [[",
        // A helper called in a closure, collected.
        ".collect::<Vec<",
        // A user type: a struct with `#[derive(revad::Adjoint)]` built in the main function,
        // an inherent `impl` block under `#[revad::reverse]` with an associated function and a
        // `&self` method reading the fields, a trait under `#[revad::reverse]` and its `impl`,
        // and a function generic over the trait.
        "#[derive(Clone, revad::Adjoint)]\npub struct Q",
        "let obj = Q",
        "#[revad::reverse]\nimpl Q",
        "    #[revad::reverse]\n    pub fn f(a0: f",
        "    #[revad::reverse]\n    pub fn m(&self, a0: f",
        "#[revad::reverse]\npub trait Q",
        "    #[revad::reverse]\n    fn eval(&self, a0: f64) -> f64;",
        "    #[revad::reverse]\n    fn eval(&self, a0: f32) -> f32 {",
        "_g<M: Q",
        "(m: &M, a1: f",
        // Their calls: a method on the instance, an associated function by its type's name
        // from the main function and as `Self::f` from the methods, a method of the same
        // type from the trait's impl, the trait's method on the concrete type and through
        // the generic bound, and the generic function.
        "obj.m(",
        "Self::f(",
        "self.m(",
        "obj.eval(",
        "m.eval(",
        "_g(&obj, ",
        // Fields read in the methods, in a closure too.
        "self.fa",
        "self.fc",
        // A written instance: `let mut obj`, a `&mut self` method writing fields of `self`
        // and called on it, a `&self` method returning `Self` (a struct expression).
        "let mut obj = Q",
        "    #[revad::reverse]\n    pub fn bump(&mut self, a0: f",
        "    #[revad::reverse]\n    pub fn next(&self, a0: f",
        ") -> Self {\n",
        "obj.bump(",
    ];
    for c in constructs {
        assert!(ALL.contains(c), "no generated program contains `{c}`");
    }
    // Every intrinsic of the rule table, as a method or as a path.
    for i in revad::rules::INTRINSICS {
        let (method, path) = (format!(".{}(", i.name), format!("::{}(", i.name));
        assert!(
            ALL.contains(&method) || ALL.contains(&path),
            "no generated program calls `{}`",
            i.name
        );
    }
    // An associated function called by its type's name (`Q12S::f(..)`).
    let by_type = ALL
        .match_indices("S::f(")
        .any(|(i, _)| ALL[..i].ends_with(|c: char| c.is_ascii_digit()));
    assert!(by_type, "no associated function is called as `Type::f(..)`");
    // A user type's method called in a closure collected into a `Vec`.
    let method_in_closure = ALL.lines().any(|l| {
        l.split(".map(|&").nth(1).is_some_and(|r| {
            (r.contains("obj.") || r.contains("(&obj")) && r.contains(".collect::<Vec<")
        })
    });
    assert!(
        method_in_closure,
        "no method of a user type is called in a closure collected into a `Vec`"
    );
    // The writes of a `let mut obj` (statements of the main function, `obj.fa op ..;`):
    // `obj.fa = ..`, `obj.fa += ..`, `obj.fa *= ..`, each also nested in a loop or an `if` arm,
    // and the fields of `self` written in `bump`.
    let lines: Vec<&str> = ALL.lines().collect();
    let field_write = |l: &str, op: &str| {
        let t = l.trim_start();
        t.starts_with("obj.f")
            && t.split_once(op)
                .is_some_and(|(lv, _)| !lv.contains(' ') && !lv.contains('('))
    };
    for op in [" = ", " += ", " *= "] {
        assert!(
            lines.iter().any(|l| field_write(l, op)),
            "no field of a `let mut obj` is written with `{op}`"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("        ") && field_write(l, op)),
            "no field of a `let mut obj` is written with `{op}` in a loop or an `if` arm"
        );
    }
    assert!(
        lines.iter().any(|l| l.starts_with("        self.f")
            && l.split_once(" = ")
                .is_some_and(|(lv, _)| !lv.trim().contains(' '))),
        "no `&mut self` method writes a field of `self`"
    );
    // `obj.bump(..)` in a loop or an arm.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("        ") && l.trim_start().starts_with("obj.bump(")),
        "no `obj.bump(..)` in a loop or an `if` arm"
    );
    // The bug class: a method's reverse sweep needs the instance as it was at the call. A
    // read through a method (or `&obj`) right before a write of the instance.
    let read =
        |l: &str| l.contains("= obj.m(") || l.contains("= obj.eval(") || l.contains("_g(&obj, ");
    let write = |l: &str| {
        let t = l.trim_start();
        t.starts_with("obj.") || t.starts_with("obj = ") || t.starts_with("let mut obj = ")
    };
    assert!(
        lines.windows(2).any(|w| read(w[0]) && write(w[1])),
        "no method read of a `let mut obj` is followed by a write of it"
    );
    assert!(
        lines
            .windows(2)
            .any(|w| w[0].starts_with("        ") && read(w[0]) && write(w[1])),
        "no method read of a `let mut obj` is followed by a write of it in a loop"
    );
    // Whole-struct assignment: `obj = obj.next(..)` and `obj = Ty { .. }`, or, where the
    // macro rejects it (`AVOID_OBJ_WHOLE_ASSIGN`), a new binding `let mut obj = ..`.
    let statement = |t: &str, prefix: &str| {
        lines.iter().any(|l| {
            let l = l.trim_start();
            l.starts_with(prefix) && l[prefix.len()..].starts_with(t)
        })
    };
    if !avoid::AVOID_OBJ_WHOLE_ASSIGN {
        assert!(statement("obj.next(", "obj = "), "no `obj = obj.next(..)`");
        assert!(statement("Q", "obj = "), "no `obj = Ty {{ .. }}`");
    } else {
        if !avoid::AVOID_OBJ_METHOD_STRUCT_RESULT {
            assert!(
                statement("obj.next(", "let mut obj = "),
                "no `let mut obj = obj.next(..)`"
            );
        }
        // A second `let mut obj = Ty { .. }` in a main function.
        let rebound = ALL
            .split("\n}\n")
            .any(|f| f.matches("let mut obj = Q").count() >= 2);
        assert!(rebound, "no `let mut obj = Ty {{ .. }}` after the first");
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
    // Functions returning `()`: a main function and a helper, and a helper called as a
    // statement.
    let unit_fn = |prefix: fn(&str) -> bool| {
        ALL.lines()
            .any(|l| l.starts_with("pub fn ") && prefix(&l[7..]) && l.ends_with(") {"))
    };
    assert!(
        unit_fn(|n| n.starts_with('q') && n.split('(').next().is_some_and(|f| !f.contains("_h"))),
        "no main function returns ()"
    );
    assert!(
        unit_fn(|n| n.split('(').next().is_some_and(|f| f.contains("_h"))),
        "no helper returns ()"
    );
    let call_stmt = ALL.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("q_") && t.contains("_h") && t.ends_with(");")
    });
    assert!(call_stmt, "no helper is called as a statement");
    // A `&mut` parameter passed on as it is (`h(sm0, ..)`, `h(vm0, ..)`, `h(am0, ..)`).
    let passed_on = ["(sm", "(vm", "(am"].iter().any(|p| {
        ALL.match_indices(p).any(|(i, _)| {
            ALL[i + 3..].starts_with(|c: char| c.is_ascii_digit()) && ALL[i + 4..].starts_with(", ")
        })
    });
    assert!(passed_on, "no &mut parameter is passed on as it is");
    // Elements of a local 2-D array written (`q3[i][j] = ..`, `q3[i][j] += ..`) and read
    // (`q3[i][j]`), and a constant table read (`tab4[i][0]`).
    for op in ["] = ", "] += "] {
        let w = ALL.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with('q') && t.split(op).next().is_some_and(|lv| lv.contains("]["))
        });
        assert!(w, "no element of a 2-D array is written with `{op}`");
    }
    for (arr, what) in [("q", "2-D array"), ("tab", "constant table")] {
        // `NAME[..][..]` with NAME `arr` and digits, read: not the target of the line.
        let read = ALL.lines().any(|l| {
            let rhs = l.trim_start().split_once(" = ").map_or("", |(_, r)| r);
            rhs.match_indices(arr).any(|(i, _)| {
                let after = &rhs[i + arr.len()..];
                let rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
                rest.len() < after.len() && rest.starts_with('[') && rest.contains("][")
            })
        });
        assert!(read, "no {what} element is read");
    }
    // A helper under `#[revad::reverse(wrt(..))]` called, with a constant for a parameter it
    // leaves out (`h(x, 0.5)`, `h(&[0.5, 1.5], x)`).
    let wrt_helper = lines.windows(2).any(|w| {
        (w[0].starts_with("#[revad::reverse(wrt(") || w[0].starts_with("#[revad::forward(wrt("))
            && w[1].starts_with("pub fn ")
            && w[1].split('(').next().is_some_and(|f| f.contains("_h"))
    });
    assert!(wrt_helper, "no helper has `#[revad::reverse(wrt(..))]`");
    // `let k3 = [0.5, 1.5];` passed as `&k3`.
    let konst = |l: &str, p: &str| {
        l.match_indices(p)
            .any(|(i, _)| l[i + p.len()..].starts_with(|c: char| c.is_ascii_digit()))
    };
    assert!(
        lines
            .iter()
            .any(|l| konst(l, "let k") && l.contains(" = ["))
            && lines.iter().any(|l| l.contains("_h") && konst(l, "&k")),
        "no helper is called with a constant array"
    );
    // A helper called in a closure that iterates an array, collected.
    let in_closure = lines.iter().any(|l| {
        l.split(".map(|&")
            .nth(1)
            .is_some_and(|r| r.contains("_h") && r.contains(".collect::<Vec<"))
    });
    assert!(
        in_closure,
        "no helper is called in a closure collected into a `Vec`"
    );
    // An intrinsic at a pole of its partial, at an argument exactly zero (`(t - t).sqrt()`,
    // `(t * 0.0).cbrt()`), behind a `max` or `min` that does not take it.
    assert!(ALL.contains(" * 0.0)"), "no argument is `t * 0.0`");
    let same = ALL.match_indices(" - ").any(|(i, _)| {
        let left = ALL[..i].rsplit('(').next().unwrap_or("");
        let right = ALL[i + 3..].split(')').next().unwrap_or("");
        !left.is_empty()
            && left == right
            && left
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '*')
    });
    assert!(same, "no argument is `t - t`");
    // Writes of `&mut` slice elements: `sm0[i] = ..` and `sm0[i] += ..`.
    for op in ["] = ", "] += "] {
        let w = ALL.lines().any(|l| {
            let t = l.trim_start();
            (t.starts_with("sm") || t.starts_with("vm") || t.starts_with("am")) && t.contains(op)
        });
        assert!(w, "no element of a &mut parameter is written with `{op}`");
    }
}
