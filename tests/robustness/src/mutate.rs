//! Deterministic token-level mutations of seed programs.
//!
//! Mutations apply only inside items annotated with an `revad` attribute (the attribute itself
//! is kept), and never remove or move a delimiter, so every mutant still has balanced
//! delimiters. The `k`-th mutant of a seed depends only on the seed's name, its text and `k`:
//! adding a seed or a mutation count does not renumber the mutants of another seed.

use crate::lex::{ad_attributes, is_plain_ident, lex, render, Kind, Token};

#[path = "../../common/splitmix.rs"]
#[allow(dead_code, reason = "the fuzzer uses the rest")]
mod splitmix;
pub use splitmix::Rng;

/// FNV-1a of `s`: a stable seed for a name.
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The mutation operators, by name.
pub const OPERATORS: &[&str] = &[
    "delete",
    "duplicate",
    "swap",
    "ident",
    "int-literal",
    "literal-suffix",
    "type",
    "operator",
    "prefix",
    "wrap",
    "method",
    "suffix",
    "let-mut",
    "dup-statement",
];

/// A mutant: the operator applied and the program text.
#[derive(Clone, Debug)]
pub struct Mutant {
    /// The name of the operator that made it.
    pub operator: &'static str,
    /// The mutated program.
    pub source: String,
}

/// Up to `count` distinct mutants of the seed program `source` named `name`.
pub fn mutants(name: &str, source: &str, count: usize) -> Vec<Mutant> {
    let tokens = lex(source).unwrap_or_else(|e| panic!("seed {name} does not lex: {e}"));
    let original = render(&tokens);
    let mut region = Vec::new();
    for attr in ad_attributes(&tokens) {
        region.extend(attr.close + 1..=attr.item_end);
    }
    region.sort_unstable();
    region.dedup();
    let mut out: Vec<Mutant> = Vec::new();
    let mut rng = Rng::new(fnv1a(name) ^ fnv1a(source));
    let mut attempts = 0;
    while out.len() < count && attempts < count * 50 {
        attempts += 1;
        let operator = rng.pick(OPERATORS);
        let Some(mutated) = apply(operator, &tokens, &region, &mut rng) else {
            continue;
        };
        let text = render(&mutated);
        if text != original && out.iter().all(|m| m.source != text) {
            out.push(Mutant {
                operator,
                source: text,
            });
        }
    }
    out
}

const ARITHMETIC: &[&str] = &["+", "-", "*", "/", "%"];
const COMPARISON: &[&str] = &["<", ">", "<=", ">=", "==", "!="];
const COMPOUND: &[&str] = &["+=", "-=", "*=", "/=", "%=", "="];
const LOGICAL: &[&str] = &["&&", "||"];
const RANGE: &[&str] = &["..", "..="];
const TYPES: &[&str] = &["f64", "f32", "usize", "i32", "u32", "bool"];
const METHODS: &[&str] = &[
    "sin", "cos", "exp", "ln", "sqrt", "abs", "tanh", "powi", "max", "clamp", "sin_cos", "floor",
    "len", "iter", "clone", "to_vec", "sum", "rev", "map", "push", "min", "atan2", "mul_add",
];
const PREFIXES: &[&[&str]] = &[&["&"], &["&", "mut"], &["*"], &["-"], &["!"], &["return"]];
const SUFFIXES: &[&str] = &[
    ".clone()",
    ".abs()",
    "as f64",
    "as usize",
    "as f32",
    "[0]",
    ".0",
    "?",
    ".len()",
    ".iter()",
    ".sum::<f64>()",
    ".sin()",
];

/// Applies `operator` at a random place of `region` (token indices), or `None` when the
/// program has no place for it.
fn apply(operator: &str, tokens: &[Token], region: &[usize], rng: &mut Rng) -> Option<Vec<Token>> {
    let mut t = tokens.to_vec();
    let choose = |rng: &mut Rng, ok: &dyn Fn(usize) -> bool| -> Option<usize> {
        let places: Vec<usize> = region.iter().copied().filter(|&i| ok(i)).collect();
        (!places.is_empty()).then(|| places[rng.below(places.len())])
    };
    let fresh = |text: &str| Token::new(kind_of(text), text);
    match operator {
        "delete" => {
            let i = choose(rng, &|i| !t[i].is_delim())?;
            t.remove(i);
        }
        "duplicate" => {
            let i = choose(rng, &|i| !t[i].is_delim())?;
            let copy = fresh(&t[i].text);
            t.insert(i + 1, copy);
        }
        "swap" => {
            let i = choose(rng, &|i| {
                i + 1 < t.len()
                    && region.contains(&(i + 1))
                    && !t[i].is_delim()
                    && !t[i + 1].is_delim()
                    && t[i].text != t[i + 1].text
            })?;
            let (a, b) = (t[i].text.clone(), t[i + 1].text.clone());
            t[i] = Token {
                space: t[i].space.clone(),
                ..fresh(&b)
            };
            t[i + 1] = fresh(&a);
        }
        "ident" => {
            let names: Vec<String> = region
                .iter()
                .filter(|&&i| is_plain_ident(&t[i]))
                .map(|&i| t[i].text.clone())
                .collect();
            let i = choose(rng, &|i| is_plain_ident(&t[i]))?;
            let others: Vec<&String> = names.iter().filter(|n| **n != t[i].text).collect();
            if others.is_empty() {
                return None;
            }
            t[i].text = others[rng.below(others.len())].clone();
        }
        "int-literal" => {
            let i = choose(rng, &|i| is_number(&t[i]) && t[i].text.contains('.'))?;
            let int = t[i].text.split('.').next().unwrap_or("0").to_string();
            t[i].text = int;
        }
        "literal-suffix" => {
            let i = choose(rng, &|i| is_number(&t[i]))?;
            let text = &t[i].text;
            t[i].text = if let Some(stem) = text.strip_suffix("f64") {
                format!("{stem}f32")
            } else if let Some(stem) = text.strip_suffix("f32") {
                format!("{stem}f64")
            } else {
                format!("{}{}", text, rng.pick(&["_f32", "_f64", "usize", "i32"]))
            };
        }
        "type" => {
            let i = choose(rng, &|i| TYPES.contains(&t[i].text.as_str()))?;
            let other = rng.pick(TYPES);
            if other == t[i].text {
                return None;
            }
            t[i].text = other.to_string();
        }
        "operator" => {
            let families = [ARITHMETIC, COMPARISON, COMPOUND, LOGICAL, RANGE];
            let i = choose(rng, &|i| {
                t[i].kind == Kind::Punct && families.iter().any(|f| f.contains(&t[i].text.as_str()))
            })?;
            let family = families.iter().find(|f| f.contains(&t[i].text.as_str()))?;
            let other = rng.pick(family);
            if other == t[i].text {
                return None;
            }
            t[i].text = other.to_string();
        }
        "prefix" => {
            let i = choose(rng, &|i| is_operand(&t, i))?;
            let prefix = rng.pick(PREFIXES);
            for (k, text) in prefix.iter().enumerate() {
                t.insert(i + k, fresh(text));
            }
            // The operand is no longer next to what preceded it: keep its spacing only.
            t[i].space = t[i + prefix.len()].space.clone();
            t[i + prefix.len()].space.clear();
        }
        "wrap" => {
            let i = choose(rng, &|i| is_operand(&t, i))?;
            let (open, close) = rng.pick(&[("(", ")"), ("{", "}")]);
            t.insert(i + 1, fresh(close));
            t.insert(i, fresh(open));
        }
        "method" => {
            let i = choose(rng, &|i| {
                i > 0 && t[i - 1].is(".") && t.get(i + 1).is_some_and(|n| n.is("("))
            })?;
            let other = rng.pick(METHODS);
            if other == t[i].text {
                return None;
            }
            t[i].text = other.to_string();
        }
        "suffix" => {
            let i = choose(rng, &|i| {
                is_operand(&t, i)
                    && !t
                        .get(i + 1)
                        .is_some_and(|n| n.is("(") || n.is("::") || n.is("!"))
            })?;
            let suffix = lex(rng.pick(SUFFIXES)).ok()?;
            for (k, tok) in suffix.into_iter().enumerate() {
                t.insert(i + 1 + k, fresh(&tok.text));
            }
        }
        "let-mut" => {
            let i = choose(rng, &|i| t[i].is("let"))?;
            if t.get(i + 1).is_some_and(|n| n.is("mut")) {
                t.remove(i + 1);
            } else {
                t.insert(i + 1, fresh("mut"));
            }
        }
        "dup-statement" => {
            let i = choose(rng, &|i| t[i].is("let"))?;
            let mut end = i;
            let mut depth = 0i32;
            while end < t.len() {
                match t[end].kind {
                    Kind::Open => depth += 1,
                    Kind::Close => depth -= 1,
                    _ => {}
                }
                if depth < 0 {
                    return None;
                }
                if depth == 0 && t[end].is(";") {
                    break;
                }
                end += 1;
            }
            if end == t.len() {
                return None;
            }
            let copy: Vec<Token> = t[i..=end].iter().map(|tok| fresh(&tok.text)).collect();
            for (k, tok) in copy.into_iter().enumerate() {
                t.insert(end + 1 + k, tok);
            }
        }
        _ => unreachable!("unknown operator {operator}"),
    }
    Some(t)
}

/// The kind of a token written by a mutation.
fn kind_of(text: &str) -> Kind {
    lex(text)
        .ok()
        .and_then(|t| t.first().map(|t| t.kind))
        .unwrap_or(Kind::Punct)
}

fn is_number(token: &Token) -> bool {
    token.kind == Kind::Literal && token.text.starts_with(|c: char| c.is_ascii_digit())
}

/// Whether token `i` starts an operand: a literal, or an identifier that is not a keyword,
/// not a field or method name, not a path segment after `::`, and not a name being bound.
fn is_operand(t: &[Token], i: usize) -> bool {
    let prev = i.checked_sub(1).map(|p| t[p].text.as_str());
    let binder = matches!(
        prev,
        Some("." | "::" | "fn" | "let" | "mut" | "mod" | "struct" | "for" | "|" | "'")
    );
    (t[i].kind == Kind::Literal || is_plain_ident(&t[i]))
        && !binder
        && !t.get(i + 1).is_some_and(|n| n.is("::") || n.is(":"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str =
        "#[reverse]\nfn f(x: f64, y: f64) -> f64 {\n    let z = x * y + 1.0;\n    z.sin()\n}\n";

    #[test]
    fn deterministic_distinct_and_balanced() {
        let a = mutants("seed", SEED, 40);
        let b = mutants("seed", SEED, 40);
        assert_eq!(a.len(), 40);
        for (m, n) in a.iter().zip(&b) {
            assert_eq!(m.source, n.source);
            assert_ne!(m.source, SEED);
            assert!(m.source.starts_with("#[reverse]\n"), "{}", m.source);
            let tokens = lex(&m.source).unwrap();
            let opens = tokens.iter().filter(|t| t.kind == Kind::Open).count();
            let closes = tokens.iter().filter(|t| t.kind == Kind::Close).count();
            assert_eq!(opens, closes, "{}", m.source);
        }
        let operators: std::collections::BTreeSet<_> = a.iter().map(|m| m.operator).collect();
        assert!(operators.len() >= 8, "{operators:?}");
    }
}
