//! Reading rustc's JSON diagnostics and classifying the errors of each program.
//!
//! Each program is compiled twice at the same byte offsets: with its `revad` attributes and
//! with them blanked out (replaced by spaces). An error of the build with attributes is
//!
//! - **ordinary** when the build without attributes has the same error (code, message and
//!   primary span), or when it lies inside the attribute's arguments (a user-written name
//!   that does not resolve, say);
//! - a **macro** error when the macro reported it: a `compile_error!` (no code, no label, no
//!   notes, not a parser message) or a trait error of the runtime's own
//!   `#[diagnostic::on_unimplemented]` messages, at a user span (not on the attribute, unless
//!   inside its arguments or about them: the message then shows them, `#[reverse(wrt(..))]`);
//! - an **echo** when it is a rustc error at a user span, not reported without the attribute,
//!   in a program that does not compile without the attribute either: the generated code
//!   repeats a user error (tolerated, counted);
//! - **BAD** otherwise: a macro panic, an error in generated code of a program that compiles
//!   without the attribute, an error located on the attribute or outside the program, or a
//!   macro error on the attribute for a problem in the item.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// One error (or other diagnostic) of rustc, reduced to what the classification needs.
#[derive(Clone, Debug, Default)]
pub struct Diagnostic {
    /// `error`, `warning`, ...
    pub level: String,
    /// The error code (`E0308`) or lint name, if any.
    pub code: Option<String>,
    /// The main message.
    pub message: String,
    /// The name of the crate target it was reported in.
    pub target: String,
    /// The file of `span`, as cargo names it (`with0/src/m17.rs`).
    pub file: Option<String>,
    /// The primary span's byte range in its file, when that is a program's file; otherwise
    /// the first span of its macro backtrace that is in a program's file.
    pub span: Option<(usize, usize)>,
    /// Whether the primary span is in another file (generated code, a dependency).
    pub elsewhere: bool,
    /// Whether it has the shape of a `compile_error!`: no code, one span without a label,
    /// no child notes.
    pub bare: bool,
    /// rustc's rendering, for reports.
    pub rendered: String,
}

/// The diagnostics in the JSON lines cargo prints with `--message-format=json`.
pub fn parse_cargo_json(stdout: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for line in stdout.lines() {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if value["reason"] != "compiler-message" {
            continue;
        }
        let target = value["target"]["name"].as_str().unwrap_or_default();
        out.push(from_rustc(&value["message"], target));
    }
    out
}

/// Reduces one rustc JSON diagnostic.
pub fn from_rustc(message: &Value, target: &str) -> Diagnostic {
    let str_of = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let spans = message["spans"].as_array().cloned().unwrap_or_default();
    let primary = spans
        .iter()
        .find(|s| s["is_primary"] == true)
        .or(spans.first());
    let in_lib = |s: &Value| s["file_name"].as_str().is_some_and(is_program_file);
    let range = |s: &Value| {
        (
            s["byte_start"].as_u64().unwrap_or(0) as usize,
            s["byte_end"].as_u64().unwrap_or(0) as usize,
        )
    };
    let mut span = None;
    let mut file = None;
    let mut elsewhere = false;
    if let Some(primary) = primary {
        let mut at = primary.clone();
        elsewhere = !in_lib(primary);
        while !at.is_null() {
            if in_lib(&at) {
                span = Some(range(&at));
                file = Some(str_of(&at["file_name"]));
                break;
            }
            at = at["expansion"]["span"].clone();
        }
    }
    let children = message["children"].as_array().map_or(0, Vec::len);
    let code = message["code"]["code"].as_str().map(str::to_string);
    Diagnostic {
        level: str_of(&message["level"]),
        bare: code.is_none() && children == 0 && spans.len() == 1 && spans[0]["label"].is_null(),
        code,
        message: str_of(&message["message"]),
        target: target.to_string(),
        file,
        span,
        elsewhere,
        rendered: str_of(&message["rendered"]),
    }
}

/// The index of the program whose file `path` is (`with0/src/m17.rs` is program 17).
pub fn program_of_file(path: &str) -> Option<usize> {
    let name = path.rsplit(['/', '\\']).next()?;
    name.strip_prefix('m')?.strip_suffix(".rs")?.parse().ok()
}

/// Whether `path` is the file of a program.
pub fn is_program_file(path: &str) -> bool {
    program_of_file(path).is_some()
}

/// Whether `message` is one of rustc's parser messages (a parse error in macro output has
/// the bare shape of a `compile_error!` too).
pub fn is_parser_message(message: &str) -> bool {
    let expected_found = message.starts_with("expected ")
        && [
            ", found `",
            ", found keyword",
            ", found reserved",
            ", found doc",
            ", found end",
        ]
        .iter()
        .any(|f| message.contains(f));
    expected_found
        || message.starts_with("unexpected ")
        || message.starts_with("macro expansion ignores")
        || message.contains("delimiter")
}

/// Whether `message` is an instance of `template`, an `on_unimplemented` message whose
/// `{Self}`, `{T}`... stand for any text.
pub fn matches_template(template: &str, message: &str) -> bool {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        parts.push(&rest[..open]);
        rest = rest[open..]
            .find('}')
            .map_or("", |close| &rest[open + close + 1..]);
    }
    parts.push(rest);
    let Some(tail) = message.strip_prefix(parts[0]) else {
        return false;
    };
    let mut tail = tail;
    let last = parts.len() - 1;
    for (i, part) in parts.iter().enumerate().skip(1) {
        if i == last {
            return tail.ends_with(part);
        }
        match tail.find(part) {
            Some(at) => tail = &tail[at + part.len()..],
            None => return false,
        }
    }
    tail.is_empty()
}

/// Whether the diagnostic is a macro panic.
pub fn is_panic(d: &Diagnostic) -> bool {
    d.message.contains("panicked")
}

/// An `revad` attribute of a program, as byte ranges of the crate's `src/lib.rs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttrRange {
    /// From `#` to `]` inclusive: `start..end`.
    pub start: usize,
    /// One past the `]`.
    pub end: usize,
    /// Between the parentheses of the arguments, if any.
    pub args: Option<(usize, usize)>,
}

/// Where a program lies in the file it was compiled in.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The crate target, with attributes.
    pub with_target: String,
    /// The crate target, attributes blanked out.
    pub plain_target: String,
    /// Its byte range in its file (`start..end`), the same in both.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Its `revad` attributes.
    pub attrs: Vec<AttrRange>,
}

/// The class of one error of the build with attributes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Reported by the macro, at a user span.
    Macro,
    /// Also reported without the attributes, or inside the attribute's arguments.
    Ordinary,
    /// A rustc error of generated code at a user span, in a program with user errors.
    Echo,
    /// Not allowed; the reason.
    Bad(String),
}

/// The verdict on one program.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// No error with the attributes.
    Accepted,
    /// Errors, all of them allowed.
    Rejected,
    /// At least one BAD error.
    Bad,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Accepted => "accepted",
            Verdict::Rejected => "rejected",
            Verdict::Bad => "BAD",
        })
    }
}

/// The classification of one program.
#[derive(Clone, Debug)]
pub struct Report {
    /// The verdict.
    pub verdict: Verdict,
    /// Each error of the build with attributes, with its class.
    pub errors: Vec<(Diagnostic, Class)>,
    /// The errors of the build without attributes.
    pub plain_errors: Vec<Diagnostic>,
    /// BAD findings that are not tied to one error.
    pub notes: Vec<String>,
}

impl Report {
    /// The number of errors of each class.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut counts = BTreeMap::new();
        for (_, class) in &self.errors {
            let name = match class {
                Class::Macro => "macro",
                Class::Ordinary => "ordinary",
                Class::Echo => "echo",
                Class::Bad(_) => "BAD",
            };
            *counts.entry(name).or_insert(0) += 1;
        }
        counts
    }

    /// A readable account: each error with its class and rendering.
    pub fn describe(&self, offset: usize) -> String {
        let mut out = String::new();
        for note in &self.notes {
            out.push_str(&format!("  BAD: {note}\n"));
        }
        for (d, class) in &self.errors {
            let at = d.span.map_or("?".to_string(), |(s, e)| {
                format!("{}..{}", s.saturating_sub(offset), e.saturating_sub(offset))
            });
            out.push_str(&format!(
                "  [{class:?}] at program bytes {at}: {}\n",
                d.rendered
            ));
        }
        if !self.plain_errors.is_empty() {
            out.push_str("  without the attributes:\n");
            for d in &self.plain_errors {
                out.push_str(&format!("    {}\n", d.message));
            }
        }
        out
    }
}

fn within(span: (usize, usize), range: (usize, usize)) -> bool {
    range.0 <= span.0 && span.1 <= range.1
}

/// Classifies the errors of one program. `with` and `plain` hold the errors of the two builds
/// located in this program; `runtime_messages` are the runtime's `on_unimplemented`
/// messages, which are errors the macro reports on purpose.
pub fn classify(
    place: &Placement,
    with: &[Diagnostic],
    plain: &[Diagnostic],
    runtime_messages: &[String],
) -> Report {
    let mut errors = Vec::new();
    let mut notes = Vec::new();
    for d in with {
        errors.push((d.clone(), classify_one(place, d, plain, runtime_messages)));
    }
    if with.is_empty() && !plain.is_empty() {
        notes.push(
            "compiles with the attributes but not without: the macro hid user code".to_string(),
        );
    }
    let verdict = if !notes.is_empty() || errors.iter().any(|(_, c)| matches!(c, Class::Bad(_))) {
        Verdict::Bad
    } else if errors.is_empty() {
        Verdict::Accepted
    } else {
        Verdict::Rejected
    };
    Report {
        verdict,
        errors,
        plain_errors: plain.to_vec(),
        notes,
    }
}

fn classify_one(
    place: &Placement,
    d: &Diagnostic,
    plain: &[Diagnostic],
    runtime_messages: &[String],
) -> Class {
    if is_panic(d) {
        return Class::Bad("the macro panicked".to_string());
    }
    let Some(span) = d.span else {
        return Class::Bad("error without a location in the program".to_string());
    };
    if d.elsewhere {
        return Class::Bad("error located outside the user's file (generated code)".to_string());
    }
    if plain
        .iter()
        .any(|p| p.code == d.code && p.message == d.message && p.span == d.span)
    {
        return Class::Ordinary;
    }
    let attr = place.attrs.iter().find(|a| within(span, (a.start, a.end)));
    let in_args = attr
        .and_then(|a| a.args)
        .is_some_and(|args| within(span, args));
    let by_macro = (d.bare && !is_parser_message(&d.message))
        || runtime_messages
            .iter()
            .any(|m| matches_template(m, &d.message));
    if by_macro {
        // On the attribute is right for an error about its arguments, which names them, and
        // for one about the attribute itself: a second `revad` attribute on a function that
        // already has one (the error names the first).
        let about_attribute = [
            "reverse(",
            "derivative(",
            "has #[reverse]",
            "has #[revad::derivative]",
        ]
        .iter()
        .any(|a| d.message.contains(a));
        return if attr.is_some() && !in_args && !about_attribute {
            Class::Bad("macro error on the attribute, not at the construct".to_string())
        } else {
            Class::Macro
        };
    }
    if in_args {
        Class::Ordinary
    } else if attr.is_some() {
        Class::Bad("error in generated code, located on the attribute".to_string())
    } else if !plain.is_empty() {
        Class::Echo
    } else {
        Class::Bad(
            "error in generated code: the program compiles without the attribute".to_string(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> Placement {
        Placement {
            with_target: "with0".into(),
            plain_target: "plain0".into(),
            start: 100,
            end: 200,
            attrs: vec![AttrRange {
                start: 110,
                end: 130,
                args: Some((120, 129)),
            }],
        }
    }

    fn diag(code: Option<&str>, message: &str, span: (usize, usize), bare: bool) -> Diagnostic {
        Diagnostic {
            level: "error".into(),
            code: code.map(str::to_string),
            message: message.into(),
            span: Some(span),
            bare,
            ..Diagnostic::default()
        }
    }

    #[test]
    fn parses_rustc_json() {
        let line = r#"{"reason":"compiler-message","target":{"name":"with0"},"message":{"level":"error","code":null,"message":"x","children":[],"rendered":"r","spans":[{"file_name":"with0/src/m3.rs","byte_start":5,"byte_end":9,"is_primary":true,"label":null,"expansion":null}]}}"#;
        let d = parse_cargo_json(line);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].span, Some((5, 9)));
        assert!(d[0].bare && !d[0].elsewhere);
        assert_eq!(d[0].target, "with0");
        assert_eq!(d[0].file.as_deref().and_then(program_of_file), Some(3));
        let generated = r#"{"reason":"compiler-message","target":{"name":"with0"},"message":{"level":"error","code":{"code":"E0308"},"message":"m","children":[],"rendered":"r","spans":[{"file_name":"ad-runtime/src/x.rs","byte_start":1,"byte_end":2,"is_primary":true,"label":"here","expansion":{"span":{"file_name":"with0/src/m3.rs","byte_start":110,"byte_end":120,"expansion":null}}}]}}"#;
        let d = parse_cargo_json(generated);
        assert!(d[0].elsewhere && !d[0].bare);
        assert_eq!(d[0].span, Some((110, 120)));
        let r = classify(&place(), &d, &[], &[]);
        assert_eq!(r.verdict, Verdict::Bad);
    }

    #[test]
    fn templates() {
        let t = "this call returns `{Self}`, but #[reverse] takes its result for `{T}`";
        assert!(matches_template(
            t,
            "this call returns `f64`, but #[reverse] takes its result for `f32`"
        ));
        assert!(!matches_template(t, "this call returns `f64`"));
        assert!(matches_template("plain", "plain"));
        assert!(!matches_template("plain", "plain and more"));
    }

    #[test]
    fn allowed_classes() {
        let m = diag(
            None,
            "`unsafe` blocks are not supported by #[reverse]",
            (150, 156),
            true,
        );
        let o = diag(Some("E0308"), "mismatched types", (160, 161), false);
        let a = diag(Some("E0425"), "cannot find function `p`", (121, 122), false);
        let r = classify(&place(), &[m, o.clone(), a], std::slice::from_ref(&o), &[]);
        let classes: Vec<_> = r.errors.iter().map(|(_, c)| c.clone()).collect();
        assert_eq!(classes, [Class::Macro, Class::Ordinary, Class::Ordinary]);
        assert_eq!(r.verdict, Verdict::Rejected);
        let echo = diag(Some("E0277"), "cannot multiply", (170, 175), false);
        let r = classify(&place(), &[echo, o.clone()], &[o], &[]);
        assert_eq!(r.errors[0].1, Class::Echo);
        // A second attribute, reported on that attribute.
        let twice = diag(
            None,
            "`f` has #[reverse] twice; remove this one",
            (110, 130),
            true,
        );
        assert_eq!(
            classify(&place(), &[twice], &[], &[]).errors[0].1,
            Class::Macro
        );
        let runtime = diag(Some("E0277"), "no derivative", (170, 175), false);
        let r = classify(&place(), &[runtime], &[], &["no derivative".to_string()]);
        assert_eq!(r.verdict, Verdict::Rejected);
        assert_eq!(classify(&place(), &[], &[], &[]).verdict, Verdict::Accepted);
    }

    #[test]
    fn bad_classes() {
        let bad = |with: Diagnostic, plain: &[Diagnostic]| {
            let r = classify(&place(), &[with], plain, &[]);
            assert_eq!(r.verdict, Verdict::Bad, "{r:?}");
        };
        bad(diag(None, "proc macro panicked", (110, 130), false), &[]);
        bad(
            diag(None, "custom attribute panicked", (110, 130), true),
            &[],
        );
        // A body problem reported on the attribute.
        bad(
            diag(None, "`while let` is not supported", (110, 130), true),
            &[],
        );
        // A parse error of the macro's output has the bare shape too.
        bad(
            diag(None, "expected expression, found `+`", (150, 151), true),
            &[],
        );
        // Generated code that does not compile for a valid program.
        bad(
            diag(Some("E0308"), "mismatched types", (150, 151), false),
            &[],
        );
        // Generated code that does not compile, located on the attribute.
        let user = diag(Some("E0308"), "mismatched types", (150, 151), false);
        bad(
            diag(Some("E0277"), "cannot multiply", (110, 130), false),
            std::slice::from_ref(&user),
        );
        // User errors that disappear with the attribute.
        let r = classify(&place(), &[], &[user], &[]);
        assert_eq!(r.verdict, Verdict::Bad);
    }
}
