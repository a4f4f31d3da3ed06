//! A small Rust lexer: enough of the token grammar for the corpus (identifiers, literals,
//! lifetimes, punctuation, delimiters). Each token keeps the whitespace and comments before
//! it, so a token list prints back to its source unchanged, and a mutated list prints with
//! the original layout wherever it was not changed.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or a keyword.
    Ident,
    /// A lifetime or a loop label (`'a`).
    Lifetime,
    /// A number, string or character literal.
    Literal,
    /// Punctuation, multi-character operators included (`..=`, `+=`, `::`).
    Punct,
    /// `(`, `[` or `{`.
    Open,
    /// `)`, `]` or `}`.
    Close,
}

/// One token of a program.
#[derive(Clone, Debug)]
pub struct Token {
    /// What the token is.
    pub kind: Kind,
    /// Its text.
    pub text: String,
    /// The whitespace and comments before it in the source it was read from.
    pub space: String,
    /// Its index in the token list it was read into; `None` for a token a mutation inserted.
    pub orig: Option<usize>,
    /// Its byte offset in the source it was read from.
    pub start: usize,
}

impl Token {
    /// A token a mutation inserts: no position, printed with a space before it.
    pub fn new(kind: Kind, text: &str) -> Token {
        Token {
            kind,
            text: text.to_string(),
            space: String::new(),
            orig: None,
            start: 0,
        }
    }

    /// Whether the token is a delimiter (mutations never remove or move one, so every
    /// mutant keeps balanced delimiters: rustc gives up on a file with unbalanced ones).
    pub fn is_delim(&self) -> bool {
        matches!(self.kind, Kind::Open | Kind::Close)
    }

    /// Whether the token is `text`.
    pub fn is(&self, text: &str) -> bool {
        self.text == text
    }
}

/// Rust's strict and reserved keywords of edition 2021.
pub const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
];

/// Whether `token` is an identifier that is not a keyword.
pub fn is_plain_ident(token: &Token) -> bool {
    token.kind == Kind::Ident && !KEYWORDS.contains(&token.text.as_str())
}

/// Multi-character punctuation, longest first.
const PUNCTS: &[&str] = &[
    "..=", "...", "<<=", ">>=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "..",
];

/// Splits `src` into tokens, or says where it cannot.
pub fn lex(src: &str) -> Result<Vec<Token>, String> {
    let bytes = src.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut space_start = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let rest = &src[i..];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        if rest.starts_with("/*") {
            let end = rest
                .find("*/")
                .ok_or(format!("unterminated comment at byte {i}"))?;
            i += end + 2;
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            i += ident_len(rest);
            Kind::Ident
        } else if c.is_ascii_digit() {
            i += number_len(rest);
            Kind::Literal
        } else if c == b'"' {
            i += string_len(rest).ok_or(format!("unterminated string at byte {i}"))?;
            Kind::Literal
        } else if c == b'\'' {
            match char_literal_len(rest) {
                Some(len) => {
                    i += len;
                    Kind::Literal
                }
                None => {
                    i += 1 + ident_len(&rest[1..]);
                    Kind::Lifetime
                }
            }
        } else if b"([{".contains(&c) {
            i += 1;
            Kind::Open
        } else if b")]}".contains(&c) {
            i += 1;
            Kind::Close
        } else if b"+-*/%^!&|=<>@.,;:#$?~".contains(&c) {
            i += PUNCTS
                .iter()
                .find(|p| rest.starts_with(*p))
                .map_or(1, |p| p.len());
            Kind::Punct
        } else {
            return Err(format!(
                "unexpected character {:?} at byte {i}",
                rest.chars().next()
            ));
        };
        tokens.push(Token {
            kind,
            text: src[start..i].to_string(),
            space: src[space_start..start].to_string(),
            orig: Some(tokens.len()),
            start,
        });
        space_start = i;
    }
    Ok(tokens)
}

fn ident_len(s: &str) -> usize {
    s.bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count()
}

/// The length of the number literal at the start of `s`: digits, one fractional part, an
/// exponent with a sign, a suffix (`1.5e-3_f64`, `0..n` stops before `..`).
fn number_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    let mut seen_dot = false;
    loop {
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            let exponent = (b[i] == b'e' || b[i] == b'E') && !s.starts_with("0x");
            i += 1;
            if exponent
                && i + 1 < b.len()
                && (b[i] == b'+' || b[i] == b'-')
                && b[i + 1].is_ascii_digit()
            {
                i += 1;
            }
        }
        if !seen_dot && i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
            seen_dot = true;
            i += 1;
            continue;
        }
        return i;
    }
}

fn string_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The length of the character literal at the start of `s`, or `None` for a lifetime.
fn char_literal_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices().skip(1);
    let (_, c) = chars.next()?;
    if c == '\\' {
        let close = s[2..].find('\'')?;
        return Some(close + 3);
    }
    let (i, next) = chars.next()?;
    (next == '\'').then_some(i + 1)
}

/// Prints tokens back to source: the original spacing between tokens that were neighbours
/// in the source, and at least one space between tokens that were not.
pub fn render(tokens: &[Token]) -> String {
    let mut out = String::new();
    for (i, token) in tokens.iter().enumerate() {
        let neighbours =
            i > 0 && matches!((tokens[i - 1].orig, token.orig), (Some(a), Some(b)) if a + 1 == b);
        if i == 0 || neighbours || !token.space.is_empty() {
            out.push_str(&token.space);
        } else {
            out.push(' ');
        }
        out.push_str(&token.text);
    }
    out.push('\n');
    out
}

/// An attribute of `revad` (`#[reverse]`, `#[revad::reverse(..)]`, `#[revad::derivative(..)]`), as
/// token indices.
#[derive(Clone, Debug)]
pub struct AdAttribute {
    /// The index of `#`.
    pub hash: usize,
    /// The index of the closing `]`.
    pub close: usize,
    /// The indices of the parentheses around the arguments, if any.
    pub args: Option<(usize, usize)>,
    /// The index of the last token of the item the attribute applies to.
    pub item_end: usize,
}

/// The index of the delimiter that closes the one at `open`.
pub fn matching(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.kind {
            Kind::Open => depth += 1,
            Kind::Close => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len() - 1
}

/// Every `revad` attribute in `tokens`, with the extent of the item it applies to.
pub fn ad_attributes(tokens: &[Token]) -> Vec<AdAttribute> {
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < tokens.len() {
        if !(tokens[i].is("#") && tokens[i + 1].is("[")) {
            i += 1;
            continue;
        }
        let close = matching(tokens, i + 1);
        let mut j = i + 2;
        let mut last = None;
        while j < close && (tokens[j].kind == Kind::Ident || tokens[j].is("::")) {
            if tokens[j].kind == Kind::Ident {
                last = Some(tokens[j].text.as_str());
            }
            j += 1;
        }
        if matches!(last, Some("reverse" | "derivative")) {
            let args = tokens[j].is("(").then(|| (j, matching(tokens, j)));
            found.push(AdAttribute {
                hash: i,
                close,
                args,
                item_end: item_end(tokens, close + 1),
            });
        }
        i += 2;
    }
    found
}

/// The last token of the item starting at `start`: its body's closing `}` or its `;`.
fn item_end(tokens: &[Token], start: usize) -> usize {
    let mut i = start;
    while i < tokens.len() {
        match tokens[i].text.as_str() {
            "{" => return matching(tokens, i),
            ";" => return i,
            _ if tokens[i].kind == Kind::Open => i = matching(tokens, i) + 1,
            _ => i += 1,
        }
    }
    tokens.len().saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_kinds() {
        let src = "#[reverse(wrt(x))]\nfn f<'a>(x: f64) -> f64 { // c\n    let v = 1.5e-3_f64 + x.0; for i in 0..=n { 'c'; \"s\\\"\"; } x.sin() }\n";
        let tokens = lex(src).unwrap();
        assert_eq!(render(&tokens), src);
        let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
        assert!(texts.contains(&"1.5e-3_f64"));
        assert!(texts.contains(&"..="));
        assert!(texts.contains(&"'a"));
        assert!(texts.contains(&"'c'"));
        assert!(texts.contains(&"\"s\\\"\""));
        assert!(tokens.windows(2).any(|w| w[0].is("0") && w[1].is("..=")));
        let attrs = ad_attributes(&tokens);
        assert_eq!(attrs.len(), 1);
        assert_eq!(attrs[0].hash, 0);
        assert!(tokens[attrs[0].close].is("]"));
        assert!(tokens[attrs[0].item_end].is("}"));
        assert_eq!(attrs[0].item_end, tokens.len() - 1);
    }

    #[test]
    fn separated_when_not_neighbours() {
        let mut tokens = lex("x.sin()").unwrap();
        tokens.remove(1);
        assert_eq!(render(&tokens), "x sin()\n");
    }
}
